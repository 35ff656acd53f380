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
import hashlib
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from agents.search import VERSION as SEARCH_VERSION
from train import knock_head, run
from train.evaluate import evaluate, onnx_spec
from train.export import update_card
from train.opponents import strongest_bots
from train.plots import learning_curve
from train.ppo import read_evals

CHECKPOINTS = Path("checkpoints")
# Fine-tuning a clone of a rule bot (--imitate): long rollouts, small clipped steps that stop
# at a KL bound, no entropy bonus, after a critic warm-up (train.ppo.Trainer.freeze_actor)
GENTLE = ["--clip-range", "0.1", "--target-kl", "0.01", "--n-games", "64", "--n-steps", "64",
          "--batch-size", "512", "--ent-coef", "0", "--net", "256,256", "--seed", "1",
          "--checkpoint-every", "100000", "--snapshot-every", "1000000",
          "--observation", "features"]
BLIND_AUCTION_BOTS = ["blind_auction/high-early", "blind_auction/save-high",
                      "blind_auction/match", "blind_auction/mirror", "random"]
# Each recipe: the game, the final match's deals (and opponents, "judge_bots", default the
# game's strongest rule bots), a one-line "summary" of what the stages do, the train.run
# arguments of its first stage ("args") and of later stages ("stages", resumes), and for
# Gin Rummy the train.knock_head arguments ("knock"). Step counts, never wall time, so a
# recipe makes the same bot on any machine. Results: docs/results.md and each bot's card.
RECIPES: dict[str, dict] = {
    **{f"spades-{preset}": {
        "game": "spades", "preset": preset, "deals": 75, "search": {"worlds": 16, "top_k": 3},
        "judge_bots": ["spades/expert"],
        "summary": "clone of spades/expert (250k decisions), critic warm-up 60k steps, then "
                   f"PPO against the expert to {steps:,} steps; ships inside a search",
        "args": ["--steps", str(steps), "--episode", "hand", "--imitate", "spades/expert",
                 "--imitate-samples", "250000", "--imitate-epochs", "15",
                 "--opponents", "spades/expert@1.0", "--critic-warmup", "60000",
                 "--lr", "5e-5", "--eval-every", "150000", "--eval-deals", "8",
                 "--eval-bots", "spades/expert", *GENTLE]}
        for preset, steps in (("killer", 827_392), ("cutthroat", 798_720))},
    # Gin Rummy: every step is inside the critic warm-up, so the actor is the clone: no PPO
    "gin_rummy-standard": {
        "game": "gin_rummy", "preset": "standard", "deals": 1000,
        "summary": "clone of gin_rummy/expert (120k decisions, rare knocks weighted up), its "
                   "critic fitted for 98,304 steps with the actor frozen (no PPO), then the "
                   "learned knock (train.knock_head, 6,000 labelled games)",
        "args": ["--steps", "98304", "--episode", "hand", "--imitate", "gin_rummy/expert",
                 "--imitate-samples", "120000", "--imitate-epochs", "20",
                 "--imitate-balance", "0.5", "--opponents", "gin_rummy/expert@1.0",
                 "--critic-warmup", "100000", "--lr", "5e-5", "--eval-every", "150000",
                 "--eval-deals", "100", "--eval-bots", "gin_rummy/expert", *GENTLE],
        "knock": ["--games", "6000", "--reshuffles", "12", "--workers", "2"]},
    "gin_rummy-seed": {
        "game": "gin_rummy", "preset": "seed", "deals": 1000,
        "summary": "clone of gin_rummy/expert (100k decisions), its critic fitted for 98,304 "
                   "steps with the actor frozen (no PPO)",
        "args": ["--steps", "98304", "--episode", "hand", "--imitate", "gin_rummy/expert",
                 "--imitate-samples", "100000", "--imitate-epochs", "20",
                 "--opponents", "gin_rummy/expert@1.0", "--critic-warmup", "100000",
                 "--lr", "5e-5", "--eval-every", "150000", "--eval-deals", "100",
                 "--eval-bots", "gin_rummy/expert", *GENTLE]},
    "sevens-random": {
        "game": "sevens", "preset": "random", "deals": 1000,
        "summary": "clone of sevens/lookahead (300k decisions), critic warm-up 150k steps, "
                   "then PPO against the lookahead bot to 1,257,984 steps (lr 1e-4 after "
                   "158,720)",
        "args": ["--steps", "158720", "--relative-score", "--imitate", "sevens/lookahead",
                 "--imitate-samples", "300000", "--opponents", "sevens/lookahead@1.0",
                 "--critic-warmup", "150000", "--lr", "5e-5", "--eval-every", "200000",
                 "--eval-deals", "250", "--eval-bots", "sevens/lookahead", *GENTLE],
        "stages": [["--steps", "1257984", "--lr", "1e-4"]]},
    # the rule bots are weak here: PPO from scratch against all of them, self and snapshots
    "blind_auction-2p": {
        "game": "blind_auction", "preset": "2p", "deals": 1000,
        "judge_bots": BLIND_AUCTION_BOTS,
        "summary": "PPO from scratch, 600k steps, against every rule bot, itself and "
                   "snapshots",
        "args": ["--steps", "600064", "--seed", "1", "--net", "256,256",
                 "--opponents", ",".join(f"{b}@0.15" for b in BLIND_AUCTION_BOTS)
                 + ",self@0.15,snapshot@0.1", "--eval-every", "100000",
                 "--eval-deals", "50", "--checkpoint-every", "50000",
                 "--snapshot-every", "100000"]},
}
# From scratch: self-play only (the current policy and a pool of its snapshots), no imitation
# and no rule bot in training; the rule bots appear only in evaluations. Exported into the
# run's directory: a scratch bot ships (replaces a recipe above) only when it beats that bot.
SCRATCH = ["--opponents", "self@0.6,snapshot@0.4", "--snapshot-every", "100000",
           "--max-snapshots", "20", "--lr-decay", "--seed", "1"]
