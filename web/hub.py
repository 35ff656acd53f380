"""The live server: tables in memory, websocket connections, moves, bots and clocks.

Everything runs on one asyncio event loop. A move is checked, stored and
applied with no ``await`` in between, so two messages can never interleave
inside a move. Fast bots move on the loop; bots that think for long do it in
worker processes (``web.bots.BotRunner``), so no table's search holds up
another table; either way a bot's move is then checked like anyone's.

People: a person to move has a turn clock (``turn`` seconds at the table,
``grace`` seconds once gone from it); when it runs out a stand-in bot plays
the seat until the person comes back. A move the game's adapter marks
``hold`` (a finished trick) is held on each person's screen until they go on
("ready"); a person's clock waits meanwhile, at most ``turn`` seconds. A
table with no seated person at it for ``abandon`` seconds is closed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable

from web.bots import BotRunner, Bots
from web.db import Store
from web.protocol import parse_message
from web.table import NotFoundError, RefusedError, Table

log = logging.getLogger("web")
dumps = json.JSONEncoder(separators=(",", ":")).encode  # compact: fewer bytes to send
MAX_BACKLOG = 2000  # messages queued for one connection before it is dropped as too slow
MAX_ID = (1 << 63) - 1  # table ids are 64-bit database keys
TURN = 60.0  # seconds a person at the table has for a move
GRACE = 30.0  # seconds a person who left the table has before a bot plays for them
ABANDON = 600.0  # seconds a table may have no seated person at it before it is closed


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
                 turn: float = TURN, grace: float = GRACE, abandon: float = ABANDON) -> None:
        self.store = store
        self.clock = clock
        self.bot_delay = bot_delay
        self.bots = bots or Bots()
        self.runner = BotRunner(self.bots, bot_processes)
        self.turn, self.grace, self.abandon = turn, grace, abandon
        self.tables: dict[int, Table] = {}
        self.conns: set[Conn] = set()

    # ------------------------------------------------------------ tables
    def resume(self) -> int:
        """Load every unfinished table from the store; bots to move go on. Returns the count.

        A table that cannot be rebuilt (a bot no longer on the list) is left as
        it is in the store, and said so in the log.
        """
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

    def table(self, table_id) -> Table:
        """The table, from memory or rebuilt from the store; NotFoundError if there is none."""
        if isinstance(table_id, bool) or not isinstance(table_id, int) \
                or not 0 < table_id <= MAX_ID:
            raise NotFoundError(f"no table {table_id!r}")
        table = self.tables.get(table_id)
        if table is None:
            row = self.store.table(table_id)
            if row is None:
                raise NotFoundError(f"no table {table_id}")
            names = self.store.user_names(s["user_id"] for s in row["seats"] if s["user_id"])
            table = Table(row, names, self.bots, now=self.clock())
            self.tables[table_id] = table
            if table.status in ("waiting", "scheduled", "playing"):
                self.runner.prepare(s.bot_spec for s in table.seats if s.bot_spec)
        return table

    def online(self, table: Table) -> set[int]:
        return table.present()

    def clock_info(self, table: Table) -> dict | None:
        at = table.deadline(self.turn, self.grace)
        if at is None:
            return None
        seat = table.to_move()
        return {"seat": seat, "bot_at": at, "now": self.clock(), "since": table.turn_since,
                "held": seat in table.unseen}

    def broadcast(self, table: Table, event: dict | None = None) -> None:
        """Tell every follower of ``table`` what its seat may know, one encoding per seat."""
        online = self.online(table)
        clock = self.clock_info(table)
        texts: dict[int | None, str] = {}
        for conn in list(table.subscribers):
            seat = table.seat_of(conn.user_id)
            if seat not in texts:
                texts[seat] = dumps(table.message(seat, event, online, clock))
            conn.send(texts[seat])
        table.notice = None

    def start(self, table: Table) -> None:
        table.start()
        table.status = "playing"
        table.turn_since = self.clock()
        self.store.set_status(table.id, "playing")
        self.broadcast(table)
        self.kick_bots(table)

    def evict(self, table: Table) -> None:
        """Forget a finished or closed table nobody is looking at (the store keeps it)."""
        if table.status not in ("waiting", "scheduled", "playing") and not table.subscribers:
            self.tables.pop(table.id, None)

    def close_table(self, table: Table, status: str, reason: str) -> None:
        """End a table that will not be played to its end ("cancelled", "abandoned")."""
        result = {status: reason}
        if table.state is not None:
            result["scores"] = list(table.state.scores)
        self.store.set_status(table.id, status, result)
        table.status, table.result = status, result
        if table.bot_task is not None:
            table.bot_task.cancel()
        self.broadcast(table)
        self.evict(table)

    # ------------------------------------------------------------- moves
    def move(self, table: Table, seat: int, action, ply: int | None = None) -> None:
        """Check, store, apply and announce one move; RefusedError leaves everything as it was."""
        if ply is not None and ply != table.ply:
            raise RefusedError(f"stale move at table {table.id}: you saw move {ply}, "
                               f"the table is at move {table.ply}")
        table.check_move(seat, action)
        self.store.add_move(table.id, table.ply, seat, action, self.clock())
        event = table.apply(seat, action)
        table.turn_since = self.clock()
        if event.get("hold"):  # the people here see the move held until they go on
            table.hold(self.clock())
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
        while (who := table.bot_to_move()) is not None:
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
            self.move(table, seat, action)
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
            self.store.set_seat(table.id, seat, None, fallback)
            s.bot_spec = fallback
            table.notice = f"Bot {spec} {what}; {fallback} plays seat {seat + 1} from now on."
        else:  # a stand-in failed: the table's stand-in becomes the fallback
            self.store.set_bot_spec(table.id, fallback)
            table.bot_spec = fallback
            table.notice = (f"Bot {spec}, playing for {s.user_name}, {what}; {fallback} "
                            f"stands in from now on.")
        self.broadcast(table)

    # -------------------------------------------------------------- clock
    def tick_tables(self, now: float) -> None:
        """Turn clocks that ran out get a stand-in; tables nobody is at are closed."""
        for table in list(self.tables.values()):
            if table.status not in ("waiting", "playing"):
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
        table.notice = f"{s.user_name}'s time ran out: a bot plays for them until they are back."
        self.broadcast(table)
        self.kick_bots(table)

    def hand_back(self, table: Table, seat: int) -> None:
        """The person is back: the seat is theirs again, with a fresh clock if it is to move."""
        s = table.seats[seat]
        if not s.away:
            return
        s.away = False
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
        seat = table.seat_of(conn.user_id)
        if seat is not None and conn.user_id not in table.present():
            table.left_at[seat] = self.clock()
            if not table.anyone_here():
                table.empty_since = self.clock()
        if table.status in ("waiting", "scheduled", "playing"):
            self.broadcast(table)  # who is here: news only while the table is on
        self.evict(table)

    def handle(self, conn: Conn, text: str | bytes) -> None:
        """Act on one client message; a refused one is answered with an error to it alone.

        Whatever the message, the connection stays open: an unexpected failure is
        logged and answered like a refusal.
        """
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
                if table is not None and conn in table.subscribers:
                    self._leave(conn, table)
            elif kind == "ready":
                table = self.table(table_id)
                seat = table.seat_of(conn.user_id)
                if seat is not None and table.ready(seat, msg.get("ply"), self.clock()):
                    self.broadcast(table)  # the clock of the seat runs now
            elif kind == "chat":
                self.chat(conn, self.table(table_id), msg["text"])
            elif kind == "back":
                table = self.table(table_id)
                seat = table.seat_of(conn.user_id)
                if seat is None:
                    raise RefusedError(f"you have no seat at table {table_id}")
                self.hand_back(table, seat)
                self.broadcast(table)
            else:
                table = self.table(table_id)
                seat = table.seat_of(conn.user_id)
                if seat is None:
                    raise RefusedError(f"you have no seat at table {table_id}")
                if table.seats[seat].away:
                    raise RefusedError(f"a bot is playing your seat at table {table_id}: "
                                       f"say you are back first")
                self.move(table, seat, msg["action"], msg.get("ply"))
        except RefusedError as err:
            self._error(conn, table_id, msg_id, str(err))
        except Exception:
            log.exception("message from %s failed: %.200r", conn.user_name, text)
            self._error(conn, table_id, msg_id, "the server could not handle that message")

    def chat(self, conn: Conn, table: Table, text: str) -> None:
        """A chat line (``web.lobby.Lobby`` serves chat)."""
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
        seat = table.seat_of(conn.user_id)
        if seat is not None:
            table.empty_since = None
            table.left_at.pop(seat, None)
            self.hand_back(table, seat)
        self.broadcast(table)
        if seat is not None and table.status == "playing":
            self.kick_bots(table)  # stand-ins of the others play on now someone is here
