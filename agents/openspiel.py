"""Every game as an OpenSpiel game, and OpenSpiel's IS-MCTS as a bot (the ``openspiel`` extra).

Importing this module registers one pyspiel Python game per declared game,
``cardrl_<game>`` (``pyspiel.load_game("cardrl_spades", {"preset": "cutthroat"})``),
built from the declaration alone, so that CFR, IS-MCTS, exploitability and the
rest of OpenSpiel run on them:

* **chance**: the engine is run as it is, with a generator whose draws are chance
  nodes (``_Draws``): a shuffle is one chance node per card (the index of the card
  that comes next), ``integers`` one node over its range, ``random()`` one over
  ``BUCKETS`` equal slices of [0, 1). A move whose engine call draws (the deal of
  the next hand, say) stops at its first unrecorded draw; once the chance outcome
  is chosen, the move is replayed from the state before it with the draws so far.
* **information**: the information state of a seat is its ``PlayerView``
  (``information_state_string``: the view as JSON; ``information_state_tensor``:
  the game's default observation, ``cardrl.envs.games.DEFAULT_OBSERVATION``, the env's
  vector); the observation string is the rendered table.
* **dynamics**: sequential, or simultaneous for a game whose declaration says its
  rounds are (``Game.simultaneous``); ``turn_based=True`` gives such a game
  sequentially, each seat moving without seeing the round's earlier moves (what
  ``pyspiel.convert_to_turn_based`` makes), for solvers and IS-MCTS.
* **returns**, paid at the end: ``returns="margin"`` (each seat's points less the
  other seats' mean, in units of the declaration's ``score_scale``) or ``"win"``
  (the winners share 1, less 1/n); both zero-sum. ``episode="hand"`` ends the game
  when the first hand does, paying what the hand was worth (``hand_worth``).
* **parameters**: ``preset``, and every rules field the declaration lets a user
  change (``cardrl.envs.rules_base.editable_fields``): -1 (or "" for a text field) keeps
  the preset's value, -2 means none for a field that may be none; a yes/no field
  takes 0 or 1.
* ``resample_from_infostate``: a world from the declaration's ``sample_worlds``
  (the void-aware samplers of ``envs/<game>/worlds.py``).

``ISMCTSBot`` (registry name ``openspiel/ismcts``) plays any game with
``sample_worlds`` through OpenSpiel's IS-MCTS: it searches the current hand,
sampling a world from its view at each simulation.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from cardrl.agents.base import Bot
from cardrl.envs.contracts import EngineState, PlayerView
from cardrl.envs.games import DEFAULT_OBSERVATION, Game, game_names, get_game
from cardrl.envs.rewards import MAX_EPISODE_HANDS
from cardrl.envs.rules_base import editable_fields

PREFIX = "cardrl_"
BUCKETS = 1000  # a uniform float draw: this many equal slices, each drawn at its middle
KEEP, NONE = -1, -2  # an int parameter: the preset's value; none
EPISODES = ("game", "hand")
RETURNS = ("margin", "win")
# the most moves of a game, chance nodes not counted: a game stops there (its returns are
# the margin so far), so the length OpenSpiel is told is true; with the hand cap below a
# game ends well before it
MAX_GAME_LENGTH = 100_000
MARGIN_BOUND = 1e4  # a loose bound on a margin in units of the score scale


def short_name(game: str) -> str:
    """The OpenSpiel name of one of our games: 'spades' -> 'cardrl_spades'."""
    return PREFIX + game


class _Chance(Exception):  # noqa: N818 (a signal, not an error)
    """An engine draw with no recorded outcome: the outcomes it may take."""

    def __init__(self, outcomes: Sequence[int]) -> None:
        super().__init__(outcomes)
        self.outcomes = tuple(outcomes)


_DRAWS = frozenset({"integers", "random", "permutation", "shuffle"})
_GENERATOR_METHODS = frozenset(n for n in dir(np.random.Generator) if not n.startswith("_"))


_NEVER_DRAWN = np.random.PCG64(0)  # the bit generator under every _Draws, never drawn from


class _Draws(np.random.Generator):
    """A generator whose every draw is a chance outcome: the recorded ones in turn, then
    ``_Chance`` with the outcomes the next draw may take. Any other kind of draw raises."""

    def __init__(self, outcomes: Sequence[int]) -> None:
        super().__init__(_NEVER_DRAWN)
        self.outcomes, self.at = outcomes, 0

    def __getattribute__(self, name: str) -> Any:
        if name in _GENERATOR_METHODS and name not in _DRAWS and name != "bit_generator":
            raise NotImplementedError(f"an engine draw by Generator.{name} is not a chance node "
                                      f"here (agents.openspiel supports {sorted(_DRAWS)})")
        return object.__getattribute__(self, name)

    def _next(self, outcomes: Sequence[int]) -> int:
        if self.at < len(self.outcomes):
            self.at += 1
            return self.outcomes[self.at - 1]
        raise _Chance(outcomes)

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        low, high = (0, int(low)) if high is None else (int(low), int(high))
        high += bool(endpoint)
        if high - low > BUCKETS:
            raise NotImplementedError(f"a draw over {high - low} values is more chance outcomes "
                                      f"than {BUCKETS}")
        if size is None:
            return low + self._next(range(high - low))
        return np.array([low + self._next(range(high - low))
                         for _ in range(int(np.prod(size)))]).reshape(size)

    def random(self, size=None, dtype=np.float64, out=None):
        if size is not None or out is not None:
            raise NotImplementedError("random(size=...) is not a chance node here")
        return (self._next(range(BUCKETS)) + 0.5) / BUCKETS

    def permutation(self, x, axis=0):
        if not isinstance(x, (int, np.integer)):
            arr = np.asarray(x)
            return arr[self.permutation(len(arr))]
        left, order = list(range(int(x))), []
        while left:
            i = self._next(left)
            left.remove(i)
            order.append(i)
        return np.array(order, dtype=np.int64)

    def shuffle(self, x, axis=0):
        before = list(x)
        for i, j in enumerate(self.permutation(len(before))):
            x[i] = before[j]


class _Record(np.random.Generator):
    """A real generator (``default_rng(seed)``'s draws) that notes each draw as the chance
    outcomes ``_Draws`` would replay: the same deal as an env reset with that seed."""

    def __init__(self, seed: int) -> None:
        super().__init__(np.random.PCG64(seed))
        self.outcomes: list[int] = []

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        drawn = super().integers(low, high, size=size, dtype=dtype, endpoint=endpoint)
        base = 0 if high is None else int(low)
        self.outcomes.extend(int(v) - base for v in np.ravel(drawn))
        return drawn

    def random(self, size=None, dtype=np.float64, out=None):
        drawn = super().random()
        self.outcomes.append(int(drawn * BUCKETS))  # its slice (the same side of k / BUCKETS)
        return drawn

    def permutation(self, x, axis=0):
        drawn = super().permutation(x)
        if isinstance(x, (int, np.integer)):
            self.outcomes.extend(int(v) for v in drawn)
            return drawn
        raise NotImplementedError("record a permutation of a length")


def chance_outcomes_of_seed(game: str | Game, rules: Any, seed: int) -> list[int]:
    """The chance outcomes that deal what ``game``'s engine deals from ``seed`` (an env's
    ``reset(seed)``): replayed in order, the OpenSpiel game gets the same deal."""
    decl = game if isinstance(game, Game) else get_game(game)
    rng = _Record(seed)
    decl.new_state(rules, rng)
    return rng.outcomes


class _Shared:
    """An attribute a state copy shares (deepcopy) and pickles by reference."""

    def __deepcopy__(self, memo: dict) -> _Shared:
        return self


class _Spec(_Shared):
    """One game's declaration, rules and OpenSpiel options (shared by its states)."""

    def __init__(self, name: str, params: dict) -> None:
        self.name, self.params = name, dict(params)
        self.game = get_game(name)
        self.rules = rules_from_params(self.game, self.params)
        self.num_players = self.game.num_players(self.rules)
        self.encoder = self.game.encoder(DEFAULT_OBSERVATION)
        self.simultaneous = self.game.simultaneous and not self.params.get("turn_based", False)
        self.episode, self.returns = self.params["episode"], self.params["returns"]
        self.first_outcomes: tuple[int, ...] | None = None  # of a new game's first draw
        if self.episode not in EPISODES:
            raise ValueError(f"episode must be one of {EPISODES}, got {self.episode!r}")
        if self.returns not in RETURNS:
            raise ValueError(f"returns must be one of {RETURNS}, got {self.returns!r}")

    def __reduce__(self):
        return _Spec, (self.name, self.params)


