"""A game's training plug-in, found by its place: ``train/plugins/<game>`` (module or package).

A plug-in holds what only its game trains (Gin Rummy's: the learned knock). Generic
code calls it through three functions, and never names the game:

    check(cfg, **settings)        refuse bad settings for the run ``cfg`` (a ValueError
                                  naming the value) before any work
    extra_stage(cfg, **settings)  a stage after the trainer's own, on the finished run's
                                  folder (``cfg.run_dir``); returns its statistics
    export_switch(run_dir)        (module or None, card fields): a module that the export
                                  puts after the policy, (observation, action_mask,
                                  masked logits) -> masked logits, and what the card adds

``cardrl.train.runs.extra_stage`` drives a stage (check, stage, checkpoint, export), for
``cardrl.train.ship``'s recipes and a plug-in's own command line. A plug-in imports no
trainer: every export calls it (``cardrl.train.export.export_bot``).
"""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any


def find(game: str) -> ModuleType | None:
    """``game``'s training plug-in, or None if it has none."""
    name = f"{__name__}.{game}"
    return importlib.import_module(name) if importlib.util.find_spec(name) else None


def export_switch(game: str, run_dir: Path) -> tuple[Any, dict]:
    """What ``game``'s plug-in puts after the policy of the run in ``run_dir`` (None and no
    card fields without a plug-in)."""
    plugin = find(game)
    return plugin.export_switch(Path(run_dir)) if plugin else (None, {})
