"""Spades rule bots (registered as ``spades/...``): bidding, lead and play strategies."""

from agents.spades import bots  # noqa: F401 - registers the bots
