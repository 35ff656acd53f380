"""Trained bots: an exported ONNX policy plus its JSON card, run with onnxruntime and numpy.

    from cardrl import agents
    bot = agents.load("cardrl/spades-killer")              # a shipped bot, wherever cardrl is
    bot = agents.load("runs/mine/bot.onnx")                 # a file of yours (or its .json card)
    bot = agents.make("cardrl/spades-killer:worlds=0")      # as a registry spec: the network alone

``cardrl/<name>`` names a bot shipped inside the package (``cardrl.checkpoints``, found
through ``importlib.resources``); anything else is a path.

The card (``<file>.json`` beside the ``.onnx``) names the game, the env version
(``env_name``: the action table and rules) and the observation the network was
trained on (``observation``: kind and version, ``cardrl.envs.encoding``); loading builds
that encoder and refuses a card whose env or observation version differs from the
installed one, naming both. The network maps (observation, action mask) to masked
logits; the bot plays their argmax, the deterministic action of the policy in
Python. No torch is imported here.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from cardrl.agents.base import Bot
from cardrl.agents.search import SearchBot
from cardrl.envs.contracts import PlayerView
from cardrl.envs.encoding import Encoder
from cardrl.envs.games import game_names, get_game

CARD_FORMAT = "cardrl-bot-card/1"
SHIPPED = "cardrl/"  # the spec of a shipped bot: cardrl/<name>, <name>.onnx in cardrl.checkpoints
_SHIPPED_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*")
_SESSIONS: dict[tuple, Any] = {}  # (path, mtime, size) -> onnxruntime session


class BotLoadError(ValueError):
    """A bot file that cannot be used: missing, malformed, or for another game version."""


def shipped_folder() -> Path:
    """Where the shipped bots are: the package data of ``cardrl.checkpoints``."""
    folder = resources.files("cardrl.checkpoints")
    if not isinstance(folder, Path):  # a zipped install: onnxruntime needs real files
        raise BotLoadError(f"cardrl's shipped bots are not files here ({folder!r}); install "
                           f"cardrl unzipped")
    return folder


def shipped_bots(game: str | None = None) -> list[str]:
    """The specs of the shipped bots (``cardrl/spades-killer``, ...), of one game or all, in
    the order of their names (``gin_rummy-seed`` before ``gin_rummy-seed-clone``, which the
    files' names, ``.onnx`` after ``-``, would not give)."""
    out = []
    for path in sorted(shipped_folder().glob("*.onnx"), key=lambda p: p.stem):
        if game is not None:
            try:
                if json.loads(path.with_suffix(".json").read_text()).get("game") != game:
                    continue
            except (OSError, ValueError):
                continue
        out.append(SHIPPED + path.stem)
    return out


def is_shipped(spec: str | os.PathLike) -> bool:
    """Whether ``spec`` is ``cardrl/<name>`` (a shipped bot) rather than a path."""
    return isinstance(spec, str) and spec.startswith(SHIPPED) \
        and _SHIPPED_NAME.fullmatch(spec.removeprefix(SHIPPED)) is not None


def resolve(path: str | os.PathLike) -> Path:
    """The file a bot spec names: a shipped bot's ``.onnx`` for ``cardrl/<name>`` (an error
    listing them for an unknown name), else the path itself."""
    if not is_shipped(path):
        return Path(path)
    file = shipped_folder() / f"{str(path).removeprefix(SHIPPED)}.onnx"
    if not file.is_file():
        raise BotLoadError(f"no shipped bot {str(path)!r}; the shipped bots are "
                           f"{', '.join(shipped_bots()) or 'none'}")
    return file


def card_path(path: str | Path) -> Path:
    path = resolve(path)
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
    for key in ("game", "env_name", "observation", "onnx", "obs_size", "num_actions"):
        if key not in card:
            hint = (" (a card made before observations had kinds: re-export it)"
                    if key == "observation" else "")
            raise BotLoadError(f"bot card {str(cpath)!r} has no {key!r}{hint}")
    if card["game"] not in game_names():
        raise BotLoadError(f"bot card {str(cpath)!r} is for unknown game {card['game']!r}")
    game = get_game(card["game"])
    if not isinstance(card["env_name"], str) or not game.plays(card["env_name"]):
        raise BotLoadError(
            f"bot {str(cpath)!r} was trained on {card['env_name']!r} but the installed "
            f"{card['game']} env is {game.env_name!r}: its actions or rules differ, so the "
            f"network cannot play it; retrain or install the matching version")
    observation_encoder(card, cpath)
    return card


def observation_encoder(card: dict, where: Path | str = "card") -> Encoder:
    """The installed encoder a card's network reads (its ``observation`` kind), checked
    to be the version the card names and to give vectors of the card's size."""
    game = get_game(card["game"])
    obs = card["observation"]
    if not isinstance(obs, dict) or not isinstance(obs.get("kind"), str) \
            or isinstance(obs.get("version"), bool) or not isinstance(obs.get("version"), int):
        raise BotLoadError(f"bot card {str(where)!r}: 'observation' must be like "
                           f"{{'kind': 'infostate', 'version': 1}}, got {obs!r}")
    if obs["kind"] not in game.encoders:
        raise BotLoadError(f"bot card {str(where)!r} names observation kind {obs['kind']!r}; "
                           f"{game.name} has {sorted(game.encoders)}")
    encoder = game.encoders[obs["kind"]]
    if obs["version"] != encoder.version:
        raise BotLoadError(
            f"bot {str(where)!r} was trained on the {obs['kind']} observation version "
            f"{obs['version']} ({obs['kind']}/{obs['version']}) but the installed {game.name} "
            f"encoder is {encoder.name}: the vectors differ, so the network cannot read them; "
            f"retrain or install the matching version")
    players = card.get("num_players")
    if isinstance(players, int) and encoder.size(players) != card["obs_size"]:
        raise BotLoadError(f"bot card {str(where)!r} says obs_size {card['obs_size']} but "
                           f"{encoder.name} for {players} players has {encoder.size(players)}")
    return encoder


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
    """Plays the masked argmax of an exported policy network, or with ``sample`` a draw from
    its softmax (the policy as trained: in a game of simultaneous bids an equilibrium is a
    mix, and any fixed choice can be exploited). ``sample`` None: as the card says
    (its ``"sample"`` entry, default false)."""

    def __init__(self, path: str | Path, seed: int | None = None,
                 sample: bool | None = None) -> None:
        super().__init__(seed)
        path = resolve(path)
        self.card = read_card(path)
        if sample is None:
            sample = self.card.get("sample", False)
        if sample not in (True, False):  # also 0 and 1, as a spec's options give them
            raise BotLoadError(f"sample must be true or false (1 or 0), got {sample!r}")
        self.sample = bool(sample)
        onnx_path = card_path(path).with_name(self.card["onnx"])
        if not onnx_path.is_file():
            raise BotLoadError(f"the card names {str(onnx_path)!r}, which does not exist")
        self.session = _session(onnx_path)
        self.path = str(onnx_path)
        self.game = self.card["game"]
        self.name = str(path)
        self.encoder = observation_encoder(self.card, path)
        self._encode = self.encoder.encode
        self._num_actions = int(self.card["num_actions"])
        self._obs_size = int(self.card["obs_size"])

    def _inputs(self, views: Sequence[PlayerView], legal_actions: Sequence[Sequence[int]]
                ) -> dict[str, np.ndarray]:
        """The network's inputs for a batch of views: observations and action masks."""
        obs = np.empty((len(views), self._obs_size), dtype=np.float32)
        mask = np.zeros((len(views), self._num_actions), dtype=np.float32)
        for i, (view, legal) in enumerate(zip(views, legal_actions, strict=True)):
            o = np.asarray(self._encode(view), dtype=np.float32).ravel()
            if o.shape[0] != self._obs_size:
                raise ValueError(f"{self.name}: the view encodes to {o.shape[0]} floats, the "
                                 f"network takes {self._obs_size}")
            obs[i] = o
            for a in legal:
                if isinstance(a, bool) or not 0 <= int(a) < self._num_actions:
                    raise ValueError(f"{self.name}: legal action {a!r} is outside "
                                     f"0..{self._num_actions - 1}")
                mask[i, int(a)] = 1.0
        return {"observation": obs, "action_mask": mask}

    def logits(self, view: PlayerView, legal_actions: Sequence[int]) -> np.ndarray:
        """The network's masked logits for ``view`` (illegal actions at -1e8)."""
        return self.session.run(None, self._inputs([view], [legal_actions]))[0][0]

    def act(self, view: PlayerView, legal_actions: Sequence[int]) -> int:
        if len(legal_actions) == 0:
            raise ValueError(f"{self.name}: no legal actions to choose from")
        return self._choose(self.logits(view, legal_actions)[None])[0]

    def _choose(self, logits: np.ndarray) -> list[int]:
        """The argmax of each row of masked logits, or a draw from its softmax. Logits that
        are not finite raise: their argmax would be an arbitrary move, played silently."""
        if not np.isfinite(logits).all():
            bad = logits[~np.isfinite(logits)][0]
            raise ValueError(f"{self.name}: the network output a non-finite logit ({bad}); "
                             f"it cannot choose a move")
        if self.sample:  # the Gumbel-max draw: masked logits (-1e8) are never drawn
            logits = logits + self.rng.gumbel(size=logits.shape)
        return [int(a) for a in np.argmax(logits, axis=1)]

    def act_batch(self, views: Sequence[PlayerView], legal_actions: Sequence[Sequence[int]]
                  ) -> list[int]:
        """The masked argmax of each view, in one run of the network."""
        if any(len(legal) == 0 for legal in legal_actions):
            raise ValueError(f"{self.name}: a view with no legal actions to choose from")
        if not views:
            return []
        return self._choose(self.session.run(None, self._inputs(views, legal_actions))[0])

    def probabilities(self, view: PlayerView, legal_actions: Sequence[int]) -> dict[int, float]:
        """The policy's masked softmax over the legal actions."""
        return self.probabilities_batch([view], [legal_actions])[0]

    def probabilities_batch(self, views: Sequence[PlayerView],
                            legal_actions: Sequence[Sequence[int]]) -> list[dict[int, float]]:
        """The masked softmax of each view, in one run of the network."""
        if not views:
            return []
        out = []
        logits = self.session.run(None, self._inputs(views, legal_actions))[0]
        for z, legal_actions_i in zip(logits, legal_actions, strict=True):
            legal = [int(a) for a in legal_actions_i]
            p = np.exp(z[legal] - z[legal].max())
            p /= p.sum()
            out.append(dict(zip(legal, p.tolist(), strict=True)))
        return out


SEARCH_KNOBS = ("worlds", "top_k", "min_prior", "z", "belief")


def load(path: str | Path, seed: int | None = None, sample: bool | None = None,
         **search: Any) -> Bot:
    """A ``Bot`` from an exported file (``.onnx`` or its ``.json`` card).

    A card with a ``search`` entry (``{"worlds": 16, "top_k": 3}``) ships the
    network inside ``cardrl.agents.search.SearchBot``: the policy proposes, determinized
    play-outs decide. Keywords override the card's knobs; ``worlds=0`` loads the
    bare network. ``sample=1`` (``x.onnx:sample=1``, or ``"sample": true`` in the card)
    draws each move from the network's softmax instead of playing its argmax; ``sample=0``
    plays the argmax whatever the card says.
    """
    if not isinstance(path, str | os.PathLike) or not str(path):
        raise BotLoadError(f"a bot file is a path to an .onnx file or its .json card, "
                           f"got {path!r}")
    unknown = sorted(set(search) - set(SEARCH_KNOBS))
    if unknown:
        raise BotLoadError(f"unknown option(s) {unknown} for bot file {str(path)!r}; it takes "
                           f"seed, sample and the search knobs {list(SEARCH_KNOBS)}")
    net = OnnxBot(path, seed=seed, sample=sample)
    knobs = {**(net.card.get("search") or {}), **search}
    if not knobs or knobs.get("worlds") == 0:
        return net
    game = net.game
    assert game is not None  # from the card
    try:
        bot = SearchBot(net, game, seed=seed, **knobs)
    except (TypeError, ValueError) as err:
        raise BotLoadError(f"bad search settings {knobs} for {str(path)!r}: {err}") from None
    bot.card = net.card
    return bot
