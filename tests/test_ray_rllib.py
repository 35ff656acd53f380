"""RLlib training on a local Ray cluster (2 CPUs, started and stopped here): a tiny self-play
run per observation kind (one sampling in the driver, one on a remote env runner) exports a
bot that ``cardrl.agents.load`` plays through a whole tournament game, whose ONNX actions are the
RLlib module's greedy actions, and whose run logged to tensorboard."""

from __future__ import annotations

import dataclasses
import json
from types import SimpleNamespace

import numpy as np
import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from cardrl import agents
from cardrl.agents.learned import OnnxBot, observation_encoder
from cardrl.envs.games import get_game
from cardrl.eval.config import TournamentConfig
from cardrl.eval.tournament import run_tournament
from cardrl.train import run as sb3_cli
from cardrl.train.config import PPOKnobs, TrainConfig
from cardrl.train.rllib import (
    MAIN,
    RllibConfig,
    SeatMapping,
    build_parser,
    greedy_actions,
    main,
    train,
)
from tests.env_checks import decision_points

CASES = [("blind_auction", "infostate", 0), ("sevens", "features", 1)]  # game, kind, runners


@pytest.fixture(scope="module", params=CASES, ids=[f"{g}-{k}" for g, k, _ in CASES])
def trained(request, ray_address, tmp_path_factory):
    game, kind, runners = request.param
    root = tmp_path_factory.mktemp(f"rllib-{game}-{kind}")
    mp = pytest.MonkeyPatch()
    mp.chdir(root)  # runs/ under the test's own directory
    try:
        cfg = RllibConfig(game=game, observation=kind, steps=600, steps_per_update=200,
                          batch_size=100, net=(16, 16), n_epochs=1, env_runners=runners,
                          max_snapshots=2, snapshot_every=200, seed=1, name="tiny")
        yield cfg, train(cfg, address=ray_address, quiet=True), root
    finally:
        mp.undo()


def test_the_exported_bot_loads_and_plays_a_legal_game(trained):
    cfg, result, root = trained
    bot = agents.load(root / result.onnx)
    assert isinstance(bot, OnnxBot) and bot.game == cfg.game
    card = bot.card
    assert card["training"]["trainer"] == "rllib" and card["training"]["steps"] >= 600
    assert card["training"]["config"]["observation"] == cfg.observation
    assert card["observation"]["kind"] == cfg.observation
    assert card["env_name"] == get_game(cfg.game).env_name
    assert card["training"]["snapshots_taken"] == result.snapshots_taken >= 2
    assert result.learner_steps > 0  # main's agent steps (RLlib counts each final view too)
    # a whole game against the strongest rule bot: an illegal move would raise BotError
    g = get_game(cfg.game)
    n = g.num_players(g.get_rules(card["preset"]))
    rival = agents.strongest(cfg.game)[0]
    tour = TournamentConfig(game=cfg.game, preset=card["preset"],
                            bots=(str(root / result.onnx),) + (rival,) * (n - 1))
    run = run_tournament(tour, deals=1, out=root / "match")
    assert run.summary["games"] == n


def test_the_onnx_bot_plays_the_rllib_modules_greedy_actions(trained):
    cfg, result, root = trained
    bot = agents.load(root / result.onnx)
    points = decision_points(cfg.game, 300, preset=bot.card["preset"])
    encoder = observation_encoder(bot.card)
    obs = np.stack([np.asarray(encoder.encode(v), dtype=np.float32).ravel() for v, _ in points])
    masks = np.zeros((len(points), bot.card["num_actions"]), dtype=np.int8)
    for i, (_, legal) in enumerate(points):
        masks[i, legal] = 1
    expected = greedy_actions(result.module, obs, masks)
    played = bot.act_batch([v for v, _ in points], [legal for _, legal in points])
    assert list(expected) == played
    assert all(a in legal for a, (_, legal) in zip(played, points, strict=True))


