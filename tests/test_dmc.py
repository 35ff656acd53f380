"""Deep Monte Carlo (train.dmc): epsilon-greedy never plays an illegal action; each seat's
decisions get the Monte Carlo return the AEC env pays that seat; the ONNX export plays what
the torch network plays; a tiny run per game writes a run folder PPO's tools read, and
interrupt and resume go on from where it stopped."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from cardrl import agents
from cardrl.envs.batched import BatchedGames
from cardrl.envs.games import game_names, get_game
from cardrl.train import dmc
from cardrl.train.dmc import (
    DMCConfig,
    DMCTrainer,
    MaskedQ,
    Replay,
    SelfPlay,
    SkipQ,
    discounted_returns,
    epsilon_greedy,
    lambda_returns,
    q_network,
)
from cardrl.train.export import base_card, write_onnx
from cardrl.train.numpy_policy import MASKED
from tests.env_checks import decision_points

GAMES = game_names()
POLICIES = ("mlp", "card")


def random_masks(rng: np.random.Generator, rows: int, actions: int) -> np.ndarray:
    masks = rng.random((rows, actions)) < rng.random((rows, 1))
    masks[np.arange(rows), rng.integers(actions, size=rows)] = True  # at least one legal
    return masks


# ------------------------------------------------------------------------ acting
@pytest.mark.parametrize("epsilon", [0.0, 0.3, 1.0])
def test_epsilon_greedy_plays_only_legal_actions_even_where_illegal_ones_score_highest(epsilon):
    rng = np.random.default_rng(1)
    masks = random_masks(rng, 5000, 13)
    q = rng.normal(size=masks.shape) + 1e6 * ~masks  # every illegal action looks best
    actions = epsilon_greedy(q, masks, epsilon, np.random.default_rng(2))
    assert masks[np.arange(len(masks)), actions].all()
    greedy = np.where(masks, q, -np.inf).argmax(axis=1)
    choices = masks.sum(axis=1) > 1
    off = (actions != greedy)[choices].mean()  # random picks that missed the greedy one
    expected = epsilon * np.mean(1 - 1 / masks.sum(axis=1)[choices])
    assert off == pytest.approx(expected, abs=0.02)
    if epsilon == 1.0:  # uniform over the legal actions: every legal action of a row shows
        row = np.flatnonzero(masks.sum(axis=1) >= 4)[0]
        picks = epsilon_greedy(np.repeat(q[row:row + 1], 2000, axis=0),
                               np.repeat(masks[row:row + 1], 2000, axis=0), 1.0, rng)
        assert set(picks.tolist()) == set(np.flatnonzero(masks[row]).tolist())


def test_a_row_with_no_legal_action_is_refused_naming_it():
    masks = np.ones((3, 4), dtype=bool)
    masks[1] = False
    with pytest.raises(ValueError, match=r"rows \[1\]"):
        epsilon_greedy(np.zeros((3, 4)), masks, 0.0, np.random.default_rng(0))


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("epsilon", [0.0, 1.0])
def test_self_play_never_plays_an_illegal_action_on_many_states(game, epsilon):
    """Every seat is the network; the env refuses an illegal action (``illegal_action``
    'raise'), and the Q-function ranks the illegal actions first."""
    games = BatchedGames(game, 8, episode="hand")
    played = SelfPlay(games, Replay(4096, games.obs_size), 1.0, seed=3)
    rng = np.random.default_rng(0)
    seen = []

    def q_values(obs):
        assert np.array_equal(obs, games.obs)
        seen.append(games.masks.copy())
        return rng.normal(size=games.masks.shape) + 1e6 * ~games.masks

    for _ in range(150):
        played.tick(q_values, epsilon)
    assert len(seen) == 150 and sum((m.sum(axis=1) > 1).sum() for m in seen) > 300  # choices
    taken = played.replay.action[:150 * 8].reshape(150, 8)
    assert all(m[np.arange(8), a].all() for m, a in zip(seen, taken, strict=True))


# ---------------------------------------------------------- Monte Carlo targets
def followed_targets(game: str, gamma: float, episodes: int, **options) -> list[tuple]:
    """Self-play of one game with random legal moves, each finished episode replayed in the
    AEC env from its seed: (target DMC stored, what the AEC env paid that seat from that
    decision on, discounted by ``gamma`` per own decision) for every decision."""
    games = BatchedGames(game, 1, **options)
    replay = Replay(100_000, games.obs_size)
    played = SelfPlay(games, replay, gamma, seed=11)
    log: list[tuple[int, int, int]] = []  # (episode seed, seat, action), one per decision
    step = games.step_games

    def logged(idx, actions):
        log.append((int(games.episode_seeds[0]), int(games.seats[0]), int(actions[0])))
        return step(idx, actions)

    games.step_games = logged
    while len(played.lengths) < episodes:  # epsilon 1: uniformly random legal moves
        played.tick(lambda obs: np.zeros((1, games.num_actions)), 1.0)
    pairs = []
    start = 0
    for seed in dict.fromkeys(s for s, _, _ in log):
        moves = [(k, seat, a) for k, (s, seat, a) in enumerate(log) if s == seed]
        env = get_game(game).env(**options)
        env.reset(seed=seed)
        paid = []  # per decision: the rewards every seat got on that step
        for _, seat, action in moves:
            assert env.agent_selection == f"player_{seat}"
            env.step(action)
            paid.append([env.rewards[a] for a in env.possible_agents])
        if not all(env.terminations.values()):
            break  # the episode still running when the loop stopped
        for k, (decision, seat, _) in enumerate(moves):
            own = [j for j in range(k, len(moves)) if moves[j][1] == seat]
            expected = 0.0
            for j in range(k, len(moves)):
                before = sum(1 for m in own if m <= j) - 1  # own decisions after k up to j
                expected += gamma ** before * paid[j][seat]
            pairs.append((float(replay.target[decision]), expected, seed))
        start += len(moves)
    assert replay.ready[:start].all() and not replay.ready[start:replay.next_id].any()
    return pairs


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("gamma", [1.0, 0.9])
def test_each_decisions_target_is_what_the_aec_env_paid_its_seat_from_there_on(game, gamma):
    # random Gin hands die with the stock nearly always, and a draw pays nothing: more
    # episodes until some hand is decided
    episodes = 30 if game == "gin_rummy" else 3
    pairs = followed_targets(game, gamma, episodes=episodes, max_hands=2)
    assert len({seed for _, _, seed in pairs}) >= 3
    got, expected = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
    assert np.allclose(got, expected, atol=1e-5)
    assert (expected != 0).any()  # rewards reached the targets (the win bonus at least)


def test_blind_auction_targets_by_hand():
    """Blind Auction with 3 cards a suit: one hand, paid on the last bid. Each seat bids 3
    times; with gamma 1 every bid's target is the seat's points less the other's, / 9 (the
    prize total), and +1 for the winner (-1 for the other, 0 on a tie); with gamma 0.5 the
    bids from the last back get R, R/2, R/4."""
    for gamma, factors in ((1.0, [1, 1, 1]), (0.5, [0.25, 0.5, 1.0])):
        games = BatchedGames("blind_auction", 1, cards_per_suit=3)
        replay = Replay(64, games.obs_size)
        played = SelfPlay(games, replay, gamma, seed=4)
        seats, states = [], []
        for _ in range(6):
            seats.append(int(games.seats[0]))
            states.append(games.states[0])
            played.tick(lambda obs, a=games.num_actions: np.zeros((1, a)), 1.0)
        state = states[-1]  # the finished game (the env has dealt the next one)
        assert state.is_over and played.lengths == [6]
        points = list(state.results[0].points)
        winners = list(state.winners)
        for seat in (0, 1):
            bonus = 0.0 if len(winners) == 2 else 1.0 if seat in winners else -1.0
            total = (points[seat] - points[1 - seat]) / 9 + bonus
            mine = [k for k, s in enumerate(seats) if s == seat]
            assert replay.target[mine].tolist() == pytest.approx([f * total for f in factors])


def test_discounted_returns_by_hand():
    assert discounted_returns([1.0, 0.0, 2.0], 0.5).tolist() == [1.5, 1.0, 2.0]
    assert discounted_returns([], 0.9).tolist() == []


def test_lambda_returns_by_hand():
    rewards, values = [1.0, 0.0, 2.0], [5.0, 7.0, 9.0]
    assert lambda_returns(rewards, values, 0.5, 1.0).tolist() == [1.5, 1.0, 2.0]  # = MC
    assert lambda_returns(rewards, values, 1.0, 0.0).tolist() == [8.0, 9.0, 2.0]  # one step
    # lambda 0.5, gamma 1: out[1] = 0 + (0.5 * 9 + 0.5 * 2) = 5.5; out[0] = 1 + (3.5 + 2.75)
    assert lambda_returns(rewards, values, 1.0, 0.5).tolist() == [7.25, 5.5, 2.0]
    assert lambda_returns([], [], 0.9, 0.5).tolist() == []


@pytest.mark.parametrize("lam", [0.0, 0.6])
def test_lambda_targets_lean_on_the_greedy_value_of_the_seats_next_decision(lam):
    """Blind Auction with 3 cards a suit, one hand paid on the last bid, Q a fixed score per
    action: a seat's last bid gets the hand's pay R; each earlier bid R weighted lam, plus
    1 - lam times the best legal score at the seat's next bid (its mask then)."""
    games = BatchedGames("blind_auction", 1, cards_per_suit=3)
    replay = Replay(64, games.obs_size)
    played = SelfPlay(games, replay, 1.0, seed=4, td_lambda=lam)
    scores = np.arange(games.num_actions, dtype=np.float32) / 10
    seats, masks = [], []
    for _ in range(6):
        seats.append(int(games.seats[0]))
        masks.append(games.masks[0].astype(bool).copy())
        played.tick(lambda obs: scores[None, :], 1.0)
    assert played.lengths == [6]
    for seat in (0, 1):
        mine = [k for k, s in enumerate(seats) if s == seat]
        pay = replay.target[mine[-1]]
        best = [float(scores[masks[k]].max()) for k in mine]
        expected = [pay]
        for k in (1, 0):
            expected.insert(0, (1 - lam) * best[k + 1] + lam * expected[0])
        assert replay.target[mine].tolist() == pytest.approx(expected, abs=1e-6)
        assert played.returns[seat] == pytest.approx(pay)  # the logged return stays the MC one


