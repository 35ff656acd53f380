"""Bidding strategies (RULES.md section 1): each maps a view to the bid it wants.

``BID_STRATEGIES`` names them; ``legal_bid`` then picks the nearest legal value,
because the cutthroat last bidder is refused the one bid that makes 13.

A bid of 0 is nil in both presets (B3.1), worth +/- ``nil_points``, so the
seed strategies, which can compute 0 for a weak hand, pass their 0 through
``zero_bid``: nil only for a hand the nil test passes, else 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from agents.spades.tracking import SIDE_SUITS, SPADES, split_by_suit
from envs.spades.engine import POWER_TABLE as POWER
from envs.spades.view import SpadesView

ACE, KING, QUEEN = 12, 11, 10


# ------------------------------------------------------------------ nil test
def _card_hazard(power: int, lower: int, spade: bool) -> float:
    """Chance one card of a nil hand takes a trick, given our lower cards of its suit.

    Fitted to forced nils played by ``spades/expert`` against three experts
    (which card took the first trick): low cards beneath a card let us duck
    the early rounds of its suit; spades are worse, as they cannot be shed
    on another suit's trick, and even a lone low spade is at risk.
    """
    if spade:
        if power >= QUEEN:  # AS, jokers, KS, QS
            return 0.9
        base = (0.08, 0.02, 0.015, 0.02)[min(lower, 3)]
        return min(0.95, base + 0.08 / (1 + 1.3 * lower) * max(0, power - 4))
    if power == ACE:
        return 0.6
    return min(0.9, 0.035 * max(0.0, power - 2.5 * lower - 2.5))


def nil_chance(hand: Sequence[int]) -> float:
    """Estimated chance a nil with this hand succeeds against players who try to set it.

    The hazards add as -log chances; the square term corrects for hands with
    several risky cards, where more than one would take a trick (same fit).
    """
    risk = sum(-math.log(1.0 - _card_hazard(POWER[c], i, suit == SPADES))
               for suit, cs in enumerate(split_by_suit(hand)) for i, c in enumerate(cs))
    return math.exp(-(risk + 0.7 * risk * risk))


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


# ---------------------------------------------------------- modified count
def _spade_tricks(spades: list[int], top: int) -> float:
    """Trump tricks: honours by how many of ours guard them, and length beyond four."""
    total = 0.0
    n = len(spades)
    for i, c in enumerate(spades):  # descending
        above = top - POWER[c] - i  # higher spades that others hold
        guards = n - 1 - i
        if above <= 0:
            value = 1.0
        else:
            value = (0.85, 0.6, 0.4, 0.25)[min(above, 4) - 1]
            if guards < above:
                value *= 0.4
        if i == 4:
            value = max(value, 0.8)
        elif i > 4:
            value = 1.0
        total += value
    return total


def _side_tricks(cs: list[int]) -> float:
    """Side-suit honours; a long suit's honours are likelier to be ruffed."""
    n = len(cs)
    powers = {POWER[c] for c in cs}
    total = 0.0
    if ACE in powers:
        total += 1.0 if n <= 4 else 0.8 if n == 5 else 0.6
    if KING in powers:
        if ACE in powers:
            total += 0.8 if n <= 4 else 0.4
        elif n >= 2:
            total += 0.5 if n <= 4 else 0.3
        else:
            total += 0.15
    if QUEEN in powers and n >= 3:
        total += 0.4 if {ACE, KING} <= powers else 0.25 if powers & {ACE, KING} else 0.15
    return total


def estimate_tricks(hand: Sequence[int], jokers: bool) -> float:
    """Modified count (B2.3): honours, trump length, and ruffs from short side suits."""
    suits = split_by_suit(hand)
    spades = suits[SPADES][::-1]
    trumps = _spade_tricks(spades, 14 if jokers else 12)
    side = sum(_side_tricks(suits[s][::-1]) for s in SIDE_SUITS)
    spare = max(0.0, len(spades) - trumps)  # small trumps free to ruff
    shortness = sum((1.2, 0.7, 0.3)[len(suits[s])] for s in SIDE_SUITS if len(suits[s]) <= 2)
    return trumps + side + min(0.8 * spare, shortness)


# What a trick bid is worth on average, made or set (points per trick bid).
BID_TRICK_VALUE = 6


def _nil_or(view: SpadesView, bid: float) -> int:
    """Nil when its expected score, nil_points x (2p - 1), beats BID_TRICK_VALUE points a
    trick bid; so more readily where nil scores +/-100 (killer) than +/-50 (cutthroat)."""
    bid = max(1, min(13, math.floor(bid)))
    nil_value = view.rules.nil_points * (2 * nil_chance(view.hand) - 1)
    return 0 if nil_value > BID_TRICK_VALUE * bid else bid


def bid_modified(view: SpadesView) -> int:
    """B2.3/B2.4: the modified count rounded to nearest (at least 1), or nil for a weak hand."""
    return _nil_or(view, estimate_tricks(view.hand, view.rules.jokers) + 0.5)


# Tricks taken by a non-nil bidder among four experts, fitted on 6000 deals per
# preset: 4.1 + 0.64 x modified count - 0.31 x the other three bids (a bid not
# yet made counted as the mean bid, 2.7; beyond OTHERS_CAP, rare among sane
# bidders, the others' bids are not trusted). Bids that leave tricks spare
# mean overtricks; bids that overcommit the 13 tricks mean a fight for them.
# The margin, tuned in duplicate matches, leans toward the higher bid.
FIT_BASE, FIT_COUNT, FIT_OTHERS, MEAN_BID, OTHERS_CAP = 4.1, 0.64, 0.31, 2.7, 11
CONTRACT_MARGIN = 0.25


def bid_contract(view: SpadesView) -> int:
    """Expert bid: the modified count corrected by the bids already on the table."""
    known = [b for s, b in enumerate(view.bids) if s != view.seat and b is not None]
    others = min(OTHERS_CAP, sum(known) + MEAN_BID * (3 - len(known)))
    tricks = FIT_BASE + FIT_COUNT * estimate_tricks(view.hand, view.rules.jokers) \
        - FIT_OTHERS * others
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
