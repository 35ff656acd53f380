"""Sevens rule bots (registered as ``sevens/...`` on import): greedy and lookahead."""

from agents.sevens import bots  # noqa: F401 - registers the bots

# the strongest rule bots first: what learned bots and the lobby measure against
STRONGEST = ("sevens/lookahead", "sevens/greedy")
