"""The configurable Spades rule bot and its presets (``BOTS``, the registry's table).

One bot = a bidding strategy + a play policy. Every option can be set on any
preset: ``cardrl.agents.make("spades/count-bid:nil=set-safe,prefer=avoid-over")``.

    bid=     spade-count | count | modified | contract   (B2.1, B2.2, B2.3/B2.4)
    lead=    default | p2.2 | smart                  (P2.2)
    nil=     ignore | set-safe | set-always | ignore-if-winning   (P4.1-P4.4)
    prefer=  avoid-under | avoid-over                (P1.2)
    play=    basic | expert
"""

from __future__ import annotations

from collections.abc import Sequence

from cardrl.agents.base import Bot
from cardrl.agents.spades.bidding import BID_STRATEGIES, legal_bid
from cardrl.agents.spades.leads import LEAD_STRATEGIES
from cardrl.agents.spades.play import NIL_RESPONSES, PLAY_POLICIES, PREFERENCES
from cardrl.envs.spades.actions import action_card, card_action
from cardrl.envs.spades.tracking import Knowledge
from cardrl.envs.spades.view import SpadesView


def _check(option: str, value, choices) -> None:
    if value not in choices:
        raise ValueError(f"bad value {value!r} for Spades bot option {option!r}; "
                         f"choose from {', '.join(choices)}")


class SpadesRuleBot(Bot):
    """A rule-based Spades player; deterministic, it reads only its view (A4.2)."""

    game = "spades"

    def __init__(self, seed: int | None = None, bid: str = "count", lead: str = "default",
                 nil: str = "ignore", prefer: str = "avoid-under", play: str = "basic") -> None:
        super().__init__(seed)
        _check("bid", bid, tuple(BID_STRATEGIES))
        _check("lead", lead, tuple(LEAD_STRATEGIES))
        _check("nil", nil, NIL_RESPONSES)
        _check("prefer", prefer, PREFERENCES)
        _check("play", play, tuple(PLAY_POLICIES))
        self.options = {"bid": bid, "lead": lead, "nil": nil, "prefer": prefer, "play": play}
        self.bid_strategy = BID_STRATEGIES[bid]
        self.prefer = prefer
        self.policy = PLAY_POLICIES[play](lead=lead, nil=nil, prefer=prefer)

    def act(self, view: SpadesView, legal_actions: Sequence[int]) -> int:
        legal = list(legal_actions)
        if view.phase == "bid":
            return legal_bid(self.bid_strategy(view), legal, self.prefer)
        card = self.policy.choose(Knowledge(view), [action_card(a) for a in legal])
        return card_action(card)


PRESETS = {
    "spades/rule": ({}, "configurable rule bot; options bid=, lead=, nil=, prefer=, play="),
    "spades/spade-count": (
        {"bid": "spade-count"}, "bid the number of spades held (B2.1); basic play"),
    "spades/count-bid": (
        {"bid": "count", "lead": "p2.2"},
        "count bid A=1 K=1/2 Q=1/4, spades beyond four (B2.2); P2.2 leads, basic play"),
    "spades/modified-count": (
        {"bid": "modified", "lead": "p2.2", "nil": "set-safe"},
        "modified count with short suits and nil bids (B2.3/B2.4); basic play, sets nils"),
    "spades/expert": (
        {"bid": "contract", "lead": "smart", "nil": "ignore-if-winning", "play": "expert"},
        "card-counting player: voids, masters, ducking, nil attack and defence"),
}


def _preset(defaults: dict):
    def factory(seed: int | None = None, **options) -> SpadesRuleBot:
        return SpadesRuleBot(seed, **{**defaults, **options})
    return factory


# bot name -> (factory, help): what ``cardrl.agents.registry`` offers
BOTS = {name: (_preset(defaults), text) for name, (defaults, text) in PRESETS.items()}
