"""Sevens rule bots (``sevens/...``): greedy and lookahead.

``BOTS`` is the game's table the bot registry reads (``cardrl.agents.registry``).
"""

from cardrl.agents.sevens.bots import BOTS, GreedyBot, LookaheadBot

__all__ = ["BOTS", "GreedyBot", "LookaheadBot"]
