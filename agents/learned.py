"""Trained bots: an exported ONNX policy plus its JSON card, run with onnxruntime and numpy.

    import agents
    bot = agents.load("checkpoints/spades-killer.onnx")      # or the .json card
    bot = agents.make("checkpoints/spades-killer.onnx")   # the same, as a registry spec

The card (``<file>.json`` beside the ``.onnx``) names the game and the env
version (``env_name``) the network was trained on; loading refuses a card whose
``env_name`` differs from the installed game's, since the observation layout or
the action table may have changed. The network maps (observation, action mask)
to masked logits; the bot plays their argmax, the deterministic action of the
policy in Python. No torch is imported here.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Bot
from envs.games import game_names, get_game

CARD_FORMAT = "cardrl-bot-card/1"
_SESSIONS: dict[tuple, Any] = {}  # (path, mtime, size) -> onnxruntime session


class BotLoadError(ValueError):
    """A bot file that cannot be used: missing, malformed, or for another game version."""


def card_path(path: str | Path) -> Path:
    path = Path(path)
    return path if path.suffix == ".json" else path.with_suffix(".json")


def read_card(path: str | Path) -> dict:
    """The card of a bot file (``x.onnx`` or ``x.json``), checked against the installed game."""
    cpath = card_path(path)
    if not cpath.is_file():
        raise BotLoadError(f"no bot card {str(cpath)!r} (an exported bot is an .onnx file with "
                           f"a .json card beside it)")
    try:
        card = json.loads(cpath.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise BotLoadError(f"bot card {str(cpath)!r} is not readable JSON: {err}") from None
    if not isinstance(card, dict) or card.get("format") != CARD_FORMAT:
        raise BotLoadError(f"bot card {str(cpath)!r} is not a {CARD_FORMAT} card")
    for key in ("game", "env_name", "onnx", "obs_size", "num_actions"):
        if key not in card:
            raise BotLoadError(f"bot card {str(cpath)!r} has no {key!r}")
    if card["game"] not in game_names():
        raise BotLoadError(f"bot card {str(cpath)!r} is for unknown game {card['game']!r}")
    installed = get_game(card["game"]).env_name
    if card["env_name"] != installed:
        raise BotLoadError(
            f"bot {str(cpath)!r} was trained on {card['env_name']!r} but the installed "
            f"{card['game']} env is {installed!r}: its observations or actions differ, so the "
            f"network cannot play it; retrain or install the matching version")
    return card


def _session(path: Path) -> Any:
    try:
        import onnxruntime as ort
    except ImportError:
        raise BotLoadError("running an ONNX bot needs onnxruntime: pip install "
                           "'cardrl[bots]'") from None
    st = path.stat()
    key = (str(path.resolve()), st.st_mtime_ns, st.st_size)
    if key not in _SESSIONS:
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1  # small networks, one move at a time: threads cost more
        opts.inter_op_num_threads = 1
        try:
            _SESSIONS[key] = ort.InferenceSession(str(path), opts,
                                                  providers=["CPUExecutionProvider"])
        except Exception as err:  # onnxruntime raises its own types for bad files
            raise BotLoadError(f"{str(path)!r} is not a loadable ONNX model: {err}") from None
    return _SESSIONS[key]


class OnnxBot(Bot):
    """Plays the masked argmax of an exported policy network."""

    def __init__(self, path: str | Path, seed: int | None = None) -> None:
        super().__init__(seed)
        self.card = read_card(path)
        onnx_path = card_path(path).with_name(self.card["onnx"])
        if not onnx_path.is_file():
            raise BotLoadError(f"the card names {str(onnx_path)!r}, which does not exist")
        self.session = _session(onnx_path)
        self.path = str(onnx_path)
        self.game = self.card["game"]
        self.name = str(path)
        self._encode = get_game(self.game).encode
        self._num_actions = int(self.card["num_actions"])
        self._obs_size = int(self.card["obs_size"])
        self._mask = np.zeros((1, self._num_actions), dtype=np.float32)

    def logits(self, view: Any, legal_actions: Sequence[int]) -> np.ndarray:
        """The network's masked logits for ``view`` (illegal actions at -1e8)."""
        obs = np.asarray(self._encode(view), dtype=np.float32).reshape(1, -1)
        if obs.shape[1] != self._obs_size:
            raise ValueError(f"{self.name}: the view encodes to {obs.shape[1]} floats, the "
                             f"network takes {self._obs_size}")
        mask = self._mask
        mask.fill(0.0)
        for a in legal_actions:
            if isinstance(a, bool) or not 0 <= int(a) < self._num_actions:
                raise ValueError(f"{self.name}: legal action {a!r} is outside "
                                 f"0..{self._num_actions - 1}")
            mask[0, int(a)] = 1.0
        return self.session.run(None, {"observation": obs, "action_mask": mask})[0][0]

    def act(self, view: Any, legal_actions: Sequence[int]) -> int:
        if len(legal_actions) == 0:
            raise ValueError(f"{self.name}: no legal actions to choose from")
        return int(np.argmax(self.logits(view, legal_actions)))


def load(path: str | Path, seed: int | None = None) -> OnnxBot:
    """A ``Bot`` from an exported file (``.onnx`` or its ``.json`` card)."""
    if not isinstance(path, str | os.PathLike) or not str(path):
        raise BotLoadError(f"a bot file is a path to an .onnx file or its .json card, "
                           f"got {path!r}")
    return OnnxBot(path, seed=seed)
