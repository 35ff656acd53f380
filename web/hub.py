"""The live server: tables in memory, websocket connections, moves and bots.

Everything runs on one asyncio event loop. A move is checked, stored and
applied with no ``await`` in between, so two messages can never interleave
inside a move. Bots think in a thread pool, so a slow bot holds up only its
own table; its move is then checked like anyone's.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor

from web.db import Store
from web.protocol import parse_message
from web.table import RefusedError, Table

log = logging.getLogger("web")
MAX_BACKLOG = 2000  # messages queued for one connection before it is dropped as too slow


class Conn:
    """One websocket: its user, the tables it follows, an outgoing queue."""

    def __init__(self, user_id: int, user_name: str, send_text: Callable[[str], Awaitable]):
        self.user_id = user_id
        self.user_name = user_name
        self._send_text = send_text
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.tables: set[int] = set()
        self.closed = False

    def send(self, message: dict | str) -> None:
        if self.closed:
            return
        if self.queue.qsize() >= MAX_BACKLOG:
            log.warning("dropping connection of %s: %d messages unsent", self.user_name,
                        self.queue.qsize())
            self.close()
            return
        self.queue.put_nowait(message if isinstance(message, str) else json.dumps(message))

    def close(self) -> None:
        self.closed = True
        self.queue.put_nowait(None)

    async def pump(self) -> None:
        """Send queued messages in order until closed."""
        while (text := await self.queue.get()) is not None:
            await self._send_text(text)


class Hub:
    """Tables, connections and bots of one server process."""

    def __init__(self, store: Store, *, clock: Callable[[], float] = time.time,
                 bot_delay: float = 0.0, bot_threads: int = 4) -> None:
        self.store = store
        self.clock = clock
        self.bot_delay = bot_delay
        self.tables: dict[int, Table] = {}
        self.conns: set[Conn] = set()
        self.pool = ThreadPoolExecutor(bot_threads, thread_name_prefix="bot")

    # ------------------------------------------------------------ tables
    def resume(self) -> int:
        """Load every unfinished table from the store; bots to move go on. Returns the count."""
        ids = self.store.unfinished_table_ids()
        for table_id in ids:
            self.kick_bots(self.table(table_id))
        return len(ids)

    def table(self, table_id: int) -> Table:
        """The table, from memory or rebuilt from the store; RefusedError if there is none."""
        table = self.tables.get(table_id)
        if table is None:
            row = self.store.table(table_id)
            if row is None:
                raise RefusedError(f"no table {table_id}")
            names = self.store.user_names(s["user_id"] for s in row["seats"] if s["user_id"])
            table = self.tables[table_id] = Table(row, names)
        return table

    def online(self, table: Table) -> set[int]:
        return {c.user_id for c in table.subscribers}

    def broadcast(self, table: Table, event: dict | None = None) -> None:
        """Tell every follower of ``table`` what its seat may know, one encoding per seat."""
        online = self.online(table)
        texts: dict[int | None, str] = {}
        for conn in list(table.subscribers):
            seat = table.seat_of(conn.user_id)
            if seat not in texts:
                texts[seat] = json.dumps(table.message(seat, event, online))
            conn.send(texts[seat])

    def start(self, table: Table) -> None:
        table.start()
        table.status = "playing"
        self.store.set_status(table.id, "playing")
        self.broadcast(table)
        self.kick_bots(table)

    def evict(self, table: Table) -> None:
        """Forget a finished or cancelled table nobody is looking at (the store keeps it)."""
        if table.status in ("finished", "cancelled") and not table.subscribers:
            self.tables.pop(table.id, None)

    # ------------------------------------------------------------- moves
    def move(self, table: Table, seat: int, action, ply: int | None = None) -> None:
        """Check, store, apply and announce one move; RefusedError leaves everything as it was."""
        if ply is not None and ply != table.ply:
            raise RefusedError(f"stale move at table {table.id}: you saw move {ply}, "
                               f"the table is at move {table.ply}")
        table.check_move(seat, action)
        self.store.add_move(table.id, table.ply, seat, action, self.clock())
        event = table.apply(seat, action)
        if table.state.is_over:
            table.status = "finished"
            table.result = table.final_result()
            self.store.set_status(table.id, "finished", table.result)
        self.broadcast(table, event)
        if table.status == "finished":
            self.evict(table)
        else:
            self.kick_bots(table)

    def kick_bots(self, table: Table) -> None:
        if table.bot_to_move() is not None and (table.bot_task is None or table.bot_task.done()):
            table.bot_task = asyncio.get_running_loop().create_task(self._run_bots(table))

    async def _run_bots(self, table: Table) -> None:
        loop = asyncio.get_running_loop()
        while (seat := table.bot_to_move()) is not None:
            index = table.state.current_player
            ply = table.ply
            view = table.state.view(index)
            legal = table.state.legal_actions()
            if self.bot_delay:
                await asyncio.sleep(self.bot_delay)
            try:
                action = await loop.run_in_executor(self.pool, seat.bot.act, view, legal)
            except Exception:  # a broken bot must not stall the table
                log.exception("bot %s at table %d failed; playing its first legal move",
                              seat.bot_spec, table.id)
                action = legal[0]
            if table.ply != ply or table.status != "playing":
                continue
            if action not in legal:
                log.error("bot %s at table %d chose illegal %r; playing its first legal move",
                          seat.bot_spec, table.id, action)
                action = legal[0]
            self.move(table, index, int(action))

    # -------------------------------------------------------- websockets
    def connect(self, conn: Conn) -> None:
        self.conns.add(conn)

    def disconnect(self, conn: Conn) -> None:
        self.conns.discard(conn)
        for table_id in list(conn.tables):
            table = self.tables.get(table_id)
            if table is not None:
                table.subscribers.discard(conn)
                self.broadcast(table)
                self.evict(table)
        conn.tables.clear()

    def handle(self, conn: Conn, text: str | bytes) -> None:
        """Act on one client message; a refused one is answered with an error to it alone."""
        msg_id = None
        table_id = None
        try:
            msg = parse_message(text)
            msg_id = msg.get("id")
            table_id = msg.get("table")
            kind = msg["type"]
            if kind == "ping":
                conn.send({"type": "pong", "id": msg_id})
            elif kind == "join":
                self.join(conn, self.table(table_id))
            elif kind == "leave":
                table = self.tables.get(table_id)
                if table is not None:
                    table.subscribers.discard(conn)
                    conn.tables.discard(table_id)
                    self.broadcast(table)
                    self.evict(table)
            else:
                table = self.table(table_id)
                seat = table.seat_of(conn.user_id)
                if seat is None:
                    raise RefusedError(f"you have no seat at table {table_id}")
                self.move(table, seat, msg["action"], msg.get("ply"))
        except RefusedError as err:
            answer = {"type": "error", "table": table_id, "error": str(err)}
            if msg_id is not None:
                answer["id"] = msg_id
            conn.send(answer)

    def join(self, conn: Conn, table: Table) -> None:
        table.subscribers.add(conn)
        conn.tables.add(table.id)
        self.broadcast(table)
