"""Exact equilibria of two-player Blind Auction and the bot that plays them.

``solution(n, tie_rule)`` solves the game with ``cards_per_suit = n`` once per
process (``cardrl.agents.blind_auction.tree``: backward induction over public states,
each round's matrix game solved exactly by linear programming) and keeps it:
about 0.3 s for n <= 6, seconds for 7, and a minute for the largest sizes
offered (``MAX_CARDS``). The payoff is the score difference, so the equilibrium
maximises expected margin, not the chance of winning.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from cardrl.agents.base import Bot
from cardrl.agents.blind_auction.tree import PublicTree, Solution, solve
from cardrl.envs.blind_auction.view import BlindAuctionView

# the largest cards_per_suit solved per tie rule (each solves in under a minute)
MAX_CARDS = {"discard": 8, "split": 8, "carry": 7}


def check_solvable(num_players: int, cards_per_suit: int, tie_rule: str) -> None:
    if num_players != 2 or cards_per_suit > MAX_CARDS.get(tie_rule, 0):
        raise ValueError(
            f"the exact equilibrium covers 2 players with cards_per_suit up to "
            f"{MAX_CARDS.get(tie_rule)} for tie_rule {tie_rule!r}; got {num_players} players, "
            f"cards_per_suit {cards_per_suit}")


@functools.cache
def solution(cards_per_suit: int, tie_rule: str = "discard") -> Solution:
    """The solved game (cached per process)."""
    check_solvable(2, cards_per_suit, tie_rule)
    return solve(PublicTree(cards_per_suit, tie_rule))


def _mask(card_ids: Sequence[int]) -> int:
    m = 0
    for c in card_ids:
        m |= 1 << (c % 13)
    return m


def public_state(view: BlindAuctionView) -> tuple[int, int, int, int, int]:
    """(k, seat 0's ranks, seat 1's ranks, prizes left, carried) as bit masks, at the
    start of the round (a bid made this round is still among its bidder's cards)."""
    rem = view.remaining
    return (len(view.prizes_left), _mask(rem[0]), _mask(rem[1]), _mask(view.prizes_left),
            _mask(view.carried))


def equilibrium_mix(view: BlindAuctionView) -> tuple[list[int], np.ndarray]:
    """(own ranks ascending, equilibrium probabilities) at the view's round."""
    rules = view.rules
    check_solvable(rules.num_players, rules.cards_per_suit, rules.tie_rule)
    sol = solution(rules.cards_per_suit, rules.tie_rule)
    k, a, b, p, c = public_state(view)
    index = sol.tree.find(k, a, b, p, c)
    mixes = sol.row if view.seat == 0 else sol.col
    own = sorted(x % 13 for x in view.remaining[view.seat])
    return own, mixes[k][index]


class EquilibriumBot(Bot):
    """Plays the exact equilibrium mix of its public state (2 players, small decks)."""

    game = "blind_auction"
    markov = True
    # the first move at a size solves the game (up to a minute): a front end runs this
    # bot away from its event loop (web.bots)
    slow = True

    def check_rules(self, rules) -> None:
        """Raise ValueError, saying why, unless these rules are solved here (a front end
        offers the bot only for rules it can play)."""
        check_solvable(rules.num_players, rules.cards_per_suit, rules.tie_rule)

    def action_probs(self, view: BlindAuctionView, legal_actions: Sequence[int]) -> np.ndarray:
        own, mix = equilibrium_mix(view)
        probs = dict(zip(own, mix, strict=True))
        return np.array([probs[a] for a in legal_actions])

    def act(self, view: BlindAuctionView, legal_actions: Sequence[int]) -> int:
        probs = self.action_probs(view, legal_actions)
        return int(legal_actions[int(self.rng.choice(len(probs), p=probs / probs.sum()))])
