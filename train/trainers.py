"""The trainers by name, imported only when one is asked for (a DMC run needs no SB3)."""

from __future__ import annotations

import json
from importlib import import_module

from cardrl.train.config import CONFIG_FILE, RUNS_DIR

# name -> "module:class"; a config.json's ``algo`` names its trainer (none: PPO's)
TRAINERS = {"ppo": "cardrl.train.ppo:Trainer", "dmc": "cardrl.train.dmc:DMCTrainer",
            "cfr": "cardrl.train.cfr:CFRTrainer"}
DEFAULT = "ppo"


def trainer(name: str) -> type:
    """The trainer class called ``name``."""
    if name not in TRAINERS:
        raise ValueError(f"unknown trainer {name!r}; choose from {sorted(TRAINERS)}")
    module, cls = TRAINERS[name].split(":")
    return getattr(import_module(module), cls)


def config_class(name: str) -> type:
    return trainer(name).CONFIG


def of_run(name: str) -> type:
    """The trainer of the saved run ``runs/<name>``."""
    path = RUNS_DIR / name / CONFIG_FILE
    if not path.is_file():
        raise ValueError(f"no training run at {str(path.parent)!r} (missing {CONFIG_FILE})")
    return trainer(json.loads(path.read_text()).get("algo", DEFAULT))
