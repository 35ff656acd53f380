"""Rollout labels (train.rollouts): a move's value is the hand reward the env pays for it,
the bot's own move has advantage 0, and the fit moves the policy toward the better moves
only as far as the KL term lets it."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from envs.games import get_game
from train import rollouts
from train.config import TrainConfig
from train.games import ready_games
from train.trainer import make_vec_env, new_model


def play_on(env, action: int, bots: list, seat: int) -> float:
    """Step ``action`` then let the bots finish the hand; the seat's reward as the env pays it."""
    agent = env.possible_agents[seat]
    total = 0.0
    env.step(action)
    total += env.rewards[agent]
    while not env.terminations[agent]:
        state = env.state_obj
        current = state.current_player
        env.step(int(bots[current].act(state.view(current), state.legal_actions())))
        total += env.rewards[agent]
    return total


@pytest.mark.parametrize("game", ready_games())
def test_action_values_are_what_the_env_pays_for_each_move(game):
    spec = agents.strongest(game)[0]
    g = get_game(game)
    env = g.env(preset=g.presets[0], episode="hand")
    n = len(env.possible_agents)
    bots = [agents.make(spec) for _ in range(n)]
    rng = np.random.default_rng(3)
    checked = 0
    for deal in range(3):
        env.reset(seed=deal)
        for _ in range(int(rng.integers(0, 6))):  # a few moves in, so the hand is under way
            state = env.state_obj
            if state.current_player is None or len(state.results):
                break
            env.step(int(rng.choice(state.legal_actions())))
        if env.terminations[env.possible_agents[0]]:
            continue
        seat = env.state_obj.current_player
        values = rollouts.action_values(env, bots)
        assert sorted(values) == sorted(env.state_obj.legal_actions())
        moves = [int(env.state_obj.legal_actions()[0]), int(env.state_obj.legal_actions()[-1])]
        for a in moves:
            twin = g.env(preset=g.presets[0], episode="hand")
            twin.reset(seed=deal)
            twin.state_obj = env.state_obj.clone()
            twin.agent_selection = env.agent_selection
            twin._hands_scored = len(env.state_obj.results)
            assert values[a] == pytest.approx(play_on(twin, a, bots, seat), abs=1e-9)
            checked += 1
    assert checked


def test_labels_give_the_bots_move_advantage_zero_and_cover_only_legal_moves():
    cfg = TrainConfig(game="gin_rummy", preset="seed", name="labels")
    data = rollouts._label_worker(cfg.to_dict(), "gin_rummy/expert", 60, seed=4)
    assert len(data) >= 60 and data.hands > 0
    rows = np.arange(len(data))
    assert np.all(data.advantages[rows, data.bot_actions] == 0)
    assert np.all(data.masks[rows, data.bot_actions])
    assert np.all(data.advantages[~data.masks] == 0)
    assert data.masks.sum(1).min() >= 2  # forced moves carry no label
    assert np.any(data.advantages != 0)  # some other move did better or worse on the deal


def synthetic(n: int, obs_size: int, num_actions: int, rng) -> rollouts.Labels:
    """Two legal moves, 0 and 1; the bot plays 0; move 1 is better by 1 when obs[0] > 0.5
    and worse by 1 otherwise."""
    obs = rng.random((n, obs_size)).astype(np.float32)
    masks = np.zeros((n, num_actions), bool)
    masks[:, :2] = True
    adv = np.zeros((n, num_actions), np.float32)
    adv[:, 1] = np.where(obs[:, 0] > 0.5, 1.0, -1.0)
    return rollouts.Labels(obs, masks, adv, np.zeros(n, np.int64), 0)


@pytest.mark.parametrize("beta, moves", [(0.01, True), (1e4, False)])
def test_fit_takes_the_better_move_unless_the_kl_holds_it(beta, moves, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cfg = TrainConfig(game="blind_auction", preset="2p", net=(32,), n_envs=1, name="fit",
                      action_head=False).resolved()
    model = new_model(cfg, make_vec_env(cfg, seed=0))
    space = model.observation_space.shape[0]
    data = synthetic(4000, space, int(model.action_space.n), np.random.default_rng(0))
    before = rollouts.fit(model.policy, data, epochs=0, beta=beta)
    after = rollouts.fit(model.policy, data, epochs=30, beta=beta, lr=3e-3)
    assert before["epoch"] == 0 and after["epoch"] == 30
    if moves:  # the greedy move follows obs[0]: about half the held-out decisions gain 1
        assert after["gain"] > before["gain"] + 0.3 and after["gain"] > 0.3
    else:
        assert after["gain"] == pytest.approx(before["gain"], abs=0.1)
    assert after["oracle"] == pytest.approx(float((data.obs[:, 0] > 0.5).mean()), abs=0.1)


@pytest.mark.parametrize("argv, message", [
    (["missing-run", "--bot", "spades/expert"], "missing-run"),
])
def test_command_line_refuses_bad_input(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert rollouts.main(argv) == 2
    assert message in capsys.readouterr().err


def test_command_line_refuses_a_bot_of_another_game(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    TrainConfig(game="gin_rummy", preset="seed", name="g").save(tmp_path / "runs" / "g")
    assert rollouts.main(["g", "--bot", "spades/expert"]) == 2
    assert "bot 'spades/expert' plays spades, not gin_rummy" in capsys.readouterr().err
