"""Spades rule bots (registered as ``spades/...``): bidding, lead and play strategies."""

from agents.registry import register
from agents.search import search_description, search_factory
from agents.spades import bots  # noqa: F401 - registers the bots

register("spades/search", search_factory("spades", "spades/expert"),
         search_description("spades/expert"))

# the strongest rule bots first: what learned bots and the lobby measure against
STRONGEST = ("spades/expert", "spades/count-bid")
