"""What every game's action table shares: telling an action id from an action name.

A game's ``parse_action`` takes an int id or a name; ``action_id`` checks the
first and passes the second back to the game's own name parser, and
``is_action_id`` is the guard of its ``action_name``.
"""

from __future__ import annotations


def is_action_id(action: object, num_actions: int) -> bool:
    """``action`` is an int (not a bool) in ``0 .. num_actions - 1``."""
    return isinstance(action, int) and not isinstance(action, bool) and 0 <= action < num_actions


def action_id(text: object, num_actions: int, example: str) -> int | None:
    """``text`` itself when it is an action id, None when it is a name to parse; an int out
    of range, or anything else, raises a ``ValueError`` naming it (``example``: a name)."""
    if isinstance(text, int) and not isinstance(text, bool):
        if not 0 <= text < num_actions:
            raise ValueError(f"action {text!r} is out of range; actions run 0..{num_actions - 1}")
        return text
    if not isinstance(text, str):
        raise ValueError(f"an action is an id or a name like {example!r}, got {text!r}")
    return None
