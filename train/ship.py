"""The shipped bots (``checkpoints/<game>-<preset>.onnx``): how each is trained and judged.

    python -m cardrl.train.ship --list
    python -m cardrl.train.ship spades-killer              # train (or resume), export, final match
    python -m cardrl.train.ship spades-killer --judge-only # the final match of the committed file

A recipe is data: the config of each stage of one run (the first makes the run,
each later one resumes it with other knobs up to its steps), the settings of its
game's plug-in stage if any (``cardrl.train.plugins``), and its final match. ``ship``
calls the trainer on each stage still to do (resuming ``runs/ship-<name>`` if it
exists), exports to ``checkpoints/``, then plays the acceptance match: the bot
against ``n - 1`` copies of each of the game's strongest rule bots
(``cardrl.agents.strongest``), a duplicate tournament of ``deals`` deals (every seat
rotation), and writes the results into the card under ``final_evaluation``. The
bar: the win rate's 95% interval above the no-edge line (1/n) against the best rule
bot. Step counts, never wall time, so a recipe makes the same bot on any machine.
Results: docs/results.md and each bot's card.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from cardrl.agents.search import VERSION as SEARCH_VERSION
from cardrl.train import plugins, run
from cardrl.train.config import RUNS_DIR, TrainConfig
from cardrl.train.dmc import CHECKPOINT as DMC_CHECKPOINT
from cardrl.train.dmc import DMCConfig, DMCTrainer
from cardrl.train.evaluate import evaluate, onnx_spec, time_to_beat
from cardrl.train.export import update_card
from cardrl.train.opponents import strongest_bots
from cardrl.train.plots import learning_curve
from cardrl.train.ppo import CHECKPOINT, RunState, read_evals

CHECKPOINTS = Path("checkpoints")


@dataclass(frozen=True)
class Recipe:
    """How one bot is made and judged."""

    summary: str  # one line of what the stages do, for --list and the card
    # one run: the first makes it, each later one resumes it; a ``DMCConfig`` trains by DMC
    stages: tuple[TrainConfig, ...]
    deals: int  # the final match: duplicate deals against each judge bot
    judge_bots: tuple[str, ...] = ()  # () = the game's strongest rule bots
    search: dict[str, Any] | None = None  # shipped inside agents.search.SearchBot with these
    extra: dict[str, Any] | None = None  # settings of the game's plug-in stage, after the last
    ships: bool = True  # False: the bot stays beside its run, out of checkpoints/
    sample: bool = False  # the bot draws each move from its softmax (a mixed strategy)

    @property
    def game(self) -> str:
        return self.stages[0].game

    @property
    def preset(self) -> str:
        return self.stages[0].preset


# Fine-tuning a clone of a rule bot (imitate): long rollouts, small clipped steps that stop
# at a KL bound, no entropy bonus, after a critic warm-up (train.ppo.Trainer.freeze_actor)
GENTLE = TrainConfig(clip_range=0.1, target_kl=0.01, n_games=64, n_steps=64, batch_size=512,
                     ent_coef=0.0, net=(256, 256), seed=1, checkpoint_every=100_000,
                     snapshot_every=1_000_000, observation="features")
BLIND_AUCTION_BOTS = ("blind_auction/high-early", "blind_auction/save-high",
                      "blind_auction/match", "blind_auction/mirror", "random")


def gentle(**knobs: Any) -> TrainConfig:
    return replace(GENTLE, **knobs)


SEVENS_CLONE = gentle(game="sevens", preset="random", steps=158_720, relative_score=True,
                      imitate="sevens/lookahead", imitate_samples=300_000,
                      opponents="sevens/lookahead@1.0", critic_warmup=150_000,
                      learning_rate=5e-5, eval_every=200_000, eval_deals=250,
                      eval_bots=("sevens/lookahead",))
RECIPES: dict[str, Recipe] = {
    **{f"spades-{preset}": Recipe(
        summary="clone of spades/expert (250k decisions), critic warm-up 60k steps, then "
                f"PPO against the expert to {steps:,} steps; ships inside a search",
        stages=(gentle(game="spades", preset=preset, steps=steps, episode="hand",
                       imitate="spades/expert", imitate_samples=250_000, imitate_epochs=15,
                       opponents="spades/expert@1.0", critic_warmup=60_000, learning_rate=5e-5,
                       eval_every=150_000, eval_deals=8, eval_bots=("spades/expert",)),),
        deals=75, judge_bots=("spades/expert",), search={"worlds": 16, "top_k": 3})
        for preset, steps in (("killer", 827_392), ("cutthroat", 798_720))},
    # Gin Rummy: every step is inside the critic warm-up, so the actor is the clone: no PPO
    "gin_rummy-standard": Recipe(
        summary="clone of gin_rummy/expert (120k decisions, rare knocks weighted up), its "
                "critic fitted for 98,304 steps with the actor frozen (no PPO), then the "
                "learned knock (train.plugins.gin_rummy, 6,000 labelled games)",
        stages=(gentle(game="gin_rummy", preset="standard", steps=98_304, episode="hand",
                       imitate="gin_rummy/expert", imitate_samples=120_000, imitate_epochs=20,
                       imitate_balance=0.5, opponents="gin_rummy/expert@1.0",
                       critic_warmup=100_000, learning_rate=5e-5, eval_every=150_000,
                       eval_deals=100, eval_bots=("gin_rummy/expert",)),),
        deals=1000, extra={"games": 6000, "reshuffles": 12, "workers": 2}),
    "gin_rummy-seed": Recipe(
        summary="clone of gin_rummy/expert (100k decisions), its critic fitted for 98,304 "
                "steps with the actor frozen (no PPO)",
        stages=(gentle(game="gin_rummy", preset="seed", steps=98_304, episode="hand",
                       imitate="gin_rummy/expert", imitate_samples=100_000, imitate_epochs=20,
                       opponents="gin_rummy/expert@1.0", critic_warmup=100_000,
                       learning_rate=5e-5, eval_every=150_000, eval_deals=100,
                       eval_bots=("gin_rummy/expert",)),),
        deals=1000),
    "sevens-random": Recipe(
        summary="clone of sevens/lookahead (300k decisions), critic warm-up 150k steps, "
                "then PPO against the lookahead bot to 1,257,984 steps (lr 1e-4 after "
                "158,720)",
        stages=(SEVENS_CLONE, replace(SEVENS_CLONE, steps=1_257_984, learning_rate=1e-4)),
        deals=1000),
    # the rule bots are weak here: PPO from scratch against all of them, self and snapshots
    "blind_auction-2p": Recipe(
        summary="PPO from scratch, 600k steps, against every rule bot, itself and "
                "snapshots",
        stages=(TrainConfig(game="blind_auction", preset="2p", steps=600_064, seed=1,
                            net=(256, 256), opponents=",".join(
                                f"{b}@0.15" for b in BLIND_AUCTION_BOTS)
                            + ",self@0.15,snapshot@0.1", eval_every=100_000, eval_deals=50,
                            checkpoint_every=50_000, snapshot_every=100_000),),
        deals=1000, judge_bots=BLIND_AUCTION_BOTS),
}


# From scratch: self-play only (the current policy and a pool of its snapshots), no imitation
# and no rule bot in training; the rule bots appear only in evaluations. Exported into the
# run's directory: a scratch bot ships (replaces a recipe above) only when it beats that bot.
def scratch(summary: str, deals: int, judge_bots: tuple[str, ...] = (),
            then: tuple[dict[str, Any], ...] = (), **knobs: Any) -> Recipe:
    """A from-scratch recipe; ``then``: the knobs each later stage changes from the one
    before, each resuming the run."""
    stages = [TrainConfig(opponents="self@0.6,snapshot@0.4", snapshot_every=100_000,
                          max_snapshots=20, lr_decay=True, seed=1, **knobs)]
    for changes in then:
        stages.append(replace(stages[-1], **changes))
    return Recipe(summary=f"{summary} (current policy 60%, snapshots 40%)", deals=deals,
                  judge_bots=judge_bots, ships=False, stages=tuple(stages))


# DMC on Spades: one stage of 60M decisions evaluated every 5M, with the main job's rewards
# (train.demo, written out so that a change there does not move a measured recipe): points
# less the others' mean, half the bonus for leading after the hand, the rate falling to 0
SPADES_DMC = DMCConfig(game="spades", preset="killer", episode="hand", steps=60_000_000,
                       relative_score=True, win_reward=0.5, lr_decay=True,
                       eval_every=5_000_000, eval_deals=20)

RECIPES.update({
    "sevens-random-scratch": scratch(
        "self-play from scratch on the information state, 3M steps", 500, game="sevens",
        preset="random", steps=3_000_000, relative_score=True,
        eval_every=500_000, eval_deals=50),
    "gin_rummy-standard-scratch": scratch(
        "self-play from scratch on the features observation, 1M steps of hand episodes", 500,
        game="gin_rummy", preset="standard", steps=1_000_000, episode="hand",
        observation="features", eval_every=500_000, eval_deals=50),
    # the default observation (gin_rummy_v8: deadwood and look-ahead blocks): 1M steps, the
    # learning rate falling to 0, then resumed to 4M (the rate back at 3/4) and to 8M (at
    # 1/2); whole games paid the points less the other's (a knock undercut costs what it
    # pays) and the win
    "gin_rummy-standard-scratch-infostate": scratch(
        "self-play from scratch on the information state, 1M steps of whole games paid "
        "the points less the other's, then resumed to 4M and to 8M", 500, game="gin_rummy",
        preset="standard", steps=1_000_000, episode="game", relative_score=True,
        eval_every=250_000, eval_deals=50, eval_bots=("gin_rummy/expert", "gin_rummy/simple"),
        then=({"steps": 4_000_000, "eval_every": 500_000}, {"steps": 8_000_000})),
    "spades-killer-scratch": scratch(
        "self-play from scratch, 3M steps of hand episodes", 50, game="spades",
        preset="killer", steps=3_000_000, episode="hand", eval_every=1_000_000, eval_deals=20),
    # DouZero's method: one Q-network in every seat, Monte Carlo returns, no pool
    "spades-killer-dmc-scratch": Recipe(
        summary=f"Deep Monte Carlo from scratch, {SPADES_DMC.steps // 1_000_000}M decisions of "
                "hand episodes, every seat the current network", deals=100, ships=False,
        stages=(SPADES_DMC,)),
    # two players, zero sum: a pool of snapshots cycles; the magnet (magnetic mirror descent)
    # holds the policy near a slowly moving anchor, and the bot plays its mixed strategy;
    # the reward is the win alone, whose equilibrium wins half against anyone
    "blind_auction-2p-scratch": Recipe(
        summary="self-play from scratch, 2M steps against itself rewarded by the win alone, "
                "regularised toward a magnet (1.0, replaced every 100k steps); plays by "
                "drawing from its softmax",
        deals=500, judge_bots=BLIND_AUCTION_BOTS, ships=False, sample=True,
        stages=(TrainConfig(game="blind_auction", preset="2p", steps=2_000_000,
                            opponents="self@1.0", magnet_coef=1.0, magnet_every=100_000,
                            snapshot_every=100_000, max_snapshots=20, lr_decay=True, seed=1,
                            score_scale=0.0, eval_every=500_000, eval_deals=50,
                            eval_bots=BLIND_AUCTION_BOTS[:2]),)),
})


def run_dir(name: str) -> Path:
    """The training run of a recipe: ``runs/ship-<name>``."""
    return RUNS_DIR / f"ship-{name}"


def bot_path(name: str) -> Path:
    """Where a recipe's bot is written: ``checkpoints/`` if it ships, else its run."""
    if RECIPES[name].ships:
        return CHECKPOINTS / f"{name}.onnx"
    return run_dir(name) / f"{name}.onnx"


