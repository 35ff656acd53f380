"""Every trainer's export: ONNX for bots, with the card that says what the network is for.

The ONNX graph takes ``observation`` (float32, batch x obs_size) and
``action_mask`` (float32, batch x num_actions, 1 = legal) and returns
``logits`` with every illegal action set to ``MASKED``, as sb3-contrib's
``MaskableCategorical`` masks them; the action is their argmax, what the trainer's
greedy policy plays (a DMC network's logits are its Q-values). A JSON card beside
the file (same name, ``.json``) says what the network is for: game, preset, seats,
``env_name`` (the encoder version), training steps and time, evaluation results.
``export_bot`` is the one path: PPO, DMC and RLlib call it with their graph, and it
puts the game's plug-in switch (``cardrl.train.plugins``) after the policy.
"""

from __future__ import annotations

import io
import json
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from cardrl.envs.files import write_atomic
from cardrl.envs.games import get_game
from cardrl.eval.config import rules_dict
from cardrl.train import plugins

CARD_FORMAT = "cardrl-bot-card/1"
OPSET = 17


def write_onnx(module: nn.Module, obs_size: int, num_actions: int, path: str | Path,
               card: dict) -> Path:
    """``module`` (observation, action_mask) -> masked logits, as ONNX at ``path``, and its
    card at ``<path>.json``; both atomically. Returns the card's path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    module = module.cpu().eval()
    args = (torch.zeros(1, obs_size), torch.ones(1, num_actions))
    buf = io.BytesIO()
    with torch.no_grad(), warnings.catch_warnings():
        # the TorchScript exporter needs only the onnx package (no onnxscript)
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(module, args, buf, dynamo=False, opset_version=OPSET,
                          input_names=["observation", "action_mask"], output_names=["logits"],
                          dynamic_axes={"observation": {0: "batch"}, "action_mask": {0: "batch"},
                                        "logits": {0: "batch"}})
    write_atomic(path, buf.getvalue())
    card = {"format": CARD_FORMAT, "onnx": path.name, "obs_size": obs_size,
            "num_actions": num_actions, "inputs": ["observation", "action_mask"],
            "output": "logits", "exported": time.strftime("%Y-%m-%dT%H:%M:%S"), **card}
    card_path = path.with_suffix(".json")
    write_atomic(card_path, (json.dumps(card, indent=2, default=_json_default) + "\n").encode())
    return card_path


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, tuple | set):
        return list(value)
    raise TypeError(f"not JSON-serialisable: {value!r}")


def base_card(game: str, preset: str, rule_changes: dict | None = None,
              observation: str = "infostate") -> dict:
    """The card fields that say which game the network plays and what it reads."""
    g = get_game(game)
    rules = g.get_rules(preset, **dict(rule_changes or {}))
    encoder = g.encoder(observation)
    return {"game": game, "preset": preset, "rule_changes": dict(rule_changes or {}),
            "rules": rules_dict(rules), "num_players": g.num_players(rules),
            "env_name": g.env_name,
            "observation": {"kind": encoder.kind, "version": encoder.version}}


class Switched(nn.Module):
    """A policy's masked logits, then a game's switch (``cardrl.train.plugins``) on them."""

    def __init__(self, policy: nn.Module, switch: nn.Module) -> None:
        super().__init__()
        self.policy, self.switch = policy, switch

    def forward(self, observation: torch.Tensor, action_mask: torch.Tensor) -> torch.Tensor:
        return self.switch(observation, action_mask, self.policy(observation, action_mask))


def export_bot(module: nn.Module, obs_size: int, num_actions: int, path: str | Path,
               card: dict, run_dir: Path | None) -> Path:
    """Every trainer's export: ``module`` ((observation, action_mask) -> masked logits) with
    the plug-in switch of the card's game for the run in ``run_dir`` after it, if any, as
    ONNX at ``path``, and ``card`` with the plug-in's fields beside it (``write_onnx``).
    Returns ``path``."""
    switch, fields = (None, {}) if run_dir is None else \
        plugins.export_switch(card["game"], run_dir)
    if switch is not None:
        module = Switched(module, switch)
    write_onnx(module, obs_size, num_actions, path, {**card, **fields})
    return Path(path)


def run_card(cfg: Any, steps: int, wall_time_s: float, evaluation: dict | None = None,
             **training: Any) -> dict:
    """A trained bot's card fields: which game it plays (``base_card``), how it was trained
    (the run's config and steps, plus a trainer's ``training`` fields) and its evaluation."""
    return {**base_card(cfg.game, cfg.preset, cfg.rule_changes, cfg.observation),
            "training": {**training, "steps": steps, "wall_time_s": round(wall_time_s, 1),
                         "run": str(cfg.run_dir), "config": cfg.to_dict()},
            "evaluation": evaluation or {}}


def update_card(path: str | Path, **fields: Any) -> dict:
    """Add or replace top-level fields of a bot's card (e.g. tournament results), atomically."""
    card_path = Path(path).with_suffix(".json")
    card = json.loads(card_path.read_text())
    card.update(fields)
    write_atomic(card_path, (json.dumps(card, indent=2, default=_json_default) + "\n").encode())
    return card
