"""Writing a file so that a reader sees the old one or the whole new one, never half.

Tournament logs, a run's config and checkpoints, exported bots and their cards are
all read while another process may be writing them (a resumed run, a live web
table, a kill halfway). The helper lives here, in the layer every other layer
imports, and imports nothing of the project, so ``eval``, ``train`` and any other
layer may use it without an import cycle.
"""

from __future__ import annotations

import os
from pathlib import Path

TMP_SUFFIX = ".tmp"  # the end of every temporary name: what a cleanup of killed writes globs


def write_atomic(path: str | Path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8, or bytes) to ``path``, creating its folder: a temporary
    file beside it, then ``os.replace``. A failed write leaves the old file and no
    temporary one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}{TMP_SUFFIX}")  # one writer per process
    try:
        if isinstance(data, str):
            tmp.write_text(data, encoding="utf-8")
        else:
            tmp.write_bytes(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
