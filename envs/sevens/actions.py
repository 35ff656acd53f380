"""The Sevens action table: a card and which of its symbol's permitted values.

    action = 2 * card id + value index      (104 actions)

Value index 0 is the symbol's first permitted value, 1 its second; index 1 is
legal only for a symbol that permits two values. Card ids as in ``cardrl.envs.cards``.
"""

from __future__ import annotations

from cardrl.envs import cards
from cardrl.envs.actions import action_id, is_action_id

NUM_CARDS = 52
NUM_ACTIONS = 2 * NUM_CARDS


def card_action(card_id: int, value_index: int = 0) -> int:
    return 2 * card_id + value_index


def action_card(action: int) -> int:
    return action >> 1


def action_value_index(action: int) -> int:
    return action & 1


def action_name(action: object) -> str:
    """'7H' for a card's first value, '7H/2' for its second; for logs and errors."""
    if not is_action_id(action, NUM_ACTIONS):
        return repr(action)
    name = cards.name(action >> 1)
    return f"{name}/2" if action & 1 else name


def parse_action(text: str | int) -> int:
    """Action id from a name as ``action_name`` writes it ('AS', 'AS/2') or an int."""
    action = action_id(text, NUM_ACTIONS, "AS/2")
    if action is not None:
        return action
    assert isinstance(text, str)  # action_id passes only names on
    name, slash, index = text.strip().partition("/")
    if slash and index.strip() not in ("1", "2"):
        raise ValueError(f"bad value choice in {text!r}: use '/1' or '/2'")
    card = cards.parse(name)
    if card >= NUM_CARDS:
        raise ValueError(f"Sevens has no jokers: {text!r}")
    return card_action(card, 1 if slash and index.strip() == "2" else 0)
