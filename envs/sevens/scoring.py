"""Sevens scoring: the points a play earns from the running total (RULES.md section 3)."""

from __future__ import annotations

from dataclasses import dataclass


def divisible_by_seven(total: int) -> bool:
    """0 counts; negative totals too (-14 is divisible)."""
    return total % 7 == 0


def contains_seven(total: int) -> bool:
    """The decimal form of ``abs(total)`` has the digit 7 (17, -70, 707)."""
    return "7" in str(abs(total))


def points_for_total(total: int, points: tuple[int, int, int]) -> int:
    """Points for the player whose card made ``total``: divisible only, contains only, both."""
    div = total % 7 == 0
    has7 = "7" in str(abs(total))
    if div:
        return points[2] if has7 else points[0]
    return points[1] if has7 else 0


@dataclass(frozen=True, slots=True)
class HandResult:
    """The end-of-game summary (a game is one hand): points per seat and the final total."""

    hand_number: int
    points: tuple[int, ...]
    totals: tuple[int, ...]  # the same as points: one hand is the whole game
    final_total: int

    def to_dict(self) -> dict:
        return {"hand_number": self.hand_number, "points": list(self.points),
                "totals": list(self.totals), "final_total": self.final_total}

    @classmethod
    def from_dict(cls, d: dict) -> HandResult:
        return cls(d["hand_number"], tuple(d["points"]), tuple(d["totals"]), d["final_total"])
