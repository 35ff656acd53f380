"""Multi-agent PPO on RLlib over the PettingZoo envs: self-play, frozen snapshots, ONNX export.

    python -m cardrl.train.rllib --game spades --steps 200000 --net 128,128 --name spades-rllib
    python -m cardrl.train.rllib --game sevens --address HEAD:6379 --env-runners 8 --name sevens-big
    tensorboard --logdir runs/spades-rllib

Why a second trainer: the SB3 path (``cardrl.train.ppo``) is one process; RLlib spreads the
simulators over a Ray cluster (``--env-runners`` on any node, ``--address`` to join a
cluster; a local Ray by default). The env is the game's own AEC env (``get_game(g).env``)
behind RLlib's ``PettingZooEnv``, either observation kind; nothing in ``envs`` knows Ray.

* **Config**: ``RllibConfig``, ``cardrl.train.config``'s ``RunConfig`` and ``PPOKnobs`` (the
  knobs every trainer has, under the same names and flags) plus the cluster's and
  self-play's knobs; ``steps`` counts env steps.
* **Masking**: ``MaskedMLPModule`` reads ``action_mask`` from the observation dict and
  sets illegal logits to -1e8 before sampling, training and greedy play, as the
  exported graph does.
* **Self-play**: every seat is one shared module, ``main`` (the one trained), except
  that each seat but one learner seat per game is, with probability ``1 - self_share``,
  a frozen snapshot (``snapshot_<k>``). ``SnapshotCallback`` fills the slots with the
  initial policy, then copies ``main`` into the oldest slot every ``snapshot_every``
  env steps (learner weights, synced to every env runner).
* **Logs**: RLlib's env-runner and learner metrics per iteration to tensorboard
  (``runs/<name>/tb``), with env steps and learner steps per second, and every
  ``eval_every`` env steps (and at the end) duplicate matches against the eval bots.
* **Export**: ``main``'s actor as ONNX with the inputs and output of ``cardrl.train.export``
  (``observation``, ``action_mask`` -> ``logits``, illegal at -1e8) and a card made by
  ``cardrl.train.export.base_card`` plus ``training`` (``"trainer": "rllib"``), so
  ``cardrl.agents.load``, tournaments, the bot server and the web table play it unchanged.

Not here (the SB3 path has them): resuming a run, imitation, rule-bot opponents
during training, the per-action feature head, the games' training plug-ins.
"""

from __future__ import annotations

import argparse
import functools
import logging
import sys
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
import ray
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import InferenceOnlyAPI, ValueFunctionAPI
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from torch import nn
from torch.utils.tensorboard import SummaryWriter

from cardrl.envs.games import get_game
from cardrl.runtime_env import py_modules
from cardrl.train.config import CONFIG_FILE, PPOKnobs, add_arguments, check_ints, knob, redefault
from cardrl.train.evaluate import evaluate
from cardrl.train.export import export_bot, run_card, update_card
from cardrl.train.nets import TORCH_ACTIVATIONS
from cardrl.train.numpy_policy import MASKED

MAIN = "main"


