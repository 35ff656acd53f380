"""The documentation cannot rot: every example in README.md and docs/ runs on the code as it is.

* Every ```python block of README.md and docs/**/*.md runs in a fresh process from
  the repository root (seen through links, with a fresh ``runs/`` of its own; the process
  is forked from one that imported torch and SB3 once: ``tests/doc_runner.py``); a block
  that raises fails naming its file and line (tracebacks point into the markdown file).
  A block whose first line is ``# doc-test: skip (why)`` is not run: it is reported as
  skipped with its reason, and the skips are counted (keep them rare: write examples
  with tiny settings instead).
* Every ``python -m MODULE`` the pages show names a module that exists and can be run
  (found without importing or running it; a package needs a ``__main__``).
* Every ```json block of docs/bots.md that is a bot-server request gets an action from
  the server (``cardrl.agents.server.answer``): the protocol examples are real views.
* Every relative link of the pages names a file of the repository, and its anchor a
  heading of the page it points to.
* No file of the repository refers to the engineers' shared folder, which users do not
  have: everything they need is in docs/.

The files are read when the tests are collected, so whatever README.md holds then is
what is checked.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.doc_runner import run_example

ROOT = Path(__file__).resolve().parents[1]
SKIP = re.compile(r"#\s*doc-test:\s*skip\b\s*(?:\((?P<why>[^)]*)\))?")
FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>```+|~~~+)\s*(?P<info>[^`\s]*)")
MODULE = re.compile(r"\bpython3?\s+-m\s+(?P<module>[A-Za-z_][\w.]*)")
EXAMPLE_TIMEOUT = 120  # seconds one example may run
# the shared folder of the engineers' workspace, spelled so that this file does not match
NEEDLE = "../" + "shared"
NOT_SCANNED = {".git", ".venv", "runs"}


@dataclass(frozen=True)
class Block:
    path: str  # relative to ROOT
    line: int  # line of the block's first code line (1-based)
    lang: str
    code: str

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


def doc_files() -> list[Path]:
    files = [ROOT / "README.md"] if (ROOT / "README.md").is_file() else []
    return files + sorted((ROOT / "docs").rglob("*.md"))


def blocks(path: Path) -> list[Block]:
    """The fenced code blocks of a markdown file, with their info string's first word."""
    rel = path.relative_to(ROOT).as_posix()
    out: list[Block] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, indent = m["fence"], len(m["indent"])
        start, body = i + 1, []
        i += 1
        while i < len(lines) and not (lines[i].strip().startswith(fence[0] * len(fence))
                                      and not lines[i].strip().strip(fence[0])):
            body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i])
            i += 1
        out.append(Block(rel, start + 1, m["info"].lower(), "\n".join(body) + "\n"))
        i += 1
    return out


ALL_BLOCKS = [b for f in doc_files() for b in blocks(f)]
PYTHON = [b for b in ALL_BLOCKS if b.lang in ("python", "py", "python3")]


def skip_reason(block: Block) -> str | None:
    """The reason of a block's ``# doc-test: skip (...)`` first line, or None."""
    first = next((line for line in block.code.splitlines() if line.strip()), "")
    m = SKIP.match(first.strip())
    if not m:
        return None
    return (m["why"] or "").strip()


def example_root(tmp_path: Path) -> Path:
    """A folder that looks like the repository root (a link to each of its entries) but
    has a fresh ``runs/``: examples run from the root as a user runs them, and what they
    write under ``runs/`` (a training run's folder) is theirs alone and goes away."""
    root = tmp_path / "root"
    root.mkdir()
    for entry in ROOT.iterdir():
        if entry.name not in NOT_SCANNED - {".venv"}:
            (root / entry.name).symlink_to(entry)
    return root


@pytest.mark.parametrize("block", PYTHON, ids=[b.where for b in PYTHON])
def test_python_example_runs(block: Block, tmp_path: Path):
    reason = skip_reason(block)
    if reason is not None:
        assert reason, (f"{block.where}: a skipped example must say why: "
                        f"'# doc-test: skip (reason)'")
        pytest.skip(f"{block.where}: doc-test skip ({reason})")
    # blank lines first, so that the interpreter's line numbers are the markdown file's
    source = "\n" * (block.line - 1) + block.code
    log = tmp_path / "example.log"
    code = run_example(source, block.path, example_root(tmp_path), ROOT, log, EXAMPLE_TIMEOUT)
    if code is None:
        pytest.fail(f"{block.where}: the example ran longer than {EXAMPLE_TIMEOUT} s")
    if code != 0:
        tail = "\n".join(log.read_text(errors="replace").strip().splitlines()[-25:])
        pytest.fail(f"{block.where}: the example raised (exit {code}):\n{tail}",
                    pytrace=False)


