"""The one Bot interface every player speaks: rule bots, search bots, trained bots.

A bot sees a ``PlayerView`` (what its seat may know) and the legal action ids,
and returns one of them. It never sees the engine state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


class Bot:
    """Base class: override ``act``; ``reset`` is called before every game."""

    name: str = "bot"
    game: str | None = None  # the game this bot plays; None = any game

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; a seed makes the bot's own randomness repeatable."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, view: Any, legal_actions: Sequence[int]) -> int:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class RandomBot(Bot):
    """Uniformly random legal action: the floor every other bot must clear."""

    name = "random"

    def act(self, view: Any, legal_actions: Sequence[int]) -> int:
        return int(legal_actions[int(self.rng.integers(len(legal_actions)))])
