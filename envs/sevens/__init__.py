"""Sevens: the 2B03 adding-up card game for 2 to 9 players, parameters new every game.

``env`` and ``raw_env`` (from ``cardrl.envs.sevens.environment``) load PettingZoo on first
use, so importing the engine alone (``cardrl.envs.sevens.engine``) does not.
"""

import importlib

from cardrl.envs.sevens.engine import IllegalActionError, SevensState, playable_cards
from cardrl.envs.sevens.rules import (
    CLASSIC,
    PRESETS,
    RANDOM,
    Parameters,
    RulesError,
    SevensRules,
    get_rules,
)
from cardrl.envs.sevens.view import SevensView

_ENV = ("env", "raw_env", "ENV_NAME")


def __getattr__(name: str):
    if name in _ENV:
        value = getattr(importlib.import_module("cardrl.envs.sevens.environment"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["SevensState", "SevensView", "SevensRules", "Parameters", "IllegalActionError",
           "RulesError", "RANDOM", "CLASSIC", "PRESETS", "get_rules", "playable_cards", *_ENV]
