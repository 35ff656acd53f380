"""The shipped bots (``checkpoints/<game>-<preset>.onnx``): how each is trained and judged.

    python -m train.ship --list
    python -m train.ship spades-killer              # train (or resume), export, final match
    python -m train.ship spades-killer --judge-only # the final match of the committed file

Each recipe is a ``train.run`` command line; ``ship`` runs it (resuming
``runs/ship-<name>`` if it exists), exports to ``checkpoints/``, then plays the
acceptance match: the bot against ``n - 1`` copies of each of the game's
strongest rule bots (``agents.strongest``), a
duplicate tournament of ``deals`` deals (every seat rotation), and writes the
results into the card under ``evaluation.final``. The bar: the win rate's 95%
interval above the no-edge line (1/n) against the best rule bot.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from train.evaluate import evaluate, onnx_spec

CHECKPOINTS = Path("checkpoints")
GENERIC = ["--opponents", "self@0.4,snapshot@0.2,rules@0.4", "--net", "256,256",
           "--eval-every", "100000", "--checkpoint-every", "50000", "--snapshot-every",
           "100000"]
RECIPES: dict[str, dict] = {
    # what made checkpoints/spades-killer.onnx (2 env processes, nice 19, 55 min wall)
    "spades-killer": {"game": "spades", "preset": "killer", "deals": 75, "args": [
        "--steps", "5000000", "--minutes", "55", "--seed", "1", "--n-envs", "2",
        "--net", "256,256",
        "--opponents", "spades/expert@0.4,spades/count-bid@0.2,self@0.3,snapshot@0.1",
        "--eval-every", "100000", "--eval-deals", "8",
        "--eval-bots", "spades/expert,spades/count-bid",
        "--checkpoint-every", "50000", "--snapshot-every", "100000"]},
    "spades-cutthroat": {"game": "spades", "preset": "cutthroat", "deals": 75, "args": [
        "--steps", "5000000", "--seed", "1", "--n-envs", "2", "--net", "256,256",
        "--opponents", "spades/expert@0.4,spades/count-bid@0.2,self@0.3,snapshot@0.1",
        "--eval-every", "100000", "--eval-bots", "spades/expert,spades/count-bid",
        "--checkpoint-every", "50000", "--snapshot-every", "100000"]},
    "gin_rummy-standard": {"game": "gin_rummy", "preset": "standard", "deals": 1000,
                           "args": ["--steps", "5000000", "--n-envs", "2", *GENERIC]},
    "gin_rummy-seed": {"game": "gin_rummy", "preset": "seed", "deals": 1000,
                       "args": ["--steps", "5000000", "--n-envs", "2", *GENERIC]},
    "sevens-classic": {"game": "sevens", "preset": "classic", "deals": 1000,
                       "args": ["--steps", "5000000", "--n-envs", "2", *GENERIC]},
    "blind_auction-2p": {"game": "blind_auction", "preset": "2p", "deals": 1000,
                         "args": ["--steps", "5000000", "--n-envs", "2", *GENERIC]},
}


def judge(name: str, path: Path, deals: int, workers: int, progress: bool) -> dict:
    """The acceptance match of a shipped file against every rule bot; stored in its card."""
    from train.export import update_card
    from train.opponents import strongest_bots

    recipe = RECIPES[name]
    game, preset = recipe["game"], recipe["preset"]
    t0 = time.monotonic()
    results = evaluate(game, preset, onnx_spec(path), strongest_bots(game), deals,
                       Path("runs") / f"ship-{name}" / "final", workers=workers,
                       progress=progress)
    final = {"deals": deals, "seconds": round(time.monotonic() - t0), "results": results}
    card = update_card(path, final_evaluation=final)
    for opp, r in results.items():
        hw = r["win_ci95"] or 0.0
        verdict = "beats" if r["win"] - hw > r["no_edge_win"] else "does not clear"
        print(f"{path.name} vs 3x {opp}: win {100 * r['win']:.1f}% ± {100 * hw:.1f} "
              f"({r['games']} games; no edge {100 * r['no_edge_win']:.0f}%): {verdict}; "
              f"mean score {r['score']:.1f} ± {r['score_ci95'] or 0:.1f}")
    print(f"training: {card['training']['steps']:,} steps, "
          f"{card['training']['wall_time_s'] / 60:.0f} min")
    return final


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m train.ship", description=__doc__.splitlines()[0])
    p.add_argument("name", nargs="?", help="a recipe, e.g. spades-killer")
    p.add_argument("--list", action="store_true", help="list the recipes")
    p.add_argument("--judge-only", action="store_true",
                   help="only play the final match of the existing checkpoint")
    p.add_argument("--deals", type=int, default=None, help="final match deals (recipe's)")
    p.add_argument("--workers", type=int, default=2)
    args = p.parse_args(argv)
    if args.list or not args.name:
        for name, r in RECIPES.items():
            print(f"{name:20} python -m train.run --game {r['game']} --preset {r['preset']} "
                  + " ".join(r["args"]))
        return 0
    if args.name not in RECIPES:
        print(f"error: unknown recipe {args.name!r}; choose from {sorted(RECIPES)}",
              file=sys.stderr)
        return 2
    recipe = RECIPES[args.name]
    path = CHECKPOINTS / f"{args.name}.onnx"
    if not args.judge_only:
        from train import run

        run_name = f"ship-{args.name}"
        if (run.RUNS_DIR / run_name / "checkpoint.zip").is_file():
            argv_run = ["--resume", run_name, *recipe["args"][:2]]
        else:
            argv_run = ["--game", recipe["game"], "--preset", recipe["preset"], "--name",
                        run_name, *recipe["args"]]
        code = run.main([*argv_run, "--export", str(path)])
        if code:
            return code
    progress = sys.stderr.isatty()
    judge(args.name, path, args.deals or recipe["deals"], args.workers, progress)
    return 0


if __name__ == "__main__":
    sys.exit(main())
