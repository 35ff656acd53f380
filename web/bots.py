"""The bots a table may seat: any registry bot, or a shipped checkpoint.

A seat's bot is written as a spec string and stored with the table, so a
restarted server builds the same bot again: ``"spades/expert"`` (registry, with
options as ``agents.make`` takes them) or ``"checkpoint:spades-killer.onnx"``
(a file in ``checkpoints/``, loaded by ``agents.load``).
"""

from __future__ import annotations

from pathlib import Path

import agents
from agents.base import Bot

CHECKPOINTS = Path(__file__).resolve().parent.parent / "checkpoints"
PREFIX = "checkpoint:"


def make_bot(spec: str, game: str, seed: int | None = None) -> Bot:
    """A new bot for ``game`` from ``spec``; a clear ValueError if it cannot play it."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"a bot is named like 'spades/expert', got {spec!r}")
    spec = spec.strip()
    if spec.startswith(PREFIX):
        name = spec.removeprefix(PREFIX)
        path = CHECKPOINTS / name
        if "/" in name or "\\" in name or not path.is_file():
            raise ValueError(f"no checkpoint {name!r} in {CHECKPOINTS}")
        if not hasattr(agents, "load"):
            raise ValueError("this installation cannot load checkpoints (no agents.load)")
        bot = agents.load(str(path))
    else:
        bot = agents.make(spec)
    if bot.game not in (None, game):
        raise ValueError(f"bot {spec!r} plays {bot.game}, not {game}")
    bot.reset(seed)
    return bot


def bot_names(game: str) -> list[str]:
    """Every bot spec the lobby offers for ``game`` (registry names, then checkpoints)."""
    names = [n for n in agents.names(game) if n.startswith(game + "/")]
    names += [n for n in agents.names(game) if "/" not in n]
    if hasattr(agents, "load") and CHECKPOINTS.is_dir():
        names += [PREFIX + p.name for p in sorted(CHECKPOINTS.glob("*.onnx"))
                  if p.name.startswith(game) and _loadable(p)]
    return names


def _loadable(path: Path) -> bool:
    """Whether the file's card fits the installed game (a bot trained on an older
    observation version would only fail when a player picks it)."""
    from agents.learned import BotLoadError, read_card

    try:
        read_card(path)
    except BotLoadError:
        return False
    return True


def default_bot(game: str) -> str:
    """The game's strongest rule bot (``agents.strongest``)."""
    try:
        return agents.strongest(game)[0]
    except ValueError:
        return "random"
