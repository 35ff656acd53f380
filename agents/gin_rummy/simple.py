"""The simple baseline player of the Gin Rummy AI challenges (Neller's SimpleGinRummyPlayer).

* Draw: take the up card only if it makes or extends a meld with the hand.
* Discard: the card leaving the least deadwood; of those, the highest unmatched
  card (highest point value, then highest rank), never the card just taken.
* Knock as soon as the rules allow.
"""

from __future__ import annotations

from collections.abc import Sequence

from agents.base import Bot
from envs.gin_rummy.actions import (
    DISCARD_OFFSET,
    DRAW_STOCK,
    KNOCK_OFFSET,
    TAKE_DISCARD,
    discard_action,
    knock_action,
)
from envs.gin_rummy.melds import CARD_BIT, CARD_VALUE, deadwood, mask_of, meldable, rank_low
from envs.gin_rummy.view import GinRummyView


def discard_choices(legal: Sequence[int]) -> list[int]:
    """The cards the legal plain discards would put on the pile."""
    return [a - DISCARD_OFFSET for a in legal if DISCARD_OFFSET <= a < KNOCK_OFFSET]


def makes_meld(mask: int, card: int) -> bool:
    """Whether ``card`` would be in some meld of the hand ``mask`` plus it."""
    bit = CARD_BIT[card]
    return bool(meldable(mask | bit) & bit)


def least_deadwood_discard(mask: int, choices: Sequence[int]) -> tuple[int, int]:
    """(card, deadwood left) of the discard leaving least deadwood; ties go to the
    highest card (value, then rank)."""
    return min(((c, deadwood(mask ^ CARD_BIT[c])) for c in choices),
               key=lambda cd: (cd[1], -CARD_VALUE[cd[0]], -rank_low(cd[0]), cd[0]))


class SimpleBot(Bot):
    """Take a melding up card, discard to least deadwood, knock at once."""

    game = "gin_rummy"

    def act(self, view: GinRummyView, legal_actions: Sequence[int]) -> int:
        mask = mask_of(view.hand)
        if view.phase == "draw":
            if TAKE_DISCARD in legal_actions and makes_meld(mask, view.top):
                return TAKE_DISCARD
            return DRAW_STOCK
        card, _ = least_deadwood_discard(mask, discard_choices(legal_actions))
        knock = knock_action(card)
        return knock if knock in legal_actions else discard_action(card)