RECIPES.update({
    "sevens-random-scratch": {
        "game": "sevens", "preset": "random", "deals": 500, "ships": False,
        "summary": "self-play from scratch on the features observation, 3M steps (current "
                   "policy 60%, snapshots 40%)",
        "args": ["--steps", "3000000", "--relative-score", "--observation", "features",
                 "--eval-every", "500000", "--eval-deals", "50", *SCRATCH]},
    "gin_rummy-standard-scratch": {
        "game": "gin_rummy", "preset": "standard", "deals": 500, "ships": False,
        "summary": "self-play from scratch on the features observation, 1M steps of hand "
                   "episodes (current policy 60%, snapshots 40%)",
        "args": ["--steps", "1000000", "--episode", "hand", "--observation", "features",
                 "--eval-every", "500000", "--eval-deals", "50", *SCRATCH]},
    "spades-killer-scratch": {
        "game": "spades", "preset": "killer", "deals": 50, "ships": False,
        "summary": "self-play from scratch, 3M steps of hand episodes (current policy 60%, "
                   "snapshots 40%)",
        "args": ["--steps", "3000000", "--episode", "hand", "--eval-every", "1000000",
                 "--eval-deals", "20", *SCRATCH]},
    "blind_auction-2p-scratch": {
        "game": "blind_auction", "preset": "2p", "deals": 500, "ships": False,
        "judge_bots": BLIND_AUCTION_BOTS,
        "summary": "self-play from scratch, 1M steps (current policy 60%, snapshots 40%)",
        "args": ["--steps", "1000000", "--eval-every", "250000", "--eval-deals", "50",
                 "--eval-bots", ",".join(BLIND_AUCTION_BOTS[:2]), *SCRATCH]},
})


def run_dir(name: str) -> Path:
    """The training run of a recipe: ``runs/ship-<name>``."""
    return run.RUNS_DIR / f"ship-{name}"


def bot_path(name: str) -> Path:
    """Where a recipe's bot is written: ``checkpoints/`` if it ships, else its run."""
    if RECIPES[name].get("ships", True):
        return CHECKPOINTS / f"{name}.onnx"
    return run_dir(name) / f"{name}.onnx"


def _flag(argv: Sequence[str], flag: str) -> str | None:
    return argv[argv.index(flag) + 1] if flag in argv else None


def stage_commands(name: str, run_dir: Path) -> list[list[str]]:
    """The ``train.run`` command lines a recipe still needs: its run (new, or resumed up to
    its ``--steps``), then each later stage, a resume that changes some knobs; a finished
    run is resumed with nothing to train, which exports it."""
    recipe = RECIPES[name]
    state = run_dir / "state.json"
    done = json.loads(state.read_text())["steps"] if (run_dir / "checkpoint.zip").is_file() \
        else None
    commands = []
    for i, stage in enumerate([recipe["args"], *recipe.get("stages", [])]):
        target = _flag(stage, "--steps")
        if done is not None and target is not None and done >= int(target):
            continue
        if i == 0 and done is None:
            commands.append(["--game", recipe["game"], "--preset", recipe["preset"],
                             "--name", run_dir.name, *stage])
        elif i == 0:  # the first stage, interrupted: only its length matters now
            commands.append(["--resume", run_dir.name, "--steps", target])
        else:
            commands.append(["--resume", run_dir.name, *stage])
    return commands or [["--resume", run_dir.name]]  # all done: resume only to export


