"""The batched API gives exactly what the PettingZoo env gives on the same seeds."""

from __future__ import annotations

import numpy as np
import pytest

from cardrl.envs import cards
from cardrl.envs.batched import BatchedGames
from cardrl.envs.encoding import KINDS
from cardrl.envs.games import get_game
from tests.env_checks import examples

CONFIGS = examples(player_counts=False, extra=False)  # every declared game and preset


@pytest.mark.parametrize("episode", ["game", "hand"])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("game", "preset", "changes"), CONFIGS,
                         ids=[f"{g}-{p}" for g, p, _ in CONFIGS])
def test_batched_games_equal_the_aec_env_on_the_same_seeds(game, preset, changes, kind,
                                                           episode):
    """Observations, masks, the seat to act, every seat's rewards and episode ends, over
    several episodes per game (auto-reset with each game's next seed)."""
    n, seed = 3, 40
    options = dict(observation=kind, episode=episode, relative_score=episode == "hand",
                   **changes)
    games = BatchedGames(game, n, preset=preset, **options)
    envs = [get_game(game).env(preset=preset, **options) for _ in range(n)]
    episodes = [0] * n
    for i, e in enumerate(envs):
        e.reset(seed=seed + i)
    batch = games.reset(seed=seed)
    rng = np.random.default_rng(1)
    ticks = 0
    while min(episodes) < 2 and ticks < 3000:
        for i, e in enumerate(envs):
            agent = e.agent_selection
            obs = e.last()[0]
            assert batch.seats[i] == e.possible_agents.index(agent)
            assert np.array_equal(batch.obs[i], obs["observation"])
            assert np.array_equal(batch.masks[i], obs["action_mask"].astype(bool))
            assert games.episode_seeds[i] == seed + i + episodes[i] * n
        actions = [int(rng.choice(np.flatnonzero(m))) for m in batch.masks]
        batch = games.step(actions)
        for i, e in enumerate(envs):
            e.step(actions[i])
            assert np.allclose(batch.rewards[i], [e.rewards[a] for a in e.possible_agents])
            ended = all(e.terminations.values())
            assert batch.dones[i] == ended
            if ended:
                episodes[i] += 1
                e.reset(seed=seed + i + episodes[i] * n)
        ticks += 1
    assert min(episodes) >= 2, "each game should have finished two episodes"


def test_given_deals_replay_and_a_game_can_wait_for_its_restart():
    order = ["AD", "KD", "QD", "JD", "10D", "9D", "8D", "7D", "6D", "5D", "4D", "3D", "2D"]
    games = BatchedGames("blind_auction", 2, auto_reset=False)
    batch = games.reset(seed=3, deals=[order, None])
    assert games.states[0].prizes == cards.parse_many(order)
    assert games.states[1].prizes != cards.parse_many(order)
    steps = 0
    while any(games.live):
        batch = games.step([int(np.flatnonzero(m)[-1]) if m.any() else 0 for m in batch.masks])
        steps += 1
    assert steps == 26 and (batch.seats == -1).all() and not batch.masks.any()
    games.restart(1, 99)
    assert games.live == [False, True] and games.seats[1] == 0


def test_illegal_actions_raise_naming_them_and_change_nothing_or_are_penalised():
    games = BatchedGames("spades", 2)
    batch = games.reset(seed=5)
    before = [s.view(0) for s in games.states]
    bad = [int(np.flatnonzero(batch.masks[0])[0]), 67 if not batch.masks[1, 67] else 66]
    with pytest.raises(ValueError, match="game 1"):
        games.step(bad)
    assert [s.view(0) for s in games.states] == before
    with pytest.raises(ValueError, match="True"):
        games.step([True, True])
    with pytest.raises(ValueError, match="2 actions"):
        games.step([0])
    fine = BatchedGames("spades", 2, illegal_action="penalty", illegal_penalty=-0.25)
    fine.reset(seed=5)
    out = fine.step(bad)
    assert out.rewards[1, batch.seats[1]] == -0.25 and out.rewards[1].sum() == -0.25
    assert not out.rewards[0].any()
    with pytest.raises(ValueError, match="num_games"):
        BatchedGames("spades", 0)
    with pytest.raises(ValueError, match="observation"):
        BatchedGames("spades", 2, observation="nope")