# ---------------------------------------------------------------------- config
@dataclass
class RllibConfig(PPOKnobs):
    """A run on RLlib: ``RunConfig`` and ``PPOKnobs`` (``cardrl.train.config``) plus the
    cluster's and self-play's knobs. ``steps`` counts env steps sampled (moves of every
    seat, all games together); saved as ``runs/<name>/config.json`` and in the card."""

    TRAINER: ClassVar[str] = "rllib"
    STEPS: ClassVar[str] = "env steps to sample (every seat's moves, all games together)"
    RENAMED: ClassVar[dict[str, str]] = {  # the names of this config before it shared them
        "lr": "learning_rate", "lambda_": "gae_lambda", "clip": "clip_range",
        "epochs": "n_epochs", "minibatch": "batch_size", "batch": "steps_per_update",
        "snapshots": "max_snapshots"}

    eval_every: int = redefault(PPOKnobs, "eval_every", 0)  # (and at the end)
    steps_per_update: int = knob(4096, "env steps sampled per PPO update (RLlib's train batch)")
    env_runners: int = knob(0, "remote sampler actors, placed anywhere in the cluster (0 = "
                            "sample in this process)")
    envs_per_runner: int = knob(1)
    max_snapshots: int = knob(4, "frozen snapshot slots the other seats may play (0 = pure "
                              "self-play)")
    snapshot_every: int = knob(50_000, "env steps between snapshots")
    self_share: float = knob(0.8, "chance a seat other than the learner's plays the current "
                             "policy")

    def env_config(self) -> dict[str, Any]:
        """What ``CardGameEnv`` builds the game's AEC env from (picklable, sent to runners)."""
        return {"game": self.game, "preset": self.preset, **self.env_options(),
                **self.env_rule_changes()}

    def validate(self) -> None:
        super().validate()
        if self.policy != "mlp":
            raise ValueError(f"train.rllib trains the MLP policy only, got policy {self.policy!r}")
        check_ints(self, ("steps_per_update", "envs_per_runner", "snapshot_every"), 1)
        check_ints(self, ("env_runners", "max_snapshots"), 0)
        if self.batch_size > self.steps_per_update:
            raise ValueError(f"batch_size {self.batch_size} is larger than steps_per_update "
                             f"{self.steps_per_update}")
        if not 0 <= self.self_share <= 1:
            raise ValueError(f"self_share must be in [0, 1], got {self.self_share!r}")


# ------------------------------------------------------------------------- env
class CardGameEnv(PettingZooEnv):
    """The game's AEC env behind RLlib's PettingZoo wrapper, built from the run's env
    config (RLlib builds it by class on each env runner: no env registry to keep)."""

    def __init__(self, env_config: dict) -> None:
        options = dict(env_config)
        game = options.pop("game")
        super().__init__(get_game(game).env(**options))


# ---------------------------------------------------------------------- module
def mlp(sizes: Sequence[int], activation: str, out_gain: float) -> nn.Sequential:
    """Linear layers with the activation between them, initialised as SB3 does
    (orthogonal, gain sqrt 2 in the hidden layers): the two trainers start alike."""
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:], strict=True)):
        linear = nn.Linear(a, b)
        last = i == len(sizes) - 2
        nn.init.orthogonal_(linear.weight, gain=out_gain if last else np.sqrt(2))
        nn.init.zeros_(linear.bias)
        layers.append(linear)
        if not last:
            layers.append(TORCH_ACTIVATIONS[activation]())
    return nn.Sequential(*layers)


class MaskedMLPModule(TorchRLModule, ValueFunctionAPI, InferenceOnlyAPI):
    """PPO's actor-critic over ``{"observation", "action_mask"}`` observations.

    The actor's logits of illegal actions are -1e8 in every forward pass, so
    sampling, the PPO loss and greedy play never pick one, and the exported
    graph (``MaskedActor``) computes exactly these logits. The critic is a
    separate MLP, left out on the env runners (inference only).
    """

    def setup(self) -> None:
        obs_size = int(self.observation_space["observation"].shape[0])
        num_actions = int(self.action_space.n)
        hidden = list(self.model_config.get("hidden", (256, 256)))
        activation = self.model_config.get("activation", "tanh")
        self.pi = mlp([obs_size, *hidden, num_actions], activation, 0.01)
        if not self.inference_only:
            self.vf = mlp([obs_size, *hidden, 1], activation, 1.0)

    def masked_logits(self, obs: dict) -> torch.Tensor:
        logits = self.pi(obs["observation"])
        legal = obs["action_mask"].to(logits.dtype) > 0.5
        return torch.where(legal, logits, torch.full_like(logits, MASKED))

    def _forward(self, batch: dict, **kwargs) -> dict:
        return {Columns.ACTION_DIST_INPUTS: self.masked_logits(batch[Columns.OBS])}

    def compute_values(self, batch: dict, embeddings: Any = None) -> torch.Tensor:
        return self.vf(batch[Columns.OBS]["observation"]).squeeze(-1)

    def get_non_inference_attributes(self) -> list[str]:
        return ["vf"]


