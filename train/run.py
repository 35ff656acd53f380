"""Command line of one training run (CleanRL-style: every knob a flag, saved beside the run).

    python -m train.run --game blind_auction --steps 2000000 --name ba-scratch
    python -m train.run --game spades --preset killer --steps 300000 --seed 1 \\
        --opponents "self@0.6,snapshot@0.2,rules@0.2" --net 256,256 --n-games 64 \\
        --eval-every 50000 --name spades-killer-a --export checkpoints/spades-killer.onnx
    python -m train.run --resume spades-killer-a --steps 600000     # continue a run
    tensorboard --logdir runs/spades-killer-a

The run itself is ``train.ppo`` (read it top to bottom).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Sequence

from eval.config import parse_rule_changes, split_bot_list
from train.config import PPO_KNOBS, RUNS_DIR, TrainConfig, hidden_sizes
from train.ppo import Trainer

_DEFAULTS = TrainConfig()
# what a resumed run may change (the trainer applies them to the loaded model)
TUNABLE = (*PPO_KNOBS, "critic_warmup", "critic_warmup_lr", "eval_every", "eval_deals",
           "episode")


def build_parser() -> argparse.ArgumentParser:
    d = _DEFAULTS
    p = argparse.ArgumentParser(prog="python -m train.run", description=__doc__.splitlines()[0])
    p.add_argument("--game", default=d.game, help="a registered game")
    p.add_argument("--preset", default=None, help="rules preset (default: the game's first)")
    p.add_argument("--observation", default=d.observation, choices=["infostate", "features"],
                   help="what the network reads: the information state (default) or the "
                        "expert's features as well")
    p.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                   help="change a rules field of the preset (repeatable)")
    p.add_argument("--steps", type=int, default=d.steps, help="total learner steps of the run")
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--opponents", default=d.opponents,
                   help="opponent mix: what@weight entries; what = a bot spec, self, snapshot "
                        "(the latest snapshots), average (any snapshot so far: fictitious "
                        "self-play) or rules (every rule bot of the game)")
    p.add_argument("--net", type=hidden_sizes, default=d.net,
                   help="hidden layer sizes, e.g. 256,256")
    p.add_argument("--activation", default=d.activation, choices=["tanh", "relu"])
    p.add_argument("--no-action-head", dest="action_head", action="store_false",
                   help="a plain MLP head: no direct path from per-action features to logits")
    p.add_argument("--n-games", type=int, default=d.n_games,
                   help="games played side by side, one learner seat each (one network call "
                        "per tick decides every game's network seats)")
    p.add_argument("--n-steps", type=int, default=d.n_steps,
                   help="rollout length per game (a rollout is n_games x n_steps steps)")

    def tunable(flag: str, kind: type, field: str, text: str = "", **kw) -> None:
        """A knob that defaults to None: given with --resume it changes the run from there."""
        note = f"(default {getattr(d, field)}; with --resume: changes the run)"
        p.add_argument(flag, dest=field, type=kind, default=None, help=f"{text} {note}".strip(),
                       **kw)

    tunable("--batch-size", int, "batch_size")
    tunable("--n-epochs", int, "n_epochs")
    tunable("--lr", float, "learning_rate")
    p.add_argument("--lr-decay", action="store_true",
                   help="the learning rate falls linearly to 0 at the last step")
    tunable("--gamma", float, "gamma")
    tunable("--gae-lambda", float, "gae_lambda")
    tunable("--ent-coef", float, "ent_coef")
    tunable("--clip-range", float, "clip_range")
    tunable("--critic-warmup", int, "critic_warmup", metavar="STEPS",
            text="train only the critic for the first STEPS steps (after --imitate)")
    tunable("--critic-warmup-lr", float, "critic_warmup_lr")
    tunable("--target-kl", float, "target_kl",
            text="stop an update's epochs early once the policy moved this far (KL)")
    tunable("--episode", str, "episode", choices=["game", "hand"],
            text="what one episode is; a resumed run may switch (warm the critic again)")
    p.add_argument("--relative-score", action="store_true",
                   help="reward a seat's points minus the others' mean (what ranks pay)")
    p.add_argument("--imitate", default=d.imitate, metavar="BOT",
                   help="clone this rule bot into the policy before PPO (train.imitate)")
    p.add_argument("--imitate-samples", type=int, default=d.imitate_samples,
                   help="teacher decisions to clone")
    p.add_argument("--imitate-epochs", type=int, default=d.imitate_epochs)
    p.add_argument("--imitate-balance", type=float, default=d.imitate_balance,
                   help="weight each teacher move by its action's count^-B (0 = plain)")
    p.add_argument("--max-hands", type=int, default=d.max_hands,
                   help="safety cap on hands per training game; 0 = none")
    tunable("--eval-every", int, "eval_every",
            text="steps between duplicate matches against each rule bot; 0 = never")
    tunable("--eval-deals", int, "eval_deals")
    p.add_argument("--eval-bots", default="",
                   help="comma-separated rule bots to evaluate against (default: all)")
    p.add_argument("--eval-workers", type=int, default=d.eval_workers)
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
    p.add_argument("--exploit-every", type=int, default=d.exploit_every,
                   help="steps between exact exploitability measures, where the game has "
                        "them (Blind Auction, 2 players, small decks); 0 = never")
    p.add_argument("--win-reward", type=float, default=d.win_reward,
                   help="reward to the winner at the episode's end (0: points only)")
    p.add_argument("--torch-threads", type=int, default=d.torch_threads,
                   help="0 = every core")
    p.add_argument("--name", default="", help=f"run directory {RUNS_DIR}/<name>")
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
    fields = {f.name for f in dataclasses.fields(TrainConfig)}
    values = {k: v for k, v in vars(args).items() if k in fields and v is not None}
    values["rule_changes"] = parse_rule_changes(args.rule)
    values["max_hands"] = args.max_hands or None
    values["eval_bots"] = tuple(split_bot_list(args.eval_bots)) if args.eval_bots else ()
    return TrainConfig(**values)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        cfg = config_from_args(args)
        trainer = Trainer(cfg, resume=bool(args.resume), progress=not args.quiet and
                          sys.stderr.isatty(), quiet=args.quiet)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"run {trainer.run_dir}  (config: {trainer.run_dir / 'config.json'}; "
          f"tensorboard --logdir {trainer.run_dir})", file=sys.stderr)
    result = trainer.run()
    if result.interrupted:
        print(f"\ninterrupted at {result.steps:,} steps; checkpoint saved. Continue with: "
              f"python -m train.run --resume {trainer.cfg.name}", file=sys.stderr)
        return 130
    if args.export:
        trainer.export(args.export)
        print(f"exported {args.export} (+ .json card)")
    print(f"{result.steps:,} steps in {result.wall_time_s / 60:.1f} min; policy: {result.onnx}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
