"""Determinized Monte Carlo search around a policy: the policy proposes, play-outs decide.

At a decision with more than one sensible move, ``SearchBot`` deals ``worlds``
samples of the cards its view hides (the game's ``sample_worlds``: every deal
that fits what the seat saw is equally likely), and for each of the policy's
``top_k`` most likely moves plays every world out to the end of the hand with
the policy in all seats. All candidate moves meet the same worlds, so the
luck of the deal cancels between them. The policy's own choice stands unless
another candidate's play-outs beat it clearly: by more than ``z`` standard
errors of the paired differences (a game like Gin Rummy, where one move
reshuffles everything that follows, gives noisy play-outs; without the guard
a few worlds would overrule a well-trained policy at random).

With ``belief`` (a temperature) the worlds are weighed by what the other seats did: the
search deals ``BELIEF_POOL`` times as many worlds, replays the hand so far in each (the
game's ``past_moves``: Spades' bids), scores each world by the likelihood of the others'
moves under the policy's probabilities sharpened by the temperature (``p ** (1 / belief)``:
a Q-network's softmax is nearly flat, a policy's is itself at 1), and keeps ``worlds``
of them drawn without replacement in proportion to those likelihoods (Gumbel top-k).
A seat that bid high likely holds high cards; uniform worlds ignore that.

A hand is scored as the env scores it with ``relative_score``: the seat's
points less the mean of the others', over the game's score scale, and the
game's win bonus (the winners share +1, the others -1) when the hand ends the
game. A game may say what a hand is worth beyond its points (``Game.hand_worth``:
Spades charges each bag its share of the bag penalty, which the points alone
defer until the fifth). The play-outs run in lock step, one batched call of the policy per ply
(``Bot.act_batch``), which for a network is one matrix product for every world.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cardrl.agents.base import Bot
from cardrl.envs.contracts import PlayerView
from cardrl.envs.games import get_game
from cardrl.envs.rewards import win_bonus

# bumped when the same knobs start to choose other moves (a judged match names it):
# 2 = hands weighed by Game.hand_worth (Spades bags charged as they are made)
VERSION = 2
BELIEF_POOL = 4  # worlds dealt per world kept, when worlds are weighed by belief


def hand_value(points: Sequence[float] | None, over: bool, winners: Sequence[int], seat: int,
               score_scale: float, num_players: int, win_reward: float = 1.0) -> float:
    """What a finished hand paid ``seat``, as the env pays it by default: its ``points`` less
    the others' mean, over ``score_scale``, plus the win bonus if the game is ``over``
    (``cardrl.envs.rewards.win_bonus``). ``points`` None: no hand finished (only the win
    counts)."""
    value = 0.0
    if points is not None:
        others = (sum(points) - points[seat]) / (len(points) - 1)
        value = (points[seat] - others) / score_scale
    if over:
        value += win_bonus(seat, tuple(winners), num_players, win_reward)
    return value


def sharpened_log(probs: dict[int, float], action: int, temperature: float) -> float:
    """log of ``action``'s probability once ``probs`` are raised to ``1 / temperature`` and
    renormalized (a softmax of logits divided by the temperature); a zero probability
    counts as 1e-300 (a world where a rule bot's fixed choice differs is all but ruled out)."""
    logs = np.log(np.maximum(np.array(list(probs.values())), 1e-300)) / temperature
    top = logs.max()
    own = np.log(max(probs[action], 1e-300)) / temperature
    return float(own - top - np.log(np.exp(logs - top).sum()))


class SearchBot(Bot):
    """A policy improved by determinized play-outs (see the module docstring)."""

    card: dict  # loaded from a bot file (``cardrl.agents.learned.load``): its card; else unset

    def __init__(self, policy: Bot, game: str, worlds: int = 16, top_k: int = 3,
                 min_prior: float = 0.0, z: float = 0.0, belief: float = 0.0,
                 score_scale: float | None = None, seed: int | None = None) -> None:
        super().__init__(seed)
        g = get_game(game)
        if g.sample_worlds is None:
            raise ValueError(f"game {game!r} has no world sampler, so it cannot be searched")
        for knob, value, low in (("worlds", worlds, 1), ("top_k", top_k, 1)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"search {knob} must be an integer >= {low}, got {value!r}")
        if isinstance(min_prior, bool) or not isinstance(min_prior, int | float) \
                or not 0.0 <= min_prior < 1.0:
            raise ValueError(f"search min_prior must be in [0, 1), got {min_prior!r}")
        if isinstance(z, bool) or not isinstance(z, int | float) or not 0.0 <= z < 100:
            raise ValueError(f"search z must be a number in [0, 100), got {z!r}")
        if isinstance(belief, bool) or not isinstance(belief, int | float) \
                or not 0.0 <= belief < 100:
            raise ValueError(f"search belief must be a temperature in [0, 100) (0: uniform "
                             f"worlds), got {belief!r}")
        if belief and g.past_moves is None:
            raise ValueError(f"game {game!r} cannot replay its moves in a world, so its worlds "
                             f"cannot be weighed by belief")
        self.policy, self.game = policy, game
        self.worlds, self.top_k = worlds, top_k
        self.min_prior, self.z, self.belief = float(min_prior), float(z), float(belief)
        self._sample = g.sample_worlds
        self._past = g.past_moves
        self._worth = g.hand_worth
        # the env's hand scale (the searched games' scales do not depend on their rules)
        self.score_scale = float(score_scale if score_scale is not None
                                 else g.score_scale(g.get_rules(g.presets[0])))
        self.name = f"search({getattr(policy, 'name', policy)})"

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.policy.reset(seed)

    def candidates(self, view: PlayerView, legal: Sequence[int]) -> list[int]:
        """The moves worth a search: the policy's ``top_k`` likeliest with at least
        ``min_prior`` of its probability, likeliest first."""
        probs = self.policy.probabilities(view, legal)
        order = sorted(legal, key=lambda a: -probs[a])
        keep = [a for a in order[:self.top_k] if probs[a] >= self.min_prior]
        return keep or order[:1]

    def values(self, view: PlayerView, moves: Sequence[int]) -> np.ndarray:
        """Play-out values, one row per move, one column per sampled world (the same
        worlds for every move)."""
        worlds = self.sample(view)
        hands_before = len(worlds[0].results)
        states = []
        for move in moves:
            for w in worlds:
                s = w.clone()
                s.apply(move)
                states.append(s)
        self.play_out(states, hands_before)
        scores = []
        for s in states:
            points = (self._worth(s.rules, s.results[-1]) if len(s.results) > hands_before
                      else None)
            scores.append(hand_value(points, s.is_over, s.winners, view.seat, self.score_scale,
                                     len(s.scores)))
        return np.array(scores).reshape(len(moves), len(worlds))

    def sample(self, view: PlayerView) -> list:
        """The worlds to search: dealt uniformly, or with ``belief`` weighed by the
        likelihood of the others' moves so far and drawn from a larger pool."""
        if not self.belief:
            return list(self._sample(view, self.worlds, self.rng))
        pool = list(self._sample(view, BELIEF_POOL * self.worlds, self.rng))
        assert self._past is not None  # checked in __init__
        pasts = [self._past(view, w) for w in pool]
        flat = [m for past in pasts for m in past]
        if not flat:  # nothing done yet by another seat: every world is as likely
            return pool[:self.worlds]
        probs = self.policy.probabilities_batch([v for v, _, _ in flat],
                                                [legal for _, legal, _ in flat])
        logs, i = np.zeros(len(pool)), 0
        for k, past in enumerate(pasts):
            for (_, _, action), p in zip(past, probs[i:i + len(past)], strict=True):
                logs[k] += sharpened_log(p, action, self.belief)
            i += len(past)
        keys = logs + self.rng.gumbel(size=len(pool))
        return [pool[k] for k in np.argsort(-keys)[:self.worlds]]

    def play_out(self, states: list, hands_before: int) -> None:
        """Play every state to the end of its hand, the policy in every seat."""
        live = [s for s in states if not s.is_over and len(s.results) == hands_before]
        while live:
            views = [s.view(s.current_player) for s in live]
            legals = [s.legal_actions() for s in live]
            for s, a in zip(live, self.policy.act_batch(views, legals), strict=True):
                s.apply(a)
            live = [s for s in live if not s.is_over and len(s.results) == hands_before]

    def act(self, view: PlayerView, legal_actions: Sequence[int]) -> int:
        legal = [int(a) for a in legal_actions]
        if not legal:
            raise ValueError(f"{self.name}: no legal actions to choose from")
        if len(legal) == 1:
            return legal[0]
        moves = self.candidates(view, legal)
        if len(moves) == 1:
            return moves[0]
        return moves[self.choose(self.values(view, moves))]

    def choose(self, values: np.ndarray) -> int:
        """The row of ``values`` to play: the policy's choice (row 0) unless another row's
        mean beats it by more than ``z`` standard errors of the paired differences;
        the best such row, ties to the likelier move."""
        diff = values[1:] - values[0]
        n = values.shape[1]
        gain = diff.mean(axis=1)
        se = diff.std(axis=1, ddof=1) / np.sqrt(n) if n > 1 else np.zeros(len(diff))
        clear = gain > self.z * se  # z, se >= 0: a clear gain is a gain
        if not clear.any():
            return 0
        return 1 + int(np.argmax(np.where(clear, gain, -np.inf)))
