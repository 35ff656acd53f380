"""What the networks of every trainer share, with torch and no SB3: the activations by name
and the observation's per-action blocks of a game."""

from __future__ import annotations

import torch
from torch import nn

from cardrl.envs.encoding import Encoder
from cardrl.envs.games import get_game

# the torch side of ``cardrl.train.numpy_policy.ACTIVATIONS``, the one list of activation names
TORCH_ACTIVATIONS: dict[str, type[nn.Module]] = {"tanh": nn.Tanh, "relu": nn.ReLU}
# (observation offset, first action, length): obs[offset + i] describes action first + i
ActionFeatures = tuple[tuple[int, int, int], ...]


def game_encoder(game: str, preset: str | None = None, rule_changes: dict | None = None,
                 observation: str = "infostate") -> tuple[Encoder, int]:
    """``game``'s ``observation`` encoder and its rules' player count (what the encoder's
    per-player-count tables are read at)."""
    g = get_game(game)
    rules = g.get_rules(preset if preset is not None else g.presets[0],
                        **dict(rule_changes or {}))
    return g.encoder(observation), g.num_players(rules)


def game_action_features(game: str, preset: str | None = None,
                         rule_changes: dict | None = None,
                         observation: str = "infostate") -> ActionFeatures:
    """The per-action blocks of ``game``'s ``observation`` for its rules' player count
    (``Encoder.action_features``; none where the vector holds no per-action numbers)."""
    encoder, n = game_encoder(game, preset, rule_changes, observation)
    return tuple(encoder.action_features(n))


def set_threads(threads: int) -> None:
    """Torch's threads from here on in this process: where a run starts, and per phase of it
    (``cardrl.train.ppo.ThreadPhases``); nothing is set on import."""
    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)
