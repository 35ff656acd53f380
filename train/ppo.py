"""The training core, read top to bottom: config, batched env, opponents, policy, run, export.

    cfg = TrainConfig(game="blind_auction", steps=200_000)   # 1. every knob (train.config)
    result = Trainer(cfg).run()                               # 2-5, then 6: runs/<name>/

1. **Config**: a ``TrainConfig``, saved as ``runs/<name>/config.json``.
2. **Batched env**: ``cfg.n_games`` games in one process (``cardrl.envs.batched``), the
   learner's seat of each an env of one SB3 ``VecEnv`` (``cardrl.train.selfplay``).
3. **Opponents**: the other seats, drawn per episode from the mix (``self``,
   ``snapshot``, rule bots; ``cardrl.train.opponents``); each tick, every game whose
   seat to act belongs to one network is decided in one forward pass.
4. **Policy**: sb3-contrib's MaskablePPO with an MLP actor-critic (plus the
   per-action path where the observation has per-action blocks; ``cardrl.train.policy``).
5. **The PPO run**: ``MaskablePPO.learn`` with one callback that pushes the
   current policy to the ``self`` seats after each update, freezes snapshots,
   evaluates against the rule bots (duplicate matches, ``cardrl.train.evaluate``),
   checkpoints, and holds the actor during a critic warm-up; optionally it moves
   a magnet the learner is regularised toward and measures the exact exploitability
   where the game declares it (``cardrl.train.exploit``). ``--imitate``
   clones a rule bot first (``cardrl.train.imitate``), an option; self-play from scratch
   is the default. A game's training extras plug in by their place
   (``cardrl.train.plugins``, e.g. Gin Rummy's learned knock).
6. **Export**: ``runs/<name>/policy.onnx`` and its card (``cardrl.train.export``).

A run lives in ``runs/<name>/``: ``config.json``, ``checkpoint.zip`` (periodic
and on Ctrl-C or SIGTERM; ``--resume`` goes on from it), ``state.json``,
``snapshots/``, tensorboard (``tb_1/``), ``evals.jsonl`` and ``evals/``, and the
exported ``policy.onnx``.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.utils import ConstantSchedule
from stable_baselines3.common.vec_env import VecMonitor
from tqdm import tqdm

from cardrl.envs.batched import BatchedGames
from cardrl.envs.files import write_atomic
from cardrl.envs.games import get_game
from cardrl.train.average import collect_mix, fit_average
from cardrl.train.cardnet import CardActor, card_table
from cardrl.train.config import TrainConfig
from cardrl.train.evaluate import eval_scalars, evaluate_run
from cardrl.train.exploit import EXPLOIT, measure_exploitability
from cardrl.train.export import base_card, export_bot, run_card
from cardrl.train.imitate import collect, fit
from cardrl.train.masked import SingleCopyRolloutBuffer
from cardrl.train.nets import TORCH_ACTIVATIONS, game_action_features, set_threads
from cardrl.train.numpy_policy import NumpyPolicy
from cardrl.train.opponents import OpponentPool, Reservoir
from cardrl.train.policy import (
    ActionFeaturePolicy,
    CardPolicy,
    actor_graph,
    card_policy_kwargs,
    policy_weights,
)
from cardrl.train.runs import (
    AVERAGE_ONNX,
    RunState,
    TrainResult,
    eval_line,
    last_evaluation,
    read_evals,
    sigterm_as_interrupt,
    start_run,
)
from cardrl.train.selfplay import SelfPlayVecEnv

CHECKPOINT = "checkpoint.zip"
MAGNET = "magnet.npz"
TB_NAME = "tb"


# ------------------------------------------------------ 2, 3: batched env, opponents
def make_env(cfg: TrainConfig, seed: int) -> VecMonitor:
    """The learner seats of ``cfg.n_games`` batched games against the opponent mix."""
    games = cfg.games()
    pool = OpponentPool.parse(cfg.opponents, cfg.game, cfg.max_snapshots)
    return VecMonitor(SelfPlayVecEnv(games, pool, seed=seed))


def selfplay(env: VecMonitor) -> SelfPlayVecEnv:
    return env.venv


# ---------------------------------------------------------------------- 4: policy
def policy_spec(cfg: TrainConfig) -> tuple[type, dict]:
    """The policy class and its keywords: a new model's, and a resumed one's (which then
    unpickles no class by its module path, so checkpoints from before the ``cardrl``
    package, which name ``train.policy``, resume too)."""
    # Adam in one fused kernel: a quarter of the per-parameter loop's time on a CPU
    fused = {"optimizer_kwargs": {"fused": True}}
    if cfg.policy == "card":
        return CardPolicy, {**card_policy_kwargs(
            cfg.game, cfg.preset, cfg.rule_changes, cfg.observation, cfg.card_embed, cfg.net,
            cfg.activation), **fused}
    blocks = game_action_features(cfg.game, cfg.preset, cfg.rule_changes, cfg.observation) \
        if cfg.action_head else ()
    return ActionFeaturePolicy, {"net_arch": {"pi": list(cfg.net), "vf": list(cfg.net)},
                                 "activation_fn": TORCH_ACTIVATIONS[cfg.activation],
                                 "action_features": blocks, **fused}


def sb3_knobs(cfg: TrainConfig) -> dict[str, Any]:
    """MaskablePPO's own settings from the config: a new model's, and a resumed one's (the
    run's config.json is its truth: an edited learning rate holds from there on)."""
    return {"learning_rate": cfg.learning_rate, "n_steps": cfg.n_steps,
            "batch_size": cfg.batch_size, "n_epochs": cfg.n_epochs, "gamma": cfg.gamma,
            "gae_lambda": cfg.gae_lambda, "ent_coef": cfg.ent_coef,
            "clip_range": cfg.clip_range, "target_kl": cfg.target_kl,
            "rollout_buffer_class": SingleCopyRolloutBuffer}


