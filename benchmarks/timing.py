"""Shared timing helpers for the speed benchmarks of every game.

A benchmark is a list of rows; each row plays whole episodes with one function
for a fixed wall-clock budget, on one pinned core, and reports episodes per
second, agent steps per second and microseconds per step::

    pin_to_one_core()
    rows = run_rows([RowSpec("ours engine", play_one_episode)], seconds=3.0)
    print(format_table(rows))

``play_one_episode(episode_index)`` plays one episode and returns the number of
agent steps it took (actions chosen by players; chance events and PettingZoo's
dead steps are not counted). ``RandomPicks`` gives every row the same cheap
uniform random choice.
"""

from __future__ import annotations

import gc
import json
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np


class RandomPicks:
    """Cheap uniform choices from pre-drawn random numbers.

    ``pick(seq)`` returns a uniformly random element of ``seq``; the numbers are
    drawn once up front from a seeded generator, so every row pays the same tiny
    cost per choice (a list index and a multiply) and runs are repeatable.
    """

    def __init__(self, seed: int = 0, size: int = 1 << 16) -> None:
        self._u = np.random.default_rng(seed).random(size).tolist()
        self._i = 0
        self._n = size

    def pick(self, seq: Sequence):
        i = self._i
        self._i = i + 1 if i + 1 < self._n else 0
        return seq[int(self._u[i] * len(seq))]


@dataclass
class Row:
    """One measured row of a benchmark table."""

    name: str
    episodes: int = 0
    steps: int = 0
    seconds: float = 0.0  # on the clock the rates divide by
    wall_seconds: float = 0.0
    note: str = ""
    skipped: str | None = None  # why the row was not measured (e.g. not installed)
    extra: dict = field(default_factory=dict)

    @property
    def episodes_per_s(self) -> float:
        return self.episodes / self.seconds if self.seconds else 0.0

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds if self.seconds else 0.0

    @property
    def us_per_step(self) -> float:
        return 1e6 * self.seconds / self.steps if self.steps else 0.0

    def to_dict(self) -> dict:
        d = asdict(self)
        d.update(episodes_per_s=self.episodes_per_s, steps_per_s=self.steps_per_s,
                 us_per_step=self.us_per_step)
        return d


CLOCKS: dict[str, Callable[[], float]] = {
    "cpu": time.process_time,  # CPU time of this process: other processes' load does not count
    "wall": time.perf_counter,
}


@dataclass
class RowSpec:
    """A row to measure: ``play(i)`` plays episode ``i`` and returns its agent steps."""

    name: str
    play: Callable[[int], int]
    note: str = ""


def run_rows(
    specs: Sequence[RowSpec],
    seconds: float,
    rounds: int = 3,
    clock: str = "cpu",
    warmup_episodes: int = 3,
) -> list[Row]:
    """Measure every row for about ``seconds`` of wall time each, in interleaved rounds.

    Each row first plays a few untimed warm-up episodes. Then, ``rounds`` times,
    every row in turn plays whole episodes for ``seconds / rounds`` of wall time,
    so a passing load on the machine touches all rows alike. Rates are episodes
    and steps over the ``clock`` time summed over the rounds ("cpu": this
    process's CPU time, "wall": elapsed time). The clocks are read once per
    episode; the garbage collector runs before each slice and stays on in it.
    """
    tick = CLOCKS[clock]
    wall = time.perf_counter
    rows = [Row(name=s.name, note=s.note, extra={"clock": clock, "rounds": rounds})
            for s in specs]
    for spec in specs:
        for i in range(warmup_episodes):
            spec.play(-1 - i)
    slice_s = seconds / rounds
    for _ in range(rounds):
        for spec, row in zip(specs, rows, strict=True):
            gc.collect()
            play = spec.play
            episodes = steps = 0
            first = row.episodes  # episode indices (and seeds) continue across rounds
            start, wall_start = tick(), wall()
            deadline = wall_start + slice_s
            while True:
                steps += play(first + episodes)
                episodes += 1
                if wall() >= deadline:
                    break
            row.seconds += tick() - start
            row.wall_seconds += wall() - wall_start
            row.episodes += episodes
            row.steps += steps
    return rows


def time_row(name: str, play: Callable[[int], int], seconds: float, note: str = "",
             clock: str = "cpu") -> Row:
    """Measure one row alone (see ``run_rows``)."""
    return run_rows([RowSpec(name, play, note)], seconds, rounds=1, clock=clock)[0]


def skipped_row(name: str, why: str, note: str = "") -> Row:
    return Row(name=name, skipped=why, note=note)


def pin_to_one_core(cpu: int | None = None) -> int | None:
    """Pin this process to one CPU (the first it may use, unless given); None if impossible."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    allowed = sorted(os.sched_getaffinity(0))
    target = allowed[0] if cpu is None else cpu
    try:
        os.sched_setaffinity(0, {target})
    except OSError:
        return None
    return target


def machine_info(pinned_cpu: int | None = None) -> dict:
    cpu_model = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu_model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "platform": platform.platform(),
        "cpu_model": cpu_model,
        "cpu_count": os.cpu_count(),
        "pinned_cpu": pinned_cpu,
        "numpy": np.__version__,
        "executable": sys.executable,
    }


def format_machine(info: dict) -> str:
    pinned = "not pinned" if info["pinned_cpu"] is None else f"pinned to cpu {info['pinned_cpu']}"
    return (f"{info['python']} on {info['platform']}\n"
            f"CPU: {info['cpu_model']}, {info['cpu_count']} logical cores, "
            f"benchmark {pinned}; numpy {info['numpy']}")


def format_table(rows: Sequence[Row]) -> str:
    """An aligned text table: one line per row, side by side."""
    header = ("row", "episodes", "agent steps", "episodes/s", "steps/s", "us/step")
    measured = [r for r in rows if not r.skipped]
    cells = {id(r): (r.name, f"{r.episodes:,}", f"{r.steps:,}", f"{r.episodes_per_s:,.1f}",
                     f"{r.steps_per_s:,.0f}", f"{r.us_per_step:.2f}") for r in measured}
    widths = [len(h) for h in header]
    for line in cells.values():
        widths = [max(w, len(c)) for w, c in zip(widths, line, strict=True)]
    widths[0] = max([widths[0], *(len(r.name) for r in rows)])

    def fmt(cols) -> str:
        rest = [c.rjust(w) for c, w in zip(cols[1:], widths[1:], strict=True)]
        return "  ".join([cols[0].ljust(widths[0]), *rest])

    lines = [fmt(header), "  ".join("-" * w for w in widths)]
    for r in rows:
        lines.append(f"{r.name.ljust(widths[0])}  ({r.skipped})" if r.skipped
                     else fmt(cells[id(r)]))
    return "\n".join(lines)


def write_json(path: str, rows: Sequence[Row], info: dict, **meta) -> None:
    with open(path, "w") as f:
        json.dump({"machine": info, **meta, "rows": [r.to_dict() for r in rows]}, f, indent=2)
        f.write("\n")
