"""Bidding strategies (docs/rules.md section 1): each maps a view to the bid it wants.

``BID_STRATEGIES`` names them; ``legal_bid`` then picks the nearest legal value,
because the cutthroat last bidder is refused the one bid that makes 13.

A bid of 0 is nil in both presets (B3.1), worth +/- ``nil_points``, so the
seed strategies, which can compute 0 for a weak hand, pass their 0 through
``zero_bid``: nil only for a hand the nil test passes, else 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from cardrl.envs.spades.engine import POWER_TABLE as POWER
from cardrl.envs.spades.strength import (
    ACE,
    KING,
    QUEEN,
    contract_tricks,
    estimate_tricks,
    nil_chance,
    nil_value,
)
from cardrl.envs.spades.tracking import SPADES, split_by_suit
from cardrl.envs.spades.view import SpadesView


def zero_bid(hand: Sequence[int]) -> int:
    """What a computed 0 becomes: nil for a hand likely to make it, else 1."""
    return 0 if nil_chance(hand) >= 0.6 else 1


# --------------------------------------------------------- seed strategies
def bid_spade_count(view: SpadesView) -> int:
    """B2.1: bid the number of spades held (jokers are spades); 0 goes through ``zero_bid``."""
    n = len(split_by_suit(view.hand)[SPADES])
    return n if n else zero_bid(view.hand)


def count_points(hand: Sequence[int]) -> float:
    """B2.2 count: A = 1, K = 1/2, Q = 1/4, each spade beyond the fourth = 1.

    Jokers, the two highest trumps, count 1 each like aces.
    """
    suits = split_by_suit(hand)
    honours = {ACE: 1.0, KING: 0.5, QUEEN: 0.25, 13: 1.0, 14: 1.0}
    points = sum(honours.get(POWER[c], 0.0) for c in hand)
    return points + max(0, len(suits[SPADES]) - 4)


def bid_count(view: SpadesView) -> int:
    """B2.2 faithfully: the count rounded down; a 0 goes through ``zero_bid``."""
    n = math.floor(count_points(view.hand))
    return n if n else zero_bid(view.hand)


# What a trick bid is worth on average, made or set (points per trick bid).
BID_TRICK_VALUE = 6


def _nil_or(view: SpadesView, bid: float) -> int:
    """Nil when its expected score, nil_points x (2p - 1), beats BID_TRICK_VALUE points a
    trick bid; so more readily where nil scores +/-100 (killer) than +/-50 (cutthroat)."""
    bid = max(1, min(13, math.floor(bid)))
    return 0 if nil_value(view.hand, view.rules.nil_points) > BID_TRICK_VALUE * bid else bid


def bid_modified(view: SpadesView) -> int:
    """B2.3/B2.4: the modified count rounded to nearest (at least 1), or nil for a weak hand."""
    return _nil_or(view, estimate_tricks(view.hand, view.rules.jokers) + 0.5)


# The margin over ``strength.contract_tricks``, tuned in duplicate matches, leans
# toward the higher bid.
CONTRACT_MARGIN = 0.25


def bid_contract(view: SpadesView) -> int:
    """Expert bid: the modified count corrected by the bids already on the table."""
    tricks = contract_tricks(view.hand, view.rules.jokers, view.bids, view.seat)
    return _nil_or(view, tricks + CONTRACT_MARGIN)


BidStrategy = Callable[[SpadesView], int]
BID_STRATEGIES: dict[str, BidStrategy] = {
    "spade-count": bid_spade_count,
    "count": bid_count,
    "modified": bid_modified,
    "contract": bid_contract,
}


def legal_bid(wanted: int, legal: Sequence[int], prefer: str) -> int:
    """The legal bid nearest ``wanted``; on a tie ``prefer`` decides (P1.2).

    avoid-under goes to the lower bid (fewer tricks to make), avoid-over to the
    higher. A refused non-nil bid never turns into nil, and a refused nil into 1+.
    """
    if wanted in legal:
        return wanted
    pool = [b for b in legal if b > 0] or list(legal)
    lower_first = prefer == "avoid-under"
    return min(pool, key=lambda b: (abs(b - wanted), (b > wanted) == lower_first))
