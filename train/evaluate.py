"""Small duplicate matches of an exported bot against each rule bot, as training runs them.

The learner sits with ``n - 1`` copies of one rule bot; every deal is played
in every seat rotation (``cardrl.eval.tournament``), so the learner's win rate has a
no-edge line at ``1 / n`` (25% in 4-player Spades) and a duplicate-honest 95%
interval. The game's own metrics (``cardrl.train.metrics``) are read from the logs.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cardrl.envs.games import get_game
from cardrl.eval import logs
from cardrl.eval.config import TournamentConfig
from cardrl.eval.tournament import run_tournament
from cardrl.train.metrics import hand_counts, rates


def onnx_spec(path: str | Path) -> str:
    """The registry spec of an exported bot (what a tournament lineup takes): its path."""
    return str(path)


def match(game: str, preset: str, bot: str, opponent: str, deals: int, out: Path,
          rule_changes: dict | None = None, seed: int = 0, workers: int = 1,
          max_hands: int | None = 100, progress: bool = False, fresh: bool = True,
          fill: str | None = None) -> dict:
    """``bot`` against ``n - 1`` copies of ``opponent``; the bot's row plus game metrics.

    With ``fill`` the table is mixed: ``bot``, one ``opponent`` and ``fill`` in the other
    seats. Beside copies of itself a deterministic bot can tie every deal (each copy
    bids alike), which says nothing of the bot; a mixed table does.

    ``fresh=False`` resumes the games already logged in ``out`` (name ``out`` after
    what the bot is, as ``cardrl.train.ship`` does, so that another bot never reuses them).
    """
    g = get_game(game)
    n = g.num_players(g.get_rules(preset, **dict(rule_changes or {})))
    fill = fill if n >= 3 else None  # at two seats there is no other seat to fill
    others = (opponent,) + (fill,) * (n - 2) if fill else (opponent,) * (n - 1)
    cfg = TournamentConfig(game=game, preset=preset, bots=(bot,) + others,
                           rule_changes=dict(rule_changes or {}), max_hands=max_hands, seed=seed)
    run = run_tournament(cfg, deals, out, workers=workers, fresh=fresh, progress=progress)
    row = next(b for b in run.summary["bots"] if b["bot"] == bot)
    game_logs = [json.loads(p.read_text()) for p in sorted((out / logs.GAMES_DIR).glob("*.json"))]
    return {
        "opponent": opponent, **({"fill": fill} if fill else {}),
        "deals": deals, "games": run.summary["games"],
        "no_edge_win": 1 / n,
        "win": row["win"]["mean"], "win_ci95": row["win"]["ci95"],
        "score": row["score"]["mean"], "score_ci95": row["score"]["ci95"],
        "rank": row["rank"]["mean"], "rank_ci95": row["rank"]["ci95"],
        **rates(game, hand_counts(game, game_logs, bot)),
    }


def evaluate(game: str, preset: str, bot: str, opponents: list[str], deals: int, out: Path,
             **kwargs) -> dict[str, dict]:
    """``match`` against each opponent, keyed by opponent spec."""
    tag = f"+{kwargs['fill']}" if kwargs.get("fill") else ""
    return {opp: match(game, preset, bot, opp, deals, Path(out) / f"{opp}{tag}"
                       .replace("/", "_").replace(":", "_"), **kwargs) for opp in opponents}


EVALS = "evals.jsonl"  # a run's evaluations, one JSON record a line


def evaluate_run(cfg: Any, onnx_path: Path, step: int, wall_time_s: float,
                 run_dir: Path) -> dict:
    """One evaluation of a training run (any trainer): the exported ``onnx_path`` against
    each of ``cfg.eval_bots``, appended to ``run_dir/evals.jsonl``; returns the record."""
    t0 = time.monotonic()
    results = evaluate(cfg.game, cfg.preset, onnx_spec(onnx_path), list(cfg.eval_bots),
                       cfg.eval_deals, run_dir / "evals" / f"step-{step:09d}",
                       rule_changes=cfg.rule_changes, seed=cfg.seed, workers=cfg.eval_workers,
                       fill=cfg.eval_fill or None)
    record = {"step": step, "wall_time_s": round(wall_time_s, 1),
              "eval_seconds": round(time.monotonic() - t0, 1), "deals": cfg.eval_deals,
              "results": results, "hardest": hardest(results)}
    with open(run_dir / EVALS, "a") as f:
        f.write(json.dumps(record) + "\n")
    return record


def eval_scalars(record: dict) -> Iterator[tuple[str, float]]:
    """The tensorboard (tag, value) pairs of an evaluation record, the same for every trainer."""
    results = record["results"]
    for opp, r in results.items():
        tag = "eval_" + opp.replace("/", "_").replace(":", "_")
        for key, value in r.items():
            if isinstance(value, int | float) and key not in ("deals", "games"):
                yield f"{tag}/{key}", value
    yield "eval/hardest_win_rate", results[record["hardest"]]["win"]


def hardest(results: dict[str, dict]) -> str:
    """The opponent the bot wins least against (the 'best rule bot' for the curve)."""
    return min(results, key=lambda opp: (results[opp]["win"], -results[opp]["rank"]))


def beats(result: dict) -> bool:
    """The learner beat this opponent: its win rate's 95% interval clear above no edge."""
    return result["win_ci95"] is not None and \
        result["win"] - result["win_ci95"] > result["no_edge_win"]


def time_to_beat(evals: list[dict], opponent: str) -> dict | None:
    """The first evaluation (learner steps, wall time) that beat ``opponent`` (``beats``);
    None if none did. The time-to-beat benchmark of docs/results.md."""
    for record in evals:
        result = record["results"].get(opponent)
        if result is not None and beats(result):
            return {"step": record["step"], "wall_time_s": record["wall_time_s"],
                    "win": result["win"], "win_ci95": result["win_ci95"]}
    return None
