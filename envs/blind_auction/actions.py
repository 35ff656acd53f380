"""The Blind Auction action table: bid the card of a rank.

    0 .. 12      bid your card of rank index a (0 = two .. 12 = ace)

A seat holds one suit, so a rank names its card; the same action means the
same bid in every seat. With ``cards_per_suit = n`` only 0 .. n-1 are ever legal.
"""

from __future__ import annotations

from cardrl.envs import cards
from cardrl.envs.actions import action_id, is_action_id

NUM_ACTIONS = 13


def card_action(card_id: int) -> int:
    """The action that bids ``card_id``."""
    return cards.rank_of(card_id)


def action_name(action: object) -> str:
    """'bid 10', 'bid A', for logs and error messages."""
    if not is_action_id(action, NUM_ACTIONS):
        return repr(action)
    return f"bid {cards.RANKS[action]}"


def parse_action(text: str | int) -> int:
    """Action id from a rank ('10', 'q', 'bid A') or a card name of any suit ('QH')."""
    action = action_id(text, NUM_ACTIONS, "Q")
    if action is not None:
        return action
    assert isinstance(text, str)  # action_id passes only names on
    key = text.strip().upper().removeprefix("BID ").strip().replace("T", "10")
    if key in cards.RANKS:
        return cards.RANKS.index(key)
    try:
        card = cards.parse(key)
    except cards.CardError:
        card = None
    if card is None or cards.is_joker(card):
        raise ValueError(f"unknown bid {text!r}: expected a rank 2-10, J, Q, K, A")
    return card_action(card)
