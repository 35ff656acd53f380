"""The registry of games: each game declares itself once, in its package's ``game.py``.

A declaration (``Game``) says everything generic code needs: presets and rules,
the engine state and its view, the two encoders, the action table, the score
scale, the hand metrics, and by module name where its env, web adapter and bots
live (so importing a game's engine or declaration imports neither PettingZoo nor
the bots). The env registry, the bot registry, training metrics, tournaments and
the web table read it; adding a game is one package and one line in ``GAMES``.

Engine states all offer ``current_player``, ``legal_actions()``, ``apply(action)``
(an illegal action raises a ``ValueError`` naming it and changes nothing),
``view(seat)``, ``clone()``, ``is_over``, ``winners``, ``scores`` and ``results``
(one summary per finished hand). A game's actions are ints in
``range(num_actions)``; an env's action mask is 1 exactly at ``legal_actions()``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from envs.encoding import KINDS, Encoder

# game name -> the module that holds its declaration ``GAME``: one line per game
GAMES = {
    "spades": "envs.spades.game",
    "gin_rummy": "envs.gin_rummy.game",
    "sevens": "envs.sevens.game",
    "blind_auction": "envs.blind_auction.game",
}
DEFAULT_OBSERVATION = "infostate"


def points_as_scored(before: Any, after: Any) -> tuple:
    """A finished hand's worth to each seat: the points its summary scored."""
    return after.results[-1].points


def no_hand_metric(result: dict, seat: int) -> dict[str, int]:
    return {}


@dataclass(frozen=True)
class Game:
    """One game's declaration (see the module docstring)."""

    name: str
    env_name: str  # versioned as in PettingZoo ('spades_v4'); bumped per CHANGELOG.md
    presets: tuple[str, ...]
    get_rules: Callable[..., Any]  # (preset or rules, **changes) -> rules
    state: type  # the engine: state(rules, rng, deal=None)
    view: type  # its PlayerView, with from_dict
    num_players: Callable[[Any], int]  # rules -> number of seats
    num_actions: int
    action_name: Callable[[int], str]
    render: Callable[[Any], str]  # view -> a text table (the env's render_mode="ansi")
    encoders: Mapping[str, Encoder]  # kind -> encoder, every kind of ``envs.encoding.KINDS``
    score_scale: Callable[[Any], float]  # rules -> points per unit of hand reward
    env_module: str  # module with ``raw_env`` and ``env`` (PettingZoo)
    bots: str  # module registering the game's rule bots in ``agents``
    strongest: tuple[str, ...]  # the strongest rule bots, best first
    web_adapter: str | None = None  # module with ``ADAPTER`` (web.adapters.WebAdapter)
    # hand result (``to_dict`` form) and seat -> counts; rates: name -> (numerator, denominator)
    hand_metric: Callable[[dict, int], dict[str, int]] = no_hand_metric
    hand_rates: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    # (view, n, rng) -> n engine states that show the view to its seat (search); None: none
    sample_worlds: Callable[..., list] | None = None
    # (state before, state after a hand ended) -> what the hand is worth to each seat
    hand_points: Callable[[Any, Any], tuple] = points_as_scored
    # (state, rng) -> None: redeal in place the cards no seat has seen (the Gin Rummy stock)
    redeal_unseen: Callable[[Any, Any], None] | None = None
    # module of the game's training extras (``train``'s plug-ins, e.g. a learned knock)
    train_plugin: str | None = None
    # (rules, encoder, policies, weights) -> {"exploitability": ...}: the exact exploitability
    # of network policies ((obs, masks) -> probabilities) mixed by weights, for training
    # curves (``train.exploit``); no policies: only check the rules. None: not known
    exploitability: Callable[..., dict] | None = None
    # a tournament's default for a failing bot: disqualify it and rerun without it (True,
    # the Sevens seed's tournament), or stop (False); ``eval.tournament --[no-]disqualify``
    disqualify_failing_bots: bool = False

    def __post_init__(self) -> None:
        missing = [k for k in KINDS if k not in self.encoders]
        if missing:
            raise ValueError(f"game {self.name!r} declares no {missing} encoder")

    def make_rules(self, preset: str | None = None, rules: Any = None, **changes: Any) -> Any:
        """Rules from a preset name or a rules object (not both; neither: the first
        preset), with field changes; a clear error for a bad name, field or value."""
        if preset is not None and rules is not None:
            raise ValueError("give a preset or a rules object, not both")
        return self.get_rules(self.presets[0] if rules is None and preset is None
                              else preset if rules is None else rules, **changes)

    def new_state(self, rules: Any, seed: Any = None, deal: Any = None) -> Any:
        return self.state(rules, seed, deal=deal)

    def encoder(self, kind: str = DEFAULT_OBSERVATION) -> Encoder:
        """The encoder of one observation kind; a clear error for another name."""
        try:
            return self.encoders[kind]
        except (KeyError, TypeError):
            raise ValueError(f"observation must be one of {list(self.encoders)}, "
                             f"got {kind!r}") from None

    def view_from_dict(self, data: dict) -> Any:
        return self.view.from_dict(data)

    def env(self, **kwargs) -> Any:
        """The game's PettingZoo AEC env (imports PettingZoo on first use)."""
        return importlib.import_module(self.env_module).env(**kwargs)


def get_game(name: str) -> Game:
    """The declaration of the game named ``name`` (e.g. 'spades')."""
    if not isinstance(name, str) or name not in GAMES:
        raise ValueError(f"unknown game {name!r}; choose from {sorted(GAMES)}")
    return importlib.import_module(GAMES[name]).GAME


def game_names() -> list[str]:
    return sorted(GAMES)
