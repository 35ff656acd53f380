"""The registry of games: each game declares itself once, in its package's ``game.py``.

A declaration (``Game``) says everything generic code needs: presets and rules,
the engine state and its view, the two encoders, the action table, the score
scale, the hand metrics and the hooks generic code calls. The env registry, the
bot registry, training metrics, tournaments and the web table read it.

The other layers find a game by its name, not by strings in the declaration
(``game_module``): its PettingZoo module is ``envs/<game>/environment.py`` (a
game without one gets ``cardrl.envs.aec.env_class(game)``), its rule bots the ``BOTS``
table of ``agents/<game>/__init__.py``, its web table ``web/adapters/<game>.py``.
Adding a game is a package under ``envs/`` (and ``agents/``) and one line in
``GAMES`` (docs/design.md, "Adding a game"); a game declared elsewhere, like a
test's toy game, joins for a while through ``registered(game)``.

Engine states all offer ``current_player``, ``legal_actions()``, ``apply(action)``
(an illegal action raises a ``ValueError`` naming it and changes nothing),
``view(seat)``, ``clone()``, ``is_over``, ``winners``, ``scores`` and ``results``
(one summary per finished hand). A game's actions are ints in
``range(num_actions)``; an env's action mask is 1 exactly at ``legal_actions()``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from cardrl.envs.contracts import EngineState, PlayerView
from cardrl.envs.encoding import DEFAULT_OBSERVATION, KINDS, Encoder

# the games: ``envs/<name>/game.py`` declares each as ``GAME``; one line per game
GAMES = ("spades", "gin_rummy", "sevens", "blind_auction")
_REGISTERED: dict[str, Game] = {}  # games declared outside envs/ (``registered``)


def points_as_scored(rules: Any, result: Any) -> tuple:
    """A finished hand's worth to each seat: the points its summary scored."""
    return result.points


def no_hand_metric(result: dict, seat: int) -> dict[str, int]:
    return {}


def nothing_public(state: EngineState) -> dict:
    return {}


