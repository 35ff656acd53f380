"""Gin Rummy's meld search compiled (numba): the least deadwood of a hand mask, what
each discard or the pile's top card would leave, and the one-draw look-ahead.

``cardrl.envs.gin_rummy.melds``' search without its memo (the same 16-bits-per-suit masks),
shared by the compiled core (``cardrl.envs.gin_rummy.compiled``) and the information state's
observer, whose decision blocks it writes at every step.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardrl.envs.compiled import low_bit
from cardrl.envs.gin_rummy import melds

_FIELD = np.int64((1 << 13) - 1)
ALL_CARDS = np.int64(melds.ALL_CARDS)  # every card's bit
_REPLICATE = np.int64(melds._REPLICATE)
CARD_BIT = np.array(melds.CARD_BIT, dtype=np.int64)  # card id -> its bit in a hand mask
INDEX_CARD = np.array(melds._INDEX_CARD, dtype=np.int64)
INDEX_VALUE = np.array(melds._INDEX_VALUE, dtype=np.int64)
RANK_MASK = np.array(melds._RANK_MASK[:13] + (0, 0, 0), dtype=np.int64)  # ranks 13..15: no card


@njit(inline="always")
def count_bits(x):
    k = 0
    while x:
        x &= x - 1
        k += 1
    return k


@njit(cache=True)
def meldable(m):
    """``melds.meldable``: the cards of ``m`` in at least one meld within ``m``."""
    r = m & (m >> 1) & (m >> 2)
    runs = r | (r << 1) | (r << 2)
    a, b = m & _FIELD, (m >> 16) & _FIELD
    c, d = (m >> 32) & _FIELD, m >> 48
    three = (a & b & (c | d)) | (c & d & (a | b))
    return runs | (m & (three * _REPLICATE))


@njit(cache=True)
def hand_value(m):
    total = 0
    while m:
        i = low_bit(m)
        total += INDEX_VALUE[i]
        m &= m - 1
    return total


@njit(cache=True)
def melded(h):
    """``melds._melded``: the most value disjoint melds within ``h`` can hold."""
    if h == 0:
        return 0
    m = meldable(h)
    if m != h:
        return melded(m)
    x = h & -h
    i = low_bit(x)
    best = melded(h ^ x)  # the lowest card is deadwood ...
    v = INDEX_VALUE[i]
    if (h >> (i + 1)) & 3 == 3:  # ... or starts a run ...
        run = x | (x << 1) | (x << 2)
        value = v + INDEX_VALUE[i + 1] + INDEX_VALUE[i + 2]
        j = i + 2
        while True:
            got = value + melded(h ^ run)
            if got > best:
                best = got
            j += 1
            if not (h >> j) & 1:
                break
            run |= np.int64(1) << j
            value += INDEX_VALUE[j]
    same = h & RANK_MASK[i & 15]  # ... or is in a set of its rank
    k = count_bits(same)
    if k >= 3:
        got = k * v + melded(h ^ same)
        if got > best:
            best = got
        if k == 4:
            rest = same ^ x
            while rest:
                y = rest & -rest
                rest ^= y
                got = 3 * v + melded(h ^ same ^ y)
                if got > best:
                    best = got
    return best


@njit(cache=True)
def deadwood(m):
    """``melds.deadwood``: the least deadwood of a hand."""
    return hand_value(m) - melded(meldable(m))


@njit(cache=True)
def knock_cards(m, limit):
    """The hand mask of the cards whose discard leaves at most ``limit`` deadwood
    (``melds.deadwood_after_discards(m, limit)``'s keys)."""
    full = deadwood(m)
    in_melds = meldable(m)
    out = np.int64(0)
    rest = m
    while rest:
        b = rest & -rest
        rest ^= b
        low_bound = full - INDEX_VALUE[low_bit(b)]
        if low_bound > limit:
            continue
        d = deadwood(m ^ b) if b & in_melds else low_bound
        if d <= limit:
            out |= b
    return out


@njit(cache=True)
def write_discards(row, at, gin_at, m, scale):
    """For each card of ``m``: ``row[at + card]`` := the least deadwood of ``m`` without it
    / ``scale``, at most 1 (``melds.deadwood_after_discards(m)``), and ``row[gin_at + card]``
    := 1 where that is gin; other entries are left alone."""
    full = deadwood(m)
    in_melds = meldable(m)
    rest = m
    while rest:
        b = rest & -rest
        rest ^= b
        i = low_bit(b)
        d = deadwood(m ^ b) if b & in_melds else full - INDEX_VALUE[i]
        row[at + INDEX_CARD[i]] = min(1.0, d / scale)
        if d == 0:
            row[gin_at + INDEX_CARD[i]] = 1.0


@njit(cache=True)
def take_deadwood(m, top, may_discard_top):
    """The least deadwood after taking card ``top`` into ``m`` and discarding one card (the
    taken one only if ``may_discard_top``)."""
    h = m | CARD_BIT[top]
    full = deadwood(h)
    in_melds = meldable(h)
    best = np.int64(1 << 30)
    rest = h if may_discard_top else m
    while rest:
        b = rest & -rest
        rest ^= b
        d = deadwood(h ^ b) if b & in_melds else full - INDEX_VALUE[low_bit(b)]
        best = min(best, d)
    return best


@njit(cache=True)
def meld_partners(m):
    """``melds.meld_partners``: the cards outside ``m`` that would meld with two of it."""
    runs = ((m >> 1) & (m >> 2)) | ((m << 1) & (m >> 1)) | ((m << 1) & (m << 2))
    a, b = m & _FIELD, (m >> 16) & _FIELD
    c, d = (m >> 32) & _FIELD, m >> 48
    two = (a & b) | (a & c) | (a & d) | (b & c) | (b & d) | (c & d)
    return (runs | two * _REPLICATE) & ~m & ALL_CARDS


@njit(cache=True)
def least_after_discard(m):
    """``melds.least_deadwood_after_discard``: the least deadwood ``m`` leaves after
    discarding one of its cards (a card in no meld leaves exactly the deadwood less its
    value, so only melded cards that could beat the best so far are searched)."""
    full = deadwood(m)
    in_melds = meldable(m)
    best = np.int64(1 << 30)
    rest = m & ~in_melds
    while rest:
        b = rest & -rest
        rest ^= b
        best = min(best, full - INDEX_VALUE[low_bit(b)])
    rest = in_melds
    while rest:
        b = rest & -rest
        rest ^= b
        if full - INDEX_VALUE[low_bit(b)] < best:
            best = min(best, deadwood(m ^ b))
    return best


@njit(cache=True)
def card_mask(ids):
    """The hand mask of a set of card ids held as bits ``1 << card``."""
    m = np.int64(0)
    while ids:
        m |= CARD_BIT[low_bit(ids)]
        ids &= ids - 1
    return m


@njit(cache=True)
def draw_outlook(m, draws, limit):
    """Over every card of ``draws`` added to the hand ``m`` and the best discard after it
    (``least_after_discard``): the summed least deadwood, how many leave at most
    ``limit``, how many leave none, and how many draws there are.

    Only a draw that melds with two cards of ``m`` needs a search: one that melds with
    nothing is thrown back or replaces the card whose discard leaves the least (``m``'s
    own ``least_after_discard``), so it leaves ``min(deadwood(m), that + its value)``."""
    base = deadwood(m)
    spare = least_after_discard(m)
    outs = draws & meld_partners(m)
    total = ready = gin = count = 0
    rest = draws
    while rest:
        b = rest & -rest
        rest ^= b
        if b & outs:
            d = least_after_discard(m | b)
        else:
            d = min(base, spare + INDEX_VALUE[low_bit(b)])
        total += d
        ready += d <= limit
        gin += d == 0
        count += 1
    return total, ready, gin, count


@njit(cache=True)
def write_outlook(row, mean_at, ready_at, gin_at, h, unseen, limit, scale):
    """For each card of the hand ``h`` kept after discarding it, one more draw of each
    ``unseen`` card (``draw_outlook``): ``row[mean_at + card]`` := the mean least deadwood
    / ``scale`` (at most 1), ``row[ready_at + card]`` := the share that leaves at most
    ``limit``, ``row[gin_at + card]`` := the share that leaves none. With no unseen card:
    the kept hand's own deadwood, and whether it is at most ``limit``, or none."""
    rest = h
    while rest:
        b = rest & -rest
        rest ^= b
        kept = h ^ b
        total, ready, gin, count = draw_outlook(kept, unseen, limit)
        card = INDEX_CARD[low_bit(b)]
        if count:
            row[mean_at + card] = min(1.0, total / count / scale)
            row[ready_at + card] = ready / count
            row[gin_at + card] = gin / count
        else:
            d = deadwood(kept)
            row[mean_at + card] = min(1.0, d / scale)
            row[ready_at + card] = 1.0 if d <= limit else 0.0
            row[gin_at + card] = 1.0 if d == 0 else 0.0


@njit(cache=True)
def stock_outlook(h, unseen):
    """The mean least deadwood after drawing one ``unseen`` card into ``h`` and the best
    discard (``h``'s own deadwood with no unseen card)."""
    total, ready, gin, count = draw_outlook(h, unseen, 0)
    return total / count if count else float(deadwood(h))
