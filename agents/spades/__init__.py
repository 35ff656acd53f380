"""Spades rule bots (registered as ``spades/...``): bidding, lead and play strategies."""

from agents.spades import bots  # noqa: F401 - registers the bots

# the strongest rule bots first: what learned bots and the lobby measure against
STRONGEST = ("spades/expert", "spades/count-bid")
