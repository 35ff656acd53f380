"""The Spades action table: one discrete space for bids and cards.

    0 .. 13      bid that many tricks (0 is nil)
    14 .. 67     play card id (action - 14), ids as in ``cardrl.envs.cards``
"""

from __future__ import annotations

from cardrl.envs import cards

NUM_BIDS = 14
CARD_OFFSET = NUM_BIDS
NUM_ACTIONS = NUM_BIDS + cards.NUM_CARDS


def bid_action(bid: int) -> int:
    return bid


def card_action(card_id: int) -> int:
    return CARD_OFFSET + card_id


def is_bid(action: int) -> bool:
    return 0 <= action < NUM_BIDS


def action_card(action: int) -> int:
    """The card id an action plays."""
    return action - CARD_OFFSET


def action_name(action: object) -> str:
    """'bid 3', 'bid nil' or the card name, for logs and error messages."""
    if not isinstance(action, int) or not 0 <= action < NUM_ACTIONS:
        return repr(action)
    if action < NUM_BIDS:
        return "bid nil" if action == 0 else f"bid {action}"
    return cards.name(action - CARD_OFFSET)


def parse_action(text: str | int) -> int:
    """Action id from 'nil', a bid number '0'..'13', or a card name like 'QS'."""
    if isinstance(text, int):
        return text
    key = text.strip().lower()
    if key in ("nil", "bid nil"):
        return 0
    key = key.removeprefix("bid ").strip()
    if key.isdigit():
        if int(key) >= NUM_BIDS:
            raise ValueError(f"bid {text!r} is out of range; bids run 0..{NUM_BIDS - 1}")
        return int(key)
    return card_action(cards.parse(text))