def _route_draws(engine: EngineState, rng: Any) -> None:
    """Send ``engine``'s later draws to ``rng`` (None: it may draw no more in this episode).
    An engine that draws after it is made keeps its generator as ``rng``, which
    ``EngineState`` does not name (one that draws only when made gets it unread)."""
    setattr(engine, "rng", rng)  # noqa: B010 - no member of the protocol


class _Engine:
    """An engine state held by a pyspiel state: a copy clones it (``clone()``)."""

    __slots__ = ("state",)

    def __init__(self, state: EngineState) -> None:
        self.state = state

    def __deepcopy__(self, memo: dict) -> _Engine:
        return _Engine(self.state.clone())


class _Start(_Engine):
    """The engine as an episode began: read only, so copies share it."""

    __slots__ = ()

    def __deepcopy__(self, memo: dict) -> _Start:
        return self


# ------------------------------------------------------------------ parameters
def parameter_specification(game: Game) -> dict[str, Any]:
    """The OpenSpiel parameters of a game and their defaults (see the module docstring)."""
    rules = game.make_rules()
    spec: dict[str, Any] = {"preset": game.presets[0], "episode": "game", "returns": "margin"}
    for name in editable_fields(rules):
        spec[name] = "" if isinstance(getattr(rules, name), str) else KEEP
    if "max_hands" in spec and rules.max_hands is None:  # a game random play never ends
        spec["max_hands"] = MAX_EPISODE_HANDS  # (killer Spades) stops at the env's hand cap
    if game.simultaneous:
        spec["turn_based"] = False
    return spec


