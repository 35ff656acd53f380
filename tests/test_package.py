"""cardrl as a library in a user's world: the wheel holds one top-level package, installs
beside a package that owns ``agents`` without touching it, registers every game on
``import cardrl``, plays its shipped bots and has a ``cardrl`` command; and no code names
a layer by its bare folder name (``import envs`` would find a stranger's package)."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

import pytest

from cardrl.cli import COMMANDS
from cardrl.envs.games import GAMES, get_game
from cardrl.envs.registry import env_id, gym_id

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("envs", "agents", "train", "eval", "web", "checkpoints")
PACKAGE_CODE = [ROOT / "cardrl", *(ROOT / layer for layer in LAYERS)]
BARE = re.compile(r"(envs|agents|train|eval|web)\.[a-z_]")

def bare_imports(code: str) -> list[str]:
    """The layers a piece of code (a module, or a string of code to run) imports bare."""
    try:
        tree = ast.parse(textwrap.dedent(code))
    except (SyntaxError, ValueError):  # not code (a surrogate is a ValueError)
        return []
    names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    names += [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module
              and not n.level]
    return [m for m in names if m.split(".")[0] in LAYERS[:5]]

STANDIN_AGENTS = '''
"""A stand-in for a library that owns the import name ``agents`` (the OpenAI Agents SDK)."""


class Agent:
    def __init__(self, name):
        self.name = name
'''

IN_THE_FRESH_VENV = '''
import importlib, json, sys
other = importlib.import_module("agents")  # the stand-in's top-level name, still its own
assert other.Agent("x").name == "x"

import gymnasium, numpy as np, pettingzoo
import cardrl
gymnasium.register_envs(cardrl)

from cardrl import agents as bots
from cardrl.agents.learned import shipped_bots
out = {"file": cardrl.__file__, "envs": cardrl.envs.__file__,
       "aec": sorted(i for i in pettingzoo.aec_registry if i.startswith("cardrl/")),
       "gym": sorted(i for i in gymnasium.registry if i.startswith("cardrl/")),
       "shipped": shipped_bots()}
bot = bots.make("cardrl/spades-killer:worlds=0")
env = pettingzoo.make("aec", "cardrl/spades-v6", preset="killer", episode="hand")
env.reset(seed=3)
moves, total = 0, 0.0
for agent in env.agent_iter():
    obs, reward, terminated, truncated, info = env.last()
    total += reward
    if terminated or truncated:
        env.step(None)
        continue
    view = env.state_obj.view(env.possible_agents.index(agent))
    action = bot.act(view, env.state_obj.legal_actions())
    assert obs["action_mask"][action] == 1
    env.step(action)
    moves += 1
out["moves"] = moves
out["result"] = env.state_obj.results[-1].to_dict()["points"]
out["gym_obs"] = list(gymnasium.make("cardrl/Sevens-v5").reset(seed=0)[0].shape)
print(json.dumps(out))
'''


def run(*argv, **kwargs) -> subprocess.CompletedProcess:
    out = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=600,
                         **kwargs)
    assert out.returncode == 0, f"{argv}:\n{out.stdout}\n{out.stderr}"
    return out


def build_wheel(source: Path, out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
        "--disable-pip-version-check", "-q", "-w", out, source, cwd=out)
    (wheel,) = out.glob("*.whl")
    return wheel


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel of this checkout's files (tracked and new, not ignored), built from a copy
    so no build folder of the checkout's leaks into it."""
    src = tmp_path_factory.mktemp("src")
    files = run("git", "ls-files", "-co", "--exclude-standard", "-z", cwd=ROOT).stdout
    for name in filter(None, files.split("\0")):
        if (ROOT / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            (src / name).write_bytes((ROOT / name).read_bytes())
    return build_wheel(src, tmp_path_factory.mktemp("wheel"))


def test_the_wheel_holds_one_top_level_package_with_every_layer_and_the_bots(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names} == {"cardrl", f"{wheel.name.split('-py')[0]}.dist-info"}
    for layer in LAYERS:  # every subpackage of the checkout, found without a list to keep
        for init in (ROOT / layer).rglob("__init__.py"):
            assert f"cardrl/{init.relative_to(ROOT).as_posix()}" in names, init
    shipped = sorted(p.name for p in (ROOT / "checkpoints").iterdir()
                     if p.suffix in (".onnx", ".json"))
    assert shipped and all(f"cardrl/checkpoints/{n}" in names for n in shipped)
    assert "cardrl/web/static/index.html" in names
    entry = [n for n in names if n.endswith("entry_points.txt")]
    text = zipfile.ZipFile(wheel).read(entry[0]).decode()
    assert "cardrl = cardrl.cli:main" in text


def test_installed_beside_a_package_that_owns_agents(wheel, tmp_path):
    """A fresh venv (its dependencies seen through a path to this one's site-packages, so
    no download; this checkout is not on its path) gets the stand-in, then cardrl."""
    standin = tmp_path / "standin"
    (standin / "agents").mkdir(parents=True)
    (standin / "agents" / "__init__.py").write_text(STANDIN_AGENTS)
    (standin / "pyproject.toml").write_text(textwrap.dedent("""
        [build-system]
        requires = ["setuptools>=68"]
        build-backend = "setuptools.build_meta"
        [project]
        name = "agents-standin"
        version = "1.0"
        [tool.setuptools]
        packages = ["agents"]
    """))
    standin_wheel = build_wheel(standin, tmp_path / "standin-wheel")
    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", venv)
    python, script = venv / "bin" / "python", venv / "bin" / "cardrl"
    site = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])")
                .stdout.strip())
    (site / "zz_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    for w in (standin_wheel, wheel):
        run(python, "-m", "pip", "install", "--no-deps", "--no-index", "-q",
            "--disable-pip-version-check", w)
    assert (site / "agents" / "__init__.py").read_text() == STANDIN_AGENTS  # not merged into

    out = json.loads(run(python, "-c", IN_THE_FRESH_VENV, cwd=tmp_path).stdout)
    assert Path(out["file"]).is_relative_to(site) and Path(out["envs"]).is_relative_to(site)
    assert out["aec"] == sorted(env_id(g) for g in GAMES)
    assert out["gym"] == sorted(gym_id(g) for g in GAMES)
    assert "cardrl/spades-killer" in out["shipped"]
    assert out["moves"] == 4 + 52 and len(out["result"]) == 4  # four bids, 13 tricks
    assert out["gym_obs"] == [get_game("sevens").encoder().size(4)]

    helptext = run(script, "--help", cwd=tmp_path).stdout
    for command in COMMANDS:
        assert re.search(rf"^  {command}\s", helptext, re.M), command
    assert "usage: cardrl tournament" in run(script, "tournament", "--help", cwd=tmp_path).stdout
    bad = subprocess.run([script, "nonsense"], capture_output=True, text=True, cwd=tmp_path)
    assert bad.returncode == 2 and "unknown command 'nonsense'" in bad.stderr


def test_no_code_names_a_layer_by_its_bare_folder_name():
    """``ruff`` bans ``import envs`` (TID251); strings that name modules (``python -m``,
    ``importlib``, subprocess commands, pickled paths) are checked here."""
    found = []
    for folder in [*PACKAGE_CODE, ROOT / "tests", ROOT / "benchmarks"]:
        for path in folder.rglob("*.py"):
            where = path.relative_to(ROOT)
            text = path.read_text()
            found += [f"{where}: import {m}" for m in bare_imports(text)]
            for node in ast.walk(ast.parse(text, str(path))):
                if not isinstance(node, ast.Constant) or not isinstance(node.value, str) \
                        or node.value == IN_THE_FRESH_VENV:  # its agents is the stand-in's
                    continue
                first = node.value.split("\n")[0]
                if BARE.match(node.value) and " " not in first and first != "web.db" \
                        or bare_imports(node.value):
                    found.append(f"{where}:{node.lineno}: {node.value!r}")
    assert found == []
    commands = (ROOT / "Makefile").read_text() + (ROOT / "README.md").read_text()
    assert not re.search(r"-m (envs|agents|train|eval|web)\b", commands)


def module_files() -> dict[str, Path]:
    """Every module of the package by its import name (``cardrl.envs.aec``: envs/aec.py)."""
    out = {}
    for folder in PACKAGE_CODE:
        prefix = "cardrl" if folder.name == "cardrl" else f"cardrl.{folder.name}"
        for path in folder.rglob("*.py"):
            parts = path.relative_to(folder).with_suffix("").parts
            parts = parts[:-1] if parts[-1] == "__init__" else parts
            out[".".join((prefix, *parts))] = path
    return out


def imports_of(path: Path, name: str, modules: dict[str, Path]) -> set[str]:
    """The package's modules that ``path`` imports, at its top or inside a function (a
    lazy import is still a dependency); not those under ``if TYPE_CHECKING``."""
    tree = ast.parse(path.read_text(), str(path))
    skip = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
            and "TYPE_CHECKING" in ast.unparse(node.test) for n in ast.walk(node)}
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package.split(".")[:len(package.split(".")) - node.level + 1],
                                 *([node.module] if node.module else [])])
            out |= {f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                    for a in node.names}
    return {m for m in out if m in modules and m != name}


def test_no_import_circles():
    """No two modules import each other, directly or round a longer circle (lazy imports
    included): a circle works only by the order of its imports, and breaks on a refactor.
    Finding a game's module by its name (``game_module``) is the convention, not an import."""
    modules = module_files()
    graph = {m: imports_of(p, m, modules) for m, p in modules.items()}
    index, low, stack, on, circles = {}, {}, [], set(), []

    def strong(v):  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                circles.append(sorted(part))

    for v in graph:
        if v not in index:
            strong(v)
    assert circles == []


@pytest.mark.parametrize("name", sorted(p.stem for p in (ROOT / "benchmarks").glob("bench_*.py")))
def test_every_benchmark_imports_from_the_package(name):
    """``make bench`` is not in the suite: a benchmark that imports a name the package no
    longer has would break only there."""
    import importlib

    assert callable(importlib.import_module(f"benchmarks.{name}").main)
