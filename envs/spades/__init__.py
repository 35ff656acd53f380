"""Spades: Killer Cutthroat and Cutthroat, two presets of one engine.

``env`` and ``raw_env`` (from ``cardrl.envs.spades.environment``) load PettingZoo on first
use, so importing the engine alone (``cardrl.envs.spades.engine``) does not.
"""

import importlib

from cardrl.envs.spades.engine import IllegalActionError, SpadesState
from cardrl.envs.spades.rules import CUTTHROAT, KILLER, PRESETS, SpadesRules, get_rules
from cardrl.envs.spades.view import SpadesView

_ENV = ("env", "raw_env", "ENV_NAME")


def __getattr__(name: str):
    if name in _ENV:
        value = getattr(importlib.import_module("cardrl.envs.spades.environment"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["SpadesState", "SpadesView", "SpadesRules", "IllegalActionError", "KILLER",
           "CUTTHROAT", "PRESETS", "get_rules", *_ENV]
