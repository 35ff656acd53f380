"""Compile every game's kernels ahead of time: ``python -m cardrl.envs.warm``.

numba compiles a kernel on its first call and caches it on disk (``envs/compiled.py``);
on a fresh install that first call costs about 100 s of one core over the four games,
paid by whichever process gets there first, and by each of several processes that get
there at once (a test run, a tournament's workers, a web server's bot processes). Run
this once (a CI job, an image build, before a server starts) and later processes load
the cached code. The games compile side by side, one process each; each steps a few
batched games of random legal moves under every observation kind it has, and restarts
one. The rule bots' own kernels (a few small ones) still compile on first use.
"""

from __future__ import annotations

import argparse
import multiprocessing
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from cardrl.envs.batched import BatchedGames
from cardrl.envs.games import game_names, get_game


def warm(game: str, steps: int = 300) -> float:
    """Step ``game``'s compiled core under every observation kind; the seconds it took."""
    start = time.perf_counter()
    rng = np.random.default_rng(0)
    for kind in get_game(game).encoders:
        games = BatchedGames(game, 4, observation=kind)
        batch = games.reset(seed=0)
        for _ in range(steps):
            batch = games.step(np.where(batch.masks, rng.random(batch.masks.shape), -1)
                               .argmax(axis=1))
        games.restart(0, 1)  # a state written from Python: the core's `write`
    return time.perf_counter() - start


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m cardrl.envs.warm", description=__doc__
                                .split("\n\n")[0])
    p.add_argument("games", nargs="*", metavar="GAME",
                   help=f"the games to compile (default: all: {', '.join(game_names())})")
    p.add_argument("--workers", type=int, default=min(2, multiprocessing.cpu_count()),
                   help="games compiled at once, one process each (default: min(2, cpus))")
    args = p.parse_args(argv)
    if args.workers < 1:
        p.error(f"--workers must be at least 1, got {args.workers}")
    unknown = [g for g in args.games if g not in game_names()]
    if unknown:
        p.error(f"no game {unknown[0]!r}; the games are {', '.join(game_names())}")
    names = list(dict.fromkeys(args.games)) or game_names()
    start = time.perf_counter()
    with ProcessPoolExecutor(min(args.workers, len(names)),
                             mp_context=multiprocessing.get_context("spawn")) as pool:
        for name, took in zip(names, pool.map(warm, names), strict=True):
            print(f"{name}: {took:.1f} s", flush=True)
    print(f"compiled kernels ready in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
