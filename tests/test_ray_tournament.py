"""Tournaments on a local Ray cluster (2 CPUs, started and stopped here): the same logs,
summary, resume and disqualifications as the local runner on the same seeds, with bot files
and exported bots shipped to the workers in the job's runtime env."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cardrl.envs.games import get_game
from cardrl.eval.config import ConfigError, TournamentConfig
from cardrl.eval.ray_runner import RaySession, Restorer, spec_paths, stage_files
from cardrl.eval.tournament import main, run_tournament
from cardrl.train.export import base_card
from cardrl.train.rllib import MaskedMLPModule, export_module
from tests.team_bots import ILLEGAL, KEEPER, RAISER, SLEEPER, write_bots

WHERE = '''
from cardrl.agents.base import Bot

class Where(Bot):
    def act(self, view, legal):
        return legal[0]

    def report_score(self):  # where this file runs from: the shipped copy on a worker
        return "_cardrl_shipped" in __file__
'''


def write_bot(tmp_path: Path, name: str, text: str) -> str:
    return write_bots(tmp_path, **{name: text})[name]


def tiny_onnx(path: Path, game: str, preset: str) -> str:
    """An untrained exported bot (the RLlib module's export): a network file to ship."""
    env = get_game(game).env(preset=preset)
    agent = env.possible_agents[0]
    module = MaskedMLPModule(observation_space=env.observation_space(agent),
                             action_space=env.action_space(agent),
                             model_config={"hidden": [8], "activation": "tanh"})
    export_module(module, path, {**base_card(game, preset), "training": {"steps": 0}})
    return str(path)


def read_dir(out: Path, pattern: str) -> dict[str, dict]:
    return {str(p.relative_to(out)): json.loads(p.read_text()) for p in sorted(out.glob(pattern))}


def test_a_ray_tournament_equals_the_local_runner_and_resumes(tmp_path, ray_address):
    keeper = write_bot(tmp_path, "keeper", KEEPER)
    net = tiny_onnx(tmp_path / "nets" / "tiny.onnx", "sevens", "random")
    cfg = TournamentConfig(game="sevens", preset="random", time_limit=5.0,
                           bots=(keeper, net, "sevens/greedy", "random"))
    local = run_tournament(cfg, deals=5, out=tmp_path / "local", workers=1)
    first = run_tournament(cfg, deals=3, out=tmp_path / "ray", workers=2, ray=ray_address)
    assert first.played == 12 and first.loaded == 0
    resumed = run_tournament(cfg, deals=5, out=tmp_path / "ray", workers=2, ray=ray_address)
    assert resumed.loaded == 12 and resumed.played == 8
    assert resumed.summary == local.summary and resumed.text == local.text
    logs = read_dir(tmp_path / "ray" / "games", "*.json")
    assert logs == read_dir(tmp_path / "local" / "games", "*.json") and len(logs) == 20
    for log in logs.values():  # the lineup's own paths, and the keeper saw every hook
        assert set(log["seats"]) == set(cfg.bots)
        assert log["reported_scores"][log["seats"].index(keeper)] == len(log["actions"])


def test_bot_files_reach_the_workers_through_the_runtime_env(tmp_path, ray_address, capsys):
    where = write_bot(tmp_path, "where", WHERE)
    code = main(["sevens", "--preset", "classic", "--bots", f"{where},random,random,random",
                 "--deals", "1", "--out", str(tmp_path / "out"), "--quiet",
                 "--ray", ray_address, "--workers", "1"])
    assert code == 0 and "duplicate: 1 deals x 4 seat rotations" in capsys.readouterr().out
    for log in read_dir(tmp_path / "out" / "games", "*.json").values():
        assert log["reported_scores"][log["seats"].index(where)] is True
        assert where in log["seats"]  # the log names the file as the lineup did


def test_a_bot_that_breaks_on_a_worker_is_disqualified_as_locally(tmp_path, ray_address):
    raiser, sleeper = write_bot(tmp_path, "raiser", RAISER), write_bot(tmp_path, "sleeper", SLEEPER)
    illegal, keeper = write_bot(tmp_path, "illegal", ILLEGAL), write_bot(tmp_path, "keeper", KEEPER)
    broken = write_bot(tmp_path, "broken", "import no_such_module_at_all\n")
    cfg = TournamentConfig(game="sevens", preset="random", seats=(2, 3, 4), time_limit=1.0,
                           disqualify=True, bots=(raiser, sleeper, broken, "sevens/greedy",
                                                  "random", illegal, keeper))
    local = run_tournament(cfg, deals=4, out=tmp_path / "local", workers=1)
    remote = run_tournament(cfg, deals=4, out=tmp_path / "ray", workers=2, ray=ray_address)
    kinds = {d["bot"]: d["kind"] for d in remote.disqualified}
    assert kinds == {broken: "load", raiser: "raised", sleeper: "timeout", illegal: "illegal"}
    assert remote.disqualified == local.disqualified  # who, why, and in which game and move
    assert remote.summary == local.summary and remote.text == local.text
    assert read_dir(tmp_path / "ray" / "games", "*.json") == \
        read_dir(tmp_path / "local" / "games", "*.json")
    failed = read_dir(tmp_path / "ray" / "voided", "round-*/failed-*.json")
    assert failed == read_dir(tmp_path / "local" / "voided", "round-*/failed-*.json")
    assert len(failed) == 3


def test_staging_ships_bot_files_and_exported_bots_named_anywhere_in_a_spec(tmp_path):
    bot = write_bot(tmp_path, "red", "x = 1\n")
    net = tiny_onnx(tmp_path / "nets" / "spades.onnx", "spades", "killer")
    specs = (f"{bot}:depth=2", f"spades/search:bot={net},worlds=2", "spades/expert")
    assert [spec_paths(s) for s in specs] == [[bot], [net], []]
    staged = stage_files(specs, tmp_path / "stage")
    red, spades = staged.paths[bot], staged.paths[net]
    assert staged.specs == {specs[0]: f"{red}:depth=2",
                            specs[1]: f"spades/search:bot={spades},worlds=2",
                            specs[2]: "spades/expert"}
    root = tmp_path / "stage"
    assert (root / red).read_text() == "x = 1\n"
    assert {p.name for p in (root / spades).parent.iterdir()} == {"spades.onnx", "spades.json"}
    restore = Restorer(staged, "/worker/dir")
    said = {"seats": [staged.specs[specs[1]]], "why": f"no such file /worker/dir/{red}"}
    assert restore(said) == {"seats": [specs[1]], "why": f"no such file {bot}"}


def test_a_process_already_on_ray_is_told_to_let_the_tournament_connect(tmp_path,
                                                                         ray_address):
    import ray

    cfg = TournamentConfig(game="sevens", preset="classic", bots=("random",) * 4)
    ray.init(address=ray_address)
    try:
        with pytest.raises(ConfigError, match="already connected to Ray"):
            run_tournament(cfg, deals=1, out=tmp_path / "out", ray=ray_address)
    finally:
        ray.shutdown()


def test_no_more_game_players_than_the_cluster_has_cpus(ray_address):
    cfg = TournamentConfig(game="sevens", preset="classic", bots=("random",) * 4)
    session = RaySession(cfg, ray_address, workers=5)  # 3 of them would wait forever
    try:
        assert session.workers == 2
    finally:
        session.close()
    session = RaySession(cfg, ray_address)
    try:
        assert session.workers == 2  # one per CPU by default
    finally:
        session.close()


WORKER_IMPORTS = """
import json, sys
import ray
from cardrl.runtime_env import py_modules

@ray.remote
def imported():
    import sys
    from cardrl.agents.learned import shipped_bots
    from cardrl.eval.play import play_game  # what a game player imports
    from cardrl.train import evaluate
    files = {m: getattr(sys.modules[m], "__file__", None) for m in list(sys.modules)
             if m == "cardrl" or m.startswith("cardrl.")}
    return {"files": files, "shipped": shipped_bots()}

ray.init(address=sys.argv[1], runtime_env={"py_modules": py_modules()}, log_to_driver=False)
print(json.dumps(ray.get(imported.remote())))
"""


def test_workers_import_the_whole_package_from_the_runtime_env(tmp_path, ray_address):
    """What a Ray worker imports of cardrl comes from the one folder the runtime env ships
    (``cardrl.runtime_env``), every layer of it, so a worker with no cardrl installed runs.
    The driver runs outside the checkout, whose folder Ray would put on the workers' path."""
    import subprocess
    import sys

    from cardrl.runtime_env import package_folder

    folder = package_folder()
    assert folder.name == "cardrl" and {"envs", "agents", "eval", "train", "checkpoints"} <= {
        p.name for p in folder.iterdir()}
    run = subprocess.run([sys.executable, "-c", WORKER_IMPORTS, ray_address], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout.strip().splitlines()[-1])
    top = Path(out["files"]["cardrl"]).parent
    assert top.name == "cardrl" and top.parent.name.startswith("_ray_pkg_")  # the shipped copy
    outside = {m: f for m, f in out["files"].items() if f and not Path(f).is_relative_to(top)}
    assert outside == {}  # every layer from it, none from the checkout or an install
    assert {"cardrl.envs", "cardrl.agents", "cardrl.eval", "cardrl.train"} <= set(out["files"])
    assert "cardrl/spades-killer" in out["shipped"]  # the shipped bots travel too