def rules_from_params(game: Game, params: dict) -> Any:
    """The rules the parameters name: the preset with the fields changed that the
    parameters change; a clear error for a bad value."""
    preset = params.get("preset") or game.presets[0]
    base = game.make_rules(preset)
    fields = editable_fields(base)
    changes: dict[str, Any] = {}
    for name, value in params.items():
        if name not in fields or value in (KEEP, ""):
            continue
        if value == NONE:
            if not fields[name].none:
                raise ValueError(f"{game.name} rules field {name!r} cannot be none (-2)")
            changes[name] = None
        elif isinstance(getattr(base, name), bool):
            if value not in (0, 1):
                raise ValueError(f"{game.name} rules field {name!r} takes 0 or 1, got {value!r}")
            changes[name] = bool(value)
        else:
            changes[name] = value
    return game.make_rules(preset, **changes) if changes else base


def params_of_rules(game: Game, rules: Any) -> dict[str, Any]:
    """The parameters that name ``rules`` (their preset, or the first, and every editable
    field's value), the inverse of ``rules_from_params`` up to fields no parameter names."""
    params: dict[str, Any] = {"preset": rules.preset if rules.preset in game.presets
                              else game.presets[0]}
    for name in editable_fields(rules):
        value = getattr(rules, name)
        params[name] = NONE if value is None else int(value) if isinstance(value, bool) else value
    return params


def game_type(game: Game, simultaneous: bool | None = None) -> pyspiel.GameType:
    rules = game.make_rules()
    players = editable_fields(rules).get("num_players")
    n = game.num_players(rules)
    sim = game.simultaneous if simultaneous is None else simultaneous
    return pyspiel.GameType(
        short_name=short_name(game.name),
        long_name=f"cardrl {game.name} ({game.env_name})",
        dynamics=(pyspiel.GameType.Dynamics.SIMULTANEOUS if sim
                  else pyspiel.GameType.Dynamics.SEQUENTIAL),
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=players.high if players else n,
        min_num_players=players.low if players else n,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameter_specification(game),
    )