def module_spec(cfg: RllibConfig, obs_space: gym.Space, action_space: gym.Space
                ) -> RLModuleSpec:
    return RLModuleSpec(module_class=MaskedMLPModule, observation_space=obs_space,
                        action_space=action_space,
                        model_config={"hidden": list(cfg.net), "activation": cfg.activation})


# -------------------------------------------------------------------- self-play
def snapshot_ids(count: int) -> list[str]:
    return [f"snapshot_{k}" for k in range(count)]


class SeatMapping:
    """Which module plays each seat of an episode: one learner seat is always ``main``;
    each other seat is ``main`` with probability ``self_share``, else a snapshot slot.

    Drawn from the episode's id, so every call for the same episode and seat agrees.
    """

    def __init__(self, num_players: int, snapshots: int, self_share: float) -> None:
        self.num_players, self.snapshots, self.self_share = num_players, snapshots, self_share

    def __call__(self, agent_id: str, episode: Any, **kwargs: Any) -> str:
        seat = int(str(agent_id).rsplit("_", 1)[1])
        rng = np.random.default_rng(zlib.crc32(str(episode.id_).encode()))
        learner = int(rng.integers(self.num_players))
        opponent = rng.random(self.num_players) >= self.self_share
        slot = rng.integers(max(1, self.snapshots), size=self.num_players)
        if seat == learner or not self.snapshots or not opponent[seat]:
            return MAIN
        return f"snapshot_{int(slot[seat])}"


class SnapshotCallback(RLlibCallback):
    """Fills the snapshot slots with the initial policy, then every ``snapshot_every``
    env steps copies ``main`` into the oldest slot; the env runners get the new weights
    at once (PPO syncs only the modules it trained)."""

    def __init__(self, snapshots: int = 0, snapshot_every: int = 1) -> None:
        super().__init__()
        self.snapshots, self.snapshot_every = snapshots, snapshot_every
        self.taken = 0
        self.next_step = snapshot_every

    def freeze(self, algorithm: Any, slots: list[str]) -> None:
        learners = algorithm.learner_group
        weights = learners.get_weights(module_ids=[MAIN])[MAIN]
        learners.set_weights({slot: weights for slot in slots})

        def load(env_runner: Any) -> None:  # not sync_weights: it skips a seen weights_seq_no
            for slot in slots:
                env_runner.module[slot].set_state(weights)

        algorithm.env_runner_group.foreach_env_runner(load, local_env_runner=True)

    def on_algorithm_init(self, *, algorithm: Any, **kwargs: Any) -> None:
        if self.snapshots:
            self.freeze(algorithm, snapshot_ids(self.snapshots))

    def on_train_result(self, *, algorithm: Any, result: dict, **kwargs: Any) -> None:
        steps = _sampled(result)
        if self.snapshots and steps >= self.next_step:
            self.freeze(algorithm, [f"snapshot_{self.taken % self.snapshots}"])
            self.taken += 1
            self.next_step = steps + self.snapshot_every
        result["snapshots_taken"] = self.taken


def _sampled(result: dict) -> int:
    return int(result.get("env_runners", {}).get("num_env_steps_sampled_lifetime", 0))


