"""The PettingZoo AEC env every game shares: a thin adapter over a game's declaration.

A game's ``raw_env`` is ``CardGameEnv`` with its declaration (``game = GAME``)
and nothing else: rules, engine, encoders, action names and the score scale all
come from the declaration (``cardrl.envs.games.Game``), so terminal steps, illegal
actions, rewards and option checks are written once for every game.

Options (``env(**options)``; any other keyword is a rules field):

* ``observation``: ``"infostate"`` (default: everything the seat's view holds,
  nothing estimated) or ``"features"`` (the information plus what the expert bots
  reckon with); see ``cardrl.envs.encoding``.
* Rewards (docs/rules.md section 5), zero-sum by default: after each hand, each agent's
  score change for the hand minus the mean of the other seats' changes (what a ranking by
  points pays; ``relative_score=False``: the raw change), divided by ``score_scale``
  (``None``: the game's scale; ``0`` turns the term off); when the episode ends, the
  winners share ``win_reward`` and the others share ``-win_reward`` (a draw pays 0).
  ``hand_reward="worth"`` pays a hand what the game says it is worth instead of its points
  (``Game.hand_worth``: Spades charges each bag as it is made, 10 in cutthroat, where the
  points charge 50 at the fifth).
* ``episode="hand"`` ends the episode after one hand (the winner is whoever leads);
  ``max_episode_hands`` (100; ``None``: no cap) truncates an episode of whole games that
  has not ended by then: PettingZoo's ``truncations``, and no win bonus.
* ``illegal_action="raise"`` (default) refuses an illegal action with an error
  naming the agent, the action and the legal set, changing nothing; ``"penalty"``
  gives the agent ``illegal_penalty`` and plays a uniformly random legal action
  for it, and never raises. A bool is never an action (``True`` is not 1).
* ``reset(seed, options={"deal": ...})`` replays a given deal (the game's format).

Observations come from the encoder's *observer*, which keeps every seat's vector
up to date move by move where the game has one (``cardrl.envs.encoding.ViewObserver``
otherwise); an observer that keeps masks too offers ``action_mask(state, seat)``,
and one that builds the whole observation dict at once ``observe(state, seat)``.

The env checks call order itself (``step``, ``observe``, ``last``, ``render`` and
``agent_iter`` before ``reset`` raise PettingZoo's errors; ``agent_iter`` insists
on a ``step`` per agent), so ``env()`` needs no ``OrderEnforcingWrapper``, whose
attribute forwarding cost as much per step as a whole game engine. Nor does the
class define ``__getattr__``: that alone makes every attribute read of the hot
path several times slower in CPython (no specialised lookups); an attribute read
before ``reset`` is a plain ``AttributeError``.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger

from cardrl.envs.contracts import EngineState, Observer
from cardrl.envs.encoding import DEFAULT_OBSERVATION, mask_function
from cardrl.envs.rewards import MAX_EPISODE_HANDS, Payout

if TYPE_CHECKING:  # the declaration makes envs (Game.env): no import back at run time
    from cardrl.envs.games import Game

RESET_OPTIONS = ("deal",)
# PettingZoo's api_test and parallel_api_test call reset(options={"options": 1}) to check the
# signature: that one key is accepted and ignored; any other unknown key is refused
IGNORED_RESET_OPTIONS = ("options",)


class _AgentIterable:
    """``agent_iter()``: PettingZoo's AEC iterator with its order check, made cheap.

    Yields ``agent_selection`` until no agent is left or ``max_iter`` agents
    were yielded, and raises if the loop body did not ``step`` (which would
    otherwise spin forever), as the OrderEnforcingWrapper's iterator does.
    """

    __slots__ = ("env", "max_iter")

    def __init__(self, env: CardGameEnv, max_iter: int) -> None:
        self.env, self.max_iter = env, max_iter

    def __iter__(self) -> Iterator[str]:
        env = self.env
        for _ in range(self.max_iter):
            if not env.agents:
                return
            if not env._stepped:
                raise AssertionError("need to call step() or reset() in a loop over `agent_iter`")
            env._stepped = False
            yield env.agent_selection


class CardGameEnv(AECEnv):
    """The AEC env of the game ``game`` (a class attribute: one subclass per game).

    ``env.unwrapped`` is the env itself: it enforces the call order on its own
    (see the module docstring), so games return it unwrapped from ``env()``.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "is_parallelizable": False}
    game: Game

    def __init__(
        self,
        preset: str | None = None,
        rules: Any = None,
        observation: str = DEFAULT_OBSERVATION,
        render_mode: str | None = None,
        episode: str = "game",
        score_scale: float | None = None,
        relative_score: bool = True,
        win_reward: float = 1.0,
        illegal_action: str = "raise",
        illegal_penalty: float = -1.0,
        max_episode_hands: int | None = MAX_EPISODE_HANDS,
        hand_reward: str = "points",
        **rule_changes: Any,
    ) -> None:
        super().__init__()
        game = self.game
        self.rules = game.make_rules(preset, rules, **rule_changes)
        self.encoder = game.encoder(observation)
        self.observation_kind = observation
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of "
                             f"{self.metadata['render_modes']}")
        self.render_mode = render_mode
        self.payout = Payout.checked(game.score_scale(self.rules), episode, score_scale,
                                     relative_score, win_reward, illegal_action, illegal_penalty,
                                     max_episode_hands, hand_reward, game.hand_worth)
        # the options as attributes, as before the payout had a record of its own
        self.episode, self.score_scale = episode, self.payout.score_scale
        self.relative_score, self.win_reward = relative_score, self.payout.win_reward
        self.illegal_action, self.illegal_penalty = illegal_action, self.payout.illegal_penalty
        self.num_players = n = game.num_players(self.rules)
        self.num_actions = game.num_actions
        self.obs_size = self.encoder.size(n)
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._agent_names = tuple(self.possible_agents)  # seat -> agent, for the hot path
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        low, high = self.encoder.bounds(n)
        obs_space = spaces.Dict({
            "observation": spaces.Box(low=low, high=high, dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(self.num_actions,), dtype=np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces: dict[str, spaces.Space] = {
            a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        self.state_obj: EngineState | None = None
        self._rng_seed: int | None = None
        self._rng_obj: np.random.Generator | None = None
        self._observer: Observer = self.encoder.make_observer(n)
        # bound once: observe and step run every step
        self._observation = self._observer.observation
        self._after_apply = self._observer.after_apply
        self._mask = mask_function(self.num_actions)
        # the observer's own masks where it keeps them (legal_actions() otherwise), and its
        # own observation dict where it builds both at once (one call per step less)
        # (a state as the observers take it: ``Observer`` says Any, each reads its own game's)
        self._action_mask: Callable[[Any, int], np.ndarray] = getattr(
            self._observer, "action_mask", self._legal_mask)
        self._observe: Callable[[Any, int], dict[str, np.ndarray]] = getattr(
            self._observer, "observe", self._observe_both)
        self._stepped = False  # step() or reset() since agent_iter last yielded
        self._live = False  # reset and no agent done yet
        self._rewards_set = False  # some reward of the last step may be non-zero

    def _observe_both(self, state: EngineState, seat: int) -> dict[str, np.ndarray]:
        return {"observation": self._observation(state, seat),
                "action_mask": self._action_mask(state, seat)}

    def _legal_mask(self, state: EngineState, seat: int) -> np.ndarray:
        """``seat``'s action mask: its legal actions if it is to act, else none."""
        return self._mask(state.legal_actions() if state.current_player == seat else ())

    @property
    def _rng(self) -> np.random.Generator:
        """The env's own generator (random legal actions for penalised illegal ones),
        seeded by ``reset(seed)``; made when first needed, as making one is not free."""
        if self._rng_obj is None:
            self._rng_obj = np.random.default_rng(self._rng_seed)
        return self._rng_obj

    # ----------------------------------------------------------- PettingZoo
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game from ``seed``; ``options={"deal": ...}`` replays a given deal.

        Bad options raise before anything changes: ``options`` must be a dict whose
        keys are among ``RESET_OPTIONS`` (PettingZoo's own tests' ``{"options": 1}`` is
        let through), and the engine checks the deal.
        """
        deal = None
        if options is not None:  # (a game may be one hand of a few steps: None is quick)
            if not isinstance(options, dict):
                raise ValueError(f"reset options must be a dict like {{'deal': ...}}, got "
                                 f"{options!r}")
            unknown = sorted(map(repr, set(options) - {*RESET_OPTIONS, *IGNORED_RESET_OPTIONS}))
            if unknown:
                raise ValueError(f"unknown reset option(s) {', '.join(unknown)}; "
                                 f"the options are {list(RESET_OPTIONS)}")
            deal = options.get("deal")
        if seed is not None and (type(seed) is not int or seed < 0) and (
                isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0):
            raise ValueError(f"seed must be None or an int >= 0, got {seed!r}")
        state = self.game.state(self.rules, seed, deal=deal)
        self._rng_seed, self._rng_obj = seed, None  # made on first use (illegal_action="penalty")
        self.state_obj = state
        agents = self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(agents, 0.0)
        self.terminations = dict.fromkeys(agents, False)
        self.truncations = dict.fromkeys(agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in agents}
        self._hands_scored = len(state.results)
        seat = state.current_player
        assert seat is not None, "a new game has a seat to act"
        self.agent_selection = self.possible_agents[seat]
        self._observer.reset(state)
        self._stepped = True
        self._rewards_set = False
        self._live = True  # every agent still plays: the hot path of ``step`` applies

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        state = self.state_obj
        if state is None:
            EnvLogger.error_observe_before_reset()
        return self._observe(state, self._seat[agent])

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict]:
        """As ``AECEnv.last``: observation, cumulative reward, terminated, truncated, info.

        Builds the observation as ``observe`` does, without calling it (a call less a step).
        """
        agent = self.agent_selection  # an AttributeError before reset
        obs = self._observe(self.state_obj, self._seat[agent]) if observe else None
        return (obs, self._cumulative_rewards[agent], self.terminations[agent],
                self.truncations[agent], self.infos[agent])

    def agent_iter(self, max_iter: int = 2**63) -> _AgentIterable:
        if self.state_obj is None:
            EnvLogger.error_agent_iter_before_reset()
        return _AgentIterable(self, max_iter)

    def step(self, action: int | None) -> None:
        if self._live and type(action) is int:  # the hot path: a live agent's int action
            state = self.state_obj
            assert state is not None  # live: reset made it
            player = state.current_player
            try:
                state.apply(action)  # checks the action: an illegal one raises, changes nothing
            except ValueError as err:
                self._step(action, err)
                return
            assert player is not None  # it took an action: the game was not over
            self._stepped = True
            self._after_apply(state, player, action)
            self._cumulative_rewards[self.agent_selection] = 0.0
            if self._rewards_set:  # else every reward is still 0.0 from the step before
                self._clear_rewards()
            if len(state.results) != self._hands_scored:
                self._score_finished_hands(state)
                self._accumulate_rewards()
                self._rewards_set = True
            if state.current_player is not None:
                self.agent_selection = self._agent_names[state.current_player]
            if self.render_mode == "human":
                self.render()
        else:
            self._step(action)

    def _clear_rewards(self) -> None:
        rewards = self.rewards
        for a in self.agents:
            rewards[a] = 0.0
        self._rewards_set = False

    def _step(self, action: Any, refused: ValueError | None = None) -> None:
        """``step`` off the hot path (before reset, dead steps, actions that are not ints,
        illegal actions): the action is checked (``Payout.resolve``), then the legal one
        takes the hot path and a penalty is added after. ``refused``: the engine's error
        when the hot path's ``apply`` refused ``action``."""
        state = self.state_obj
        if state is None:
            EnvLogger.error_step_before_reset()  # raises
            return
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
        act, penalty = self.payout.resolve(state.legal_actions(), action, agent,
                                           self.game.action_name, self._draw)
        if refused is not None and not penalty:
            raise refused  # a legal action the engine refused: not about legality
        self.step(act)  # a legal int of a live agent: the hot path
        if penalty:
            self.rewards[agent] += penalty
            self._cumulative_rewards[agent] += penalty
            self._rewards_set = True

    def _draw(self, n: int) -> int:
        """A uniformly random index below ``n`` (the legal action replacing an illegal one)."""
        return int(self._rng.integers(n))

    def _score_finished_hands(self, state: EngineState) -> None:
        rewards, agents = self.rewards, self._agent_names
        terms, ended, truncated = self.payout.settle(state, self._hands_scored)
        for term in terms:
            for seat, reward in enumerate(term):
                rewards[agents[seat]] += reward
        self._hands_scored = len(state.results)
        if ended:
            done = self.truncations if truncated else self.terminations
            for agent in agents:
                done[agent] = True
            self._live = False

    def render(self) -> str | None:
        state = self.state_obj
        if state is None:
            EnvLogger.error_render_before_reset()  # raises
            return None
        seat = state.current_player
        text = self.game.render(state.view(0 if seat is None else seat))
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def env_class(game: Game) -> type[CardGameEnv]:
    """The AEC env class of a game without an ``environment.py`` of its own (a test's toy
    game; ``cardrl.envs.games.Game.env``)."""
    return type(f"{game.name}_raw_env", (CardGameEnv,),
                {"game": game, "metadata": {**CardGameEnv.metadata, "name": game.env_name}})
