"""A run's bookkeeping and command line, the same for every trainer; imports no trainer.

A trainer (``cardrl.train.ppo.Trainer``, ``cardrl.train.dmc.DMCTrainer``) is a class with
``CONFIG`` (its config class), ``__init__(cfg, resume, progress, quiet)``, ``run()`` (a
``TrainResult``), ``checkpoint(step)`` and ``export(path)``. Its run folder holds
``config.json``, ``state.json`` (``RunState``: where the run stands) and ``evals.jsonl``
(``read_evals``); ``main`` is its command line: the config's flags (``cardrl.train.config``)
plus ``--resume``, ``--export`` and ``--quiet``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import torch

from cardrl.envs.files import write_atomic
from cardrl.train.config import CONFIG_FILE, add_arguments
from cardrl.train.evaluate import EVALS

STATE = "state.json"
AVERAGE_ONNX = "average.onnx"  # the average network (PPO's ``average_net``), beside policy.onnx


@dataclass
class RunState:
    """Where a run stands (``state.json``): its steps, wall time and next scheduled events."""

    steps: int = 0
    wall_time_s: float = 0.0
    snapshots: list[str] = field(default_factory=list)
    next_eval: int = 0
    next_checkpoint: int = 0
    next_snapshot: int = 0
    average: list[str] = field(default_factory=list)  # the reservoir's snapshot files
    average_seen: int = 0  # snapshots offered to the reservoir
    next_magnet: int = 0
    next_exploit: int = 0

    @classmethod
    def load(cls, run_dir: Path) -> RunState:
        path = Path(run_dir) / STATE
        return cls(**json.loads(path.read_text())) if path.is_file() else cls()

    def save(self, run_dir: Path) -> None:
        write_atomic(Path(run_dir) / STATE, json.dumps(self.__dict__, indent=2) + "\n")


@dataclass
class TrainResult:
    run_dir: Path
    steps: int
    wall_time_s: float
    onnx: Path | None
    evals: list[dict]
    interrupted: bool


def read_evals(run_dir: Path) -> list[dict]:
    path = Path(run_dir) / EVALS
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def last_evaluation(run_dir: Path) -> dict | None:
    """The card's ``evaluation`` entry: the run's last evaluation, if any."""
    evals = read_evals(run_dir)
    if not evals:
        return None
    last = evals[-1]
    return {"step": last["step"], "deals": last["deals"], "results": last["results"]}


def eval_line(record: dict) -> str:
    parts = []
    for opp, r in record["results"].items():
        ci = r["win_ci95"]
        parts.append(f"{opp.split('/')[-1]} {100 * r['win']:.0f}%"
                     + (f"±{100 * ci:.0f}" if ci is not None else ""))
    return f"[eval @ {record['step']:,} steps] win vs " + ", ".join(parts)


def _raise_interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """`kill` (SIGTERM) stops a run the way Ctrl-C does, so it checkpoints first (in the
    main thread only: signals reach no other).

    Either interrupt can land inside ``torch.no_grad().__enter__``, after grad is switched
    off and before its ``__exit__`` is armed; torch's grad mode found on entry is put back on
    the way out, so what runs after the interrupt (the throughput's backward pass, a resumed
    run in the same process) still has gradients.
    """
    grad = torch.is_grad_enabled()
    main = threading.current_thread() is threading.main_thread()
    old = signal.signal(signal.SIGTERM, _raise_interrupt) if main else None
    try:
        yield
    finally:
        if main:
            signal.signal(signal.SIGTERM, old)
        torch.set_grad_enabled(grad)


# ------------------------------------------------------------------ command line
def start_run(cfg: Any, resume: bool, checkpoint: str) -> Any:
    """A trainer's run folder opened: the config checked and resolved, a resume with no
    ``checkpoint`` and a new run over an old one refused, the config saved. The resolved
    config."""
    cfg.validate()
    cfg = cfg.resolved()
    if resume and not (cfg.run_dir / checkpoint).is_file():
        raise ValueError(f"nothing to resume: {str(cfg.run_dir / checkpoint)!r} does not exist")
    if not resume and (cfg.run_dir / CONFIG_FILE).exists():
        raise ValueError(f"run {str(cfg.run_dir)!r} exists; resume it or pick a new --name")
    cfg.save(cfg.run_dir)
    return cfg


def build_parser(trainer: type, prog: str, description: str) -> argparse.ArgumentParser:
    """The trainer's command line: a flag per knob of its config, and the run's own."""
    p = argparse.ArgumentParser(prog=prog, description=description)
    add_arguments(p, trainer.CONFIG, resumable=True)
    p.add_argument("--resume", default=None, metavar="NAME",
                   help="continue runs/NAME from its checkpoint (the knobs marked so may change)")
    p.add_argument("--export", default=None, metavar="PATH.onnx",
                   help="also export the final policy here (with its .json card)")
    p.add_argument("--quiet", action="store_true", help="no progress bar or eval lines")
    return p


def config_from_args(trainer: type, args: argparse.Namespace) -> Any:
    """A new run's config, or a resumed run's with the knobs the command line changes."""
    if args.resume:
        return trainer.CONFIG.load_run(args.resume).resumed_with(args)
    return trainer.CONFIG.from_args(args)


def open_run(trainer: type, cfg: Any, resume: bool = False, quiet: bool = False) -> Any:
    """The run ``cfg``, new or resumed (a ``ValueError`` names a bad knob), announced."""
    run = trainer(cfg, resume=resume, progress=not quiet and sys.stderr.isatty(), quiet=quiet)
    print(f"run {run.run_dir}  (config: {run.run_dir / 'config.json'}; "
          f"tensorboard --logdir {run.run_dir})", file=sys.stderr)
    return run


def train_and_export(run: Any, export: str | Path | None = None) -> int:
    """Train the run to its steps, then export it to ``export`` too; the command's exit code
    (130: interrupted, the checkpoint saved)."""
    result = run.run()
    if result.interrupted:
        print(f"\ninterrupted at {result.steps:,} steps; checkpoint saved. Continue with: "
              f"python -m {run.cfg.COMMAND} --resume {run.cfg.name}", file=sys.stderr)
        return 130
    if export:
        run.export(export)
        print(f"exported {export} (+ .json card)")
    print(f"{result.steps:,} steps in {result.wall_time_s / 60:.1f} min; policy: {result.onnx}")
    return 0


def pooled_average(trainer: type, name: str, others: Sequence[Path], export: Path) -> Any:
    """The finished run ``runs/<name>``'s average network fitted to its snapshots and those
    of ``others`` (the same stages at other seeds), exported to ``export`` with its card,
    which names every run and what all of them and the fit cost."""
    run = trainer(trainer.CONFIG.load_run(name), resume=True, progress=False, quiet=True)
    t0 = time.monotonic()
    net, fitted = run.average_network(run.model.num_timesteps, others)
    fit_s = time.monotonic() - t0
    pooled = [{"run": folder.name, "steps": st.steps, "wall_time_s": round(st.wall_time_s, 2)}
              for folder, st in ((f, RunState.load(f)) for f in [run.run_dir, *others])]
    run.export(export, net, {"average_of_snapshots": {
        **fitted, "runs": pooled, "fit_s": round(fit_s, 3),
        "wall_time_s": round(sum(r["wall_time_s"] for r in pooled) + fit_s, 2)}})
    print(f"exported {export}: the average network of {fitted['snapshots']} snapshots of "
          f"{len(pooled)} runs (+ .json card)")
    return run


def extra_stage(trainer: type, plugin: ModuleType, name: str, settings: dict[str, Any],
                exports: Sequence[Path] = ()) -> Any:
    """A game's extra stage (its training plug-in, ``cardrl.train.plugins``) on the finished run
    ``runs/<name>``: the settings checked before any work, the stage, a checkpoint (the
    run's wall time then counts the stage), and the export, to the run's ``policy.onnx``
    and to each of ``exports``."""
    cfg = trainer.CONFIG.load_run(name)
    plugin.check(cfg, **settings)
    run = trainer(cfg, resume=True, progress=False, quiet=True)
    plugin.extra_stage(run.cfg, **settings)
    run.checkpoint(run.state.steps)
    for path in [run.run_dir / "policy.onnx", *exports]:
        run.export(path)
        print(f"exported {path}", file=sys.stderr)
    return run


def main(trainer: type, argv: Sequence[str] | None, prog: str, description: str) -> int:
    args = build_parser(trainer, prog, description).parse_args(argv)
    try:
        run = open_run(trainer, config_from_args(trainer, args), bool(args.resume), args.quiet)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return train_and_export(run, args.export)
