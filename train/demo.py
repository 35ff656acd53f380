"""The main job (make demo): train a Spades bot from scratch for a few minutes, export it,
and pit it against the shipped bot and the rule bots in a duplicate tournament.

    python -m cardrl.train.demo                          # Spades killer, 12M decisions of DMC
    python -m cardrl.train.demo --algo ppo               # 1.2M learner steps of PPO self-play
    python -m cardrl.train.demo --game spades --preset cutthroat --steps 3000000

It trains with Deep Monte Carlo (``cardrl.train.dmc``): on the same minutes it learned more
than PPO (docs/results.md, "The main job"). One run of 12M decisions, 1,024 games side by
side on every core, learned more than two runs of 5M (64 games each, a core each) with the
better kept by a selection match; ``--candidates N`` still trains N side by side and keeps
the one that ranks better on deals of their own, not the tournament's.

Prints the tournament table (95% intervals), where the tensorboard logs are,
and writes a learning-curve PNG (win rate against the best rule bots over
training steps) into the run directory. The shipped bot plays as its network
alone (``:worlds=0``; its card's search makes a decision about 150 times
slower), which the table says.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

from cardrl.agents.learned import SHIPPED, BotLoadError, read_card, resolve, shipped_bots
from cardrl.envs.games import game_names, get_game
from cardrl.eval.config import ConfigError, TournamentConfig
from cardrl.eval.play import BotError
from cardrl.eval.tournament import default_workers, run_tournament
from cardrl.train.config import TrainConfig
from cardrl.train.dmc import DMCConfig, DMCTrainer
from cardrl.train.evaluate import evaluate, onnx_spec
from cardrl.train.opponents import strongest_bots
from cardrl.train.plots import learning_curve
from cardrl.train.ppo import Trainer, TrainResult

# per trainer: steps (DMC's are decisions of every seat, PPO's the learner's), network,
# steps between points of the learning curve, and candidates trained side by side (each
# uses every core); about four minutes each on two cores
DEMO = {"dmc": (12_000_000, (256, 256), 3_000_000, 1),
        "ppo": (1_200_000, (128, 128), 200_000, 1)}
SELECT_SEED = 1_000_003  # added to --seed: the selection match's deals are not the tournament's
DEMO_OPPONENTS = "self@0.6,snapshot@0.2,rules@0.2"  # PPO's
# DMC's: points less the others' mean (setting another's bid then pays), the rate falling
# to 0 so that the last Q averages over more deals, and half the usual bonus for leading
# after the hand: at 1 (a hundred points) a nil that self-play fails to set outbids a weak
# hand's safe bid; lambda-returns (0.9), which lean on the network's own later values where
# the others' hidden cards make a hand's return noisy (docs/results.md, "The main job");
# 1,024 games side by side, as the 200M recipe plays: a batch of 64 leaves the cores idle;
# twice DMC's default rate, as twelve million decisions are few (docs/results.md)
DEMO_DMC = {"relative_score": True, "lr_decay": True, "win_reward": 0.5, "td_lambda": 0.9,
            "n_games": 1024, "learning_rate": 6e-4}


def shipped_bot(game: str, preset: str) -> str | None:
    """The committed bot of this game and preset, if there is one that loads here, as its
    network alone (no search)."""
    spec = f"{SHIPPED}{game}-{preset}"
    if spec not in shipped_bots(game):
        return None
    try:
        read_card(resolve(spec))
    except BotLoadError as err:
        print(f"note: not using the shipped bot: {err}", file=sys.stderr)
        return None
    return f"{spec}:worlds=0"


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


class _Prefixed:
    """A candidate's stderr, each line marked with its seed (two runs print at once)."""

    def __init__(self, stream, prefix: str) -> None:
        self.stream, self.prefix, self.fresh = stream, prefix, True

    def write(self, text: str) -> int:
        for part in text.splitlines(keepends=True):
            self.stream.write((self.prefix if self.fresh else "") + part)
            self.fresh = part.endswith("\n")
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def __getattr__(self, name: str):  # isatty, fileno, encoding: the stream's
        return getattr(self.stream, name)


def _train(algo: str, cfg: TrainConfig, progress: bool, quiet: bool) -> TrainResult:
    return (DMCTrainer if algo == "dmc" else Trainer)(cfg, progress=progress,
                                                      quiet=quiet).run()


def _train_candidate(algo: str, cfg: TrainConfig, quiet: bool) -> TrainResult:
    sys.stderr = _Prefixed(sys.stderr, f"[seed {cfg.seed}] ")
    return _train(algo, cfg, False, quiet)


def train_candidates(algo: str, cfgs: list[TrainConfig], progress: bool,
                     quiet: bool) -> list[TrainResult]:
    """Train each config, side by side in processes of their own when there are several.
    Ctrl-C or SIGTERM stops every run the way it stops one: each checkpoints and says so
    (SIGTERM to this process alone is passed on, so that no run goes on orphaned)."""
    if len(cfgs) == 1:
        return [_train(algo, cfgs[0], progress, quiet)]
    with ProcessPoolExecutor(len(cfgs), mp_context=multiprocessing.get_context("spawn")) \
            as pool:
        futures = [pool.submit(_train_candidate, algo, cfg, quiet) for cfg in cfgs]

        def pass_on(signum, frame) -> None:
            for worker in list((getattr(pool, "_processes", None) or {}).values()):
                worker.terminate()  # a run takes SIGTERM as Ctrl-C: it checkpoints
            raise KeyboardInterrupt

        main = threading.current_thread() is threading.main_thread()
        old_term = signal.signal(signal.SIGTERM, pass_on) if main else None
        try:
            while True:
                try:
                    return [f.result() for f in futures]
                except KeyboardInterrupt:  # the runs heard it too: wait for their checkpoints
                    continue
        finally:
            if main:
                signal.signal(signal.SIGTERM, old_term)


