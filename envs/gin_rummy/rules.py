"""Gin Rummy rules (docs/rules.md section 2): one frozen dataclass, two named presets.

``seed`` is the course document's game for 2 to 4 players; ``standard`` is the
usual two-player game of other libraries (OpenSpiel, RLCard): knock at 10 or
less, gin and undercut bonuses of 25, layoffs onto the knocker's melds.
Every number the engine uses comes from here; seed rule numbers are quoted.
"""

from __future__ import annotations

from dataclasses import dataclass

from cardrl.envs.rules_base import GameRules, editable, lookup

HAND_SIZE = 10  # rule 3
MIN_PLAYERS, MAX_PLAYERS = 2, 4  # "two or more" (rule 2); 4 x 10 leaves a stock of 11


class RulesError(ValueError):
    """A rules field with a value the engine cannot play."""


@dataclass(frozen=True)
class GinRummyRules(GameRules):
    """All options of Gin Rummy. Presets: ``SEED`` and ``STANDARD``."""

    title = "Gin Rummy"  # not fields: no annotations (see envs.rules_base)
    error = RulesError
    preset_keeping_fields = frozenset({"num_players"})  # seed is the game for 2 to 4

    preset: str = "custom"
    num_players: int = editable(2, low=MIN_PLAYERS, high=MAX_PLAYERS)  # rule 2
    first_dealer: int | None = 0  # seat of the first dealer; None = random from the seed
    # most deadwood left to knock; None = any (rule 6b)
    knock_limit: int | None = editable(10, low=0, high=100, none=True)
    no_discard_of_taken: bool = True  # the card just taken from the pile may not go back
    dead_stock: int = 0  # a turn ending with this many stock cards or fewer ends the hand (6c)
    knocker_wins_ties: bool = True  # False: a tied player after the knocker wins (undercut)
    gin_bonus: int = 0  # extra points for winning with gin (deadwood 0)
    undercut_bonus: int = 0  # extra points for beating (or, see above, tying) the knocker
    layoff: bool = False  # others lay deadwood off onto the knocker's melds (not on gin)
    # the game ends after a hand where a total reaches it (rule 2)
    target: int = editable(100, low=1, high=10_000)
    # safety cap; None = play on until someone wins
    max_hands: int | None = editable(None, low=1, high=100, none=True)
    # safety: a hand that reaches this many actions is dead, like an empty stock. Taking
    # the discard does not shrink the stock, so two players can pass cards through the
    # pile forever (two deterministic bots did); natural hands stay far below it.
    max_moves: int | None = 400

    def __post_init__(self) -> None:
        def is_int(value) -> bool:
            return isinstance(value, int) and not isinstance(value, bool)

        if not is_int(self.num_players) or not MIN_PLAYERS <= self.num_players <= MAX_PLAYERS:
            raise RulesError(f"num_players must be {MIN_PLAYERS}..{MAX_PLAYERS}, "
                             f"got {self.num_players!r}")
        if self.preset == "standard" and self.num_players != 2:
            raise RulesError(
                f"the standard preset is the two-player game (as in OpenSpiel and RLCard), got "
                f"num_players={self.num_players!r}; for 3 or 4 players use preset 'seed', or "
                f"change its fields (gin_bonus=25, undercut_bonus=25, layoff=True, ...)")
        if self.first_dealer is not None and (not is_int(self.first_dealer)
                                              or self.first_dealer not in
                                              range(self.num_players)):
            raise RulesError(f"first_dealer must be a seat 0..{self.num_players - 1} or None, "
                             f"got {self.first_dealer!r}")
        if self.knock_limit is not None and (not is_int(self.knock_limit)
                                             or self.knock_limit < 0):
            raise RulesError(f"knock_limit must be None or an int >= 0, got {self.knock_limit!r}")
        stock = 52 - HAND_SIZE * self.num_players - 1
        if not is_int(self.dead_stock) or not 0 <= self.dead_stock < stock:
            raise RulesError(f"dead_stock must be an int 0..{stock - 1} (the stock holds "
                             f"{stock} cards), got {self.dead_stock!r}")
        for name in ("gin_bonus", "undercut_bonus", "target"):
            value = getattr(self, name)
            if not is_int(value) or value < 0:
                raise RulesError(f"{name} must be an int >= 0, got {value!r}")
        if self.target < 1:
            raise RulesError(f"target must be at least 1, got {self.target!r}")
        for name in ("no_discard_of_taken", "knocker_wins_ties", "layoff"):
            if not isinstance(getattr(self, name), bool):
                raise RulesError(f"{name} must be true or false, got {getattr(self, name)!r}")
        if self.max_moves is not None and (not is_int(self.max_moves) or self.max_moves < 2):
            raise RulesError(f"max_moves must be None or at least 2, got {self.max_moves!r}")
        if self.max_hands is not None and (not is_int(self.max_hands) or self.max_hands < 1):
            raise RulesError(f"max_hands must be None or at least 1, got {self.max_hands!r}")

    @property
    def stock_size(self) -> int:
        """Cards in the stock once the hands are dealt and the up card is turned."""
        return 52 - HAND_SIZE * self.num_players - 1

    def may_knock(self, deadwood: int) -> bool:
        return self.knock_limit is None or deadwood <= self.knock_limit


SEED = GinRummyRules(preset="seed")

STANDARD = GinRummyRules(
    preset="standard",
    dead_stock=2,  # the usual rule: the hand is dead when two stock cards are left
    knocker_wins_ties=False,  # a tie is an undercut
    gin_bonus=25,
    undercut_bonus=25,
    layoff=True,
)

PRESETS = {"seed": SEED, "standard": STANDARD}


def get_rules(preset: str | GinRummyRules = "seed", **changes) -> GinRummyRules:
    """Rules from a preset name (or rules object), with optional field changes.

    ``standard`` is the two-player game of other libraries (docs/rules.md section 2), so
    another player count is refused there rather than turned into a game nobody
    compares with: 3 or 4 players play ``seed``, or its fields changed one by one.
    """
    return lookup(GinRummyRules, PRESETS, preset, changes)
