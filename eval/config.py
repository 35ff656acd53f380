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
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import agents
from agents.registry import parse_value
from envs.games import Game, game_names, get_game


class ConfigError(ValueError):
    """Bad tournament input (game, preset, rule, bot, lineup, deals, output dir)."""


@dataclass(frozen=True)
class TournamentConfig:
    game: str
    bots: tuple[str, ...]  # lineup in seat order for rotation 0; specs as agents.make takes
    preset: str
    rule_changes: dict[str, Any] = field(default_factory=dict)
    max_hands: int | None = 100  # safety cap passed as the rule max_hands; None = no cap
    seed: int = 0

    # ----------------------------------------------------------- the game
    def get_game(self) -> Game:
        return get_game(self.game)

    def rules(self) -> Any:
        changes = dict(self.rule_changes)
        if self.max_hands is not None:
            changes["max_hands"] = self.max_hands
        return self.get_game().get_rules(self.preset, **changes)

    @property
    def num_seats(self) -> int:
        return len(self.bots)

    # -------------------------------------------------------------- seats
    def seat_entries(self, rotation: int) -> list[int]:
        """Lineup index sitting at each seat: entry i sits at seat (i + rotation) % n."""
        n = self.num_seats
        return [(seat - rotation) % n for seat in range(n)]

    def seat_bots(self, rotation: int) -> list[str]:
        return [self.bots[i] for i in self.seat_entries(rotation)]

    # -------------------------------------------------------------- seeds
    def deal_seed(self, deal: int) -> int:
        """The engine seed of a deal: the same in every rotation, so the cards are too."""
        return _derive(self.seed, deal)

    def bot_seed(self, deal: int, rotation: int, seat: int) -> int:
        return _derive(self.seed, deal, rotation, seat, 1)

    # ------------------------------------------------------- persistence
    def to_dict(self) -> dict:
        return as_json({"game": self.game, "preset": self.preset, "bots": list(self.bots),
                "rule_changes": dict(self.rule_changes), "max_hands": self.max_hands,
                "seed": self.seed, "rules": rules_dict(self.rules())})

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
            raise ConfigError(f"bad rule change {self.rule_changes!r}: {err}") from None
        preset_rules = game.get_rules(self.preset)
        for key, value in self.rule_changes.items():
            default = getattr(preset_rules, key, None)
            if None not in (default, value) and _kind(value) != _kind(default):
                raise ConfigError(f"bad rule {key}={value!r}: expected a {_kind(default)} "
                                  f"like the preset's {default!r}")
        seats = game.num_players(rules)
        if len(self.bots) != seats:
            raise ConfigError(f"{self.game} is played by {seats} players but the lineup has "
                              f"{len(self.bots)} bots: {','.join(self.bots)}")
        for spec in self.bots:
            try:
                bot = agents.make(spec)
            except ValueError as err:
                raise ConfigError(f"bad bot {spec!r}: {err}") from None
            if bot.game not in (None, self.game):
                raise ConfigError(f"bot {spec!r} plays {bot.game}, not {self.game}")


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