def select(results: list[TrainResult], cfg: TrainConfig, deals: int, seed: int,
           workers: int) -> int:
    """The index of the candidate with the best (lowest) average rank against the
    evaluation bots, on ``deals`` deals of ``seed`` (played, and printed, for each)."""
    ranks = []
    for r in results:
        ev = evaluate(cfg.game, cfg.preset, onnx_spec(r.onnx), list(cfg.eval_bots), deals,
                      r.run_dir / "selection", rule_changes=cfg.rule_changes, seed=seed,
                      workers=workers)
        ranks.append(sum(e["rank"] for e in ev.values()) / len(ev))
        against = ", ".join(f"{opp} {e['rank']:.2f}" for opp, e in ev.items())
        print(f"selection, {deals} deals: {r.run_dir.name} average rank {ranks[-1]:.2f} "
              f"({against})")
    kept = min(range(len(ranks)), key=ranks.__getitem__)
    print(f"kept {results[kept].run_dir.name}")
    return kept


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="cardrl demo",
                                description=" ".join(__doc__.split("\n\n")[0].split()))
    p.add_argument("--game", default="spades")
    p.add_argument("--preset", default=None, help="default: the game's first preset")
    p.add_argument("--algo", choices=sorted(DEMO), default="dmc",
                   help="the trainer: Deep Monte Carlo (train.dmc) or MaskablePPO (train.ppo)")
    p.add_argument("--steps", type=int, default=None,
                   help="steps of self-play from scratch (default: "
                   + ", ".join(f"{algo} {d[0]:,}" for algo, d in DEMO.items()) + ")")
    p.add_argument("--deals", type=int, default=50,
                   help="tournament deals, each played in every seat rotation")
    p.add_argument("--net", default=None, help="hidden layer sizes (default: dmc 256,256, "
                   "ppo 128,128)")
    p.add_argument("--eval-every", type=int, default=None,
                   help="steps between points of the learning curve (default: "
                   + ", ".join(f"{algo} {d[2]:,}" for algo, d in DEMO.items()) + ")")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--candidates", type=int, default=None,
                   help="runs trained side by side on seeds S, S+1, ..., the better kept by a "
                   "selection match (default: 1)")
    p.add_argument("--deals-select", type=int, default=10,
                   help="deals of the selection match against each evaluation bot")
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
        steps, net, eval_every, candidates = DEMO[args.algo]
        candidates = candidates if args.candidates is None else args.candidates
        if candidates < 1:
            raise ValueError(f"--candidates must be at least 1, got {candidates}")
        net = tuple(int(x) for x in args.net.split(",")) if args.net else net
        name = f"demo-{args.game}-{preset}-{time.strftime('%Y%m%d-%H%M%S')}"
        threads = max(1, (os.cpu_count() or 1) // candidates) if candidates > 1 else 0
        cfgs = []
        for i in range(candidates):
            common = dict(game=args.game, preset=preset, seed=args.seed + i, net=net,
                          episode="hand", steps=steps if args.steps is None else args.steps,
                          eval_every=eval_every if args.eval_every is None else args.eval_every,
                          eval_deals=10, eval_bots=tuple(rules[:2]), torch_threads=threads,
                          name=name if candidates == 1 else f"{name}-seed{args.seed + i}")
            if args.algo == "dmc":
                cfg = DMCConfig(checkpoint_every=1_000_000, **DEMO_DMC, **common)
            else:
                cfg = TrainConfig(opponents=DEMO_OPPONENTS, snapshot_every=100_000,
                                  checkpoint_every=200_000, **common)
            cfg.validate()
            cfgs.append(cfg)
        if args.deals < 1:
            raise ValueError(f"--deals must be at least 1, got {args.deals}")
        if args.deals_select < 1:
            raise ValueError(f"--deals-select must be at least 1, got {args.deals_select}")
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2

    progress = not args.quiet and sys.stderr.isatty()
    cfg = cfgs[0]
    seeds = ", ".join(str(c.seed) for c in cfgs)
    side = f"{candidates} candidates side by side (seeds {seeds}), " if candidates > 1 else ""
    print(f"training a {args.game} {preset} bot from scratch: {side}{cfg.steps:,} steps of "
          f"self-play by {args.algo} ({cfg.n_games} games side by side, net "
          f"{','.join(map(str, cfg.net))}) ...", flush=True)
    results = train_candidates(args.algo, cfgs, progress, args.quiet)
    if any(r.interrupted for r in results):
        for c, r in zip(cfgs, results, strict=True):
            if r.interrupted:
                print(f"interrupted; continue with python -m {c.COMMAND} --resume {c.name}",
                      file=sys.stderr)
        return 130
    for c, r in zip(cfgs, results, strict=True):
        print(f"{c.name}: trained {r.steps:,} steps in {r.wall_time_s / 60:.1f} min; exported "
              f"{r.onnx} (+ card {r.onnx.with_suffix('.json')})")
    if candidates > 1:
        kept = select(results, cfg, args.deals_select, args.seed + SELECT_SEED, args.workers)
        result = results[kept]
    else:
        result = results[0]
    print()

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
        print(f"(no shipped bot cardrl/{args.game}-{preset} to compare with)\n")
    curve = learning_curve(result.evals, result.run_dir / "learning_curve.png",
                           title=f"{args.game} {preset}: fresh demo bot")
    print(f"learning curve: {curve}")
    for r in results:
        print(f"tensorboard logs: {r.run_dir}  (tensorboard --logdir {r.run_dir})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
