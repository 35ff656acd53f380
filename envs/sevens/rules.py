"""Sevens rules (docs/rules.md section 3): the player count and the game parameters.

A game of Sevens has public parameters announced before play: for each of the
13 symbols one or two permitted score values, and three point amounts (total
divisible by 7 only, total containing the digit 7 only, both). By default they
are drawn per game from the game's seed within the ranges below; a caller may
fix them instead (``values=``, ``points=``). Symbols are indexed like card
ranks in ``cardrl.envs.cards``: 0 = '2' .. 8 = '10', 9 = J, 10 = Q, 11 = K, 12 = A.

Default ranges (our choice; the seed leaves them open), all inclusive:

* a symbol's first value: an integer in ``value_min .. value_max`` (-6 .. 13),
  so totals wander up and down and may go negative;
* with chance ``second_value_chance`` (0.5) a second, different value from
  the same range;
* each point amount: an integer in ``points_min .. points_max`` (-10 .. 10),
  drawn separately for "divisible by 7", "contains a 7" and "both".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cardrl.envs import cards
from cardrl.envs.rules_base import GameRules, editable, lookup

MIN_PLAYERS, MAX_PLAYERS = 2, 9
NUM_SYMBOLS = 13
DECK_SIZE = 52
SYMBOLS = cards.RANKS  # '2' .. '10', 'J', 'Q', 'K', 'A': index = card rank
POINT_KINDS = ("divisible", "contains", "both")  # order of the three point amounts


class RulesError(ValueError):
    """A rules field with a value the engine cannot play."""


def hand_size(num_players: int) -> int:
    """Cards per player: k = floor(51 / n), so at least one card goes to the table."""
    return (DECK_SIZE - 1) // num_players


@dataclass(frozen=True, slots=True)
class Parameters:
    """The public parameters of one game: permitted values per symbol, point amounts."""

    values: tuple[tuple[int, ...], ...]  # [symbol] -> (first,) or (first, second)
    points: tuple[int, int, int]  # divisible by 7 only, contains a 7 only, both

    def to_dict(self) -> dict:
        return {"values": [list(v) for v in self.values], "points": list(self.points)}

    @classmethod
    def from_dict(cls, d: dict) -> Parameters:
        return cls(check_values(d["values"]), check_points(d["points"]))


def _is_int(x) -> bool:
    return isinstance(x, int | np.integer) and not isinstance(x, bool)


def check_values(values) -> tuple[tuple[int, ...], ...]:
    """Permitted values as 13 tuples of one or two different ints (text: '1/11,2,3,...')."""
    if isinstance(values, str):
        items = [p.strip() for p in values.split(",")]
        try:
            values = [tuple(int(x) for x in item.split("/")) for item in items]
        except ValueError:
            raise RulesError(f"bad values {values!r}: expected 13 comma-separated symbols "
                             "(2 .. A), each 'v' or 'v1/v2', e.g. '2,3,...,10,10,10,10,1/11'") \
                from None
    if isinstance(values, str | bytes) or not hasattr(values, "__len__") \
            or len(values) != NUM_SYMBOLS:
        raise RulesError(f"values must give the permitted values of all 13 symbols (2 .. A), "
                         f"got {values!r}")
    out = []
    for symbol, vals in zip(SYMBOLS, values, strict=True):
        vals = (vals,) if _is_int(vals) else tuple(vals)
        if len(vals) not in (1, 2) or not all(_is_int(v) for v in vals):
            raise RulesError(f"symbol {symbol} needs one or two integer values, got {vals!r}")
        if len(vals) == 2 and vals[0] == vals[1]:
            raise RulesError(f"symbol {symbol}: its two permitted values must differ, "
                             f"got {vals!r}")
        out.append(tuple(int(v) for v in vals))
    return tuple(out)


def check_points(points) -> tuple[int, int, int]:
    """The three point amounts as ints (text: 'divisible,contains,both', e.g. '5,3,20')."""
    if isinstance(points, str):
        try:
            points = tuple(int(p) for p in points.split(","))
        except ValueError:
            raise RulesError(f"bad points {points!r}: expected three integers "
                             "'divisible,contains,both', e.g. '5,3,20'") from None
    if isinstance(points, str | bytes) or not hasattr(points, "__len__") or len(points) != 3 \
            or not all(_is_int(p) for p in points):
        raise RulesError(f"points must be three integers (divisible by 7, contains 7, both), "
                         f"got {points!r}")
    return tuple(int(p) for p in points)  # type: ignore[return-value]


@dataclass(frozen=True)
class SevensRules(GameRules):
    """All options of Sevens. Presets: ``RANDOM`` (drawn per game) and ``CLASSIC`` (fixed)."""

    title = "Sevens"  # not fields: no annotations (see envs.rules_base)
    error = RulesError
    # a player count or a hand cap keeps the game's preset
    preset_keeping_fields = frozenset({"num_players", "max_hands"})

    preset: str = "custom"
    num_players: int = editable(4, low=MIN_PLAYERS, high=MAX_PLAYERS)
    # None: drawn per game. Text or lists are taken too: ``__post_init__`` keeps what
    # ``check_values`` / ``check_points`` make of them
    values: tuple[tuple[int, ...], ...] | None = None
    points: tuple[int, int, int] | None = None
    value_min: int = -6  # ranges the drawn parameters come from (see module docstring)
    value_max: int = 13
    second_value_chance: float = 0.5
    points_min: int = -10
    points_max: int = 10
    # a game is one hand; accepted as the tournaments' cap
    max_hands: int | None = None

    def __post_init__(self) -> None:
        if not _is_int(self.num_players) or not MIN_PLAYERS <= self.num_players <= MAX_PLAYERS:
            raise RulesError(f"num_players must be {MIN_PLAYERS}..{MAX_PLAYERS}, "
                             f"got {self.num_players!r}")
        if self.values is not None:
            object.__setattr__(self, "values", check_values(self.values))
        if self.points is not None:
            object.__setattr__(self, "points", check_points(self.points))
        for lo, hi in (("value_min", "value_max"), ("points_min", "points_max")):
            a, b = getattr(self, lo), getattr(self, hi)
            if not (_is_int(a) and _is_int(b)) or a > b:
                raise RulesError(f"{lo} and {hi} must be ints with {lo} <= {hi}, got {a!r}, {b!r}")
        if not isinstance(self.second_value_chance, int | float) \
                or not 0 <= self.second_value_chance <= 1:
            raise RulesError(f"second_value_chance must be in [0, 1], "
                             f"got {self.second_value_chance!r}")
        if self.max_hands is not None and (not _is_int(self.max_hands) or self.max_hands < 1):
            raise RulesError(f"max_hands must be None or at least 1, got {self.max_hands!r}")

    @property
    def hand_size(self) -> int:
        return hand_size(self.num_players)

    @property
    def table_size(self) -> int:
        """Cards dealt face up onto the table before play (at least one)."""
        return DECK_SIZE - self.num_players * self.hand_size

    def draw_parameters(self, rng: np.random.Generator) -> Parameters:
        """This game's parameters: the fixed ones, the others drawn from ``rng``.

        The draws are made whether or not a part is fixed, so fixing the values
        leaves the drawn points (and the deal after them) as they were.
        """
        lo, hi = self.value_min, self.value_max
        drawn: list[tuple[int, ...]] = []
        for _ in range(NUM_SYMBOLS):
            first = int(rng.integers(lo, hi + 1))
            if lo < hi and rng.random() < self.second_value_chance:
                second = int(rng.integers(lo, hi))  # hi - lo choices: all but ``first``
                drawn.append((first, second + (second >= first)))
            else:
                drawn.append((first,))
        a, b, c = (int(p) for p in rng.integers(self.points_min, self.points_max + 1, size=3))
        pts = (a, b, c)
        return Parameters(self.values if self.values is not None else tuple(drawn),
                          self.points if self.points is not None else pts)


RANDOM = SevensRules(preset="random")

# Face values with the ace as 1 or 11 and court cards 10; hitting a seven pays.
CLASSIC = SevensRules(
    preset="classic",
    values=((2,), (3,), (4,), (5,), (6,), (7,), (8,), (9,), (10,), (10,), (10,), (10,), (1, 11)),
    points=(5, 3, 20),
)

PRESETS = {"random": RANDOM, "classic": CLASSIC}


def get_rules(preset: str | SevensRules = "random", **changes) -> SevensRules:
    """Rules from a preset name (or rules object), with optional field changes."""
    return lookup(SevensRules, PRESETS, preset, changes)
