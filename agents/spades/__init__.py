"""Spades rule bots (registered as ``spades/...``): bidding, lead and play strategies."""

from agents.registry import register, search_description, search_factory
from agents.spades import bots  # noqa: F401 - registers the bots

register("spades/search", search_factory("spades", "spades/expert"),
         search_description("spades/expert"))
