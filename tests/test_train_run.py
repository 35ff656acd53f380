"""Training runs: interrupt and resume lose nothing, evaluations reach tensorboard and the
learning curve, game metrics follow their definitions, the command line checks its input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import torch

from cardrl.envs.games import get_game
from cardrl.train import demo
from cardrl.train import run as run_cli
from cardrl.train.config import TrainConfig
from cardrl.train.demo import lineups
from cardrl.train.evaluate import EVALS, beats, time_to_beat
from cardrl.train.metrics import hand_counts, rates
from cardrl.train.plots import curve_series, learning_curve, second_panel
from cardrl.train.ppo import TrainCallback, Trainer
from cardrl.train.runs import STATE, read_evals
from cardrl.train.selfplay import TorchTwin


def tiny(**changes) -> TrainConfig:
    base = dict(game="spades", steps=1024, seed=2, opponents="random@1,self@1", net=(16,),
                n_games=4, n_steps=64, batch_size=64, n_epochs=1, max_hands=2, eval_every=0,
                checkpoint_every=256, snapshot_every=512, torch_threads=1, name="tiny")
    return TrainConfig(**{**base, **changes})


def test_interrupt_then_resume_loses_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    original = TrainCallback._on_step

    def interrupt_at_600(self):
        if self.num_timesteps >= 600:
            raise KeyboardInterrupt
        return original(self)

    monkeypatch.setattr(TrainCallback, "_on_step", interrupt_at_600)
    first = Trainer(tiny(), progress=False, quiet=True)
    result = first.run()
    assert result.interrupted and result.steps == 600 and result.onnx is None
    state = json.loads((result.run_dir / STATE).read_text())
    assert state["steps"] == 600 and state["wall_time_s"] > 0
    weights = {k: v.clone() for k, v in first.model.policy.state_dict().items()}

    monkeypatch.setattr(TrainCallback, "_on_step", original)
    resumed = Trainer(TrainConfig.load(result.run_dir), resume=True, progress=False, quiet=True)
    assert resumed.model.num_timesteps == 600
    for key, value in resumed.model.policy.state_dict().items():
        assert torch.equal(value, weights[key]), key  # the interrupted weights, exactly
    assert len(resumed.state.snapshots) == 1  # the snapshot at 512 comes back
    done = resumed.run()
    assert not done.interrupted and done.steps >= 1024
    assert done.wall_time_s > state["wall_time_s"]
    assert sorted(p.name for p in result.run_dir.glob("tb_*")) == ["tb_0"]  # one TB run
    card = json.loads(done.onnx.with_suffix(".json").read_text())
    assert card["training"]["steps"] == done.steps


def test_a_resumed_run_deals_new_games_not_the_ones_it_already_played(tmp_path, monkeypatch):
    """The collector's deals come from the run's seed and its step count at (re)start, so
    the second part of an interrupted run meets fresh deals and opponent draws instead of
    replaying the first part's games from the start."""
    from cardrl.envs.batched import BatchedGames

    monkeypatch.chdir(tmp_path)
    dealt: list[list[int]] = [[]]
    original = BatchedGames.step_games

    def step_games(self, games, actions):  # the seeds of the episodes played (a compiled
        out = original(self, games, actions)  # core restarts games without restart())
        dealt[-1].extend(self.episode_seeds.tolist())
        return out

    monkeypatch.setattr(BatchedGames, "step_games", step_games)
    done = Trainer(tiny(steps=256), progress=False, quiet=True).run()
    assert done.steps == 256 and len(set(dealt[0])) > 4
    dealt.append([])
    cfg = TrainConfig.load(done.run_dir)
    cfg.steps = 512
    again = Trainer(cfg, resume=True, progress=False, quiet=True).run()
    assert again.steps == 512 and len(set(dealt[1])) > 4
    assert not set(dealt[0]) & set(dealt[1]), (dealt[0][:8], dealt[1][:8])


