"""Worlds a Blind Auction seat cannot tell apart: the prizes not yet shown in any order,
and the bids made this round before its own (still face down) drawn from the bidders'
cards.

Every order of the unrevealed prizes is equally likely, and so is each card a seat
that has bid this round still shows; the rounds already resolved are replayed as they
were. Search (``cardrl.agents.openspiel``'s IS-MCTS) plays on such worlds.
"""

from __future__ import annotations

import numpy as np

from cardrl.envs.blind_auction.engine import BlindAuctionState
from cardrl.envs.blind_auction.view import BlindAuctionView


def sample_worlds(view: BlindAuctionView, n: int,
                  rng: np.random.Generator) -> list[BlindAuctionState]:
    """``n`` full states that show ``view`` to its seat, hidden cards drawn from ``rng``."""
    revealed = [r.prize for r in view.rounds]
    worlds = []
    for _ in range(n):
        hidden = list(view.prizes_left)
        rng.shuffle(hidden)
        state = BlindAuctionState(view.rules, deal=revealed + hidden)
        for r in view.rounds:
            for bid in r.bids:
                state.apply(bid % 13)  # a card id -> its rank (the bid suits start at 13 k)
        for seat, acted in enumerate(view.acted):
            if not acted:
                break  # seats bid in seat order
            if seat == view.seat:
                chosen = view.chosen
                assert chosen is not None  # it has bid
                state.apply(chosen % 13)
            else:
                state.apply(view.remaining[seat][int(rng.integers(len(view.remaining[seat])))]
                            % 13)
        worlds.append(state)
    return worlds