def stages_left(name: str, folder: Path) -> list[tuple[TrainConfig, dict[str, Any] | None]]:
    """The stages a recipe still needs, as (config, what a resume changes; None: a new run),
    as ``cardrl.train.run`` would be told: the run (new, or resumed up to its steps), then each
    later stage, resumed with its steps and the knobs it changes from the stage before; a
    finished run is resumed changing nothing, which exports it."""
    stages = [replace(stage, name=folder.name) for stage in RECIPES[name].stages]
    ckpt = DMC_CHECKPOINT if isinstance(stages[0], DMCConfig) else CHECKPOINT
    done = RunState.load(folder).steps if (folder / ckpt).is_file() else None
    todo: list[tuple[TrainConfig, dict[str, Any] | None]] = []
    for i, stage in enumerate(stages):
        if done is not None and done >= stage.steps:
            continue
        if i == 0:
            todo.append((stage, None if done is None else {"steps": stage.steps}))
        else:
            todo.append((stage, {"steps": stage.steps, **{
                k: getattr(stage, k) for k in run.TUNABLE
                if getattr(stage, k) != getattr(stages[i - 1], k)}}))
    return todo or [(stages[-1], {})]


def resumed(saved: TrainConfig, stage: TrainConfig, changes: dict[str, Any]) -> TrainConfig:
    """The run's saved config with a stage's ``changes`` (knobs a resume may change: a user's
    edit of ``config.json`` holds for the others, as with ``cardrl.train.run --resume``); a stage
    made with other knobs than the run is refused."""
    want = stage.resolved()
    kept = [f.name for f in dataclasses.fields(TrainConfig)
            if f.name not in ("steps", *run.TUNABLE)
            and getattr(saved, f.name) != getattr(want, f.name)]
    if kept:
        raise ValueError(f"run {saved.name!r} was made with other {kept} than this stage; a "
                         f"resumed run keeps them: train it afresh (move {saved.run_dir} away)")
    return replace(saved, **changes)


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
    return {"name": name, "summary": RECIPES[name].summary,
            "command": f"python -m cardrl.train.ship {name}"}


