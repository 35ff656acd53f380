"""Rollout labels (train.rollouts): a move's value is what the env pays the seat for the hand
it ends, averaged over redeals of the unseen cards when asked; the bot's own move has
advantage 0; and the fit moves the policy toward the better moves only as far as the KL term
lets it."""

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
    before = len(env.state_obj.results)
    env.step(action)
    total = env.rewards[agent]
    while len(env.state_obj.results) == before:
        state = env.state_obj
        current = state.current_player
        env.step(int(bots[current].act(state.view(current), state.legal_actions())))
        total += env.rewards[agent]
    return total


def hand_under_way(env, deal: int, rng) -> bool:
    """Reset to ``deal`` and make a few random moves; False if the first hand ended."""
    env.reset(seed=deal)
    for _ in range(int(rng.integers(0, 6))):
        state = env.state_obj
        if state.current_player is None or len(state.results):
            return False
        env.step(int(rng.choice(state.legal_actions())))
    return not env.state_obj.results and env.state_obj.current_player is not None


@pytest.mark.parametrize("game", ready_games())
def test_action_values_are_what_the_env_pays_for_the_hand_each_move_ends(game):
    spec = agents.strongest(game)[0]
    g = get_game(game)
    env = g.env(preset=g.presets[0], relative_score=True)
    n = len(env.possible_agents)
    bots = [agents.make(spec) for _ in range(n)]
    rng = np.random.default_rng(3)
    checked = 0
    for deal in range(3):
        if not hand_under_way(env, deal, rng):
            continue
        state = env.state_obj
        seat, legal = state.current_player, state.legal_actions()
        moves = [int(legal[0]), int(legal[-1])]
        values = rollouts.action_values(g, state, moves, bots, env.score_scale, env.win_reward)
        for a, value in zip(moves, values, strict=True):
            twin = g.env(preset=g.presets[0], relative_score=True)
            twin.reset(seed=deal)
            twin.state_obj = state.clone()
            twin.agent_selection = env.agent_selection
            assert value == pytest.approx(play_on(twin, a, bots, seat), abs=1e-9)
            checked += 1
    assert checked


def test_redealing_the_stock_changes_no_view_and_reshuffled_values_are_their_mean():
    g = get_game("gin_rummy")
    env = g.env(preset="standard", relative_score=True)
    bots = [agents.make("gin_rummy/expert") for _ in range(2)]
    assert hand_under_way(env, 5, np.random.default_rng(0))
    state = env.state_obj
    redealt = state.clone()
    g.redeal_unseen(redealt, np.random.default_rng(1))
    assert redealt.stock != state.stock and sorted(redealt.stock) == sorted(state.stock)
    for seat in range(2):
        assert redealt.view(seat) == state.view(seat)
    moves = state.legal_actions()[:3]
    mean = rollouts.action_values(g, state, moves, bots, 100.0, reshuffles=4,
                                  rng=np.random.default_rng(7))
    rng = np.random.default_rng(7)
    one_by_one = []
    for _ in range(4):
        start = state.clone()
        g.redeal_unseen(start, rng)
        one_by_one.append(rollouts.action_values(g, start, moves, bots, 100.0))
    assert mean == pytest.approx(np.mean(one_by_one, axis=0), abs=1e-12)
    with pytest.raises(ValueError, match="spades has no unseen cards"):
        s = get_game("spades")
        sp = s.new_state(s.get_rules("killer"), 0)
        rollouts.action_values(s, sp, sp.legal_actions()[:2], [agents.make("random")] * 4,
                               100.0, reshuffles=2, rng=np.random.default_rng(0))


class Ranked(agents.Bot):
    """Prefers higher action ids, the chance of each proportional to its id."""

    def probabilities(self, view, legal_actions):
        total = sum(legal_actions)
        return {a: a / total for a in legal_actions}


def test_candidates_are_the_bots_move_then_the_proposers_likeliest():
    assert rollouts.candidates(Ranked(), None, [1, 2, 3, 4, 5], 2, bot_move=1) == [1, 5, 4]
    assert rollouts.candidates(Ranked(), None, [1, 2, 3, 4, 5], 2, bot_move=4) == [4, 5]
    assert rollouts.candidates(None, None, [1, 2, 3], None, bot_move=2) == [2, 1, 3]


def test_labels_give_the_bots_move_advantage_zero_and_cover_only_the_candidates(tmp_path):
    cfg = TrainConfig(game="gin_rummy", preset="seed", name="labels")
    proposer = "checkpoints/gin_rummy-seed.onnx"
    data = rollouts._label_worker(cfg.to_dict(), "gin_rummy/expert", 40, seed=4,
                                  proposer=proposer, top_k=2, reshuffles=3, min_legal=3)
    assert len(data) == 40 and data.hands > 0
    rows = np.arange(len(data))
    assert np.all(data.advantages[rows, data.bot_actions] == 0)
    assert np.all(data.masks[rows, data.bot_actions])
    assert np.all(data.advantages[~data.masks] == 0)
    assert data.masks.sum(1).min() >= 3  # draws (two legal moves) carry no label here
    assert (data.advantages != 0).sum(1).max() <= 2  # the bot's move and two more at most
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
