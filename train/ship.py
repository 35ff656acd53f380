"""The shipped bots (``checkpoints/<game>-<preset>.onnx``): how each is trained and judged.

    python -m cardrl.train.ship --list
    python -m cardrl.train.ship spades-killer              # train (or resume), export, final match
    python -m cardrl.train.ship spades-killer --judge-only # the final match of the committed file

A recipe is data, in its game's file ``train/recipes/<game>.toml`` (found by the game's
name; ``bases.toml`` holds the starting points any game's recipe may name as ``base``):
the config of each stage of one run, as a table of knobs over the stage before (the
first's over its base), read by the trainer's own config (``from_dict``, then
``validate``), the settings of its game's plug-in stage if any
(``cardrl.train.plugins``), and its final match. Its summary is a template whose
numbers are read from its stages (``{stage1.steps:short}``), so no number is written
twice. ``ship`` calls the trainer on each stage still to do (resuming
``runs/ship-<name>`` if it exists), exports to ``checkpoints/``, then plays the
acceptance match: the bot against ``n - 1`` copies of each of the game's strongest rule
bots (``cardrl.agents.strongest``), a duplicate tournament of ``deals`` deals (every
seat rotation), and writes the results into the card under ``final_evaluation``. The
bar: the win rate's 95% interval above the no-edge line (1/n) against the best rule
bot. Step counts, never wall time, so a recipe makes the same bot on any machine.
Results: docs/results.md and each bot's card.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import re
import shutil
import string
import sys
import time
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from cardrl.agents.search import VERSION as SEARCH_VERSION
from cardrl.envs.games import game_names
from cardrl.train import plugins, runs, trainers
from cardrl.train.config import RUNS_DIR, RunConfig
from cardrl.train.evaluate import evaluate, onnx_spec, time_to_beat
from cardrl.train.export import update_card
from cardrl.train.opponents import POLICY_KINDS, check_bot, parse_mix, strongest_bots
from cardrl.train.plots import learning_curve
from cardrl.train.runs import AVERAGE_ONNX, RunState, read_evals

CHECKPOINTS = Path("checkpoints")
RECIPES_DIR = Path(__file__).with_name("recipes")
BASES = "bases"  # recipes/bases.toml: the starting points, not a game
NETWORKS = ("policy", "average")  # a recipe's bot: the run's last policy or average network


@dataclass(frozen=True)
class Recipe:
    """How one bot is made and judged."""

    summary: str  # one line of what the stages do, for --list and the card
    # one run: the first makes it, each later one resumes it; the config's class is the trainer's
    stages: tuple[RunConfig, ...]
    deals: int  # the final match: duplicate deals against each judge bot
    judge_bots: tuple[str, ...] = ()  # () = the game's strongest rule bots
    # at 3+ seats the judge also plays mixed tables: the bot, one judge bot, this bot elsewhere
    judge_fill: str = ""
    search: dict[str, Any] | None = None  # shipped inside agents.search.SearchBot with these
    extra: dict[str, Any] | None = None  # settings of the game's plug-in stage, after the last
    ships: bool = True  # False: the bot stays beside its run, out of checkpoints/
    sample: bool = False  # the bot draws each move from its softmax (a mixed strategy)
    # which of the run's networks is the bot: its last "policy", or its "average" network
    # (the mix of its snapshots as one network: the last stage's ``average_net``)
    network: str = "policy"
    # more runs of the same stages at these seeds; the average network is fitted to the
    # snapshots of every run (network "average" only): one seed's exploits do not decide it
    pool_seeds: tuple[int, ...] = ()

    @property
    def game(self) -> str:
        return self.stages[0].game

    @property
    def preset(self) -> str:
        return self.stages[0].preset


# ------------------------------------------------------------------- recipe files
# a recipe table's keys: the Recipe's fields, its stages' starting point and its trainer
RECIPE_KEYS = {f.name for f in dataclasses.fields(Recipe)} | {"base", "like", "trainer"}


class SummaryFormat(string.Formatter):
    """A summary template's numbers from its stages: ``{stage1.steps:short}`` is 3M or 250k,
    ``{stage2.learning_rate:short}`` 1e-4, ``{stage1.opponents:share=self}`` that entry's
    share of the mix (60%), ``{stage1.player_counts:span}`` 2-9; other specs are Python's
    (``{stage1.steps:,}``)."""

    def format_field(self, value: Any, spec: str) -> str:
        if spec == "short":
            return short(value)
        if spec == "span":  # table sizes: (2, 3, 4) -> 2-4, (2, 4) -> 2, 4
            sizes = sorted(value)
            if len(sizes) > 2 and sizes == list(range(sizes[0], sizes[-1] + 1)):
                return f"{sizes[0]}-{sizes[-1]}"
            return ", ".join(map(str, sizes))
        if spec.startswith("share="):
            weights = {what: float(w) for what, _, w in
                       (entry.rpartition("@") for entry in value.split(","))}
            return f"{weights.get(spec[6:], 0.0) / sum(weights.values()):.0%}"
        return super().format_field(value, spec)


def short(value: float) -> str:
    """3_000_000 -> 3M, 250_000 -> 250k, 0.0001 -> 1e-4."""
    if isinstance(value, float) and 0 < abs(value) < 1e-3:
        return re.sub(r"e(-?)0*(\d)", r"e\1\2", f"{value:.0e}")
    for size, unit in ((1e6, "M"), (1e3, "k")):
        if abs(value) >= size:
            return f"{value / size:.3g}{unit}"
    return f"{value:g}"


def _read(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as err:
        raise ValueError(f"{path}: {err}") from None


def _merged(like: dict[str, Any], table: dict[str, Any]) -> dict[str, Any]:
    """``table`` over the recipe it is ``like``: its keys replace, its stages change the
    other's stage by stage."""
    stages = [dict(s) for s in like.get("stages", [])]
    for i, over in enumerate(table.get("stages", [])):
        stages[i:i + 1] = [{**(stages[i] if i < len(stages) else {}), **over}]
    return {**like, **table, "stages": stages}


