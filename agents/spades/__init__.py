"""Spades rule bots (registered as ``spades/...``)."""
