"""Worlds a Sevens seat cannot tell apart: the other hands dealt from the unseen cards.

Each other seat gets as many cards as it holds, and none of the suits its plays showed
it lacked: a card of the last card's colour means it held none of the other colour,
and of the last card's suit, none of another suit (docs/rules.md section 3); every
such deal equally likely (``cardrl.envs.worlds.deal_unseen``).
"""

from __future__ import annotations

import numpy as np

from cardrl.envs.sevens.engine import RED, SUIT, SevensState
from cardrl.envs.sevens.view import SevensView
from cardrl.envs.worlds import ANY_SUIT, deal_unseen

_RED_SUITS = sum(1 << s for s in set(SUIT[c] for c in range(52) if RED[c]))


def allowed_suits(view: SevensView) -> list[int]:
    """Per seat, a bit per suit it may still hold, from what its plays showed."""
    allowed = [ANY_SUIT] * view.num_players
    last = view.table[-1]
    for seat, card, _ in view.plays:
        if RED[card] == RED[last]:  # it had none of the other colour
            allowed[seat] &= _RED_SUITS if RED[last] else ANY_SUIT & ~_RED_SUITS
            if SUIT[card] == SUIT[last]:  # nor of another suit
                allowed[seat] &= 1 << SUIT[last]
        last = card
    return allowed


def sample_worlds(view: SevensView, n: int, rng: np.random.Generator) -> list[SevensState]:
    """``n`` full states that show ``view`` to its seat, hidden cards drawn from ``rng``."""
    others = [s for s in range(view.num_players) if s != view.seat]
    allowed = allowed_suits(view)
    worlds = []
    for dealt in deal_unseen(view.unseen(), [view.hand_sizes[s] for s in others],
                             [allowed[s] for s in others], SUIT, rng, n):
        hands = [list(view.hand) if s == view.seat else [] for s in range(view.num_players)]
        for s, h in zip(others, dealt, strict=True):
            hands[s] = h
        worlds.append(SevensState.from_view(view, hands, rng))
    return worlds
