"""Deep Monte Carlo (DouZero's method) beside PPO, read top to bottom: config, network,
acting, replay, self-play, the run, export.

    cfg = DMCConfig(game="blind_auction", steps=500_000)   # 1. every knob
    result = DMCTrainer(cfg).run()                          # 2-6, then 7: runs/<name>/

DouZero learned DouDizhu from scratch where policy-gradient and DQN baselines did
not: a network scores every (state, action) pair, trained by plain regression on
the Monte Carlo return of self-play, with no critic, no bootstrapping and no
search. Here:

1. **Config**: a ``DMCConfig``, ``cardrl.train.config.BatchedRunConfig`` plus DMC's knobs,
   saved as ``runs/<name>/config.json`` (``algo: "dmc"``). Steps are decisions collected,
   every seat's.
2. **Network**: Q(s, .) in one forward pass, one score per action: an MLP
   (``policy="mlp"``), or the card network (``"card"``, ``cardrl.train.cardnet``),
   which scores an action about a card from that card's embedding. With ``skip_gain``
   the MLP's Q of an action also gets the observation's per-action blocks about it
   (``Encoder.action_features``), one learned weight per block: a straight path the
   hidden layers would otherwise have to find for each action apart.
3. **Acting**: epsilon-greedy over the legal actions (the masks): a uniformly random
   legal action with chance ``exp_epsilon``, else the best legal Q.
4. **Replay**: a FIFO of the most recent decisions (observation, action); a
   decision's target is filled in when its episode ends.
5. **Self-play**: ``cardrl.envs.batched.BatchedGames`` with EVERY seat played by the current
   network, one forward pass per tick for all games. Each seat's decisions in an
   episode are kept with the seat; when the episode ends, a decision's target is
   what that seat received from that decision to the end (``gamma`` per own
   decision; 1 by default: the plain return), the rewards paid on other seats'
   moves included, as the AEC env pays them. With ``td_lambda`` below 1 the target is
   the lambda-return over the seat's own decisions, each later one's greedy Q (from
   the acting pass) standing in for part of what followed: less noise from the others'
   hidden cards, some bias from the network's own estimates.
6. **The run**: every ``train_freq`` decisions, ``gradient_steps`` Adam steps on
   MSE(Q(s, a_taken), target) over ``batch_size`` decisions drawn from the replay;
   evaluations against the rule bots (``cardrl.train.evaluate``, ``evals.jsonl`` as
   ``cardrl.train.ppo`` writes it), checkpoints (network and optimizer; Ctrl-C or SIGTERM
   checkpoint first), ``--resume``, tensorboard (loss, mean Q, returns, epsilon,
   win rates).
7. **Export**: ``runs/<name>/policy.onnx``: (observation, action_mask) -> masked Q
   (illegal actions at ``MASKED``), so ``cardrl.agents.load`` plays argmax Q, through
   every trainer's export (``cardrl.train.export.export_bot``: the game's plug-in switch,
   the card, with ``"algo": "dmc"`` under ``training``).

The replay is not checkpointed (it is refilled in a few ticks); a resumed run
deals new games. Neither stable-baselines3 nor any other trainer is imported. The
command line is ``cardrl.train.runs``' (a flag per ``DMCConfig`` knob):

    python -m cardrl.train.dmc --game sevens --preset random --steps 2000000 --policy card --name sv
    python -m cardrl.train.dmc --resume sv --steps 4000000
"""

from __future__ import annotations

import dataclasses
import math
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Self

import numpy as np
import torch
from torch import nn
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

from cardrl.envs.batched import BatchedGames, MixedBatchedGames
from cardrl.train import runs
from cardrl.train.cardnet import CardNet, card_table
from cardrl.train.config import BatchedRunConfig, TrainConfig, knob, redefault
from cardrl.train.evaluate import eval_scalars, evaluate_run
from cardrl.train.export import export_bot, run_card
from cardrl.train.limit import dmc_limit
from cardrl.train.nets import (
    TORCH_ACTIVATIONS,
    ActionFeatures,
    game_action_features,
    set_threads,
)
from cardrl.train.numpy_policy import MASKED
from cardrl.train.runs import (
    RunState,
    TrainResult,
    eval_line,
    last_evaluation,
    read_evals,
    sigterm_as_interrupt,
    start_run,
)

