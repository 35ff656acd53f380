"""The AEC glue every game shares: a thin PettingZoo adapter over engine + encoder.

A game subclasses ``CardGameEnv`` and supplies how to make a state, encode a
view, build a mask and render a view. Rewards follow RULES.md section 5:

* after each hand, each agent gets its score change for the hand divided by
  ``score_scale`` (``None`` turns this term off); ``relative_score=True`` gives
  instead its change minus the mean of the other seats' changes, a zero-sum
  form that pays what a ranking by points pays (taking points from the others
  counts as much as scoring them);
* when the episode ends, ``win_reward`` goes to the winner and ``-win_reward``
  to every other agent; tied winners share it (each gets ``win_reward / k``).

``episode="hand"`` ends the episode after one hand (the winner is then whoever
leads on total score). ``illegal_action="raise"`` (default) refuses an illegal
action with an error naming the agent, the action and the legal set, leaving
the state unchanged; ``"penalty"`` instead gives the agent ``illegal_penalty``
and plays a uniformly random legal action for it.

Observations come from an *observer* (``_make_observer``): by default
``ViewObserver`` encodes ``state.view(seat)`` at each ``observe``; a game may
supply one that keeps every seat's vector up to date move by move (Spades does)
as long as it returns exactly what encoding the view would.

The env checks call order itself (``step``, ``observe``, ``last``, ``render``
and ``agent_iter`` before ``reset`` raise PettingZoo's errors; ``agent_iter``
insists on a ``step`` per agent; ``step`` once every agent is done warns), so
``env()`` needs no ``OrderEnforcingWrapper`` and its attribute forwarding,
which cost as much per step as the whole game engine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger

# attributes reset() makes; reading one before it raises a clear error (as
# PettingZoo's OrderEnforcingWrapper does)
_MADE_BY_RESET = frozenset(
    {"rewards", "terminations", "truncations", "infos", "agent_selection", "agents",
     "num_agents", "_cumulative_rewards"})


ENV_OPTIONS = frozenset(
    {"render_mode", "episode", "score_scale", "relative_score", "win_reward", "illegal_action",
     "illegal_penalty"})


def split_env_options(options: dict) -> tuple[dict, dict]:
    """``(env options, rule changes)`` from one keyword dict, as ``env(**kwargs)`` takes it.

    Every game's ``env()`` accepts its rule fields and ``CardGameEnv``'s options
    side by side; this keeps that split in one place.
    """
    env_opts = {k: v for k, v in options.items() if k in ENV_OPTIONS}
    return env_opts, {k: v for k, v in options.items() if k not in ENV_OPTIONS}


def mask_function(num_actions: int) -> Callable[[Sequence[int]], np.ndarray]:
    """``action_mask(legal)`` for a table of ``num_actions``: an int8 array, 1 at each legal id.

    Sets bytes one by one and wraps them in a (writable) array: half the cost of
    ``np.zeros`` + ``mask[legal] = 1``, which first turns the list into an index array.
    """

    frombuffer, int8 = np.frombuffer, np.dtype(np.int8)  # a dtype object: no lookup per call

    def action_mask(legal_actions: Sequence[int]) -> np.ndarray:
        mask = bytearray(num_actions)
        for a in legal_actions:
            mask[a] = 1
        return frombuffer(mask, int8)

    return action_mask


class ViewObserver:
    """The default observer: encodes the seat's view afresh at every observation.

    An observer turns engine states into observation vectors for one env. The
    env calls ``reset(state)`` after a reset, ``after_apply(state, player,
    action)`` after every applied action, and ``observation(state, seat)`` in
    ``observe``, which must return a new array equal to ``encode(state.view(seat))``.
    A game whose encoding is costly keeps vectors up to date in ``after_apply``
    instead (see ``envs.spades.encode.SpadesObserver``).
    """

    def __init__(self, encode: Any) -> None:
        self._encode = encode

    def reset(self, state: Any) -> None:
        pass

    def after_apply(self, state: Any, player: int, action: Any) -> None:
        pass

    def observation(self, state: Any, seat: int) -> np.ndarray:
        return self._encode(state.view(seat))


class _AgentIterable:
    """``agent_iter()``: PettingZoo's AEC iterator with its order check, made cheap.

    Yields ``agent_selection`` until no agent is left or ``max_iter`` agents
    were yielded, and raises if the loop body did not ``step`` (which would
    otherwise spin forever), as the OrderEnforcingWrapper's iterator does.
    """

    __slots__ = ("env", "max_iter")

    def __init__(self, env: CardGameEnv, max_iter: int) -> None:
        self.env, self.max_iter = env, max_iter

    def __iter__(self):
        env = self.env
        for _ in range(self.max_iter):
            if not env.agents:
                return
            if not env._stepped:
                raise AssertionError("need to call step() or reset() in a loop over `agent_iter`")
            env._stepped = False
            yield env.agent_selection


class CardGameEnv(AECEnv):
    """Base PettingZoo AEC env for a card game engine with a ``view(seat)``.

    The engine state offers ``current_player``, ``legal_actions()``,
    ``apply(action)`` (which refuses an action not in ``legal_actions()`` with
    a ``ValueError``, changing nothing: ``step`` relies on it rather than
    checking every action twice), ``view(seat)``, ``is_over``, ``winners`` and
    ``results``.

    ``env.unwrapped`` is the env itself: it enforces the call order on its own
    (see the module docstring), so games return it unwrapped from ``env()``.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "is_parallelizable": False}

    num_players: int
    obs_size: int
    num_actions: int
    default_score_scale: float = 1.0

    def __init__(
        self,
        render_mode: str | None = None,
        episode: str = "game",
        score_scale: float | None = None,
        relative_score: bool = False,
        win_reward: float = 1.0,
        illegal_action: str = "raise",
        illegal_penalty: float = -1.0,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of "
                             f"{self.metadata['render_modes']}")
        if episode not in ("game", "hand"):
            raise ValueError(f"episode must be 'game' or 'hand', got {episode!r}")
        if illegal_action not in ("raise", "penalty"):
            raise ValueError(f"illegal_action must be 'raise' or 'penalty', got {illegal_action!r}")
        self.render_mode = render_mode
        self.episode = episode
        self.score_scale = self.default_score_scale if score_scale is None else score_scale
        if not isinstance(relative_score, bool):
            raise ValueError(f"relative_score must be True or False, got {relative_score!r}")
        self.relative_score = relative_score
        self.win_reward = float(win_reward)
        self.illegal_action = illegal_action
        self.illegal_penalty = float(illegal_penalty)
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        low, high = self._observation_bounds()
        obs_space = spaces.Dict({
            "observation": spaces.Box(low=low, high=high, dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(self.num_actions,), dtype=np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        self.state_obj = None
        self._rng_seed: int | None = None
        self._rng_obj: np.random.Generator | None = None
        self._observer = self._make_observer()
        # bound once: observe and step run every step
        self._observation = self._observer.observation
        self._after_apply = self._observer.after_apply
        self._stepped = False  # step() or reset() since agent_iter last yielded
        self._rewards_set = False  # some reward of the last step may be non-zero

    # --------------------------------------------------------- game hooks
    def _new_state(self, seed: int | None, options: dict) -> Any:
        raise NotImplementedError

    def _encode(self, view: Any) -> np.ndarray:
        raise NotImplementedError

    def _make_observer(self) -> Any:
        """This env's observer (see ``ViewObserver``); one per env, never shared."""
        return ViewObserver(self._encode)

    def _mask(self, legal: list[int]) -> np.ndarray:
        raise NotImplementedError

    def _render_view(self, view: Any) -> str:
        raise NotImplementedError

    def _observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return (np.zeros(self.obs_size, np.float32), np.ones(self.obs_size, np.float32))

    @property
    def _rng(self) -> np.random.Generator:
        """The env's own generator (random legal actions for penalised illegal ones),
        seeded by ``reset(seed)``; made when first needed, as making one is not free."""
        if self._rng_obj is None:
            self._rng_obj = np.random.default_rng(self._rng_seed)
        return self._rng_obj

    def __getattr__(self, name: str) -> Any:
        """Only called when ``name`` is missing: say why for the attributes of reset()."""
        if name in _MADE_BY_RESET:
            raise AttributeError(f"{name} cannot be accessed before reset")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # ----------------------------------------------------------- PettingZoo
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        options = dict(options or {})
        self._rng_seed, self._rng_obj = seed, None  # made on first use (illegal_action="penalty")
        self.state_obj = self._new_state(seed, options)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._hands_scored = len(self.state_obj.results)
        self.agent_selection = self.possible_agents[self.state_obj.current_player]
        self._observer.reset(self.state_obj)
        self._stepped = True
        self._rewards_set = False

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        state = self.state_obj
        if state is None:
            EnvLogger.error_observe_before_reset()
        seat = self._seat[agent]
        return {"observation": self._observation(state, seat),
                "action_mask": self._mask(state.legal_actions()
                                          if state.current_player == seat else [])}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict]:
        """As ``AECEnv.last``: observation, cumulative reward, terminated, truncated, info.

        Builds the observation as ``observe`` does, inline: one call less per step.
        """
        agent = self.agent_selection  # raises before reset (see __getattr__)
        if observe:
            state = self.state_obj
            seat = self._seat[agent]
            obs = {"observation": self._observation(state, seat),
                   "action_mask": self._mask(state.legal_actions()
                                             if state.current_player == seat else [])}
        else:
            obs = None
        return (obs, self._cumulative_rewards[agent], self.terminations[agent],
                self.truncations[agent], self.infos[agent])

    def agent_iter(self, max_iter: int = 2**63) -> _AgentIterable:
        if self.state_obj is None:
            EnvLogger.error_agent_iter_before_reset()
        return _AgentIterable(self, max_iter)

    def step(self, action: int | None) -> None:
        state = self.state_obj
        if state is None:
            EnvLogger.error_step_before_reset()
        agent = self.agent_selection
        self._stepped = True
        try:
            done = self.terminations[agent] or self.truncations[agent]
        except KeyError:
            if self.agents:
                raise
            EnvLogger.warn_step_after_terminated_truncated()  # every agent is gone
            return
        if done:
            self._was_dead_step(action)
            return
        player = state.current_player
        penalty = 0.0
        try:
            state.apply(action)  # checks the action: an illegal one raises and changes nothing
        except ValueError:
            legal = state.legal_actions()
            if action is not None and action in legal:
                raise  # not about the action's legality
            if self.illegal_action == "raise":
                raise ValueError(
                    f"illegal action {action!r} by {agent} "
                    f"({self._action_name(action)}); legal actions: {legal}") from None
            penalty = self.illegal_penalty
            action = legal[int(self._rng.integers(len(legal)))]
            state.apply(action)
        self._after_apply(state, player, int(action))
        rewards = self.rewards
        self._cumulative_rewards[agent] = 0.0
        if self._rewards_set:  # else every reward is still 0.0 from the step before
            for a in self.agents:
                rewards[a] = 0.0
        if penalty:
            rewards[agent] += penalty
        scored = len(state.results) != self._hands_scored
        if scored:
            self._score_finished_hands()
        if state.current_player is not None:
            self.agent_selection = self.possible_agents[state.current_player]
        self._rewards_set = scored or bool(penalty)
        if self._rewards_set:
            self._accumulate_rewards()
        # else every reward is 0.0 and adding it would change no cumulative reward
        if self.render_mode == "human":
            self.render()

    def _score_finished_hands(self) -> None:
        state = self.state_obj
        results = state.results
        if len(results) == self._hands_scored:
            return
        for result in results[self._hands_scored:]:
            if self.score_scale:
                points = result.points
                if self.relative_score:
                    n, total = len(points), sum(points)
                    points = [p - (total - p) / (n - 1) for p in points]
                for seat, agent in enumerate(self.possible_agents):
                    self.rewards[agent] += points[seat] / self.score_scale
        self._hands_scored = len(results)
        if state.is_over or self.episode == "hand":
            winners = state.winners if state.is_over else self._leaders(results[-1].totals)
            for seat, agent in enumerate(self.possible_agents):
                bonus = self.win_reward / len(winners) if seat in winners else -self.win_reward
                self.rewards[agent] += bonus
                self.terminations[agent] = True

    @staticmethod
    def _leaders(totals: tuple[int, ...]) -> tuple[int, ...]:
        top = max(totals)
        return tuple(s for s, t in enumerate(totals) if t == top)

    def _action_name(self, action: Any) -> str:
        return repr(action)

    def render(self) -> str | None:
        if self.state_obj is None:
            EnvLogger.error_render_before_reset()
        seat = self.state_obj.current_player
        text = self._render_view(self.state_obj.view(0 if seat is None else seat))
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


class GameEnv(CardGameEnv):
    """A game's ``raw_env``: built from its rules as ``raw_env(preset, rules, render_mode,
    **options)``, where ``options`` mixes rule fields and ``CardGameEnv`` options.

    A game sets ``get_rules`` (``(preset or rules, **changes) -> rules``),
    ``default_preset`` and ``state_class`` (``(rules, seed, deal=None) -> state``;
    ``reset(options={"deal": ...})`` passes the deal), plus ``CardGameEnv``'s hooks.
    ``_configure`` sets what depends on the rules before the spaces are built.
    """

    get_rules: Callable[..., Any]  # set as staticmethod(get_rules)
    default_preset: str
    state_class: type

    def __init__(
        self,
        preset: str | None = None,
        rules: Any = None,
        render_mode: str | None = None,
        **options,
    ) -> None:
        env_options, rule_changes = split_env_options(options)
        if rules is None:
            rules = self.default_preset if preset is None else preset
        self.rules = self.get_rules(rules, **rule_changes)
        self._configure()
        super().__init__(render_mode=render_mode, **env_options)

    def _configure(self) -> None:
        """Rules-dependent settings (by default the player count, where the rules have one)."""
        num_players = getattr(self.rules, "num_players", None)
        if num_players is not None:
            self.num_players = num_players

    def _new_state(self, seed: int | None, options: dict) -> Any:
        return self.state_class(self.rules, seed, deal=options.get("deal"))
