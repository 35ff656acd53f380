"""A Monte Carlo tournament of the Spades rule bots (``python -m cardrl.eval.demo``).

Requirement A1.4 of the killer requirements: play the rule-based strategies
against each other over many deals and report how they do. For each preset
(killer, then cutthroat) two duplicate tournaments are played: the four rule
bots against each other, and the two strongest against two random players
(the floor every bot must clear). ``--deals`` trades time for narrower
intervals. (The project's main job, ``make demo``, is ``cardrl.train.demo``.)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from cardrl.eval.config import ConfigError, TournamentConfig
from cardrl.eval.play import BotError
from cardrl.eval.tournament import RUNS_DIR, default_workers, run_tournament

PRESETS = ("killer", "cutthroat")
LINEUPS = {
    "rule-bots": ("spades/expert", "spades/count-bid", "spades/modified-count",
                  "spades/spade-count"),
    "vs-random": ("spades/expert", "spades/count-bid", "random", "random"),
}
DEFAULT_DEALS = 200


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m cardrl.eval.demo",
                                description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=DEFAULT_DEALS,
                   help="deals per tournament (each played in all 4 seat rotations)")
    p.add_argument("--seed", type=int, default=0, help="tournament seed")
    p.add_argument("--workers", type=int, default=default_workers(),
                   help="processes playing games (default: min(2, cpu count))")
    p.add_argument("--max-hands", type=int, default=100,
                   help="safety cap on hands per game; 0 = no cap")
    p.add_argument("--out", default=None,
                   help="directory holding one subdirectory per tournament (default: a new "
                        f"{RUNS_DIR}/demo-<time> per run, so no earlier result is overwritten; "
                        "the --out of an interrupted run resumes it)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.deals < 1:
        print(f"error: --deals must be at least 1, got {args.deals}", file=sys.stderr)
        return 2
    progress = not args.quiet and sys.stderr.isatty()
    configs = [(preset, label, TournamentConfig(game="spades", bots=bots, preset=preset,
                                                max_hands=args.max_hands or None, seed=args.seed))
               for preset in PRESETS for label, bots in LINEUPS.items()]
    try:
        for _, _, cfg in configs:  # check every lineup before playing anything
            cfg.validate()
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2

    start = time.perf_counter()
    out_root = Path(args.out or RUNS_DIR / time.strftime("demo-%Y%m%d-%H%M%S"))
    for preset, label, cfg in configs:
        out = out_root / f"{preset}-{label}"
        t0 = time.perf_counter()
        try:
            run = run_tournament(cfg, args.deals, out, workers=args.workers, progress=progress,
                                 quiet=args.quiet)
        except BotError as err:
            print(f"error: {err}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            print(f"\ninterrupted; finished games are in {out}; continue with "
                  f"--out {out_root}", file=sys.stderr)
            return 130
        print(f"=== {preset}: {label} ({time.perf_counter() - t0:.0f} s, "
              f"{run.played} games played, {run.loaded} read back) ===")
        print(run.text)
        print(f"logs: {run.out / 'games'}/  summary: {run.out / 'summary.txt'}\n")
    print(f"demo finished in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
