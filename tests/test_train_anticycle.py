"""Self-play that converges in two-player zero-sum games: the ``average`` opponent entry (every
snapshot so far, a reservoir sample), the magnet regulariser, and the exact exploitability
curve through the game's hook, judged on a tiny Blind Auction deck whose equilibrium is known."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cardrl.envs.batched import BatchedGames
from cardrl.envs.blind_auction.best_response import exploitability as exact
from cardrl.envs.blind_auction.infostate import INFOSTATE, OBS_SIZE, OFFSETS
from cardrl.envs.blind_auction.rules import get_rules
from cardrl.train import run as run_cli
from cardrl.train.average import collect_mix, fit_average
from cardrl.train.config import TrainConfig
from cardrl.train.exploit import EXPLOIT, sampling
from cardrl.train.numpy_policy import NumpyPolicy
from cardrl.train.opponents import OpponentPool, Reservoir
from cardrl.train.policy import policy_weights
from cardrl.train.ppo import Trainer
from cardrl.train.selfplay import SelfPlayVecEnv, TorchTwin

TINY_DECK = {"cards_per_suit": 3, "tie_rule": "carry"}


def tiny(**changes) -> TrainConfig:
    base = dict(game="blind_auction", rule_changes=TINY_DECK, steps=2048, seed=3, net=(16,),
                n_games=16, n_steps=32, batch_size=128, n_epochs=2, eval_every=0,
                checkpoint_every=100_000, snapshot_every=512, torch_threads=1, name="tiny",
                relative_score=True, win_reward=0.0)
    return TrainConfig(**{**base, **changes})


def test_the_reservoir_keeps_a_uniform_sample_of_everything_offered():
    early = late = 0
    for seed in range(400):
        r = Reservoir(10, seed=seed)
        for item in range(100):
            r.offer(item)
        assert len(r.items) == 10 and len(set(r.items)) == 10 and r.seen == 100
        early += sum(item < 20 for item in r.items)
        late += sum(item >= 80 for item in r.items)
    # each item stays with chance 10/100: 2 of the first 20, and of the last 20, per run
    assert early / 400 == pytest.approx(2.0, abs=0.25)
    assert late / 400 == pytest.approx(2.0, abs=0.25)
    again = Reservoir(10, seed=7)
    for item in range(100):
        again.offer(item)
    replay = Reservoir(10, seed=7)
    for item in range(100):
        replay.offer(item)
    assert again.items == replay.items  # seeded by the count: a resumed run repeats it
    with pytest.raises(ValueError, match="got 0"):
        Reservoir(0)


def test_the_average_entry_plays_every_snapshot_so_far_and_a_resume_keeps_them(tmp_path,
                                                                              monkeypatch):
    """``snapshot`` draws only from the latest ``max_snapshots``; ``average`` from every
    snapshot taken (here all four, the pool of latest holding one), and a resumed run
    reads the same reservoir back."""
    monkeypatch.chdir(tmp_path)
    trainer = Trainer(tiny(opponents="average@1", max_snapshots=1, max_average=8, n_games=32),
                      progress=False, quiet=True)
    used: list[NumpyPolicy] = []
    original = TorchTwin.act_batch  # what plays an MLP policy's seats

    def act_batch(twin, obs, masks, rng, deterministic=False):
        used.append(twin.source)
        return original(twin, obs, masks, rng, deterministic)

    monkeypatch.setattr(TorchTwin, "act_batch", act_batch)
    try:
        frozen = []
        for step in range(4):
            for p in trainer.model.policy.parameters():
                p.data.add_(0.3)
            trainer.snapshot(step)
            frozen.append(policy_weights(trainer.model.policy))
        venv = trainer.env
        venv.reset()
        rng = np.random.default_rng(0)
        for _ in range(12):
            masks = venv.env_method("action_masks")
            venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        played = {id(p): p for p in used}.values()

        def which(p: NumpyPolicy) -> int:
            return next(i for i, f in enumerate(frozen)
                        if np.array_equal(f.layers[0][0], p.layers[0][0]))

        assert sorted({which(p) for p in played}) == [0, 1, 2, 3]
        assert len(trainer.state.snapshots) == 1 and len(trainer.state.average) == 4
        payout = trainer.env.venv.games.payout  # tiny(): the margin, no win bonus
        assert payout.win_reward == 0.0 and payout.relative_score
        trainer.checkpoint(0)
    finally:
        trainer.env.close()
    resumed = Trainer(TrainConfig.load_run("tiny"), resume=True, progress=False, quiet=True)
    try:
        members = resumed.env.venv._average
        assert [which(p) for p in members] == [0, 1, 2, 3]
    finally:
        resumed.env.close()


def test_the_magnet_charges_each_move_its_log_ratio_so_kl_on_average():
    """Moves drawn from the current policy are charged coef * log(pi / magnet): zero when the
    magnet is the policy, and coef * KL(pi || magnet) in expectation."""
    games = BatchedGames("blind_auction", 1, **TINY_DECK)
    env = SelfPlayVecEnv(games, OpponentPool.parse("self@1", "blind_auction"))
    rng = np.random.default_rng(0)

    def net(seed: int) -> NumpyPolicy:
        r = np.random.default_rng(seed)
        return NumpyPolicy([(r.normal(size=(8, games.obs_size)), r.normal(size=8)),
                            (r.normal(size=(13, 8)), r.normal(size=13))], "tanh")

    pi, magnet = net(1), net(2)
    games.reset(seed=0)
    obs, masks = np.repeat(games.obs, 40_000, axis=0), np.repeat(games.masks, 40_000, axis=0)
    actions = pi.act_batch(obs, masks, rng)
    env.set_policy(pi)
    env.set_magnet(pi, 0.2)
    assert np.all(env._magnet_penalty(obs, masks, actions) == 0)
    env.set_magnet(magnet, 0.2)
    p, q = sampling(pi)(obs[:1], masks[:1])[0], sampling(magnet)(obs[:1], masks[:1])[0]
    legal = masks[0]
    kl = float(np.sum(p[legal] * np.log(p[legal] / q[legal])))
    assert kl > 0.05
    assert env._magnet_penalty(obs, masks, actions).mean() == pytest.approx(0.2 * kl, rel=0.05)


def test_self_play_toward_a_magnet_approaches_the_equilibrium(tmp_path, monkeypatch):
    """On the 3-card deck with ties carried (value 0; the uniform bidder gives up 1.5 points
    of 9), a short self-play run regularised toward a magnet logs the exact exploitability
    of the current, greedy and average policies to exploitability.jsonl and tensorboard, and
    the current policy ends well below the uniform bidder (unregularised, the same run ends
    above it: docs/results.md)."""
    monkeypatch.chdir(tmp_path)
    cfg = tiny(steps=24_576, n_games=64, n_steps=32, batch_size=256, net=(32, 32),
               opponents="self@1", snapshot_every=2048, exploit_every=8192,
               magnet_coef=0.5, magnet_every=16_384, learning_rate=1e-3)
    trainer = Trainer(cfg, progress=False, quiet=True)
    result = trainer.run()
    lines = [json.loads(x) for x in (result.run_dir / EXPLOIT).read_text().splitlines()]
    assert [r["step"] for r in lines] == [0, 8192, 16384, 24576]
    uniform = exact(get_rules("2p", **TINY_DECK), INFOSTATE,
                    [lambda o, m: m / m.sum(1, keepdims=True)])["exploitability"]
    assert uniform == pytest.approx(1.5)
    assert lines[0]["current"]["exploitability"] == pytest.approx(uniform, abs=0.1)
    assert lines[-1]["current"]["exploitability"] < 0.7 * uniform
    assert lines[-1]["average"]["policies"] == len(trainer.state.average) >= 10
    assert lines[-1]["average"]["exploitability"] < uniform
    assert all(r["greedy"]["exploitability"] > r["current"]["exploitability"] for r in lines)
    assert (result.run_dir / "magnet.npz").is_file()
    events = list((result.run_dir / "tb_0").glob("events.*"))
    assert events and b"exploit/current" in events[0].read_bytes()


def _by_rank(sign: float) -> NumpyPolicy:
    """A Blind Auction bidder that bids its lowest card (``sign`` < 0) or its highest
    (> 0), nearly always: logits ``sign * 5 * rank`` over the ranks in hand."""
    w = np.zeros((13, OBS_SIZE), np.float32)
    hand = OFFSETS["hand"]
    for r in range(13):
        w[r, hand + r] = sign * 5.0 * r
    return NumpyPolicy([(w, np.zeros(13, np.float32))], "tanh")


def test_the_average_network_plays_the_mix_per_game_not_the_mean_per_state(tmp_path,
                                                                           monkeypatch):
    """Two snapshots, one bidding low and one high, drawn one per seat per game: at the first
    bid the average network plays either half the time; after a seat's lowest card went
    first (only the low bidder does that) it bids the lowest again, as the mix does,
    where the mean of the two snapshots there would be half and half."""
    monkeypatch.chdir(tmp_path)
    trainer = Trainer(tiny(net=(32, 32)), progress=False, quiet=True)
    try:
        low, high = _by_rank(-1.0), _by_rank(1.0)
        games = BatchedGames("blind_auction", 64, **TINY_DECK)
        data = collect_mix(games, [low, high], 20_000, seed=1)
        assert len(data.obs) >= 20_000 and data.games >= 20_000 // 6 - 64  # 6 bids a game
        net, fitted = fit_average(trainer.model.policy, data, epochs=20, lr=3e-3)
        # the first bid: either snapshot's one-hot target against the fit's half and half
        assert 0.2 < fitted["heldout_excess_nats"] < 0.7 * np.log(2)
        probs = sampling(policy_weights(net))
        hand, round_ = OFFSETS["hand"], OFFSETS["round"]
        first = data.obs[:, round_] == 0
        after_low = (data.obs[:, round_] > 0) & (data.obs[:, hand] == 0) \
            & (data.obs[:, hand + 1] == 1) & (data.obs[:, hand + 2] == 1)
        assert first.sum() > 1000 and after_low.sum() > 500
        p0 = probs(data.obs[first], data.masks[first]).mean(axis=0)
        assert p0[0] == pytest.approx(0.5, abs=0.08) and p0[2] == pytest.approx(0.5, abs=0.08)
        p1 = probs(data.obs[after_low], data.masks[after_low])
        assert p1[:, 1].mean() > 0.9  # the lowest left, as the low bidder bids
        # the fitted policy's exploitability is the mix's (every history walked)
        rules = get_rules("2p", **TINY_DECK)
        mix = exact(rules, INFOSTATE, [sampling(low), sampling(high)])["exploitability"]
        one = exact(rules, INFOSTATE, [probs])["exploitability"]
        assert one == pytest.approx(mix, abs=0.15)
        with pytest.raises(ValueError, match="no policies"):
            collect_mix(games, [], 100)
        with pytest.raises(ValueError, match="got 0"):
            collect_mix(games, [low], 0)
    finally:
        trainer.env.close()


def test_a_run_with_an_average_network_measures_and_exports_it(tmp_path, monkeypatch):
    """``average_net``: at each exploitability measure the network fitted to the snapshots'
    mix is measured beside the mix (and lands near it), and the run exports it to
    average.onnx, whose card says what it averages."""
    monkeypatch.chdir(tmp_path)
    cfg = tiny(steps=8192, n_games=32, snapshot_every=1024, exploit_every=4096,
               average_net=4096, net=(32, 32), eval_every=8192, eval_deals=2)
    result = Trainer(cfg, progress=False, quiet=True).run()
    lines = [json.loads(x) for x in (result.run_dir / EXPLOIT).read_text().splitlines()]
    assert "average_net" not in lines[0]  # no snapshot yet at step 0
    for r in lines[1:]:
        net, mix = r["average_net"], r["average"]
        assert net["snapshots"] == mix["policies"] and net["decisions"] >= 4096
        assert net["exploitability"] == pytest.approx(mix["exploitability"], abs=0.3)
    card = json.loads((result.run_dir / "average.json").read_text())
    assert card["average_of_snapshots"]["snapshots"] == lines[-1]["average"]["policies"]
    assert card["evaluation"] == {}  # the run's evaluations played its last policy
    assert json.loads((result.run_dir / "policy.json").read_text())["evaluation"]["results"]
    assert (result.run_dir / "average.onnx").stat().st_size > 0
    with pytest.raises(ValueError, match="average_net must be"):
        tiny(average_net=-1).validate()
    with pytest.raises(ValueError, match="needs snapshot_every"):
        tiny(average_net=100, snapshot_every=0).validate()


@pytest.mark.parametrize(("argv", "message"), [
    (["--game", "spades", "--exploit-every", "100"], "spades declares no exact exploitability"),
    (["--game", "blind_auction", "--exploit-every", "100"], "cards_per_suit 13"),
    (["--game", "blind_auction", "--magnet-coef", "-1"], "magnet_coef must be a number >= 0"),
    (["--game", "blind_auction", "--max-average", "0"], "max_average must be a positive int"),
    (["--game", "blind_auction", "--magnet-every", "0"], "magnet_every must be a positive int"),
    (["--game", "blind_auction", "--average-net", "-5"], "average_net must be"),
    (["--game", "blind_auction", "--average-net", "100", "--snapshot-every", "0"],
     "needs snapshot_every"),
])
def test_the_anticycling_knobs_refuse_bad_input(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run_cli.main(argv) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()
