"""What one Blind Auction seat may know: built only by ``BlindAuctionState.view(seat)``.

Public: every seat's unrevealed cards (a bid is shown when its round resolves),
who has bid this round (not what), every resolved round (prize, bids, who
scored), the carried prizes, the prizes not yet turned up (as a set: their
order is hidden), scores. Private: the seat's own bid this round.
"""

from __future__ import annotations

from dataclasses import dataclass

from cardrl.envs import cards, rules_base
from cardrl.envs.blind_auction.rules import PRESETS, BlindAuctionRules
from cardrl.envs.blind_auction.scoring import RoundResult


@dataclass(frozen=True, slots=True)
class BlindAuctionView:
    rules: BlindAuctionRules
    seat: int
    current_player: int | None  # None once the game is over
    hand: tuple[int, ...]  # own cards that may still be bid (sorted ids)
    chosen: int | None  # own bid this round, until the round resolves
    remaining: tuple[tuple[int, ...], ...]  # per seat: cards not yet shown (bids pending incl.)
    acted: tuple[bool, ...]  # per seat: has bid this round
    rounds: tuple[RoundResult, ...]  # every resolved round, in order
    carried: tuple[int, ...]  # prize ids carried into this round (tie_rule carry)
    prizes_left: tuple[int, ...]  # prize ids not yet turned up, sorted (order hidden)
    scores: tuple[float, ...]
    winners: tuple[int, ...]  # set when the game is over

    game = "blind_auction"

    @property
    def num_players(self) -> int:
        return self.rules.num_players

    @property
    def rounds_played(self) -> int:
        return len(self.rounds)

    @property
    def round_number(self) -> int:
        """1 for the first round; the last round's number once the game is over."""
        return min(len(self.rounds) + 1, self.rules.cards_per_suit)

    @property
    def is_over(self) -> bool:
        return self.current_player is None

    def to_dict(self) -> dict:
        """JSON-ready form: cards by name."""
        return {
            "game": self.game,
            "rules": rules_base.to_dict(self.rules),
            "seat": self.seat,
            "current_player": self.current_player,
            "hand": cards.names(self.hand),
            "chosen": None if self.chosen is None else cards.name(self.chosen),
            "remaining": [cards.names(r) for r in self.remaining],
            "acted": list(self.acted),
            "rounds": [r.to_dict() for r in self.rounds],
            "carried": cards.names(self.carried),
            "prizes_left": cards.names(self.prizes_left),
            "scores": list(self.scores),
            "winners": list(self.winners),
        }

    @classmethod
    def from_dict(cls, d: dict) -> BlindAuctionView:
        """Rebuild a view from ``to_dict`` output (e.g. sent by another program)."""
        rules = rules_base.view_rules(d, "blind_auction", BlindAuctionRules, PRESETS)
        return cls(
            rules=rules,
            seat=int(d["seat"]),
            current_player=d["current_player"],
            hand=tuple(sorted(cards.parse_many(d["hand"]))),
            chosen=None if d["chosen"] is None else cards.parse(d["chosen"]),
            remaining=tuple(tuple(sorted(cards.parse_many(r))) for r in d["remaining"]),
            acted=tuple(bool(a) for a in d["acted"]),
            rounds=tuple(RoundResult.from_dict(x) for x in d["rounds"]),
            carried=tuple(cards.parse_many(d["carried"])),
            prizes_left=tuple(sorted(cards.parse_many(d["prizes_left"]))),
            scores=tuple(d["scores"]),
            winners=tuple(d["winners"]),
        )
