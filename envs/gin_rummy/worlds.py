"""Worlds a Gin Rummy seat cannot tell apart: the other hands and the stock, dealt from
the unseen cards.

Each other seat holds the cards it is known to have taken from the pile plus
as many unseen cards as make up its hand; the rest of the unseen cards are the
stock, in a random order. Every such deal is equally likely.
"""

from __future__ import annotations

import numpy as np

from cardrl.envs import cards
from cardrl.envs.gin_rummy.engine import GinRummyState
from cardrl.envs.gin_rummy.rules import HAND_SIZE
from cardrl.envs.gin_rummy.view import GinRummyView
from cardrl.envs.worlds import ANY_SUIT, deal_unseen


def sample_worlds(view: GinRummyView, n: int, rng: np.random.Generator) -> list[GinRummyState]:
    """``n`` full states that show ``view`` to its seat, hidden cards drawn from ``rng``."""
    others = [s for s in range(view.num_players) if s != view.seat]
    seen = set(view.hand) | set(view.pile) | {c for s in others for c in view.known[s]}
    unseen = [c for c in cards.STANDARD_DECK if c not in seen]
    # the seat to act holds one card more between its draw and its discard
    held = [HAND_SIZE + (view.phase == "discard" and s == view.current_player)
            for s in range(view.num_players)]
    room = [held[s] - len(view.known[s]) for s in others] + [view.stock_size]
    suits = [cards.suit_of(c) for c in cards.STANDARD_DECK]
    worlds = []
    for dealt in deal_unseen(unseen, room, [ANY_SUIT] * len(room), suits, rng, n):
        hands = [list(view.hand) if s == view.seat else [] for s in range(view.num_players)]
        for s, h in zip(others, dealt[:-1], strict=True):
            hands[s] = [*view.known[s], *h]
        stock = list(dealt[-1])
        rng.shuffle(stock)
        worlds.append(GinRummyState.from_view(view, hands, stock, rng))
    return worlds
