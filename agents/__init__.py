"""Bots: one interface (``Bot.act(view, legal_actions)``), built by name.

    import agents
    bot = agents.make("spades/count-bid")
"""

from agents.base import Bot, RandomBot
from agents.registry import describe, make, names, parse_spec, register

__all__ = ["Bot", "RandomBot", "make", "names", "register", "describe", "parse_spec"]
