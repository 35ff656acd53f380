"""Bots by name: ``make("spades/count-bid")``, with options ``"spades/expert:nil=set-safe"``.

A spec is ``name[:key=value,key=value]``; values are parsed as int, float,
bool or left as strings, and passed to the bot's constructor.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from agents.base import Bot, RandomBot

_FACTORIES: dict[str, Callable[..., Bot]] = {}
_HELP: dict[str, str] = {}
# modules that register bots when imported, per game prefix
_BOT_MODULES = {
    "spades": "agents.spades",
    "gin_rummy": "agents.gin_rummy",
    "sevens": "agents.sevens",
    "blind_auction": "agents.blind_auction",
}


def register(name: str, factory: Callable[..., Bot], help: str = "") -> None:
    if name in _FACTORIES and _FACTORIES[name] is not factory:
        raise ValueError(f"bot name {name!r} is already registered")
    _FACTORIES[name] = factory
    _HELP[name] = help


def _load_game_bots(name: str) -> None:
    game = name.split("/", 1)[0]
    if "/" in name and game in _BOT_MODULES:
        importlib.import_module(_BOT_MODULES[game])


def parse_value(text: str):
    """'3' -> 3, '0.5' -> 0.5, 'true' -> True, 'none' -> None, anything else stays text."""
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "none":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text.strip()


def parse_spec(spec: str) -> tuple[str, dict]:
    """'spades/expert:nil=set-safe,prefer=avoid-over' -> ('spades/expert', {...})."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"a bot spec is a name like 'spades/count-bid', got {spec!r}")
    name, _, opts = spec.strip().partition(":")
    kwargs = {}
    for item in filter(None, opts.split(",")):
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ValueError(f"bad option {item!r} in bot spec {spec!r}; expected key=value")
        kwargs[key.strip().replace("-", "_")] = parse_value(value)
    return name, kwargs


def make(spec: str, **kwargs) -> Bot:
    """A new bot from a registry spec; keyword arguments override spec options."""
    name, opts = parse_spec(spec)
    _load_game_bots(name)
    if name not in _FACTORIES:
        raise ValueError(f"unknown bot {name!r}; registered bots: {', '.join(names())}")
    opts.update(kwargs)
    try:
        bot = _FACTORIES[name](**opts)
    except TypeError as err:
        raise ValueError(f"bad options for bot {name!r}: {err}") from None
    bot.name = spec.strip()
    return bot


def names(game: str | None = None) -> list[str]:
    """Registered bot names, all or those that can play ``game``."""
    for module in _BOT_MODULES.values():
        importlib.import_module(module)
    return sorted(n for n in _FACTORIES
                  if game is None or "/" not in n or n.split("/", 1)[0] == game)


def describe(name: str) -> str:
    _load_game_bots(name)
    return _HELP.get(name, "")


register("random", RandomBot, "uniformly random legal action (any game)")