# ------------------------------------------------------------------ the game
class CardGame(pyspiel.Game):
    """One of our games as a pyspiel game (which one: the registered class's ``NAME``)."""

    NAME = ""

    def __init__(self, params: dict | None = None) -> None:
        decl = get_game(self.NAME)
        full = {**parameter_specification(decl), **(params or {})}
        self.spec = _Spec(self.NAME, full)
        n = self.spec.num_players
        top = 1.0 - 1.0 / n if self.spec.returns == "win" else MARGIN_BOUND
        bottom = -1.0 / n if self.spec.returns == "win" else -MARGIN_BOUND
        info = pyspiel.GameInfo(
            num_distinct_actions=decl.num_actions, max_chance_outcomes=BUCKETS, num_players=n,
            min_utility=bottom, max_utility=top, utility_sum=0.0,
            max_game_length=MAX_GAME_LENGTH)
        super().__init__(game_type(decl, self.spec.simultaneous), info, full)

    def new_initial_state(self) -> CardState:
        return CardState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> _Observer:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        recall = iig_obs_type is None or iig_obs_type.perfect_recall
        return _Observer(self.spec, recall)

    def state_from_engine(self, engine: EngineState) -> CardState:
        """A state of this game at an engine state (a world sampled for search): its
        episode starts there."""
        state = CardState(self, start=False)
        _route_draws(engine, None)
        state._engine = _Engine(engine)
        state._before = _Start(engine.clone())
        state._results_at_start = len(engine.results)
        state._finish_step()
        return state


