"""Run games in this process or in a pool of worker processes.

Each game is fixed by (config, deal, rotation), so which worker plays it does
not matter: results are identical for any worker count. Workers build their
bots from specs and write each finished game's log themselves (atomically), so
an interrupt loses only the games in flight. The pool uses the ``spawn``
start method, the one every platform has; workers ignore Ctrl-C and leave it to
the parent, which stops them.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Iterator, Sequence
from pathlib import Path

from cardrl.eval.config import TournamentConfig, as_json
from cardrl.eval.logs import write_game_log
from cardrl.eval.play import game_record, play_game

Task = tuple[int, int, tuple[int, ...]]  # (deal, rotation, the deal's table)


def play_and_save(cfg: TournamentConfig, out: Path, deal: int, rotation: int,
                  table: tuple[int, ...] | None = None, excluded: Sequence[int] = ()) -> dict:
    log = play_game(cfg, deal, rotation, table, excluded)
    write_game_log(out, log)
    return as_json(game_record(log))


def _worker(args: tuple) -> dict:
    return play_and_save(*args)


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def play_games(cfg: TournamentConfig, out: Path, tasks: Sequence[Task],
               workers: int, excluded: Sequence[int] = ()) -> Iterator[dict]:
    """Play and log ``tasks``; yield each game's record as it finishes (any order)."""
    excluded = tuple(excluded)
    if workers <= 1 or len(tasks) <= 1:
        for deal, rotation, table in tasks:
            yield play_and_save(cfg, out, deal, rotation, table, excluded)
        return
    ctx = multiprocessing.get_context("spawn")
    chunk = max(1, min(8, len(tasks) // (workers * 32)))
    pool = ctx.Pool(min(workers, len(tasks)), initializer=_ignore_sigint)
    try:
        yield from pool.imap_unordered(
            _worker, [(cfg, out, d, r, t, excluded) for d, r, t in tasks], chunk)
    except BaseException:  # an error, Ctrl-C, or the caller stopped early: stop the workers
        pool.terminate()
        raise
    else:
        pool.close()
    finally:
        pool.join()
