"""Sevens: the 2B03 adding-up card game for 2 to 9 players, parameters new every game."""

from envs.sevens.engine import IllegalActionError, SevensState, playable_cards
from envs.sevens.env import ENV_NAME, env, raw_env
from envs.sevens.rules import (
    CLASSIC,
    PRESETS,
    RANDOM,
    Parameters,
    RulesError,
    SevensRules,
    get_rules,
)
from envs.sevens.view import SevensView

__all__ = ["SevensState", "SevensView", "SevensRules", "Parameters", "IllegalActionError",
           "RulesError", "RANDOM", "CLASSIC", "PRESETS", "get_rules", "playable_cards", "env",
           "raw_env", "ENV_NAME"]
