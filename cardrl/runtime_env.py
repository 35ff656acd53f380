"""What a Ray worker needs to run cardrl: the whole package, shipped in the runtime env.

RLlib's env runners and a tournament's game players import envs, bots, training and
evaluation code, and a worker on another machine may have no cardrl installed.
``py_modules()`` is the runtime env's ``py_modules``: one folder named ``cardrl`` that
holds every layer. An installed cardrl is that folder already; a checkout's layers
(``envs/``, ``agents/``, ... mapped to ``cardrl.<layer>`` at install) are copied once
per process into a temporary folder of that shape.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path
from types import ModuleType

import cardrl

_SKIP = shutil.ignore_patterns("__pycache__", "*.pyc")


def layers() -> dict[str, ModuleType]:
    """cardrl's layer packages, imported (their folders are where they are)."""
    from cardrl import agents, checkpoints, envs, train, web
    from cardrl import eval as evaluation

    return {"envs": envs, "agents": agents, "train": train, "eval": evaluation, "web": web,
            "checkpoints": checkpoints}


@functools.cache
def package_folder() -> Path:
    """A folder named ``cardrl`` holding the whole package (see the module docstring)."""
    root = Path(cardrl.__file__).parent
    parts = {}
    for name, module in layers().items():
        assert module.__file__ is not None  # a package of files
        parts[name] = Path(module.__file__).parent
    if all(path == root / name for name, path in parts.items()):
        return root  # installed: one folder already
    stage = Path(tempfile.mkdtemp(prefix="cardrl-package-")) / "cardrl"
    atexit.register(shutil.rmtree, stage.parent, True)
    shutil.copytree(root, stage, ignore=_SKIP)
    for name, path in parts.items():
        shutil.copytree(path, stage / name, ignore=_SKIP, dirs_exist_ok=True)
    return stage


def py_modules() -> list[str]:
    """The runtime env's ``py_modules`` for any cardrl job on Ray."""
    return [str(package_folder())]
