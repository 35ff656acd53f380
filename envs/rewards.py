"""Rewards, the same for every game and every API (docs/rules.md section 5).

After each hand, each seat's score change for the hand (or with ``hand_reward="worth"``
what the game says the hand is worth, ``Game.hand_worth``) less the mean of the other
seats' (``relative``, the default: zero-sum, as a ranking by points is; or the raw change),
divided by a scale; when the episode ends, the winners share ``win_reward`` and the others
share ``-win_reward`` (zero-sum for any number of seats; a draw, everyone tied, pays 0).
An episode that reaches ``max_episode_hands`` hands before the game ends is truncated:
its last hand is paid, and nobody is called the winner. An illegal action raises an
error naming it, or is replaced by a random legal one and charged ``illegal_penalty``.
``cardrl.envs.aec`` (the PettingZoo env) and ``cardrl.envs.batched`` both check actions
and pay through ``Payout`` (``resolve``, ``settle``), so the two cannot drift apart.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from cardrl.envs.actions import as_action
from cardrl.envs.contracts import EngineState

# an episode of whole games ends after this many hands at most (the tournaments' cap): a
# game whose target random play never reaches (killer Spades, Gin) must still end
MAX_EPISODE_HANDS = 100
# what a hand pays: its points as scored, or its worth (``Game.hand_worth``)
HAND_REWARDS = ("points", "worth")


def hand_rewards(points: Sequence[float], score_scale: float, relative: bool) -> list[float]:
    """Each seat's reward for a hand's ``points`` (docs/rules.md section 5): points / scale, or
    with ``relative`` its points less the others' mean; all zero when ``score_scale`` is 0."""
    n = len(points)
    if not score_scale:
        return [0.0] * n
    if relative:
        total = sum(points)
        points = [p - (total - p) / (n - 1) for p in points]
    return [p / score_scale for p in points]


def leaders(totals: tuple) -> tuple[int, ...]:
    """The seats with the top total (the winners of a game stopped after a hand)."""
    top = max(totals)
    return tuple(s for s, t in enumerate(totals) if t == top)


def win_bonus(seat: int, winners: tuple[int, ...], num_players: int, win_reward: float
              ) -> float:
    """The winners share ``win_reward`` and the others share ``-win_reward``: the bonus sums
    to zero for any number of seats, a two-seat game pays +-``win_reward`` as it always
    did, and a draw (every seat a winner) pays nothing. (A rank-based split would pay for
    finishing second, which no game's rules count.)"""
    won = len(winners)
    if won == num_players:
        return 0.0
    return win_reward / won if seat in winners else -win_reward / (num_players - won)


