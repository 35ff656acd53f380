"""Command line of one training run (CleanRL-style: every knob a flag, saved beside the run).

    python -m cardrl.train.run --game blind_auction --steps 2000000 --name ba-scratch
    python -m cardrl.train.run --game spades --preset killer --steps 300000 --seed 1 \\
        --opponents "self@0.6,snapshot@0.2,rules@0.2" --net 256,256 --n-games 64 \\
        --eval-every 50000 --name spades-killer-a --export checkpoints/spades-killer.onnx
    python -m cardrl.train.run --resume spades-killer-a --steps 600000     # continue a run
    tensorboard --logdir runs/spades-killer-a

The run itself is ``cardrl.train.ppo`` (read it top to bottom).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from cardrl.train.config import (
    PPO_KNOBS,
    TrainConfig,
    add_knob,
    add_ppo_arguments,
    add_run_arguments,
)
from cardrl.train.ppo import Trainer

_DEFAULTS = TrainConfig()
# what a resumed run may change (the trainer applies them to the loaded model)
TUNABLE = (*PPO_KNOBS, "critic_warmup", "critic_warmup_lr", "eval_every", "eval_deals",
           "episode")


def build_parser() -> argparse.ArgumentParser:
    d = _DEFAULTS
    p = argparse.ArgumentParser(prog="cardrl train", description=__doc__.splitlines()[0])
    add_run_arguments(p, d, "total learner steps of the run", tunable=TUNABLE)
    add_ppo_arguments(p, d, tunable=TUNABLE)
    p.add_argument("--opponents", default=d.opponents,
                   help="opponent mix: what@weight entries; what = a bot spec, self, snapshot "
                        "(the latest snapshots), average (any snapshot so far: fictitious "
                        "self-play) or rules (every rule bot of the game)")
    p.add_argument("--no-action-head", dest="action_head", action="store_false",
                   help="a plain MLP head: no direct path from per-action features to logits")
    p.add_argument("--n-games", type=int, default=d.n_games,
                   help="games played side by side, one learner seat each (one network call "
                        "per tick decides every game's network seats)")
    p.add_argument("--n-steps", type=int, default=d.n_steps,
                   help="rollout length per game (a rollout is n_games x n_steps steps)")
    p.add_argument("--lr-decay", action="store_true",
                   help="the learning rate falls linearly to 0 at the last step")
    add_knob(p, d, TUNABLE, "--critic-warmup", int, "critic_warmup", metavar="STEPS",
             text="train only the critic for the first STEPS steps (after --imitate)")
    add_knob(p, d, TUNABLE, "--critic-warmup-lr", float, "critic_warmup_lr")
    add_knob(p, d, TUNABLE, "--target-kl", float, "target_kl",
             text="stop an update's epochs early once the policy moved this far (KL)")
    p.add_argument("--imitate", default=d.imitate, metavar="BOT",
                   help="clone this rule bot into the policy before PPO (train.imitate)")
    p.add_argument("--imitate-samples", type=int, default=d.imitate_samples,
                   help="teacher decisions to clone")
    p.add_argument("--imitate-epochs", type=int, default=d.imitate_epochs)
    p.add_argument("--imitate-balance", type=float, default=d.imitate_balance,
                   help="weight each teacher move by its action's count^-B (0 = plain)")
    p.add_argument("--checkpoint-every", type=int, default=d.checkpoint_every)
    p.add_argument("--snapshot-every", type=int, default=d.snapshot_every)
    p.add_argument("--max-snapshots", type=int, default=d.max_snapshots,
                   help="the snapshot entry's pool: the latest this many")
    p.add_argument("--max-average", type=int, default=d.max_average,
                   help="the average entry's pool: a reservoir sample of every snapshot so far")
    p.add_argument("--magnet-coef", type=float, default=d.magnet_coef,
                   help="charge each learner move COEF * log(pi/magnet) (magnetic mirror "
                        "descent); 0 = off")
    p.add_argument("--magnet-every", type=int, default=d.magnet_every,
                   help="steps between replacing the magnet by the current policy")
    p.add_argument("--average-net", type=int, default=d.average_net,
                   help="fit one network to this many decisions of the snapshots' mix "
                        "(NFSP's average network): average.onnx, and its exploitability "
                        "beside the mix's; 0 = none")
    p.add_argument("--exploit-every", type=int, default=d.exploit_every,
                   help="steps between exact exploitability measures, where the game has "
                        "them (Blind Auction, 2 players, small decks); 0 = never")
    p.add_argument("--torch-threads", type=int, default=d.torch_threads,
                   help="0 = every core")
    p.add_argument("--resume", default=None, metavar="NAME",
                   help="continue runs/NAME from its checkpoint (--steps may change)")
    p.add_argument("--export", default=None, metavar="PATH.onnx",
                   help="also export the final policy here (with its .json card)")
    p.add_argument("--quiet", action="store_true", help="no progress bar or eval lines")
    return p


def config_from_args(args: argparse.Namespace) -> TrainConfig:
    if args.resume:
        cfg = TrainConfig.load_run(args.resume)
        if args.steps != _DEFAULTS.steps:
            cfg.steps = args.steps
        for key in TUNABLE:
            if getattr(args, key) is not None:
                setattr(cfg, key, getattr(args, key))
        return cfg
    return TrainConfig.from_args(args)


def extra_stage(plugin: ModuleType, name: str, settings: dict[str, Any],
                exports: Sequence[Path] = ()) -> Trainer:
    """A game's extra stage (its training plug-in, ``cardrl.train.plugins``) on the finished run
    ``runs/<name>``: the settings checked before any work, the stage, a checkpoint (the
    run's wall time then counts the stage), and the export, to the run's ``policy.onnx``
    and to each of ``exports``."""
    cfg = TrainConfig.load_run(name)
    plugin.check(cfg, **settings)
    trainer = Trainer(cfg, resume=True, progress=False, quiet=True)
    plugin.extra_stage(trainer.cfg, **settings)
    trainer.checkpoint(trainer.state.steps)
    for path in [trainer.run_dir / "policy.onnx", *exports]:
        trainer.export(path)
        print(f"exported {path}", file=sys.stderr)
    return trainer


def open_run(cfg: TrainConfig, resume: bool = False, quiet: bool = False) -> Trainer:
    """The run ``cfg``, new or resumed (a ``ValueError`` names a bad knob), announced."""
    trainer = Trainer(cfg, resume=resume, progress=not quiet and sys.stderr.isatty(),
                      quiet=quiet)
    print(f"run {trainer.run_dir}  (config: {trainer.run_dir / 'config.json'}; "
          f"tensorboard --logdir {trainer.run_dir})", file=sys.stderr)
    return trainer


def train_and_export(trainer: Trainer, export: str | Path | None = None) -> int:
    """Train the run to its steps, then export it to ``export`` too; the command's exit code
    (130: interrupted, the checkpoint saved)."""
    result = trainer.run()
    if result.interrupted:
        print(f"\ninterrupted at {result.steps:,} steps; checkpoint saved. Continue with: "
              f"python -m {trainer.cfg.COMMAND} --resume {trainer.cfg.name}", file=sys.stderr)
        return 130
    if export:
        trainer.export(export)
        print(f"exported {export} (+ .json card)")
    print(f"{result.steps:,} steps in {result.wall_time_s / 60:.1f} min; policy: {result.onnx}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        trainer = open_run(config_from_args(args), bool(args.resume), args.quiet)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return train_and_export(trainer, args.export)


if __name__ == "__main__":
    sys.exit(main())
