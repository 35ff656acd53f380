"""Spades rule bots (registered as ``spades/...``): bidding, lead and play strategies."""

from agents.registry import register
from agents.search import search_factory
from agents.spades import bots  # noqa: F401 - registers the bots

register("spades/search", search_factory("spades", "spades/expert"),
         "determinized play-outs around a bot (bot=, default spades/expert; worlds=, top_k=, "
         "min_prior=, z=): the bot's move and the other legal moves (up to top_k, default "
         "13) each played out on sampled deals of the hidden cards (agents.search)")

# the strongest rule bots first: what learned bots and the lobby measure against
STRONGEST = ("spades/expert", "spades/count-bid")