def test_the_run_logs_losses_returns_and_throughput_to_tensorboard(trained):
    cfg, result, root = trained
    events = EventAccumulator(str(root / result.run_dir / "tb"))
    events.Reload()
    tags = set(events.Tags()["scalars"])
    for tag in (f"learners/{MAIN}/policy_loss", f"learners/{MAIN}/vf_loss",
                f"learners/{MAIN}/entropy", "env_runners/episode_return_mean",
                "throughput/env_steps_per_s", "snapshots_taken"):
        assert tag in tags
    assert result.throughput["env_steps"] > 0 and result.throughput["env_steps_per_s"] > 0


def test_every_seat_plays_main_or_a_snapshot_and_one_seat_is_always_main():
    episodes = [SimpleNamespace(id_=f"episode-{i}") for i in range(200)]
    mixed = SeatMapping(4, snapshots=3, self_share=0.5)
    seen = set()
    for ep in episodes:
        modules = [mixed(f"player_{s}", ep) for s in range(4)]
        assert modules == [mixed(f"player_{s}", ep) for s in range(4)]  # same every call
        assert MAIN in modules
        seen.update(modules)
    assert seen == {MAIN, "snapshot_0", "snapshot_1", "snapshot_2"}
    selfish = SeatMapping(4, snapshots=3, self_share=1.0)
    assert {selfish(f"player_{s}", ep) for ep in episodes for s in range(4)} == {MAIN}
    lonely = SeatMapping(2, snapshots=2, self_share=0.0)
    assert all(sorted(lonely(f"player_{s}", ep) for s in range(2)).count(MAIN) == 1
               for ep in episodes)


def test_bad_settings_exit_2_naming_them(capsys):
    assert main(["--game", "nope"]) == 2
    assert "unknown game 'nope'" in capsys.readouterr().err
    assert main(["--game", "sevens", "--steps-per-update", "100", "--batch-size", "200"]) == 2
    assert "batch_size 200 is larger than steps_per_update 100" in capsys.readouterr().err


def test_both_trainers_read_the_shared_knobs_under_the_same_flags():
    """RunConfig and PPOKnobs (train.config) are one set of knobs with one set of flags:
    the same command line sets the same fields in train.run and train.rllib."""
    shared = [f.name for f in dataclasses.fields(PPOKnobs) if f.name != "eval_every"]
    argv = ["--game", "sevens", "--observation", "features", "--rule", "value_max=12",
            "--episode", "hand", "--relative-score", "--max-hands", "5", "--steps", "999",
            "--seed", "3", "--net", "8,4", "--activation", "relu", "--lr", "1e-3",
            "--gamma", "0.9", "--gae-lambda", "0.8", "--ent-coef", "0.02", "--clip-range",
            "0.3", "--n-epochs", "2", "--batch-size", "64", "--eval-every", "100",
            "--eval-deals", "3", "--eval-bots", "sevens/greedy", "--eval-workers", "2",
            "--name", "same"]
    sb3 = TrainConfig.from_args(sb3_cli.build_parser().parse_args(argv))
    rllib = RllibConfig.from_args(build_parser().parse_args(argv))
    assert {k: getattr(sb3, k) for k in shared} == {k: getattr(rllib, k) for k in shared}
    assert (sb3.learning_rate, sb3.net, sb3.eval_bots, sb3.rule_changes) == \
        (1e-3, (8, 4), ("sevens/greedy",), {"value_max": 12})
    assert sb3.eval_every == rllib.eval_every == 100
    sb3.validate()
    rllib.validate()


def test_a_config_saved_under_the_old_names_loads_under_the_new(tmp_path):
    old = {"game": "sevens", "lr": 1e-3, "lambda_": 0.9, "clip": 0.3, "epochs": 2,
           "batch": 2048, "minibatch": 256, "snapshots": 3, "eval_deals": 0, "name": "old"}
    (tmp_path / "config.json").write_text(json.dumps(old))
    cfg = RllibConfig.load(tmp_path)
    assert (cfg.learning_rate, cfg.gae_lambda, cfg.clip_range, cfg.n_epochs,
            cfg.steps_per_update, cfg.batch_size, cfg.max_snapshots) == \
        (1e-3, 0.9, 0.3, 2, 2048, 256, 3)
    (tmp_path / "config.json").write_text(json.dumps({**old, "bogus": 1}))
    with pytest.raises(ValueError, match=r"unknown RllibConfig fields \['bogus'\]"):
        RllibConfig.load(tmp_path)
