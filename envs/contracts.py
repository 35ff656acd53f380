"""The contracts generic code relies on, as ``typing.Protocol``s a type checker holds the
games to (``make typecheck``; docs/design.md, "The contracts").

Generic code (the env, the batched API, bots, tournaments, training, the web table)
reads a game only through its declaration (``cardrl.envs.games.Game``) and these
shapes: the engine state, the player view, the observer (with its optional fast paths
as a protocol of their own), the bot and the compiled core. ``tests/test_contracts.py``
checks every declared game against them at run time too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class PlayerView(Protocol):
    """What one seat may know, built only by ``EngineState.view(seat)``: frozen and
    JSON-serialisable, so a bot in any language can be sent it."""

    @property
    def seat(self) -> int: ...  # read-only: the views are frozen dataclasses

    def to_dict(self) -> dict: ...

    @classmethod
    def from_dict(cls, data: dict) -> Any: ...


@runtime_checkable
class EngineState(Protocol):
    """The whole truth of one game (``envs/<game>/engine.py``). ``apply`` of an illegal
    action raises a ``ValueError`` naming it and changes nothing; randomness comes only
    from the seed or generator the state was made with."""

    rules: Any

    @property
    def current_player(self) -> int | None: ...  # None once the game is over

    @property
    def is_over(self) -> bool: ...

    @property
    def scores(self) -> Any: ...  # total points per seat

    @property
    def winners(self) -> tuple[int, ...]: ...

    @property
    def results(self) -> Sequence[Any]: ...  # one summary per finished hand

    def legal_actions(self) -> list[int]: ...

    def apply(self, action: int) -> None: ...

    def view(self, seat: int) -> PlayerView: ...

    def clone(self) -> EngineState: ...


@runtime_checkable
class Observer(Protocol):
    """Keeps an env's observation vectors up to date (``Encoder.make_observer``); the
    plain ``ViewObserver`` encodes ``state.view(seat)`` afresh each time."""

    def reset(self, state: Any) -> None: ...

    def after_apply(self, state: Any, player: int, action: int) -> None: ...

    def observation(self, state: Any, seat: int) -> np.ndarray: ...


@runtime_checkable
class FastObserver(Observer, Protocol):
    """An observer's optional fast paths, used by the env where present: the mask it
    keeps anyway, and the whole observation dict in one call."""

    def action_mask(self, state: Any, seat: int) -> np.ndarray: ...

    def observe(self, state: Any, seat: int) -> dict[str, np.ndarray]: ...


@runtime_checkable
class BotLike(Protocol):
    """What plays a seat: ``cardrl.agents.Bot`` and anything shaped like it (the
    optional hooks, ``start_game`` and the rest, are the base class's)."""

    name: str
    game: str | None

    def reset(self, seed: int | None = None) -> None: ...

    def act(self, view: Any, legal_actions: Sequence[int]) -> int: ...

    def act_batch(self, views: Sequence[Any],
                  legal_actions: Sequence[Sequence[int]]) -> list[int]: ...


@runtime_checkable
class CompiledCore(Protocol):
    """A game's compiled batched core, ``CORE`` in ``envs/<game>/compiled.py``
    (``cardrl.envs.compiled`` documents the kernels' contract)."""

    def supports(self, rules: Any, kind: str) -> str | None: ...

    def arrays(self, rules: Any, num_games: int, kind: str) -> tuple: ...

    def load(self, st: tuple, i: int, state: Any) -> None: ...

    @property
    def start(self) -> Any: ...  # (st, d, rows) -> flags, compiled

    @property
    def step(self) -> Any: ...  # (st, d, idx, acts, rewards, dones) -> flags, compiled

    @property
    def write(self) -> Any: ...  # (st, d, rows) -> None, compiled
