"""One seat against bots, as a Gymnasium env: ``gymnasium.make("cardrl/Spades-v6")``.

Single-agent libraries (SB3, CleanRL, Tianshou) want one learner and someone
else at the other seats. ``SingleSeatEnv`` is a game's AEC env with one seat
left to the learner and every other seat played by a bot of the registry (a
name with options, or an exported ``.onnx``; by default the game's strongest
rule bot at every other seat). ``import cardrl`` registers one id per game with
Gymnasium, ``cardrl/<CamelName>-v<N>`` at the game's env version
(``cardrl/__init__.py``); the entry point imports this module when an env is made.

* Observations: the seat's vector of the env's observation kind (a ``Box``);
  actions: ``Discrete(num_actions)``. The legal actions are ``action_masks()``
  (what sb3-contrib's ``MaskablePPO`` asks for) and ``info["action_mask"]`` (what a
  vector env stacks for a CleanRL-style loop).
* Rewards: the learner gets exactly its own seat's rewards, also those paid on the
  other seats' moves (most hands end on someone else's card), summed from its move
  up to its next decision or the episode's end; what a new episode pays before the
  learner's first move is added to that move. Over an episode that is what the AEC
  env's ``last()`` reports to its agent (the accounting of ``cardrl.train.selfplay``).
* ``seat``: the learner's seat, fixed, or ``None`` to draw it per episode.
* ``reset(seed)`` deals from ``seed``; later resets deal from seeds drawn from
  ``np_random``, which also draws the seat and reseeds the bots, so a seeded run
  repeats. An episode that ends before the learner's first move is redealt.
  ``moves`` lists the episode's actions, every seat's in order: the deal's seed and
  these replay it on the AEC env.
* An illegal action costs ``illegal_penalty`` (-1) and a random legal move is
  played for it (the AEC env's ``illegal_action="penalty"``, the default here:
  Gymnasium's and SB3's checkers, and unmasked learners, send any action of the
  space); ``illegal_action="raise"`` refuses it with the AEC env's error.
* Any other keyword is an AEC env option (``observation``, ``episode``,
  ``relative_score``, ...) or a rules field (``preset="cutthroat"``, ``num_players=3``).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from cardrl.agents.registry import check_bot
from cardrl.envs.contracts import BotLike
from cardrl.envs.games import Game, get_game

REDEALS = 1000  # deals tried for an episode in which the learner gets a move
# the env's; text has no frame rate, but Gymnasium's checker asks for one
METADATA: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 1}


class SingleSeatEnv(gymnasium.Env):
    """The seat ``seat`` of one ``game`` against ``opponents`` (module docstring)."""

    metadata = METADATA
    action_space: spaces.Discrete

    def __init__(self, game: str, opponents: str | Sequence[str] | None = None,
                 seat: int | None = None, render_mode: str | None = None,
                 illegal_action: str = "penalty", **options: Any) -> None:
        declaration = get_game(game)  # a clear error for an unknown game
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of "
                             f"{self.metadata['render_modes']}")
        self.aec = declaration.env(render_mode=render_mode, illegal_action=illegal_action,
                                   **options)
        self.game = declaration.name
        self.num_players = n = self.aec.num_players
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int | np.integer)
                                 or not 0 <= seat < n):
            raise ValueError(f"seat must be None (drawn per episode) or a seat in 0..{n - 1}, "
                             f"got {seat!r}")
        self.fixed_seat = None if seat is None else int(seat)
        self.opponents = self._opponent_specs(opponents, declaration, n)
        # each spec checked now (a clear error naming it); its bot is the first seat's
        self._spare = {spec: check_bot(spec, self.game) for spec in set(self.opponents)}
        self._bots: dict[tuple[int, str], BotLike] = {}  # (seat, spec) -> its bot, made once
        self.render_mode = render_mode
        agent = self.aec.possible_agents[0]
        self.observation_space = self.aec.observation_space(agent)["observation"]
        self.action_space = spaces.Discrete(self.aec.num_actions)
        self.seat = self.fixed_seat if self.fixed_seat is not None else 0
        self.deal_seed: int | None = None  # the seed of this episode's deal
        self.skipped = 0  # deals redealt because they ended before the learner's first move
        self._mask = np.zeros(self.aec.num_actions, dtype=bool)
        self._pending = 0.0
        self.moves: list[int] = []
        self._agent: str | None = None  # the learner's agent; None before reset
        self._over = False

    @staticmethod
    def _opponent_specs(opponents: Any, declaration: Game, n: int) -> tuple[str, ...]:
        """One bot spec per other seat: the other seats in seat order, the learner's skipped."""
        if opponents is None:
            if not declaration.strongest:
                raise ValueError(f"game {declaration.name!r} names no strongest rule bot; "
                                 f"give opponents=")
            opponents = declaration.strongest[0]
        if isinstance(opponents, str):
            return (opponents,) * (n - 1)
        if not isinstance(opponents, Sequence) or not all(isinstance(o, str) for o in opponents):
            raise ValueError(f"opponents must be a bot name or .onnx path, or one per other "
                             f"seat, got {opponents!r}")
        if len(opponents) != n - 1:
            raise ValueError(f"opponents must name {n - 1} bots (one per other seat of a "
                             f"{n}-player game), got {len(opponents)}: {list(opponents)!r}")
        return tuple(opponents)

    # ------------------------------------------------------------ Gymnasium
    def reset(self, *, seed: int | None = None, options: dict | None = None
              ) -> tuple[np.ndarray, dict]:
        """A new episode: deals from ``seed`` (else from ``np_random``) and plays the
        bots up to the learner's first move; ``options={"deal": ...}`` as the AEC env."""
        super().reset(seed=seed)
        rng = self.np_random
        deal_seed = seed
        for _ in range(REDEALS):
            if deal_seed is None:
                deal_seed = int(rng.integers(2**31))
            self.seat = self.fixed_seat if self.fixed_seat is not None else int(
                rng.integers(self.num_players))
            self.aec.reset(seed=deal_seed, options=options)
            self.deal_seed, self.moves = deal_seed, []
            self._others = self._seat_bots(self.seat)
            for bot in self._others:
                if bot is not None:
                    bot.reset(int(rng.integers(2**31)))
            self._agent = self.aec.possible_agents[self.seat]
            self._over = False
            if not self._play_others():
                break
            self.skipped += 1
            if options is not None and "deal" in options:
                raise ValueError(f"the deal {options['deal']!r} ends before seat {self.seat} "
                                 f"moves")
            deal_seed = None
        else:
            raise RuntimeError(f"{REDEALS} deals in a row ended before the learner's first move")
        self._pending = self._take_reward()  # paid before the first move: added to it
        return self._observe(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self._agent is None or self._over:
            raise RuntimeError("the episode is over: call reset() before step()"
                               if self._over else "call reset() before step()")
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()
        try:
            if isinstance(action, bool):
                raise TypeError
            action = operator.index(action)
        except TypeError:
            raise ValueError(f"an action is an int in 0..{self.aec.num_actions - 1}, "
                             f"got {action!r}") from None
        self.aec.step(action)  # an illegal action: the AEC env's error (or its penalty)
        self.moves.append(action)
        over = self._over = self._play_others()
        reward = self._pending + self._take_reward()
        self._pending = 0.0
        # an episode cut at the env's hand cap (``max_episode_hands``) is truncated, not won
        cut = over and self.aec.truncations.get(self._agent, False)
        return self._observe(), reward, over and not cut, cut, self._info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now, as booleans (sb3-contrib's ``MaskablePPO``)."""
        return self._mask.copy()

    # gymnasium types render's return with a TypeVar of the method alone (RenderFrame), which
    # no concrete return type overrides
    def render(self) -> str | None:  # type: ignore[override]
        return self.aec.render() if self.render_mode == "ansi" else None

    def close(self) -> None:
        self.aec.close()

    # ------------------------------------------------------------ the other seats
    def _play_others(self) -> bool:
        """The bots' moves until the learner is to act; True if the episode ended."""
        aec, learner = self.aec, self._agent
        state = aec.state_obj
        while aec.agents:
            agent = aec.agent_selection
            if aec.terminations[agent] or aec.truncations[agent]:
                return True
            seat = state.current_player
            if agent == learner:
                return False
            bot = self._others[seat]
            assert bot is not None  # None only at the learner's seat
            action = int(bot.act(state.view(seat), state.legal_actions()))
            aec.step(action)
            self.moves.append(action)
        return True

    def _seat_bots(self, learner: int) -> list[BotLike | None]:
        """The bot at each seat when the learner sits at ``learner`` (None there): the
        other seats take ``opponents`` in seat order; each (seat, spec) keeps its bot."""
        out: list[BotLike | None] = []
        for seat in range(self.num_players):
            if seat == learner:
                out.append(None)
                continue
            spec = self.opponents[seat if seat < learner else seat - 1]
            bot = self._bots.get((seat, spec))
            if bot is None:
                bot = self._spare.pop(spec, None) or check_bot(spec, self.game)
                self._bots[seat, spec] = bot
            out.append(bot)
        return out

    def _take_reward(self) -> float:
        """The learner's rewards since it last moved (the AEC env's cumulative reward)."""
        return float(self.aec._cumulative_rewards[self._agent])

    def _observe(self) -> np.ndarray:
        obs = self.aec.observe(self._agent)
        mask = obs["action_mask"]
        live = not self._over and self.aec.agent_selection == self._agent
        self._mask = mask.astype(bool) if live else np.zeros_like(self._mask)
        return np.array(obs["observation"], dtype=np.float32, copy=True)

    def _info(self) -> dict:
        return {"action_mask": self._mask.copy(), "seat": self.seat}
