"""Sevens rule bots (``sevens/...``, in ``BOTS``): greedy and one-ply lookahead.

Both read only their view (parameters, total, last card, own hand, what was
played, hand sizes), so they play the same in-process or behind a pipe.

* ``sevens/greedy``: the play that earns the most points now; ties at random.
* ``sevens/lookahead``: points now minus ``weight`` x the points the next
  player can expect to earn from the total and last card this play leaves,
  if its hand is a random draw of the cards this seat has not seen (exact
  expectation, see ``cardrl.envs.sevens.reply``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from cardrl.agents.base import Bot
from cardrl.envs.sevens.engine import RANK
from cardrl.envs.sevens.reply import expected_replies
from cardrl.envs.sevens.scoring import points_for_total
from cardrl.envs.sevens.view import SevensView


def play_value(view: SevensView, action: int) -> int:
    """The value a card action adds to the total."""
    return view.params.values[RANK[action >> 1]][action & 1]


def immediate_points(view: SevensView, action: int) -> int:
    return points_for_total(view.total + play_value(view, action), view.params.points)


class GreedyBot(Bot):
    """The play that scores the most points now (ties broken by the bot's generator)."""

    game = "sevens"

    def act(self, view: SevensView, legal_actions: Sequence[int]) -> int:
        scored = [(immediate_points(view, a), a) for a in legal_actions]
        top = max(p for p, _ in scored)
        best = [a for p, a in scored if p == top]
        return int(best[int(self.rng.integers(len(best)))]) if len(best) > 1 else int(best[0])


class LookaheadBot(Bot):
    """Points now minus ``weight`` x the next player's expected best reply."""

    game = "sevens"

    def __init__(self, seed: int | None = None, weight: float = 1.0) -> None:
        super().__init__(seed)
        if not isinstance(weight, int | float) or isinstance(weight, bool):
            raise ValueError(f"weight must be a number, got {weight!r}")
        self.weight = float(weight)

    def act(self, view: SevensView, legal_actions: Sequence[int]) -> int:
        replies = expected_replies(view, legal_actions)
        best, best_score = None, -math.inf
        for a in legal_actions:
            score = immediate_points(view, a) - self.weight * replies[a]
            if score > best_score + 1e-9:
                best, best_score = a, score
        assert best is not None  # a legal action scores more than -inf
        return int(best)


# bot name -> (factory, help): what ``cardrl.agents.registry`` offers
BOTS = {
    "sevens/greedy": (GreedyBot, "most points now, ties at random"),
    "sevens/lookahead": (LookaheadBot, "points now minus weight (default 1) x the next "
                                       "player's expected best reply"),
}
