"""Command line of one PPO run (CleanRL-style: every knob a flag, saved beside the run).

    python -m cardrl.train.run --game blind_auction --steps 2000000 --name ba-scratch
    python -m cardrl.train.run --game spades --preset killer --steps 300000 --seed 1 \\
        --opponents "self@0.6,snapshot@0.2,rules@0.2" --net 256,256 --n-games 64 \\
        --eval-every 50000 --name spades-killer-a --export checkpoints/spades-killer.onnx
    python -m cardrl.train.run --resume spades-killer-a --steps 600000     # continue a run
    tensorboard --logdir runs/spades-killer-a

The run itself is ``cardrl.train.ppo`` (read it top to bottom); the flags come from
``TrainConfig``'s fields (``cardrl.train.config``), the rest from ``cardrl.train.runs``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from cardrl.train import runs
from cardrl.train.config import TrainConfig
from cardrl.train.ppo import Trainer


def build_parser() -> argparse.ArgumentParser:
    return runs.build_parser(Trainer, "cardrl train", __doc__.splitlines()[0])


def config_from_args(args: argparse.Namespace) -> TrainConfig:
    return runs.config_from_args(Trainer, args)


def main(argv: Sequence[str] | None = None) -> int:
    return runs.main(Trainer, argv, "cardrl train", __doc__.splitlines()[0])


if __name__ == "__main__":
    sys.exit(main())
