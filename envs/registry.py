"""Every game in PettingZoo's registry: ``pettingzoo.make("aec", "cardrl/spades-v5")``.

Importing ``envs`` registers each game of ``envs.games.GAMES`` under the namespace
``cardrl`` with its declaration's env version (``Game.env_name``, the one place a
game's version is written; CHANGELOG.md records it): ``cardrl/<name>-v<N>`` in the
AEC registry, and in the Parallel registry too where the game's
``envs/<game>/environment.py`` has a ``parallel_env`` (its declaration says so,
``Game.parallel``, so that registering imports no env module). Any keyword of
``make`` is an env option or a rules field, as for ``env()``.

Registering needs PettingZoo imported, and importing an engine or a declaration
must not load it (tests/test_envs.py): so ``envs`` registers at once if PettingZoo
is loaded already and otherwise right after PettingZoo's own import
(``after_import``), whichever order the user imports them in. ``agents`` registers
its single-seat Gymnasium envs the same way (``agents.single_seat``).
"""

from __future__ import annotations

import importlib.abc
import re
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from envs.games import GAMES, game_module, get_game

NAMESPACE = "cardrl"
_VERSIONED = re.compile(r"(?P<name>\w+?)_v(?P<version>\d+)")


def split_env_name(env_name: str) -> tuple[str, int]:
    """'spades_v5' -> ('spades', 4); a clear error for a name without a version."""
    m = _VERSIONED.fullmatch(env_name) if isinstance(env_name, str) else None
    if m is None:
        raise ValueError(f"an env name is '<name>_v<N>', got {env_name!r}")
    return m["name"], int(m["version"])


def env_id(game: str) -> str:
    """The PettingZoo id of a game: 'cardrl/spades-v5' (its declaration's version)."""
    name, version = split_env_name(get_game(game).env_name)
    return f"{NAMESPACE}/{name}-v{version}"


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
        module = game_module("envs", self.game, "environment")
        if module is None or not hasattr(module, "parallel_env"):
            raise ValueError(f"game {self.game!r} has no parallel env")
        return module.parallel_env(**options)


def register_games(pettingzoo: ModuleType) -> list[tuple[str, str]]:
    """Register every game of ``GAMES`` in PettingZoo's registries; (api, id) registered.

    Idempotent: an id already registered to the same entry point is left as it is
    (PettingZoo warns on an override)."""
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


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs callbacks right after a watched top-level module's own import has finished.

    It finds nothing itself: for a watched name it asks the other finders for the
    module's spec and wraps that spec's loader's ``exec_module``, then stops
    watching the name, so an import costs nothing once it has happened."""

    def __init__(self) -> None:
        self.callbacks: dict[str, list[Callable[[ModuleType], Any]]] = {}

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name not in self.callbacks:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = None if finder is self or find is None else find(name, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        callbacks = self.callbacks.pop(name)
        exec_module = loader.exec_module

        def exec_then_call(module: ModuleType) -> None:
            exec_module(module)
            for callback in callbacks:
                _call(callback, module)

        loader.exec_module = exec_then_call
        return spec


_HOOK = _AfterImport()


def _call(callback: Callable[[ModuleType], Any], module: ModuleType) -> None:
    """A registration that fails warns: it must not break the user's import."""
    try:
        callback(module)
    except Exception as err:  # noqa: BLE001 - reported, the import goes on
        warnings.warn(f"cardrl could not register its envs with {module.__name__}: {err!r}",
                      stacklevel=3)


def after_import(module: str, callback: Callable[[ModuleType], Any]) -> None:
    """``callback(module)`` now if the top-level ``module`` is imported, else right after
    its import (registering with a library without importing it before the user does)."""
    loaded = sys.modules.get(module)
    if loaded is not None and not getattr(getattr(loaded, "__spec__", None),
                                          "_initializing", False):
        _call(callback, loaded)
        return
    _HOOK.callbacks.setdefault(module, []).append(callback)
    if _HOOK not in sys.meta_path:
        sys.meta_path.insert(0, _HOOK)
