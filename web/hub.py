"""The live server: tables in memory, websocket connections, moves, bots and clocks.

Everything runs on one asyncio event loop. A move is checked, stored and
applied in order: on SQLite with no ``await`` in between; on PostgreSQL the
store is a round trip away, so it is made in a database lane
(``cardrl.web.cluster.Lanes``) while the table waits (``Table.pending``: moves
sent meanwhile queue behind it), and applied once stored - the event loop never
waits for the database on a move, and two moves never interleave. Fast bots
move on the loop; bots that think for long do it in worker processes
(``cardrl.web.bots.BotRunner``), so no table's search holds up another table;
either way a bot's move is then checked like anyone's.

People: a person to move has a turn clock (``turn`` seconds at the table,
``grace`` seconds once gone from it); when it runs out a stand-in bot plays
the seat until the person comes back. A move the game's adapter marks
``hold`` (a finished trick) is held on each person's screen until they go on
("ready"); a person's clock waits meanwhile, at most ``turn`` seconds. A
table with no seated person at it for ``abandon`` seconds is closed.

Many servers on one PostgreSQL database (``store.shared``): each table is run
by the server holding its lease (``Store.take_leases``, renewed by
``cardrl.web.cluster.Heartbeat``; ``keep_leases`` takes the tables nobody runs each
clock tick); only that server moves, runs bots and clocks. Other
servers keep a copy of a table their sockets follow, which reads the moves
from the database when told to (``NOTIFY``, ``cardrl.web.cluster``), and forward the
moves of their people as commands the owner applies. A move is stored only
under the lease and once per ply (the moves' primary key), so none is applied
twice. When a server dies its leases expire and another takes its tables,
rebuilt from the stored moves as after a restart.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import math
import re
import secrets
import time
from collections.abc import Awaitable, Callable

from cardrl.web.bots import BotRunner, Bots
from cardrl.web.cluster import Lanes
from cardrl.web.db import Store
from cardrl.web.protocol import parse_message
from cardrl.web.table import NotFoundError, RefusedError, Table

log = logging.getLogger("web")
dumps = json.JSONEncoder(separators=(",", ":")).encode  # compact: fewer bytes to send
MAX_BACKLOG = 2000  # messages queued for one connection before it is dropped as too slow
MAX_ID = (1 << 63) - 1  # table ids are 64-bit database keys
TURN = 60.0  # seconds a person at the table has for a move
GRACE = 30.0  # seconds a person who left the table has before a bot plays for them
ABANDON = 600.0  # seconds a table may have no seated person at it before it is closed
LEASE = 5.0  # seconds a server's table lease lasts unless renewed (a dead server's tables wait)
ON = ("waiting", "scheduled", "playing")
MAX_NOTE = 1000  # longest notice or error carried to another server
NAME = re.compile(r"[\w.:-]{1,40}", re.ASCII)  # a server's name (``--name``)


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
        self.queue.put_nowait(message if isinstance(message, str) else dumps(message))

    def close(self) -> None:
        self.closed = True
        self.queue.put_nowait(None)

    async def pump(self) -> None:
        """Send queued messages in order until closed."""
        while (text := await self.queue.get()) is not None:
            await self._send_text(text)


class Hub:
    """Tables, connections, bots and clocks of one server process."""

    def __init__(self, store: Store, *, clock: Callable[[], float] = time.time,
                 bot_delay: float = 0.0, bots: Bots | None = None, bot_processes: int = 2,
                 turn: float = TURN, grace: float = GRACE, abandon: float = ABANDON,
                 lease: float = LEASE, name: str | None = None) -> None:
        if isinstance(lease, bool) or not isinstance(lease, (int, float)) or not 0 < lease < 1e6:
            raise ValueError(f"a lease lasts some seconds (> 0), got {lease!r}")
        if name is not None and not (isinstance(name, str) and NAME.fullmatch(name)):
            raise ValueError(f"a server name is 1-40 letters, digits and ._:-, got {name!r}")
        self.store = store
        self.clock = clock
        self.bot_delay = bot_delay
        self.bots = bots or Bots()
        self.runner = BotRunner(self.bots, bot_processes)
        self.turn, self.grace, self.abandon = turn, grace, abandon
        self.tables: dict[int, Table] = {}
        self.conns: set[Conn] = set()
        # many servers: who this one is, the tables it runs, the owners' clocks of the others
        self.shared = store.shared
        # unique even when two servers are given one name: a lease names exactly one process
        self.server_id = f"{name}/{secrets.token_hex(6)}" if name else secrets.token_hex(8)
        self.lease = lease
        self.owned: set[int] = set()
        self.remote_clock: dict[int, dict | None] = {}
        self.notes: list[str] = []  # to send at the end of this turn of the event loop
        self.beating = False  # a ``cluster.Heartbeat`` renews the leases (else the clock)
        self.kept = -math.inf  # when keep_leases last looked at the database (monotonic)
        self.lanes: Lanes | None = None  # PostgreSQL: the database off the event loop
        self.notes_busy = False  # a batch of notes is on its way
        self.note_tables: set[int] = set()  # the tables the notes gathered are about
        self.loading: dict[int, list[Callable[[], None]]] = {}  # tables read in a lane
        # the addresses pages reach the servers at (``--public-url``): this one's, the live
        # servers' (a page moves to one when its server dies), every one ever said (the
        # origins whose pages may open a socket here)
        self.public_url: str | None = None
        self.peers: list[str] = []
        self.known_urls: set[str] = set()

    def _write(self, table_id: int, fn: Callable, *args) -> None:
        """A write the event loop need not wait for (``fn(store, *args)``): in the table's
        database lane, in order with its moves, when there are lanes; else at once."""
        if self.lanes is None:
            fn(self.store, *args)
            return

        def done(f: asyncio.Future) -> None:
            if f.exception() is not None:
                log.warning("table %d: %s not stored: %s", table_id, fn.__name__, f.exception())

        self.lanes.run(table_id, fn, *args).add_done_callback(done)

    def runs(self, table: Table) -> bool:
        """Whether this server runs the table: stores its moves, runs its bots and clocks."""
        return not self.shared or table.id in self.owned

    # ------------------------------------------------------------ tables
    def resume(self) -> int:
        """Load every unfinished table from the store; bots to move go on. Returns the count.

        A table that cannot be rebuilt (a bot no longer on the list) is left as
        it is in the store, and said so in the log.
        """
        if self.shared:
            self._join(self.store)
            return len(self.keep_leases())
        count = 0
        for table_id in self.store.unfinished_table_ids():
            try:
                table = self.table(table_id)
            except (RefusedError, ValueError) as err:
                log.error("table %d not resumed: %s", table_id, err)
                continue
            self.kick_bots(table)
            count += 1
        return count

    async def resume_soon(self) -> int:
        """``resume`` for many servers with database lanes: join, take the tables nobody
        runs and read each in its own lane, all at once (with a slow database, one after
        another would keep a server that starts, or takes over, from its tables for long)."""
        await self.lanes.run("clock", self._join)
        self.kept = -math.inf
        return len(await self.keep_leases_soon())

    def _join(self, store: Store) -> None:
        store.add_server(self.server_id)
        if self.public_url:
            store.set_server_url(self.server_id, self.public_url)

    def table(self, table_id) -> Table:
        """The table, from memory or rebuilt from the store; NotFoundError if there is none."""
        if isinstance(table_id, bool) or not isinstance(table_id, int) \
                or not 0 < table_id <= MAX_ID:
            raise NotFoundError(f"no table {table_id!r}")
        table = self.tables.get(table_id)
        if table is None:
            table = self._load(table_id)
            if self.shared and table.status in ON \
                    and self.store.take_leases(self.server_id, self.lease, table_id):
                self._own(table)
        return table

    def _load(self, table_id: int, read: tuple | None = None) -> Table:
        """Build a table from its stored row and moves (``read``: ``_read_load``'s, done in a
        lane; else read here)."""
        row, names, elsewhere, away = read or self._read_load(self.store, table_id)
        if row is None:
            raise NotFoundError(f"no table {table_id}")
        table = Table(row, names, self.bots, now=self.clock())
        table.loaded_at = time.monotonic()
        if self.shared:
            table.elsewhere = elsewhere
            for seat in away:
                table.seats[seat].away = True
        elif table.status in ON:
            self.runner.prepare(s.bot_spec for s in table.seats if s.bot_spec)
        self.tables[table_id] = table
        return table

    def _read_load(self, store: Store, table_id: int) -> tuple:
        """What ``_load`` needs from the database (any thread): the row with its moves, the
        names, and (many servers) who follows it elsewhere and its stand-ins."""
        row = store.table(table_id)
        if row is None:
            return None, {}, set(), set()
        names = store.user_names([*(s["user_id"] for s in row["seats"] if s["user_id"]),
                                  *([row["host"]] if row["host"] else [])])
        if not self.shared:
            return row, names, set(), set()
        elsewhere = store.present(table_id, besides=self.server_id).get(table_id, set())
        return row, names, elsewhere, store.stand_ins(table_id).get(table_id, set())

    def _load_soon(self, table_id: int, then: Callable[[], None]) -> None:
        """Load a table in a database lane (and take its lease if nobody runs it), then call
        ``then`` on the event loop; the messages for it meanwhile wait their turn."""
        if (waiting := self.loading.get(table_id)) is not None:
            waiting.append(then)
            return
        self.loading[table_id] = [then]

        def read(store: Store) -> tuple:
            got = self._read_load(store, table_id)
            taken = got[0] is not None and got[0]["status"] in ON \
                and bool(store.take_leases(self.server_id, self.lease, table_id))
            return got, taken

        def done(f: asyncio.Future) -> None:
            thens = self.loading.pop(table_id, [])
            try:
                got, taken = f.result()
                if got[0] is not None and table_id not in self.tables:
                    table = self._load(table_id, got)
                    if taken:
                        self._own(table)
                elif taken and table_id in self.tables:
                    self._own(self.tables[table_id])
            except Exception:
                log.exception("table %d not loaded", table_id)
            for fn in thens:  # each in a turn of its own: other sockets go in between
                asyncio.get_running_loop().call_soon(fn)

        self.lanes.run(table_id, read).add_done_callback(done)

    def online(self, table: Table) -> set[int]:
        return table.present()

    def clock_info(self, table: Table) -> dict | None:
        if not self.runs(table):
            return self.remote_clock.get(table.id)  # as its owner last said
        at = table.deadline(self.turn, self.grace)
        if at is None:
            return None
        seat = table.to_move()
        return {"seat": seat, "bot_at": at, "now": self.clock(), "since": table.turn_since,
                "held": seat in table.unseen}

    def broadcast(self, table: Table, event: dict | None = None, *, full: bool = True,
                  announce: bool = True, move: tuple[int, int, int] | None = None) -> None:
        """Tell every follower of ``table`` what its seat may know, one encoding per seat.

        Many servers: ``announce`` tells the others too - the owner that the table moved
        on (``full``: not only by ``move``, its (ply, seat, action)), another server that
        it changed the table's row.
        """
        online = self.online(table)
        clock = self.clock_info(table)
        texts: dict[int | None, str] = {}
        for conn in list(table.subscribers):
            seat = table.seat_of(conn.user_id)
            if seat not in texts:
                texts[seat] = dumps(table.message(seat, event, online, clock))
            conn.send(texts[seat])
        if self.shared and announce:
            if self.runs(table):
                self._note("t", table.id, f=full, n=(table.notice or "")[:MAX_NOTE] or None,
                           a=[i for i, s in enumerate(table.seats) if s.away], c=clock,
                           m=move)
            else:
                self._note("r", table.id)
        table.notice = None

    def start(self, table: Table) -> None:
        table.start()
        table.status = "playing"
        table.turn_since = self.clock()
        self._write(table.id, Store.set_status, table.id, "playing")
        self.broadcast(table)
        self.kick_bots(table)

    def evict(self, table: Table) -> None:
        """Forget a finished or closed table nobody is looking at (the store keeps it)."""
        if not table.subscribers and (table.status not in ON or not self.runs(table)):
            self.tables.pop(table.id, None)
            if self.shared and table.id in self.owned:
                self.owned.discard(table.id)
                self._write(table.id, Store.release_leases, self.server_id, table.id)

    def close_table(self, table: Table, status: str, reason: str) -> None:
        """End a table that will not be played to its end ("cancelled", "abandoned")."""
        result = {status: reason}
        if table.state is not None:
            result["scores"] = list(table.state.scores)
        self._write(table.id, Store.set_status, table.id, status, result)
        table.status, table.result = status, result
        if table.bot_task is not None:
            table.bot_task.cancel()
        self.broadcast(table)
        self.evict(table)

    # ------------------------------------------------------------- moves
    def move(self, table: Table, seat: int, action, ply: int | None = None,
             refuse: Callable[[str], None] | None = None) -> asyncio.Future | None:
        """Check, store, apply and announce one move; RefusedError leaves everything as it was.

        With database lanes the move is stored off the event loop and applied once
        stored: the future returned is done then, and a move the database did not take
        (another server runs the table now) is said to ``refuse``.
        """
        if ply is not None and ply != table.ply:
            raise RefusedError(f"stale move at table {table.id}: you saw move {ply}, "
                               f"the table is at move {table.ply}")
        table.check_move(seat, action)
        if table.pending is not None:
            raise RefusedError(f"table {table.id}: the last move is still being stored; "
                               f"try again")
        if self.lanes is not None and self.runs(table):
            return self._store_then_apply(table, seat, action, refuse)
        if not self.shared:
            self.store.add_move(table.id, table.ply, seat, action, self.clock())
        elif not self.runs(table) or not self.store.add_leased_move(
                table.id, table.ply, seat, action, self.clock(), self.server_id):
            self._lost(table)  # another server took the table over (this one stalled)
            raise RefusedError(f"table {table.id} moved to another server: try again")
        self._apply(table, seat, action)
        return None

    def _store_then_apply(self, table: Table, seat: int, action: int,
                          refuse: Callable[[str], None] | None) -> asyncio.Future:
        ply = table.ply
        stored = self.lanes.run(table.id, Store.add_leased_move, table.id, ply, seat, action,
                                self.clock(), self.server_id)
        done = table.pending = asyncio.get_running_loop().create_future()

        def finish(f: asyncio.Future) -> None:
            table.pending = None
            try:
                ok = f.result()
            except Exception as err:
                log.error("move %d at table %d not stored: %s", ply, table.id, err)
                ok = None
            try:
                if ok and table.ply == ply and table.status == "playing":
                    self._apply(table, seat, action)
                elif ok is False:
                    self._lost(table)  # another server took the table over
                    if refuse is not None:
                        refuse(f"table {table.id} moved to another server: try again")
                elif ok is None and refuse is not None:
                    refuse(f"your move at table {table.id} could not be stored: try again")
            except Exception:
                log.exception("move %d at table %d not applied", ply, table.id)
            finally:
                done.set_result(bool(ok))
                after, table.after = table.after, []
                for fn in after:
                    fn()

        stored.add_done_callback(finish)
        return done

    def _apply(self, table: Table, seat: int, action: int) -> None:
        """A stored move: applied, announced, and the bots to move after it go on."""
        event = table.apply(seat, action)
        table.turn_since = self.clock()
        if event.get("hold"):  # the people here see the move held until they go on
            table.hold(self.clock())
        if table.state.is_over:
            table.status = "finished"
            table.result = table.final_result()
            self._write(table.id, Store.set_status, table.id, "finished", table.result)
        self.broadcast(table, event, full=table.status != "playing",
                       move=(table.ply - 1, seat, action))
        if table.status == "finished":
            self.evict(table)
        else:
            self.kick_bots(table)

    def kick_bots(self, table: Table) -> None:
        if self.runs(table) and table.bot_to_move() is not None \
                and (table.bot_task is None or table.bot_task.done()):
            table.bot_task = asyncio.get_running_loop().create_task(self._run_bots(table))

    async def _run_bots(self, table: Table) -> None:
        while self.runs(table) and (who := table.bot_to_move()) is not None:
            if table.pending is not None:  # a move being stored: the next is after it
                await table.pending
                continue
            seat, spec = who
            ply = table.ply
            view = table.state.view(seat)
            legal = table.state.legal_actions()
            if self.bot_delay:
                await asyncio.sleep(self.bot_delay)
                if table.bot_to_move() != who or table.ply != ply:
                    continue
            try:
                action = await self.runner.act(spec, table.bot_seed(seat), view, legal)
            except asyncio.CancelledError:
                raise
            except Exception as err:  # a broken bot must not stall the table
                if self.runner.closed:
                    return  # the server is stopping
                log.exception("bot %s at table %d failed", spec, table.id)
                self._replace_bot(table, seat, spec, f"failed ({type(err).__name__}: {err})")
                continue
            if table.ply != ply or table.bot_to_move() != who:
                continue  # the table moved on (a person came back, the table closed)
            if action not in legal:
                log.error("bot %s at table %d chose illegal %r", spec, table.id, action)
                self._replace_bot(table, seat, spec, f"chose an illegal move ({action!r})")
                continue
            try:
                stored = self.move(table, seat, action)
                if stored is not None:
                    await stored
            except RefusedError as err:
                log.warning("bot move at table %d not stored: %s", table.id, err)
            await asyncio.sleep(0)  # let other tables and messages in between bot moves

    def _replace_bot(self, table: Table, seat: int, spec: str, what: str) -> None:
        """A bot that failed is replaced, in the store too, and everyone is told: its move
        is never silently made up by the server."""
        fallback = table.bots.fallback(table.game_name, table.rules, spec)
        s = table.seats[seat]
        if fallback is None:
            self.close_table(table, "cancelled", f"bot {spec} {what}, and no other bot can "
                                                 f"take its seat")
            return
        if s.bot_spec is not None:
            self._write(table.id, Store.set_seat, table.id, seat, None, fallback)
            s.bot_spec = fallback
            table.notice = f"Bot {spec} {what}; {fallback} plays seat {seat + 1} from now on."
        else:  # a stand-in failed: the table's stand-in becomes the fallback
            self._write(table.id, Store.set_bot_spec, table.id, fallback)
            table.bot_spec = fallback
            table.notice = (f"Bot {spec}, playing for {s.user_name}, {what}; {fallback} "
                            f"stands in from now on.")
        self.broadcast(table)

    # -------------------------------------------------------------- clock
    def tick_tables(self, now: float) -> None:
        """Turn clocks that ran out get a stand-in; tables nobody is at are closed."""
        for table in list(self.tables.values()):
            if table.status not in ("waiting", "playing") or not self.runs(table):
                continue
            if table.anyone_here():
                table.empty_since = None
            elif table.empty_since is None:
                table.empty_since = now
            if table.empty_since is not None and now - table.empty_since >= self.abandon:
                minutes = f"{self.abandon / 60:g} minute{'' if self.abandon == 60 else 's'}"
                if table.status == "waiting":
                    self.close_table(table, "cancelled", f"nobody was at the table for {minutes}")
                else:
                    self.close_table(table, "abandoned", f"nobody was at the table for {minutes}")
                continue
            if table.status == "playing":
                at = table.deadline(self.turn, self.grace)
                if at is not None and now >= at:
                    self.take_over(table, table.to_move())

    def take_over(self, table: Table, seat: int) -> None:
        """The person's clock ran out: the stand-in bot plays the seat until they come back."""
        s = table.seats[seat]
        if table.standin() is None:
            return  # no bot can play these rules: the table waits for the person
        s.away = True
        if self.shared:  # the lobbies of every server, and whoever takes the table over
            self._write(table.id, Store.set_stand_in, table.id, seat, True)
        table.notice = f"{s.user_name}'s time ran out: a bot plays for them until they are back."
        self.broadcast(table)
        self.kick_bots(table)

    def hand_back(self, table: Table, seat: int) -> None:
        """The person is back: the seat is theirs again, with a fresh clock if it is to move."""
        s = table.seats[seat]
        if not s.away:
            return
        s.away = False
        if self.shared:
            self._write(table.id, Store.set_stand_in, table.id, seat, False)
        if table.to_move() == seat:
            table.turn_since = self.clock()
        table.notice = f"{s.user_name} is back."

    # -------------------------------------------------------- websockets
    def connect(self, conn: Conn) -> None:
        self.conns.add(conn)

    def disconnect(self, conn: Conn) -> None:
        self.conns.discard(conn)
        for table_id in list(conn.tables):
            table = self.tables.get(table_id)
            if table is not None:
                self._leave(conn, table)
        conn.tables.clear()

    def _leave(self, conn: Conn, table: Table) -> None:
        table.subscribers.discard(conn)
        conn.tables.discard(table.id)
        self._here(table, conn.user_id)
        seat = table.seat_of(conn.user_id)
        if seat is not None and conn.user_id not in table.present():
            table.left_at[seat] = self.clock()
            if not table.anyone_here():
                table.empty_since = self.clock()
        if table.status in ON:  # who is here: news only while the table is on
            self.broadcast(table, announce=self.runs(table))
        self.evict(table)

    def handle(self, conn: Conn, text: str | bytes, loaded: bool = False) -> None:
        """Act on one client message; a refused one is answered with an error to it alone.

        Whatever the message, the connection stays open: an unexpected failure is
        logged and answered like a refusal. With database lanes, a table not in memory is
        read in a lane first, and the message handled once it is (``loaded``).
        """
        msg_id = None
        table_id = None
        try:
            msg = parse_message(text)
            msg_id = msg.get("id")
            table_id = msg.get("table")
            kind = msg["type"]
            if self.lanes is not None and not loaded and kind not in ("ping", "leave") \
                    and type(table_id) is int and 0 < table_id <= MAX_ID \
                    and (table_id not in self.tables or table_id in self.loading):
                self._load_soon(table_id, lambda: conn in self.conns and self.handle(
                    conn, text, loaded=True))
                return
            if kind == "ping":
                conn.send({"type": "pong", "id": msg_id})
            elif kind == "join":
                self.join(conn, self.table(table_id))
            elif kind == "leave":
                table = self.tables.get(table_id)
                if table is not None and conn in table.subscribers:
                    self._leave(conn, table)
            elif kind == "chat":
                self.chat(conn, self.table(table_id), msg["text"])
            else:
                self.act(self.table(table_id), conn.user_id, msg,
                         lambda error: self._error(conn, table_id, msg_id, error))
        except RefusedError as err:
            self._error(conn, table_id, msg_id, str(err))
        except Exception:
            log.exception("message from %s failed: %.200r", conn.user_name, text)
            self._error(conn, table_id, msg_id, "the server could not handle that message")

    def act(self, table: Table, user_id: int, msg: dict,
            refuse: Callable[[str], None] | None = None) -> None:
        """A person's "back", "ready" or move; a server that does not run the table checks
        what it can and forwards the rest to the owner (RefusedError: refused, nothing
        changed; ``refuse``: a refusal that comes later, from the database). A move sent
        while the table's last one is being stored waits for it."""
        if table.pending is not None and msg["type"] == "move":
            table.after.append(lambda: self._later(table, user_id, msg, refuse))
            return
        seat = table.seat_of(user_id)
        if seat is None:
            if msg["type"] == "ready":
                return  # a watcher went on: nothing to do
            raise RefusedError(f"you have no seat at table {table.id}")
        if msg["type"] in ("back", "ready"):
            if not self.runs(table):
                self._forward(table, user_id, msg)
            elif msg["type"] == "back":
                self.hand_back(table, seat)
                self.broadcast(table)
            elif table.ready(seat, msg.get("ply"), self.clock()):
                self.broadcast(table)  # the clock of the seat runs now
            return
        if table.seats[seat].away:
            raise RefusedError(f"a bot is playing your seat at table {table.id}: "
                               f"say you are back first")
        if self.runs(table):
            self.move(table, seat, msg["action"], msg.get("ply"), refuse)
            return
        ply = msg.get("ply")
        if ply is not None and ply != table.ply:
            raise RefusedError(f"stale move at table {table.id}: you saw move {ply}, "
                               f"the table is at move {table.ply}")
        table.check_move(seat, msg["action"])
        self._forward(table, user_id, msg)

    def _later(self, table: Table, user_id: int, msg: dict,
               refuse: Callable[[str], None] | None) -> None:
        try:
            self.act(table, user_id, msg, refuse)
        except RefusedError as err:
            if refuse is not None:
                refuse(str(err))

    def chat(self, conn: Conn, table: Table, text: str) -> None:
        """A chat line (``cardrl.web.lobby.Lobby`` serves chat)."""
        raise RefusedError("this server has no table chat")

    @staticmethod
    def _error(conn: Conn, table_id, msg_id, error: str) -> None:
        answer = {"type": "error", "table": table_id, "error": error}
        if msg_id is not None:
            answer["id"] = msg_id
        conn.send(answer)

    def join(self, conn: Conn, table: Table) -> None:
        """Follow a table; a person whose seat a bot was playing gets it back."""
        table.subscribers.add(conn)
        conn.tables.add(table.id)
        self._here(table, conn.user_id)
        seat = table.seat_of(conn.user_id)
        if seat is not None and self.runs(table):
            self._arrive(table, seat)
        self.broadcast(table, announce=self.runs(table))
        if seat is not None and table.status == "playing":
            self.kick_bots(table)  # stand-ins of the others play on now someone is here

    def _arrive(self, table: Table, seat: int) -> None:
        table.empty_since = None
        table.left_at.pop(seat, None)
        self.hand_back(table, seat)

    # -------------------------------------------- many servers (PostgreSQL)
    def _note(self, kind: str, table_id: int, **fields) -> None:
        """Tell the other servers (``cardrl.web.cluster.Listener`` hands it to their ``on_note``):
        the notes of one turn of the event loop go together, in one round trip."""
        self.notes.append(dumps({"k": kind, "t": table_id, "s": self.server_id, **fields}))
        self.note_tables.add(table_id)
        if len(self.notes) == 1 and not self.notes_busy:
            try:
                asyncio.get_running_loop().call_soon(self.send_notes)
            except RuntimeError:  # no event loop (a script): at once
                self.send_notes()

    def send_notes(self, wait: bool = False) -> None:
        """Send the notes gathered: in the notes lane (one batch on its way at a time; what
        gathers meanwhile goes next), or at once (``wait``, or with no lanes)."""
        if self.lanes is None or wait:
            notes, self.notes = self.notes, []
            if notes:
                self.store.notify(notes)
            return
        if self.notes_busy or not self.notes:
            return
        notes, self.notes = self.notes, []
        tables, self.note_tables = self.note_tables, set()
        self.notes_busy = True

        def sent(f: asyncio.Future) -> None:
            self.notes_busy = False
            if f.exception() is not None:
                log.warning("notes to the other servers lost: %s", f.exception())
            self.send_notes()

        self.lanes.notify_after(notes, tables).add_done_callback(sent)

    def _elsewhere(self, table_id: int) -> set[int]:
        return self.store.present(table_id, besides=self.server_id).get(table_id, set())

    def _here(self, table: Table, user_id: int) -> None:
        """Store whether the user follows the table through this server; tell the others."""
        if not self.shared:
            return
        here = any(c.user_id == user_id for c in table.subscribers)
        self._write(table.id, Store.set_present, table.id, user_id, self.server_id, here)
        self._note("p", table.id)

    def _own(self, table: Table) -> None:
        """This server took the table's lease: it runs the table from now on, with fresh
        clocks (as after a restart), and applies the moves forwarded to the owner."""
        self.owned.add(table.id)
        self.remote_clock.pop(table.id, None)
        table.turn_since = self.clock()
        self.runner.prepare(s.bot_spec for s in table.seats if s.bot_spec)
        self._run_commands(table)

    def _demote(self, table: Table) -> None:
        self.owned.discard(table.id)
        if table.bot_task is not None:
            table.bot_task.cancel()
            table.bot_task = None

    def _lost(self, table: Table) -> None:
        """A move could not be stored under this server's lease: another runs the table."""
        self._demote(table)
        self._sync(table, full=True)

    def _forward(self, table: Table, user_id: int, msg: dict) -> None:
        body = {"type": msg["type"], "action": msg.get("action"), "ply": msg.get("ply"),
                "id": msg.get("id")}
        note = dumps({"k": "c", "t": table.id})
        if self.lanes is None:
            self.store.add_command(table.id, user_id, body, self.server_id, note)
            return

        def sent(f: asyncio.Future) -> None:
            if f.exception() is not None:
                log.warning("a move for table %d not forwarded: %s", table.id, f.exception())
                self._error_to(user_id, table.id, body["id"],
                               f"your move at table {table.id} could not be sent on: try again")

        self.lanes.run(table.id, Store.add_command, table.id, user_id, body, self.server_id,
                       note).add_done_callback(sent)

    def _run_commands(self, table: Table) -> None:
        """Apply the moves other servers forwarded; refusals go back to the mover."""
        if self.lanes is None:
            self._apply_commands(table, self.store.take_commands(table.id))
            return

        def taken(f: asyncio.Future) -> None:
            if f.exception() is not None:
                log.warning("commands of table %d not read: %s", table.id, f.exception())
                return
            self._apply_commands(table, f.result())

        self.lanes.run(table.id, Store.take_commands, table.id).add_done_callback(taken)

    def _apply_commands(self, table: Table, commands: list[dict]) -> None:
        for cmd in commands:
            body = cmd["body"]

            def refuse(error: str, cmd=cmd, body=body) -> None:
                if cmd["origin"] == self.server_id:
                    self._error_to(cmd["user_id"], table.id, body.get("id"), error)
                else:
                    self._note("e", table.id, s=cmd["origin"], u=cmd["user_id"],
                               i=body.get("id"), e=error[:MAX_NOTE])

            try:
                self.act(table, cmd["user_id"], body, refuse)
            except RefusedError as err:
                refuse(str(err))

    def _error_to(self, user_id: int, table_id: int, msg_id, error: str) -> None:
        for conn in list(self.conns):
            if conn.user_id == user_id and table_id in conn.tables:
                self._error(conn, table_id, msg_id, error)

    def on_note(self, payload: str) -> None:
        """A notification from another server on the database."""
        if self.lanes is not None and self.lanes.closed:
            return  # heard just before this server stopped
        try:
            note = json.loads(payload)
            kind, table = note["k"], self.tables.get(note["t"])
            if kind == "e":
                if note["s"] == self.server_id:
                    self._error_to(note["u"], note["t"], note["i"], note["e"])
            elif table is None or note.get("s") == self.server_id:
                return
            elif kind == "c":
                if self.runs(table):
                    self._run_commands(table)
            elif kind == "h":  # a chat line said through another server
                for conn in list(table.subscribers):
                    conn.send(note["m"])
            elif kind == "p":
                self._presence(table)
            elif kind in ("t", "r"):
                self._follow(table, note)
        except Exception:
            log.exception("notification %.200r failed", payload)

    def on_reconnect(self) -> None:
        """The listening connection broke and is back: notifications may have been lost,
        so read again every table this server shows."""
        for table in list(self.tables.values()):
            try:
                self._presence(table)
                self._follow(table, {"k": "r"})
                if self.runs(table):
                    self._run_commands(table)
            except Exception:
                log.exception("table %d not read again", table.id)

    def _follow(self, table: Table, note: dict) -> None:
        """Another server changed the table: its owner moved on ("t"), or another changed
        its row ("r"). Read what changed (with lanes, in the table's lane, unless the note
        carried it all) and show it here."""
        full = note["k"] == "r" or note.get("f", True)
        known = note.get("m")
        runs = self.runs(table)
        if self.lanes is None or not (full or runs or table.state is None or not known
                                      or known[0] > table.ply):
            self._follow_read(table, note)
            return
        ply = table.ply

        def read(store: Store) -> tuple:
            owner = store.lease_owner(table.id) if note["k"] == "t" and runs else None
            row = self._read_row(store, table.id) if full else None
            return owner, row, (ply, store.moves_since(table.id, ply))

        def done(f: asyncio.Future) -> None:
            if f.exception() is not None:
                log.warning("table %d not read again: %s", table.id, f.exception())
                return
            self._follow_read(table, note, f.result())

        self.lanes.run(table.id, read).add_done_callback(done)

    def _follow_read(self, table: Table, note: dict, got: tuple | None = None) -> None:
        """``_follow`` once read: ``got`` is the lease's owner, the row (``_read_row``) and
        the moves from a ply, read in a lane; None: read here what is needed."""
        owner_now, row, moves_read = got or (None, None, None)
        if note["k"] == "t" and self.runs(table):  # another server says it runs the table
            if got is None:
                owner_now = self.store.lease_owner(table.id)
            if owner_now == self.server_id:
                return  # it lost the lease while stalled, and will find out
            self._demote(table)
        owner = self.runs(table)
        # read in a lane: a later note may have been shown meanwhile, with newer clocks
        stale = got is not None and note.get("m") and table.ply > note["m"][0] + 1
        if note["k"] == "t" and not stale:
            for i, s in enumerate(table.seats):
                s.away = i in note["a"]
            self.remote_clock[table.id] = note["c"]

        def moved(event: dict, last: bool) -> None:
            table.notice = note.get("n") if last else None
            self.broadcast(table, event, announce=False)

        full = note["k"] == "r" or note.get("f", True)
        known = [note["m"]] if note.get("m") else None
        if owner:
            self._sync(table, full, read=row, moves_read=moves_read)
            self._react(table)
        elif not self._sync(table, full, moved, known, read=row, moves_read=moves_read):
            table.notice = note.get("n")
            self.broadcast(table, announce=False)

    def _sync(self, table: Table, full: bool,
              moved: Callable[[dict, bool], None] | None = None,
              known: list[list[int]] | None = None, read: tuple | None = None,
              moves_read: tuple[int, list] | None = None) -> int:
        """Bring a copy up to the database: its row (``full``) and the moves past its ply,
        each shown by ``moved(event, last)`` as it is applied. ``known``: the moves a note
        carried, [ply, seat, action], read from the database only if they leave a gap.
        ``read``: the row, names and stand-ins already read (``_read_row``); ``moves_read``:
        the moves from a ply on, read with it (none: the owner's own, when only ``read``).
        The number of moves applied."""
        status = table.status
        if full:
            row, names, away = read or self._read_row(self.store, table.id)
            for seat, r in zip(table.seats, row["seats"], strict=True):
                seat.user_id, seat.bot_spec, seat.arrived = r["user_id"], r["bot"], r["arrived"]
                seat.user_name = names.get(r["user_id"])
            table.bot_spec, table.fill_at, table.result = row["bot_spec"], row["fill_at"], \
                row["result"]
            status = row["status"]
            for i, seat in enumerate(table.seats):
                seat.away = i in away
        if table.state is None and status in ("playing", "finished"):
            table.start()
            table.turn_since = self.clock()
        if table.state is None or table.pending is not None:
            moves = []  # not dealt; or a move being stored here, applied when it is
        elif moves_read is not None:
            moves = moves_read[1][table.ply - moves_read[0]:]  # past what was shown meanwhile
        elif read is not None:
            moves = []
        elif known and known[0][0] == table.ply:
            moves = [(seat, action) for _, seat, action in known]
        elif known and known[-1][0] < table.ply:
            moves = []  # shown already
        else:
            moves = self.store.moves_since(table.id, table.ply)
        table.status = "playing" if moves else status  # the moves were made while it was
        try:
            for i, (seat, action) in enumerate(moves):
                event = table.apply(seat, action)
                table.turn_since = self.clock()
                if moved is not None:
                    if i == len(moves) - 1:
                        table.status = status
                    moved(event, i == len(moves) - 1)
        finally:
            table.status = status
        return len(moves)

    def _react(self, table: Table) -> None:
        """The owner, after another server changed the table: start it once full, stop its
        bots once closed, tell everyone."""
        if table.status == "waiting" and not table.open_seats():
            self.start(table)
            return
        if table.status not in ON and table.bot_task is not None:
            table.bot_task.cancel()
        self.broadcast(table)
        self.kick_bots(table)
        self.evict(table)

    @staticmethod
    def _read_row(store: Store, table_id: int) -> tuple:
        """A table's row, its people's names and its stand-ins (any thread)."""
        row = store.table(table_id, moves=False)
        names = store.user_names(s["user_id"] for s in row["seats"] if s["user_id"])
        return row, names, store.stand_ins(table_id).get(table_id, set())

    def _presence(self, table: Table) -> None:
        """Who follows the table through other servers changed; its owner reacts as to a
        join or a leave here (with lanes, once read off the event loop)."""
        if self.lanes is None:
            self._presence_read(table, self._elsewhere(table.id), None)
            return

        def read(store: Store) -> tuple:
            elsewhere = store.present(table.id, besides=self.server_id).get(table.id, set())
            return elsewhere, self._read_row(store, table.id)

        def done(f: asyncio.Future) -> None:
            if f.exception() is not None:
                log.warning("presence at table %d not read: %s", table.id, f.exception())
            else:
                self._presence_read(table, *f.result())

        self.lanes.run(table.id, read).add_done_callback(done)

    def _presence_read(self, table: Table, elsewhere: set[int], read: tuple | None) -> None:
        before = table.present()
        table.elsewhere = elsewhere
        after = table.present()
        if not self.runs(table) or before == after:
            return
        # an arrival at a scheduled table comes with the row
        self._sync(table, full=True, read=read)
        now = self.clock()
        for user in after - before:
            if (seat := table.seat_of(user)) is not None:
                self._arrive(table, seat)
        for user in before - after:
            if (seat := table.seat_of(user)) is not None:
                table.left_at[seat] = now
        if not table.anyone_here() and table.empty_since is None:
            table.empty_since = now
        if table.status in ON:
            self.broadcast(table)
            self.kick_bots(table)

    def keep_leases(self) -> list[int]:
        """Every clock tick: renew this server's leases (and let go of those another took),
        forget the people of dead servers, take the tables nobody runs. The ids taken.
        A few times a lease, not more: the tick may be much shorter."""
        if time.monotonic() - self.kept < self.lease / 4:
            return []
        self.kept = time.monotonic()
        return self._kept(self._lease_facts(self.store), set(self.owned), self._followers())

    async def keep_leases_soon(self) -> list[int]:
        """``keep_leases`` with its database work in the clock's lane: the event loop goes
        on meanwhile, and applies what was found."""
        if self.lanes is None:
            return self.keep_leases()
        if time.monotonic() - self.kept < self.lease / 4:
            return []
        self.kept = time.monotonic()
        owned, followers = set(self.owned), self._followers()
        # who follows what is read once the presence written so far is stored
        facts = await self.lanes.run("clock", self._lease_facts, self.lanes.pending(followers),
                                     False)
        taken = [t for t in facts[3] if t not in self.owned]  # each read in its own lane
        reads = await asyncio.gather(*(self.lanes.run(t, self._read_load, t) for t in taken),
                                     return_exceptions=True)  # a failed read: read when taken
        reads = {t: r for t, r in zip(taken, reads, strict=True) if isinstance(r, tuple)}
        return self._kept((*facts[:4], reads, facts[5]), owned, followers)

    def _followers(self) -> dict[int, set[int]]:
        return {t.id: {c.user_id for c in t.subscribers} for t in self.tables.values()}

    def _lease_facts(self, store: Store, earlier: list | None = None,
                     read: bool = True) -> tuple:
        """What ``keep_leases`` reads and writes in the database (any thread): the leases
        held, the tables of servers found dead, the presence stored (after the ``earlier``
        writes), the tables taken and (``read``) their rows."""
        held = store.leases_of(self.server_id) if self.beating \
            else store.heartbeat(self.server_id, self.lease)
        reaped = store.reap_servers(self.lease)
        if earlier:
            concurrent.futures.wait(earlier)
        stored = store.present(through=self.server_id)
        taken = store.take_leases(self.server_id, self.lease)
        reads = {t: self._read_load(store, t) for t in taken} if read else {}
        return held, reaped, stored, taken, reads, store.server_urls(self.lease)

    def _kept(self, facts: tuple, owned: set[int], followers: dict[int, set[int]]) -> list[int]:
        """Act on ``_lease_facts``, found while this server owned ``owned`` and its
        tables had ``followers`` (a table taken meanwhile is not given up)."""
        held, reaped, stored, taken, reads, (self.peers, self.known_urls) = facts
        for table_id in owned - held:
            if table_id not in self.owned:
                continue
            log.warning("table %d is run by another server now", table_id)
            if (table := self.tables.get(table_id)) is not None:
                self._demote(table)
            self.owned.discard(table_id)
        for table_id in held - self.owned:
            self._write(table_id, Store.release_leases, self.server_id, table_id)  # let it go
        for table_id in reaped:
            if (table := self.tables.get(table_id)) is not None:
                self._presence(table)
        self._restore_presence(stored, followers)
        taken = [t for t in taken if t not in self.owned]
        for table_id in taken:
            self._take(table_id, reads.get(table_id))
        for table in list(self.tables.values()):  # copies nobody here follows
            # (one loaded a moment ago is kept: a request or a socket is about to use it)
            if not self.runs(table) and not table.subscribers \
                    and time.monotonic() - table.loaded_at > self.lease:
                self.tables.pop(table.id, None)
                self.remote_clock.pop(table.id, None)
        return taken

    def _restore_presence(self, stored: dict[int, set[int]],
                          followers: dict[int, set[int]]) -> None:
        """Store again who follows a table through this server, where the database lost it
        (``stored``, read when ``followers`` followed each table): another server reaped this
        one while it stalled past its lease. Else the owner would think nobody is at the
        table, and its clocks and stand-ins would wait."""
        for table in list(self.tables.values()):
            still = {c.user_id for c in table.subscribers} & followers.get(table.id, set())
            missing = still - stored.get(table.id, set())
            for user in missing:
                self._write(table.id, Store.set_present, table.id, user, self.server_id, True)
            if missing:
                log.warning("table %d: the people here stored again (this server was taken "
                            "for dead while it stalled)", table.id)
                self._note("p", table.id)

    def _take(self, table_id: int, read: tuple | None = None) -> None:
        """Run a table whose lease this server just took, from exactly its stored moves
        (``read``: ``_read_load``'s, read with the lease)."""
        try:
            table = self.tables.get(table_id)
            if table is None:
                table = self._load(table_id, read)
            else:  # the copy followed the old owner: the moves it missed, shown
                row, names, elsewhere, away = read or self._read_load(self.store, table_id)
                if row is None:
                    raise NotFoundError(f"no table {table_id}")
                self._sync(table, True, lambda event, last: self.broadcast(
                    table, event, announce=False), read=(row, names, away),
                    moves_read=(0, row["moves"]))
                table.elsewhere = elsewhere
        except (RefusedError, ValueError) as err:
            log.error("table %d not taken over: %s", table_id, err)
            return
        self._own(table)
        if table.status in ON:
            self.broadcast(table)
        self.kick_bots(table)

    def leave_cluster(self) -> None:
        """A server stopping: its leases go (another takes its tables at once), and the
        other servers hear its people left."""
        for table in self.tables.values():
            self._demote(table)
        for table_id in self.store.drop_server(self.server_id):
            self._note("p", table_id)
        self.send_notes(wait=True)
