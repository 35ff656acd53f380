"""What a tournament is: game, preset, rule changes, bot lineup, seed; and its seeds.

Everything a game's outcome depends on is in ``TournamentConfig``, so a game
is fully fixed by (config, deal, rotation): the deal seed fixes every hand's
cards, the rotation fixes who sits where, and the bot seeds derive from both.
That is what makes runs reproducible, resumable and identical across worker
counts. ``validate`` checks all user input before any game is played.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cardrl import agents
from cardrl.agents.registry import parse_value
from cardrl.envs.games import Game, game_names, get_game
from cardrl.eval.schedule import balanced_tables, seat_entries


class ConfigError(ValueError):
    """Bad tournament input (game, preset, rule, bot, lineup, seats, deals, output dir)."""


DEFAULT_FILE_BOT_TIME_LIMIT = 10.0  # seconds per answer of a bot file when none is given
OPTIONAL_FIELDS = {"seats": None, "time_limit": None, "isolate": False,
                   "disqualify": False}  # written to the config only when set


@dataclass(frozen=True)
class TournamentConfig:
    game: str
    bots: tuple[str, ...]  # lineup in seat order for rotation 0; specs as agents.make takes
    preset: str
    rule_changes: dict[str, Any] = field(default_factory=dict)
    max_hands: int | None = 100  # safety cap passed as the rule max_hands; None = no cap
    seed: int = 0
    # seat counts the deals cycle through, each table drawn from the lineup (eval.schedule);
    # None = the whole lineup at every table (the duplicate format)
    seats: tuple[int, ...] | None = None
    # seconds a bot in its own process may take per answer (None: the default,
    # DEFAULT_FILE_BOT_TIME_LIMIT); bot files always run in their own process
    time_limit: float | None = None
    # every bot in its own process and timed, registered ones too (else those play here)
    isolate: bool = False
    # a bot that raises, plays an illegal action, fails to load or times out is
    # disqualified and the tournament rerun without it (else such a bot stops the run)
    disqualify: bool = False

    # ----------------------------------------------------------- the game
    def get_game(self) -> Game:
        return get_game(self.game)

    def rules(self, num_seats: int | None = None) -> Any:
        """The rules of a game at a table of ``num_seats`` (default: the whole lineup, or
        the preset's own count when tables are drawn). A game whose rules have a
        ``num_players`` field is played at any size its rules accept."""
        changes = dict(self.rule_changes)
        if self.max_hands is not None:
            changes["max_hands"] = self.max_hands
        if num_seats is None and self.seats is None:
            num_seats = len(self.bots)
        if num_seats is not None and self.varies_seats() and "num_players" not in changes:
            changes["num_players"] = num_seats
        return self.get_game().get_rules(self.preset, **changes)

    def varies_seats(self) -> bool:
        """Whether the game's rules set their player count (a ``num_players`` field)."""
        return hasattr(self.get_game().get_rules(self.preset), "num_players")

    @property
    def num_seats(self) -> int:
        return len(self.bots)

    def runs_in_own_process(self, spec: str) -> bool:
        return self.isolate or agents.registry.is_file_spec(spec)

    def answer_limit(self, spec: str) -> float | None:
        """Seconds ``spec`` may take per answer; None = not timed (runs in this process)."""
        if not self.runs_in_own_process(spec):
            return None
        return DEFAULT_FILE_BOT_TIME_LIMIT if self.time_limit is None else self.time_limit

    # -------------------------------------------------------------- seats
    def seat_entries(self, rotation: int, table: Sequence[int] | None = None) -> list[int]:
        """Lineup index sitting at each seat: the table's i-th entry sits at seat
        (i + rotation) % n; the table is the whole lineup unless given."""
        return seat_entries(tuple(range(self.num_seats)) if table is None else tuple(table),
                            rotation)

    def seat_bots(self, rotation: int, table: Sequence[int] | None = None) -> list[str]:
        return [self.bots[i] for i in self.seat_entries(rotation, table)]

    def tables(self, deals: int, excluded: Sequence[int] = ()) -> list[tuple[int, ...]]:
        """Each deal's table (lineup entries, rotation 0) with ``excluded`` entries out."""
        active = [i for i in range(self.num_seats) if i not in set(excluded)]
        counts = self.seat_counts(len(active))
        if self.seats is None:
            return [tuple(active)] * deals
        return balanced_tables(active, counts, deals, _derive(self.seed, 2))

    def seat_counts(self, playing: int) -> tuple[int, ...]:
        """Table sizes when ``playing`` bots are left: the given counts that fit."""
        if self.seats is None:
            return (playing,)
        fits = tuple(n for n in self.seats if n <= playing)
        if not fits:
            raise ConfigError(f"only {playing} bots are left, too few for a table of "
                              f"{min(self.seats)}")
        return fits

    # -------------------------------------------------------------- seeds
    def deal_seed(self, deal: int) -> int:
        """The engine seed of a deal: the same in every rotation, so the cards are too."""
        return _derive(self.seed, deal)

    def bot_seed(self, deal: int, rotation: int, seat: int) -> int:
        return _derive(self.seed, deal, rotation, seat, 1)

    # ------------------------------------------------------- persistence
    def to_dict(self) -> dict:
        d = {"game": self.game, "preset": self.preset, "bots": list(self.bots),
             "rule_changes": dict(self.rule_changes), "max_hands": self.max_hands,
             "seed": self.seed, "rules": rules_dict(self.rules())}
        for name, default in OPTIONAL_FIELDS.items():  # only when set: older runs still match
            if getattr(self, name) != default:
                d[name] = getattr(self, name)
        return as_json(d)

    def key(self) -> str:
        """Short hash of the config, for default output directory names."""
        text = json.dumps(self.to_dict(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:8]

    # --------------------------------------------------------- validation
    def validate(self) -> None:
        """Raise ``ConfigError`` naming the first bad value; build nothing lasting."""
        if self.game not in game_names():
            raise ConfigError(f"unknown game {self.game!r}; choose from {game_names()}")
        game = self.get_game()
        if self.preset not in game.presets:
            raise ConfigError(f"unknown preset {self.preset!r} for {self.game}; "
                              f"choose from {list(game.presets)}")
        if "max_hands" in self.rule_changes:
            raise ConfigError("give the hand cap with --max-hands, not as rule max_hands")
        if self.max_hands is not None and (not isinstance(self.max_hands, int)
                                           or self.max_hands < 1):
            raise ConfigError(f"max_hands must be a positive int or None, got {self.max_hands!r}")
        if not isinstance(self.seed, int) or self.seed < 0:
            raise ConfigError(f"seed must be a non-negative int, got {self.seed!r}")
        try:
            rules = self.rules()
        except (ValueError, TypeError) as err:
            if self.seats is not None or "num_players" in self.rule_changes \
                    or not self.varies_seats():
                raise ConfigError(f"bad rule change {self.rule_changes!r}: {err}") from None
            try:  # the rule changes are fine: the lineup is not a possible table
                self.get_game().get_rules(self.preset, **self.rule_changes)
            except (ValueError, TypeError) as err2:
                raise ConfigError(f"bad rule change {self.rule_changes!r}: {err2}") from None
            raise ConfigError(f"{self.game} cannot be played by {len(self.bots)} players "
                              f"({err}); lineup: {','.join(self.bots)}") from None
        preset_rules = game.get_rules(self.preset)
        for key, value in self.rule_changes.items():
            default = getattr(preset_rules, key, None)
            if None not in (default, value) and _kind(value) != _kind(default):
                raise ConfigError(f"bad rule {key}={value!r}: expected a {_kind(default)} "
                                  f"like the preset's {default!r}")
        self._validate_seats(game, rules)
        if self.time_limit is not None and (isinstance(self.time_limit, bool) or not isinstance(
                self.time_limit, int | float) or not self.time_limit > 0):
            raise ConfigError(f"time_limit must be a positive number of seconds, "
                              f"got {self.time_limit!r}")
        for name in ("isolate", "disqualify"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"{name} must be True or False, got {getattr(self, name)!r}")
        for spec in self.bots:
            if agents.registry.is_file_spec(spec):  # not run here: it loads in its own process
                try:
                    agents.registry.check_file(agents.parse_spec(spec)[0])
                except ValueError as err:
                    raise ConfigError(f"bad bot {spec!r}: {err}") from None
                continue
            try:
                bot = agents.make(spec)
            except ValueError as err:
                raise ConfigError(f"bad bot {spec!r}: {err}") from None
            if bot.game not in (None, self.game):
                raise ConfigError(f"bot {spec!r} plays {bot.game}, not {self.game}")

    def _validate_seats(self, game: Game, rules: Any) -> None:
        if self.seats is None:
            seats = game.num_players(rules)
            if len(self.bots) != seats:
                raise ConfigError(f"{self.game} is played by {seats} players but the lineup has "
                                  f"{len(self.bots)} bots: {','.join(self.bots)}")
            return
        if isinstance(self.seats, str | bytes) or not self.seats or not all(
                isinstance(n, int) and not isinstance(n, bool) for n in self.seats):
            raise ConfigError(f"seats must be a list of table sizes, got {self.seats!r}")
        for n in self.seats:
            if n > len(self.bots):
                raise ConfigError(f"a table of {n} seats needs {n} bots; the lineup has "
                                  f"{len(self.bots)}: {','.join(self.bots)}")
            try:
                size = game.num_players(self.rules(n))
            except (ValueError, TypeError) as err:
                raise ConfigError(f"bad table size {n} for {self.game}: {err}") from None
            if size != n:
                raise ConfigError(f"{self.game} is played by {size} players, not {n}; "
                                  f"choose seats {size}")


def _derive(*words: int) -> int:
    """A 32-bit seed from integers, well mixed (numpy SeedSequence)."""
    return int(np.random.SeedSequence(list(words)).generate_state(1)[0])


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


def as_json(value: Any) -> Any:
    """``value`` as it reads back from JSON (tuples become lists), for exact comparisons."""
    return json.loads(json.dumps(value))


def rules_dict(rules: Any) -> dict:
    """A rules object as plain JSON-ready fields (dataclass, to_dict or attributes)."""
    if dataclasses.is_dataclass(rules):
        return dataclasses.asdict(rules)
    if hasattr(rules, "to_dict"):
        return rules.to_dict()
    return dict(vars(rules))


def parse_rule_changes(items: list[str] | None) -> dict[str, Any]:
    """['target=300', 'jokers=true'] -> {'target': 300, 'jokers': True}."""
    changes = {}
    for item in items or []:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ConfigError(f"bad rule {item!r}; expected key=value, e.g. target=300")
        changes[key.strip().replace("-", "_")] = parse_value(value)
    return changes


def split_bot_list(text: str) -> list[str]:
    """'spades/expert:nil=set-safe,prefer=avoid-over,random' -> two specs.

    Commas separate bots, but a piece with '=' before any ':' is one more
    option of the bot before it.
    """
    specs: list[str] = []
    for piece in text.split(","):
        piece = piece.strip()
        if specs and "=" in piece and ":" not in piece.split("=", 1)[0]:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return specs
