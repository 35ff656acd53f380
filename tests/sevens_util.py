"""Shared helpers for the Sevens tests: an independent legal-set oracle, deals, random play."""

from __future__ import annotations

import numpy as np

from cardrl.envs import cards
from cardrl.envs.sevens.rules import SevensRules

# Every symbol has two values here, so every card has two actions.
TWO_VALUES = tuple((r + 2, -(r + 2)) for r in range(13))


def colour(name: str) -> str:
    return "red" if name[-1] in "DH" else "black"


def oracle_legal(view) -> list[int]:
    """Legal actions from card names and docs/rules.md wording, not the engine's tables."""
    hand = cards.names(view.hand)
    last = cards.name(view.last_card)
    other_colour = [c for c in hand if colour(c) != colour(last)]
    other_suit = [c for c in hand if c[-1] != last[-1]]
    allowed = other_colour or other_suit or hand
    out = []
    for name in allowed:
        symbol = cards.RANKS.index(name[:-1])
        out.append(2 * cards.parse(name))
        if len(view.params.values[symbol]) == 2:
            out.append(2 * cards.parse(name) + 1)
    return sorted(out)


def fixed_rules(n: int = 3, values=None, points=(5, 3, 20), **kw) -> SevensRules:
    """Rules with fixed parameters (face values 2..A = 2..14 by default)."""
    values = values if values is not None else tuple((r + 2,) for r in range(13))
    return SevensRules(num_players=n, values=values, points=points, **kw)


def random_deal(n: int, rng: np.random.Generator) -> list[list[str]]:
    """n hands of floor(51/n) cards and the table cards, as names."""
    k = 51 // n
    deck = cards.names(cards.shuffled(cards.STANDARD_DECK, rng))
    return [deck[i * k:(i + 1) * k] for i in range(n)] + [deck[n * k:]]


def play_random(state, rng: np.random.Generator, stop_after: int | None = None) -> list[int]:
    """Random legal actions until the game ends (or ``stop_after`` plays); the actions."""
    actions = []
    while not state.is_over and (stop_after is None or len(actions) < stop_after):
        legal = state.legal_actions()
        a = legal[int(rng.integers(len(legal)))]
        state.apply(a)
        actions.append(a)
    return actions
