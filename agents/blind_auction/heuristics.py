"""Rule bots for Blind Auction: the natural heuristics, each a deterministic policy.

Every bot here decides from what its view makes public at the start of a round
(own cards, the others' cards not yet shown, the prizes still face down as a
set, the carried prizes), so it is a *public-state policy* (``markov = True``),
and ``action_probs`` gives its (one-hot) mix, which the exact best response of
``cardrl.agents.blind_auction.exploit`` reads.

    match       bid the card whose value is nearest the expected prize
                (mean of the prizes still face down, plus the carried prizes)
    high-early  bid your highest card (win the early prizes)
    save-high   bid your lowest card, your highest when prizes are carried
    mirror      expect each opponent to bid the median of its cards left; bid
                your lowest card that beats them all, or your lowest if none does
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cardrl.agents.base import Bot
from cardrl.envs.blind_auction.rules import value
from cardrl.envs.blind_auction.view import BlindAuctionView


def expected_prize(view: BlindAuctionView) -> float:
    """Expected points of this round's prizes: mean prize still face down plus the carried."""
    left = [value(c % 13) for c in view.prizes_left]
    return (sum(left) / len(left) if left else 0.0) + sum(value(c % 13) for c in view.carried)


class BlindAuctionBot(Bot):
    """A deterministic public-state policy: subclasses give ``choose(view, ranks)``."""

    game = "blind_auction"
    markov = True  # acts on the public state only: see agents.blind_auction.exploit

    def choose(self, view: BlindAuctionView, ranks: list[int]) -> int:
        raise NotImplementedError

    def act(self, view: BlindAuctionView, legal_actions: Sequence[int]) -> int:
        return self.choose(view, sorted(legal_actions))

    def action_probs(self, view: BlindAuctionView, legal_actions: Sequence[int]) -> np.ndarray:
        """This bot's mix over ``legal_actions`` (one-hot: it is deterministic)."""
        probs = np.zeros(len(legal_actions))
        probs[list(legal_actions).index(self.act(view, legal_actions))] = 1.0
        return probs


class MatchBot(BlindAuctionBot):
    def choose(self, view, ranks):
        target = expected_prize(view)
        return min(ranks, key=lambda r: (abs(value(r) - target), r))


class HighEarlyBot(BlindAuctionBot):
    def choose(self, view, ranks):
        return ranks[-1]


class SaveHighBot(BlindAuctionBot):
    def choose(self, view, ranks):
        return ranks[-1] if view.carried else ranks[0]


class MirrorBot(BlindAuctionBot):
    def choose(self, view, ranks):
        predicted = [_median_rank(view.remaining[s]) for s in range(view.num_players)
                     if s != view.seat and view.remaining[s]]
        beats = [r for r in ranks if all(r > p for p in predicted)]
        return beats[0] if beats else ranks[0]


def _median_rank(card_ids: Sequence[int]) -> int:
    ranks = sorted(c % 13 for c in card_ids)
    return ranks[(len(ranks) - 1) // 2]  # the lower median


HEURISTICS = {
    "blind_auction/match": (MatchBot, "bid the card nearest the expected prize value"),
    "blind_auction/high-early": (HighEarlyBot, "bid the highest card (win early prizes)"),
    "blind_auction/save-high": (SaveHighBot,
                                "bid the lowest card; the highest when prizes are carried"),
    "blind_auction/mirror": (MirrorBot, "beat each opponent's median remaining card cheaply, "
                                        "else bid the lowest"),
}