ALGO = "dmc"
CHECKPOINT = "checkpoint.pt"
TB_DIR = "tb_0"


# ---------------------------------------------------------------------- 1: config
@dataclass
class DMCConfig(BatchedRunConfig):
    """The shared knobs plus DMC's (names from DouZero and SB3's DQN); every seat is the
    current network, so there are no opponents, snapshots or critic."""

    TRAINER: ClassVar[str] = ALGO
    COMMAND: ClassVar[str] = "cardrl.train.dmc"
    STEPS: ClassVar[str] = "decisions to collect, every seat's"

    algo: str = knob(ALGO, cli=False)  # config.json says which trainer resumes it
    exp_epsilon: float = knob(0.05, "chance of a uniformly random legal action (DouZero: "
                              "0.01)", tunable=True)
    buffer_size: int = knob(100_000, "the replay holds the most recent decisions (FIFO)",
                            tunable=True)
    train_freq: int = knob(1024, "decisions collected between rounds of updates", tunable=True)
    gradient_steps: int = knob(2, "Adam steps per update round, batch_size decisions each",
                               tunable=True)
    max_grad_norm: float = knob(40.0, "gradient clipping, as DouZero", tunable=True)
    skip_gain: float = knob(0.0, "> 0: Q += gain x weight_k x block k, the observation's "
                            "per-action blocks on their actions (MLP)", tunable=True)
    td_lambda: float = knob(1.0, "the targets' lambda: 1 is the Monte Carlo return "
                            "(DouZero); below 1 each target leans on the next own decision's "
                            "greedy Q by 1 - lambda", tunable=True)
    # DMC's defaults of shared knobs: the plain Monte Carlo return, DouZero's ReLU
    gamma: float = redefault(BatchedRunConfig, "gamma", 1.0)
    activation: str = redefault(BatchedRunConfig, "activation", "relu")
    n_games: int = redefault(BatchedRunConfig, "n_games", 64)

    @classmethod
    def from_dict(cls, d: dict) -> Self:
        """A DMC run's config; a config.json from before the trainers' configs split held
        PPO's knobs too, at their defaults, which are dropped."""
        own = {f.name for f in dataclasses.fields(cls)}
        ppo = {f.name for f in dataclasses.fields(TrainConfig)} - own
        if d.get("algo", ALGO) != ALGO or ("algo" not in d and ppo & set(d)):
            raise ValueError("not a DMC run (its config.json has no algo 'dmc'); resume it with "
                             "python -m cardrl.train.run")
        return super().from_dict({k: v for k, v in d.items() if k not in ppo})

    def validate(self) -> None:
        super().validate()
        if self.algo != ALGO:
            raise ValueError(f"a DMC config has algo {ALGO!r}, got {self.algo!r}")
        if isinstance(self.exp_epsilon, bool) or not isinstance(self.exp_epsilon, int | float) \
                or not 0 <= self.exp_epsilon <= 1:
            raise ValueError(f"exp_epsilon must be in [0, 1], got {self.exp_epsilon!r}")
        for key in ("buffer_size", "train_freq", "gradient_steps"):
            value = getattr(self, key)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{key} must be a positive int, got {value!r}")
        if self.buffer_size < max(self.batch_size, self.n_games):
            raise ValueError(f"buffer_size {self.buffer_size} must hold a batch "
                             f"({self.batch_size}) and a tick of every game ({self.n_games})")
        if isinstance(self.max_grad_norm, bool) or not isinstance(self.max_grad_norm, int | float) \
                or self.max_grad_norm <= 0:
            raise ValueError(f"max_grad_norm must be positive, got {self.max_grad_norm!r}")
        if isinstance(self.td_lambda, bool) or not isinstance(self.td_lambda, int | float) \
                or not 0 <= self.td_lambda <= 1:
            raise ValueError(f"td_lambda must be in [0, 1], got {self.td_lambda!r}")
        if isinstance(self.skip_gain, bool) or not isinstance(self.skip_gain, int | float) \
                or not 0 <= self.skip_gain < math.inf:
            raise ValueError(f"skip_gain must be a number >= 0, got {self.skip_gain!r}")
        if self.skip_gain and self.policy != "mlp":
            raise ValueError(f"skip_gain is the MLP's path; the {self.policy!r} policy scores "
                             "actions from its cards already")