# ----------------------------------------------------------------------- algo
def algo_config(cfg: RllibConfig) -> PPOConfig:
    """RLlib's PPO on the new API stack, multi-agent: ``main`` trains, snapshots play."""
    env = CardGameEnv(cfg.env_config())
    agent = env.env.possible_agents[0]
    obs_space, action_space = env.observation_spaces[agent], env.action_spaces[agent]
    num_players = len(env.env.possible_agents)
    env.close()
    modules = {m: module_spec(cfg, obs_space, action_space)
               for m in [MAIN, *snapshot_ids(cfg.max_snapshots)]}
    return (
        PPOConfig()
        # RLlib's env check steps random actions, which our envs refuse as illegal
        .environment(CardGameEnv, env_config=cfg.env_config(), disable_env_checking=True)
        .env_runners(num_env_runners=cfg.env_runners, num_envs_per_env_runner=cfg.envs_per_runner,
                     rollout_fragment_length="auto", batch_mode="truncate_episodes")
        .learners(num_learners=0)
        .multi_agent(policies=set(modules),
                     policy_mapping_fn=SeatMapping(num_players, cfg.max_snapshots,
                                                     cfg.self_share),
                     policies_to_train=[MAIN])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=modules))
        .training(lr=cfg.learning_rate, gamma=cfg.gamma, lambda_=cfg.gae_lambda,
                  entropy_coeff=cfg.ent_coef, clip_param=cfg.clip_range, num_epochs=cfg.n_epochs,
                  use_kl_loss=False, train_batch_size_per_learner=cfg.steps_per_update,
                  minibatch_size=cfg.batch_size,
                  vf_clip_param=float("inf"), grad_clip=0.5, grad_clip_by="global_norm")
        .callbacks(functools.partial(SnapshotCallback, cfg.max_snapshots, cfg.snapshot_every))
        .debugging(seed=cfg.seed, log_level="ERROR")
        .reporting(metrics_num_episodes_for_smoothing=100)
    )


def init_ray(address: str | None = None, num_cpus: int | None = None) -> bool:
    """Connect to ``address`` (a running cluster) or start a local Ray; True if this call
    started or joined it (so the caller shuts it down)."""
    if ray.is_initialized():
        return False
    kwargs: dict[str, Any] = {"runtime_env": {"py_modules": py_modules()},
                              "logging_level": logging.WARNING, "log_to_driver": False}
    if address is None:
        kwargs.update(include_dashboard=False, num_cpus=num_cpus)
    ray.init(address=address, **kwargs)
    return True


# --------------------------------------------------------------------- export
class MaskedActor(nn.Module):
    """(observation, action_mask) -> masked logits: the graph ``cardrl.train.export`` writes for
    SB3 policies, here for ``main``'s actor."""

    def __init__(self, pi: nn.Sequential) -> None:
        super().__init__()
        self.actor = pi

    def forward(self, observation: torch.Tensor, action_mask: torch.Tensor) -> torch.Tensor:
        logits = self.actor(observation)
        return torch.where(action_mask > 0.5, logits, torch.full_like(logits, MASKED))


def export_module(module: MaskedMLPModule, path: str | Path, card: dict,
                  run_dir: Path | None = None) -> Path:
    """``module``'s actor as ONNX at ``path`` with ``card`` beside it (``<path>.json``),
    through every trainer's export (``cardrl.train.export.export_bot``). Returns ``path``."""
    pi = module.pi
    return export_bot(MaskedActor(pi), int(pi[0].in_features), int(pi[-1].out_features),
                      path, card, run_dir)


def greedy_actions(module: MaskedMLPModule, observations: np.ndarray, masks: np.ndarray
                   ) -> np.ndarray:
    """The module's greedy actions (argmax of its masked logits) for a batch."""
    batch = {Columns.OBS: {"observation": torch.as_tensor(observations, dtype=torch.float32),
                           "action_mask": torch.as_tensor(masks)}}
    out = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
    return out.argmax(dim=-1).numpy()


# ------------------------------------------------------------------------ run
@dataclass
class RllibResult:
    run_dir: Path
    steps: int  # env steps sampled
    learner_steps: int  # ``main``'s agent steps: its moves, and each game's last view
    wall_time_s: float
    onnx: Path
    throughput: dict
    evaluation: dict
    snapshots_taken: int
    module: MaskedMLPModule  # ``main`` as trained (the exported network's source)


def _scalars(prefix: str, tree: Any, out: dict[str, float]) -> None:
    """Flatten RLlib's nested result into tensorboard tags (numbers only)."""
    if isinstance(tree, dict):
        for key, value in tree.items():
            _scalars(f"{prefix}/{key}" if prefix else str(key), value, out)
    elif isinstance(tree, int | float | np.number) and not isinstance(tree, bool) \
            and np.isfinite(tree):
        out[prefix] = float(tree)


