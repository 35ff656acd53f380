"""The registered games this checkout can train: those whose modules import."""

from __future__ import annotations

from envs.games import game_names, get_game


def ready_games() -> list[str]:
    """Registered games whose ``envs/<game>`` module imports (others are still being built)."""
    ready = []
    for name in game_names():
        try:
            get_game(name)
        except (ImportError, AttributeError):
            continue
        ready.append(name)
    return ready
