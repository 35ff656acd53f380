"""MaskablePPO training of one seat against an opponent pool, resumable, logged, exported.

``train(cfg)`` runs (or resumes) ``runs/<name>/``:

    config.json        the TrainConfig (written once; --resume reads it back)
    checkpoint.zip     the SB3 model, saved every ``checkpoint_every`` steps and on exit
    state.json         steps done, wall time so far, snapshot files, next due steps
    snapshots/*.npz    frozen policies that joined the opponent pool
    tb_1/              tensorboard: SB3's losses, train/*, eval_<bot>/* every ``eval_every``
    evals.jsonl        one line per evaluation: step, wall time, results per rule bot
    evals/step-*.onnx  the policy as evaluated (with cards) and its match logs
    policy.onnx(.json) the final export

Ctrl-C saves a checkpoint before returning, and the periodic checkpoint
bounds what a kill can lose; ``train(cfg, resume=True)`` continues from
``checkpoint.zip`` with the same step count, tensorboard run and eval schedule.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.utils import ConstantSchedule
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor
from torch import nn
from tqdm import tqdm

from train.config import CONFIG_FILE, PPO_KNOBS, TrainConfig
from train.evaluate import evaluate, hardest, onnx_spec
from train.export import base_card, export_onnx, policy_weights
from train.policy import ActionFeaturePolicy, game_action_features
from train.single_seat import SingleSeatEnv

CHECKPOINT = "checkpoint.zip"
STATE = "state.json"
EVALS = "evals.jsonl"
TB_NAME = "tb"


@dataclass
class RunState:
    steps: int = 0
    wall_time_s: float = 0.0
    snapshots: list[str] = field(default_factory=list)
    next_eval: int = 0
    next_checkpoint: int = 0
    next_snapshot: int = 0

    @classmethod
    def load(cls, run_dir: Path) -> RunState:
        path = run_dir / STATE
        return cls(**json.loads(path.read_text())) if path.is_file() else cls()

    def save(self, run_dir: Path) -> None:
        _write_text(run_dir / STATE, json.dumps(self.__dict__, indent=2) + "\n")


@dataclass
class TrainResult:
    run_dir: Path
    steps: int
    wall_time_s: float
    onnx: Path | None
    evals: list[dict]
    interrupted: bool


def _write_text(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def read_evals(run_dir: Path) -> list[dict]:
    path = Path(run_dir) / EVALS
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# ------------------------------------------------------------------- envs
def _make_env(cfg: dict, index: int) -> SingleSeatEnv:
    c = TrainConfig.from_dict(cfg)
    return SingleSeatEnv(c.game, c.preset, c.opponents, rule_changes=c.env_rule_changes(),
                         env_options=c.env_options(), max_snapshots=c.max_snapshots,
                         baseline=c.baseline or None)


def make_vec_env(cfg: TrainConfig, seed: int) -> VecMonitor:
    """``n_envs`` single-seat envs: in this process for one, else one process each."""
    fns = [functools.partial(_make_env, cfg.to_dict(), i) for i in range(cfg.n_envs)]
    if cfg.n_envs > 1:
        # env workers run numpy one observation at a time: BLAS threads would only fight
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(var, "1")
        vec = SubprocVecEnv(fns)
    else:
        vec = DummyVecEnv(fns)
    vec.seed(seed)
    return VecMonitor(vec)


def new_model(cfg: TrainConfig, env) -> MaskablePPO:
    activation = {"tanh": nn.Tanh, "relu": nn.ReLU}[cfg.activation]
    blocks = game_action_features(cfg.game, cfg.preset, cfg.rule_changes, cfg.observation) \
        if cfg.action_head else ()
    return MaskablePPO(
        ActionFeaturePolicy, env, learning_rate=cfg.learning_rate, n_steps=cfg.n_steps,
        batch_size=cfg.batch_size, n_epochs=cfg.n_epochs, gamma=cfg.gamma,
        gae_lambda=cfg.gae_lambda, ent_coef=cfg.ent_coef, clip_range=cfg.clip_range,
        target_kl=cfg.target_kl,
        policy_kwargs={"net_arch": {"pi": list(cfg.net), "vf": list(cfg.net)},
                       "activation_fn": activation, "action_features": blocks},
        tensorboard_log=str(cfg.run_dir), seed=cfg.seed, device="cpu", verbose=0)


# --------------------------------------------------------------- callback
class TrainCallback(BaseCallback):
    """Self-play weights to the workers, snapshots, evaluations, checkpoints, progress bar."""

    def __init__(self, trainer: Trainer) -> None:
        super().__init__()
        self.t = trainer
        self.bar: tqdm | None = None
        self._last = 0

    def _on_training_start(self) -> None:
        self.bar = tqdm(total=self.t.cfg.steps, initial=self.num_timesteps, unit="step",
                        file=sys.stderr, disable=not self.t.progress, dynamic_ncols=True,
                        desc=self.t.cfg.name, smoothing=0.05)
        self._last = self.num_timesteps

    def _on_rollout_start(self) -> None:
        self.t.push_policy()
        self.t.periodic(self.num_timesteps, self.logger)

    def _on_rollout_end(self) -> None:  # runs just before each PPO update
        self.t.freeze_actor(self.num_timesteps < self.t.cfg.critic_warmup)

    def _on_step(self) -> bool:
        if self.bar is not None:
            self.bar.update(self.num_timesteps - self._last)
        self._last = self.num_timesteps
        for info in self.locals.get("infos", ()):
            if "win" in info:
                self.logger.record_mean("train/win_rate", info["win"])
                self.logger.record_mean("train/score", info["scores"][info["seat"]])
        return not self.t.out_of_time()

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()


# ---------------------------------------------------------------- trainer
class Trainer:
    def __init__(self, cfg: TrainConfig, resume: bool = False, progress: bool = True,
                 quiet: bool = False) -> None:
        cfg.validate()
        self.cfg = cfg.resolved()
        self.run_dir = self.cfg.run_dir
        self.progress, self.quiet = progress, quiet
        ckpt = self.run_dir / CHECKPOINT
        if resume and not ckpt.is_file():
            raise ValueError(f"nothing to resume: {str(ckpt)!r} does not exist")
        if not resume and (self.run_dir / CONFIG_FILE).exists():
            raise ValueError(f"run {str(self.run_dir)!r} exists; resume it or pick a new --name")
        self.cfg.save(self.run_dir)
        torch.set_num_threads(self.cfg.threads())
        self.state = (RunState.load(self.run_dir) if resume else
                      RunState(next_snapshot=self.cfg.snapshot_every,
                               next_checkpoint=self.cfg.checkpoint_every))
        self.env = make_vec_env(self.cfg, seed=self.cfg.seed * 1_000_003 + self.state.steps)
        if resume:
            # config.json is the run's truth: an edited learning rate etc. holds from here on
            self.model = MaskablePPO.load(ckpt, env=self.env, device="cpu", custom_objects={
                k: getattr(self.cfg, k) for k in PPO_KNOBS})
            self.model.tensorboard_log = str(self.run_dir)
            for path in self.state.snapshots:
                self.env.env_method("add_snapshot", _load_snapshot(self.run_dir / path))
        else:
            self.model = new_model(self.cfg, self.env)
        self._start = time.monotonic()
        self._wall0 = self.state.wall_time_s
        if not resume and self.cfg.imitate:
            self.imitate()

    # ----------------------------------------------------------- pieces
    def imitate(self) -> None:
        """Clone the teacher into the fresh policy (train.imitate), then checkpoint at step 0
        so a crash during PPO does not repeat the clone."""
        from train.imitate import collect, fit

        cfg = self.cfg
        say = (lambda text: None) if self.quiet else (lambda text: tqdm.write(text, sys.stderr))
        t0 = time.monotonic()
        data = collect(cfg, cfg.imitate, cfg.imitate_samples, cfg.seed, workers=cfg.n_envs)
        say(f"[imitate] {len(data):,} decisions of {cfg.imitate} from {data.episodes:,} "
            f"episodes in {time.monotonic() - t0:.0f} s")
        log = []

        def record(stats: dict) -> None:
            log.append(stats)
            say("[imitate] epoch {epoch}: cross-entropy {cross_entropy:.4f}, value mse "
                "{value_mse:.4f}, held-out agreement {agreement:.3f}".format(**stats))

        fit(self.model.policy, data, cfg.imitate_epochs, seed=cfg.seed,
            balance=cfg.imitate_balance, log=record)
        _write_text(self.run_dir / "imitate.json", json.dumps(
            {"teacher": cfg.imitate, "decisions": len(data), "episodes": data.episodes,
             "seconds": round(time.monotonic() - t0, 1), "epochs": log}, indent=2) + "\n")
        self.checkpoint(0)

    def wall_time(self) -> float:
        return self._wall0 + time.monotonic() - self._start

    def out_of_time(self) -> bool:
        return (self.cfg.minutes is not None
                and time.monotonic() - self._start > self.cfg.minutes * 60)

    def freeze_actor(self, frozen: bool) -> None:
        """Critic warm-up: while ``frozen`` only the critic learns, at ``critic_warmup_lr``.

        A critic fitted to the teacher's returns (train.imitate) has not seen the
        clone's own play and can predict worse than a constant; PPO's advantages
        are then noise, and a cloned policy drifts down before the critic catches up.
        """
        params = [p for m in (self.model.policy.mlp_extractor.policy_net,
                              self.model.policy.action_net) for p in m.parameters()]
        if params[0].requires_grad != frozen:
            return
        for p in params:
            p.requires_grad_(not frozen)  # no gradient: Adam leaves the weight alone
        lr = self.cfg.critic_warmup_lr if frozen else self.cfg.learning_rate
        self.model.lr_schedule = ConstantSchedule(lr)

    def push_policy(self) -> None:
        self.env.env_method("set_policy", policy_weights(self.model.policy).to_dict())

    def periodic(self, step: int, logger) -> None:
        cfg, st = self.cfg, self.state
        if step >= st.next_snapshot and cfg.snapshot_every:
            self.snapshot(step)
            st.next_snapshot = step + cfg.snapshot_every
        if cfg.eval_every and step >= st.next_eval:
            self.evaluate(step, logger)
            st.next_eval = step + cfg.eval_every
        if step >= st.next_checkpoint:
            self.checkpoint(step)
            st.next_checkpoint = step + cfg.checkpoint_every

    def snapshot(self, step: int) -> None:
        weights = policy_weights(self.model.policy)
        rel = f"snapshots/step-{step:09d}.npz"
        (self.run_dir / "snapshots").mkdir(exist_ok=True)
        weights.save(self.run_dir / rel)
        self.state.snapshots = [*self.state.snapshots, rel][-self.cfg.max_snapshots:]
        self.env.env_method("add_snapshot", weights.to_dict())

    def checkpoint(self, step: int) -> None:
        tmp = self.run_dir / "checkpoint.tmp.zip"
        self.model.save(tmp)
        os.replace(tmp, self.run_dir / CHECKPOINT)
        self.state.steps = step
        self.state.wall_time_s = self.wall_time()
        self.state.save(self.run_dir)

    def card(self, step: int, evaluation: dict | None) -> dict:
        cfg = self.cfg
        return {**base_card(cfg.game, cfg.preset, cfg.rule_changes, cfg.observation),
                "training": {"steps": step, "wall_time_s": round(self.wall_time(), 1),
                             "run": str(self.run_dir), "config": cfg.to_dict()},
                "evaluation": evaluation or {}}

    def evaluate(self, step: int, logger=None) -> dict:
        cfg = self.cfg
        path = self.run_dir / "evals" / f"step-{step:09d}.onnx"
        export_onnx(self.model.policy, path, self.card(step, None))
        t0 = time.monotonic()
        results = evaluate(cfg.game, cfg.preset, onnx_spec(path), list(cfg.eval_bots),
                           cfg.eval_deals, self.run_dir / "evals" / f"step-{step:09d}",
                           rule_changes=cfg.rule_changes, seed=cfg.seed,
                           workers=cfg.eval_workers)
        record = {"step": step, "wall_time_s": round(self.wall_time(), 1),
                  "eval_seconds": round(time.monotonic() - t0, 1), "deals": cfg.eval_deals,
                  "results": results, "hardest": hardest(results)}
        with open(self.run_dir / EVALS, "a") as f:
            f.write(json.dumps(record) + "\n")
        if logger is not None:
            for opp, r in results.items():
                tag = "eval_" + opp.replace("/", "_").replace(":", "_")
                for key, value in r.items():
                    if isinstance(value, int | float) and key not in ("deals", "games"):
                        logger.record(f"{tag}/{key}", value)
            logger.record("eval/hardest_win_rate", results[record["hardest"]]["win"])
            logger.dump(step)
        if not self.quiet:
            tqdm.write(eval_line(record), file=sys.stderr)
        return record

    # -------------------------------------------------------------- run
    def run(self) -> TrainResult:
        cfg, model = self.cfg, self.model
        interrupted = False
        remaining = cfg.steps - model.num_timesteps
        old_term = None
        if threading.current_thread() is threading.main_thread():
            # `kill` (SIGTERM) stops a background run the way Ctrl-C does: checkpoint first
            old_term = signal.signal(signal.SIGTERM, _raise_interrupt)
        try:
            # even with nothing left to train: learn() sets up the logger the final eval uses
            model.learn(max(remaining, 0), callback=TrainCallback(self), tb_log_name=TB_NAME,
                        reset_num_timesteps=False)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            if old_term is not None:
                signal.signal(signal.SIGTERM, old_term)
            self.checkpoint(model.num_timesteps)
            with contextlib.suppress(EOFError, BrokenPipeError, ConnectionError):
                self.env.close()  # Ctrl-C may have reached the env workers too
        step = model.num_timesteps
        evals = read_evals(self.run_dir)
        if not interrupted and cfg.eval_every and (not evals or evals[-1]["step"] != step):
            evals.append(self.evaluate(step, model.logger))
        onnx = None
        if not interrupted:
            onnx = self.export(self.run_dir / "policy.onnx")
        return TrainResult(self.run_dir, step, self.wall_time(), onnx, evals, interrupted)

    def export(self, path: Path) -> Path:
        """The policy as ONNX at ``path``, with its card (the last evaluation included)."""
        evals = read_evals(self.run_dir)
        last = evals[-1] if evals else None
        evaluation = ({"step": last["step"], "deals": last["deals"], "results": last["results"]}
                      if last else None)
        card = self.card(self.model.num_timesteps, evaluation)
        switch = None
        head_file = self.run_dir / "knock_head.pt"
        if head_file.is_file():  # train.knock_head: the learned knock decides after the policy
            from train.knock_head import STATS_FILE, KnockHead, KnockSwitch

            switch = KnockSwitch(KnockHead.load(head_file))
            card["knock_head"] = json.loads((self.run_dir / STATS_FILE).read_text())
        export_onnx(self.model.policy, path, card, switch)
        return Path(path)



def _raise_interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def _load_snapshot(path: Path) -> dict:
    from train.numpy_policy import NumpyPolicy

    return NumpyPolicy.load(path).to_dict()


def eval_line(record: dict) -> str:
    parts = []
    for opp, r in record["results"].items():
        ci = r["win_ci95"]
        parts.append(f"{opp.split('/')[-1]} {100 * r['win']:.0f}%"
                     + (f"±{100 * ci:.0f}" if ci is not None else ""))
    return f"[eval @ {record['step']:,} steps] win vs " + ", ".join(parts)


def train(cfg: TrainConfig, resume: bool = False, progress: bool = True,
          quiet: bool = False) -> TrainResult:
    return Trainer(cfg, resume=resume, progress=progress, quiet=quiet).run()
