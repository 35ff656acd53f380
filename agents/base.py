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

    def act_batch(self, views: Sequence[Any], legal_actions: Sequence[Sequence[int]]
                  ) -> list[int]:
        """``act`` on many views at once (search play-outs); a network bot batches them."""
        return [self.act(v, legal) for v, legal in zip(views, legal_actions, strict=True)]

    def probabilities(self, view: Any, legal_actions: Sequence[int]) -> dict[int, float]:
        """How likely this bot is to play each legal action; a deterministic bot puts all
        on its choice."""
        choice = self.act(view, legal_actions)
        return {int(a): float(int(a) == choice) for a in legal_actions}

    def probabilities_batch(self, views: Sequence[Any], legal_actions: Sequence[Sequence[int]]
                            ) -> list[dict[int, float]]:
        """``probabilities`` of many views at once (a search's belief); a network batches them."""
        return [self.probabilities(v, legal)
                for v, legal in zip(views, legal_actions, strict=True)]

    # Optional calls of a tournament's control program (the course seed's interface
    # between control program and player module). A bot that keeps its own state can
    # follow the game through them; one that reads the view can ignore them. The
    # tournament calls them in this order: reset, start_game, receive_cards (again at
    # every new hand), then act for its own moves and observe_move for every other
    # player's, and report_score once the game is over.
    def start_game(self, seat: int, num_players: int, parameters: dict) -> None:
        """A game begins: this bot's seat and the game's public parameters (JSON-ready)."""

    def receive_cards(self, cards: list[int]) -> None:
        """The cards dealt to this bot (card ids as in ``cardrl.envs.cards``)."""

    def observe_move(self, seat: int, action: int) -> None:
        """Another player, at ``seat``, played ``action``."""

    def report_score(self) -> float | None:
        """This bot's own count of its score when the game is over (logged); None = no count."""
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class RandomBot(Bot):
    """Uniformly random legal action: the floor every other bot must clear."""

    name = "random"

    def act(self, view: Any, legal_actions: Sequence[int]) -> int:
        return int(legal_actions[int(self.rng.integers(len(legal_actions)))])
