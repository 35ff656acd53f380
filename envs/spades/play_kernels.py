"""Spades' play blocks compiled (numba): which own cards would top the trick, and which
no unseen card of their suit outranks.

``cardrl.envs.spades.infostate.write_play`` is the definition; this kernel writes the same
blocks for the compiled core (``cardrl.envs.spades.compiled``) and the information state's
AEC observer, read from the row's own blocks (they are functions of them), through
64-bit masks of card ids: a suit's power rises with the card id (checked below), so a
master has no unseen card of its suit above it.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from cardrl.envs import cards
from cardrl.envs.spades import engine
from cardrl.envs.spades.play_layout import PLAY_BLOCKS as AT

SUIT = np.array(engine.SUIT_TABLE, np.int64)
POWER = np.array(engine.POWER_TABLE, np.int64)
SUIT_MASK = np.array([sum(1 << c for c in range(cards.NUM_CARDS) if engine.SUIT_TABLE[c] == s)
                      for s in range(4)], np.uint64)
SPADES = cards.SPADES
NUM_CARDS = cards.NUM_CARDS
STANDARD = np.uint64(sum(1 << c for c in cards.make_deck(False)))
JOKER_DECK = np.uint64(sum(1 << c for c in cards.make_deck(True)))
HAND, PLAYED, TRICK, LEADER, RULES, TOPS, MASTER = range(len(AT))
JOKERS = RULES  # the jokers flag is the rules block's third entry: ``at`` points at it
assert all(POWER[a] < POWER[b] for a in range(len(SUIT)) for b in range(a + 1, len(SUIT))
           if SUIT[a] == SUIT[b])


@njit(cache=True)
def write_play(row, at):
    """Write ``tops_trick`` and ``master`` into an information-state ``row`` from its own
    blocks, whose offsets ``at`` holds (``AT`` order): the hand, every card played by
    seat, the trick on the table by seat and its leader, and the jokers flag. A card tops
    the trick where it would take over from the card winning it (every card on a lead);
    it is a master where no card of its suit outside the hand and the cards played
    outranks it."""
    hand = np.uint64(0)
    seen = np.uint64(0)
    for c in range(NUM_CARDS):
        if row[at[HAND] + c] > 0.0:
            hand |= np.uint64(1) << np.uint64(c)
        for s in range(4):
            if row[at[PLAYED] + s * NUM_CARDS + c] > 0.0:
                seen |= np.uint64(1) << np.uint64(c)
    deck = STANDARD
    if row[at[JOKERS]] > 0.0:
        deck = JOKER_DECK
    unseen = deck & ~(hand | seen)
    lead = 0
    for s in range(4):
        if row[at[LEADER] + s] > 0.0:
            lead = s
    best = -1
    for c in range(NUM_CARDS):
        if row[at[TRICK] + lead * NUM_CARDS + c] > 0.0:
            best = c
    if best >= 0:
        for s in range(4):
            for c in range(NUM_CARDS):
                if s != lead and row[at[TRICK] + s * NUM_CARDS + c] > 0.0 and (
                        POWER[c] > POWER[best] if SUIT[c] == SUIT[best] else SUIT[c] == SPADES):
                    best = c
    m = hand
    while m:
        c = trailing_zeros(m)
        m &= m - np.uint64(1)
        if best < 0 or (POWER[c] > POWER[best] if SUIT[c] == SUIT[best]
                        else SUIT[c] == SPADES):
            row[at[TOPS] + c] = 1.0
        if not (unseen & SUIT_MASK[SUIT[c]]) >> np.uint64(c + 1):
            row[at[MASTER] + c] = 1.0
