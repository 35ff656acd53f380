"""The env contract an RL user relies on, with every default as a newcomer gets it: every
registered id's episodes end under a random player (truncated at the hand cap where the
rules would go on), a draw pays nobody, and the rewards sum to zero over the seats."""

from __future__ import annotations

import itertools

import gymnasium
import numpy as np
import pettingzoo
import pytest

import cardrl  # noqa: F401 - registers the ids
from cardrl.envs.games import GAMES, get_game
from cardrl.envs.registry import env_id, gym_id
from cardrl.envs.rewards import MAX_EPISODE_HANDS, Payout, win_bonus

SEEDS = range(3)


def random_aec_episode(env, seed: int) -> dict:
    """One episode of a random legal player at every seat: its steps, hands, per-seat reward
    sums, the largest sum of one step's rewards over the seats, and how it ended."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    steps, worst, ends = 0, 0.0, set()
    for _ in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            ends.add("truncated" if truncated else "terminated")
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
        worst = max(worst, abs(sum(env.rewards.values())))
        for a, r in env.rewards.items():
            totals[a] += r
    return {"steps": steps, "hands": len(env.unwrapped.state_obj.results), "totals": totals,
            "worst": worst, "ends": ends, "over": env.unwrapped.state_obj.is_over}


@pytest.mark.parametrize("game", GAMES)
def test_every_aec_episode_ends_by_the_hand_cap_and_pays_zero_sum(game):
    env = pettingzoo.make("aec", env_id(game))  # every default, as a newcomer makes it
    for seed in SEEDS:
        ep = random_aec_episode(env, seed)
        assert ep["hands"] <= MAX_EPISODE_HANDS
        if ep["over"]:
            assert ep["ends"] == {"terminated"}
        else:  # the rules would go on: cut at the cap, nobody called the winner
            assert ep["ends"] == {"truncated"} and ep["hands"] == MAX_EPISODE_HANDS
        assert ep["worst"] < 1e-4  # each step's rewards sum to zero over the seats
        assert abs(sum(ep["totals"].values())) < 1e-3


def test_killer_spades_under_random_play_is_truncated_not_won():
    """The flagship's default game never reaches its target under random bids."""
    env = pettingzoo.make("aec", env_id("spades"))
    ep = random_aec_episode(env, 0)
    assert ep["ends"] == {"truncated"} and ep["hands"] == MAX_EPISODE_HANDS
    assert not ep["over"] and env.unwrapped.state_obj.winners in ((), None, [])
    uncapped = pettingzoo.make("aec", env_id("spades"), max_episode_hands=3)
    assert random_aec_episode(uncapped, 0)["hands"] == 3
    with pytest.raises(ValueError, match="max_episode_hands must be None or an int >= 1, got 0"):
        pettingzoo.make("aec", env_id("spades"), max_episode_hands=0)


@pytest.mark.parametrize("game", [g for g in GAMES if get_game(g).parallel])
def test_every_parallel_episode_ends(game):
    env = pettingzoo.make("parallel", env_id(game))
    for seed in SEEDS:
        obs, infos = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(10_000):
            if not env.agents:
                break
            actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"])))
                       for a in env.agents}
            obs, rewards, terms, truncs, infos = env.step(actions)
            assert abs(sum(rewards.values())) < 1e-4
        assert not env.agents


@pytest.mark.parametrize("game", GAMES)
def test_every_gymnasium_episode_ends(game):
    env = gymnasium.make(gym_id(game))  # the strongest rule bots at the other seats
    for seed in SEEDS[:2]:
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(20_000):
            obs, reward, terminated, truncated, info = env.step(
                int(rng.choice(np.flatnonzero(info["action_mask"]))))
            if terminated or truncated:
                break
        assert terminated or truncated


def test_a_drawn_gin_hand_pays_nobody():
    """Most hands between random players die with the stock: a draw, worth 0 to both
    (it used to pay each tied leader half the win bonus)."""
    env = pettingzoo.make("aec", env_id("gin_rummy"), preset="standard", episode="hand")
    drawn = 0
    for seed in range(20):
        ep = random_aec_episode(env, seed)
        result = env.unwrapped.state_obj.results[-1]
        if all(p == 0 for p in result.points):
            drawn += 1
            assert ep["totals"] == dict.fromkeys(env.possible_agents, 0.0)
    assert drawn >= 10


@pytest.mark.parametrize("n", range(2, 10))
def test_the_win_bonus_sums_to_zero_for_any_number_of_seats(n):
    for won in range(1, n + 1):
        for winners in itertools.combinations(range(n), won):
            bonus = [win_bonus(s, winners, n, 1.0) for s in range(n)]
            assert abs(sum(bonus)) < 1e-12
            if won == n:
                assert bonus == [0.0] * n  # a draw
            else:
                assert all(b > 0 for s, b in enumerate(bonus) if s in winners)
                assert all(b < 0 for s, b in enumerate(bonus) if s not in winners)
    assert [win_bonus(s, (0,), 2, 1.0) for s in range(2)] == [1.0, -1.0]  # as it always was


@pytest.mark.parametrize("n", range(2, 10))
def test_sevens_pays_zero_sum_at_every_player_count(n):
    env = pettingzoo.make("aec", env_id("sevens"), num_players=n)
    for seed in SEEDS:
        ep = random_aec_episode(env, seed)
        assert ep["ends"] == {"terminated"} and ep["worst"] < 1e-4


def test_raw_points_stay_an_option():
    payout = Payout.checked(100.0, relative_score=False)
    assert payout.hand((30, -10, 0, 0)) == [0.3, -0.1, 0.0, 0.0]
    zero_sum = Payout.checked(100.0).hand((30, -10, 0, 0))  # each less the others' mean
    assert zero_sum == pytest.approx([(30 + 10 / 3) / 100, (-10 - 10) / 100,
                                      (0 - 20 / 3) / 100, (0 - 20 / 3) / 100])
    assert abs(sum(zero_sum)) < 1e-12


def test_openspiel_games_end_within_their_declared_length():
    """``random_sim_test`` on every game: Blind Auction and Sevens with their defaults, the
    games of many hands with a short cap (their defaults, 100 hands, take about half a
    minute each on this machine: docs/results.md)."""
    pyspiel = pytest.importorskip("pyspiel")
    from cardrl.agents import openspiel

    for game in GAMES:
        params = {"max_hands": 2} if "max_hands" in openspiel.parameter_specification(
            get_game(game)) else {}
        loaded = pyspiel.load_game(openspiel.short_name(game), params)
        assert loaded.max_game_length() == openspiel.MAX_GAME_LENGTH
        pyspiel.random_sim_test(loaded, num_sims=2, serialize=False, verbose=False)
    spec = openspiel.parameter_specification(get_game("spades"))
    assert spec["max_hands"] == MAX_EPISODE_HANDS  # the default ends where the env's does
