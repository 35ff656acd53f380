"""Runs a documentation example as ``python -c`` would, but in a child forked from a
server that has already imported the heavy third-party libraries (torch, SB3): each
example still starts from a fresh namespace and a fresh ``cardrl`` (nothing of the
project is preloaded, so an example that forgets an import or ``import cardrl`` still
fails), without paying four seconds of imports each time."""

from __future__ import annotations

import multiprocessing
import os
import sys
from pathlib import Path

# third-party only: preloading cardrl would hide an example's missing `import cardrl`
PRELOAD = ["numpy", "torch", "stable_baselines3", "sb3_contrib", "gymnasium", "pettingzoo",
           "onnxruntime"]


def _child(source: str, filename: str, cwd: str, root: str, log: str) -> None:
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.chdir(cwd)
    os.environ.update(PYTHONPATH=root, MPLBACKEND="Agg")
    sys.path[:] = ["", root] + [p for p in sys.path if p not in ("", root)]
    sys.argv = ["-c"]
    exec(compile(source, filename, "exec"), {"__name__": "__main__"})


def run_example(source: str, filename: str, cwd: Path, root: Path, log: Path,
                timeout: float) -> int | None:
    """The example's exit code (its output in ``log``), or None past ``timeout`` seconds."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    proc = ctx.Process(target=_child, args=(source, filename, str(cwd), str(root), str(log)))
    proc.start()
    proc.join(timeout)
    if proc.is_alive():
        proc.kill()
        proc.join()
        return None
    return proc.exitcode
