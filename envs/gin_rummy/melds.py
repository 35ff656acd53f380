"""Melds and deadwood: the best split of a hand into melds, fast enough for every move.

Rules (docs/rules.md section 2): a meld is a set of 3 or 4 cards of one rank or a run
of 3 or more in one suit, ace low only (A-2-3 yes, Q-K-A no); no card is in two
melds (9d); deadwood is the point total of the cards left over (A = 1, J Q K =
10, others face value) under the split that makes it least.

Hands are *masks*: a Python int with bit ``16 * suit + r`` set for each card,
where ``r`` is the rank with the ace low (A = 0, 2 = 1, ... K = 12). Each suit
has 16 bits of which 13 are used, so shifting a mask finds runs without ever
crossing into the next suit, and the four suit blocks line up rank by rank for
sets. ``mask_of`` / ``cards_of`` convert from and to card ids (``cardrl.envs.cards``).

The solver takes the lowest card of the hand: it is either deadwood or in a
meld, and (all lower cards being decided) that meld is a set of its rank or a
run *starting* at it. Cards in no meld of the hand are stripped first (bit
tricks), and results are memoised by mask, so a hand seen before costs one
dictionary lookup: in a game each new hand differs from an earlier one by a
card or two.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import product

from cardrl.envs import cards

SUIT_BITS = 16
_SUIT_FIELD = (1 << 13) - 1
_REPLICATE = sum(1 << (SUIT_BITS * s) for s in range(4))  # one rank bit -> all four suits


def rank_low(card_id: int) -> int:
    """Rank with the ace low: A = 0, 2 = 1, ..., K = 12."""
    return (cards.rank_of(card_id) + 1) % 13


def _bit_index(card_id: int) -> int:
    return SUIT_BITS * cards.suit_of(card_id) + rank_low(card_id)


CARD_BIT: tuple[int, ...] = tuple(1 << _bit_index(c) for c in range(52))
CARD_VALUE: tuple[int, ...] = tuple(min(rank_low(c) + 1, 10) for c in range(52))  # 9a-c
# per bit index (64 of them, gaps included): the card there and its value
_INDEX_CARD: list[int] = [-1] * 64  # -1: a gap, no card
_INDEX_VALUE: list[int] = [0] * 64
for _c in range(52):
    _INDEX_CARD[_bit_index(_c)] = _c
    _INDEX_VALUE[_bit_index(_c)] = CARD_VALUE[_c]
ALL_CARDS = sum(CARD_BIT)
# VALUE_IS[v] / VALUE_AT_MOST[v]: every card worth exactly / at most v points (v = 0 .. 10)
VALUE_IS: tuple[int, ...] = tuple(sum(CARD_BIT[c] for c in range(52) if CARD_VALUE[c] == v)
                                  for v in range(11))
VALUE_AT_MOST: tuple[int, ...] = tuple(sum(VALUE_IS[:v + 1]) for v in range(11))
_RANK_MASK = tuple(_REPLICATE << r for r in range(SUIT_BITS))  # every suit's card of rank r
_SUIT_VALUE = [0] * (1 << 13)  # value of a 13-bit suit field
for _m in range(1, 1 << 13):
    _low = _m & -_m
    _SUIT_VALUE[_m] = _SUIT_VALUE[_m ^ _low] + min(_low.bit_length(), 10)
del _c, _m, _low


def mask_of(hand: Iterable[int]) -> int:
    """The mask of a collection of card ids."""
    m = 0
    for c in hand:
        m |= CARD_BIT[c]
    return m


def cards_of(mask: int) -> list[int]:
    """The card ids in a mask, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(_INDEX_CARD[low.bit_length() - 1])
        mask ^= low
    return sorted(out)


def hand_value(mask: int) -> int:
    """Point total of every card in the mask."""
    sv = _SUIT_VALUE
    return (sv[mask & _SUIT_FIELD] + sv[mask >> 16 & _SUIT_FIELD] + sv[mask >> 32 & _SUIT_FIELD]
            + sv[mask >> 48])


def meldable(mask: int) -> int:
    """The cards of ``mask`` that are in at least one meld within ``mask``."""
    r = mask & (mask >> 1) & (mask >> 2)  # starts of three-card runs
    runs = r | (r << 1) | (r << 2)
    a, b = mask & _SUIT_FIELD, mask >> 16 & _SUIT_FIELD
    c, d = mask >> 32 & _SUIT_FIELD, mask >> 48
    three = (a & b & (c | d)) | (c & d & (a | b))  # ranks held in three suits or four
    return runs | (mask & three * _REPLICATE)


