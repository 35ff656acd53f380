"""Spades' play blocks compiled (numba): which own cards would top the trick, and which
no unseen card of their suit outranks.

``envs.spades.infostate.write_play`` is the definition; this kernel writes the same
blocks for the compiled core (``envs.spades.compiled``) and the information state's
AEC observer, from 64-bit masks of card ids: a suit's power rises with the card id
(checked below), so a master has no unseen card of its suit above it.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from envs import cards
from envs.spades import engine

SUIT = np.array(engine.SUIT_TABLE, np.int64)
POWER = np.array(engine.POWER_TABLE, np.int64)
SUIT_MASK = np.array([sum(1 << c for c in range(cards.NUM_CARDS) if engine.SUIT_TABLE[c] == s)
                      for s in range(4)], np.uint64)
SPADES = cards.SPADES
assert all(POWER[a] < POWER[b] for a in range(len(SUIT)) for b in range(a + 1, len(SUIT))
           if SUIT[a] == SUIT[b])


def mask(card_ids) -> int:
    """The 64-bit mask of some card ids."""
    m = 0
    for c in card_ids:
        m |= 1 << c
    return m


@njit(cache=True)
def write_play(row, tops_at, master_at, hand, unseen, best):
    """For each card of ``hand``: ``row[tops_at + card]`` := 1 where it would take over
    from ``best`` (the card winning the trick; -1 on a lead: every card), and
    ``row[master_at + card]`` := 1 where no card of ``unseen`` of its suit outranks it."""
    hand, unseen = np.uint64(hand), np.uint64(unseen)
    m = hand
    while m:
        c = trailing_zeros(m)
        m &= m - np.uint64(1)
        if best < 0 or (POWER[c] > POWER[best] if SUIT[c] == SUIT[best]
                        else SUIT[c] == SPADES):
            row[tops_at + c] = 1.0
        if not (unseen & SUIT_MASK[SUIT[c]]) >> np.uint64(c + 1):
            row[master_at + c] = 1.0
