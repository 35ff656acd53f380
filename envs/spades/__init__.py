"""Spades: Killer Cutthroat and Cutthroat, two presets of one engine."""

from envs.spades.engine import IllegalActionError, SpadesState
from envs.spades.env import ENV_NAME, env, raw_env
from envs.spades.rules import CUTTHROAT, KILLER, PRESETS, SpadesRules, get_rules
from envs.spades.view import SpadesView

__all__ = ["SpadesState", "SpadesView", "SpadesRules", "IllegalActionError", "KILLER",
           "CUTTHROAT", "PRESETS", "get_rules", "env", "raw_env", "ENV_NAME"]