def test_a_slot_reused_before_its_episode_ended_keeps_the_new_decisions_data():
    replay = Replay(4, 2)
    first = replay.add(np.ones((3, 2)), np.array([1, 2, 3]))
    replay.add(np.zeros((2, 2)), np.array([4, 5]))  # takes slot 0 (decision 0's) again
    replay.set_targets(first, np.array([7.0, 8.0, 9.0]))
    assert replay.ready.tolist() == [False, True, True, False]
    assert replay.target[1:3].tolist() == [8.0, 9.0] and replay.action[0] == 5


# ------------------------------------------------------------------------ export
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("policy, skip_gain", [(p, 0.0) for p in POLICIES] + [("mlp", 10.0)])
def test_onnx_export_plays_and_scores_as_the_torch_network(game, policy, skip_gain, tmp_path):
    """Also with the skip path, where the information state has per-action blocks."""
    cfg = DMCConfig(game=game, policy=policy, net=(32, 32), skip_gain=skip_gain).resolved()
    g = get_game(game)
    n = g.num_players(g.get_rules(cfg.preset))
    obs_size = g.encoder("infostate").size(n)
    torch.manual_seed(0)
    net = q_network(cfg, obs_size, g.num_actions)
    blocks = g.encoder("infostate").action_features(n)
    assert isinstance(net, SkipQ) == bool(skip_gain and blocks)
    with torch.no_grad():  # no near-ties between fresh heads' tiny scores
        for p in net.parameters():
            p.add_(0.2 * torch.randn_like(p))
    card = {**base_card(game, cfg.preset), "training": {"algo": "dmc", "steps": 0}}
    write_onnx(MaskedQ(net), obs_size, g.num_actions, tmp_path / "q.onnx", card)
    bot = agents.load(tmp_path / "q.onnx")
    points = decision_points(game, 300, max_hands=2)
    obs = np.stack([bot.encoder.encode(v) for v, _ in points]).astype(np.float32)
    masks = np.zeros((len(points), g.num_actions), dtype=np.float32)
    for i, (_, legal) in enumerate(points):
        masks[i, legal] = 1.0
    with torch.no_grad():
        want = MaskedQ(net)(torch.from_numpy(obs), torch.from_numpy(masks)).numpy()
    assert (want[masks == 0] == MASKED).all()
    got = np.stack([bot.logits(v, legal) for v, legal in points])
    assert np.allclose(got, want, rtol=1e-4, atol=1e-4)
    actions = bot.act_batch([v for v, _ in points], [legal for _, legal in points])
    assert actions == want.argmax(axis=1).tolist()
    assert all(a in legal for a, (_, legal) in zip(actions, points, strict=True))


