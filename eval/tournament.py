"""Duplicate tournaments of bots at any registered game, resumable, on several cores.

    python -m eval.tournament spades --preset killer \\
        --bots spades/count-bid,spades/spade-count,random,random --deals 200

Each deal is one engine seed, so it fixes the cards of every hand of the game.
It is played once per cyclic rotation of the lineup (every bot in every seat),
so the luck of the cards cancels. Every finished game is logged as JSON under
``<out>/games``; running the same command again reads those logs instead of
replaying, so an interrupted run loses nothing it finished, and a larger
``--deals`` extends an earlier run. See ``eval.stats`` for the intervals.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from eval import logs
from eval.config import (
    ConfigError,
    TournamentConfig,
    parse_rule_changes,
    split_bot_list,
)
from eval.play import BotError, game_record
from eval.pool import play_games
from eval.report import summarize, summary_text

RUNS_DIR = Path("runs/tournaments")


@dataclass
class TournamentRun:
    out: Path
    summary: dict
    text: str
    played: int  # games played by this call
    loaded: int  # games read back from an earlier run's logs


def default_workers() -> int:
    return min(2, os.cpu_count() or 1)


def default_out(cfg: TournamentConfig) -> Path:
    """One directory per config (deal count aside), so the same command resumes."""
    return RUNS_DIR / f"{cfg.game}-{cfg.preset}-{cfg.key()}"


def run_tournament(cfg: TournamentConfig, deals: int, out: str | Path | None = None,
                   workers: int = 1, progress: bool = False, fresh: bool = False,
                   quiet: bool = True) -> TournamentRun:
    """Play (or read back) deals 0..deals-1 in every rotation; write and return the summary."""
    if not isinstance(deals, int) or deals < 1:
        raise ConfigError(f"deals must be at least 1, got {deals!r}")
    if not isinstance(workers, int) or workers < 1:
        raise ConfigError(f"workers must be at least 1, got {workers!r}")
    cfg.validate()
    out = Path(out) if out is not None else default_out(cfg)
    if fresh:
        logs.clear(out)
    logs.check_or_write_config(out, cfg)
    logs.remove_stale_temp_files(out)

    records: dict[tuple[int, int], dict] = {}
    todo = []
    for deal in range(deals):
        for rotation in range(cfg.num_seats):
            log = logs.read_game_log(out, cfg, deal, rotation)
            if log is None:
                todo.append((deal, rotation))
            else:
                records[deal, rotation] = game_record(log)
    loaded = len(records)
    if loaded and not quiet:
        print(f"resuming {out}: {loaded} of {deals * cfg.num_seats} games already played",
              file=sys.stderr)

    bar = tqdm(total=deals * cfg.num_seats, initial=loaded, unit="game", file=sys.stderr,
               desc=f"{cfg.game} {cfg.preset}", disable=not progress, dynamic_ncols=True)
    try:
        for rec in play_games(cfg, out, todo, workers):
            records[rec["deal"], rec["rotation"]] = rec
            bar.update()
    finally:
        bar.close()

    summary = summarize(cfg, deals, list(records.values()))
    text = summary_text(summary)
    logs.write_atomic(out / "summary.json", json.dumps(summary, indent=2) + "\n")
    logs.write_atomic(out / "summary.txt", text)
    return TournamentRun(out, summary, text, played=len(todo), loaded=loaded)


# --------------------------------------------------------------------------- CLI
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m eval.tournament",
        description="Duplicate tournament: every deal is replayed with the lineup rotated "
                    "through every seat; reports mean score, win rate and average rank with "
                    "95% intervals, and a head-to-head table.")
    p.add_argument("game", help="a registered game, e.g. spades")
    p.add_argument("--preset", default=None, help="rules preset (default: the game's first)")
    p.add_argument("--bots", required=True,
                   help="comma-separated bot specs in seat order, one per seat, e.g. "
                        "spades/expert:nil=set-safe,random,random,random")
    p.add_argument("--deals", type=int, default=100,
                   help="deals to play; each is played once per seat rotation")
    p.add_argument("--seed", type=int, default=0, help="tournament seed (deal and bot seeds)")
    p.add_argument("--out", default=None,
                   help=f"output directory (default {RUNS_DIR}/<game>-<preset>-<config hash>)")
    p.add_argument("--workers", type=int, default=default_workers(),
                   help="processes playing games (default: min(2, cpu count))")
    p.add_argument("--max-hands", type=int, default=100,
                   help="safety cap on hands per game, passed as rule max_hands; 0 = no cap")
    p.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                   help="change a rules field of the preset (repeatable), e.g. target=300")
    p.add_argument("--fresh", action="store_true",
                   help="delete this output directory's earlier games instead of resuming")
    p.add_argument("--quiet", action="store_true", help="no progress bar or notes on stderr")
    return p


def config_from_args(args: argparse.Namespace) -> TournamentConfig:
    from envs.games import game_names, get_game

    if args.game not in game_names():
        raise ConfigError(f"unknown game {args.game!r}; choose from {game_names()}")
    preset = args.preset if args.preset is not None else get_game(args.game).presets[0]
    if args.max_hands < 0:
        raise ConfigError(f"--max-hands must be 0 (no cap) or more, got {args.max_hands}")
    return TournamentConfig(
        game=args.game,
        bots=tuple(split_bot_list(args.bots)),
        preset=preset,
        rule_changes=parse_rule_changes(args.rule),
        max_hands=args.max_hands or None,
        seed=args.seed,
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    out = None
    try:
        cfg = config_from_args(args)
        if args.deals < 1:
            raise ConfigError(f"--deals must be at least 1, got {args.deals}")
        if args.workers < 1:
            raise ConfigError(f"--workers must be at least 1, got {args.workers}")
        cfg.validate()
        out = Path(args.out) if args.out else default_out(cfg)
        progress = not args.quiet and sys.stderr.isatty()
        run = run_tournament(cfg, args.deals, out, workers=args.workers, progress=progress,
                             fresh=args.fresh, quiet=args.quiet)
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except BotError as err:
        print(f"error: {err}\nfinished games are saved in {out}; fix the bot and rerun to "
              "resume", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        saved = len(list((out / logs.GAMES_DIR).glob("*.json"))) if out else 0
        print(f"\ninterrupted: {saved} finished games are saved in {out}; run the same "
              "command again to resume", file=sys.stderr)
        return 130
    print(run.text, end="")
    print(f"\ngame logs: {run.out / logs.GAMES_DIR}/   summary: {run.out / 'summary.txt'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
