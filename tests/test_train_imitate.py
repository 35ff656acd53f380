"""The warm start: a run with ``imitate`` starts PPO from a clone of its teacher."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cardrl.envs.batched import BatchedGames
from cardrl.train.config import TrainConfig
from cardrl.train.imitate import action_weights, collect
from cardrl.train.ppo import Trainer


def config(**changes) -> TrainConfig:
    base = dict(game="blind_auction", preset="2p", steps=256, seed=3, net=(32,), n_games=8,
                n_steps=32, batch_size=64, n_epochs=1, eval_every=0, checkpoint_every=256,
                snapshot_every=0, opponents="random@1,self@1", imitate="blind_auction/high-early",
                imitate_samples=2600, imitate_epochs=15, torch_threads=1, name="clone")
    return TrainConfig(**{**base, **changes}).resolved()


def games(n: int = 2) -> BatchedGames:
    return BatchedGames("blind_auction", n, preset="2p")


def test_demonstrations_are_the_teachers_moves_in_every_seat_with_their_returns():
    cfg = config()
    data = collect(games(2), cfg.imitate, 260, cfg.gamma, seed=1)
    # 2 games side by side, 26 bids (13 per seat) per 2p episode: 130 ticks are 5 episodes each
    assert len(data) == 260 and data.episodes == 10
    assert data.masks[np.arange(len(data)), data.actions].all()  # every move legal
    # high-early bids its highest card: the last legal action of every mask
    highest = np.array([np.flatnonzero(m)[-1] for m in data.masks])
    assert np.array_equal(data.actions, highest)
    # decision t * 2 + i is game i's at tick t; the seats bid in turn, seat 0 first. Returns
    # are each seat's discounted reward-to-go over its own decisions: r_t = gamma * r_{t+1}
    # within an episode, as only the last round (the game's end) pays in blind auction
    for game in range(2):
        episode = data.returns[game::2][:26]
        for seat in range(2):
            own = episode[seat::2]
            assert np.allclose(own[:-1], cfg.gamma * own[1:], atol=1e-5)
            # the teacher at both seats holds the same cards and bids them the same: every
            # prize is tied, nobody scores, and a draw pays nothing (docs/rules.md section 5)
            assert own[-1] == 0.0


def test_run_starts_ppo_from_a_clone_of_the_teacher(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    trainer = Trainer(config(), progress=False, quiet=True)
    record = json.loads((trainer.run_dir / "imitate.json").read_text())
    assert record["teacher"] == "blind_auction/high-early" and record["decisions"] >= 2600
    assert record["epochs"][-1]["agreement"] >= 0.95
    assert (trainer.run_dir / "checkpoint.zip").is_file()  # the clone survives a crash

    fresh = Trainer(config(imitate="", name="fresh"), progress=False, quiet=True)
    probe = collect(games(4), "random", 400, 0.99, seed=9)  # views the teacher did not make
    agree = {}
    for name, t in (("clone", trainer), ("fresh", fresh)):
        picks, _ = t.model.predict(probe.obs, action_masks=probe.masks, deterministic=True)
        agree[name] = float(np.mean(picks == [np.flatnonzero(m)[-1] for m in probe.masks]))
    assert agree["clone"] >= 0.9 and agree["fresh"] < 0.6, agree


def test_balance_weights_rare_teacher_moves_up():
    actions = np.array([0, 0, 0, 5])
    assert np.allclose(action_weights(actions, 0.0), 1.0)
    # counts 3, 3, 3, 1: raw weights 1/3, 1/3, 1/3, 1, scaled to mean 1
    assert np.allclose(action_weights(actions, 1.0), [2 / 3, 2 / 3, 2 / 3, 2])
    half = action_weights(actions, 0.5)
    assert half[3] / half[0] == pytest.approx(3 ** 0.5) and half.mean() == pytest.approx(1)
    with pytest.raises(ValueError, match="imitate_balance must be in"):
        TrainConfig(game="blind_auction", imitate="random", imitate_balance=2).validate()
