"""Spades rules (docs/rules.md section 1): one frozen dataclass, two named presets.

Every number the engine uses comes from here; the seed requirement ids are
quoted beside the fields they decide.
"""

from __future__ import annotations

from dataclasses import dataclass

from cardrl.envs.rules_base import GameRules, editable, lookup

NUM_PLAYERS = 4
HAND_SIZE = 13
NUM_TRICKS = 13
MAX_BID = 13


class RulesError(ValueError):
    """A rules field with a value the engine cannot play."""


@dataclass(frozen=True)
class SpadesRules(GameRules):
    """All options of Spades. Presets: ``KILLER`` and ``CUTTHROAT``."""

    title = "Spades"  # not fields: no annotations (see envs.rules_base)
    error = RulesError

    preset: str = "custom"
    first_dealer: int | None = 0  # seat of the first dealer; None = random from the seed (A2.1)
    bids_may_total_tricks: bool = True  # False: the last bidder may not make the bids sum to 13
    spades_must_be_broken: bool = True  # spades may not be led until broken (P2.1)
    points_per_bid_trick: int = 10  # made or set: +/- this x bid (S1, S2)
    overtrick_points: int = -10  # per trick over the bid (S3: -10; cutthroat: +1)
    bag_limit: int | None = None  # None: no bags; else each time bags reach it, a penalty
    bag_penalty: int = 50
    nil_points: int = 100  # nil made +, failed - (S4, S4.1)
    # game ends after a hand where a total passes it (S5)
    target: int = editable(250, low=1, high=10_000)
    target_inclusive: bool = False  # False: total > target; True: total >= target
    jokers: bool = editable(False, kind=bool)  # 2C and 2D leave; BJ > LJ > AS, both count as spades
    # safety cap; None = play on until someone wins
    max_hands: int | None = editable(None, low=1, high=100, none=True)

    def __post_init__(self) -> None:
        if self.first_dealer is not None and self.first_dealer not in range(NUM_PLAYERS):
            raise RulesError(f"first_dealer must be a seat 0..3 or None, got {self.first_dealer!r}")
        if self.bag_limit is not None and self.bag_limit < 1:
            raise RulesError(f"bag_limit must be None or at least 1, got {self.bag_limit!r}")
        if self.max_hands is not None and self.max_hands < 1:
            raise RulesError(f"max_hands must be None or at least 1, got {self.max_hands!r}")
        for name in ("points_per_bid_trick", "overtrick_points", "bag_penalty", "nil_points",
                     "target"):
            if not isinstance(getattr(self, name), int):
                raise RulesError(f"{name} must be an int, got {getattr(self, name)!r}")

    def reached_target(self, total: int) -> bool:
        return total >= self.target if self.target_inclusive else total > self.target


KILLER = SpadesRules(preset="killer")

CUTTHROAT = SpadesRules(
    preset="cutthroat",
    bids_may_total_tricks=False,
    spades_must_be_broken=False,
    overtrick_points=1,
    bag_limit=5,
    nil_points=50,
    target=500,
    target_inclusive=True,
)

PRESETS = {"killer": KILLER, "cutthroat": CUTTHROAT}


def get_rules(preset: str | SpadesRules = "killer", **changes) -> SpadesRules:
    """Rules from a preset name (or rules object), with optional field changes."""
    return lookup(SpadesRules, PRESETS, preset, changes)
