"""What one Sevens seat may know: built only by ``SevensState.view(seat)``.

Everything in Sevens is public except the other players' hands: the parameters,
the table cards, every play with its chosen value, the total, the points and
how many cards each player holds. ``to_dict`` is the JSON form (cards by name)
that a bot in another process or language receives.
"""

from __future__ import annotations

from dataclasses import dataclass

from cardrl.envs import cards, rules_base
from cardrl.envs.sevens.rules import PRESETS, Parameters, SevensRules

Play = tuple[int, int, int]  # (seat, card id, value it was played at)


@dataclass(frozen=True, slots=True)
class SevensView:
    rules: SevensRules
    seat: int
    num_players: int
    params: Parameters  # this game's permitted values and point amounts
    table: tuple[int, ...]  # cards dealt face up before play, in deal order
    plays: tuple[Play, ...]  # every card played from a hand, in order
    total: int  # running total of all cards on the table
    last_card: int  # the most recently placed card (a table card before the first play)
    hand: tuple[int, ...]  # own cards, sorted ids
    hand_sizes: tuple[int, ...]  # cards each seat still holds
    scores: tuple[int, ...]  # points per seat so far
    current_player: int | None
    winners: tuple[int, ...]  # set when the game is over

    game = "sevens"

    @property
    def phase(self) -> str:
        return "over" if self.current_player is None else "play"

    def unseen(self) -> list[int]:
        """Cards this seat has not seen: in the other players' hands (sorted ids)."""
        seen = set(self.hand)
        seen.update(self.table)
        seen.update(c for _, c, _ in self.plays)
        return [c for c in range(52) if c not in seen]

    def to_dict(self) -> dict:
        return {
            "game": self.game,
            "rules": rules_base.to_dict(self.rules),
            "seat": self.seat,
            "num_players": self.num_players,
            "params": self.params.to_dict(),
            "table": cards.names(self.table),
            "plays": [[s, cards.name(c), v] for s, c, v in self.plays],
            "total": self.total,
            "last_card": cards.name(self.last_card),
            "hand": cards.names(self.hand),
            "hand_sizes": list(self.hand_sizes),
            "scores": list(self.scores),
            "current_player": self.current_player,
            "winners": list(self.winners),
        }

    @classmethod
    def from_dict(cls, d: dict) -> SevensView:
        """Rebuild a view from ``to_dict`` output (e.g. sent by another program)."""
        rules = rules_base.view_rules(d, "sevens", SevensRules, PRESETS)
        return cls(
            rules=rules,
            seat=int(d["seat"]),
            num_players=int(d["num_players"]),
            params=Parameters.from_dict(d["params"]),
            table=tuple(cards.parse_many(d["table"])),
            plays=tuple((int(s), cards.parse(c), int(v)) for s, c, v in d["plays"]),
            total=int(d["total"]),
            last_card=cards.parse(d["last_card"]),
            hand=tuple(sorted(cards.parse_many(d["hand"]))),
            hand_sizes=tuple(d["hand_sizes"]),
            scores=tuple(d["scores"]),
            current_player=d["current_player"],
            winners=tuple(d["winners"]),
        )
