"""Bots: one interface (``Bot.act(view, legal_actions)``), built by name.

    import agents
    bot = agents.make("spades/count-bid")
    bot = agents.load("checkpoints/spades-killer.onnx")   # a trained bot (onnxruntime)

Importing ``agents`` registers each game's single-seat Gymnasium env, one seat against
bots (``agents.single_seat``): ``gymnasium.make("cardrl/Spades-v5", opponents=...)``.
"""

from agents.base import Bot, RandomBot
from agents.gym_registry import register_games
from agents.learned import load
from agents.registry import (
    check_bot,
    describe,
    make,
    names,
    parse_spec,
    register,
    registered,
    strongest,
)
from envs.registry import after_import

__all__ = ["Bot", "RandomBot", "make", "load", "names", "register", "registered", "describe",
           "parse_spec", "strongest", "check_bot"]


after_import("gymnasium", register_games)