def judge(name: str, path: Path, deals: int, workers: int, progress: bool) -> dict:
    """The acceptance match of a shipped file against the rule bots; stored in its card.

    A recipe with ``search`` ships the network inside ``cardrl.agents.search.SearchBot``
    (the card's ``search`` entry, which ``cardrl.agents.load`` follows); the network alone
    then plays the best rule bot on the same deals too, for comparison. The games
    are logged under a name made from the network's bytes and the search settings,
    so an interrupted match resumes, and a retrained bot starts afresh.
    """
    recipe = RECIPES[name]
    game, preset, search = recipe.game, recipe.preset, recipe.search
    update_card(path, search=search, recipe=recipe_card(name),
                **({"sample": True} if recipe.sample else {}))
    t0 = time.monotonic()
    opponents = list(recipe.judge_bots) or strongest_bots(game)
    out = run_dir(name) / f"final-{_fingerprint(path, search)}"
    results = evaluate(game, preset, onnx_spec(path), opponents, deals, out, workers=workers,
                       progress=progress, fresh=False)
    final = {"deals": deals, "seconds": round(time.monotonic() - t0), "search": search,
             "results": results}
    evals = read_evals(run_dir(name))
    if evals:  # (a committed bot judged without its run has no curve to read)
        final["time_to_beat"] = {opp: time_to_beat(evals, opp) for opp in opponents}
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


