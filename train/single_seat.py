"""One seat of a multi-player AEC card game as a single-agent Gymnasium env (what SB3 trains).

The learner takes one seat per episode (rotating through the seats); every
other seat is played by an opponent from an ``OpponentPool``. ``step`` applies
the learner's action, then lets the opponents play until it is the learner's
turn again or the episode ends.

Rewards: the env's ``rewards[learner]`` is summed over *every* AEC step from
the learner's action up to its next decision (or the end). In a card game
most hand scores and the final win bonus arrive on another player's move
(the last card of the hand is usually not the learner's); dropping those, or
handing the learner another seat's reward, is the classic turn-based trap.
Over an episode the learner therefore gets exactly its seat's total reward,
which equals what PettingZoo's ``last()`` reports across the episode.

Duplicate baseline (``baseline=BOT``): at each deal the wrapper first replays
the same deal in a second env with ``BOT`` in the learner's seat and the same
opponents (bot opponents as fresh copies reset with the same seeds), and the
learner's final reward is less what ``BOT`` scored there. Most of a card
game's return is the luck of the deal, which no critic can see through the
hidden hands; the replay takes it out exactly (the others are deterministic
bots) and leaves what the learner's own choices changed. The replay does not
depend on the learner's actions, so the policy gradient stays unbiased.

Observations are the env's ``"observation"`` vector (a Box);
``action_masks()`` gives the legal-action mask for sb3-contrib's MaskablePPO.
The env's engine state must offer ``view(seat)`` and ``legal_actions()`` (for
rule-bot opponents), as every ``envs.aec.CardGameEnv`` does.
"""

from __future__ import annotations

import functools
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

import agents
from envs.games import get_game
from train.imitate import check_teacher
from train.numpy_policy import NumpyPolicy
from train.opponents import BotSeat, OpponentPool, parse_mix


