"""A bot that runs in its own process, timed: the tournament's side of ``cardrl.agents.server``.

``ProcessBot`` is a ``Bot`` whose every call goes to a child process. Calls
that need no answer (``reset`` and the hooks ``start_game``, ``receive_cards``,
``observe_move``) are queued and sent with the next one that does (``act``,
``report_score``), so a move costs one round trip. Each answer must come
within the time limit; a bot that is late is killed. Failures raise
``ProcessBotError`` with a kind: ``load`` (the bot could not be built), ``raised``,
``timeout`` or ``crashed`` (the process died).

Processes are kept per lineup entry and reused from game to game in one
tournament process or worker (``get``), since starting Python costs far more
than a game; ``close_all`` ends them.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import select
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

from cardrl.agents.base import Bot

LOAD_TIME_LIMIT = 60.0  # seconds to start Python, import the bot and build it
# bytes of address space a bot process may map (None: no limit); a process that sets it
# (the web arena's match worker) limits every bot it starts
MEMORY_LIMIT: int | None = None


class ProcessBotError(RuntimeError):
    """A process bot failed: ``kind`` is load, raised, timeout or crashed."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind

    def __reduce__(self):
        return (type(self), (self.kind, str(self)))


class ProcessBot(Bot):
    def __init__(self, spec: str, game: str, time_limit: float,
                 load_limit: float = LOAD_TIME_LIMIT, wait: bool = True,
                 memory_limit: int | None = None) -> None:
        """Start the process and ask it to load the bot; with ``wait`` (default) wait for
        it here, else in ``wait_loaded`` (so several bots can start at once).
        ``memory_limit``: bytes of address space (default ``MEMORY_LIMIT``)."""
        super().__init__()
        self.name = spec
        self.spec = spec
        self.time_limit = time_limit
        self._queue: list[list] = []
        self._buffer = b""
        self._proc = subprocess.Popen(  # the installed cardrl; a bot file's path from here
            [sys.executable, "-m", "cardrl.agents.server", spec, "--ready"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, cwd=os.getcwd(),
            preexec_fn=_limit_memory(memory_limit or MEMORY_LIMIT))
        self._load_limit = load_limit
        self._loaded = False  # the server's first line says whether the bot was built
        if wait:
            self.wait_loaded()

    def wait_loaded(self) -> None:
        """Wait for the load answer (raises ``ProcessBotError`` of kind load)."""
        if self._loaded:
            return
        try:
            info = self._answer(self._load_limit, "load")
        except BaseException:
            self.close()
            raise
        self._loaded = True
        self.game = info.get("game") if isinstance(info, dict) else None

    # ------------------------------------------------------------ transport
    def _request(self, msg: dict, limit: float, kind_on_error: str = "raised") -> Any:
        self._send(msg, kind_on_error)
        return self._answer(limit, kind_on_error)

    def _send(self, msg: dict, kind_on_error: str) -> None:
        if self._proc.poll() is not None:
            raise ProcessBotError("crashed", f"crashed: its process had exited (code "
                                             f"{self._proc.returncode})")
        try:
            self._proc.stdin.write(json.dumps(msg).encode() + b"\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise ProcessBotError("load" if kind_on_error == "load" else "crashed",
                                  f"crashed: its process exited (code {self._proc.wait()})") \
                from None

    def _answer(self, limit: float, kind_on_error: str) -> Any:
        line = self._read_line(limit, kind_on_error)
        reply = json.loads(line)
        if "error" in reply:
            raise ProcessBotError(kind_on_error, f"raised {reply['error']}")
        return reply["ok"]

    def _read_line(self, limit: float, kind_on_error: str) -> bytes:
        fd = self._proc.stdout.fileno()
        deadline = time.monotonic() + limit
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            ready = select.select([fd], [], [], max(0.0, left))[0] if left > 0 else []
            if not ready:
                self.close()
                what = "load" if kind_on_error == "load" else "answer"
                raise ProcessBotError("load" if kind_on_error == "load" else "timeout",
                                      f"did not {what} within the time limit of {limit:g} s")
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                code = self._proc.wait()
                raise ProcessBotError("load" if kind_on_error == "load" else "crashed",
                                      f"crashed: its process exited (code {code}) without "
                                      "answering")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def _call(self, method: str, *args) -> Any:
        calls = self._queue + [[method, *args]]
        self._queue = []
        return self._request({"calls": calls}, self.time_limit)

    # ------------------------------------------------------------ Bot calls
    def reset(self, seed: int | None = None) -> None:
        self._queue.append(["reset", seed])

    def start_game(self, seat: int, num_players: int, parameters: dict) -> None:
        self._queue.append(["start_game", seat, num_players, parameters])

    def receive_cards(self, cards: list[int]) -> None:
        self._queue.append(["receive_cards", list(cards)])

    def observe_move(self, seat: int, action: int) -> None:
        self._queue.append(["observe_move", seat, action])

    def act(self, view: Any, legal_actions: Sequence[int]) -> Any:
        result = self._call("act", view.to_dict(), list(legal_actions))
        return result["unreadable"] if isinstance(result, dict) else result

    def report_score(self) -> Any:
        return self._call("report_score")

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        for f in (self._proc.stdin, self._proc.stdout):
            with contextlib.suppress(OSError):
                f.close()

    @property
    def alive(self) -> bool:
        return self._proc.poll() is None


def _limit_memory(limit: int | None):
    """A ``preexec_fn`` that caps the child's address space: past it, allocations fail
    (the bot raises or crashes) instead of the machine running out of memory."""
    if limit is None:
        return None

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return apply


_PROCESSES: dict[tuple, ProcessBot] = {}


def get(entry: int, spec: str, game: str, time_limit: float) -> ProcessBot:
    """The process bot of a lineup entry, started on first use (raises ``ProcessBotError``)."""
    key = (entry, spec, game, time_limit)
    bot = _PROCESSES.get(key)
    if bot is None or not bot.alive:
        _PROCESSES.pop(key, None)
        bot = ProcessBot(spec, game, time_limit)
        _PROCESSES[key] = bot
    bot.wait_loaded()
    return bot


def start_all(bots: list[tuple[int, str, str, float]]) -> list[ProcessBot | ProcessBotError]:
    """``get`` for several (entry, spec, game, time_limit) at once: the processes start in
    parallel. Each item's bot, or the error that kept it from loading."""
    started = []
    for entry, spec, game, limit in bots:
        key = (entry, spec, game, limit)
        bot = _PROCESSES.get(key)
        if bot is None or not bot.alive:
            try:
                bot = _PROCESSES[key] = ProcessBot(spec, game, limit, wait=False)
            except ProcessBotError as err:
                started.append(err)
                continue
        started.append(bot)
    out = []
    for item, (entry, spec, game, limit) in zip(started, bots, strict=True):
        if isinstance(item, ProcessBot):
            try:
                item.wait_loaded()
            except ProcessBotError as err:
                _PROCESSES.pop((entry, spec, game, limit), None)
                item = err
        out.append(item)
    return out


def discard(bot: Bot) -> None:
    """End a process bot that failed, so the next use starts afresh."""
    for key, b in list(_PROCESSES.items()):
        if b is bot:
            del _PROCESSES[key]
            b.close()


def close_all() -> None:
    for bot in _PROCESSES.values():
        bot.close()
    _PROCESSES.clear()