def new_model(cfg: TrainConfig, env: VecMonitor) -> MaskablePPO:
    policy, kwargs = policy_spec(cfg)
    return MaskablePPO(policy, env, policy_kwargs=kwargs, tensorboard_log=str(cfg.run_dir),
                       seed=cfg.seed, device="cpu", verbose=0, **sb3_knobs(cfg))


def load_snapshot(cfg: TrainConfig, path: Path) -> NumpyPolicy | CardActor:
    """A frozen policy written by ``Trainer.snapshot`` (``.npz``: MLP, ``.pt``: card net)."""
    if path.suffix == ".pt":
        return CardActor.load(path, card_table(cfg.game, cfg.preset, cfg.rule_changes,
                                               cfg.observation))
    return NumpyPolicy.load(path)


# --------------------------------------------------------------------- 5: the run
class ThreadPhases(BaseCallback):
    """Torch's threads per phase of the loop: ``collect`` while a rollout is collected (small
    forward passes between the envs' numpy and numba work, which idle torch threads would
    spin through), ``update`` for PPO's epochs."""

    def __init__(self, update: int, collect: int = 1) -> None:
        super().__init__()
        self.update, self.collect = update, collect

    def _on_rollout_start(self) -> None:
        set_threads(self.collect)

    def _on_rollout_end(self) -> None:  # runs just before each PPO update
        set_threads(self.update)

    def _on_step(self) -> bool:
        return True


class TrainCallback(ThreadPhases):
    """The run's schedule around MaskablePPO: the current policy to the ``self`` seats
    before each rollout, snapshots, evaluations, checkpoints, the critic warm-up, and a
    progress bar."""

    def __init__(self, trainer: Trainer) -> None:
        super().__init__(trainer.cfg.threads())
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
        super()._on_rollout_start()

    def _on_rollout_end(self) -> None:  # runs just before each PPO update
        super()._on_rollout_end()
        if self.t.cfg.critic_warmup:
            self.t.freeze_actor(self.num_timesteps < self.t.cfg.critic_warmup)
        self.t.set_learning_rate(self.num_timesteps)

    def _on_step(self) -> bool:
        if self.bar is not None:
            self.bar.update(self.num_timesteps - self._last)
        self._last = self.num_timesteps
        return True

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()