class SingleSeatEnv(gym.Env):
    """The learner's seat of ``game`` against opponents drawn from ``opponents`` (a mix).

    ``seat=None`` rotates the learner's seat every episode (starting at a
    random seat); an int pins it. ``env_options`` go to the game's ``env()``
    (``episode``, ``score_scale``, ``win_reward``); ``rule_changes`` change
    the preset's rules (e.g. ``max_hands``, a cap that keeps self-play games
    of untrained policies finite); ``baseline`` is a bot spec for the
    duplicate baseline (module docstring), ``None`` for none.
    """

    metadata = {"render_modes": []}

    def __init__(self, game: str, preset: str | None = None, opponents: str = "rules",
                 rule_changes: dict | None = None, env_options: dict | None = None,
                 seat: int | None = None, max_snapshots: int = 10,
                 baseline: str | None = None) -> None:
        super().__init__()
        self.game = get_game(game)
        self.preset = preset if preset is not None else self.game.presets[0]
        make_env = functools.partial(self.game.env, preset=self.preset,
                                     **dict(rule_changes or {}), **dict(env_options or {}))
        self.aec = make_env()
        self.baseline = None
        if baseline:
            check_teacher(baseline, game, role="baseline")
            self.baseline = BotSeat(agents.make(baseline))
            self._replay_env = make_env()
            self._replay_bots: dict[tuple[int, str], BotSeat] = {}
        self.baseline_reward = 0.0  # what the baseline bot scored on this deal
        self.num_seats = len(self.aec.possible_agents)
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < self.num_seats):
            raise ValueError(f"seat must be None or in 0..{self.num_seats - 1}, got {seat!r}")
        self.fixed_seat = seat
        agent0 = self.aec.possible_agents[0]
        self.observation_space = self.aec.observation_space(agent0)["observation"]
        self.action_space = spaces.Discrete(self.aec.action_space(agent0).n)
        self.pool = OpponentPool(parse_mix(opponents, game), np.random.default_rng(),
                                 max_snapshots)
        self.seat = 0
        self.agent = agent0
        self.opponents: dict[int, Any] = {}
        self.actions: list[int] = []  # every action of the episode, in order (for replays)
        self.deal_seed = 0
        self._episodes = 0
        self.skipped = 0  # episodes that ended before the learner had a move
        self._mask = np.zeros(self.action_space.n, dtype=bool)
        self._reward = 0.0  # rewards that reached the learner before its first move

    # -------------------------------------------------------- pool control
    def set_policy(self, policy: NumpyPolicy | dict | None) -> None:
        """The current policy, for ``self`` seats (a dict is ``NumpyPolicy.to_dict``)."""
        self.pool.set_policy(NumpyPolicy.from_dict(policy) if isinstance(policy, dict)
                             else policy)

    def add_snapshot(self, policy: NumpyPolicy | dict) -> None:
        self.pool.add_snapshot(NumpyPolicy.from_dict(policy) if isinstance(policy, dict)
                               else policy)

    # ------------------------------------------------------------- gym API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self.pool.rng = np.random.default_rng(self.np_random.integers(2**63))
        rng = self.np_random
        if self.fixed_seat is not None:
            self.seat = self.fixed_seat
        elif self._episodes == 0:
            self._first_seat = int(rng.integers(self.num_seats))
            self.seat = self._first_seat
        else:
            self.seat = (self._first_seat + self._episodes) % self.num_seats
        self._episodes += 1
        self.agent = self.aec.possible_agents[self.seat]
        while True:
            self.deal_seed = int(rng.integers(2**31))
            self.aec.reset(seed=self.deal_seed, options=options)
            self.opponents = self.pool.draw([s for s in range(self.num_seats) if s != self.seat])
            self.actions = []
            if self.baseline is not None:
                self.baseline_reward = self._replay_with_baseline(options)
            self._reward = self._play_others()
            # a hand can end before the learner's first move (a Gin knock on the opening
            # turn): it holds no decision to learn from, so the learner gets the next deal
            if not (self.aec.terminations[self.agent] or self.aec.truncations[self.agent]):
                break
            self.skipped += 1
        return self._observe(), {"seat": self.seat}

    def step(self, action):
        aec, agent = self.aec, self.agent
        action = int(action)
        aec.step(action)  # an illegal action raises with the legal set (the env's own check)
        self.actions.append(action)
        reward = self._reward + aec.rewards[agent]
        self._reward = 0.0
        reward += self._play_others()
        terminated = bool(aec.terminations[agent])
        truncated = bool(aec.truncations[agent])
        info: dict[str, Any] = {}
        if terminated or truncated:
            reward -= self.baseline_reward
            state = aec.state_obj
            info = {"seat": self.seat, "scores": list(state.scores),
                    "winners": list(state.winners),
                    "win": (1.0 / len(state.winners) if self.seat in state.winners else 0.0),
                    "opponents": [self.opponents[s].name for s in sorted(self.opponents)],
                    "baseline_reward": self.baseline_reward}
            self._mask[:] = False
            obs = np.asarray(aec.observe(agent)["observation"], dtype=np.float32)
        else:
            obs = self._observe()
        return obs, float(reward), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self._mask

    # ------------------------------------------------------------ internals
    def _play_others(self) -> float:
        """Opponents move until the learner must act or the episode ends; the learner's
        rewards over those moves, summed."""
        aec, agent, opponents = self.aec, self.agent, self.opponents
        reward = 0.0
        while not (aec.terminations[agent] or aec.truncations[agent]):
            current = aec.agent_selection
            if current == agent:
                break
            seat = aec.possible_agents.index(current)
            action = int(opponents[seat].act(aec, seat))
            aec.step(action)
            self.actions.append(action)
            reward += aec.rewards[agent]
        return reward

    def _replay_with_baseline(self, options: dict | None) -> float:
        """The learner seat's total reward when the baseline bot plays this deal in its place
        (the same opponents: bots as twins reset with the seeds the pool gave them)."""
        env = self._replay_env
        env.reset(seed=self.deal_seed, options=options)
        seats: dict[int, Any] = {self.seat: self.baseline}
        self.baseline.reset(self.deal_seed)
        for seat, opponent in self.opponents.items():
            if isinstance(opponent, BotSeat):
                key = (seat, opponent.name)
                if key not in self._replay_bots:
                    self._replay_bots[key] = BotSeat(agents.make(opponent.name))
                twin = self._replay_bots[key]
                twin.reset(self.pool.seeds[seat])
                seats[seat] = twin
            else:
                seats[seat] = opponent  # a policy keeps no state between moves
        agent = self.agent
        total = 0.0
        while not (env.terminations[agent] or env.truncations[agent]):
            seat = env.possible_agents.index(env.agent_selection)
            env.step(int(seats[seat].act(env, seat)))
            total += env.rewards[agent]
        return total

    def _observe(self) -> np.ndarray:
        obs = self.aec.observe(self.agent)
        self._mask = obs["action_mask"].astype(bool)
        return np.asarray(obs["observation"], dtype=np.float32)