@pytest.mark.parametrize("source", [
    "x = torch.zeros(1)\n",  # preloaded by the runner, not imported by the example
    "import gymnasium\ngymnasium.make('cardrl/Spades-v6')\n",  # no `import cardrl`
])
def test_the_runner_fails_an_example_that_leans_on_what_it_preloaded(source, tmp_path):
    log = tmp_path / "example.log"
    assert run_example("\n" + source, "docs/x.md", tmp_path, ROOT, log, EXAMPLE_TIMEOUT) == 1
    assert 'File "docs/x.md", line ' in log.read_text()  # named by the markdown file


def test_skipped_examples_are_counted():
    """Report how many examples are marked to skip; a marker must give its reason."""
    skipped = [(b.where, skip_reason(b)) for b in PYTHON if skip_reason(b) is not None]
    for where, reason in skipped:
        print(f"doc-test skip: {where} ({reason})")
    print(f"{len(skipped)} of {len(PYTHON)} python examples are marked to skip")
    assert all(reason for _, reason in skipped), f"skip markers without a reason: {skipped}"
    assert len(skipped) <= max(3, len(PYTHON) // 10), (
        f"too many skipped examples ({len(skipped)} of {len(PYTHON)}): {skipped}")


def shown_modules() -> list[tuple[str, str]]:
    """(where, module) of every ``python -m MODULE`` in the pages (code blocks and prose)."""
    out = []
    for path in doc_files():
        rel = path.relative_to(ROOT).as_posix()
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in MODULE.finditer(line):
                out.append((f"{rel}:{n}", m["module"].rstrip(".")))
    return out


MODULES = shown_modules()


@pytest.mark.parametrize(("where", "module"), MODULES, ids=[f"{w} {m}" for w, m in MODULES])
def test_python_m_names_a_runnable_module(where: str, module: str):
    """Found as installed (``cardrl.train.demo``), not as a folder of the checkout."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError) as err:
        spec = None
        detail = f" ({type(err).__name__}: {err})"
    else:
        detail = ""
    assert spec is not None, f"{where}: python -m {module}: no such module{detail}"
    if spec.submodule_search_locations is not None:  # a package runs its __main__
        assert importlib.util.find_spec(f"{module}.__main__") is not None, (
            f"{where}: python -m {module}: a package without __main__")


def shown_commands() -> list[tuple[str, str]]:
    """(where, subcommand) of every ``cardrl <subcommand>`` line the pages' blocks show."""
    return [(f"{b.where}+{n}", m["command"]) for path in doc_files() for b in blocks(path)
            for n, line in enumerate(b.code.splitlines())
            for m in [COMMAND.match(line.strip())] if m]


COMMAND = re.compile(r"(?:\S*/)?cardrl\s+(?P<command>[a-z][\w-]*)")
COMMANDS_SHOWN = shown_commands()


@pytest.mark.parametrize(("where", "command"), COMMANDS_SHOWN,
                         ids=[f"{w} {c}" for w, c in COMMANDS_SHOWN])
def test_cardrl_commands_shown_exist(where: str, command: str):
    from cardrl.cli import COMMANDS

    assert command in COMMANDS, f"{where}: cardrl {command}: no such command"


BOTS_PAGE = ROOT / "docs" / "bots.md"
REQUESTS = [b for b in (blocks(BOTS_PAGE) if BOTS_PAGE.is_file() else []) if b.lang == "json"]


@pytest.mark.parametrize("block", REQUESTS, ids=[b.where for b in REQUESTS])
def test_protocol_examples_get_an_action(block: Block):
    from cardrl.agents import make
    from cardrl.agents.server import answer

    request = json.loads(block.code)  # one request, laid out on several lines for reading
    if not isinstance(request, dict) or "view" not in request:
        pytest.skip(f"{block.where}: not a request")
    line = json.dumps(request)  # what a program sends: one line
    reply = answer(make("random", seed=0), line)
    assert "action" in reply and reply["action"] in request["legal"], (
        f"{block.where}: the server answered {reply}")
    game = request["view"]["game"]
    expert = make(f"{game}/expert" if game in ("spades", "gin_rummy")
                  else {"sevens": "sevens/lookahead"}.get(game, "blind_auction/match"))
    assert answer(expert, line)["action"] in request["legal"], block.where