@pytest.mark.parametrize("warmup", [0, 10_000])
def test_critic_warmup_trains_only_the_critic(warmup, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    trainer = Trainer(tiny(critic_warmup=warmup, critic_warmup_lr=1e-3), progress=False,
                      quiet=True)
    policy = trainer.model.policy

    def weights(*modules):
        return [p.detach().clone() for m in modules for p in m.parameters()]

    actor = (policy.mlp_extractor.policy_net, policy.action_net)
    critic = (policy.mlp_extractor.value_net, policy.value_net)
    actor0, critic0 = weights(*actor), weights(*critic)
    assert trainer.run().steps >= 1024
    actor_moved = not all(map(torch.equal, actor0, weights(*actor)))
    assert actor_moved == (warmup == 0)
    assert not all(map(torch.equal, critic0, weights(*critic)))
    assert trainer.model.lr_schedule(1.0) == (1e-3 if warmup else trainer.cfg.learning_rate)
    trainer.freeze_actor(False)  # the warm-up's end: everything learns at the run's rate
    trainer.set_learning_rate(trainer.cfg.critic_warmup + 1)
    assert all(p.requires_grad for p in policy.parameters())
    assert trainer.model.lr_schedule(1.0) == trainer.cfg.learning_rate


def test_lr_decay_falls_linearly_to_zero_at_the_last_step(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    trainer = Trainer(tiny(lr_decay=True, learning_rate=1e-3, steps=4096), progress=False,
                      quiet=True)
    for step, lr in ((0, 1e-3), (1024, 7.5e-4), (2048, 5e-4), (4096, 0.0), (5000, 0.0)):
        trainer.set_learning_rate(step)
        assert trainer.model.lr_schedule(1.0) == pytest.approx(lr)
    again = Trainer(tiny(learning_rate=1e-3, steps=4096, name="flat"), progress=False,
                    quiet=True)
    again.set_learning_rate(4000)
    assert again.model.lr_schedule(1.0) == pytest.approx(1e-3)


def test_resume_takes_the_hyperparameters_of_the_edited_config(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    done = Trainer(tiny(steps=256, checkpoint_every=256), progress=False, quiet=True).run()
    cfg = TrainConfig.load(done.run_dir)
    cfg.learning_rate, cfg.clip_range, cfg.target_kl, cfg.n_epochs = 1e-5, 0.05, 0.02, 3
    cfg.save(done.run_dir)
    cfg.eval_every = 10_000  # a finished run resumed: no training, one evaluation, export
    trainer = Trainer(cfg, resume=True, progress=False, quiet=True)
    model = trainer.model
    assert model.lr_schedule(1.0) == 1e-5 and model.clip_range(1.0) == 0.05
    assert model.target_kl == 0.02 and model.n_epochs == 3
    again = trainer.run()
    assert again.steps == done.steps and again.onnx.is_file()
    assert [e["step"] for e in again.evals] == [done.steps]


def old_module_paths(checkpoint: Path) -> None:
    """Rewrite an SB3 checkpoint as a run from before the ``cardrl`` package saved it: its
    pickled classes named by their old module paths (``train.policy``, ``train.masked``)."""
    import base64
    import pickle
    import types
    import zipfile

    with zipfile.ZipFile(checkpoint) as z:
        files = {name: z.read(name) for name in z.namelist()}
    data = json.loads(files["data"])
    for key in ("policy_class", "rollout_buffer_class"):
        cls = pickle.loads(base64.b64decode(data[key][":serialized:"]))
        old = cls.__module__.removeprefix("cardrl.")
        fake = types.ModuleType(old)
        stand_in = type(cls.__name__, (), {"__module__": old, "__qualname__": cls.__qualname__})
        setattr(fake, cls.__name__, stand_in)
        sys.modules[old] = fake  # pickled by reference, as an old run pickled it
        try:
            data[key][":serialized:"] = base64.b64encode(pickle.dumps(stand_in)).decode()
        finally:
            del sys.modules[old]
    files["data"] = json.dumps(data).encode()
    with zipfile.ZipFile(checkpoint, "w") as z:
        for name, blob in files.items():
            z.writestr(name, blob)


def test_a_checkpoint_from_before_the_package_resumes(tmp_path, monkeypatch):
    """SB3 pickles the policy's class by module path; runs saved when the path was
    ``train.policy`` resume: the trainer passes the classes itself (``policy_spec``)."""
    monkeypatch.chdir(tmp_path)
    done = Trainer(tiny(steps=256, checkpoint_every=256), progress=False, quiet=True).run()
    old_module_paths(done.run_dir / "checkpoint.zip")
    weights = Trainer(TrainConfig.load(done.run_dir), resume=True, progress=False,
                      quiet=True).model.policy.state_dict()
    cfg = TrainConfig.load(done.run_dir)
    cfg.steps = 512
    again = Trainer(cfg, resume=True, progress=False, quiet=True)
    # not a second copy of the module, imported under its old name from a checkout
    assert type(again.model.policy).__module__ == "cardrl.train.policy"
    for key, value in again.model.policy.state_dict().items():
        assert torch.equal(value, weights[key]), key
    assert again.run().steps == 512


def test_resume_flags_change_only_what_they_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tiny(n_epochs=3, learning_rate=1e-3).save(tmp_path / "runs" / "tiny")
    parser = run_cli.build_parser()
    cfg = run_cli.config_from_args(parser.parse_args(["--resume", "tiny", "--lr", "1e-5"]))
    assert cfg.learning_rate == 1e-5 and cfg.n_epochs == 3 and cfg.net == (16,)
    assert (cfg.n_games, cfg.n_steps) == (4, 64) and cfg.episode == tiny().episode
    cfg = run_cli.config_from_args(parser.parse_args(["--resume", "tiny", "--episode", "hand"]))
    assert cfg.episode == "hand" and cfg.learning_rate == 1e-3 and cfg.n_epochs == 3
    fresh = run_cli.config_from_args(parser.parse_args(["--game", "sevens"]))
    assert fresh.learning_rate == TrainConfig().learning_rate and fresh.target_kl is None
    assert fresh.episode == TrainConfig().episode
    assert (fresh.n_games, fresh.n_steps, fresh.observation) == (256, 32, "infostate")
    assert fresh.opponents == "self@0.8,snapshot@0.2"
    given = run_cli.config_from_args(parser.parse_args(
        ["--game", "sevens", "--n-games", "16", "--n-steps", "8", "--observation", "features"]))
    assert (given.n_games, given.n_steps, given.observation) == (16, 8, "features")


def test_a_copied_run_resumes_in_its_own_directory(tmp_path, monkeypatch):
    """Copying runs/A to runs/B and resuming B must not write into A (its config names A)."""
    import shutil

    monkeypatch.chdir(tmp_path)
    tiny().save(tmp_path / "runs" / "tiny")
    shutil.copytree(tmp_path / "runs" / "tiny", tmp_path / "runs" / "branch")
    cfg = run_cli.config_from_args(run_cli.build_parser().parse_args(["--resume", "branch"]))
    assert cfg.name == "branch"


def test_a_new_run_does_not_overwrite_an_old_one(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tiny().save(tmp_path / "runs" / "tiny")
    with pytest.raises(ValueError, match="exists; resume it or pick a new --name"):
        Trainer(tiny(), progress=False)
    with pytest.raises(ValueError, match="nothing to resume"):
        Trainer(tiny(name="other"), resume=True, progress=False)


def test_evaluations_reach_tensorboard_and_the_curve(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    cfg = tiny(steps=512, eval_every=512, eval_deals=1, eval_bots=("spades/count-bid",))
    result = Trainer(cfg, progress=False, quiet=True).run()
    evals = read_evals(result.run_dir)
    assert [e["step"] for e in evals] == [0, 512]
    r = evals[-1]["results"]["spades/count-bid"]
    assert r["games"] == 4 and 0 <= r["win"] <= 1 and r["no_edge_win"] == 0.25
    acc = EventAccumulator(str(result.run_dir / "tb_0"))
    acc.Reload()
    tags = acc.Tags()["scalars"]
    assert "eval_spades_count-bid/win" in tags and "train/policy_gradient_loss" in tags
    assert [e.step for e in acc.Scalars("eval_spades_count-bid/win")] == [0, 512]
    assert [e.value for e in acc.Scalars("eval_spades_count-bid/win")] == \
        pytest.approx([e["results"]["spades/count-bid"]["win"] for e in evals])
    card = json.loads(result.onnx.with_suffix(".json").read_text())
    assert card["evaluation"]["results"] == evals[-1]["results"]
    png = learning_curve(evals, tmp_path / "curve.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (result.run_dir / EVALS).is_file()


def test_time_to_beat_is_the_first_evaluation_clear_of_no_edge():
    def rec(step: int, win: float, ci: float | None) -> dict:
        return {"step": step, "wall_time_s": step / 100, "results": {
            "a": {"win": win, "win_ci95": ci, "no_edge_win": 0.25}}}
    evals = [rec(0, 0.0, 0.0), rec(100, 0.30, 0.06), rec(200, 0.40, 0.05), rec(300, 0.5, 0.1)]
    assert not beats(evals[1]["results"]["a"])  # 0.24 .. 0.36 still holds no edge
    assert time_to_beat(evals, "a") == {"step": 200, "wall_time_s": 2.0, "win": 0.40,
                                        "win_ci95": 0.05}
    assert time_to_beat(evals[:2], "a") is None and time_to_beat(evals, "b") is None
    assert time_to_beat([rec(0, 0.9, None)], "a") is None  # no interval: nothing shown


def test_the_curve_plots_every_evaluated_bot():
    def result(win: float) -> dict:
        return {"win": win, "win_ci95": 0.1, "no_edge_win": 0.25, "rank": 2.5,
                "rank_ci95": 0.1, "score": 0.0, "score_ci95": 1.0}
    evals = [{"step": s, "results": {"spades/expert": result(0.0),
                                     "spades/count-bid": result(s / 1000)}} for s in (0, 500)]
    series = curve_series(evals)
    assert list(series) == ["spades/expert", "spades/count-bid"]
    assert [r["win"] for _, r in series["spades/count-bid"]] == [0.0, 0.5]
    assert list(curve_series(evals, "spades/expert")) == ["spades/expert"]
    with pytest.raises(ValueError, match="random"):
        curve_series(evals, "random")


def test_the_curve_shows_average_rank_beyond_two_players():
    four = [{"no_edge_win": 0.25, "rank": 2.6, "rank_ci95": 0.03, "score": 13.0,
             "score_ci95": 1.0}]
    label, values, errors, no_edge = second_panel(four, "sevens/lookahead")
    assert "average rank" in label and values == [2.6] and errors == [0.03] and no_edge == 2.5
    two = [{**four[0], "no_edge_win": 0.5}]
    label, values, errors, no_edge = second_panel(two, "gin_rummy/expert")
    assert "mean game score" in label and values == [13.0] and no_edge is None


def test_spades_hand_metrics_follow_their_definitions():
    # seat 0 bids 3 takes 3 (exact), seat 1 bids 4 takes 5 (made, not exact),
    # seat 2 nil takes 0 (nil made), seat 3 nil takes 5 (nil failed)
    hand = {"bids": [3, 4, 0, 0], "tricks": [3, 5, 0, 5]}
    spades_hand = get_game("spades").hand_metric
    counts = Counter()
    for seat in range(4):
        counts.update(spades_hand(hand, seat))
    assert counts == Counter(hands=4, bids=2, bid_exact=1, bid_made=2, nil_bids=2, nil_made=1)
    assert rates("spades", counts) == {"bid_accuracy": 0.5, "bid_made_rate": 1.0,
                                       "nil_success": 0.5, "nil_rate": 0.5}
    assert rates("spades", Counter(hands=1, bids=1, bid_exact=0)) == {
        "bid_accuracy": 0.0, "bid_made_rate": 0.0, "nil_rate": 0.0}  # no nil: no nil success


def test_gin_rummy_hand_metrics_follow_their_definitions():
    hands = [  # seat 0 goes gin; seat 0 knocks and is undercut; seat 1 knocks and wins; dead
        {"knocker": 0, "winner": 0, "gin": True, "undercut": False},
        {"knocker": 0, "winner": 1, "gin": False, "undercut": True},
        {"knocker": 1, "winner": 1, "gin": False, "undercut": False},
        {"knocker": None, "winner": None, "gin": False, "undercut": False},
    ]
    gin_rummy_hand = get_game("gin_rummy").hand_metric
    counts = Counter()
    for hand in hands:
        counts.update(gin_rummy_hand(hand, 0))
    assert counts == Counter(hands=4, gin=1, knock=1, undercut=1, won=1)
    assert rates("gin_rummy", counts) == {"gin_rate": 0.25, "knock_rate": 0.25,
                                          "undercut_rate": 1.0, "hand_win_rate": 0.25}



def test_hand_counts_sum_the_seats_the_bot_sat_in_and_a_game_without_metrics_counts_none():
    """The metrics come from the game's declaration (``Game.hand_metric``/``hand_rates``)."""
    gin = {"knocker": 0, "winner": 0, "gin": True, "undercut": False}
    logs = [{"seats": ["bot", "other"], "hand_results": [gin, gin]},
            {"seats": ["other", "bot"], "hand_results": [gin]},  # seat 0 went gin: not the bot
            {"seats": ["bot", "other"], "hand_results": None}]
    counts = hand_counts("gin_rummy", logs, "bot")
    assert counts == Counter(hands=3, gin=2, knock=0, undercut=0, won=2)
    assert rates("gin_rummy", counts)["gin_rate"] == pytest.approx(2 / 3)
    assert hand_counts("sevens", [{"seats": ["bot"] * 3, "hand_results": [{}]}], "bot") \
        == Counter()
    assert rates("sevens", Counter(hands=3)) == {}

def test_demo_lineups_fill_the_table():
    rules = ["g/best", "g/next", "g/third"]
    assert lineups("fresh", "shipped", rules, 4) == [("fresh", "shipped", "g/best", "g/next")]
    assert lineups("fresh", None, rules[:1], 4) == [("fresh", "g/best", "g/best", "g/best")]
    assert lineups("fresh", "shipped", rules[:2], 2) == [
        ("fresh", "shipped"), ("fresh", "g/best"), ("fresh", "g/next"),
        ("shipped", "g/best"), ("shipped", "g/next")]
    assert lineups("fresh", None, [], 2) == [("fresh", "random")]
    assert lineups("fresh", None, rules[:2], 2) == [("fresh", "g/best"), ("fresh", "g/next")]
    assert lineups("fresh", "shipped", rules, 3) == [("fresh", "shipped", "g/best")]


def test_demo_trains_candidates_side_by_side_and_keeps_the_better(tmp_path, monkeypatch,
                                                                   capsys):
    monkeypatch.chdir(tmp_path)
    assert demo.main(["--game", "blind_auction", "--steps", "1024", "--eval-every", "1024",
                      "--deals", "1", "--deals-select", "3", "--candidates", "2",
                      "--workers", "1", "--quiet"]) == 0  # no pool: its start costs 5 s a match
    out = capsys.readouterr().out
    dirs = sorted((tmp_path / "runs").iterdir())
    assert [d.name.rsplit("-", 1)[1] for d in dirs] == ["seed0", "seed1"]
    configs = [json.loads((d / "config.json").read_text()) for d in dirs]
    assert [c["seed"] for c in configs] == [0, 1]  # each its own run, a core each
    assert all(c[k] == v for c in configs for k, v in demo.DEMO_DMC.items())  # its rewards
    assert {c["torch_threads"] for c in configs} == {max(1, (os.cpu_count() or 1) // 2)}
    assert (dirs[0] / "policy.onnx").read_bytes() != (dirs[1] / "policy.onnx").read_bytes()
    # the selection match: the same deals for both, not the tournament's; the lower rank kept
    ranks = {}
    for d in dirs:
        line = next(x for x in out.splitlines() if x.startswith("selection") and d.name in x)
        ranks[d.name] = float(line.split("average rank ")[1].split()[0])
        assert {json.loads(p.read_text())["seed"] for p in (d / "selection").glob(
            "*/tournament.json")} == {demo.SELECT_SEED}
    kept = min(ranks, key=ranks.get)
    assert f"kept {kept}" in out
    assert [d.name for d in dirs if (d / "tournament").is_dir()] == [kept]
    assert {json.loads(p.read_text())["seed"] for p in (tmp_path / "runs" / kept / "tournament")
            .glob("*/tournament.json")} == {0}
    assert (tmp_path / "runs" / kept / "learning_curve.png").is_file()


def test_the_demo_by_default_trains_one_run_on_every_core(tmp_path, monkeypatch, capsys):
    """With no options the main job is one DMC run (no selection match) on every core, with
    the demo's rewards and 1,024 games side by side."""
    monkeypatch.chdir(tmp_path)
    assert demo.main(["--game", "blind_auction", "--steps", "2048", "--eval-every", "2048",
                      "--deals", "1", "--workers", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    [run] = (tmp_path / "runs").iterdir()
    assert "-seed" not in run.name and "selection" not in out and "kept" not in out
    config = json.loads((run / "config.json").read_text())
    assert config["seed"] == 0 and config["torch_threads"] == 0  # 0: every core
    assert all(config[k] == v for k, v in demo.DEMO_DMC.items()) and config["n_games"] == 1024
    assert (run / "tournament").is_dir() and (run / "learning_curve.png").is_file()


def test_sigterm_to_the_demo_stops_both_candidates_with_their_checkpoints(tmp_path):
    """``kill`` of the demo (SIGTERM to it alone) reaches the runs training beside it: each
    checkpoints and says how to resume, and none goes on orphaned."""
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "cardrl.train.demo", "--game", "blind_auction",
         "--steps", "50000000",
         "--eval-every", "0", "--deals", "1", "--candidates", "2", "--quiet"], cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(root)}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while len(list(tmp_path.glob("runs/*/tb_0"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(2)  # some updates into the runs
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    dirs = sorted((tmp_path / "runs").iterdir())
    assert len(dirs) == 2
    for d in dirs:
        assert f"python -m cardrl.train.dmc --resume {d.name}" in err
        assert json.loads((d / STATE).read_text())["steps"] > 0
        assert (d / "checkpoint.pt").is_file()
    time.sleep(1)
    left = [p for p in Path("/proc").glob("[0-9]*") if _cwd(p) == tmp_path]
    assert not left, "a candidate went on training after the demo stopped"


def _cwd(proc_dir):
    try:
        return proc_dir.joinpath("cwd").resolve(strict=True)
    except OSError:  # gone meanwhile, or not ours to read
        return None


def test_demo_refuses_bad_input(capsys):
    assert demo.main(["--candidates", "0"]) == 2
    assert "--candidates must be at least 1, got 0" in capsys.readouterr().err
    assert demo.main(["--deals-select", "0"]) == 2
    assert "--deals-select must be at least 1, got 0" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--game", "chess"], "unknown game 'chess'"),
    (["--preset", "nope"], "unknown preset 'nope'"),
    (["--opponents", "nobody/bot@1"], "bad opponent 'nobody/bot'"),
    (["--net", "0"], "net must be hidden layer sizes"),
    (["--eval-bots", "random"], "eval bot 'random' is not a rule bot"),
    (["--eval-fill", "nobody/bot"], "bad eval_fill bot 'nobody/bot'"),
    (["--eval-fill", "gin_rummy/expert"], "eval_fill bot 'gin_rummy/expert' plays gin_rummy"),
    (["--resume", "no-such-run"], "no training run"),
    (["--steps", "0"], "steps must be a positive int"),
    (["--critic-warmup", "-1"], "critic_warmup must be a non-negative int, got -1"),
    (["--target-kl", "0"], "target_kl must be positive or None, got 0.0"),
    (["--imitate", "gin_rummy/expert"], "teacher 'gin_rummy/expert' plays gin_rummy, not spades"),
    (["--imitate", "nobody/bot"], "bad teacher 'nobody/bot'"),
    (["--opponents", "self@1,gin_rummy/expert@1"],
     "opponent 'gin_rummy/expert' plays gin_rummy, not spades"),
    (["--n-games", "0"], "n_games must be a positive int, got 0"),
    (["--n-steps", "-1"], "n_steps must be a positive int, got -1"),
    (["--imitate", "spades/expert", "--imitate-samples", "0"],
     "imitate_samples must be a positive int"),
    (["--score-scale", "-1"], "score_scale must be None or a number >= 0, got -1.0"),
    (["--score-scale", "0", "--win-reward", "0"], "leave no reward at all"),
])
def test_command_line_refuses_bad_input(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run_cli.main(argv) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "runs").exists() or argv[0] == "--resume"


@pytest.mark.parametrize("argv", [["--observation", "pixels"], ["--n-envs", "2"],
                                  ["--minutes", "5"], ["--baseline", "spades/expert"]])
def test_command_line_refuses_unknown_kinds_and_removed_flags(argv, capsys, tmp_path,
                                                              monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stop:
        run_cli.main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert ("invalid choice: 'pixels'" in err) if argv[1] == "pixels" else \
        (f"unrecognized arguments: {' '.join(argv)}" in err)
    assert not (tmp_path / "runs").exists()


def test_the_current_policy_and_snapshots_reach_the_self_and_snapshot_seats(tmp_path,
                                                                          monkeypatch):
    """The batched collector plays the ``self`` seats with the policy pushed before each
    rollout and the ``snapshot`` seats with the frozen copies: the networks that decide
    those seats carry exactly the learner's weights of when they were pushed."""
    import numpy as np

    from cardrl.train.numpy_policy import NumpyPolicy
    from cardrl.train.policy import policy_weights

    monkeypatch.chdir(tmp_path)
    trainer = Trainer(tiny(opponents="self@1,snapshot@1", n_games=8), progress=False,
                      quiet=True)
    used: list[NumpyPolicy] = []
    original = TorchTwin.act_batch  # what plays an MLP policy's seats

    def act_batch(twin, obs, masks, rng, deterministic=False):
        used.append(twin.source)
        return original(twin, obs, masks, rng, deterministic)

    monkeypatch.setattr(TorchTwin, "act_batch", act_batch)

    def same(a: NumpyPolicy, b: NumpyPolicy) -> bool:
        return all(np.array_equal(w, ew) and np.array_equal(c, ec)
                   for (w, c), (ew, ec) in zip(a.layers, b.layers, strict=True))

    def play(ticks: int) -> list[NumpyPolicy]:
        used.clear()
        venv = trainer.env
        venv.reset()
        rng = np.random.default_rng(0)
        for _ in range(ticks):
            masks = venv.env_method("action_masks")
            venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        return list({id(p): p for p in used}.values())

    try:
        trainer.push_policy()
        trainer.snapshot(0)
        frozen = policy_weights(trainer.model.policy)
        networks = play(30)
        assert len(networks) == 2 and all(same(p, frozen) for p in networks)
        with torch.no_grad():  # the learner moves on; push it again, as each rollout does
            for p in trainer.model.policy.parameters():
                p.add_(0.5)
        trainer.push_policy()
        current = policy_weights(trainer.model.policy)
        networks = play(30)
        assert len(networks) == 2
        assert sorted(same(p, current) for p in networks) == [False, True]
        assert sorted(same(p, frozen) for p in networks) == [False, True]
        assert trainer.state.snapshots == ["snapshots/step-000000000.npz"]
        assert same(NumpyPolicy.load(trainer.run_dir / trainer.state.snapshots[0]), frozen)
    finally:
        trainer.env.close()


def test_sigterm_saves_a_checkpoint_like_ctrl_c(tmp_path):
    """A background run stopped with ``kill`` keeps its progress (SIGINT is ignored there)."""
    import os
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "cardrl.train.run", "--game", "blind_auction", "--steps", "10000000",
         "--n-games", "8", "--n-steps", "16", "--batch-size", "64", "--net", "8",
         "--eval-every", "0", "--torch-threads", "1",
         "--checkpoint-every", "10000000", "--snapshot-every", "0", "--name", "bg", "--quiet"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    run_dir = tmp_path / "runs" / "bg"
    deadline = time.monotonic() + 120
    while not (run_dir / "tb_0").exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(2)  # some updates into the run
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "python -m cardrl.train.run --resume bg" in err
    state = json.loads((run_dir / STATE).read_text())
    assert state["steps"] > 0 and (run_dir / "checkpoint.zip").is_file()
