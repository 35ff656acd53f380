"""Bots by name: ``make("spades/count-bid")``, with options ``"spades/expert:nil=set-safe"``.

A spec is ``name[:key=value,key=value]``; values are parsed as int, float,
bool or left as strings, and passed to the bot's constructor.

Where the names come from: ``random`` (any game); each game's rule bots, the
``BOTS`` table (name -> (factory, help)) of its package ``agents/<game>/``, found
by the game's name (``cardrl.envs.games.game_module``); ``<game>/search`` for every game
that declares ``sample_worlds`` (and moves in turn), searching around its strongest rule
bot; ``openspiel/ismcts``, OpenSpiel's IS-MCTS (``cardrl.agents.openspiel``); and
bots added with ``register`` (a bot defined elsewhere) or, for a while, ``registered``.

A name ending in ``.py`` is a path to a Python file that defines a bot, the way
a course team hands in its player module (``make("teams/red.py:depth=2")``).
The file defines one of, looked up in this order: a function ``make_bot(**options)``
returning a ``Bot``; a ``Bot`` instance named ``BOT`` (no options); or exactly
one ``Bot`` subclass, built with the options as keywords. Loading a file runs
its code: tournaments load such files in a separate process (``eval``).

A name ending in ``.onnx`` is an exported trained bot (``cardrl.agents.learned.load``:
the network and its JSON card beside it), e.g. ``make("runs/mine/bot.onnx")``, and
``cardrl/<name>`` a shipped one, e.g. ``make("cardrl/spades-killer:worlds=0")``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import inspect
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from cardrl.agents.base import Bot, RandomBot
from cardrl.agents.learned import is_shipped, load
from cardrl.agents.search import SearchBot
from cardrl.envs.games import Game, game_module, game_names, get_game

Entry = tuple[Callable[..., Bot], str]  # (factory, help)


def openspiel_ismcts(**options) -> Bot:
    """OpenSpiel's IS-MCTS (``cardrl.agents.openspiel``, the ``openspiel`` extra: imported here,
    when such a bot is made, so that the registry needs no OpenSpiel)."""
    try:
        module = importlib.import_module("cardrl.agents.openspiel")
    except ModuleNotFoundError as err:
        raise ValueError(f"openspiel/ismcts needs OpenSpiel (pip install -e '.[openspiel]'): "
                         f"{err}") from None
    return module.ISMCTSBot(**options)


# bots that are no game's rule bots: ``random``, OpenSpiel's IS-MCTS (any game with a world
# sampler), and what ``register`` adds
_EXTRA: dict[str, Entry] = {
    "random": (RandomBot, "uniformly random legal action (any game)"),
    "openspiel/ismcts": (openspiel_ismcts, "OpenSpiel's IS-MCTS on the current hand (any game "
                         "with a world sampler; simulations=100, uct_c=2, rollouts=1, "
                         "worlds=-1, returns=margin|win, final=max_visit_count; agents.openspiel)"),
}


def register(name: str, factory: Callable[..., Bot], help: str = "") -> None:
    """Add a bot defined outside ``agents/<game>/`` to the registry, for good."""
    known = _EXTRA.get(name) or _bots_of_name(name).get(name)
    if known is not None and known[0] is not factory:
        raise ValueError(f"bot name {name!r} is already registered")
    _EXTRA[name] = (factory, help)


@contextmanager
def registered(bots: Mapping[str, Entry]) -> Iterator[None]:
    """The bots ``{name: (factory, help)}`` are registered inside the ``with`` block only
    (a test's bots, e.g. for a toy game of ``cardrl.envs.games.registered``)."""
    taken = [name for name in bots if name in _EXTRA or name in _bots_of_name(name)]
    if taken:
        raise ValueError(f"bot name(s) {taken} are already registered")
    _EXTRA.update(bots)
    try:
        yield
    finally:
        for name in bots:
            _EXTRA.pop(name, None)


_GAME_BOTS: dict[str, tuple[Game, dict[str, Entry]]] = {}  # game -> (its declaration, bots)


def game_bots(game: str) -> dict[str, Entry]:
    """The bots of ``game`` by convention: the ``BOTS`` table of ``agents/<game>/`` (names
    ``<game>/...``), and ``<game>/search`` if the game can sample worlds."""
    declaration = get_game(game)
    cached = _GAME_BOTS.get(game)
    if cached is not None and cached[0] is declaration:
        return cached[1]
    package = game_module("cardrl.agents", game)
    bots = dict(getattr(package, "BOTS", {}))
    stray = [name for name in bots if not name.startswith(f"{game}/")]
    if stray:
        raise ValueError(f"cardrl.agents.{game}.BOTS names {stray}; its bots are named "
                         f"'{game}/...'")
    # determinized play-outs would see a round's simultaneous moves as if made in turn
    if declaration.sample_worlds is not None and declaration.strongest \
            and not declaration.simultaneous:
        default = declaration.strongest[0]
        bots[f"{game}/search"] = (search_factory(game, default), search_description(default))
    _GAME_BOTS[game] = (declaration, bots)
    return bots


def _bots_of_name(name: str) -> dict[str, Entry]:
    """The game bots a name like 'spades/expert' may be among (none for another name)."""
    game = name.split("/", 1)[0]
    return game_bots(game) if "/" in name and game in game_names() else {}


def _entry(name: str) -> Entry | None:
    return _EXTRA.get(name) or _bots_of_name(name).get(name)


def parse_value(text: str):
    """'3' -> 3, '0.5' -> 0.5, 'true' -> True, 'none' -> None, anything else stays text."""
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "none":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text.strip()


def parse_spec(spec: str) -> tuple[str, dict]:
    """'spades/expert:nil=set-safe,prefer=avoid-over' -> ('spades/expert', {...})."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"a bot spec is a name like 'spades/count-bid', got {spec!r}")
    name, _, opts = spec.strip().partition(":")
    kwargs = {}
    for item in filter(None, opts.split(",")):
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ValueError(f"bad option {item!r} in bot spec {spec!r}; expected key=value")
        kwargs[key.strip().replace("-", "_")] = parse_value(value)
    return name, kwargs


def is_file_spec(spec: str) -> bool:
    """Whether a spec names a Python file ('path/to/bot.py[:options]') rather than a bot."""
    return isinstance(spec, str) and spec.strip().partition(":")[0].strip().endswith(".py")


def check_file(path: str) -> Path:
    """The path of a bot file, checked to exist (without running it)."""
    p = Path(path)
    if p.suffix != ".py":
        raise ValueError(f"a bot file must be a .py file, got {path!r}")
    if not p.is_file():
        raise ValueError(f"bot file {path!r} does not exist")
    return p


def load_file(path: str, **options) -> Bot:
    """A bot from a Python file (see the module docstring); raises what the file raises."""
    p = check_file(path).resolve()
    digest = hashlib.sha256(str(p).encode()).hexdigest()[:8]
    module_name = f"cardrl_bot_file_{p.stem}_{digest}"
    module = sys.modules.get(module_name)
    if module is None:
        spec = importlib.util.spec_from_file_location(module_name, p)
        assert spec is not None and spec.loader is not None  # a .py file (check_file)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module  # before running it: dataclasses, pickle need it
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[module_name]
            raise
    if callable(getattr(module, "make_bot", None)):
        bot = module.make_bot(**options)
    elif isinstance(getattr(module, "BOT", None), Bot):
        if options:
            raise ValueError(f"{path}: a BOT instance takes no options, got {options}")
        bot = module.BOT
    else:
        classes = [c for c in vars(module).values() if inspect.isclass(c)
                   and issubclass(c, Bot) and c.__module__ == module_name]
        if len(classes) != 1:
            raise ValueError(f"bot file {path!r} must define make_bot(), a Bot instance BOT, "
                             f"or exactly one Bot subclass; found "
                             f"{[c.__name__ for c in classes] or 'none'}")
        bot = classes[0](**options)
    if not isinstance(bot, Bot):
        raise ValueError(f"bot file {path!r} made {bot!r}, which is not an agents.Bot")
    return bot


def make(spec: str, **kwargs) -> Bot:
    """A new bot from a registry spec or bot file; keyword arguments override spec options."""
    name, opts = parse_spec(spec)
    if name.endswith(".py"):
        opts.update(kwargs)
        bot = load_file(name, **opts)
        bot.name = spec.strip()
        return bot
    if name.endswith(".onnx") or is_shipped(name):  # a network: onnxruntime and numpy
        opts.update(kwargs)
        try:
            bot = load(name, **opts)
        except TypeError as err:
            raise ValueError(f"bad options for bot file {name!r}: {err}") from None
        bot.name = spec.strip()
        return bot
    entry = _entry(name)
    if entry is None:
        raise ValueError(f"unknown bot {name!r}; registered bots: {', '.join(names())}")
    opts.update(kwargs)
    try:
        bot = entry[0](**opts)
    except TypeError as err:
        raise ValueError(f"bad options for bot {name!r}: {err}") from None
    bot.name = spec.strip()
    return bot


def check_bot(spec: str, game: str, role: str = "opponent") -> Bot:
    """The bot ``spec`` names, checked to play ``game``; a clear error naming the ``role``."""
    try:
        bot = make(spec)
    except ValueError as err:
        raise ValueError(f"bad {role} {spec!r}: {err}") from None
    if bot.game not in (None, game):
        raise ValueError(f"{role} {spec!r} plays {bot.game}, not {game}")
    return bot


def names(game: str | None = None) -> list[str]:
    """Registered bot names, all or those that can play ``game``."""
    every = {**_EXTRA}
    for each in game_names():
        every.update(game_bots(each))
    return sorted(n for n in every if game is None or "/" not in n or n.split("/", 1)[0] == game)


def strongest(game: str) -> tuple[str, ...]:
    """The game's strongest rule bots, best first (its declaration's ``strongest``).

    Learned bots are judged against the first; the web lobby seats it by default.
    """
    if game not in game_names():
        raise ValueError(f"no bots for game {game!r}; games with bots: {game_names()}")
    return get_game(game).strongest


def describe(name: str) -> str:
    entry = _entry(name)
    return entry[1] if entry is not None else ""


def search_description(default_bot: str) -> str:
    """What the registry says of ``<game>/search`` (``search_factory``)."""
    return (f"determinized play-outs around a bot (bot=, default {default_bot}; worlds=, "
            f"top_k=, min_prior=, z=, belief=): the bot's move and the other legal moves (up "
            f"to top_k, default 13) each played out on sampled deals of the hidden cards "
            f"(agents.search)")


def search_factory(game: str, default_bot: str) -> Callable[..., SearchBot]:
    """A registry factory: ``<game>/search`` searches around any bot (``bot=`` a spec)."""

    def factory(seed: int | None = None, bot: str = default_bot, worlds: int = 16,
                top_k: int = 13, min_prior: float = 0.0, z: float = 0.0,
                belief: float = 0.0) -> SearchBot:
        return SearchBot(make(bot, seed=seed), game, worlds=worlds, top_k=top_k,
                         min_prior=min_prior, z=z, belief=belief, seed=seed)

    return factory

