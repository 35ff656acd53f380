"""Gin Rummy for 2 to 4 players: the seed rules and the standard preset.

``env`` and ``raw_env`` (from ``cardrl.envs.gin_rummy.environment``) load PettingZoo on
first use, so importing the engine alone (``cardrl.envs.gin_rummy.engine``) does not.
"""

import importlib

from cardrl.envs.gin_rummy.engine import GinRummyState, IllegalActionError
from cardrl.envs.gin_rummy.rules import PRESETS, SEED, STANDARD, GinRummyRules, get_rules
from cardrl.envs.gin_rummy.view import GinRummyView

_ENV = ("env", "raw_env", "ENV_NAME")


def __getattr__(name: str):
    if name in _ENV:
        value = getattr(importlib.import_module("cardrl.envs.gin_rummy.environment"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["GinRummyState", "GinRummyView", "GinRummyRules", "IllegalActionError", "SEED",
           "STANDARD", "PRESETS", "get_rules", *_ENV]
