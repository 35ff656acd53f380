"""Sevens scoring: the points a play earns from the running total (docs/rules.md section 3)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


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


TOTAL_RANGE = 2048  # |totals| the kind table covers (drawn values stay far below)
# per total in -TOTAL_RANGE..TOTAL_RANGE: 0 no points, 1 divisible only, 2 contains only, 3 both
KIND = np.array([(t % 7 == 0) + 2 * ("7" in str(abs(t)))
                  for t in range(-TOTAL_RANGE, TOTAL_RANGE + 1)], dtype=np.intp)


def kinds(totals: np.ndarray) -> np.ndarray:
    """Per total, which points it scores: 0 none, 1 divisible only, 2 contains only,
    3 both (an index into ``(0, *points)``)."""
    totals = np.asarray(totals)
    if totals.size and (totals.min() < -TOTAL_RANGE or totals.max() > TOTAL_RANGE):
        return np.vectorize(lambda t: (t % 7 == 0) + 2 * ("7" in str(abs(t))),
                            otypes=[np.intp])(totals)
    return KIND[totals + TOTAL_RANGE]


def points_for_totals(totals: np.ndarray, points: tuple[int, int, int]) -> np.ndarray:
    """``points_for_total`` of every entry of an int array: one table lookup (the
    encoder and the lookahead score every play and reply of a view at once)."""
    return np.array((0, *points), dtype=np.int64)[kinds(totals)]


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