class Throughput:
    """Env steps sampled and learner steps (``main``'s agent steps as RLlib counts them:
    its moves, plus the last view each seat gets at a game's end) per second of wall
    time, sampling and updates together as ``cardrl.train.bench`` counts them, over every
    iteration but the first (which warms up)."""

    def __init__(self) -> None:
        self.rows: list[tuple[int, int, float]] = []

    def add(self, result: dict, wall: float) -> None:
        runners = result.get("env_runners", {})
        learner = runners.get("num_module_steps_sampled", {}).get(MAIN, 0)
        self.rows.append((int(runners.get("num_env_steps_sampled", 0)),
                          int(learner) if np.isfinite(learner) else 0, wall))

    def summary(self) -> dict:
        rows = self.rows[1:] or self.rows
        env, learner = sum(r[0] for r in rows), sum(r[1] for r in rows)
        wall = sum(r[2] for r in rows)
        return {"iterations": len(rows), "env_steps": env, "learner_steps": learner,
                "wall_s": round(wall, 2),
                "env_steps_per_s": round(env / wall, 1) if wall else None,
                "learner_steps_per_s": round(learner / wall, 1) if wall else None}


def train(cfg: RllibConfig, address: str | None = None, export: str | Path | None = None,
          quiet: bool = False) -> RllibResult:
    """Train ``cfg`` on Ray (local unless ``address``), log to tensorboard, export the bot."""
    cfg.validate()
    cfg = cfg.resolved()
    if (cfg.run_dir / CONFIG_FILE).exists():
        raise ValueError(f"run {str(cfg.run_dir)!r} exists; pick a new --name")
    cfg.save(cfg.run_dir)
    say = (lambda text: None) if quiet else (lambda text: print(text, file=sys.stderr))
    started = init_ray(address)
    try:
        algo = algo_config(cfg).build_algo()
        try:
            result = _run(cfg, algo, export, say)
        finally:
            algo.stop()
    finally:
        if started:
            ray.shutdown()
    say(f"[rllib] exported {result.onnx} ({result.steps:,} env steps, "
        f"{result.wall_time_s:.0f} s)")
    return result


def _run(cfg: RllibConfig, algo: Any, export: str | Path | None, say: Any) -> RllibResult:
    """The training loop with its evaluations, tensorboard, and the export."""
    run_dir = cfg.run_dir
    writer = SummaryWriter(str(run_dir / "tb"))
    throughput = Throughput()
    t0 = time.monotonic()
    steps = learner_steps = snapshots = 0
    next_eval, evaluation = cfg.eval_every, {}
    try:
        while steps < cfg.steps:
            t = time.monotonic()
            result = algo.train()
            wall = time.monotonic() - t
            throughput.add(result, wall)
            steps = _sampled(result)
            learner_steps += throughput.rows[-1][1]
            tags: dict[str, float] = {}
            for part in ("env_runners", "learners", "timers"):
                _scalars(part, result.get(part, {}), tags)
            snapshots = int(result.get("snapshots_taken", 0))
            tags["snapshots_taken"] = float(snapshots)
            tags["throughput/env_steps_per_s"] = throughput.rows[-1][0] / wall
            tags["throughput/learner_steps_per_s"] = throughput.rows[-1][1] / wall
            for tag, value in tags.items():
                writer.add_scalar(tag, value, steps)
            ret = result.get("env_runners", {}).get("module_episode_returns_mean", {}).get(MAIN)
            done = ret is not None and np.isfinite(ret)  # no game may have ended this time
            say(f"[rllib] {steps:,} env steps, {wall:.1f} s/iteration, main's mean return "
                f"{round(float(ret), 3) if done else '-'}")
            if cfg.eval_every and next_eval <= steps < cfg.steps:
                path = run_dir / "evals" / f"step-{steps:09d}.onnx"
                export_module(_learner_module(algo), path, training_card(
                    cfg, steps, learner_steps, time.monotonic() - t0, throughput.summary()),
                    run_dir)
                evaluation = evaluate_bot(cfg, path, steps, writer)
                next_eval = steps + cfg.eval_every
        wall_time = time.monotonic() - t0
        module = _learner_module(algo)
        card = training_card(cfg, steps, learner_steps, wall_time, throughput.summary())
        card["training"]["snapshots_taken"] = snapshots
        path = Path(export) if export is not None else run_dir / "policy.onnx"
        for each in {path, run_dir / "policy.onnx"}:
            export_module(module, each, card, run_dir)
        if cfg.eval_every:
            evaluation = evaluate_bot(cfg, path, steps, writer)
            update_card(path, evaluation=evaluation)
        writer.flush()
    finally:
        writer.close()
    return RllibResult(run_dir, steps, learner_steps, wall_time, path, throughput.summary(),
                       evaluation, snapshots, module)


