"""The Gin Rummy action table: one discrete space for draws, discards and knocks.

    0            draw the top card of the stock
    1            take the top card of the discard pile
    2 .. 53      discard card id (action - 2), ids as in ``cardrl.envs.cards``
    54 .. 105    discard card id (action - 54) and knock (gin when no deadwood is left)
"""

from __future__ import annotations

from cardrl.envs import cards
from cardrl.envs.actions import action_id, is_action_id

DRAW_STOCK = 0
TAKE_DISCARD = 1
DISCARD_OFFSET = 2
KNOCK_OFFSET = DISCARD_OFFSET + 52
NUM_ACTIONS = KNOCK_OFFSET + 52


def discard_action(card_id: int) -> int:
    return DISCARD_OFFSET + card_id


def knock_action(card_id: int) -> int:
    return KNOCK_OFFSET + card_id


def is_knock(action: int) -> bool:
    return action >= KNOCK_OFFSET


def action_card(action: int) -> int:
    """The card id a discard or knock action puts on the pile."""
    return action - KNOCK_OFFSET if action >= KNOCK_OFFSET else action - DISCARD_OFFSET


def action_name(action: object) -> str:
    """'draw stock', 'take discard', 'discard QS' or 'knock QS', for logs and errors."""
    if not is_action_id(action, NUM_ACTIONS):
        return repr(action)
    if action == DRAW_STOCK:
        return "draw stock"
    if action == TAKE_DISCARD:
        return "take discard"
    return ("knock " if action >= KNOCK_OFFSET else "discard ") + cards.name(action_card(action))


def parse_action(text: str | int) -> int:
    """Action id from 'draw stock' / 'stock', 'take discard' / 'take', 'discard QS' or
    just 'QS', 'knock QS'."""
    action = action_id(text, NUM_ACTIONS, "discard QS")
    if action is not None:
        return action
    assert isinstance(text, str)  # action_id passes only names on
    key = " ".join(text.strip().lower().split())
    if key in ("draw stock", "draw", "stock"):
        return DRAW_STOCK
    if key in ("take discard", "take", "discard pile"):
        return TAKE_DISCARD
    knock = key.startswith("knock ")
    card = cards.parse(key[6:] if knock else key.removeprefix("discard "))
    if card >= 52:
        raise ValueError(f"no jokers in Gin Rummy: {text!r}")
    return knock_action(card) if knock else discard_action(card)
