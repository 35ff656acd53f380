"""Bots: one interface (``Bot.act(view, legal_actions)``), built by name.

    import agents
    bot = agents.make("spades/count-bid")
    bot = agents.load("checkpoints/spades-killer.onnx")   # a trained bot (onnxruntime)
"""

from agents.base import Bot, RandomBot
from agents.learned import load
from agents.registry import describe, make, names, parse_spec, register, registered, strongest

__all__ = ["Bot", "RandomBot", "make", "load", "names", "register", "registered", "describe",
           "parse_spec", "strongest"]
