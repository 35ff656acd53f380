"""Export a trained MaskablePPO policy: ONNX for bots, numpy weights for opponent seats.

The ONNX graph takes ``observation`` (float32, batch x obs_size) and
``action_mask`` (float32, batch x num_actions, 1 = legal) and returns
``logits`` with every illegal action set to -1e8, exactly as sb3-contrib's
``MaskableCategorical`` masks them; the action is their argmax, which is what
``policy.predict(..., deterministic=True)`` plays. A JSON card beside the file
(same name, ``.json``) says what the network is for: game, preset, seats,
``env_name`` (the encoder version), training steps and time, evaluation results.
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
from sb3_contrib import MaskablePPO
from torch import nn

from cardrl.envs.batched import BatchedGames
from cardrl.envs.files import write_atomic
from cardrl.envs.games import get_game
from cardrl.eval.config import rules_dict
from cardrl.train.cardnet import CardActor, CardLogits, CardPolicy
from cardrl.train.numpy_policy import MASKED, NumpyPolicy
from cardrl.train.opponents import OpponentPool
from cardrl.train.policy import (
    TORCH_ACTIVATIONS,
    ActionFeatureHead,
    ActionFeaturePolicy,
    game_action_features,
)
from cardrl.train.selfplay import SelfPlayVecEnv

CARD_FORMAT = "cardrl-bot-card/1"
OPSET = 17


def _actor_parts(policy: Any) -> tuple[list[nn.Module], np.ndarray | None]:
    """The actor path of an SB3 MLP policy: hidden layers, then the action head's
    Linear; and ``ActionFeatureHead``'s skip matrix (None for a plain head)."""
    extractor = policy.features_extractor if policy.share_features_extractor \
        else policy.pi_features_extractor
    if type(extractor).__name__ != "FlattenExtractor":
        raise ValueError(f"only MLP policies over flat observations export; got {extractor!r}")
    head = policy.action_net
    if isinstance(head, ActionFeatureHead):
        return [*policy.mlp_extractor.policy_net, head.linear], head.skip_matrix()
    return [*policy.mlp_extractor.policy_net, head], None


def policy_weights(policy: Any) -> NumpyPolicy | CardActor:
    """The actor network of an SB3 policy as a frozen copy opponents play: a
    ``NumpyPolicy`` of an MLP policy, a ``CardActor`` of a card policy."""
    if isinstance(policy, CardPolicy):
        return CardActor(policy.card_net)
    layers, activation = [], None
    modules, skip = _actor_parts(policy)
    for module in modules:
        if isinstance(module, nn.Linear):
            layers.append((module.weight.detach().cpu().numpy().copy(),
                           module.bias.detach().cpu().numpy().copy()))
        elif type(module) in TORCH_ACTIVATIONS.values():
            name = next(n for n, kind in TORCH_ACTIVATIONS.items() if type(module) is kind)
            if activation not in (None, name):
                raise ValueError("mixed activations do not export")
            activation = name
        else:
            raise ValueError(f"cannot export layer {module!r}")
    return NumpyPolicy(layers, activation or "tanh", skip=skip)


class MaskedLogits(nn.Module):
    """(observation, action_mask) -> masked logits of an SB3 actor, the graph ONNX gets;
    ``switch`` (a game's, ``cardrl.train.plugins``) may then change them."""

    def __init__(self, policy: Any, switch: nn.Module | None = None) -> None:
        super().__init__()
        modules, skip = _actor_parts(policy)
        self.actor = nn.Sequential(*modules)
        self.skip = None if skip is None else nn.Parameter(torch.from_numpy(skip),
                                                            requires_grad=False)
        self.switch = switch

    def forward(self, observation: torch.Tensor, action_mask: torch.Tensor) -> torch.Tensor:
        logits = self.actor(observation)
        if self.skip is not None:
            logits = logits + observation @ self.skip
        logits = torch.where(action_mask > 0.5, logits, torch.full_like(logits, MASKED))
        return logits if self.switch is None else self.switch(observation, action_mask, logits)


def export_onnx(policy: Any, path: str | Path, card: dict, switch: nn.Module | None = None
                ) -> Path:
    """Write ``policy`` (with ``switch`` after it, see ``MaskedLogits``) as ONNX at ``path`` and
    ``card`` (plus the tensor names and sizes) beside it as ``<path>.json``; both atomically.
    Returns the card's path."""
    module = CardLogits(policy.card_net, switch) if isinstance(policy, CardPolicy) \
        else MaskedLogits(policy, switch)
    return write_onnx(module, int(policy.observation_space.shape[0]),
                      int(policy.action_space.n), path, card)


def write_onnx(module: nn.Module, obs_size: int, num_actions: int, path: str | Path,
               card: dict) -> Path:
    """``module`` (observation, action_mask) -> masked logits, as ONNX at ``path``, and its
    card at ``<path>.json``; both atomically. Every exported bot (SB3's, RLlib's) goes
    through here, so ``cardrl.agents.load`` reads them alike. Returns the card's path."""
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


def export_untrained(game: str, path: str | Path, preset: str | None = None,
                     net: tuple[int, ...] = (16,), seed: int = 0,
                     observation: str = "infostate") -> Path:
    """A freshly initialised policy of ``game`` exported with its card: a quick way to check
    a game's export/load/serve path end to end (tests, new games) without training."""
    games = BatchedGames(game, 1, preset=preset, observation=observation)
    env = SelfPlayVecEnv(games, OpponentPool.parse("self", game))
    kwargs = {"net_arch": list(net), "action_features": game_action_features(
        game, games.rules.preset if preset is not None else None, None, observation)}
    model = MaskablePPO(ActionFeaturePolicy, env, policy_kwargs=kwargs, seed=seed,
                        device="cpu", n_steps=64, batch_size=64)
    card = {**base_card(game, preset or get_game(game).presets[0], None, observation),
            "training": {"steps": 0, "wall_time_s": 0.0}, "evaluation": {}}
    export_onnx(model.policy, path, card)
    return Path(path)


def update_card(path: str | Path, **fields: Any) -> dict:
    """Add or replace top-level fields of a bot's card (e.g. tournament results), atomically."""
    card_path = Path(path).with_suffix(".json")
    card = json.loads(card_path.read_text())
    card.update(fields)
    write_atomic(card_path, (json.dumps(card, indent=2, default=_json_default) + "\n").encode())
    return card
