"""What a Sevens play hands the next player: the points its best reply can be
expected to earn, if its hand is a random draw of the cards this seat has not
seen. The lookahead bot weighs its plays by it and the encoder shows it, so
both see the same numbers; it reads the view only.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from functools import lru_cache

import numpy as np

from cardrl.envs.sevens.engine import RANK, RED, SUIT
from cardrl.envs.sevens.scoring import points_for_totals
from cardrl.envs.sevens.view import SevensView


@lru_cache(maxsize=4096)
def _first_held_chances(pool: int, held: int) -> tuple[float, ...]:
    """``r[j]``: chance that ``j`` given cards of the pool are all outside a random hand of
    ``held`` cards and one more given card is in it: C(pool - j - 1, held - 1) / C(pool, held)."""
    total = math.comb(pool, held)
    return tuple(math.comb(pool - j - 1, held - 1) / total for j in range(pool))


_RANK, _SUIT, _RED = np.array(RANK), np.array(SUIT), np.array(RED)


def _expected(gains: np.ndarray, last_cards: np.ndarray, unseen: np.ndarray,
              held: int) -> np.ndarray:
    """``expected_best_reply`` for several rows at once: ``gains[k]`` on ``last_cards[k]``."""
    g = gains[:, _RANK[unseen]]
    last = last_cards[:, None]
    group = np.where(_RED[unseen] != _RED[last], 0, np.where(_SUIT[unseen] != _SUIT[last], 1, 2))
    order = np.lexsort((-g, group))  # each row: by group, best gain first
    chance = np.array(_first_held_chances(len(unseen), min(held, len(unseen))))
    return np.take_along_axis(g, order, axis=1) @ chance


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
    return float(_expected(np.array([gains]), np.array([last_card]), np.array(unseen), held)[0])


@lru_cache(maxsize=64)
def _value_grid(values: tuple[tuple[int, ...], ...]) -> np.ndarray:
    """(symbols, 2): each symbol's values, a one-valued symbol's repeated."""
    return np.array([(vals[0], vals[-1]) for vals in values], dtype=np.int64)


def reply_gains(totals: Sequence[int] | np.ndarray, values: tuple[tuple[int, ...], ...],
                points: tuple[int, int, int]) -> np.ndarray:
    """(totals, symbols): the most points a reply of each symbol earns on each total."""
    after = np.asarray(totals, dtype=np.int64)[:, None, None] + _value_grid(values)[None]
    return points_for_totals(after, points).max(axis=2)


def expected_replies(view: SevensView, actions: Iterable[int]) -> dict[int, float]:
    """For each card action of ``view``'s seat: the next player's expected best reply
    after it (0 when the next player holds nothing or is this seat)."""
    actions = list(actions)
    values = view.params.values
    totals = [view.total + values[RANK[a >> 1]][a & 1] for a in actions]
    replies = expected_reply_array(view, np.array(actions, dtype=np.intp), totals, view.unseen())
    return dict(zip(actions, replies.tolist(), strict=True))


def expected_reply_array(view: SevensView, actions: np.ndarray,
                         totals: Sequence[int] | np.ndarray,
                         unseen: Sequence[int]) -> np.ndarray:
    """``expected_replies`` as an array, given each action's new total and the unseen
    cards (the encoder has both at hand)."""
    nxt = (view.seat + 1) % view.num_players
    held = view.hand_sizes[nxt] if nxt != view.seat else 0
    if not held or not unseen or not len(actions):
        return np.zeros(len(actions))
    gains = reply_gains(totals, view.params.values, view.params.points)
    return _expected(gains, actions >> 1, np.asarray(unseen), held)
