"""Bots for blind_auction (registered on import)."""
