"""What every engine state shares: its random generator and ``clone()``.

Engines take ``rng`` as a seed, ``None`` or a ``numpy.random.Generator``
(``generator``); ``clone_state`` copies a state so that playing on the copy
leaves the original as it was (the lists the engine mutates are copied, the
rest is shared, and the copy draws the same numbers from its own generator).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

import numpy as np

S = TypeVar("S")


def generator(rng: np.random.Generator | int | None) -> np.random.Generator:
    """``rng`` itself if it is a generator, else a new one seeded with it."""
    return rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)


def clone_state(state: S, lists: Iterable[str] = (), nested: Iterable[str] = ()) -> S:
    """A copy of ``state``: new lists for the attributes named in ``lists``, new lists of
    new lists for those in ``nested``, and its own generator in the same state as
    ``state.rng`` (if it has one); every other attribute is shared."""
    other = object.__new__(type(state))
    attrs = other.__dict__
    attrs.update(state.__dict__)
    rng = attrs.get("rng")
    if rng is not None:
        attrs["rng"] = copy = np.random.Generator(type(rng.bit_generator)())
        copy.bit_generator.state = rng.bit_generator.state
    for name in lists:
        attrs[name] = list(attrs[name])
    for name in nested:
        attrs[name] = [list(x) for x in attrs[name]]
    return other
