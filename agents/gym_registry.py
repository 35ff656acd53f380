"""The Gymnasium ids of the single-seat envs (``agents.single_seat``): 'cardrl/Spades-v5'.

Apart from the env so that registering, which ``agents`` does right after
Gymnasium's import (``envs.registry.after_import``), imports neither the env
module nor anything that imports Gymnasium again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from envs.games import GAMES, get_game
from envs.registry import NAMESPACE, split_env_name

METADATA = {"render_modes": ["ansi"], "render_fps": 1}  # the env's; text has no frame rate,
# but Gymnasium's checker asks for one


def gym_id(game: str) -> str:
    """The Gymnasium id of a game's single-seat env: 'cardrl/GinRummy-v8'."""
    name, version = split_env_name(get_game(game).env_name)
    return f"{NAMESPACE}/{''.join(part.title() for part in name.split('_'))}-v{version}"


@dataclass(frozen=True)
class SingleSeatFactory:
    """The Gymnasium entry point of one game's single-seat env: an object, so that no
    module path names a game; picklable, for vector envs' worker processes."""

    game: str
    metadata = METADATA

    def __call__(self, **kwargs: Any) -> Any:
        from agents.single_seat import SingleSeatEnv  # Gymnasium is loaded by now

        return SingleSeatEnv(self.game, **kwargs)


def register_games(gym: Any) -> list[str]:
    """Register every game of ``GAMES`` with Gymnasium (the module ``gym``); the ids."""
    ids = []
    for game in GAMES:
        ident = gym_id(game)
        factory = SingleSeatFactory(game)
        known = gym.registry.get(ident)
        if known is None or known.entry_point != factory:
            gym.register(ident, entry_point=factory)
        ids.append(ident)
    return ids
