"""The ``cardrl`` command: one entry for what a user runs, each subcommand a module's
``main`` (``python -m cardrl.<layer>.<module>`` runs the same).

    cardrl demo                         # the main job: train a Spades bot, a tournament
    cardrl train --game gin_rummy       # one PPO run; cardrl dmc: Deep Monte Carlo
    cardrl tournament spades --bots spades/expert cardrl/spades-killer
    cardrl serve cardrl/spades-killer   # a bot over JSON lines
    cardrl web --port 8000              # the web table

``cardrl <subcommand> --help`` gives each one's options.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from importlib import import_module

# name -> (the module whose ``main(argv)`` runs it, one line of help); a module is imported
# only for the subcommand run, so ``cardrl --help`` loads no torch, Ray or web server
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("cardrl.train.demo",
             "the main job: train a Spades bot from scratch, export it, play a tournament"),
    "train": ("cardrl.train.run",
              "train a bot with MaskablePPO self-play (--resume goes on with a run)"),
    "dmc": ("cardrl.train.dmc", "train a bot with Deep Monte Carlo self-play"),
    "ship": ("cardrl.train.ship", "the recipes of the shipped bots: list them or train one"),
    "tournament": ("cardrl.eval.tournament", "a duplicate tournament of bots, with 95% intervals"),
    "serve": ("cardrl.agents.server", "serve a bot over JSON lines (any front end, any language)"),
    "web": ("cardrl.web.__main__", "the web table: people against bots and each other"),
    "bench": ("cardrl.train.bench", "the training loop's speed beside its torch-alone limit"),
}
# A training run's environment, set where the run starts, before its module loads numpy
# (read once, when its BLAS starts): the envs' small arrays gain nothing from BLAS threads.
# OpenMP's wait policy is left to the runtime: passive waiting halved the Spades loop on a
# quiet machine (docs/results.md, "Threads set where a run starts"); a run sets torch's
# threads per phase instead. The user's own settings win.
TRAINING_ENV = {"OPENBLAS_NUM_THREADS": "1"}


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = ["usage: cardrl <command> [options]   (cardrl <command> --help for its options)",
             "", "Card games for reinforcement learning.", "", "commands:"]
    lines += [f"  {name:{width}}  {text}" for name, (_, text) in COMMANDS.items()]
    lines += ["", "  --version  print cardrl's version"]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(usage())
        return 0
    if args[0] == "--version":
        from cardrl import __version__

        print(f"cardrl {__version__}")
        return 0
    command = COMMANDS.get(args[0])
    if command is None:
        print(f"cardrl: unknown command {args[0]!r}; the commands are {', '.join(COMMANDS)}\n",
              file=sys.stderr)
        print(usage(), file=sys.stderr)
        return 2
    if command[0].startswith("cardrl.train."):
        for key, value in TRAINING_ENV.items():
            os.environ.setdefault(key, value)
    code = import_module(command[0]).main(args[1:])
    return 0 if code is None else int(code)


if __name__ == "__main__":
    sys.exit(main())
