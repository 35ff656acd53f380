"""Listening for the other servers on a shared PostgreSQL database.

Servers sharing a database tell each other what changed with PostgreSQL's
``NOTIFY`` (``Store.notify``): a table moved on, someone arrived at or left a
table, a move waits for the server that runs the table. ``Listener`` holds a
dedicated connection that ``LISTEN``s, in a thread (psycopg's ``notifies``
generator blocks), and hands each payload to the event loop. When the
connection breaks it connects again and says so (``on_connect``), since
notifications sent meanwhile are lost: the hub then reads again what it shows.
``Heartbeat`` renews the server's leases from another thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable

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
