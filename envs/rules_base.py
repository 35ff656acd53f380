"""What every game's rules share: presets, ``replace``, lookup and the JSON round trip.

A game's rules are one frozen dataclass that inherits ``GameRules`` and names
its game (``title``, for error messages) and its error class (``error``); its
module keeps a ``PRESETS`` dict and a ``get_rules`` that calls ``lookup``. So
the preset logic (a changed field makes the preset 'custom'; a view sent as
JSON gets the preset object back when nothing was changed) is written once.

A rules field a user may change (a web table's custom rules, the test examples'
player counts) says so where it is defined: ``editable(default, ...)`` puts its
range in the field's metadata, and ``editable_fields`` reads it for any game.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar, TypeVar

R = TypeVar("R", bound="GameRules")
_MISSING = object()


@dataclasses.dataclass(frozen=True)
class Editable:
    """The values a user may give an editable rules field: an int ``low..high``, one of
    ``choices``, or a bool (``kind=bool``); ``none``: None too. The rules object checks
    the rest (e.g. a player count a preset does not allow)."""

    kind: type = int
    low: int | None = None
    high: int | None = None
    choices: tuple = ()
    none: bool = False

    def allows(self, value: Any) -> bool:
        if value is None:
            return self.none
        if self.choices:
            return isinstance(value, str) and value in self.choices
        if self.kind is bool:
            return isinstance(value, bool)
        return (isinstance(value, int) and not isinstance(value, bool)
                and (self.low is None or value >= self.low)
                and (self.high is None or value <= self.high))

    @property
    def text(self) -> str:
        """What the field takes, for an error message."""
        if self.choices:
            text = "one of " + ", ".join(map(repr, self.choices))
        elif self.kind is bool:
            text = "true or false"
        else:
            text = f"an integer {self.low}..{self.high}"
        return text + (" or null" if self.none else "")


def editable(default: Any, **limits: Any) -> Any:
    """A dataclass field a user may change, with its ``Editable`` limits."""
    return dataclasses.field(default=default, metadata={"editable": Editable(**limits)})


def editable_fields(rules: Any) -> dict[str, Editable]:
    """The editable fields of a rules object or class, in definition order."""
    return {f.name: f.metadata["editable"] for f in dataclasses.fields(rules)
            if "editable" in f.metadata}


class GameRules:
    """Mixin of a game's frozen rules dataclass (which has a ``preset`` field)."""

    # (set by the game's @dataclass: ``dataclasses.fields`` and ``replace`` take the rules)
    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]
    title: ClassVar[str]  # the game's name in messages, e.g. "Gin Rummy"
    error: ClassVar[type[ValueError]]  # raised for a bad field or preset
    # fields whose change keeps the preset's name (e.g. a player count)
    preset_keeping_fields: ClassVar[frozenset[str]] = frozenset()

    def replace(self: R, **changes) -> R:
        """A copy with some fields changed (the preset name becomes 'custom', unless
        only fields in ``preset_keeping_fields`` changed)."""
        unknown = set(changes) - {f.name for f in dataclasses.fields(self)}
        if unknown:
            raise self.error(f"unknown {self.title} rules field(s): {sorted(unknown)}")
        if not set(changes) <= self.preset_keeping_fields:
            changes.setdefault("preset", "custom")
        return dataclasses.replace(self, **changes)


def to_dict(rules: GameRules) -> dict[str, Any]:
    """Every field of ``rules`` by name, as a view's ``to_dict`` holds them."""
    return {f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)}


def lookup(cls: type[R], presets: Mapping[str, R], preset: str | R,
           changes: dict[str, Any]) -> R:
    """Rules from a preset name (or a rules object of ``cls``), with ``changes`` applied:
    the body of every game's ``get_rules``."""
    if isinstance(preset, cls):
        rules = preset
    elif isinstance(preset, str) and preset in presets:
        rules = presets[preset]
    else:
        raise cls.error(f"unknown {cls.title} preset {preset!r}; choose from {sorted(presets)}")
    return rules.replace(**changes) if changes else rules


def from_dict(cls: type[R], presets: Mapping[str, R], fields: Mapping[str, Any]) -> R:
    """Rules from ``to_dict`` output: the preset object itself when ``fields`` name a preset
    and match it (so ``rules is PRESETS[name]`` survives a JSON round trip), else new rules."""
    name: Any = fields.get("preset")  # JSON: any value; one that names no preset finds None
    preset = presets.get(name)
    if preset is not None and all(getattr(preset, k, _MISSING) == v for k, v in fields.items()):
        return preset
    rules = cls(**fields)  # checks the fields (JSON lists become the tuples rules hold)
    return preset if preset is not None and preset == rules else rules


def view_rules(d: Mapping[str, Any], game: str, cls: type[R], presets: Mapping[str, R]) -> R:
    """The rules of a view's ``to_dict`` output ``d``, after checking it is a view of ``game``."""
    if d.get("game") != game:
        raise ValueError(f"not a {cls.title} view: game is {d.get('game')!r}")
    return from_dict(cls, presets, dict(d["rules"]))