def _learner_module(algo: Any) -> MaskedMLPModule:
    """``main`` as trained (the learner's copy: the env runners' may lag one sync)."""
    weights = algo.learner_group.get_weights(module_ids=[MAIN])[MAIN]
    module = algo.get_module(MAIN)
    module.set_state(weights)
    return module


def training_card(cfg: RllibConfig, steps: int, learner_steps: int, wall_time: float,
                  throughput: dict) -> dict:
    return run_card(cfg, steps, wall_time, learner_steps=learner_steps, trainer="rllib",
                    throughput=throughput)


def evaluate_bot(cfg: RllibConfig, path: Path, step: int, writer: Any) -> dict:
    """Duplicate matches of the exported bot at ``path`` against each eval bot
    (``cardrl.train.evaluate``, as the SB3 path runs them), logged as ``eval_<bot>/...``; the
    card's ``evaluation`` entry."""
    results = evaluate(cfg.game, cfg.preset, str(path), list(cfg.eval_bots), cfg.eval_deals,
                       cfg.run_dir / "evals" / f"step-{step:09d}", rule_changes=cfg.rule_changes,
                       seed=cfg.seed, workers=cfg.eval_workers, fill=cfg.eval_fill or None)
    for opp, r in results.items():
        tag = "eval_" + opp.replace("/", "_").replace(":", "_")
        for key, value in r.items():
            if isinstance(value, int | float) and not isinstance(value, bool):
                writer.add_scalar(f"{tag}/{key}", value, step)
    return {"step": step, "deals": cfg.eval_deals, "results": results}


# ------------------------------------------------------------------------ CLI
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m cardrl.train.rllib",
                                description=__doc__.splitlines()[0])
    add_arguments(p, RllibConfig)
    p.add_argument("--export", default=None,
                   help="also write the bot here (default: runs/<name>/policy.onnx only)")
    p.add_argument("--address", default=None,
                   help="a running Ray cluster (HOST:6379 or auto); default: start a local Ray "
                        "on this machine")
    p.add_argument("--quiet", action="store_true")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        cfg = RllibConfig.from_args(args)
        result = train(cfg, address=args.address, export=args.export, quiet=args.quiet)
    except ValueError as err:  # also eval.config.ConfigError, a bad --rule
        print(f"error: {err}", file=sys.stderr)
        return 2
    t = result.throughput
    print(f"run: {result.run_dir}\nbot: {result.onnx}\n{result.steps:,} env steps "
          f"({result.learner_steps:,} agent steps of main) in {result.wall_time_s:.0f} s; "
          f"{t['env_steps_per_s']} env steps/s, {t['learner_steps_per_s']} learner steps/s "
          f"(after the first iteration)")
    for opp, r in result.evaluation.get("results", {}).items():
        ci = r["win_ci95"]
        print(f"vs {opp}: win {100 * r['win']:.1f}%"
              + (f" ± {100 * ci:.1f}" if ci is not None else "")
              + f" (no edge {100 * r['no_edge_win']:.0f}%), score {r['score']:.1f}")
    print(f"tensorboard --logdir {result.run_dir / 'tb'}")
    return 0


if __name__ == "__main__":
    # run as train.rllib, not __main__: the env runners unpickle these classes by module name
    from cardrl.train.rllib import main as _main

    sys.exit(_main())