def describe(name: str) -> list[str]:
    """A recipe's lines in ``--list``: its summary, then each stage's knobs that differ from
    the stage before (the first: from the defaults), the plug-in stage, the final match."""
    recipe = RECIPES[name]
    lines = [f"{name}: {recipe.summary}"]
    before = type(recipe.stages[0])()
    for i, stage in enumerate(recipe.stages, 1):
        knobs = {k: v for k, v in stage.to_dict().items()
                 if v != before.to_dict()[k] or (i == 1 and k in ("game", "preset"))}
        lines.append(f"  stage {i}: " + " ".join(f"{k}={v}" for k, v in knobs.items()))
        before = stage
    if recipe.extra:
        lines.append(f"  then {recipe.game}'s plug-in stage (train.plugins): "
                     + " ".join(f"{k}={v}" for k, v in recipe.extra.items()))
    against = ", ".join(recipe.judge_bots) or "the strongest rule bots"
    lines.append(f"  final match: {recipe.deals} deals against {against}"
                 + (f", inside search {recipe.search}" if recipe.search else ""))
    return lines


def train(name: str, path: Path) -> int:
    """Train what a recipe still needs, export its bot to ``path``, draw its curve."""
    recipe = RECIPES[name]
    for cfg, changes in stages_left(name, run_dir(name)):
        if changes is not None:
            cfg = resumed(type(cfg).load_run(cfg.name), cfg, changes)
        resume = changes is not None
        trainer = DMCTrainer(cfg, resume=resume, progress=sys.stderr.isatty()) \
            if isinstance(cfg, DMCConfig) else run.open_run(cfg, resume=resume)
        code = run.train_and_export(trainer, path)
        if code:
            return code
    if recipe.extra:
        run.extra_stage(plugins.find(recipe.game), run_dir(name).name, recipe.extra, [path])
    curve(name)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="cardrl ship", description=__doc__.splitlines()[0])
    p.add_argument("name", nargs="?", help="a recipe, e.g. spades-killer")
    p.add_argument("--list", action="store_true", help="list the recipes")
    p.add_argument("--judge-only", action="store_true",
                   help="only play the final match of the existing checkpoint")
    p.add_argument("--deals", type=int, default=None, help="final match deals (recipe's)")
    p.add_argument("--workers", type=int, default=2)
    args = p.parse_args(argv)
    if args.list or not args.name:
        for name in RECIPES:
            print("\n".join(describe(name)))
        return 0
    if args.name not in RECIPES:
        print(f"error: unknown recipe {args.name!r}; choose from {sorted(RECIPES)}",
              file=sys.stderr)
        return 2
    path = bot_path(args.name)
    if not args.judge_only:
        try:
            code = train(args.name, path)
        except ValueError as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
        if code:
            return code
    judge(args.name, path, args.deals or RECIPES[args.name].deals, args.workers,
          sys.stderr.isatty())
    return 0


if __name__ == "__main__":
    sys.exit(main())
