"""Duplicate tournaments of bots at any registered game, resumable, on several cores.

    python -m cardrl.eval.tournament spades --preset killer \\
        --bots spades/count-bid,spades/spade-count,random,random --deals 200
    python -m cardrl.eval.tournament sevens --seats 2-9 --disqualify --time-limit 2 \\
        --bots sevens/lookahead,sevens/greedy,random,teams/red.py,... --deals 100

Each deal is one engine seed, so it fixes the cards of every hand of the game.
It is played once per cyclic rotation of the lineup (every bot in every seat),
so the luck of the cards cancels. Every finished game is logged as JSON under
``<out>/games``; running the same command again reads those logs instead of
replaying, so an interrupted run loses nothing it finished, and a larger
``--deals`` extends an earlier run. See ``cardrl.eval.stats`` for the intervals.

``--seats`` draws each deal's table from a larger lineup (``cardrl.eval.schedule``),
for games of 2-9 players. Bot files run in their own process, timed, as every
bot does with ``--isolate`` (``cardrl.eval.bot_process``); with ``--disqualify`` a bot
that raises, plays an illegal action, fails to load or answers too late is
disqualified, the reason reported, and the tournament rerun without it (the
course seed's section 5); the void games are kept under ``<out>/voided``.

``--ray [ADDRESS]`` plays the games as Ray tasks across a cluster instead of the
local pool, with the same logs, resume and disqualification (``cardrl.eval.ray_runner``;
Ray is imported only then).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from tqdm import tqdm

from cardrl.envs.files import write_atomic
from cardrl.envs.games import game_names, get_game
from cardrl.eval import bot_process, logs
from cardrl.eval.bot_process import ProcessBotError
from cardrl.eval.config import (
    ConfigError,
    TournamentConfig,
    parse_rule_changes,
    split_bot_list,
)
from cardrl.eval.play import BotError, game_record
from cardrl.eval.pool import play_games
from cardrl.eval.report import summarize, summary_text
from cardrl.eval.schedule import parse_seat_counts

if TYPE_CHECKING:  # Ray is imported only with --ray
    from cardrl.eval.ray_runner import RaySession

RUNS_DIR = Path("runs/tournaments")


@dataclass
class TournamentRun:
    out: Path
    summary: dict
    text: str
    played: int  # games of the final lineup played by this call
    loaded: int  # games read back from an earlier run's logs
    disqualified: list[dict] = field(default_factory=list)  # in the order it happened


def default_workers() -> int:
    return min(2, os.cpu_count() or 1)


def default_out(cfg: TournamentConfig) -> Path:
    """One directory per config (deal count aside), so the same command resumes."""
    return RUNS_DIR / f"{cfg.game}-{cfg.preset}-{cfg.key()}"


def run_tournament(cfg: TournamentConfig, deals: int, out: str | Path | None = None,
                   workers: int | None = 1, progress: bool = False, fresh: bool = False,
                   quiet: bool = True, ray: str | None = None) -> TournamentRun:
    """Play (or read back) deals 0..deals-1 in every rotation; write and return the summary.

    With ``cfg.disqualify`` a bot that fails (``BotError``) is recorded in
    ``<out>/disqualified.json`` and the tournament rerun without it, until one
    round finishes with no failure; otherwise the error is raised. With ``ray``
    (a cluster's address, "" for a local Ray) the games are Ray tasks
    (``cardrl.eval.ray_runner``) and ``workers`` the number of game players (None: one
    per CPU of the cluster).
    """
    if not isinstance(deals, int) or deals < 1:
        raise ConfigError(f"deals must be at least 1, got {deals!r}")
    if not (workers is None and ray is not None) and (
            not isinstance(workers, int) or workers < 1):
        raise ConfigError(f"workers must be at least 1, got {workers!r}")
    cfg.validate()
    out = Path(out) if out is not None else default_out(cfg)
    if fresh:
        logs.clear(out)
    logs.check_or_write_config(out, cfg)
    logs.remove_stale_temp_files(out)
    session = None
    try:
        if ray is not None:
            from cardrl.eval.ray_runner import RaySession

            session = RaySession(cfg, ray, workers, quiet)
        while True:
            disqualified = logs.read_disqualified(out) if cfg.disqualify else []
            try:
                return _run_round(cfg, deals, out, workers, progress, quiet, disqualified,
                                  session)
            except BotError as err:
                if not cfg.disqualify or err.entry is None:
                    raise
                failures = [err]
            except _LoadFailures as many:
                failures = many.errors
            for err in failures:
                if not quiet:
                    print(f"disqualified: {err}; rerunning without it", file=sys.stderr)
                logs.add_disqualified(out, err.record(), err.log)
    finally:
        bot_process.close_all()
        if session is not None:
            session.close()


def _check_tables(cfg: TournamentConfig, active: list[int], disqualified: list[dict]) -> None:
    """After disqualifications: the bots left must still fill the game's tables."""
    game = cfg.get_game()
    gone = ", ".join(d["bot"] for d in disqualified)
    for n in cfg.seat_counts(len(active)):
        try:
            ok = game.num_players(cfg.rules(n)) == n
        except (ValueError, TypeError):
            ok = False
        if not ok:
            raise ConfigError(f"after disqualifying {gone}, {len(active)} bots are left: too few "
                              f"for a table of {cfg.game}; use a larger lineup with --seats")


class _LoadFailures(Exception):  # noqa: N818 - not an error to report: a list of them
    def __init__(self, errors: list[BotError]) -> None:
        super().__init__(errors)
        self.errors = errors


def _load_check(cfg: TournamentConfig, active: list[int], workers: int) -> None:
    """Start every bot that runs in its own process (all at once), so the ones that cannot
    load fail before any game: raise ``_LoadFailures`` with them, in lineup order."""
    entries = [e for e in active if cfg.runs_in_own_process(cfg.bots[e])]
    started = bot_process.start_all([(e, cfg.bots[e], cfg.game, cfg.answer_limit(cfg.bots[e]))
                                     for e in entries])
    failures = []
    for entry, bot in zip(entries, started, strict=True):
        spec = cfg.bots[entry]
        if isinstance(bot, ProcessBotError):
            failures.append(BotError(f"bot {spec!r} could not be loaded: {bot}", "load", spec,
                                     entry))
        elif bot.game not in (None, cfg.game):
            bot_process.discard(bot)
            failures.append(BotError(f"bot {spec!r} plays {bot.game}, not {cfg.game}", "load",
                                     spec, entry))
    if failures:
        raise _LoadFailures(failures)
    if workers > 1:
        bot_process.close_all()  # the workers start their own


def _run_round(cfg: TournamentConfig, deals: int, out: Path, workers: int | None,
               progress: bool, quiet: bool, disqualified: list[dict],
               session: RaySession | None = None) -> TournamentRun:
    excluded = sorted({d["entry"] for d in disqualified})
    active = [i for i in range(cfg.num_seats) if i not in excluded]
    if cfg.disqualify:
        if excluded:
            _check_tables(cfg, active, disqualified)
        voided = logs.void_stale_logs(out, excluded)
        if voided and not quiet:
            print(f"{voided} games played before the last disqualification moved to "
                  f"{out / logs.VOIDED_DIR}", file=sys.stderr)
        if session is None:
            _load_check(cfg, active, workers)
        elif failures := session.load_check(active):  # on the Ray workers
            raise _LoadFailures(failures)
    tables = cfg.tables(deals, excluded)

    records: dict[tuple[int, int], dict] = {}
    todo = []
    for deal, table in enumerate(tables):
        for rotation in range(len(table)):
            log = logs.read_game_log(out, cfg, deal, rotation, table, excluded)
            if log is None:
                todo.append((deal, rotation, table))
            else:
                records[deal, rotation] = game_record(log)
    loaded = len(records)
    total = loaded + len(todo)
    if loaded and not quiet:
        print(f"resuming {out}: {loaded} of {total} games already played", file=sys.stderr)

    bar = tqdm(total=total, initial=loaded, unit="game", file=sys.stderr,
               desc=f"{cfg.game} {cfg.preset}", disable=not progress, dynamic_ncols=True)
    try:
        games = play_games(cfg, out, todo, workers, excluded) if session is None \
            else session.play_games(out, todo, excluded)
        for rec in games:
            records[rec["deal"], rec["rotation"]] = rec
            bar.update()
    finally:
        bar.close()

    summary = summarize(cfg, deals, list(records.values()), disqualified)
    text = summary_text(summary)
    write_atomic(out / "summary.json", json.dumps(summary, indent=2) + "\n")
    write_atomic(out / "summary.txt", text)
    return TournamentRun(out, summary, text, played=len(todo), loaded=loaded,
                         disqualified=list(disqualified))


# --------------------------------------------------------------------------- CLI
def build_parser() -> argparse.ArgumentParser:
    disqualifying = [g for g in game_names() if get_game(g).disqualify_failing_bots]
    p = argparse.ArgumentParser(
        prog="cardrl tournament",
        description="Duplicate tournament: every deal is replayed with the lineup rotated "
                    "through every seat; reports mean score, win rate and average rank with "
                    "95% intervals, and a head-to-head table.")
    p.add_argument("game", help=f"the game: {', '.join(game_names())}")
    p.add_argument("--preset", default=None, help="rules preset (default: the game's first)")
    p.add_argument("--bots", required=True,
                   help="comma-separated bot specs in seat order, one per seat, e.g. "
                        "spades/expert:nil=set-safe,random,random,random; a path ending in "
                        ".py is a bot file (a team's player module)")
    p.add_argument("--deals", type=int, default=100,
                   help="deals to play; each is played once per seat rotation")
    p.add_argument("--seed", type=int, default=0, help="tournament seed (deal and bot seeds)")
    p.add_argument("--out", default=None,
                   help=f"output directory (default {RUNS_DIR}/<game>-<preset>-<config hash>)")
    p.add_argument("--workers", type=int, default=None,
                   help="processes playing games (default: min(2, cpu count)); with --ray, "
                        "game players on the cluster (default: one per CPU)")
    p.add_argument("--max-hands", type=int, default=100,
                   help="safety cap on hands per game, passed as rule max_hands; 0 = no cap")
    p.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE",
                   help="change a rules field of the preset (repeatable), e.g. target=300")
    p.add_argument("--seats", default=None, metavar="COUNTS",
                   help="table sizes, e.g. 4, 2-9 or 3,5: each deal seats a balanced draw of "
                        "that many bots from the lineup, cycling through the sizes (default: "
                        "the whole lineup at every deal)")
    p.add_argument("--time-limit", type=float, default=None, metavar="SECONDS",
                   help="seconds a bot in its own process may take per answer (default 10); "
                        "bot files always run in their own process")
    p.add_argument("--isolate", action="store_true",
                   help="run every bot in its own process under the time limit, registered "
                        "ones too (by default they play in the tournament's process)")
    p.add_argument("--disqualify", action=argparse.BooleanOptionalAction, default=None,
                   help="disqualify a bot that raises, plays an illegal action, fails to load "
                        "or runs out of time, and rerun the tournament without it; with "
                        "--no-disqualify such a bot stops the tournament (default: the game's "
                        f"rule, its declaration's disqualify_failing_bots: "
                        f"{', '.join(disqualifying) or 'none'} disqualify, the others stop)")
    p.add_argument("--fresh", action="store_true",
                   help="delete this output directory's earlier games instead of resuming")
    p.add_argument("--quiet", action="store_true", help="no progress bar or notes on stderr")
    p.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="play the games as Ray tasks on the cluster at ADDRESS (HOST:6379 or "
                        "auto), or on a local Ray when no address follows; same logs, resume "
                        "and disqualification (needs .[ray])")
    return p


