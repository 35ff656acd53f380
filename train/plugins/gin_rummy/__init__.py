"""Gin Rummy's training plug-in (``cardrl.train.plugins``): the learned knock (``knock``).

After the policy's own training, a small head learns when a knock beats playing on,
from play-outs on the true deal; the export puts it after the policy
(``KnockSwitch``). ``python -m cardrl.train.plugins.gin_rummy RUN`` runs the stage on a run.
"""

from __future__ import annotations

from pathlib import Path

from torch import nn

from cardrl.train.config import RunConfig
from cardrl.train.plugins.gin_rummy import knock


def check(cfg: RunConfig, **settings) -> None:
    knock.KnockStage(**settings).check(cfg)


def extra_stage(cfg: RunConfig, **settings) -> dict:
    return knock.KnockStage(**settings).run(cfg)


def export_switch(run_dir: Path) -> tuple[nn.Module | None, dict]:
    return knock.export_switch(run_dir)