def _fingerprint(path: Path, search: dict | None) -> str:
    """What the judged bot is: its network's bytes, its search settings and version."""
    digest = hashlib.sha256(path.read_bytes())
    digest.update(json.dumps([search, search and SEARCH_VERSION], sort_keys=True).encode())
    return digest.hexdigest()[:10]


def _report(label: str, results: dict) -> None:
    for opp, r in results.items():
        n = round(1 / r["no_edge_win"])
        hw = r["win_ci95"] or 0.0
        verdict = "beats" if r["win"] - hw > r["no_edge_win"] else "does not clear"
        rank_hw = r["rank_ci95"] or 0.0
        rank_verdict = "better" if r["rank"] + rank_hw < (n + 1) / 2 else "not better"
        print(f"{label} vs {n - 1}x {opp}: win {100 * r['win']:.1f}% ± {100 * hw:.1f} "
              f"({r['games']} games; no edge {100 * r['no_edge_win']:.0f}%): {verdict}; "
              f"average rank {r['rank']:.3f} ± {rank_hw:.3f} (no edge {(n + 1) / 2}): "
              f"{rank_verdict}; mean score {r['score']:.1f} ± {r['score_ci95'] or 0:.1f}")


def recipe_card(name: str) -> dict:
    """What the card says of how the bot was made: the recipe's name and summary."""
    return {"name": name, "summary": RECIPES[name]["summary"],
            "command": f"python -m train.ship {name}"}


def judge(name: str, path: Path, deals: int, workers: int, progress: bool) -> dict:
    """The acceptance match of a shipped file against the rule bots; stored in its card.

    A recipe with ``search`` ships the network inside ``agents.search.SearchBot``
    (the card's ``search`` entry, which ``agents.load`` follows); the network alone
    then plays the best rule bot on the same deals too, for comparison. The games
    are logged under a name made from the network's bytes and the search settings,
    so an interrupted match resumes, and a retrained bot starts afresh.
    """
    recipe = RECIPES[name]
    game, preset = recipe["game"], recipe["preset"]
    search = recipe.get("search")
    update_card(path, search=search, recipe=recipe_card(name))
    t0 = time.monotonic()
    opponents = recipe.get("judge_bots") or strongest_bots(game)
    out = run_dir(name) / f"final-{_fingerprint(path, search)}"
    results = evaluate(game, preset, onnx_spec(path), opponents, deals, out, workers=workers,
                       progress=progress, fresh=False)
    final = {"deals": deals, "seconds": round(time.monotonic() - t0), "search": search,
             "results": results}
    if search:
        final["search_version"] = SEARCH_VERSION
        final["network_results"] = evaluate(game, preset, f"{onnx_spec(path)}:worlds=0",
                                            opponents[:1], deals, out / "network",
                                            workers=workers, progress=progress, fresh=False)
    card = update_card(path, final_evaluation=final)
    _report(f"{path.name}" + (f" (search {search})" if search else ""), results)
    if search:
        _report(f"{path.name}, the network alone", final["network_results"])
    print(f"training: {card['training']['steps']:,} steps, "
          f"{card['training']['wall_time_s'] / 60:.0f} min")
    return final


def curve(name: str) -> Path:
    """``<name>-curve.png`` beside the bot: the run's evaluations against every rule bot."""
    out = learning_curve(read_evals(run_dir(name)),
                         bot_path(name).with_name(f"{name}-curve.png"),
                         title=f"{name} (train.ship)")
    print(f"learning curve: {out}")
    return out


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
            if "knock" in r:
                print(f"{'':20} python -m train.knock_head ship-{name} " + " ".join(r["knock"]))
        return 0
    if args.name not in RECIPES:
        print(f"error: unknown recipe {args.name!r}; choose from {sorted(RECIPES)}",
              file=sys.stderr)
        return 2
    recipe = RECIPES[args.name]
    path = bot_path(args.name)
    if not args.judge_only:
        run_name = run_dir(args.name).name
        for argv_run in stage_commands(args.name, run_dir(args.name)):
            code = run.main([*argv_run, "--export", str(path)])
            if code:
                return code
        if "knock" in recipe:
            code = knock_head.main([run_name, *recipe["knock"], "--export", str(path)])
            if code:
                return code
        curve(args.name)
    progress = sys.stderr.isatty()
    judge(args.name, path, args.deals or recipe["deals"], args.workers, progress)
    return 0


if __name__ == "__main__":
    sys.exit(main())