_MELDED: dict[int, int] = {0: 0}  # mask -> most value it can put in melds
_DEADWOOD: dict[int, int] = {0: 0}  # mask -> least deadwood
_CACHE_LIMIT = 1 << 18  # entries per memo (about 30 MB); full memos start afresh


def _melded(h: int) -> int:
    """Most total value of disjoint melds within ``h`` (memoised)."""
    got = _MELDED.get(h)
    if got is not None:
        return got
    m = meldable(h)
    if m != h:
        best = _melded(m)
    else:
        x = h & -h
        i = x.bit_length() - 1
        best = _melded(h ^ x)  # the lowest card is deadwood ...
        values = _INDEX_VALUE
        v = values[i]
        if h >> (i + 1) & 3 == 3:  # ... or starts a run ...
            run = x | x << 1 | x << 2
            value = v + values[i + 1] + values[i + 2]
            j = i + 2
            while True:
                got = value + _melded(h ^ run)
                if got > best:
                    best = got
                j += 1
                if not h >> j & 1:
                    break
                run |= 1 << j
                value += values[j]
        same = h & _RANK_MASK[i & 15]  # ... or is in a set of its rank
        k = same.bit_count()
        if k >= 3:
            got = k * v + _melded(h ^ same)
            if got > best:
                best = got
            if k == 4:
                rest = same ^ x
                while rest:
                    y = rest & -rest
                    rest ^= y
                    got = 3 * v + _melded(h ^ same ^ y)
                    if got > best:
                        best = got
    if len(_MELDED) >= _CACHE_LIMIT:
        _MELDED.clear()
        _MELDED[0] = 0
    _MELDED[h] = best
    return best


def deadwood(mask: int) -> int:
    """Least deadwood of a hand: its value less the most it can meld (memoised)."""
    got = _DEADWOOD.get(mask)
    if got is None:
        got = hand_value(mask) - _melded(meldable(mask))
        if len(_DEADWOOD) >= _CACHE_LIMIT:
            _DEADWOOD.clear()
        _DEADWOOD[mask] = got
    return got


def deadwood_after_discards(mask: int, limit: int | None = None) -> dict[int, int]:
    """``{card id: deadwood of the hand without it}`` for the cards of ``mask``.

    With ``limit`` only cards whose discard may leave at most ``limit`` deadwood
    are returned (the others cannot). Removing card c lowers the deadwood by at
    most its value (a split of the hand less c is one of the hand with c
    deadwood), and by exactly its value when c is in no meld, so only the
    meldable cards need a search.
    """
    full = deadwood(mask)
    in_melds = meldable(mask)
    out = {}
    rest = mask
    while rest:
        b = rest & -rest
        rest ^= b
        i = b.bit_length() - 1
        low_bound = full - _INDEX_VALUE[i]
        if limit is not None and low_bound > limit:
            continue
        d = deadwood(mask ^ b) if b & in_melds else low_bound
        if limit is None or d <= limit:
            out[_INDEX_CARD[i]] = d
    return out


def knock_discard(after: dict[int, int], cards: Iterable[int]) -> int:
    """The card to knock with among ``cards``, given the deadwood each discard leaves
    (``after``, as ``deadwood_after_discards`` gives it): the least deadwood, then the
    highest card, then the lowest id. One rule for the expert, the encoder's ``knock``
    block and the knock labels, so the head learns about the knock the bot would make."""
    return min(cards, key=lambda c: (after[c], -CARD_VALUE[c], c))


def meld_partners(mask: int) -> int:
    """The cards outside ``mask`` that would be in a meld of ``mask`` plus that card: two
    of ``mask`` either side of it or around it in its suit, or two of its rank.

    Shifts stay inside a suit's 16-bit field or land in its unused top bits."""
    runs = (mask >> 1 & mask >> 2) | (mask << 1 & mask >> 1) | (mask << 1 & mask << 2)
    a, b = mask & _SUIT_FIELD, mask >> 16 & _SUIT_FIELD
    c, d = mask >> 32 & _SUIT_FIELD, mask >> 48
    two = (a & b) | (a & c) | (a & d) | (b & c) | (b & d) | (c & d)  # ranks held twice+
    return (runs | two * _REPLICATE) & ~mask & ALL_CARDS


_LEAST: dict[int, int] = {}  # mask -> least deadwood after one discard


