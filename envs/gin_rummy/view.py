"""What one Gin Rummy seat may know: built only by ``GinRummyState.view(seat)``.

Bots, encoders and front ends see this, never the state. Besides its own hand
a seat knows everything done in the open: the whole discard pile in order,
which cards each player took from it and which it discarded (so which cards
are known to be in another hand), the stock size, scores and whose turn it is.
``to_dict`` gives the JSON form a front end in any language sends to a bot.
"""

from __future__ import annotations

from dataclasses import dataclass

from cardrl.envs import cards, rules_base
from cardrl.envs.gin_rummy.melds import deadwood, mask_of
from cardrl.envs.gin_rummy.rules import PRESETS, GinRummyRules
from cardrl.envs.gin_rummy.scoring import HandResult

_PER_SEAT = ("picked", "discarded", "known")


@dataclass(frozen=True, slots=True)
class GinRummyView:
    rules: GinRummyRules
    seat: int
    phase: str  # "draw", "discard" or "over"
    current_player: int | None
    dealer: int
    hand_number: int  # 1 for the first hand of the game
    hand: tuple[int, ...]  # own cards, sorted ids
    pile: tuple[int, ...]  # the discard pile, bottom (the first up card) first, top last
    stock_size: int
    taken: int | None  # the card the player to act took from the pile this turn
    picked: tuple[tuple[int, ...], ...]  # per seat, cards taken from the pile this hand
    discarded: tuple[tuple[int, ...], ...]  # per seat, cards discarded this hand, in order
    known: tuple[tuple[int, ...], ...]  # per seat, taken cards it still holds
    scores: tuple[int, ...]
    last_hand: HandResult | None  # summary of the previous hand
    winners: tuple[int, ...]  # set when the game is over

    game = "gin_rummy"

    @property
    def num_players(self) -> int:
        return len(self.scores)

    @property
    def top(self) -> int | None:
        """The card on top of the discard pile (None if empty)."""
        return self.pile[-1] if self.pile else None

    @property
    def deadwood(self) -> int:
        """Least deadwood of the own hand as held (10 cards, or 11 before a discard)."""
        return deadwood(mask_of(self.hand))

    def to_dict(self) -> dict:
        """JSON-ready form: cards by name."""
        d = {
            "game": self.game,
            "rules": rules_base.to_dict(self.rules),
            "seat": self.seat,
            "phase": self.phase,
            "current_player": self.current_player,
            "dealer": self.dealer,
            "hand_number": self.hand_number,
            "hand": cards.names(self.hand),
            "pile": cards.names(self.pile),
            "stock_size": self.stock_size,
            "taken": None if self.taken is None else cards.name(self.taken),
            "scores": list(self.scores),
            "last_hand": self.last_hand.to_dict() if self.last_hand else None,
            "winners": list(self.winners),
        }
        for key in _PER_SEAT:
            d[key] = [cards.names(cs) for cs in getattr(self, key)]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> GinRummyView:
        """Rebuild a view from ``to_dict`` output (e.g. sent by another program)."""
        rules = rules_base.view_rules(d, "gin_rummy", GinRummyRules, PRESETS)
        return cls(
            rules=rules,
            seat=int(d["seat"]),
            phase=d["phase"],
            current_player=d["current_player"],
            dealer=d["dealer"],
            hand_number=d["hand_number"],
            hand=tuple(sorted(cards.parse_many(d["hand"]))),
            pile=tuple(cards.parse_many(d["pile"])),
            stock_size=int(d["stock_size"]),
            taken=None if d["taken"] is None else cards.parse(d["taken"]),
            scores=tuple(d["scores"]),
            last_hand=HandResult.from_dict(d["last_hand"]) if d["last_hand"] else None,
            winners=tuple(d["winners"]),
            **{key: tuple(tuple(cards.parse_many(cs)) for cs in d[key]) for key in _PER_SEAT},
        )
