"""Spades rule bots (``spades/...``): bidding, lead and play strategies.

``BOTS`` is the game's table the bot registry reads (``agents.registry``).
"""

from agents.spades.bots import BOTS, SpadesRuleBot

__all__ = ["BOTS", "SpadesRuleBot"]
