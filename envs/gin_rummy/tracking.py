"""What a Gin Rummy seat can infer from its view: unseen cards, what the others
hold and want, how dangerous a discard is, and what one more draw does for a hand.

The expert bot decides with it and the encoder turns it into features, so both
see the same numbers. Everything here reads the view only (A4.2): the own hand,
the discard pile, and each player's picks from the pile and its discards.
"""

from __future__ import annotations

from cardrl.envs.gin_rummy.melds import (
    ALL_CARDS,
    CARD_BIT,
    CARD_VALUE,
    VALUE_AT_MOST,
    VALUE_IS,
    deadwood,
    deadwood_after_discards,
    least_deadwood_after_discard,
    mask_of,
    meld_partners,
    meldable,
    rank_low,
    unmelded,
)
from cardrl.envs.gin_rummy.view import GinRummyView

_BIT_VALUE = {CARD_BIT[c]: CARD_VALUE[c] for c in range(52)}


def _bits(mask: int):
    while mask:
        b = mask & -mask
        yield b
        mask ^= b


def _neighbours(c: int) -> int:
    bit = CARD_BIT[c]
    r = rank_low(c)
    same = 0
    for other in range(4):
        same |= 1 << (16 * other + r)
    side = (bit << 1 | bit << 2 | bit >> 1 | bit >> 2) & ALL_CARDS
    # keep the side cards within the suit (the 16-bit fields leave gaps at 13..15)
    side &= 0x1FFF << (16 * (c // 13))
    return (same | side) & ~bit


_NEIGHBOURS = {CARD_BIT[c]: _neighbours(c) for c in range(52)}


def neighbours(bit: int) -> int:
    """Cards that could share a meld with ``bit`` directly: its rank in other suits and
    the two cards either side of it in its suit."""
    return _NEIGHBOURS[bit]


class Knowledge:
    """Card tracking for one seat, from its view."""

    def __init__(self, view: GinRummyView) -> None:
        self.view = view
        self.seat = view.seat
        self.n = view.num_players
        self.hand = mask_of(view.hand)
        self.known = [mask_of(k) for k in view.known]  # taken from the pile, still held
        self.discarded = [mask_of(d) for d in view.discarded]
        self.pile = mask_of(view.pile)
        held_elsewhere = 0
        for s, k in enumerate(self.known):
            if s != self.seat:
                held_elsewhere |= k
        # neither in the own hand, nor in the pile, nor known in another hand
        self.unseen = ALL_CARDS & ~self.hand & ~self.pile & ~held_elsewhere
        self.next_seat = (self.seat + 1) % self.n

    def danger(self, card: int, seat: int | None = None) -> float:
        """How likely ``seat`` (default: the next player, the only one who can take
        our discard) wants ``card``: 0 when it can meld with nothing that seat could
        hold; high when it completes a meld with cards the seat is known to hold."""
        seat = self.next_seat if seat is None else seat
        bit = CARD_BIT[card]
        known = self.known[seat]
        possible = self.unseen | known | bit  # what that seat's melds could be made of
        if not meldable(possible) & bit:
            return 0.0  # dead: no meld is left for it
        if meldable(known | bit) & bit:
            return 3.0  # makes a meld with its known cards: it takes it
        near = neighbours(bit)
        risk = 0.5 + (near & known).bit_count()
        risk -= 0.5 * (near & self.discarded[seat]).bit_count()  # it threw such cards away
        return max(0.1, risk)

    def _draws(self, mask: int, limits: tuple[int, ...]) -> tuple[int, list[int], int]:
        """Over every unseen card drawn to the 10-card hand ``mask``: the summed least
        deadwood after the best discard, how many leave at most each of ``limits``,
        and how many draws there are.

        Only the outs need a search. A draw that melds nothing is kept only to
        throw a higher spare card: worth ``v`` points, it leaves
        ``base - max(0, top - v)``, so those draws are summed by value."""
        base = deadwood(mask)
        spare = unmelded(mask)  # the best split's deadwood: the cards to throw first
        top = max((_BIT_VALUE[b] for b in _bits(spare)), default=0)
        draws = self.unseen & ~mask
        outs = draws & meld_partners(mask)
        total, ready = 0, [0] * len(limits)
        for b in _bits(outs):
            best = least_deadwood_after_discard(mask | b)
            total += best
            for i, limit in enumerate(limits):
                ready[i] += best <= limit
        rest = draws ^ outs
        total += base * rest.bit_count()
        for v in range(1, top):
            total -= (top - v) * (rest & VALUE_IS[v]).bit_count()
        for i, limit in enumerate(limits):
            if base <= limit:
                ready[i] += rest.bit_count()
            elif top - (base - limit) >= 1:  # top - v >= base - limit
                ready[i] += (rest & VALUE_AT_MOST[min(10, top - (base - limit))]).bit_count()
        return total, ready, draws.bit_count()

    def outlook(self, mask: int, limit: int = 10) -> tuple[float, float, float]:
        """For the 10-card hand ``mask``, one step of look-ahead: the mean least
        deadwood after one more draw of an unseen card and the best discard, the
        share of those draws that leave at most ``limit`` (a knock), and the share
        that leave none (gin)."""
        total, (ready, gin), count = self._draws(mask, (limit, 0))
        if not count:
            base = deadwood(mask)
            return float(base), float(base <= limit), float(base == 0)
        return total / count, ready / count, gin / count

    def expected_deadwood(self, mask: int, limit: int | None = None,
                          bonus: float = 0.0) -> float:
        """``outlook``'s mean deadwood, less ``bonus`` for each draw that leaves at
        most ``limit``."""
        total, ready, count = self._draws(mask, () if limit is None else (limit,))
        if not count:
            return float(deadwood(mask))
        return (total - bonus * sum(ready)) / count

    def value_of_taking(self, card: int) -> int:
        """Least deadwood after taking ``card`` and discarding another card."""
        mask = self.hand | CARD_BIT[card]
        return min(d for c, d in deadwood_after_discards(mask).items() if c != card)
