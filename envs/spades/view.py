"""What one Spades seat may know: built only by ``SpadesState.view(seat)``.

Bots, encoders and front ends see this, never the state, so "no peeking" holds
by construction. ``to_dict`` gives the JSON form a front end in any language
sends to a bot (cards by name).
"""

from __future__ import annotations

from dataclasses import dataclass

from cardrl.envs import cards, rules_base
from cardrl.envs.spades.rules import PRESETS, SpadesRules
from cardrl.envs.spades.scoring import HandResult

Play = tuple[int, int]  # (seat, card id)


@dataclass(frozen=True, slots=True)
class SpadesView:
    rules: SpadesRules
    seat: int
    phase: str  # "bid", "play" or "over"
    current_player: int | None
    dealer: int
    hand_number: int  # 1 for the first hand of the game
    hand: tuple[int, ...]  # own cards, sorted ids
    bids: tuple[int | None, ...]  # per seat; None = not bid yet
    tricks: tuple[int, ...]  # tricks taken this hand, per seat
    plays: tuple[Play, ...]  # every card played this hand, in order
    trick: tuple[Play, ...]  # the trick on the table, leader first
    leader: int  # seat that leads (or led) the trick on the table
    spades_broken: bool
    voids: tuple[int, ...]  # per seat a bit mask: bit s set = shown to hold no suit s
    scores: tuple[int, ...]
    bags: tuple[int, ...]
    last_trick: tuple[Play, ...]  # the previous completed trick of this hand
    last_trick_winner: int | None
    last_hand: HandResult | None  # summary of the previous hand (A3.6)
    winners: tuple[int, ...]  # set when the game is over

    game = "spades"

    @property
    def num_players(self) -> int:
        return 4

    def shown_void(self, seat: int, suit: int) -> bool:
        return bool(self.voids[seat] >> suit & 1)

    def to_dict(self) -> dict:
        """JSON-ready form: cards by name, plays as [seat, name] pairs."""

        def plays(ps):
            return [[s, cards.name(c)] for s, c in ps]

        return {
            "game": self.game,
            "rules": rules_base.to_dict(self.rules),
            "seat": self.seat,
            "phase": self.phase,
            "current_player": self.current_player,
            "dealer": self.dealer,
            "hand_number": self.hand_number,
            "hand": cards.names(self.hand),
            "bids": list(self.bids),
            "tricks": list(self.tricks),
            "plays": plays(self.plays),
            "trick": plays(self.trick),
            "leader": self.leader,
            "spades_broken": self.spades_broken,
            "voids": [[cards.SUITS[s] for s in range(4) if v >> s & 1] for v in self.voids],
            "scores": list(self.scores),
            "bags": list(self.bags),
            "last_trick": plays(self.last_trick),
            "last_trick_winner": self.last_trick_winner,
            "last_hand": self.last_hand.to_dict() if self.last_hand else None,
            "winners": list(self.winners),
        }

    @classmethod
    def from_dict(cls, d: dict) -> SpadesView:
        """Rebuild a view from ``to_dict`` output (e.g. sent by another program)."""
        rules = rules_base.view_rules(d, "spades", SpadesRules, PRESETS)

        def plays(ps):
            return tuple((int(s), cards.parse(c)) for s, c in ps)

        return cls(
            rules=rules,
            seat=int(d["seat"]),
            phase=d["phase"],
            current_player=d["current_player"],
            dealer=d["dealer"],
            hand_number=d["hand_number"],
            hand=tuple(sorted(cards.parse_many(d["hand"]))),
            bids=tuple(d["bids"]),
            tricks=tuple(d["tricks"]),
            plays=plays(d["plays"]),
            trick=plays(d["trick"]),
            leader=d["leader"],
            spades_broken=bool(d["spades_broken"]),
            voids=tuple(sum(1 << cards.SUITS.index(s) for s in v) for v in d["voids"]),
            scores=tuple(d["scores"]),
            bags=tuple(d["bags"]),
            last_trick=plays(d["last_trick"]),
            last_trick_winner=d["last_trick_winner"],
            last_hand=HandResult.from_dict(d["last_hand"]) if d["last_hand"] else None,
            winners=tuple(d["winners"]),
        )

