"""Bots for gin_rummy (registered on import)."""