# --------------------------------------------------------------------- 2: network
class CardScores(nn.Module):
    """A ``CardNet``'s action scores alone: Q(s, .)."""

    def __init__(self, net: CardNet) -> None:
        super().__init__()
        self.net = net

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.net(obs)[0]


class SkipQ(nn.Module):
    """Q = body(obs) + sum over blocks k of gain x weight_k x obs[block k], placed on its
    actions (``ActionFeatures``): one constant 0/1 map per block, so ONNX gets matmuls."""

    def __init__(self, body: nn.Module, blocks: ActionFeatures, obs_size: int,
                 num_actions: int, gain: float) -> None:
        super().__init__()
        self.body, self.gain = body, float(gain)
        self.weight = nn.Parameter(torch.zeros(len(blocks)))
        paths = torch.zeros(len(blocks), obs_size, num_actions)
        for k, (offset, first, length) in enumerate(blocks):
            i = torch.arange(length)
            paths[k, offset + i, first + i] = 1.0
        self.register_buffer("paths", paths, persistent=False)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        skip = (self.gain * self.weight[:, None, None] * self.paths).sum(dim=0)
        return self.body(obs) + obs @ skip


def q_network(cfg: DMCConfig, obs_size: int, num_actions: int) -> nn.Module:
    """obs (B, obs_size) -> Q (B, num_actions): one score per action, one forward pass."""
    if cfg.policy == "card":
        table = card_table(cfg.game, cfg.preset, cfg.rule_changes, cfg.observation)
        return CardScores(CardNet(table, obs_size, num_actions, embed=cfg.card_embed,
                                  hidden=tuple(cfg.net), activation=cfg.activation))
    act = TORCH_ACTIVATIONS[cfg.activation]
    layers: list[nn.Module] = []
    width = obs_size
    for h in cfg.net:
        layers += [nn.Linear(width, h), act()]
        width = h
    body = nn.Sequential(*layers, nn.Linear(width, num_actions))
    blocks = game_action_features(cfg.game, cfg.preset, cfg.rule_changes, cfg.observation) \
        if cfg.skip_gain else ()
    return SkipQ(body, blocks, obs_size, num_actions, cfg.skip_gain) if blocks else body


class MaskedQ(nn.Module):
    """(observation, action_mask) -> Q with every illegal action at ``MASKED``: the graph
    ONNX gets, so a bot's argmax is the best legal action."""

    def __init__(self, q: nn.Module) -> None:
        super().__init__()
        self.q = q

    def forward(self, observation: torch.Tensor, action_mask: torch.Tensor) -> torch.Tensor:
        q = self.q(observation)
        return torch.where(action_mask > 0.5, q, torch.full_like(q, MASKED))


# ---------------------------------------------------------------------- 3: acting
def epsilon_greedy(q: np.ndarray, masks: np.ndarray, epsilon: float,
                   rng: np.random.Generator) -> np.ndarray:
    """Per row: a uniformly random legal action with chance ``epsilon``, else the legal
    action of highest ``q`` (the first on ties)."""
    masks = np.asarray(masks, dtype=bool)
    if not masks.any(axis=1).all():
        raise ValueError(f"rows {np.flatnonzero(~masks.any(axis=1)).tolist()} have no legal "
                         "action to choose from")
    actions = np.where(masks, q, -np.inf).argmax(axis=1)
    explore = np.flatnonzero(rng.random(len(actions)) < epsilon)
    if len(explore):
        noise = rng.random((len(explore), masks.shape[1]))
        actions[explore] = np.where(masks[explore], noise, -1.0).argmax(axis=1)
    return actions


