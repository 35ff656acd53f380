"""What a Sevens play hands the next player: the points its best reply can be
expected to earn, if its hand is a random draw of the cards this seat has not
seen. The lookahead bot weighs its plays by it and the encoder shows it, so
both see the same numbers; it reads the view only.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from functools import lru_cache

from envs.sevens.engine import RANK, RED, SUIT
from envs.sevens.scoring import points_for_total
from envs.sevens.view import SevensView


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


def expected_replies(view: SevensView, actions: Iterable[int]) -> dict[int, float]:
    """For each card action of ``view``'s seat: the next player's expected best reply
    after it (0 when the next player holds nothing or is this seat)."""
    actions = list(actions)
    nxt = (view.seat + 1) % view.num_players
    held = view.hand_sizes[nxt] if nxt != view.seat else 0
    if not held:
        return dict.fromkeys(actions, 0.0)
    unseen = view.unseen()
    values, points = view.params.values, view.params.points
    gains_at: dict[int, list[int]] = {}
    by_total_and_suit: dict[tuple[int, int], float] = {}  # the reply depends on no more
    replies = {}
    for a in actions:
        card = a >> 1
        total = view.total + values[RANK[card]][a & 1]
        key = (total, SUIT[card])
        if key not in by_total_and_suit:
            gains = gains_at.get(total)
            if gains is None:
                gains = gains_at[total] = [max(points_for_total(total + v, points)
                                               for v in vals) for vals in values]
            by_total_and_suit[key] = expected_best_reply(gains, unseen, held, card)
        replies[a] = by_total_and_suit[key]
    return replies