class Trainer:
    """One run: builds or resumes it (``resume``), ``run()`` trains, ``export()`` writes."""

    CONFIG = TrainConfig
    CHECKPOINT = CHECKPOINT

    def __init__(self, cfg: TrainConfig, resume: bool = False, progress: bool = True,
                 quiet: bool = False) -> None:
        self.cfg = start_run(cfg, resume, CHECKPOINT)
        self.run_dir = self.cfg.run_dir
        self.progress, self.quiet = progress, quiet
        ckpt = self.run_dir / CHECKPOINT
        set_threads(self.cfg.threads())
        self.state = (RunState.load(self.run_dir) if resume else
                      RunState(next_snapshot=self.cfg.snapshot_every,
                               next_checkpoint=self.cfg.checkpoint_every))
        self.env = make_env(self.cfg, seed=self.cfg.seed * 1_000_003 + self.state.steps)
        if resume:
            # config.json is the run's truth: an edited learning rate etc. holds from here on
            policy, kwargs = policy_spec(self.cfg)
            self.model = MaskablePPO.load(ckpt, env=self.env, device="cpu", custom_objects={
                **sb3_knobs(self.cfg), "policy_class": policy, "policy_kwargs": kwargs})
            self.model.tensorboard_log = str(self.run_dir)
            for path in self.state.snapshots:
                selfplay(self.env).add_snapshot(load_snapshot(self.cfg, self.run_dir / path))
        else:
            self.model = new_model(self.cfg, self.env)
        self._resume_average_and_magnet()
        self._average_net: tuple[int, tuple[Any, dict]] | None = None  # average_network's
        self._start = time.monotonic()
        self._wall0 = self.state.wall_time_s
        if not resume and self.cfg.imitate:
            self.imitate()

    def imitate(self) -> None:
        """Clone the teacher into the fresh policy (``cardrl.train.imitate``), then checkpoint at
        step 0 so a crash during PPO does not repeat the clone."""
        cfg = self.cfg
        say = (lambda text: None) if self.quiet else (lambda text: tqdm.write(text, sys.stderr))
        t0 = time.monotonic()
        games = cfg.games()
        data = collect(games, cfg.imitate, cfg.imitate_samples, cfg.gamma, cfg.seed)
        say(f"[imitate] {len(data):,} decisions of {cfg.imitate} from {data.episodes:,} "
            f"episodes in {time.monotonic() - t0:.0f} s")
        log = []

        def record(stats: dict) -> None:
            log.append(stats)
            say("[imitate] epoch {epoch}: cross-entropy {cross_entropy:.4f}, value mse "
                "{value_mse:.4f}, held-out agreement {agreement:.3f}".format(**stats))

        fit(self.model.policy, data, cfg.imitate_epochs, seed=cfg.seed,
            balance=cfg.imitate_balance, log=record)
        write_atomic(self.run_dir / "imitate.json", json.dumps(
            {"teacher": cfg.imitate, "decisions": len(data), "episodes": data.episodes,
             "seconds": round(time.monotonic() - t0, 1), "epochs": log}, indent=2) + "\n")
        self.checkpoint(0)

    def _resume_average_and_magnet(self) -> None:
        """The ``average`` entry's reservoir and the magnet, read back from the run."""
        cfg, st = self.cfg, self.state
        self.average = Reservoir(cfg.max_average, seed=cfg.seed)
        self.average.items = list(st.average)
        self.average.seen = st.average_seen
        self._average_policies = [load_snapshot(cfg, self.run_dir / p) for p in st.average]
        selfplay(self.env).set_average(self._average_policies)
        magnet = self.run_dir / MAGNET
        if cfg.magnet_coef and magnet.is_file():
            selfplay(self.env).set_magnet(NumpyPolicy.load(magnet), cfg.magnet_coef)

    def _offer_average(self, rel: str, weights: NumpyPolicy) -> None:
        """A new snapshot, offered to the ``average`` entry's reservoir of every snapshot."""
        slot = self.average.offer(rel)
        if slot is not None:
            self._average_policies[slot:slot + 1] = [weights]
            selfplay(self.env).set_average(self._average_policies)
        self.state.average, self.state.average_seen = list(self.average.items), self.average.seen

    def set_magnet(self, step: int) -> None:
        """The current policy becomes the magnet (``SelfPlayVecEnv.set_magnet``)."""
        weights = policy_weights(self.model.policy)
        weights.save(self.run_dir / MAGNET)
        selfplay(self.env).set_magnet(weights, self.cfg.magnet_coef)

    def exploitability(self, step: int, logger=None) -> dict:
        """The exact exploitability of the current policy (sampled and greedy) and of the
        average of the snapshots so far, to ``exploitability.jsonl`` and tensorboard."""
        cfg = self.cfg
        t0 = time.monotonic()
        record = {"step": step, "wall_time_s": round(self.wall_time(), 1),
                  **measure_exploitability(cfg, policy_weights(self.model.policy),
                                           self._average_policies)}
        if cfg.average_net and self._average_policies:
            net, fitted = self.average_network(step)
            record["average_net"] = {**measure_exploitability(
                cfg, policy_weights(net), ())["current"], **fitted}
        record["seconds"] = round(time.monotonic() - t0, 1)
        with open(self.run_dir / EXPLOIT, "a") as f:
            f.write(json.dumps(record) + "\n")
        if logger is not None:
            for who in ("current", "greedy", "average", "average_net"):
                if "exploitability" in record.get(who, {}):
                    logger.record(f"exploit/{who}", record[who]["exploitability"])
            logger.dump(step)
        if not self.quiet:
            tqdm.write(f"[exploitability @ {step:,} steps] " + ", ".join(
                f"{who} {r['exploitability']:.3f}" for who, r in record.items()
                if isinstance(r, dict) and "exploitability" in r), file=sys.stderr)
        return record

    def average_network(self, step: int, others: Sequence[Path] = ()) -> tuple[Any, dict]:
        """One network fitted to the mix of the ``average`` reservoir's snapshots
        (``cardrl.train.average``), and how (decisions, games, held-out excess cross-entropy);
        fitted once per step (the last measure and the export share it).

        With ``others`` (runs of this config at other seeds) their reservoirs join the mix,
        each run giving ``average_net`` decisions as its own network would: which exploits
        self-play cycles through differs from seed to seed, and a network over every run's
        snapshots rests on none of them alone."""
        if not others and self._average_net is not None and self._average_net[0] == step:
            return self._average_net[1]
        cfg = self.cfg
        policies = list(self._average_policies)
        for folder in others:
            policies += [load_snapshot(cfg, folder / p) for p in RunState.load(folder).average]
        data = collect_mix(cfg.games(), policies, cfg.average_net * (1 + len(others)),
                           seed=cfg.seed * 1_000_003 + step)
        net, fitted = fit_average(self.model.policy, data, seed=cfg.seed + step)
        result = (net, {**fitted, "snapshots": len(policies)})
        if not others:
            self._average_net = (step, result)
        return result

    def _last_exploit(self) -> int | None:
        path = self.run_dir / EXPLOIT
        lines = path.read_text().splitlines() if path.is_file() else []
        return json.loads(lines[-1])["step"] if lines else None

    def wall_time(self) -> float:
        return self._wall0 + time.monotonic() - self._start

    def freeze_actor(self, frozen: bool) -> None:
        """Critic warm-up: while ``frozen`` only the critic learns, at ``critic_warmup_lr``.

        A critic fitted to a teacher's returns (``--imitate``) has not seen the clone's
        own play and can predict worse than a constant; PPO's advantages are then
        noise, and a cloned policy drifts down before the critic catches up.
        """
        params = [p for m in (self.model.policy.mlp_extractor.policy_net,
                              self.model.policy.action_net) for p in m.parameters()]
        if params[0].requires_grad != frozen:
            return
        for p in params:
            p.requires_grad_(not frozen)  # no gradient: Adam leaves the weight alone
        self._frozen = frozen

    def set_learning_rate(self, step: int) -> None:
        """The rate of the next update: the critic warm-up's, else the run's, falling
        linearly to 0 at the last step with ``lr_decay`` (self-play then settles instead
        of cycling between strategies that beat each other)."""
        cfg = self.cfg
        if getattr(self, "_frozen", False):
            lr = cfg.critic_warmup_lr
        else:
            lr = cfg.learning_rate * (max(0.0, 1.0 - step / cfg.steps) if cfg.lr_decay else 1.0)
        self.model.lr_schedule = ConstantSchedule(lr)

    def push_policy(self) -> None:
        selfplay(self.env).set_policy(policy_weights(self.model.policy))

    def periodic(self, step: int, logger) -> None:
        cfg, st = self.cfg, self.state
        if step >= st.next_snapshot and cfg.snapshot_every:
            self.snapshot(step)
            st.next_snapshot = step + cfg.snapshot_every
        if cfg.magnet_coef and step >= st.next_magnet:
            self.set_magnet(step)
            st.next_magnet = step + cfg.magnet_every
        if cfg.exploit_every and step >= st.next_exploit:
            self.exploitability(step, logger)
            st.next_exploit = step + cfg.exploit_every
        if cfg.eval_every and step >= st.next_eval:
            self.evaluate(step, logger)
            st.next_eval = step + cfg.eval_every
        if step >= st.next_checkpoint:
            self.checkpoint(step)
            st.next_checkpoint = step + cfg.checkpoint_every

    def snapshot(self, step: int) -> None:
        weights = policy_weights(self.model.policy)
        suffix = ".pt" if isinstance(weights, CardActor) else ".npz"
        rel = f"snapshots/step-{step:09d}{suffix}"
        (self.run_dir / "snapshots").mkdir(exist_ok=True)
        weights.save(self.run_dir / rel)
        self.state.snapshots = [*self.state.snapshots, rel][-self.cfg.max_snapshots:]
        selfplay(self.env).add_snapshot(weights)
        self._offer_average(rel, weights)

    def checkpoint(self, step: int) -> None:
        buf = io.BytesIO()
        self.model.save(buf)
        write_atomic(self.run_dir / CHECKPOINT, buf.getvalue())
        self.state.steps = step
        self.state.wall_time_s = self.wall_time()
        self.state.save(self.run_dir)

    def evaluate(self, step: int, logger=None) -> dict:
        path = self.run_dir / "evals" / f"step-{step:09d}.onnx"
        self.export(path, evaluation=None)
        record = evaluate_run(self.cfg, path, step, self.wall_time(), self.run_dir)
        if logger is not None:
            for tag, value in eval_scalars(record):
                logger.record(tag, value)
            logger.dump(step)
        if not self.quiet:
            tqdm.write(eval_line(record), file=sys.stderr)
        return record

    def run(self) -> TrainResult:
        cfg, model = self.cfg, self.model
        interrupted = False
        remaining = cfg.steps - model.num_timesteps
        try:
            with sigterm_as_interrupt():
                # even with nothing left to train: learn() sets up the logger the final eval uses
                model.learn(max(remaining, 0), callback=TrainCallback(self),
                            tb_log_name=TB_NAME, reset_num_timesteps=False)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            self.checkpoint(model.num_timesteps)
            with contextlib.suppress(EOFError, BrokenPipeError, ConnectionError):
                self.env.close()
        step = model.num_timesteps
        evals = read_evals(self.run_dir)
        if not interrupted and cfg.eval_every and (not evals or evals[-1]["step"] != step):
            evals.append(self.evaluate(step, model.logger))
        if not interrupted and cfg.exploit_every and self._last_exploit() != step:
            self.exploitability(step, model.logger)
        onnx = None if interrupted else self.export(self.run_dir / "policy.onnx")
        if not interrupted and cfg.average_net and self._average_policies:
            net, fitted = self.average_network(step)
            self.export(self.run_dir / AVERAGE_ONNX, net, {"average_of_snapshots": fitted})
        return TrainResult(self.run_dir, step, self.wall_time(), onnx, evals, interrupted)

    # ------------------------------------------------------------------ 6: export
    def export(self, path: Path | str, policy: Any = None, note: dict | None = None,
               evaluation: dict | None | bool = True) -> Path:
        """The policy (or ``policy``, e.g. the average network) as ONNX at ``path`` with its
        card (``cardrl.train.export.export_bot``): the run's last evaluation, which played
        the run's policy (``evaluation=True``; or the one given), and ``note``."""
        if evaluation is True:
            evaluation = last_evaluation(self.run_dir) if policy is None else None
        card = {**run_card(self.cfg, self.model.num_timesteps, self.wall_time(), evaluation),
                **(note or {})}
        policy = self.model.policy if policy is None else policy
        return export_bot(actor_graph(policy), int(policy.observation_space.shape[0]),
                          int(policy.action_space.n), path, card, self.run_dir)