class CardState(pyspiel.State):
    """A pyspiel state over an engine state (see the module docstring for chance)."""

    def __init__(self, game: CardGame, start: bool = True) -> None:
        super().__init__(game)
        self._spec = game.spec
        self._engine: _Engine | None = None  # None while a step waits for chance
        self._before: _Start | None = None  # the engine when the episode began
        self._base: _Engine | None = None  # the engine before the waiting step (None: new)
        self._step: tuple[int, ...] = ()  # the waiting step's moves, in seat order
        self._draws: list[int] = []  # the chance outcomes drawn for the waiting step
        self._outcomes: tuple[int, ...] | None = None  # what the next draw may be
        self._results_at_start = 0
        self._ended = False  # an episode of one hand is over
        self._moves = 0  # player moves so far (``MAX_GAME_LENGTH``)
        if start:
            first = self._spec.first_outcomes
            if first is None:
                self._run()
            else:  # a new game stops at its first draw: the same each time
                self._outcomes = first

    # ------------------------------------------------------------ the engine
    def _run(self) -> None:
        """Play the waiting step with the draws so far: done, or stopped at a draw."""
        rng = _Draws(self._draws)
        engine = None
        try:
            if self._base is None:
                engine = self._spec.game.new_state(self._spec.rules, rng)
            else:
                engine = self._base.state.clone()
                _route_draws(engine, rng)
                for action in self._step:
                    engine.apply(action)
        except _Chance as chance:
            if (engine is not None and self._spec.episode == "hand"
                    and len(engine.results) > self._results_at_start):
                _route_draws(engine, None)  # the hand is over: the next deal is not this episode's
                self._engine, self._ended = _Engine(engine), True
                self._outcomes = None
                return
            self._outcomes = chance.outcomes
            if self._base is None and not self._draws:
                self._spec.first_outcomes = chance.outcomes
            return
        _route_draws(engine, None)
        self._engine, self._base, self._step, self._draws = _Engine(engine), None, (), []
        self._outcomes = None
        if self._before is None:
            self._before = _Start(engine.clone())
        self._finish_step()

    def _finish_step(self) -> None:
        assert self._engine is not None  # a step was played
        engine = self._engine.state
        if self._spec.episode == "hand" and len(engine.results) > self._results_at_start:
            self._ended = True

    def _begin(self, moves: tuple[int, ...]) -> None:
        self._moves += len(moves)
        self._base, self._step, self._draws, self._engine = self._engine, moves, [], None
        self._run()

    @property
    def engine(self) -> EngineState | None:
        """The engine state (None while a step waits for chance)."""
        return None if self._engine is None else self._engine.state

    def _movers(self) -> list[int]:
        """The seats that move at a simultaneous node, in seat order."""
        assert self._engine is not None  # no draw waits
        engine = self._engine.state.clone()
        movers: list[int] = []
        while engine.current_player is not None and engine.current_player not in movers:
            seat = engine.current_player
            if movers and seat < movers[-1]:
                break
            movers.append(seat)
            legal = engine.legal_actions()
            hand = len(engine.results)
            engine.apply(legal[0])
            if len(engine.results) != hand:
                break
        return movers

    # ------------------------------------------------------------ pyspiel API
    def current_player(self) -> int:
        if self._outcomes is not None:
            return pyspiel.PlayerId.CHANCE
        if self.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        if self._spec.simultaneous:
            return pyspiel.PlayerId.SIMULTANEOUS
        assert self._engine is not None  # no draw waits
        player = self._engine.state.current_player
        assert player is not None  # not terminal: a seat to act
        return int(player)

    def is_terminal(self) -> bool:
        if self._outcomes is not None:
            return False
        assert self._engine is not None  # no draw waits
        return self._ended or self._engine.state.is_over or self._moves >= MAX_GAME_LENGTH

    def _legal_actions(self, player: int) -> list[int]:
        if self.is_terminal():
            return []
        assert self._engine is not None  # no draw waits
        engine = self._engine.state
        if not self._spec.simultaneous:
            return sorted(engine.legal_actions()) if player == engine.current_player else []
        movers = self._movers()
        if player not in movers:
            return []
        engine = engine.clone()
        for _ in movers[:movers.index(player)]:
            engine.apply(engine.legal_actions()[0])
        return sorted(engine.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        assert self._outcomes is not None  # a chance node
        p = 1.0 / len(self._outcomes)
        return [(int(o), p) for o in sorted(self._outcomes)]

    def _apply_action(self, action: int) -> None:
        if self._outcomes is not None:
            self._draws.append(int(action))
            self._run()
        else:
            self._begin((int(action),))

    def _apply_actions(self, actions: Sequence[int]) -> None:
        self._begin(tuple(int(actions[seat]) for seat in self._movers()))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"chance:{action}"
        return self._spec.game.action_name(int(action))

    def returns(self) -> list[float]:
        n = self._spec.num_players
        if not self.is_terminal():
            return [0.0] * n
        assert self._engine is not None and self._before is not None  # an episode ended
        engine = self._engine.state
        if self._spec.episode == "hand":
            worth = self._spec.game.hand_worth(engine.rules, engine.results[-1])
            points = [float(p) for p in worth]
        else:
            before = self._before.state.scores
            points = [float(a - b) for a, b in zip(engine.scores, before, strict=True)]
        if self._spec.returns == "win":
            top = max(points) if self._spec.episode == "hand" or not engine.winners else None
            winners = ([s for s in range(n) if points[s] == top] if top is not None
                       else list(engine.winners))
            return [(s in winners) / len(winners) - 1.0 / n for s in range(n)]
        scale = self._spec.game.score_scale(self._spec.rules) or 1.0
        total = sum(points)
        return [(p - (total - p) / (n - 1)) / scale for p in points]

    def resample_from_infostate(self, player: int, probability_sampler=None,
                                rng: np.random.Generator | None = None) -> CardState:
        """A state ``player`` cannot tell from this one: the hidden cards dealt again by the
        declaration's ``sample_worlds``."""
        sample = self._spec.game.sample_worlds
        if sample is None:
            raise ValueError(f"{self._spec.name} declares no sample_worlds to resample with")
        if self._engine is None:
            raise ValueError("cannot resample a state that waits for chance")
        if rng is None:
            rng = np.random.default_rng(None if probability_sampler is None
                                        else int(probability_sampler() * 2**31))
        world = sample(self._engine.state.view(player), 1, rng)[0]
        state = self.get_game().state_from_engine(world)
        state._before, state._results_at_start = self._before, self._results_at_start
        state._finish_step()
        return state

    def __str__(self) -> str:
        if self._engine is None:
            return f"waiting for chance after {list(self._step)}: drawn {self._draws}"
        # the engine's own fields, the deal included; hands played before this one as a
        # count (their results are in the scores), so the text stays short in a long game
        engine = self._engine.state
        truth = {k: (len(v) if k == "results" else v) for k, v in vars(engine).items()
                 if not k.startswith("_") and k not in ("rng", "rules")}
        return f"{engine.rules!r}\n{truth!r}"


class _Observer:
    """A seat's view as the game's default observation (the env's vector) and as text:
    JSON of the whole view (the information state) or the rendered table."""

    def __init__(self, spec: _Spec, perfect_recall: bool) -> None:
        self.spec, self.perfect_recall = spec, perfect_recall
        self.tensor = np.zeros(spec.encoder.size(spec.num_players), np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: CardState, player: int) -> None:
        engine = state.engine
        if engine is None:
            self.tensor.fill(0)
        else:
            self.tensor[:] = self.spec.encoder.encode(engine.view(player))

    def string_from(self, state: CardState, player: int) -> str:
        engine = state.engine
        if engine is None:
            return f"dealing ({len(state._draws)} drawn)"
        view = engine.view(player)
        if self.perfect_recall:
            return json.dumps(view.to_dict(), sort_keys=True, separators=(",", ":"))
        return self.spec.game.render(view)


# ------------------------------------------------------------------ registration
def _game_class(name: str) -> type[CardGame]:
    return type(f"CardGame_{name}", (CardGame,), {"NAME": name})


def register_all() -> list[str]:
    """Register every declared game not yet known to pyspiel; its OpenSpiel names."""
    known = set(pyspiel.registered_names())
    names = []
    for name in game_names():
        game = get_game(name)
        if short_name(name) not in known:
            pyspiel.register_game(game_type(game), _game_class(name))
        names.append(short_name(name))
    return names


def load(game: str, **params) -> CardGame:
    """``load("spades", preset="cutthroat", episode="hand")``: the OpenSpiel game."""
    if game not in game_names():
        raise ValueError(f"unknown game {game!r}; choose from {game_names()}")
    return pyspiel.load_game(short_name(game), params)


GAMES = register_all()


# ------------------------------------------------------------------ the bot
def _declaration_of(view: PlayerView) -> Game:
    for name in game_names():
        game = get_game(name)
        if isinstance(view, game.view):
            return game
    raise ValueError(f"no declared game has views of type {type(view).__name__}")


class ISMCTSBot(Bot):
    """OpenSpiel's IS-MCTS (``open_spiel.python.algorithms.ismcts``) on the current hand:
    each simulation starts from a world sampled from the view (``sample_worlds``),
    random play-outs judge the leaves, returns are the hand's margin (or win share)."""

    def __init__(self, seed: int | None = None, simulations: int = 100, uct_c: float = 2.0,
                 rollouts: int = 1, worlds: int = -1, returns: str = "margin",
                 final: str = "max_visit_count") -> None:
        super().__init__(seed)
        for key, value in (("simulations", simulations), ("rollouts", rollouts)):
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{key} must be an int >= 1, got {value!r}")
        if not isinstance(worlds, int) or worlds == 0 or worlds < -1:
            raise ValueError(f"worlds must be -1 (a new world per simulation) or >= 1, "
                             f"got {worlds!r}")
        if returns not in RETURNS:
            raise ValueError(f"returns must be one of {RETURNS}, got {returns!r}")
        finals = {t.name.lower(): t for t in ismcts.ISMCTSFinalPolicyType}
        if final not in finals:
            raise ValueError(f"final must be one of {sorted(finals)}, got {final!r}")
        self.simulations, self.uct_c, self.rollouts = simulations, float(uct_c), rollouts
        self.worlds, self.returns, self.final = worlds, returns, finals[final]
        self._games: dict[Any, CardGame] = {}

    def _game(self, decl: Game, rules: Any) -> CardGame:
        key = (decl.name, rules)
        if key not in self._games:
            params = {**params_of_rules(decl, rules), "episode": "hand", "returns": self.returns}
            if decl.simultaneous:
                params["turn_based"] = True  # IS-MCTS searches sequential games
            game = _game_class(decl.name)(params)
            game.spec.rules = rules  # exactly the view's, fields no parameter names included
            self._games[key] = game
        return self._games[key]

    def act(self, view: Any, legal_actions: Sequence[int]) -> int:
        legal = [int(a) for a in legal_actions]
        if len(legal) == 1:
            return legal[0]
        decl = _declaration_of(view)
        if decl.sample_worlds is None:
            raise ValueError(f"openspiel/ismcts needs worlds to search: {decl.name} declares "
                             f"no sample_worlds")
        game = self._game(decl, view.rules)
        rng = self.rng
        root = game.state_from_engine(decl.sample_worlds(view, 1, rng)[0])
        seed = int(rng.integers(2**31))
        evaluator = mcts.RandomRolloutEvaluator(self.rollouts, np.random.RandomState(seed))
        bot = ismcts.ISMCTSBot(game, evaluator, self.uct_c, self.simulations,
                               max_world_samples=self.worlds,
                               random_state=np.random.RandomState(seed + 1),
                               final_policy_type=self.final)
        bot.set_resampler(lambda state, player: state.resample_from_infostate(player, rng=rng))
        policy = dict(bot.get_policy(root))
        best = max(policy[a] for a in legal if a in policy)
        return next(a for a in legal if policy.get(a) == best)
