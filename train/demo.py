"""The main job (make demo): train a Spades bot from scratch for a few minutes, export it,
and pit it against the shipped bot and the rule bots in a duplicate tournament.

    python -m train.demo                          # Spades killer, 1.2M steps of self-play
    python -m train.demo --game spades --preset cutthroat --steps 3000000

Prints the tournament table (95% intervals), where the tensorboard logs are,
and writes a learning-curve PNG (win rate against the best rule bots over
training steps) into the run directory. The shipped bot plays as its network
alone (``:worlds=0``; its card's search makes a decision about 150 times
slower), which the table says.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from agents.learned import BotLoadError, read_card
from envs.games import game_names, get_game
from eval.config import ConfigError, TournamentConfig
from eval.play import BotError
from eval.tournament import default_workers, run_tournament
from train.config import TrainConfig
from train.evaluate import onnx_spec
from train.opponents import strongest_bots
from train.plots import learning_curve
from train.ppo import Trainer

CHECKPOINTS = Path("checkpoints")
DEMO_STEPS = 1_200_000
DEMO_OPPONENTS = "self@0.6,snapshot@0.2,rules@0.2"


def shipped_bot(game: str, preset: str) -> str | None:
    """The committed bot of this game and preset, if there is one that loads here, as its
    network alone (no search)."""
    path = CHECKPOINTS / f"{game}-{preset}.onnx"
    if not path.is_file():
        return None
    try:
        read_card(path)
    except BotLoadError as err:
        print(f"note: not using the shipped bot: {err}", file=sys.stderr)
        return None
    return f"{onnx_spec(path)}:worlds=0"


def lineups(fresh: str, shipped: str | None, rules: list[str], seats: int) -> list[tuple]:
    """At a table of 3 or more, one lineup: the learned bots, then the strongest rule bots
    (the strongest repeated if seats are left). Two-player: one match per pairing, the fresh
    bot against the shipped one and each rule bot, the shipped bot against each rule bot."""
    rules = rules or ["random"]
    learned = [fresh] + ([shipped] if shipped else [])
    if seats > 2:
        lineup = (learned + rules)[:seats]
        return [tuple(lineup + [rules[0]] * (seats - len(lineup)))]
    pairs = [(fresh, opp) for opp in learned[1:] + rules]
    pairs += [(shipped, opp) for opp in rules] if shipped else []
    return [tuple([bot] + [opp] * (seats - 1)) for bot, opp in pairs]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m train.demo", description=__doc__.splitlines()[0])
    p.add_argument("--game", default="spades")
    p.add_argument("--preset", default=None, help="default: the game's first preset")
    p.add_argument("--steps", type=int, default=DEMO_STEPS,
                   help="learner steps of self-play from scratch")
    p.add_argument("--deals", type=int, default=50,
                   help="tournament deals, each played in every seat rotation")
    p.add_argument("--net", default="128,128", help="hidden layer sizes")
    p.add_argument("--eval-every", type=int, default=200_000,
                   help="steps between points of the learning curve")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=default_workers(),
                   help="tournament processes")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.game not in game_names():
        print(f"error: unknown game {args.game!r}; choose from {game_names()}", file=sys.stderr)
        return 2
    game = get_game(args.game)
    preset = args.preset or game.presets[0]
    rules = strongest_bots(args.game)
    try:
        net = tuple(int(x) for x in args.net.split(","))
        cfg = TrainConfig(game=args.game, preset=preset, steps=args.steps, seed=args.seed,
                          net=net, opponents=DEMO_OPPONENTS, episode="hand",
                          eval_every=args.eval_every, eval_deals=10,
                          eval_bots=tuple(rules[:2]), snapshot_every=100_000,
                          checkpoint_every=200_000,
                          name=f"demo-{args.game}-{preset}-{time.strftime('%Y%m%d-%H%M%S')}")
        cfg.validate()
        if args.deals < 1:
            raise ValueError(f"--deals must be at least 1, got {args.deals}")
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2

    progress = not args.quiet and sys.stderr.isatty()
    print(f"training a {args.game} {preset} bot from scratch: {args.steps:,} steps of "
          f"self-play ({cfg.n_games} games side by side, net {args.net}) ...", flush=True)
    trainer = Trainer(cfg, progress=progress, quiet=args.quiet)
    result = trainer.run()
    if result.interrupted:
        print(f"interrupted; continue with python -m train.run --resume {trainer.cfg.name}",
              file=sys.stderr)
        return 130
    print(f"trained {result.steps:,} steps in {result.wall_time_s / 60:.1f} min; "
          f"exported {result.onnx} (+ card {result.onnx.with_suffix('.json')})\n")

    fresh = onnx_spec(result.onnx)
    shipped = shipped_bot(args.game, preset)
    seats = game.num_players(game.get_rules(preset))
    for i, lineup in enumerate(lineups(fresh, shipped, rules, seats)):
        tcfg = TournamentConfig(game=args.game, bots=lineup, preset=preset, seed=args.seed)
        out = result.run_dir / "tournament" / f"match-{i}"
        try:
            run = run_tournament(tcfg, args.deals, out, workers=args.workers,
                                 progress=progress)
        except (ConfigError, BotError) as err:
            print(f"error: {err}", file=sys.stderr)
            return 1
        print(run.text)
    if shipped is None:
        print(f"(no shipped bot {CHECKPOINTS}/{args.game}-{preset}.onnx to compare with)\n")
    curve = learning_curve(result.evals, result.run_dir / "learning_curve.png",
                           title=f"{args.game} {preset}: fresh demo bot")
    print(f"learning curve: {curve}")
    print(f"tensorboard logs: {result.run_dir}  (tensorboard --logdir {result.run_dir})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
