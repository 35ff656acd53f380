"""Checks every game's env tests share: random episodes, reward totals, illegal actions,
and the examples (game, preset, rule changes) the tests of every game run on.

Each check takes a built env, so a game's test says only what is particular to it
(its presets, its oracle, its expected numbers).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from cardrl.envs.games import game_names, get_game
from cardrl.envs.rules_base import editable_fields

# rule changes each game is also tested with, beyond its presets and player counts
# (``examples``); a game without an entry is tested on what it declares
# the information states with per-action blocks (each play's points in Sevens, whether a
# card tops the trick or is a master in Spades, each discard's deadwood in Gin Rummy);
# every features kind but Blind Auction's has them too
INFOSTATE_ACTION_BLOCKS = {("sevens", "infostate"), ("spades", "infostate"),
                           ("gin_rummy", "infostate")}
EXTRA_EXAMPLES = {
    "spades": [("cutthroat", {"jokers": True})],
    "gin_rummy": [("seed", {"num_players": 3})],
    "blind_auction": [("3p", {"tie_rule": "carry"}),
                      ("2p", {"tie_rule": "split", "cards_per_suit": 5})],
}

# a fresh engine state's deal, in the format ``game.state(rules, seed, deal=...)`` takes: for
# the tests that replay given deals (a game without an entry is tested on dealt games only)
DEAL_OF = {
    "spades": lambda state: [list(hand) for hand in state.hands],
    "blind_auction": lambda state: list(state.prizes),
    # the hands only: the engine shuffles the rest from the seed (the generator goes on)
    "gin_rummy": lambda state: [list(hand) for hand in state.hands],
    # the hands and the table cards in deal order
    "sevens": lambda state: [list(hand) for hand in state.hands] + [list(state.table)],
}


def examples(player_counts: bool = True, extra: bool = True) -> list[tuple[str, str, dict]]:
    """(game, preset, rule changes) for every declared game, read from the declarations,
    so a new game cannot be left out: each preset as it is; with ``player_counts`` the
    first preset at the fewest and the most players its editable ``num_players``
    allows (counts a preset's rules refuse are skipped); with ``extra`` the game's
    ``EXTRA_EXAMPLES``. Games with a hand cap play at most two hands."""
    out = []
    for name in game_names():
        game = get_game(name)
        first = game.get_rules(game.presets[0])
        short = {"max_hands": 2} if "max_hands" in editable_fields(first) else {}
        cases = [(preset, {}) for preset in game.presets]
        players = editable_fields(first).get("num_players")
        if player_counts and players is not None:
            cases += [(game.presets[0], {"num_players": n}) for n in (players.low, players.high)
                      if n != first.num_players]
        cases += EXTRA_EXAMPLES.get(name, []) if extra else []
        for preset, changes in cases:
            try:
                game.get_rules(preset, **changes, **short)
            except ValueError:
                continue  # e.g. a player count this preset does not allow
            out.append((name, preset, {**changes, **short}))
    return out


def example_id(game: str, preset: str, changes: dict) -> str:
    return "-".join([game, preset, *(f"{k}={v}" for k, v in changes.items())])


def random_moves(state, seed: int, moves: int):
    """``state`` after up to ``moves`` random legal moves (fewer if the game ends)."""
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if state.is_over:
            break
        state.apply(int(rng.choice(state.legal_actions())))
    return state


def decision_points(game: str, count: int, seed: int = 0, preset: str | None = None,
                    **rule_changes) -> list[tuple]:
    """``count`` (view, legal) pairs from random play of seeded games, every seat: what a
    bot is asked, for checking a network's answers on many positions."""
    g = get_game(game)
    rules = g.get_rules(preset or g.presets[0], **rule_changes)
    rng = np.random.default_rng(seed)
    points = []
    while len(points) < count:
        state = g.new_state(rules, int(rng.integers(2**31)))
        while not state.is_over and len(points) < count:
            seat, legal = state.current_player, state.legal_actions()
            points.append((state.view(seat), legal))
            state.apply(int(rng.choice(legal)))
    return points


def random_episode(e, seed: int, check: Callable | None = None) -> None:
    """Play one episode with random legal actions from the mask; ``check(env, agent, obs)``
    runs before each live agent's step."""
    rng = np.random.default_rng(seed)
    e.reset(seed=seed)
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        if check:
            check(e, agent, obs)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def episode_with_penalties(e, rng: np.random.Generator, check: Callable,
                           illegal_rate: float = 0.02) -> int:
    """Reset ``e`` (an env with ``illegal_action="penalty"``) from ``rng`` and play one episode,
    ``check(env)`` before every ``last()`` (dead steps included); an illegal action now and
    then, which the env penalises and replaces. The number of checks."""
    e.reset(seed=int(rng.integers(2**31)))
    checked = 0
    for _agent in e.agent_iter():
        check(e)
        checked += 1
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        if rng.random() < illegal_rate:
            e.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
        else:
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return checked


def reward_totals(e, choose: Callable) -> dict[str, float]:
    """Each agent's rewards summed over the rest of the episode (``e`` is reset), the live
    agent's action being ``choose(env)``."""
    totals = {a: 0.0 for a in e.possible_agents}
    for agent in e.agent_iter():
        _, reward, term, trunc, _ = e.last()
        totals[agent] += reward
        e.step(None if term or trunc else choose(e))
    return totals


def check_illegal_action_refused(e, action: int) -> str:
    """``step(action)`` (illegal for the agent to act) raises an error naming the agent,
    the action and the legal set, and changes nothing anyone observes; its message."""
    agent = e.agent_selection
    before = {a: e.observe(a)["observation"].copy() for a in e.agents}
    legal = np.flatnonzero(e.observe(agent)["action_mask"]).tolist()
    assert action not in legal
    cumulative = dict(e.unwrapped._cumulative_rewards)
    with pytest.raises(ValueError, match=f"illegal action {action} by {agent}") as err:
        e.step(action)
    assert str(legal) in str(err.value)
    assert e.agent_selection == agent
    assert dict(e.unwrapped._cumulative_rewards) == cumulative
    for a in e.agents:
        assert np.array_equal(e.observe(a)["observation"], before[a])
    return str(err.value)
