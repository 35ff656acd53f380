"""Bots for sevens (registered on import)."""
