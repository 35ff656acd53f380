"""Gin Rummy for 2 to 4 players: the seed rules and the standard two-player preset."""

from envs.gin_rummy.engine import GinRummyState, IllegalActionError
from envs.gin_rummy.rules import PRESETS, SEED, STANDARD, GinRummyRules, get_rules
from envs.gin_rummy.view import GinRummyView

__all__ = ["GinRummyState", "GinRummyView", "GinRummyRules", "IllegalActionError", "SEED",
           "STANDARD", "PRESETS", "get_rules"]