def _liked(tables: dict[str, Any], name: str, where: str) -> dict[str, Any]:
    """Recipe ``name``'s table over the chain of recipes it is ``like`` (each over the one it
    names in turn); a name missing from the file, or a chain that comes back, is an error."""
    chain, table = [name], tables[name]
    layers = [table]
    while "like" in table:
        other = table["like"]
        if not isinstance(other, str) or other not in tables:
            raise ValueError(f"{where}: like {other!r} is no other recipe of the file")
        if other in chain:
            raise ValueError(f"{where}: like goes round: {' -> '.join([*chain, other])}")
        chain.append(other)
        table = tables[other]
        layers.append(table)
    merged: dict[str, Any] = {}
    for layer in reversed(layers):
        merged = _merged(merged, {k: v for k, v in layer.items() if k != "like"})
    return merged


def parse_recipe(path: Path, name: str, tables: dict[str, Any],
                 bases: dict[str, Any]) -> Recipe:
    """The recipe ``name`` of the file ``path`` (its game's: ``path.stem``); a ``ValueError``
    names the file, the recipe and the key or value that is wrong."""
    where = f"{path} [{name}]"
    table = tables[name]
    unknown = sorted(set(table) - RECIPE_KEYS)
    if unknown:
        raise ValueError(f"{where}: unknown keys {unknown}; a recipe has {sorted(RECIPE_KEYS)}")
    table = _liked(tables, name, where)
    base = {}
    if "base" in table:
        if table["base"] not in bases:
            raise ValueError(f"{where}: base {table['base']!r} is not one of {sorted(bases)}")
        base = bases[table["base"]]
    try:
        config = trainers.config_class(table.get("trainer", trainers.DEFAULT))
    except ValueError as err:
        raise ValueError(f"{where}: {err}") from None
    overrides = table.get("stages")
    if not overrides or not isinstance(overrides, list):
        raise ValueError(f"{where}: a recipe needs stages ([[{name}.stages]] tables)")
    stages: list[RunConfig] = []
    knobs = {**base.get("stage", {}), "game": path.stem}
    for i, over in enumerate(overrides, 1):
        if "game" in over:
            raise ValueError(f"{where} stage {i}: the game is the file's ({path.stem})")
        knobs = {**knobs, **over}
        try:
            cfg = config.from_dict(knobs)
            cfg.validate()
        except (ValueError, TypeError, AttributeError) as err:
            raise ValueError(f"{where} stage {i}: {err}") from None
        stages.append(cfg)
    fields = {k: v for k, v in {**base, **table}.items()
              if k in RECIPE_KEYS - {"base", "like", "trainer", "stages", "summary"}}
    fields = {k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()}
    try:
        recipe = Recipe(summary="", stages=tuple(stages), **fields)
        _check(recipe)
        values = {f"stage{i}": s for i, s in enumerate(stages, 1)}
        values["extra"] = SimpleNamespace(**(recipe.extra or {}))
        summary = SummaryFormat().format(table.get("summary", ""), **values)
        if "summary" in base:
            summary = SummaryFormat().format(base["summary"], summary=summary, **values)
    except (ValueError, TypeError, KeyError, AttributeError, IndexError) as err:
        raise ValueError(f"{where}: {err!r}") from None
    return replace(recipe, summary=summary)


