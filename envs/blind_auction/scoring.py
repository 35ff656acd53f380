"""Resolving a Blind Auction round (docs/rules.md section 4) and the records it leaves.

``resolve`` is the whole scoring table: the single highest bid takes the prize
and every carried prize; a tie for highest discards the prize, carries it, or
gives each tied player half of its value, as ``tie_rule`` says.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from cardrl.envs import cards
from cardrl.envs.blind_auction.rules import value


def resolve(tie_rule: str, bids: Sequence[int], prize_value: int,
            carried_value: int) -> tuple[tuple[int, ...], list[float], bool]:
    """(seats that score, points per seat, prize carried on?) for one round.

    ``bids`` are rank indices by seat; ``carried_value`` is the value of the
    prizes carried into this round (only ever non-zero with ``carry``).
    """
    top = max(bids)
    points: list[float] = [0] * len(bids)
    tops: tuple[int, ...]
    if bids.count(top) == 1:
        tops = (bids.index(top),)
        points[tops[0]] = prize_value + carried_value
        return tops, points, False
    tops = tuple(s for s, b in enumerate(bids) if b == top)
    if tie_rule == "split":
        half = prize_value // 2 if prize_value % 2 == 0 else prize_value / 2
        for s in tops:
            points[s] = half
        return tops, points, False
    return (), points, tie_rule == "carry"


class RoundResult(NamedTuple):
    """One resolved round: its prize, every seat's bid, who scored and what.

    A named tuple: made once a round on the env's hot path, where a frozen
    dataclass costs several times more to build."""

    number: int  # 1 for the first round
    prize: int  # card id of the round's prize (a diamond)
    bids: tuple[int, ...]  # card id each seat bid
    scorers: tuple[int, ...]  # seats that scored: the winner, the split ties, or none
    taken: tuple[int, ...]  # prize ids the scorers took: this one and any carried; () if none
    points: tuple[float, ...]  # points per seat this round
    carried: bool  # the prize stays on the table for the next round

    def to_dict(self) -> dict:
        return {"number": self.number, "prize": cards.name(self.prize),
                "bids": cards.names(self.bids), "scorers": list(self.scorers),
                "taken": cards.names(self.taken), "points": list(self.points),
                "carried": self.carried}

    @classmethod
    def from_dict(cls, d: dict) -> RoundResult:
        return cls(int(d["number"]), cards.parse(d["prize"]), tuple(cards.parse_many(d["bids"])),
                   tuple(d["scorers"]), tuple(cards.parse_many(d["taken"])), tuple(d["points"]),
                   bool(d["carried"]))


class HandResult(NamedTuple):
    """The end of a game (one hand): prize order, points and totals per seat."""

    hand_number: int
    prizes: tuple[int, ...]  # the prize order, card ids
    points: tuple[float, ...]
    totals: tuple[float, ...]
    unclaimed: tuple[int, ...]  # prizes nobody took (discarded, or carried past the end)

    def to_dict(self) -> dict:
        return {"hand_number": self.hand_number, "prizes": cards.names(self.prizes),
                "points": list(self.points), "totals": list(self.totals),
                "unclaimed": cards.names(self.unclaimed)}

    @classmethod
    def from_dict(cls, d: dict) -> HandResult:
        return cls(int(d["hand_number"]), tuple(cards.parse_many(d["prizes"])),
                   tuple(d["points"]), tuple(d["totals"]), tuple(cards.parse_many(d["unclaimed"])))


def prize_value(card_id: int) -> int:
    return value(cards.rank_of(card_id))
