"""Listening for the other servers on a shared PostgreSQL database.

Servers sharing a database tell each other what changed with PostgreSQL's
``NOTIFY`` (``Store.notify``): a table moved on, someone arrived at or left a
table, a move waits for the server that runs the table. ``Listener`` holds a
dedicated connection that ``LISTEN``s, in a thread (psycopg's ``notifies``
generator blocks), and hands each payload to the event loop. When the
connection breaks it connects again and says so (``on_connect``), since
notifications sent meanwhile are lost: the hub then reads again what it shows.
``Heartbeat`` renews the server's leases from another thread.

``Lanes`` keep the database off the event loop for what every move does: storing
it, telling the other servers, forwarding it to the table's server and taking the
forwarded ones, and the lease bookkeeping of each clock tick. Each lane is a
thread with a connection of its own; a table's work always goes to the same lane,
so it is done in order, while a slow round trip holds up only that lane, never the
sockets of the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any

from cardrl.web.db import CHANNEL

log = logging.getLogger("web")
RETRY = 1.0  # seconds between attempts to connect again


class Listener:
    """``LISTEN`` on ``url`` in a thread; ``on_note(payload)`` and ``on_connect()`` run on
    ``loop``. What the server's own connection (backend ``own_pid``) sent is skipped."""

    def __init__(self, url: str, loop: asyncio.AbstractEventLoop,
                 on_note: Callable[[str], None], on_connect: Callable[[], None],
                 own_pid: int | None = None) -> None:
        self.url = url
        self.own_pid = own_pid
        self.loop = loop
        self.on_note = on_note
        self.on_connect = on_connect
        self.stopping = threading.Event()
        self.ready = threading.Event()  # listening (at least once)
        self.thread = threading.Thread(target=self._run, name="cardrl-listen", daemon=True)

    def start(self, timeout: float = 10.0) -> Listener:
        self.thread.start()
        if not self.ready.wait(timeout):
            raise RuntimeError(f"could not LISTEN on the database in {timeout:g} s")
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(5)

    def _run(self) -> None:
        import psycopg

        first = True
        while not self.stopping.is_set():
            try:
                with psycopg.connect(self.url, autocommit=True) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    self.ready.set()
                    if not first:
                        self.loop.call_soon_threadsafe(self.on_connect)
                    first = False
                    while not self.stopping.is_set():
                        for note in conn.notifies(timeout=0.5):
                            if note.pid != self.own_pid:
                                self.loop.call_soon_threadsafe(self.on_note, note.payload)
            except Exception as err:  # the database went away: try again
                if self.stopping.is_set():
                    return
                log.warning("listening on the database failed (%s); again in %g s", err, RETRY)
                self.stopping.wait(RETRY)


class Heartbeat:
    """Renews a server's heartbeat and table leases every third of a lease, in a thread with
    its own connection: a server whose event loop is busy keeps its tables; a dead process
    (or one cut off from the database) loses them once they expire."""

    def __init__(self, url: str, server_id: str, lease: float) -> None:
        self.url = url
        self.server_id = server_id
        self.lease = lease
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, name="cardrl-beat", daemon=True)

    def start(self) -> Heartbeat:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(5)

    def _run(self) -> None:
        from cardrl.web.db import Store

        store = None
        while not self.stopping.wait(self.lease / 3):
            try:
                store = store or Store(self.url)
                store.heartbeat(self.server_id, self.lease)
            except Exception as err:  # the database went away: the leases may lapse
                log.warning("heartbeat failed (%s)", err)
                if store is not None:
                    with contextlib.suppress(Exception):
                        store.close()
                store = None
        if store is not None:
            store.close()


class Lanes:
    """``count`` threads (and two named ones), each with its own ``Store`` on ``url``;
    ``run(key, fn, *args)`` calls ``fn(store, *args)`` on lane ``key % count`` and is
    awaited on the event loop. Work given one key is done in the order given."""

    def __init__(self, url: str, count: int = 8, delay: float = 0.0) -> None:
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 64:
            raise ValueError(f"database lanes are 1 to 64 threads, got {count!r}")
        self.url, self.delay = url, delay
        self.pools = [ThreadPoolExecutor(1, thread_name_prefix=f"cardrl-db{i}")
                      for i in range(count)]
        # the notes to the other servers and the clock's lease bookkeeping: lanes of their own;
        # reads that change nothing (sessions, chat history): a few threads in any order
        self.named = {name: ThreadPoolExecutor(1, thread_name_prefix=f"cardrl-{name}")
                      for name in ("notes", "clock")}
        self.named["read"] = ThreadPoolExecutor(4, thread_name_prefix="cardrl-read")
        # accounts and sessions (sign up, sign in, guests, settings): no table's order to keep
        self.named["accounts"] = ThreadPoolExecutor(2, thread_name_prefix="cardrl-accounts")
        # the arena's look for work every few seconds
        self.named["arena"] = ThreadPoolExecutor(1, thread_name_prefix="cardrl-arena")
        self.local = threading.local()
        self.stores: list[Any] = []
        self.lock = threading.Lock()
        self.inflight: dict[int, set[Future]] = {}  # each table's work not done yet
        self.closed = False  # the server is stopping: no more work

    def _call(self, fn: Callable, args: tuple) -> Any:
        store = getattr(self.local, "store", None)
        if store is None:
            from cardrl.web.db import Store

            store = self.local.store = Store(self.url, delay=self.delay)
            with self.lock:
                self.stores.append(store)
        try:
            return fn(store, *args)
        except Exception:
            with contextlib.suppress(Exception):  # a broken connection: a new one next time
                store.close()
            with self.lock:
                self.stores.remove(store)
            self.local.store = None
            raise

    def run(self, key: int | str, fn: Callable, *args) -> asyncio.Future:
        """``key``: a table's id, or "notes", "clock", "read", "accounts" or "arena"."""
        if isinstance(key, str):
            return asyncio.wrap_future(self.named[key].submit(self._call, fn, args))
        done = self.pools[key % len(self.pools)].submit(self._call, fn, args)
        with self.lock:
            self.inflight.setdefault(key, set()).add(done)
        done.add_done_callback(lambda f: self._settled(key, f))
        return asyncio.wrap_future(done)

    def _settled(self, key: int, done: Future) -> None:
        with self.lock:
            work = self.inflight.get(key)
            if work is not None:
                work.discard(done)
                if not work:
                    del self.inflight[key]

    def pending(self, tables: Iterable[int] | None = None) -> list[Future]:
        """The work given so far for ``tables`` (None: every table) and not done yet."""
        with self.lock:
            keys = list(self.inflight) if tables is None else tables
            return [f for k in keys for f in self.inflight.get(k, ())]

    def notify_after(self, notes: list[str], tables: Iterable[int]) -> asyncio.Future:
        """Send ``notes`` in the notes lane once the work given so far for ``tables`` is
        stored: a note never tells the other servers to read what is not written yet."""
        earlier = self.pending(tables)

        def send(store: Any) -> None:
            wait(earlier)
            store.notify(notes)

        return self.run("notes", send)

    def close(self) -> None:
        self.closed = True
        for pool in [*self.pools, *self.named.values()]:
            pool.shutdown(wait=True, cancel_futures=True)
        with self.lock:
            for store in self.stores:
                with contextlib.suppress(Exception):
                    store.close()
            self.stores.clear()
