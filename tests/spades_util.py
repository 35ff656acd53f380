"""Shared helpers for the Spades tests: deals, random play, an independent legal-set oracle."""

from __future__ import annotations

import numpy as np

from cardrl.envs import cards
from cardrl.envs.spades.actions import CARD_OFFSET
from cardrl.envs.spades.engine import SUIT_TABLE, SpadesState

SPADE_NAMES = [r + "S" for r in cards.RANKS]


def all_spades_deal() -> list[list[str]]:
    """Seat 0 holds all 13 spades, so it wins every trick whatever anyone plays."""
    others = [[r + s for r in cards.RANKS] for s in "CDH"]
    return [SPADE_NAMES] + others


def deal_of(*hands: str) -> list[list[str]]:
    """A deal from four space-separated hands."""
    return [h.split() for h in hands]


# Dealer 0, so seat 1 bids and leads first. Seat 0 holds only hearts, seat 1
# clubs and low spades, seat 2 high clubs, diamonds and spades, seat 3 no clubs.
MIXED_DEAL = deal_of(
    "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH",
    "2C 3C 4C 5C 6C 7C 8C 9C 10C 2S 3S 4S 5S",
    "JC QC KC AC 2D 3D 4D 5D 6S 7S 8S 9S 10S",
    "6D 7D 8D 9D 10D JD QD KD AD JS QS KS AS",
)


def play_hand_with_bids(state: SpadesState, bids: list[int], rng=None) -> None:
    """Bid ``bids`` (by seat) and finish the hand with random legal cards."""
    rng = rng or np.random.default_rng(0)
    hand = state.hand_number
    while state.phase == "bid":
        state.apply(bids[state.current_player])
    while state.hand_number == hand and not state.is_over:
        legal = state.legal_actions()
        state.apply(legal[int(rng.integers(len(legal)))])


def oracle_legal(state: SpadesState) -> list[int]:
    """The legal set written straight from docs/rules.md section 1, apart from the engine.

    Reads only the acting seat's view, so it is independent of engine internals.
    """
    if state.current_player is None:
        return []
    view = state.view(state.current_player)
    rules = view.rules
    if view.phase == "bid":
        bids = [b for b in view.bids if b is not None]
        allowed = set(range(14))
        if not rules.bids_may_total_tricks and len(bids) == 3:
            allowed.discard(13 - sum(bids))
        return sorted(allowed)
    hand = list(view.hand)
    if view.trick:
        led = SUIT_TABLE[view.trick[0][1]]
        follow = [c for c in hand if SUIT_TABLE[c] == led]
        choice = follow or hand
    else:
        spade_played = any(SUIT_TABLE[c] == cards.SPADES for _, c in view.plays)
        only_spades = all(SUIT_TABLE[c] == cards.SPADES for c in hand)
        if rules.spades_must_be_broken and not spade_played and not only_spades:
            choice = [c for c in hand if SUIT_TABLE[c] != cards.SPADES]
        else:
            choice = hand
    return sorted(CARD_OFFSET + c for c in choice)