def _check(recipe: Recipe) -> None:
    """The recipe's own fields, each naming itself when wrong."""
    if not isinstance(recipe.deals, int) or isinstance(recipe.deals, bool) or recipe.deals < 1:
        raise ValueError(f"deals must be a positive int, got {recipe.deals!r}")
    for bot in recipe.judge_bots:
        check_bot(bot, recipe.game, role="judge bot")
    if not isinstance(recipe.judge_fill, str):
        raise ValueError(f"judge_fill must be a bot spec, got {recipe.judge_fill!r}")
    if recipe.judge_fill:
        check_bot(recipe.judge_fill, recipe.game, role="judge_fill bot")
    for key in ("ships", "sample"):
        if not isinstance(getattr(recipe, key), bool):
            raise ValueError(f"{key} must be true or false, got {getattr(recipe, key)!r}")
    if recipe.network not in NETWORKS:
        raise ValueError(f"network must be one of {NETWORKS}, got {recipe.network!r}")
    if recipe.network == "average" and not getattr(recipe.stages[-1], "average_net", 0):
        raise ValueError("network 'average' needs the last stage's average_net (decisions "
                         "of the mix to fit it to)")
    if recipe.network == "average" and recipe.extra is not None:
        raise ValueError("network 'average' takes no extra stage (the plug-in stage trains "
                         "and exports the last policy)")
    seeds = recipe.pool_seeds
    if not isinstance(seeds, tuple) or not all(
            isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in seeds):
        raise ValueError(f"pool_seeds must be a list of seeds (ints >= 0), got {seeds!r}")
    if seeds and recipe.network != "average":
        raise ValueError("pool_seeds pools the runs' snapshots into the average network: "
                         "it needs network 'average'")
    if len(set(seeds) | {recipe.stages[0].seed}) != len(seeds) + 1:
        raise ValueError(f"pool_seeds must differ from each other and from the stages' seed "
                         f"{recipe.stages[0].seed}, got {list(seeds)}")
    if recipe.search is not None and not isinstance(recipe.search, dict):
        raise ValueError(f"search must be a table, got {recipe.search!r}")
    if recipe.extra is not None:
        plugin = plugins.find(recipe.game)
        if plugin is None:
            raise ValueError(f"extra: {recipe.game} has no training plug-in")
        if not isinstance(recipe.extra, dict):
            raise ValueError(f"extra must be a table, got {recipe.extra!r}")
        plugin.check(recipe.stages[-1], **recipe.extra)


def load_recipes(path: Path, bases: dict[str, Any] | None = None) -> dict[str, Recipe]:
    """Every recipe of one game's file, in the file's order."""
    if path.stem not in game_names():
        raise ValueError(f"{path}: a recipe file is named after its game, one of "
                         f"{game_names()}")
    bases = _read(RECIPES_DIR / f"{BASES}.toml") if bases is None else bases
    tables = _read(path)
    return {name: parse_recipe(path, name, tables, bases) for name in tables}


