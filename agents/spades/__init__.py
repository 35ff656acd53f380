"""Spades rule bots (``spades/...``): bidding, lead and play strategies.

``BOTS`` is the game's table the bot registry reads (``cardrl.agents.registry``).
"""

from cardrl.agents.spades.bots import BOTS, SpadesRuleBot

__all__ = ["BOTS", "SpadesRuleBot"]
