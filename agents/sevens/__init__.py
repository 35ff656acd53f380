"""Sevens rule bots (registered as ``sevens/...`` on import): greedy and lookahead."""

from agents.sevens import bots  # noqa: F401 - registers the bots
