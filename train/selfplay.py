"""Batched self-play for SB3: a VecEnv whose envs are the learner's seats of N games.

``SelfPlayVecEnv`` runs ``num_envs`` games of one kind in one process
(``cardrl.envs.batched.BatchedGames``). In each game one seat is the learner's (it rotates
from episode to episode); every other seat is played by an opponent the pool
draws for that episode: the current policy (``self``), a frozen ``snapshot`` (or
one of every snapshot so far, ``average``; or a snapshot by its argmax, ``greedy``), or a
rule bot. SB3 decides the learner's
moves of all games in one forward pass; the VecEnv then plays the other seats tick
by tick until every game waits for its learner again, deciding in one forward pass
all the games whose seat to act is played by the same network, and asking rule bots
one view at a time.

Rewards: the learner of a game gets exactly its own seat's rewards, also those
paid on other seats' moves (most hands end on someone else's card), from its
move up to its next decision or the episode's end; what a new episode pays
before its learner's first move (nothing in these games) waits for that move.
Over an episode the learner therefore gets what PettingZoo's ``last()`` reports
to its agent.
With a magnet (``set_magnet``), each learner move is also charged its policy's
log-ratio to the magnet's.

An MLP opponent (``cardrl.train.numpy_policy.NumpyPolicy``) is evaluated here on torch
(``TorchTwin``, on the same arrays), not numpy: in the learner's process numpy's
BLAS threads and torch's thread pool each spin while the other works, and a forward
pass through numpy between two of torch's cost 10-50 times its own time on a
2-core machine. One thread pool serves both.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from cardrl.envs.batched import BatchedGames, MixedBatchedGames
from cardrl.train.numpy_policy import MASKED, NumpyPolicy
from cardrl.train.opponents import POLICY_KINDS, OpponentPool, check_bot


class TorchTwin:
    """A ``NumpyPolicy``'s forward pass and draw on torch, over the policy's own arrays
    (``source``; no copy): the same logits, and a masked-softmax draw with one uniform
    number per row from the caller's generator (the inverse of the cumulative sum)."""

    ACTIVATIONS = {"tanh": torch.tanh, "relu": torch.relu}

    def __init__(self, source: NumpyPolicy) -> None:
        # a weak reference: the twins are cached by policy (``_runner``), and a twin that
        # held its policy would keep every policy ever pushed alive
        self._source = weakref.ref(source)
        self.layers = [(torch.from_numpy(w), torch.from_numpy(b)) for w, b in source.layers]
        self.act = self.ACTIVATIONS[source.activation]
        self.skip = None if source.skip is None else torch.from_numpy(source.skip)

    @property
    def source(self) -> NumpyPolicy | None:
        return self._source()

    def _logits(self, obs: np.ndarray, masks: np.ndarray) -> torch.Tensor:
        x = o = torch.from_numpy(np.ascontiguousarray(obs, dtype=np.float32))
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            x = torch.addmm(b, x, w)
            if i < last:
                x = self.act(x)
        if self.skip is not None:
            x = x + o @ self.skip
        return x.masked_fill_(~torch.from_numpy(np.asarray(masks, dtype=bool)), MASKED)

    def logits(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``NumpyPolicy.logits`` of a batch."""
        with torch.no_grad():
            return self._logits(obs, masks).numpy()

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, rng: np.random.Generator,
                  deterministic: bool = False) -> np.ndarray:
        """``NumpyPolicy.act_batch``: the masked argmax, or a draw from the masked softmax."""
        with torch.no_grad():
            z = self._logits(obs, masks)
            if deterministic:
                return z.argmax(dim=1).numpy()
            cdf = torch.softmax(z, dim=1).cumsum_(dim=1).numpy()
        # the first action whose cumulative share reaches u in (0, total]: never a masked one
        # (its share is 0, so the sum does not grow there)
        u = (1.0 - rng.random((len(cdf), 1), dtype=np.float32)) * cdf[:, -1:]
        return (cdf < u).sum(axis=1)


def _runner(policy: Any) -> Any:
    """What plays ``policy``'s seats: its torch twin for an MLP, the policy otherwise."""
    if not isinstance(policy, NumpyPolicy):
        return policy
    twin = _TWINS.get(policy)
    if twin is None:
        twin = _TWINS[policy] = TorchTwin(policy)
    return twin


_TWINS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

LEARNER = -1  # a seat's controller: the learner; 0: the current policy; k >= 1: snapshot k - 1
AVERAGE = -2  # ... AVERAGE - j: member j of the ``average`` entry's reservoir
GREEDY = "greedy"  # ... (GREEDY, k): policy k (0 current, k >= 1 snapshot) by its argmax


class SelfPlayVecEnv(VecEnv):
    """The learner seats of ``games`` against opponents from ``pool`` (module docstring)."""

    def __init__(self, games: BatchedGames | MixedBatchedGames, pool: OpponentPool,
                 seed: int = 0, seat: int | None = None) -> None:
        self.games = games
        n, p = games.num_games, games.num_players
        # game i seats games.counts[i] players (several table sizes: MixedBatchedGames)
        fewest = int(games.counts.min())
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int | np.integer)
                                 or not 0 <= seat < fewest):
            raise ValueError(f"seat must be None or in 0..{fewest - 1}, got {seat!r}")
        for entry in pool.mix:
            if entry.what not in POLICY_KINDS:
                check_bot(entry.what, games.game.name)
        self.render_mode = None  # nothing to draw (SB3 asks every VecEnv, in __init__ too)
        # one space for every table size: the widest bounds
        bounds = [games.encoder.bounds(int(c)) for c in np.unique(games.counts)]
        low = np.min([b[0] for b in bounds], axis=0)
        high = np.max([b[1] for b in bounds], axis=0)
        super().__init__(n, spaces.Box(low=low, high=high, dtype=np.float32),
                         spaces.Discrete(games.num_actions))
        self.pool, self.seed_base = pool, seed
        self.fixed_seat = None if seat is None else int(seat)
        self.rng = np.random.default_rng(seed)
        self.learner = np.zeros(n, dtype=np.int64)  # the learner's seat in each game
        self.controller: list[list[Any]] = [[LEARNER] * p for _ in range(n)]
        self.episodes = np.zeros(n, dtype=np.int64)
        self.skipped = 0  # episodes that ended before their learner had a move
        self._pending = np.zeros(n, dtype=np.float32)  # rewards owed to the next step
        self._policies: list[NumpyPolicy | None] = [None]  # 0: current; then snapshots
        self._average: list[NumpyPolicy] = []  # the ``average`` entry's snapshots
        self.magnet: NumpyPolicy | None = None  # see set_magnet
        self.magnet_coef = 0.0
        self._bots: dict[tuple[int, int, str], Any] = {}  # (game, seat, spec) -> its bot
        self._actions: np.ndarray | None = None

    # ------------------------------------------------------------ the pool
    def set_policy(self, policy: NumpyPolicy | None) -> None:
        """The current policy, which plays every ``self`` seat (refreshed after updates)."""
        self._policies[0] = policy

    def add_snapshot(self, policy: NumpyPolicy) -> None:
        self._policies.append(policy)
        del self._policies[1:-self.pool.max_snapshots]

    def set_average(self, policies: list[NumpyPolicy]) -> None:
        """The snapshots the ``average`` entry draws from (``cardrl.train.opponents.Reservoir``)."""
        self._average = list(policies)

    def set_magnet(self, policy: NumpyPolicy | None, coef: float) -> None:
        """Regularise toward ``policy`` (magnetic mirror descent, R-NaD): each learner move
        ``a`` in state ``s`` is charged ``coef * log(pi(a|s) / magnet(a|s))``, the current
        policy ``pi`` being the one that drew it, so the learner maximises its return less
        ``coef`` times the KL divergence from the magnet along its path. The trainer
        replaces the magnet by the current policy every so often; the last iterate then
        settles toward an equilibrium of a two-player zero-sum game instead of cycling."""
        self.magnet, self.magnet_coef = policy, float(coef)

    def _magnet_penalty(self, obs: np.ndarray, masks: np.ndarray, actions: np.ndarray
                        ) -> np.ndarray:
        current = self._policies[0]
        if self.magnet is None or not self.magnet_coef or current is None:
            return np.zeros(len(actions), dtype=np.float32)
        rows = np.arange(len(actions))
        ratio = [_log_softmax(_runner(p).logits(obs, masks))[rows, actions]
                 for p in (current, self.magnet)]
        return (self.magnet_coef * (ratio[0] - ratio[1])).astype(np.float32)

    def _new_episode(self, i: int) -> None:
        """Seat game ``i``'s learner (rotating within the game's own count) and draw its
        opponents for this episode."""
        p = int(self.games.counts[i])
        if self.fixed_seat is not None:
            seat = self.fixed_seat
        else:
            seat = int((i + self.episodes[i]) % p)
        self.episodes[i] += 1
        self.learner[i] = seat
        controllers = self.controller[i]
        snapshots = len(self._policies) - 1
        for s in range(p):
            if s == seat:
                controllers[s] = LEARNER
                continue
            what = self.pool.draw_entry(self.rng)
            if what == "self" or (what == "snapshot" and not snapshots):
                controllers[s] = 0
            elif what == "snapshot":
                controllers[s] = 1 + int(self.rng.integers(snapshots))
            elif what == "greedy":
                controllers[s] = (GREEDY, 1 + int(self.rng.integers(snapshots))
                                  if snapshots else 0)
            elif what == "average":
                members = len(self._average)
                controllers[s] = AVERAGE - int(self.rng.integers(members)) if members else 0
            else:
                key = (i, s, what)
                bot = self._bots.get(key)
                if bot is None:
                    bot = self._bots[key] = self.pool.make_bot(what)
                bot.reset(int(self.rng.integers(2**31)))
                controllers[s] = bot

    # --------------------------------------------------------- the games
    def _advance(self, rewards: np.ndarray, dones: np.ndarray, infos: list[dict]) -> None:
        """Play the opponents' seats until every game waits for its learner; the learners'
        rewards go to ``rewards`` (or, past an episode that ended on this step, to the
        next step's)."""
        games, n = self.games, self.games.num_games
        seats, learner, controller = games.seats, self.learner, self.controller
        while True:
            groups: dict[Any, list[int]] = {}
            for i in range(n):
                seat = seats[i]
                if seat != learner[i]:
                    c = controller[i][seat]
                    groups.setdefault(c if isinstance(c, int | tuple) else "bots", []).append(i)
            if not groups:
                return
            for who, idx in groups.items():
                if who == "bots":
                    actions = [self._bot_action(i) for i in idx]
                else:
                    actions = self._policy_actions(who, idx)
                self._collect(idx, *games.step_games(idx, actions), rewards, dones, infos)

    def _bot_action(self, i: int) -> int:
        state = self.games.states[i]
        seat = state.current_player
        return self.controller[i][seat].act(state.view(seat), state.legal_actions())

    def _policy_actions(self, k: int | tuple[str, int], idx: list[int]) -> np.ndarray:
        greedy = isinstance(k, tuple)
        if greedy:
            k = k[1]
        policy = self._policies[k] if k >= 0 else self._average[AVERAGE - k]
        masks = self.games.masks[idx]
        if policy is None:  # no policy pushed yet: uniformly random legal moves
            noise = self.rng.random(masks.shape)
            return np.where(masks, noise, -1.0).argmax(axis=1)
        return _runner(policy).act_batch(self.games.obs[idx], masks, self.rng,
                                         deterministic=greedy)

    def _collect(self, idx: Sequence[int], step_rewards: np.ndarray, step_dones: np.ndarray,
                 rewards: np.ndarray, dones: np.ndarray, infos: list[dict]) -> None:
        for k, i in enumerate(idx):
            r = step_rewards[k, self.learner[i]]
            if dones[i]:
                self._pending[i] += r  # the new episode's, before its learner moved
            else:
                rewards[i] += r
            if step_dones[k]:
                if dones[i]:
                    self.skipped += 1
                    self._pending[i] = 0.0
                else:
                    dones[i] = True
                    infos[i]["terminal_observation"] = self._last_obs[i].copy()
                    # a cut at the hand cap: SB3 bootstraps from the last value, as at a
                    # gymnasium TimeLimit
                    infos[i]["TimeLimit.truncated"] = bool(self.games.truncated[i])
                self._new_episode(i)

    # ------------------------------------------------------------ VecEnv
    def reset(self) -> np.ndarray:
        self.games.reset(seed=self.seed_base)
        self.episodes[:] = 0
        for i in range(self.num_envs):
            self._new_episode(i)
        self._pending[:] = 0.0
        self._last_obs = self.games.obs
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        dones = np.zeros(self.num_envs, dtype=bool)
        self._advance(rewards, dones, [{} for _ in range(self.num_envs)])
        # an episode that ended before its learner moved pays its learner nothing; what a
        # new one paid meanwhile (in _pending) waits for that learner's first move
        self.skipped += int(dones.sum())
        rewards[dones] = 0.0
        self._pending += rewards
        return self.games.obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        n = self.num_envs
        rewards, self._pending = self._pending, np.zeros(n, dtype=np.float32)
        dones = np.zeros(n, dtype=bool)
        infos: list[dict] = [{} for _ in range(n)]
        self._last_obs = self.games.obs.copy()
        if self.magnet is not None:
            rewards -= self._magnet_penalty(self._last_obs, self.games.masks,
                                            np.asarray(self._actions, dtype=np.int64))
        everyone = range(n)
        self._collect(everyone, *self.games.step_games(everyone, self._actions), rewards, dones,
                      infos)
        self._advance(rewards, dones, infos)
        return self.games.obs.copy(), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """The learners' legal actions (MaskablePPO's ``get_action_masks``)."""
        return self.games.masks.copy()

    def env_method(self, method_name: str, *args, indices=None, **kwargs) -> list:
        if method_name == "action_masks":
            masks = self.action_masks()
            return list(masks if indices is None else masks[list(self._indices(indices))])
        raise AttributeError(f"SelfPlayVecEnv has no per-env method {method_name!r}")

    def _indices(self, indices) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        return [indices] if isinstance(indices, int) else indices

    def get_attr(self, attr_name: str, indices=None) -> list:
        return [getattr(self, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def seed(self, seed: int | None = None) -> list:
        """A no-op: the deals' seed is the constructor's (``cardrl.train.ppo`` makes it from the
        run's seed and its steps so far, so a resumed run deals new games), while SB3
        calls this with the run's seed alone whenever it builds or loads a model."""
        return [self.seed_base] * self.num_envs

    def close(self) -> None:
        pass


def _log_softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))