def all_recipes() -> dict[str, Recipe]:
    """Every game's recipes (``recipes/<game>.toml``), the shipped bots' first."""
    bases = _read(RECIPES_DIR / f"{BASES}.toml")
    found: dict[str, Recipe] = {}
    for game in game_names():
        path = RECIPES_DIR / f"{game}.toml"
        if path.is_file():
            found.update(load_recipes(path, bases))
    return dict(sorted(found.items(), key=lambda item: not item[1].ships))


RECIPES: dict[str, Recipe] = all_recipes()


def run_dir(name: str, seed: int | None = None) -> Path:
    """The training run of a recipe: ``runs/ship-<name>``; of its pool seed ``seed``:
    ``runs/ship-<name>-s<seed>``."""
    return RUNS_DIR / (f"ship-{name}" if seed is None else f"ship-{name}-s{seed}")


def bot_path(name: str) -> Path:
    """Where a recipe's bot is written: ``checkpoints/`` if it ships, else its run."""
    if RECIPES[name].ships:
        return CHECKPOINTS / f"{name}.onnx"
    return run_dir(name) / f"{name}.onnx"


def stages_left(name: str, folder: Path, seed: int | None = None
                ) -> list[tuple[RunConfig, dict[str, Any] | None]]:
    """The stages a recipe still needs, as (config, what a resume changes; None: a new run),
    as the trainer's command line would be told: the run (new, or resumed up to its steps),
    then each later stage, resumed with its steps and the knobs it changes from the stage
    before; a finished run is resumed changing nothing, which exports it. ``seed``: the
    stages at one of the recipe's ``pool_seeds``."""
    again = {} if seed is None else {"seed": seed}
    stages = [replace(stage, name=folder.name, **again) for stage in RECIPES[name].stages]
    trainer = trainer_of(stages[0])
    done = RunState.load(folder).steps if (folder / trainer.CHECKPOINT).is_file() else None
    todo: list[tuple[RunConfig, dict[str, Any] | None]] = []
    for i, stage in enumerate(stages):
        if done is not None and done >= stage.steps:
            continue
        if i == 0:
            todo.append((stage, None if done is None else {"steps": stage.steps}))
        else:
            todo.append((stage, {"steps": stage.steps, **{
                k: getattr(stage, k) for k in stage.tunable()
                if getattr(stage, k) != getattr(stages[i - 1], k)}}))
    return todo or [(stages[-1], {})]


def resumed(saved: RunConfig, stage: RunConfig, changes: dict[str, Any]) -> RunConfig:
    """The run's saved config with a stage's ``changes`` (knobs a resume may change: a user's
    edit of ``config.json`` holds for the others, as with ``--resume``); a stage made with
    other knobs than the run is refused."""
    want = stage.resolved()
    kept = [f.name for f in dataclasses.fields(stage)
            if f.name not in stage.tunable() and getattr(saved, f.name) != getattr(want, f.name)]
    if kept:
        raise ValueError(f"run {saved.name!r} was made with other {kept} than this stage; a "
                         f"resumed run keeps them: train it afresh (move {saved.run_dir} away)")
    return replace(saved, **changes)


def trainer_of(cfg: RunConfig) -> type:
    """The trainer whose config ``cfg`` is."""
    return next(trainers.trainer(t) for t in trainers.TRAINERS
                if trainers.config_class(t) is type(cfg))


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
        table = f"{opp} and {n - 2}x {r['fill']}" if "fill" in r else f"{n - 1}x {opp}"
        print(f"{label} vs {table}: win {100 * r['win']:.1f}% ± {100 * hw:.1f} "
              f"({r['games']} games; no edge {100 * r['no_edge_win']:.0f}%): {verdict}; "
              f"average rank {r['rank']:.3f} ± {rank_hw:.3f} (no edge {(n + 1) / 2}): "
              f"{rank_verdict}; mean score {r['score']:.1f} ± {r['score_ci95'] or 0:.1f}")


def teachers(name: str) -> list[str]:
    """The rule bots a recipe's bot learned from: the bots it imitated and those in its
    training seats (the learner's own policies and a uniform random player teach
    nothing). Empty: learned without a teacher."""
    found: list[str] = []
    for stage in RECIPES[name].stages:
        imitated = [stage.imitate] if getattr(stage, "imitate", "") else []
        mix = getattr(stage, "opponents", "")  # (DMC: every seat the learner)
        seated = [e.what for e in parse_mix(mix, stage.game)] if mix else []
        for bot in imitated + seated:
            if bot not in (*POLICY_KINDS, "random", *found):
                found.append(bot)
    return found


