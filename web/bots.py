"""The bots a web table may seat: only those on the operator's list, by name.

A seat's bot is a spec string stored with the table, so a restarted server
builds the same bot again: a registry name (``"spades/expert"``; the operator
may list one with options, ``"spades/search:worlds=8"``) or a shipped
checkpoint (``"checkpoint:spades-killer.onnx"``, a file of ``cardrl.checkpoints``).

A request only ever picks a name from ``Bots.offered``: the spec it sends is
compared, as a string, with that list before anything is built, so no request
makes the server import, open or even look for a file it names, and the
refusal reads the same whether such a file exists or not.

The arena's uploaded bots (``arena:<id>``, ``cardrl.web.arena``) join the list through
``Bots.external``: they are listed, checked and played by the arena, each in its own
limited process, and never built in the server.

Bots that think for long (search, exact solving) play in a process pool
(``BotRunner``), so one table's thinking never holds up another's moves; the
fast rule bots play on the event loop, where a move costs microseconds and no
process hop.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from cardrl import agents
from cardrl.agents.base import Bot
from cardrl.agents.learned import BotLoadError, read_card, resolve, shipped_bots, shipped_folder
from cardrl.agents.search import SearchBot
from cardrl.envs.games import game_names, get_game

log = logging.getLogger("web")
PREFIX = "checkpoint:"
SLOW_MOVE = 0.02  # CPU seconds: a bot on the event loop that thinks longer moves to the pool


class BotError(ValueError):
    """A bot spec that is not offered, or a bot that cannot play the rules asked for."""


# ------------------------------------------------------------- building
def _registry_game(name: str) -> str | None:
    """The game a registry name belongs to; None for a bot of any game ('random')."""
    return name.split("/", 1)[0] if "/" in name else None


def shipped_checkpoints(game: str) -> list[str]:
    """``checkpoint:<file>`` of every shipped network for ``game`` whose card fits the
    installed game (one trained on an older observation version would fail in play)."""
    out = []
    try:
        shipped = shipped_bots(game)
    except BotLoadError:  # no shipped bots as files here
        return out
    for spec in shipped:
        path = resolve(spec)
        try:
            read_card(path)
        except (BotLoadError, OSError, ValueError, KeyError):
            continue
        out.append(PREFIX + path.name)
    return out


def construct(spec: str) -> Bot:
    """Build the bot of an allowed ``spec`` (callers check the list first)."""
    if spec.startswith(PREFIX):
        name = spec.removeprefix(PREFIX)
        path = shipped_folder() / name
        if not name or "/" in name or "\\" in name or name.startswith(".") \
                or not name.endswith(".onnx") or not path.is_file():
            raise BotError(f"no shipped checkpoint {name!r}")
        return agents.load(str(path))
    name, _ = agents.parse_spec(spec)
    if name.endswith((".py", ".onnx")) or name not in agents.names():
        raise BotError(f"{spec!r} is not a registered bot")
    return agents.make(spec)


def _is_slow(bot: Bot) -> bool:
    """Whether a bot thinks for long: it says so (``slow``), or it is a search."""
    return bool(getattr(bot, "slow", False)) or isinstance(bot, SearchBot)


class Bots:
    """The operator's list of bots, what each can play, and which think for long.

    ``allowed``: the specs a table may seat (registry names, possibly with
    options, and ``checkpoint:<file>`` names); None allows every registered
    bot and every shipped checkpoint that fits its game. The list is checked
    when the server starts: a path or an unknown name is an error then.
    """

    def __init__(self, allowed: Iterable[str] | None = None) -> None:
        # more bots from elsewhere (the arena's uploads, ``cardrl.web.arena.Arena``): specs it
        # ``owns`` are listed, checked, described and played by it, never built here
        self.external: Any = None
        self._allowed: list[str] | None = None
        self._game_of: dict[str, str | None] = {}
        self._bots: dict[str, Bot] = {}
        self._can: dict[tuple, str | None] = {}
        self._slow: dict[str, bool] = {}
        if allowed is not None:
            self._allowed = []
            for spec in allowed:
                if not isinstance(spec, str) or not spec.strip():
                    raise BotError(f"a bot in the allowed list is a name, got {spec!r}")
                spec = spec.strip()
                bot = construct(spec)  # a path or an unknown name fails here, at startup
                self._bots[spec] = bot
                self._game_of[spec] = (getattr(bot, "game", None) if spec.startswith(PREFIX)
                                       else _registry_game(agents.parse_spec(spec)[0]))
                self._allowed.append(spec)

    # ---------------------------------------------------------- lists
    def specs(self, game: str) -> list[str]:
        """Every allowed spec that plays ``game`` (under some rules)."""
        extra = self.external.specs(game) if self.external is not None else []
        if self._allowed is None:
            names = agents.names(game)
            return ([n for n in names if n.startswith(game + "/")]
                    + [n for n in names if "/" not in n] + shipped_checkpoints(game) + extra)
        return [s for s in self._allowed if self._game_of[s] in (None, game)] + extra

    def all_specs(self) -> list[str]:
        out: list[str] = []
        for game in game_names():
            try:
                out += [s for s in self.specs(game) if s not in out]
            except (ImportError, ValueError):
                continue
        return out

    def offered(self, game: str, rules: Any) -> list[str]:
        """The allowed specs that can play ``game`` under ``rules``, in list order."""
        return [s for s in self.specs(game) if self.cannot_play(s, game, rules) is None]

    def default(self, game: str, rules: Any) -> str | None:
        """The strongest offered rule bot (``cardrl.agents.strongest``), else the first offered."""
        offered = self.offered(game, rules)
        try:
            strongest = list(agents.strongest(game))
        except ValueError:
            strongest = []
        for spec in strongest + offered:
            if spec in offered:
                return spec
        return None

    def fallback(self, game: str, rules: Any, instead_of: str) -> str | None:
        """The bot to seat when ``instead_of`` failed: the strongest other offered bot
        that thinks fast, else any other offered one."""
        offered = [s for s in self.offered(game, rules) if s != instead_of]
        try:
            strongest = [s for s in agents.strongest(game) if s in offered]
        except ValueError:
            strongest = []
        ranked = strongest + [s for s in offered if s not in strongest]
        fast = [s for s in ranked if not self.is_slow(s)]
        return (fast or ranked or [None])[0]

    def owned(self, spec: str) -> bool:
        """Whether ``spec`` is one of the external bots (played elsewhere, not built here)."""
        return self.external is not None and self.external.owns(spec)

    def label(self, spec: str) -> str:
        """An external bot's name for people at a table ("Ace (by ann)"), else the spec."""
        return self.external.label(spec) if self.owned(spec) else spec

    def describe(self, spec: str) -> str:
        """The bot's own one-line description (the registry's help, or its card)."""
        if self.owned(spec):
            return self.external.describe(spec)
        if spec.startswith(PREFIX):
            card = getattr(self.instance(spec), "card", {}) or {}
            search = " with search" if card.get("search") else ""
            return f"a trained network{search} ({card.get('preset', '?')} rules)"
        return agents.describe(agents.parse_spec(spec)[0])

    # ---------------------------------------------------------- checks
    def check(self, spec: Any, game: str, rules: Any) -> str:
        """``spec`` itself if a table of ``game`` under ``rules`` may seat it; else BotError.

        The spec is matched against the list as a string first: nothing is built,
        opened or imported for a spec that is not on it.
        """
        offered = self.specs(game)
        if not isinstance(spec, str) or spec.strip() not in offered:
            shown = spec if isinstance(spec, str) and len(spec) <= 80 else "that bot"
            raise BotError(f"bot {shown!r} is not offered for {game}; "
                           f"choose from {', '.join(self.offered(game, rules))}")
        spec = spec.strip()
        reason = self.cannot_play(spec, game, rules)
        if reason is not None:
            raise BotError(f"bot {spec!r} cannot play these {game} rules: {reason}")
        return spec

    def cannot_play(self, spec: str, game: str, rules: Any) -> str | None:
        """Why the allowed ``spec`` cannot play ``game`` under ``rules``; None if it can."""
        if self.owned(spec):  # not cached: an uploaded bot may be withdrawn
            return self.external.reason(spec, game, rules)
        key = (spec, game, rules)
        if key not in self._can:
            if len(self._can) > 10_000:  # rules come from requests: keep the cache bounded
                self._can.clear()
            self._can[key] = self._reason(spec, game, rules)
        return self._can[key]

    def _reason(self, spec: str, game: str, rules: Any) -> str | None:
        try:
            bot = self.instance(spec)
        except Exception as err:  # a bot that cannot be built is not offered
            log.warning("bot %s cannot be built: %s", spec, err)
            return f"it cannot be built here ({err})"
        if getattr(bot, "game", None) not in (None, game):
            return f"it plays {bot.game}"
        card = getattr(bot, "card", None)
        players = get_game(game).num_players(rules)
        if isinstance(card, dict) and card.get("num_players") not in (None, players):
            return f"it was trained for {card['num_players']} players, not {players}"
        check = getattr(bot, "check_rules", None)
        if check is not None:
            try:
                check(rules)
            except ValueError as err:
                return str(err)
        return None

    def instance(self, spec: str) -> Bot:
        """One shared instance per spec, for checks and for moves on the event loop."""
        if self.owned(spec):
            raise BotError(f"bot {spec!r} plays only in its own process")
        bot = self._bots.get(spec)
        if bot is None:
            bot = self._bots[spec] = construct(spec)
        return bot

    def is_slow(self, spec: str) -> bool:
        if self.owned(spec):
            return True
        if spec not in self._slow:
            self._slow[spec] = _is_slow(self.instance(spec))
        return self._slow[spec]

    def mark_slow(self, spec: str) -> None:
        self._slow[spec] = True


