"""Shared helpers for the Blind Auction tests: bids by name, random play, a legal-set oracle."""

from __future__ import annotations

import numpy as np

from cardrl.envs import cards
from cardrl.envs.blind_auction.actions import parse_action
from cardrl.envs.blind_auction.engine import BlindAuctionState


def bid_round(state: BlindAuctionState, *ranks: str) -> None:
    """Every seat bids, in seat order, the card of the given rank ('2' .. 'A')."""
    for rank in ranks:
        state.apply(parse_action(rank))


def random_actions(state: BlindAuctionState, rng: np.random.Generator) -> list[int]:
    """Play ``state`` to the end with random legal bids; return the actions."""
    actions = []
    while not state.is_over:
        legal = state.legal_actions()
        actions.append(legal[int(rng.integers(len(legal)))])
        state.apply(actions[-1])
    return actions


def oracle_legal(state: BlindAuctionState, seat: int) -> list[int]:
    """What ``seat`` may bid, from docs/rules.md section 4 and its view only: when it is its
    turn, every rank of its suit in play that its resolved bids and its own pending
    bid have not used; otherwise nothing."""
    view = state.view(seat)
    if view.current_player != seat:
        return []
    used = {cards.rank_of(r.bids[seat]) for r in view.rounds}
    if view.chosen is not None:
        used.add(cards.rank_of(view.chosen))
    return [r for r in range(view.rules.cards_per_suit) if r not in used]