# ---------------------------------------------------------------------- 4: replay
class Replay:
    """The last ``size`` decisions (FIFO): observation, action, and the Monte Carlo target
    once the decision's episode has ended (``ready``). A decision takes its slot when it is
    made (one write per tick for all games); a slot reused before its episode ended (an
    episode longer than the buffer) loses that target: ``owner`` says whose a slot is."""

    def __init__(self, size: int, obs_size: int) -> None:
        self.size = size
        self.obs = np.zeros((size, obs_size), dtype=np.float32)
        self.action = np.zeros(size, dtype=np.int64)
        self.target = np.zeros(size, dtype=np.float32)
        self.owner = np.full(size, -1, dtype=np.int64)  # the decision id in each slot
        self.ready = np.zeros(size, dtype=bool)
        self.next_id = 0

    def add(self, obs: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """Store one decision per row; returns their ids (targets come later)."""
        ids = np.arange(self.next_id, self.next_id + len(actions), dtype=np.int64)
        pos = ids % self.size
        self.obs[pos], self.action[pos] = obs, actions
        self.owner[pos], self.ready[pos] = ids, False
        self.next_id += len(actions)
        return ids

    def set_targets(self, ids: np.ndarray, targets: np.ndarray) -> None:
        pos = ids % self.size
        mine = self.owner[pos] == ids
        self.target[pos[mine]] = targets[mine]
        self.ready[pos[mine]] = True

    def ready_count(self) -> int:
        return int(self.ready.sum())

    def sample(self, batch: int, rng: np.random.Generator) -> np.ndarray:
        """Slots of ``batch`` decisions with targets, drawn uniformly with replacement."""
        return rng.choice(np.flatnonzero(self.ready), size=batch)


# ------------------------------------------------------------------ 5: self-play
class SelfPlay:
    """``games`` with every seat played by one Q-function, decisions into ``replay``.

    Game ``i``'s seat ``s`` keeps the ids of its decisions in this episode and, for each,
    the rewards it received from that decision up to its next one (paid on anyone's
    move). When the episode ends, decision ``j``'s target is
    ``r_j + gamma r_{j+1} + gamma^2 r_{j+2} + ...``: with ``gamma`` 1, everything the seat
    got from its decision to the episode's end. With ``td_lambda`` below 1 it is the
    lambda-return instead (``lambda_returns``), which leans on the greedy value each later
    own decision had when it was made (the acting pass computed it: no extra forward
    pass). Rewards paid before a seat's first decision (none in these games) have no
    decision to go to."""

    def __init__(self, games: BatchedGames | MixedBatchedGames, replay: Replay, gamma: float,
                 seed: int, td_lambda: float = 1.0) -> None:
        self.games, self.replay, self.gamma = games, replay, gamma
        self.td_lambda = td_lambda
        self.rng = np.random.default_rng(seed)
        n, p = games.num_games, games.num_players
        self._ids: list[list[list[int]]] = [[[] for _ in range(p)] for _ in range(n)]
        self._rewards: list[list[list[float]]] = [[[] for _ in range(p)] for _ in range(n)]
        self._values: list[list[list[float]]] = [[[] for _ in range(p)] for _ in range(n)]
        self.returns: list[float] = []  # each seat's return of each finished episode
        self.lengths: list[int] = []  # decisions of each finished episode, all seats
        games.reset(seed=seed)

    def tick(self, q_values, epsilon: float) -> int:
        """One decision in every game, chosen in one call ``q_values(obs) -> (N, A)``;
        returns the number of decisions."""
        games = self.games
        n = games.num_games
        obs, masks, seats = games.obs, games.masks, games.seats
        q = q_values(obs)
        actions = epsilon_greedy(q, masks, epsilon, self.rng)
        ids = self.replay.add(obs, actions)
        values = np.where(np.asarray(masks, dtype=bool), q, -np.inf).max(axis=1).tolist() \
            if self.td_lambda < 1 else None
        for i, seat in enumerate(seats.tolist()):
            self._ids[i][seat].append(int(ids[i]))
            self._rewards[i][seat].append(0.0)
            if values is not None:
                self._values[i][seat].append(values[i])
        rewards, dones = games.step_games(range(n), actions)
        for i in np.flatnonzero(rewards.any(axis=1)).tolist():
            for seat, r in enumerate(rewards[i].tolist()):
                owed = self._rewards[i][seat]
                if owed:
                    owed[-1] += r
        for i in np.flatnonzero(dones).tolist():
            self._finish(i)
        return n

    def _finish(self, i: int) -> None:
        length = 0
        for seat in range(self.games.num_players):
            owed, ids = self._rewards[i][seat], self._ids[i][seat]
            if not ids:
                continue
            values = self._values[i][seat]
            returns = discounted_returns(owed, self.gamma)
            targets = lambda_returns(owed, values, self.gamma, self.td_lambda) if values \
                else returns
            self.replay.set_targets(np.asarray(ids, dtype=np.int64), targets)
            self.returns.append(float(returns[0]))
            length += len(ids)
            owed.clear()
            ids.clear()
            values.clear()
        self.lengths.append(length)


def discounted_returns(rewards: list[float], gamma: float) -> np.ndarray:
    """``out[j] = rewards[j] + gamma * out[j + 1]``: each decision's Monte Carlo target."""
    out = np.zeros(len(rewards), dtype=np.float64)
    g = 0.0
    for j in range(len(rewards) - 1, -1, -1):
        g = rewards[j] + gamma * g
        out[j] = g
    return out.astype(np.float32)


def lambda_returns(rewards: list[float], values: list[float], gamma: float,
                   lam: float) -> np.ndarray:
    """``out[j] = rewards[j] + gamma * ((1 - lam) * values[j + 1] + lam * out[j + 1])``,
    the last ``out`` its reward alone: ``values[j]`` is decision ``j``'s greedy Q when it
    was made, so ``lam`` 1 is ``discounted_returns`` and ``lam`` 0 one-step Q-learning."""
    out = np.zeros(len(rewards), dtype=np.float64)
    g = 0.0
    for j in range(len(rewards) - 1, -1, -1):
        ahead = (1 - lam) * values[j + 1] + lam * g if j + 1 < len(rewards) else 0.0
        g = rewards[j] + gamma * ahead
        out[j] = g
    return out.astype(np.float32)


# ---------------------------------------------------------------------- 6: the run
class DMCTrainer:
    """One DMC run: builds or resumes it (``resume``), ``run()`` trains, ``export()`` writes;
    the same run folder, results and command line as ``cardrl.train.ppo.Trainer``."""

    CONFIG = DMCConfig
    CHECKPOINT = CHECKPOINT

    def __init__(self, cfg: DMCConfig, resume: bool = False, progress: bool = True,
                 quiet: bool = False) -> None:
        self.cfg = cfg = start_run(cfg, resume, CHECKPOINT)
        self.run_dir = cfg.run_dir
        self.progress, self.quiet = progress, quiet
        ckpt = self.run_dir / CHECKPOINT
        set_threads(cfg.threads())
        torch.manual_seed(cfg.seed)
        self.state = RunState.load(self.run_dir) if resume else \
            RunState(next_checkpoint=cfg.checkpoint_every)
        self.steps = self.state.steps
        games = cfg.games()
        self.replay = Replay(cfg.buffer_size, games.obs_size)
        # a resumed run deals new games: the seed moves with the steps already taken
        self.selfplay = SelfPlay(games, self.replay, cfg.gamma,
                                 seed=cfg.seed * 1_000_003 + self.steps,
                                 td_lambda=cfg.td_lambda)
        self.net = q_network(cfg, games.obs_size, games.num_actions)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=cfg.learning_rate)
        if resume:
            saved = torch.load(ckpt, weights_only=True)
            self.net.load_state_dict(saved["net"])
            self.optimizer.load_state_dict(saved["optimizer"])
        self.writer: SummaryWriter | None = None
        self.limit_seconds = 0.5  # how long ``throughput`` times the network alone
        self._loop = [0, 0.0]  # decisions collected, seconds collecting and updating
        self._start = time.monotonic()
        self._wall0 = self.state.wall_time_s

    def wall_time(self) -> float:
        return self._wall0 + time.monotonic() - self._start

    def q_values(self, obs: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return self.net(torch.from_numpy(obs)).numpy()

    def learning_rate(self) -> float:
        cfg = self.cfg
        return cfg.learning_rate * (max(0.0, 1.0 - self.steps / cfg.steps) if cfg.lr_decay
                                    else 1.0)

    def update(self) -> dict[str, float]:
        """``gradient_steps`` Adam steps of MSE(Q(s, a_taken), target); their mean stats."""
        cfg, replay, rng = self.cfg, self.replay, self.selfplay.rng
        for group in self.optimizer.param_groups:
            group["lr"] = self.learning_rate()  # config.json's rate holds after a resume
        stats = np.zeros(3)
        for _ in range(cfg.gradient_steps):
            idx = replay.sample(cfg.batch_size, rng)
            obs = torch.from_numpy(replay.obs[idx])
            action = torch.from_numpy(replay.action[idx])
            target = torch.from_numpy(replay.target[idx])
            q = self.net(obs).gather(1, action.unsqueeze(1)).squeeze(1)
            loss = nn.functional.mse_loss(q, target)
            self.optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(self.net.parameters(), cfg.max_grad_norm)
            self.optimizer.step()
            stats += (loss.item(), q.mean().item(), target.mean().item())
        loss, q_mean, target_mean = stats / cfg.gradient_steps
        return {"train/loss": loss, "train/q_mean": q_mean, "train/target_mean": target_mean}

    def run(self) -> TrainResult:
        cfg = self.cfg
        self.writer = SummaryWriter(str(self.run_dir / TB_DIR))
        bar = tqdm(total=cfg.steps, initial=min(self.steps, cfg.steps), unit="step",
                   file=sys.stderr, disable=not self.progress, dynamic_ncols=True,
                   desc=cfg.name, smoothing=0.05)
        interrupted = False
        try:
            with sigterm_as_interrupt():
                self._loop_until_done(bar)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            bar.close()
            self.checkpoint()
        evals = read_evals(self.run_dir)
        if not interrupted and cfg.eval_every and (not evals or evals[-1]["step"] != self.steps):
            self.evaluate()
        onnx = None if interrupted else self.export(self.run_dir / "policy.onnx")
        self.throughput()
        self.writer.close()
        return TrainResult(self.run_dir, self.steps, self.wall_time(), onnx,
                           read_evals(self.run_dir), interrupted)

    def _loop_until_done(self, bar: tqdm) -> None:
        """Collect and update until the run's steps (Ctrl-C between ticks stops it)."""
        cfg = self.cfg
        ticks = math.ceil(cfg.train_freq / cfg.n_games)
        while self.steps < cfg.steps:
            self.periodic()
            t0 = time.perf_counter()
            collected = 0
            for _ in range(ticks):
                n = self.selfplay.tick(self.q_values, cfg.exp_epsilon)
                collected += n
                self.steps += n  # a Ctrl-C between ticks checkpoints the exact count
                bar.update(n)
            t1 = time.perf_counter()
            if self.replay.ready_count() >= cfg.batch_size:
                self.log(self.update(), t1 - t0, time.perf_counter() - t1, collected)
            self._loop[0] += collected
            self._loop[1] += time.perf_counter() - t0

    def periodic(self) -> None:
        cfg, st = self.cfg, self.state
        if cfg.eval_every and self.steps >= st.next_eval:
            self.evaluate()
            st.next_eval = self.steps + cfg.eval_every
        if self.steps >= st.next_checkpoint:
            self.checkpoint()
            st.next_checkpoint = self.steps + cfg.checkpoint_every

    def log(self, stats: dict[str, float], collect_s: float, update_s: float,
            collected: int) -> None:
        sp, w, step = self.selfplay, self.writer, self.steps
        for key, value in stats.items():
            w.add_scalar(key, value, step)
        w.add_scalar("train/epsilon", self.cfg.exp_epsilon, step)
        w.add_scalar("train/learning_rate", self.learning_rate(), step)
        w.add_scalar("time/steps_per_s", collected / max(collect_s + update_s, 1e-9), step)
        w.add_scalar("time/update_share", update_s / max(collect_s + update_s, 1e-9), step)
        if sp.returns:
            w.add_scalar("rollout/return_mean", float(np.mean(sp.returns)), step)
            w.add_scalar("rollout/return_abs_mean", float(np.mean(np.abs(sp.returns))), step)
            w.add_scalar("rollout/episode_decisions", float(np.mean(sp.lengths)), step)
            sp.returns.clear()
            sp.lengths.clear()

    def throughput(self) -> dict[str, float]:
        """This run's decisions per second (collecting and updating), the same network work
        timed with torch alone (``cardrl.train.limit.dmc_limit``) and their ratio, as
        ``cardrl.train.bench`` prints for PPO: to tensorboard (``time/limit``, ``time/limit_ratio``)
        and, unless quiet, to stderr."""
        decisions, seconds = self._loop
        if not decisions or not seconds:
            return {}
        cfg = self.cfg
        rate = decisions / seconds
        limit = dmc_limit(self.net, self.replay.obs.shape[1], cfg.n_games, cfg.train_freq,
                          cfg.gradient_steps, cfg.batch_size, cfg.max_grad_norm,
                          seconds=self.limit_seconds)
        out = {"rate": rate, "limit": limit, "ratio": rate / limit}
        if self.writer is not None:
            self.writer.add_scalar("time/limit", limit, self.steps)
            self.writer.add_scalar("time/limit_ratio", out["ratio"], self.steps)
        if not self.quiet:
            tqdm.write(f"[dmc] {rate:,.0f} decisions/s; torch alone {limit:,.0f}/s; ratio "
                       f"{out['ratio']:.2f}", file=sys.stderr)
        return out

    def checkpoint(self, step: int | None = None) -> None:
        """Network, optimizer and state at ``step`` (default: where the run stands)."""
        if step is not None:
            self.steps = step
        tmp = self.run_dir / (CHECKPOINT + ".tmp")
        torch.save({"net": self.net.state_dict(), "optimizer": self.optimizer.state_dict(),
                    "steps": self.steps}, tmp)
        os.replace(tmp, self.run_dir / CHECKPOINT)
        self.state.steps = self.steps
        self.state.wall_time_s = self.wall_time()
        self.state.save(self.run_dir)

    def evaluate(self) -> dict:
        """Duplicate matches of the current network against each eval bot, as ``cardrl.train.ppo``
        runs them (same ``evals.jsonl`` record, same tensorboard tags)."""
        step = self.steps
        path = self.run_dir / "evals" / f"step-{step:09d}.onnx"
        self.export(path, evaluation=None)
        record = evaluate_run(self.cfg, path, step, self.wall_time(), self.run_dir)
        if self.writer is not None:
            for tag, value in eval_scalars(record):
                self.writer.add_scalar(tag, value, step)
        if not self.quiet:
            tqdm.write(eval_line(record), file=sys.stderr)
        return record

    # ------------------------------------------------------------------ 7: export
    def export(self, path: Path | str, evaluation: dict | None | bool = True) -> Path:
        """The network as ONNX at ``path`` (masked Q; a bot plays its argmax) with its card
        (``cardrl.train.export.export_bot``), the last evaluation included unless one is
        given."""
        if evaluation is True:
            evaluation = last_evaluation(self.run_dir)
        card = run_card(self.cfg, self.steps, self.wall_time(), evaluation, algo=ALGO)
        games = self.selfplay.games
        out = export_bot(MaskedQ(self.net), games.obs_size, games.num_actions, path, card,
                         self.run_dir)
        self.net.train()  # the export put it in eval mode (no layer here differs)
        return out


# ------------------------------------------------------------------- command line
def main(argv: Sequence[str] | None = None) -> int:
    return runs.main(DMCTrainer, argv, "python -m cardrl.train.dmc", __doc__.splitlines()[0])


if __name__ == "__main__":
    sys.exit(main())