def least_deadwood_after_discard(mask: int) -> int:
    """``min(deadwood_after_discards(mask).values())`` (memoised): the look-ahead asks it
    for every draw to every kept hand, so it searches only the discards that can win.

    A card in no meld leaves exactly ``full - value``, so the highest such card
    is one candidate; a melded card can do better only if ``full - value`` is
    below the best found so far.
    """
    got = _LEAST.get(mask)
    if got is not None:
        return got
    full = deadwood(mask)
    in_melds = meldable(mask)
    values = _INDEX_VALUE
    best = 1 << 30
    rest = mask & ~in_melds
    while rest:
        b = rest & -rest
        rest ^= b
        d = full - values[b.bit_length() - 1]
        if d < best:
            best = d
    rest = in_melds
    while rest:
        b = rest & -rest
        rest ^= b
        if full - values[b.bit_length() - 1] < best:
            d = deadwood(mask ^ b)
            if d < best:
                best = d
    if len(_LEAST) >= _CACHE_LIMIT:
        _LEAST.clear()
    _LEAST[mask] = best
    return best


# ------------------------------------------------------------------ the melds
def _melds_with_lowest(h: int) -> list[tuple[int, int]]:
    """(meld mask, value) of each meld in ``h`` that holds its lowest card as its
    lowest run card or as a set member."""
    x = h & -h
    i = x.bit_length() - 1
    v = _INDEX_VALUE[i]
    out = []
    if h >> (i + 1) & 3 == 3:
        run, value, j = x | x << 1 | x << 2, v + _INDEX_VALUE[i + 1] + _INDEX_VALUE[i + 2], i + 2
        while True:
            out.append((run, value))
            j += 1
            if not h >> j & 1:
                break
            run |= 1 << j
            value += _INDEX_VALUE[j]
    same = h & _RANK_MASK[i & 15]
    k = same.bit_count()
    if k >= 3:
        out.append((same, k * v))
        if k == 4:
            for y in _bits(same ^ x):
                out.append((same ^ y, 3 * v))
    return out


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        b = mask & -mask
        out.append(b)
        mask ^= b
    return out


def best_splits(mask: int) -> list[tuple[int, ...]]:
    """Every split of the hand into disjoint melds that leaves the least deadwood,
    each a tuple of meld masks (lowest card first)."""
    found: list[tuple[int, ...]] = []

    def search(h: int, chosen: tuple[int, ...], need: int) -> None:
        h = meldable(h)
        if need == 0 or not h:
            found.append(chosen)
            return
        x = h & -h
        if _melded(h ^ x) == need:
            search(h ^ x, chosen, need)
        for meld, value in _melds_with_lowest(h):
            if value + _melded(h ^ meld) == need:
                search(h ^ meld, (*chosen, meld), need - value)

    search(mask, (), _melded(meldable(mask)))
    return found


def best_split(mask: int) -> tuple[int, ...]:
    """One split of the hand with the least deadwood (the first ``best_splits`` finds)."""
    chosen: list[int] = []
    h = meldable(mask)
    need = _melded(h)
    while need:
        h = meldable(h)
        x = h & -h
        if _melded(h ^ x) == need:
            h ^= x
            continue
        for meld, value in _melds_with_lowest(h):
            if value + _melded(h ^ meld) == need:
                chosen.append(meld)
                h ^= meld
                need -= value
                break
    return tuple(chosen)


def unmelded(mask: int) -> int:
    """The deadwood cards of ``best_split(mask)``."""
    for meld in best_split(mask):
        mask ^= meld
    return mask


def is_set(meld: int) -> bool:
    return meld & _RANK_MASK[(meld & -meld).bit_length() - 1 & 15] == meld


def layoff_choices(meld: int, hand: int) -> list[int]:
    """The masks of ``hand`` cards that may be laid off onto ``meld`` together
    (0 first): the missing fourth card of a set; cards extending a run at either
    end, each end as far as the hand reaches."""
    if is_set(meld):
        fourth = _RANK_MASK[(meld & -meld).bit_length() - 1 & 15] & ~meld
        return [0, fourth] if fourth and hand & fourth else [0]
    below, low = [0], meld & -meld
    while (low := low >> 1) and hand & low:  # bit 15 of the suit below is never held
        below.append(below[-1] | low)
    above, high = [0], 1 << (meld.bit_length() - 1)
    while (high := high << 1) and hand & high:
        above.append(above[-1] | high)
    return [b | a for b in below for a in above]


def layoff_deadwood(hand: int, melds: Iterable[int]) -> tuple[int, int]:
    """(least deadwood, cards laid off) of ``hand`` once it lays off onto ``melds``.

    Tries every combination of layoffs (disjoint: a card goes onto one meld) and
    melds the rest at best; fewest cards laid off wins a tie.
    """
    options = [layoff_choices(m, hand) for m in melds]
    best = (deadwood(hand), 0)
    for combo in product(*options):
        laid = 0
        for part in combo:
            if laid & part:
                break
            laid |= part
        else:
            if laid:
                d = deadwood(hand ^ laid)
                if d < best[0] or (d == best[0] and laid.bit_count() < best[1].bit_count()):
                    best = (d, laid)
    return best