# ------------------------------------------------------------------------ the run
def tiny(game: str, **changes) -> DMCConfig:
    base = dict(game=game, steps=3000, seed=1, net=(32,), n_games=2, batch_size=64,
                train_freq=256, gradient_steps=1, buffer_size=4096, episode="hand",
                max_hands=2, eval_every=0, checkpoint_every=1000, torch_threads=1,
                name=f"tiny-{game}")
    return DMCConfig(**{**base, **changes})


@pytest.mark.parametrize("game", GAMES)
def test_a_tiny_run_writes_its_folder_and_resume_goes_on(game, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    trainer = DMCTrainer(tiny(game), progress=False, quiet=True)
    trainer.limit_seconds = 0.05
    before = [p.detach().clone() for p in trainer.net.parameters()]
    done = trainer.run()
    assert done.steps >= 3000 and not done.interrupted
    speed = trainer.throughput()  # the loop's rate beside the network's alone
    assert speed["rate"] > 0 and speed["ratio"] == speed["rate"] / speed["limit"]
    assert not all(map(torch.equal, before, trainer.net.parameters()))  # it learned something
    run = done.run_dir
    assert {"config.json", "checkpoint.pt", "state.json", "policy.onnx", "policy.json",
            "tb_0"} <= {p.name for p in run.iterdir()}
    card = json.loads((run / "policy.json").read_text())
    assert card["training"]["algo"] == "dmc" and card["training"]["steps"] == done.steps
    assert card["game"] == game and agents.load(run / "policy.onnx").game == game
    cfg = DMCConfig.load(run)
    assert cfg.algo == "dmc" and cfg.steps == 3000
    cfg.steps = 5000
    again = DMCTrainer(cfg, resume=True, progress=False, quiet=True)
    assert again.steps == done.steps
    for a, b in zip(trainer.net.state_dict().values(), again.net.state_dict().values(),
                    strict=True):
        assert torch.equal(a, b)
    adam_steps = {int(s["step"]) for s in again.optimizer.state_dict()["state"].values()}
    assert adam_steps and min(adam_steps) > 0  # the optimizer's state came back
    assert again.run().steps >= 5000
    assert json.loads((run / "state.json").read_text())["steps"] >= 5000


def test_interrupt_checkpoints_and_resume_continues_the_step_count(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    original = SelfPlay.tick

    def interrupt(self, q_values, epsilon):
        if self.replay.next_id >= 1500:
            # as a signal can land inside ``torch.no_grad().__enter__``: grad mode switched
            # off, its ``__exit__`` never run
            torch.set_grad_enabled(False)
            raise KeyboardInterrupt
        return original(self, q_values, epsilon)

    monkeypatch.setattr(SelfPlay, "tick", interrupt)
    first = DMCTrainer(tiny("blind_auction", eval_every=1000, eval_deals=1), progress=False,
                       quiet=True)
    result = first.run()
    assert result.interrupted and result.onnx is None and result.steps == 1500
    assert torch.is_grad_enabled()  # the interrupt left the mode it found
    assert json.loads((result.run_dir / "state.json").read_text())["steps"] == 1500
    first_evals = [e["step"] for e in result.evals]
    assert len(first_evals) == 2 and first_evals[0] == 0 and 1000 <= first_evals[1] < 1500
    monkeypatch.setattr(SelfPlay, "tick", original)
    resumed = DMCTrainer(DMCConfig.load(result.run_dir), resume=True, progress=False,
                         quiet=True)
    done = resumed.run()
    assert not done.interrupted and done.steps >= 3000
    evals = [e["step"] for e in done.evals]
    assert evals[:2] == first_evals and evals == sorted(set(evals)) and evals[2] > 1500
    assert evals[-1] == done.steps  # the final evaluation, then the export
    assert set(done.evals[-1]["results"]) == set(get_game("blind_auction").strongest)


def test_the_command_line_has_no_ppo_knobs_and_resumes_with_dmcs(tmp_path, monkeypatch,
                                                                capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stop:  # DMCConfig has no such knob: no such flag
        dmc.main(["--game", "blind_auction", "--opponents", "self@1", "--quiet"])
    assert stop.value.code == 2 and "unrecognized arguments: --opponents" in capsys.readouterr().err
    assert dmc.main(["--game", "blind_auction", "--exp-epsilon", "2", "--quiet"]) == 2
    assert not (tmp_path / "runs").exists()  # refused before anything was written
    assert dmc.main(["--game", "blind_auction", "--steps", "600", "--n-games", "4",
                     "--batch-size", "32", "--net", "8", "--train-freq", "64",
                     "--buffer-size", "512", "--eval-every", "0", "--torch-threads", "1",
                     "--name", "cli", "--quiet"]) == 0
    cfg = DMCConfig.load(tmp_path / "runs" / "cli")
    assert (cfg.n_games, cfg.train_freq, cfg.activation) == (4, 64, DMCConfig().activation)
    assert dmc.main(["--resume", "cli", "--steps", "1200", "--exp-epsilon", "0.2",
                     "--quiet"]) == 0
    cfg = DMCConfig.load(tmp_path / "runs" / "cli")
    assert cfg.steps == 1200 and cfg.exp_epsilon == 0.2 and cfg.n_games == 4


@pytest.mark.parametrize("field, value", [("exp_epsilon", -0.1), ("buffer_size", 10),
                                          ("train_freq", 0), ("max_grad_norm", 0.0),
                                          ("skip_gain", -1.0), ("skip_gain", True),
                                          ("td_lambda", 1.5), ("td_lambda", -0.1)])
def test_bad_knobs_are_refused_naming_them(field, value):
    with pytest.raises(ValueError, match=field):
        DMCConfig(game="blind_auction", **{field: value}).validate()


def test_card_policy_with_a_skip_path_is_refused():
    with pytest.raises(ValueError, match="skip_gain is the MLP's path"):
        DMCConfig(game="spades", policy="card", skip_gain=1.0).validate()


def test_skip_path_adds_each_block_onto_its_own_action():
    """Q - body = gain x (w_0 x tops_trick + w_1 x master) on the card actions, 0 on bids:
    a card's block entry moves that card's Q and no other action's."""
    from cardrl.envs.spades.actions import CARD_OFFSET
    from cardrl.envs.spades.infostate import MASTER, TOPS

    cfg = DMCConfig(game="spades", net=(8,), skip_gain=10.0).resolved()
    net = q_network(cfg, 805, 68)
    with torch.no_grad():
        net.weight[:] = torch.tensor([0.5, -0.25])
    obs = torch.zeros(3, 805)
    obs[0, TOPS + 7] = 1.0
    obs[1, MASTER + 50] = 1.0
    obs[2, TOPS + 3] = obs[2, MASTER + 3] = 1.0
    with torch.no_grad():
        extra = (net(obs) - net.body(obs)).numpy()
    want = np.zeros((3, 68), dtype=np.float32)
    want[0, CARD_OFFSET + 7], want[1, CARD_OFFSET + 50] = 5.0, -2.5
    want[2, CARD_OFFSET + 3] = 2.5
    assert np.allclose(extra, want, atol=1e-5)


def test_dmc_imports_without_stable_baselines3():
    """A fresh process that cannot import SB3 imports the DMC trainer: it and its run
    bookkeeping import no other trainer."""
    import subprocess
    import sys

    code = ("import importlib.abc, sys\n"
            "class Block(importlib.abc.MetaPathFinder):\n"
            "    def find_spec(self, name, path, target=None):\n"
            "        if name.split('.')[0] in ('stable_baselines3', 'sb3_contrib'):\n"
            "            raise ModuleNotFoundError(name)\n"
            "sys.meta_path.insert(0, Block())\n"
            "import cardrl.train.dmc, cardrl.train.runs, cardrl.train.export\n"
            "assert 'cardrl.train.ppo' not in sys.modules\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr


def test_a_dmc_gin_rummy_bot_carries_its_runs_knock_switch(tmp_path, monkeypatch):
    """Every trainer exports through one path: a DMC run with a knock head exports the
    head after its Q-network, and its card says so."""
    pytest.importorskip("onnxruntime")
    from cardrl.train.export import Switched
    from cardrl.train.plugins.gin_rummy import knock

    monkeypatch.chdir(tmp_path)
    trainer = DMCTrainer(tiny("gin_rummy", observation="features"), progress=False, quiet=True)
    torch.manual_seed(0)
    knock.KnockHead(knock.head_inputs()).save(trainer.run_dir / knock.HEAD_FILE,
                                              {"decisions": 0})
    bot = agents.load(trainer.export(tmp_path / "dmc.onnx"))
    assert bot.card["knock_head"] == {"decisions": 0} and bot.card["training"]["algo"] == "dmc"
    games = trainer.selfplay.games
    switch = knock.KnockSwitch(knock.KnockHead.load(trainer.run_dir / knock.HEAD_FILE))
    with torch.no_grad():
        want = Switched(MaskedQ(trainer.net), switch).eval()(
            torch.from_numpy(games.obs), torch.from_numpy(games.masks.astype(np.float32)))
    got = bot.session.run(None, {"observation": games.obs,
                                 "action_mask": games.masks.astype(np.float32)})[0]
    assert np.allclose(got, want.numpy(), atol=1e-4)


def test_an_old_dmc_config_with_ppos_knobs_loads_and_a_ppo_run_is_refused(tmp_path):
    from cardrl.train.config import TrainConfig

    old = {**TrainConfig().to_dict(), **DMCConfig(game="blind_auction").to_dict()}
    assert DMCConfig.from_dict(old) == DMCConfig(game="blind_auction")
    with pytest.raises(ValueError, match="not a DMC run"):
        DMCConfig.from_dict(TrainConfig().to_dict())