def config_from_args(args: argparse.Namespace) -> TournamentConfig:
    if args.game not in game_names():
        raise ConfigError(f"unknown game {args.game!r}; choose from {game_names()}")
    preset = args.preset if args.preset is not None else get_game(args.game).presets[0]
    if args.max_hands < 0:
        raise ConfigError(f"--max-hands must be 0 (no cap) or more, got {args.max_hands}")
    seats = None
    if args.seats is not None:
        try:
            seats = parse_seat_counts(args.seats)
        except ValueError as err:
            raise ConfigError(f"--seats: {err}") from None
    return TournamentConfig(
        game=args.game,
        bots=tuple(split_bot_list(args.bots)),
        preset=preset,
        rule_changes=parse_rule_changes(args.rule),
        max_hands=args.max_hands or None,
        seed=args.seed,
        seats=seats,
        time_limit=args.time_limit,
        isolate=args.isolate,
        disqualify=(get_game(args.game).disqualify_failing_bots if args.disqualify is None
                    else args.disqualify),
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    out = None
    try:
        cfg = config_from_args(args)
        if args.deals < 1:
            raise ConfigError(f"--deals must be at least 1, got {args.deals}")
        if args.workers is not None and args.workers < 1:
            raise ConfigError(f"--workers must be at least 1, got {args.workers}")
        workers = args.workers if args.workers is not None or args.ray is not None \
            else default_workers()
        cfg.validate()
        out = Path(args.out) if args.out else default_out(cfg)
        progress = not args.quiet and sys.stderr.isatty()
        run = run_tournament(cfg, args.deals, out, workers=workers, progress=progress,
                             fresh=args.fresh, quiet=args.quiet, ray=args.ray)
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except BotError as err:
        print(f"error: {err}\nfinished games are saved in {out}; fix the bot and rerun to "
              "resume, or run with --disqualify", file=sys.stderr)
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
