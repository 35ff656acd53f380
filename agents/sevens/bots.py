"""Sevens rule bots (registered as ``sevens/...``): greedy and one-ply lookahead.

Both read only their view (parameters, total, last card, own hand, what was
played, hand sizes), so they play the same in-process or behind a pipe.

* ``sevens/greedy``: the play that earns the most points now; ties at random.
* ``sevens/lookahead``: points now minus ``weight`` x the points the next
  player can expect to earn from the total and last card this play leaves,
  if its hand is a random draw of the cards this seat has not seen (exact
  expectation, see ``expected_best_reply``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

from agents.base import Bot
from agents.registry import register
from envs.sevens.engine import RANK, RED, SUIT
from envs.sevens.scoring import points_for_total
from envs.sevens.view import SevensView


def play_value(view: SevensView, action: int) -> int:
    """The value a card action adds to the total."""
    return view.params.values[RANK[action >> 1]][action & 1]


def immediate_points(view: SevensView, action: int) -> int:
    return points_for_total(view.total + play_value(view, action), view.params.points)


class GreedyBot(Bot):
    """The play that scores the most points now (ties broken by the bot's generator)."""

    game = "sevens"

    def act(self, view: SevensView, legal_actions: Sequence[int]) -> int:
        scored = [(immediate_points(view, a), a) for a in legal_actions]
        top = max(p for p, _ in scored)
        best = [a for p, a in scored if p == top]
        return int(best[int(self.rng.integers(len(best)))]) if len(best) > 1 else int(best[0])


@lru_cache(maxsize=4096)
def _first_held_chances(pool: int, held: int) -> tuple[float, ...]:
    """``r[j]``: chance that ``j`` given cards of the pool are all outside a random hand of
    ``held`` cards and one more given card is in it: C(pool - j - 1, held - 1) / C(pool, held)."""
    total = math.comb(pool, held)
    return tuple(math.comb(pool - j - 1, held - 1) / total for j in range(pool))


def expected_best_reply(gains: Sequence[int], unseen: Sequence[int], held: int,
                        last_card: int) -> float:
    """Expected points of the best legal reply of a player holding ``held`` random cards of
    ``unseen``, on ``last_card``, where card u would earn ``gains[RANK[u]]``.

    The reply must be of the other colour if the hand has one, else of another
    suit if it has one, else any: so the best reply is the best held card of
    the first non-empty group. Sorting each group from best down, the j-th card
    of the order (other colour, then same colour other suit, then same suit) is
    the best legal one exactly when the j cards before it are not held and it is.
    """
    if held <= 0 or not unseen:
        return 0.0
    red, suit = RED[last_card], SUIT[last_card]
    groups: tuple[list[int], list[int], list[int]] = ([], [], [])
    for u in unseen:
        groups[0 if RED[u] != red else 1 if SUIT[u] != suit else 2].append(gains[RANK[u]])
    chance = _first_held_chances(len(unseen), min(held, len(unseen)))
    expected, j = 0.0, 0
    for group in groups:
        for g in sorted(group, reverse=True):
            expected += g * chance[j]
            j += 1
    return expected


class LookaheadBot(Bot):
    """Points now minus ``weight`` x the next player's expected best reply."""

    game = "sevens"

    def __init__(self, seed: int | None = None, weight: float = 1.0) -> None:
        super().__init__(seed)
        if not isinstance(weight, int | float) or isinstance(weight, bool):
            raise ValueError(f"weight must be a number, got {weight!r}")
        self.weight = float(weight)

    def act(self, view: SevensView, legal_actions: Sequence[int]) -> int:
        nxt = (view.seat + 1) % view.num_players
        held = view.hand_sizes[nxt] if nxt != view.seat else 0
        unseen = view.unseen() if held else []
        values, points = view.params.values, view.params.points
        gains_at: dict[int, list[int]] = {}
        best, best_score = None, -math.inf
        for a in legal_actions:
            total = view.total + values[RANK[a >> 1]][a & 1]
            score = points_for_total(total, points)
            if held:
                gains = gains_at.get(total)
                if gains is None:
                    gains = gains_at[total] = [max(points_for_total(total + v, points)
                                                   for v in vals) for vals in values]
                score -= self.weight * expected_best_reply(gains, unseen, held, a >> 1)
            if score > best_score + 1e-9:
                best, best_score = a, score
        return int(best)


register("sevens/greedy", GreedyBot, "most points now, ties at random")
register("sevens/lookahead", LookaheadBot,
         "points now minus weight (default 1) x the next player's expected best reply")