def recipe_card(name: str) -> dict:
    """What the card says of how the bot was made: the recipe's name and summary, and the
    rule bots it learned from (``[]``: none, no teacher)."""
    return {"name": name, "summary": RECIPES[name].summary,
            "command": f"python -m cardrl.train.ship {name}", "teachers": teachers(name)}


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
    # a recipe on changed rules (a smaller deck) is judged on them
    rules = dict(recipe.stages[-1].rule_changes)
    results = evaluate(game, preset, onnx_spec(path), opponents, deals, out, workers=workers,
                       progress=progress, fresh=False, rule_changes=rules)
    fill = recipe.judge_fill
    seats = round(1 / next(iter(results.values()))["no_edge_win"])
    mixed = evaluate(game, preset, onnx_spec(path), [o for o in opponents if o != fill], deals,
                     out, workers=workers, progress=progress, fresh=False, fill=fill,
                     rule_changes=rules) if fill and seats >= 3 else {}
    final = {"deals": deals, "seconds": round(time.monotonic() - t0), "search": search,
             "results": results, **({"mixed_results": mixed} if mixed else {})}
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
    _report(path.name, mixed)
    if search:
        _report(f"{path.name}, the network alone", final["network_results"])
    print(f"training: {card['training']['steps']:,} steps, "
          f"{card['training']['wall_time_s'] / 60:.0f} min")
    return final


def curve(name: str) -> Path | None:
    """``<name>-curve.png`` beside the bot: the run's evaluations against every rule bot;
    None for a run that evaluates nothing while it trains (``eval_every`` 0: a recipe whose
    wall time is the measure), judged by its final match alone."""
    evals = read_evals(run_dir(name))
    if not evals:
        print(f"learning curve: none ({name} is evaluated only by its final match)")
        return None
    out = learning_curve(evals, bot_path(name).with_name(f"{name}-curve.png"),
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
    if recipe.pool_seeds:
        lines.append(f"  again at seeds {', '.join(map(str, recipe.pool_seeds))}; the bot is "
                     "one average network of every run's snapshots")
    if recipe.extra:
        lines.append(f"  then {recipe.game}'s plug-in stage (train.plugins): "
                     + " ".join(f"{k}={v}" for k, v in recipe.extra.items()))
    against = ", ".join(recipe.judge_bots) or "the strongest rule bots"
    lines.append(f"  final match: {recipe.deals} deals against {against}"
                 + (f", inside search {recipe.search}" if recipe.search else "")
                 + (f"; mixed tables filled with {recipe.judge_fill}" if recipe.judge_fill else ""))
    return lines


def train(name: str, path: Path) -> int:
    """Train what a recipe still needs, export its bot to ``path``, draw its curve."""
    recipe = RECIPES[name]
    for seed in (None, *recipe.pool_seeds):
        for cfg, changes in stages_left(name, run_dir(name, seed), seed):
            if changes is not None:
                cfg = resumed(type(cfg).load_run(cfg.name), cfg, changes)
            trainer = runs.open_run(trainer_of(cfg), cfg, resume=changes is not None)
            code = runs.train_and_export(trainer, path if recipe.network == "policy" else None)
            if code:
                return code
    if recipe.pool_seeds:
        runs.pooled_average(trainer_of(recipe.stages[-1]), run_dir(name).name,
                            [run_dir(name, seed) for seed in recipe.pool_seeds], path)
    elif recipe.network == "average":  # the run exported it beside its policy, with its card
        for suffix in (".onnx", ".json"):
            shutil.copyfile((run_dir(name) / AVERAGE_ONNX).with_suffix(suffix),
                            path.with_suffix(suffix))
        print(f"exported {path}: the run's average network (+ .json card)")
    if recipe.extra:
        runs.extra_stage(trainer_of(recipe.stages[-1]), plugins.find(recipe.game),
                         run_dir(name).name, recipe.extra, [path])
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