@dataclass(frozen=True)
class Game:
    """One game's declaration (see the module docstring)."""

    name: str
    env_name: str  # versioned as in PettingZoo ('spades_v4'); bumped per CHANGELOG.md
    presets: tuple[str, ...]
    get_rules: Callable[..., Any]  # (preset or rules, **changes) -> rules
    state: Callable[..., EngineState]  # the engine class: state(rules, rng, deal=None)
    view: type[PlayerView]  # its view class, with from_dict
    num_players: Callable[[Any], int]  # rules -> number of seats
    num_actions: int
    action_name: Callable[[int], str]
    render: Callable[[Any], str]  # view -> a text table (the env's render_mode="ansi")
    encoders: Mapping[str, Encoder]  # kind -> encoder, every kind of ``cardrl.envs.encoding.KINDS``
    score_scale: Callable[[Any], float]  # rules -> points per unit of hand reward
    strongest: tuple[str, ...]  # the strongest rule bots, best first (``agents/<game>``)
    # hand result (``to_dict`` form) and seat -> counts; rates: name -> (numerator, denominator)
    hand_metric: Callable[[dict, int], dict[str, int]] = no_hand_metric
    hand_rates: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    # (view, n, rng) -> n engine states that show the view to its seat (search); None: none
    sample_worlds: Callable[..., Sequence[EngineState]] | None = None
    # (view, world) -> the other seats' moves so far this hand in that world, each (the view
    # its seat had, its legal actions, the action), to weigh worlds by how likely those
    # moves were (search's belief); None: not known
    past_moves: Callable[[Any, Any], Sequence[tuple[PlayerView, list[int], int]]] | None = None
    # (rules, a finished hand's summary) -> what the hand is worth to each seat, where its
    # points alone defer a cost (Spades' bags): what a search weighs a hand by, and what an
    # env pays with ``hand_reward="worth"`` (a game that declares one pays it in its
    # compiled core too, when ``pay[WORTH]`` is set)
    hand_worth: Callable[[Any, Any], tuple] = points_as_scored
    # state -> what the dealer announces at the start (a tournament bot's ``start_game``)
    public_parameters: Callable[[Any], dict] = nothing_public
    # (rules, encoder, policies, weights) -> {"exploitability": ...}: the exact exploitability
    # of network policies ((obs, masks) -> probabilities) mixed by weights, for training
    # curves (``cardrl.train.exploit``); no policies: only check the rules. None: not known
    exploitability: Callable[..., dict] | None = None
    # a tournament's default for a failing bot: disqualify it and rerun without it (True,
    # the Sevens seed's tournament), or stop (False); ``cardrl.eval.tournament --[no-]disqualify``
    disqualify_failing_bots: bool = False
    # whether ``envs/<game>/environment.py`` has a ``parallel_env`` (PettingZoo's Parallel
    # API): said here so that the PettingZoo registry (``cardrl.envs.registry``) need not import it
    parallel: bool = False
    # each round, every seat moves once in seat order from seat 0, and no view shows a move
    # of the round before the round ends: the moves are simultaneous (Blind Auction's bids;
    # its Parallel env, and OpenSpiel's simultaneous dynamics in ``cardrl.agents.openspiel``)
    simultaneous: bool = False
    # earlier env versions that differ from this one only in what the env pays or when an
    # episode ends (not in actions, rules or observations): a bot trained on one still plays
    bots_carry_over_from: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        missing = [k for k in KINDS if k not in self.encoders]
        if missing:
            raise ValueError(f"game {self.name!r} declares no {missing} encoder")

    def plays(self, env_name: str) -> bool:
        """Whether a bot trained on ``env_name`` plays the installed env unchanged."""
        return env_name == self.env_name or env_name in self.bots_carry_over_from

    def make_rules(self, preset: str | None = None, rules: Any = None, **changes: Any) -> Any:
        """Rules from a preset name or a rules object (not both; neither: the first
        preset), with field changes; a clear error for a bad name, field or value."""
        if preset is not None and rules is not None:
            raise ValueError("give a preset or a rules object, not both")
        return self.get_rules(self.presets[0] if rules is None and preset is None
                              else preset if rules is None else rules, **changes)

    def new_state(self, rules: Any, seed: Any = None, deal: Any = None) -> EngineState:
        return self.state(rules, seed, deal=deal)

    def encoder(self, kind: str = DEFAULT_OBSERVATION) -> Encoder:
        """The encoder of one observation kind; a clear error for another name."""
        try:
            return self.encoders[kind]
        except (KeyError, TypeError):
            raise ValueError(f"observation must be one of {list(self.encoders)}, "
                             f"got {kind!r}") from None

    def view_from_dict(self, data: dict) -> PlayerView:
        return self.view.from_dict(data)

    def env(self, **kwargs) -> Any:
        """The game's PettingZoo AEC env (imports PettingZoo on first use): its
        ``envs/<game>/environment.py``'s, else the generic one (``cardrl.envs.aec.env_class``)."""
        module = game_module("cardrl.envs", self.name, "environment")
        if module is None:
            from cardrl.envs import aec  # PettingZoo only when an env is made
            return aec.env_class(self)(**kwargs)
        return module.env(**kwargs)


def game_module(layer: str, game: str, suffix: str = "") -> ModuleType | None:
    """A game's module in another layer, found by its place: ``<layer>.<game>[.<suffix>]``
    (``cardrl.agents.spades``, ``cardrl.web.adapters.sevens``,
    ``cardrl.envs.gin_rummy.environment``), or None
    where the game has none. An import error inside the module is not swallowed."""
    name = ".".join(filter(None, (layer, game, suffix)))
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as err:
        if err.name is not None and (name == err.name or name.startswith(err.name + ".")):
            return None  # the module itself (or its package) is absent, not something it uses
        raise


def get_game(name: str) -> Game:
    """The declaration of the game named ``name`` (e.g. 'spades')."""
    if isinstance(name, str) and name in _REGISTERED:
        return _REGISTERED[name]
    if not isinstance(name, str) or name not in GAMES:
        raise ValueError(f"unknown game {name!r}; choose from {game_names()}")
    return importlib.import_module(f"cardrl.envs.{name}.game").GAME


def game_names() -> list[str]:
    return sorted({*GAMES, *_REGISTERED})


@contextmanager
def registered(game: Game) -> Iterator[Game]:
    """``game`` is a known game inside the ``with`` block (``get_game``, ``game_names``,
    every layer's lookups): a game declared outside ``envs/``, such as a test's toy game."""
    if not isinstance(game, Game):
        raise ValueError(f"registered takes a Game declaration, got {game!r}")
    if game.name in game_names():
        raise ValueError(f"a game named {game.name!r} is already known")
    _REGISTERED[game.name] = game
    try:
        yield game
    finally:
        del _REGISTERED[game.name]