LINK = re.compile(r"(?<!!)\[[^\]]*\]\((?P<target>[^)\s]+)\)")


def prose(path: Path) -> list[tuple[int, str]]:
    """(line number, text) of a markdown file's lines outside fenced code blocks."""
    out, fence = [], None
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = FENCE.match(line)
        if m and (fence is None or m["fence"].startswith(fence)):
            fence = None if fence else m["fence"][:3]
            continue
        if fence is None:
            out.append((n, line))
    return out


def anchors(path: Path) -> set[str]:
    """GitHub's anchors of a markdown file's headings."""
    seen: dict[str, int] = {}
    for _, line in prose(path):
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m[1]).lower()
        slug = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        if count:
            seen[f"{slug}-{count}"] = 1
    return set(seen)


def links() -> list[tuple[str, Path, str]]:
    """(where, file, target) of every relative link in the pages' prose."""
    out = []
    for path in doc_files():
        rel = path.relative_to(ROOT).as_posix()
        for n, line in prose(path):
            for m in LINK.finditer(re.sub(r"`[^`]*`", "", line)):
                target = m["target"]
                if not re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, mailto:, ...
                    out.append((f"{rel}:{n}", path, target))
    return out


LINKS = links()


@pytest.mark.parametrize(("where", "page", "target"), LINKS,
                         ids=[f"{w} {t}" for w, _, t in LINKS])
def test_links_resolve(where: str, page: Path, target: str):
    """A relative link names a file or folder of the repository, and an anchor one of
    the headings of the page it points to."""
    file, _, anchor = target.partition("#")
    dest = (page.parent / file).resolve() if file else page
    assert dest.exists(), f"{where}: link to {target}: {file} does not exist"
    if anchor and dest.suffix == ".md":
        assert anchor in anchors(dest), (
            f"{where}: link to {target}: {dest.relative_to(ROOT)} has no heading #{anchor}")


def repository_files() -> list[Path]:
    """The files git would track here (tracked, or new and not ignored); every file but
    .git, .venv and runs/ where git cannot say."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], cwd=ROOT, capture_output=True, check=True)
        names = [n for n in out.stdout.decode().split("\0") if n]
    except (OSError, subprocess.CalledProcessError):
        names = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*")
                 if p.is_file() and not NOT_SCANNED & set(p.relative_to(ROOT).parts)]
    return [ROOT / n for n in names
            if not NOT_SCANNED & set(Path(n).parts) and (ROOT / n).is_file()]


def test_no_file_refers_to_the_shared_folder():
    needle = NEEDLE.encode()
    found = []
    for path in repository_files():
        data = path.read_bytes()
        if needle in data:
            lines = [n for n, line in enumerate(data.splitlines(), 1) if needle in line]
            found.append(f"{path.relative_to(ROOT)}:{','.join(map(str, lines))}")
    assert not found, (f"files that refer to {NEEDLE}, which users of the repository do not "
                       f"have (the rules, design and results belong in docs/): {found}")


def test_the_observation_sizes_the_pages_state_are_the_encoders():
    """README's games table and each env page's observation sections say sizes and
    versions written by hand: held here to the encoders, so a layout change that forgets
    a page fails."""
    from cardrl.envs.games import game_names, get_game

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in game_names():
        game = get_game(name)
        rules = game.make_rules()
        n = game.num_players(rules)
        sizes = {kind: enc.size(n) for kind, enc in game.encoders.items()}
        row = next(line for line in readme.splitlines()
                   if line.startswith("|") and f"envs/{name}.md" in line)
        assert f"{sizes['infostate']} / {sizes['features']}" in row, (name, row)
        page = (ROOT / "docs" / "envs" / f"{name}.md").read_text(encoding="utf-8")
        for kind, enc in game.encoders.items():
            stated = re.search(rf"\*\*`{kind}`\*\*[^.]*?version (\d+)[,;] (\d+) floats", page)
            if stated is None:  # a page that states the two kinds as one vector
                continue
            assert (int(stated[1]), int(stated[2])) == (enc.version, enc.size(n)), (name, kind)
