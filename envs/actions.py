"""What every game's action table shares: what an action id is, and ids from names.

``as_action`` is the one rule for every game: an action is an int, a numpy
integer, or a 0-d numpy integer array (what Gymnasium's ``Discrete`` space holds, and
what stable-baselines3's ``predict`` returns for one observation); a bool is not an
action (``True`` is not 1), nor is a float, a string or an array of more than one value.

A game's ``parse_action`` takes an int id or a name; ``action_id`` checks the
first and passes the second back to the game's own name parser, and
``is_action_id`` is the guard of its ``action_name``.
"""

from __future__ import annotations

import numbers
from typing import TypeGuard

import numpy as np


def is_action_id(action: object, num_actions: int) -> TypeGuard[int]:
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


def as_action(action: object) -> int | None:
    """``action`` as an int id, or None when it is not an integer at all (a bool, a float,
    a string, None, ...); numpy integers are ids too, bare or as a 0-d array."""
    if type(action) is int:
        return action
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        return int(action)
    if isinstance(action, numbers.Integral) and not isinstance(action, bool | np.bool_):
        return int(action)
    return None
