"""Registry of the games: how tournaments, training and front ends build any game.

Each game registers a ``Game``: its presets, how to make rules, an engine state
and an env. The engine states all offer ``current_player``, ``legal_actions()``,
``apply(action)``, ``view(seat)``, ``is_over``, ``winners``, ``scores`` and
``results`` (one summary per finished hand). A game's actions are ints in
``range(num_actions)`` and an env's action mask is 1 exactly at ``legal_actions()``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


def points_as_scored(before: Any, after: Any) -> tuple:
    """A finished hand's worth to each seat: the points its summary scored."""
    return after.results[-1].points


@dataclass(frozen=True)
class Game:
    name: str
    presets: tuple[str, ...]
    get_rules: Callable[..., Any]  # (preset, **changes) -> rules
    new_state: Callable[..., Any]  # (rules, seed, deal=None) -> state
    env: Callable[..., Any]  # (**kwargs) -> PettingZoo AEC env
    num_players: Callable[[Any], int]  # rules -> number of seats
    action_name: Callable[[int], str]
    view_from_dict: Callable[[dict], Any]
    # what a learned bot needs to act from a view without an env: the env's
    # versioned name (bumped when the observation or action table changes) and
    # the encoder, view -> float32 vector equal to the env's "observation"
    env_name: str
    encode: Callable[[Any], Any]
    # number of players -> ((observation offset, first action, length), ...): blocks of
    # the observation that describe one action each (train.policy scores them directly)
    action_features: Callable[[int], tuple] = lambda num_players: ()
    # (view, n, rng) -> n engine states that show the view to its seat, the hidden cards
    # drawn from rng among those that fit what the seat saw (search bots play them out);
    # None = the game has no sampler
    sample_worlds: Callable[..., list] | None = None
    # (state before, state after a hand ended) -> what the hand is worth to each seat, for a
    # search that stops at the hand's end
    hand_points: Callable[[Any, Any], tuple] = points_as_scored
    # (state, rng) -> None: redeal in place the cards no seat has seen (the Gin Rummy stock),
    # so play-outs from a true state average over the luck still to come (train.rollouts);
    # None = every card is in some hand
    redeal_unseen: Callable[[Any, Any], None] | None = None


_MODULES = {
    "spades": "envs.spades.game",
    "gin_rummy": "envs.gin_rummy.game",
    "sevens": "envs.sevens.game",
    "blind_auction": "envs.blind_auction.game",
}


def get_game(name: str) -> Game:
    """The ``Game`` named ``name`` (e.g. 'spades')."""
    if name not in _MODULES:
        raise ValueError(f"unknown game {name!r}; choose from {sorted(_MODULES)}")
    return importlib.import_module(_MODULES[name]).GAME


def game_names() -> list[str]:
    return sorted(_MODULES)
