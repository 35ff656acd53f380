"""Every game in PettingZoo's registry: ``pettingzoo.make("aec", "cardrl/spades-v6")``.

``import cardrl`` calls ``register_games`` (the package's ``__init__``), which puts each
game of ``cardrl.envs.games.GAMES`` under the namespace ``cardrl`` with its declaration's
env version (``Game.env_name``, the one place a game's version is written; CHANGELOG.md
records it): ``cardrl/<name>-v<N>`` in the AEC registry, and in the Parallel registry
too where the game's ``envs/<game>/environment.py`` has a ``parallel_env`` (its
declaration says so, ``Game.parallel``, so that registering imports no env module). Any
keyword of ``make`` is an env option or a rules field, as for ``env()``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from cardrl.envs.games import GAMES, game_module, get_game

NAMESPACE = "cardrl"
_VERSIONED = re.compile(r"(?P<name>\w+?)_v(?P<version>\d+)")


def split_env_name(env_name: str) -> tuple[str, int]:
    """'spades_v6' -> ('spades', 6); a clear error for a name without a version."""
    m = _VERSIONED.fullmatch(env_name) if isinstance(env_name, str) else None
    if m is None:
        raise ValueError(f"an env name is '<name>_v<N>', got {env_name!r}")
    return m["name"], int(m["version"])


def env_id(game: str) -> str:
    """The PettingZoo id of a game: 'cardrl/spades-v6' (its declaration's version)."""
    name, version = split_env_name(get_game(game).env_name)
    return f"{NAMESPACE}/{name}-v{version}"


def gym_id(game: str) -> str:
    """The Gymnasium id of a game's single-seat env (``cardrl.agents.single_seat``):
    'cardrl/GinRummy-v9', at the game's env version."""
    name, version = split_env_name(get_game(game).env_name)
    return f"{NAMESPACE}/{''.join(part.title() for part in name.split('_'))}-v{version}"


@dataclass(frozen=True)
class EnvFactory:
    """A registry entry point: the env of one game through one API.

    An object, not a string, so that a game with no ``environment.py`` of its own
    needs no module path spelled anywhere; frozen (hashable: PettingZoo caches
    entry points) and picklable (vector envs send it to their workers).
    """

    game: str
    api: str = "aec"

    def __call__(self, **options: Any) -> Any:
        if self.api == "aec":
            return get_game(self.game).env(**options)
        module = game_module("cardrl.envs", self.game, "environment")
        if module is None or not hasattr(module, "parallel_env"):
            raise ValueError(f"game {self.game!r} has no parallel env")
        return module.parallel_env(**options)


def register_games() -> list[tuple[str, str]]:
    """Register every game of ``GAMES`` in PettingZoo's registries; (api, id) registered.

    Idempotent: an id already registered to the same entry point is left as it is
    (PettingZoo warns on an override)."""
    import pettingzoo  # the env layer's engines and declarations do not need it

    done = []
    for game in GAMES:
        ident = env_id(game)
        for api, registry in (("aec", pettingzoo.aec_registry),
                              ("parallel", pettingzoo.parallel_registry)):
            if api == "parallel" and not get_game(game).parallel:
                continue
            factory = EnvFactory(game, api)
            known = registry.get(ident)
            if known is None or known.entry_point != factory:
                pettingzoo.register(api, ident, entry_point=factory)
            done.append((api, ident))
    return done
