"""Bots: one interface (``Bot.act(view, legal_actions)``), built by name.

    from cardrl import agents
    bot = agents.make("spades/count-bid")
    bot = agents.load("checkpoints/spades-killer.onnx")   # a trained bot (onnxruntime)

``import cardrl`` registers each game's single-seat Gymnasium env, one seat against
bots (``cardrl.agents.single_seat``): ``gymnasium.make("cardrl/Spades-v6", opponents=...)``.
"""

from cardrl.agents.base import Bot, RandomBot
from cardrl.agents.learned import load
from cardrl.agents.registry import (
    check_bot,
    describe,
    make,
    names,
    parse_spec,
    register,
    registered,
    strongest,
)

__all__ = ["Bot", "RandomBot", "make", "load", "names", "register", "registered", "describe",
           "parse_spec", "strongest", "check_bot"]