# ------------------------------------------------------------------------- helpers
def export_untrained(game: str, path: str | Path, preset: str | None = None,
                     net: tuple[int, ...] = (16,), seed: int = 0,
                     observation: str = "infostate") -> Path:
    """A freshly initialised policy of ``game`` exported with its card: a quick way to check
    a game's export/load/serve path end to end (tests, new games) without training."""
    games = BatchedGames(game, 1, preset=preset, observation=observation)
    env = SelfPlayVecEnv(games, OpponentPool.parse("self", game))
    kwargs = {"net_arch": list(net), "action_features": game_action_features(
        game, games.rules.preset if preset is not None else None, None, observation)}
    model = MaskablePPO(ActionFeaturePolicy, env, policy_kwargs=kwargs, seed=seed,
                        device="cpu", n_steps=64, batch_size=64)
    card = {**base_card(game, preset or get_game(game).presets[0], None, observation),
            "training": {"steps": 0, "wall_time_s": 0.0}, "evaluation": {}}
    return export_bot(actor_graph(model.policy), games.obs_size, games.num_actions, path,
                      card, None)


def train(cfg: TrainConfig, resume: bool = False, progress: bool = True,
          quiet: bool = False) -> TrainResult:
    return Trainer(cfg, resume=resume, progress=progress, quiet=quiet).run()


__all__ = ["TrainConfig", "Trainer", "TrainResult", "train", "make_env", "new_model",
           "export_untrained"]
