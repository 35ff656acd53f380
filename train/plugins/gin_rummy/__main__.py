"""The knock stage on a finished Gin Rummy run, then its export with the head.

    python -m cardrl.train.plugins.gin_rummy RUN --games 6000 --reshuffles 12 --workers 2 \
        --export checkpoints/gin_rummy-standard-clone.onnx
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Sequence
from pathlib import Path

from cardrl.train import trainers
from cardrl.train.plugins import gin_rummy
from cardrl.train.plugins.gin_rummy.knock import KnockStage
from cardrl.train.runs import extra_stage


def build_parser() -> argparse.ArgumentParser:
    d = KnockStage()
    p = argparse.ArgumentParser(prog="python -m cardrl.train.plugins.gin_rummy",
                                description=__doc__.splitlines()[0])
    p.add_argument("run", help="the Gin Rummy run under runs/ whose policy gets the head")
    p.add_argument("--bot", default=d.bot, help="the bot that plays the games")
    p.add_argument("--games", type=int, default=d.games, help="games labelled")
    p.add_argument("--reshuffles", type=int, default=d.reshuffles,
                   help="stock redeals per play-on")
    p.add_argument("--table-hands", type=int, default=d.table_hands,
                   help="hands of the bot against itself behind the win table")
    p.add_argument("--held-out", type=float, default=d.held_out, help="share of chunks held out")
    p.add_argument("--workers", type=int, default=d.workers)
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--export", default=None, metavar="PATH.onnx",
                   help="also export the policy with its head here")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    settings = {f.name: getattr(args, f.name) for f in dataclasses.fields(KnockStage)}
    try:
        extra_stage(trainers.of_run(args.run), gin_rummy, args.run, settings,
                    [Path(args.export)] if args.export else [])
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