# ------------------------------------------------------- the process pool
_WORKER: dict[str, Any] = {"allowed": frozenset(), "bots": {}}


def _init_worker(allowed: Sequence[str]) -> None:
    _WORKER["allowed"] = frozenset(allowed)
    _WORKER["bots"] = {}
    os.nice(10)  # a searching bot yields the cores to the server's event loop
    parent = os.getppid()

    def watch() -> None:  # a worker outlives no server, however the server ended
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _pool_act(spec: str, seed: int, view: Any, legal: Sequence[int]) -> int:
    """A move of ``spec`` in a pool worker; the worker builds only allowed specs."""
    if spec not in _WORKER["allowed"]:
        raise BotError(f"bot {spec!r} is not on this server's list")
    bot = _WORKER["bots"].get(spec)
    if bot is None:
        bot = _WORKER["bots"][spec] = construct(spec)
    bot.reset(seed)
    return int(bot.act(view, legal))


class BotRunner:
    """Plays bot moves: fast bots on the event loop, slow ones in worker processes.

    Every move resets the bot with a seed made from the table's seed, the seat
    and the move number, so a move does not depend on where it was computed or
    on other tables (bots act from the view alone).
    """

    def __init__(self, bots: Bots, processes: int = 2) -> None:
        self.bots = bots
        self.processes = max(1, processes)
        self._pool: ProcessPoolExecutor | None = None
        self.closed = False

    def _executor(self) -> ProcessPoolExecutor:
        if self.closed:
            raise RuntimeError("the server is stopping: no more bot moves")
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.processes, mp_context=multiprocessing.get_context("spawn"),
                initializer=_init_worker, initargs=(self.bots.all_specs(),))
        return self._pool

    def prepare(self, specs: Iterable[str]) -> None:
        """Start the worker processes now if one of ``specs`` is slow (a table seating it
        was made or resumed), so that its first move does not wait for them to start."""
        if self._pool is None and not self.closed and any(
                self.bots.is_slow(s) and not self.bots.owned(s) for s in specs):
            pool = self._executor()
            for _ in range(self.processes):
                pool.submit(os.getpid)

    async def act(self, spec: str, seed: int, view: Any, legal: Sequence[int]) -> int:
        if self.bots.owned(spec):
            return await self.bots.external.act(spec, seed, view, legal)
        if not self.bots.is_slow(spec):
            bot = self.bots.instance(spec)
            bot.reset(seed)
            start = time.thread_time()  # the bot's own work, not time the loop was preempted
            action = int(bot.act(view, legal))
            took = time.thread_time() - start
            if took > SLOW_MOVE:
                log.warning("bot %s thought for %.0f ms on the event loop; it plays in the "
                            "pool from now on", spec, took * 1000)
                self.bots.mark_slow(spec)
            return action
        loop = asyncio.get_running_loop()
        for attempt in (1, 2):
            pool = self._executor()
            try:
                return await loop.run_in_executor(pool, _pool_act, spec, seed, view, list(legal))
            except BrokenProcessPool:
                # a worker died (killed, out of memory): a new pool, and one more try
                log.warning("the bot pool broke during a move of %s (try %d)", spec, attempt)
                if self._pool is pool:
                    self._pool = None
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def shutdown(self) -> None:
        """Stop the workers now, also those thinking (their moves are not needed)."""
        self.closed = True
        if self._pool is not None:
            workers = list((getattr(self._pool, "_processes", None) or {}).values())
            self._pool.shutdown(wait=False, cancel_futures=True)
            for worker in workers:
                worker.terminate()
            self._pool = None
