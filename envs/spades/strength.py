"""What a Spades hand is worth before play: the tricks it should take (the
modified count, B2.3; corrected by the bids on the table, ``contract_tricks``),
the chance a nil with it survives (B2.4) and what that nil is worth.

The bidding bots bid from these numbers and the encoder shows them to the
seat that bids, so both see the same values.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from cardrl.envs.spades.engine import POWER_TABLE as POWER
from cardrl.envs.spades.tracking import SIDE_SUITS, SPADES, split_by_suit

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


# ---------------------------------------------------------- the contract
# Tricks taken by a non-nil bidder among four experts, fitted on 6000 deals per
# preset: 4.1 + 0.64 x modified count - 0.31 x the other three bids (a bid not
# yet made counted as the mean bid, 2.7; beyond OTHERS_CAP, rare among sane
# bidders, the others' bids are not trusted). Bids that leave tricks spare
# mean overtricks; bids that overcommit the 13 tricks mean a fight for them.
FIT_BASE, FIT_COUNT, FIT_OTHERS, MEAN_BID, OTHERS_CAP = 4.1, 0.64, 0.31, 2.7, 11


def contract_tricks(hand: Sequence[int], jokers: bool, bids: Sequence[int | None],
                    seat: int) -> float:
    """The tricks ``seat`` should take with ``hand``, given the bids already made."""
    known = [b for s, b in enumerate(bids) if s != seat and b is not None]
    others = min(OTHERS_CAP, sum(known) + MEAN_BID * (len(bids) - 1 - len(known)))
    return FIT_BASE + FIT_COUNT * estimate_tricks(hand, jokers) - FIT_OTHERS * others


def nil_value(hand: Sequence[int], nil_points: int) -> float:
    """The expected score of a nil bid with ``hand``: +/- ``nil_points`` by its chance."""
    return nil_points * (2 * nil_chance(hand) - 1)