def _number(name: str, value: object, minimum: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value != value:
        raise ValueError(f"{name} must be a number, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class Payout:
    """How an env pays its agents: the options of docs/rules.md section 5, checked once.

    ``score_scale`` None is the game's own scale (``Game.score_scale``); 0 turns the
    hand term off. ``episode="hand"`` ends an episode after one hand, whose winner
    is then whoever leads on total score. ``hand_reward="worth"`` pays a hand what the
    game says it is worth (``worth``, the declaration's ``hand_worth``: Spades charges
    each bag when it is made, which its points defer to the fifth) instead of its points.
    """

    score_scale: float
    relative_score: bool = True
    win_reward: float = 1.0
    episode: str = "game"
    illegal_action: str = "raise"
    illegal_penalty: float = -1.0
    max_episode_hands: int | None = MAX_EPISODE_HANDS
    hand_reward: str = "points"
    worth: Callable[[Any, Any], tuple] | None = None  # (rules, hand summary) -> per seat

    @classmethod
    def checked(cls, default_scale: float, episode: str = "game",
                score_scale: float | None = None, relative_score: bool = True,
                win_reward: float = 1.0, illegal_action: str = "raise",
                illegal_penalty: float = -1.0,
                max_episode_hands: int | None = MAX_EPISODE_HANDS,
                hand_reward: str = "points",
                worth: Callable[[Any, Any], tuple] | None = None) -> Payout:
        """A payout from user options; a clear error naming any bad value."""
        if episode not in ("game", "hand"):
            raise ValueError(f"episode must be 'game' or 'hand', got {episode!r}")
        if hand_reward not in HAND_REWARDS:
            raise ValueError(f"hand_reward must be one of {HAND_REWARDS}, got {hand_reward!r}")
        if hand_reward == "worth" and worth is None:
            raise ValueError("hand_reward='worth' needs the game's hand_worth")
        if max_episode_hands is not None and (
                isinstance(max_episode_hands, bool) or not isinstance(max_episode_hands, int)
                or max_episode_hands < 1):
            raise ValueError(f"max_episode_hands must be None or an int >= 1, got "
                             f"{max_episode_hands!r}")
        if illegal_action not in ("raise", "penalty"):
            raise ValueError(f"illegal_action must be 'raise' or 'penalty', got {illegal_action!r}")
        if not isinstance(relative_score, bool):
            raise ValueError(f"relative_score must be True or False, got {relative_score!r}")
        scale = default_scale if score_scale is None else _number("score_scale", score_scale, 0.0)
        return cls(scale, relative_score, _number("win_reward", win_reward), episode,
                   illegal_action, _number("illegal_penalty", illegal_penalty),
                   max_episode_hands, hand_reward, worth if hand_reward == "worth" else None)

    def hand(self, points: tuple) -> list[float]:
        """Each seat's reward for a finished hand's ``points``."""
        return hand_rewards(points, self.score_scale, self.relative_score)

    def ends(self, state: EngineState) -> bool:
        """Whether the episode is over once ``state`` has scored a hand."""
        return state.is_over or self.episode == "hand"

    def final(self, state: EngineState) -> list[float]:
        """Each seat's win bonus when the episode ends at ``state``."""
        winners = state.winners if state.is_over else leaders(state.results[-1].totals)
        n = len(state.scores)
        return [win_bonus(seat, winners, n, self.win_reward) for seat in range(n)]

    def cut(self, state: EngineState) -> bool:
        """Whether an episode that goes on is truncated at ``state``: it has played
        ``max_episode_hands`` hands (a fresh state per episode counts them)."""
        cap = self.max_episode_hands
        return cap is not None and len(state.results) >= cap

    def resolve(self, legal: Sequence[int], action: Any, who: str,
                action_name: Callable[[int], str], draw: Callable[[int], int]
                ) -> tuple[int, float]:
        """The action to apply for ``action`` given the ``legal`` ones, and its penalty.

        A legal action is itself at no cost. Anything else (an illegal id, a bool,
        a float, None, ...) raises a ``ValueError`` naming ``who``, the action and the
        legal set (``illegal_action="raise"``), or is replaced by the legal action
        ``draw(len(legal))`` picks and costs ``illegal_penalty``.
        """
        act = as_action(action)
        if act is not None and act in legal:
            return act, 0.0
        if self.illegal_action == "raise":
            raise ValueError(f"illegal action {action!r} by {who} "
                             f"({action_name(act) if act is not None else 'not an action id'}); "
                             f"legal actions: {legal}")
        return legal[draw(len(legal))], self.illegal_penalty

    def settle(self, state: EngineState, paid: int
               ) -> tuple[list[list[float]], bool, bool]:
        """What the hands ``state`` finished since ``paid`` hands were paid are worth: each
        hand's rewards per seat, then the win bonus if the episode ends now; whether it
        ends, and whether it ends truncated (at the hand cap, with no bonus). Callers add
        the terms in this order (the same float sums everywhere)."""
        worth = self.worth
        terms = [self.hand(result.points if worth is None else worth(state.rules, result))
                 for result in state.results[paid:]]
        if self.ends(state):
            terms.append(self.final(state))
            return terms, True, False
        truncated = self.cut(state)
        return terms, truncated, truncated
