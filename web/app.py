"""The ASGI app: accounts, the lobby's JSON API, the websocket and the static page.

    create_app("sqlite:///runs/web/web.db")     # then serve it with uvicorn

The handlers live by route group in ``cardrl.web.routes`` (pages and the websocket,
accounts, tables) over what they share in ``cardrl.web.http``; this module builds the
app: its settings, the lobby opened at startup, and the routes.

Accounts: names and scrypt-hashed passwords; a sign-in sets an HttpOnly
session cookie holding a random token (only its SHA-256 is stored). State-
changing requests must be ``application/json`` (a cross-site form cannot send
that) of at most ``MAX_BODY`` bytes, and a websocket must come from this
server's own page (Origin check). Wrong passwords are throttled per user name
and per client address, new guest sessions per client address. A refused
request is answered 4xx with the reason and changes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import re
import time
from collections.abc import Callable, Iterable

from starlette.applications import Starlette

from cardrl.web.arena import Arena, ArenaSettings
from cardrl.web.bots import Bots
from cardrl.web.cluster import Heartbeat, Lanes, Listener
from cardrl.web.db import Store
from cardrl.web.http import MAX_BODY, Settings, Throttle
from cardrl.web.hub import ABANDON, GRACE, LEASE, TURN
from cardrl.web.lobby import Lobby
from cardrl.web.routes import ROUTES

log = logging.getLogger("web")
PUBLIC_URL = re.compile(r"https?://[A-Za-z0-9.-]{1,200}(:\d{1,5})?|https?://\[[0-9a-fA-F:]{2,45}\](:\d{1,5})?")
DEFAULT_DB = "sqlite:///runs/web/web.db"
SIGNIN_WINDOW = 300.0  # seconds over which failed sign-ins are counted
SIGNIN_PER_NAME = 5  # failed sign-ins per user name in the window before a pause
SIGNIN_PER_ADDRESS = 20  # failed sign-ins per client address in the window
GUEST_WINDOW = 3600.0  # seconds over which new guest sessions are counted
GUESTS_PER_ADDRESS = 30  # guest sessions one client address may make in that window

__all__ = ["DEFAULT_DB", "GUESTS_PER_ADDRESS", "GUEST_WINDOW", "MAX_BODY",
           "SIGNIN_PER_ADDRESS", "SIGNIN_PER_NAME", "SIGNIN_WINDOW", "create_app"]


def create_app(db_url: str = DEFAULT_DB, *, clock: Callable[[], float] = time.time,
               tick_seconds: float = 1.0, bot_delay: float = 0.0,
               secure_cookies: bool = False, password_cost: int | None = None,
               bots: Iterable[str] | None = None, bot_processes: int = 2,
               turn: float = TURN, grace: float = GRACE, abandon: float = ABANDON,
               lease: float = LEASE, name: str | None = None,
               arena: ArenaSettings | None = None, db_lanes: int = 8,
               db_delay: float = 0.0, public_url: str | None = None) -> Starlette:
    """The server app; the store opens (and unfinished games resume) at startup.

    ``bots``: the bot specs tables may seat (default: every registered bot and
    shipped checkpoint); ``turn``, ``grace``: a person's turn clock at and away
    from the table; ``abandon``: seconds without a seated person before a table
    is closed; ``lease``: seconds a table's lease lasts unrenewed (PostgreSQL: the
    longest a dead server's tables wait for another server); ``name``: what the server's
    leases say it is (with a random part, so that each process is told apart);
    ``arena``: the bot arena's settings (``cardrl.web.arena.ArenaSettings``);
    ``db_lanes``: PostgreSQL: threads that store moves and notes off the event loop
    (``cardrl.web.cluster.Lanes``); ``db_delay``: seconds added to every database
    statement, to measure a slow database (benchmarks only); ``public_url``: PostgreSQL:
    the address pages reach this server at (``http://host:port``): a page whose server
    dies moves to another live one, and each server accepts sockets from the others' pages.
    """
    if isinstance(db_delay, bool) or not isinstance(db_delay, (int, float)) \
            or not 0 <= db_delay <= 10:
        raise ValueError(f"db_delay is 0 to 10 seconds, got {db_delay!r}")
    if public_url is not None and not (isinstance(public_url, str)
                                       and PUBLIC_URL.fullmatch(public_url)):
        raise ValueError(f"a public URL is http(s)://host[:port] with nothing after it, got "
                         f"{public_url!r}")
    allowed = Bots(bots)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        store = Store(db_url, exclusive=True, delay=db_delay)
        lobby = Lobby(store, clock=clock, bot_delay=bot_delay, bots=allowed,
                      bot_processes=bot_processes, turn=turn, grace=grace, abandon=abandon,
                      lease=lease, name=name)
        app.state.lobby = lobby
        lobby.public_url = public_url
        listener = heartbeat = None
        if store.shared:  # hear the other servers before taking any table
            listener = Listener(db_url, asyncio.get_running_loop(), lobby.on_note,
                                lobby.on_reconnect, store.db.conn.info.backend_pid).start()
        if store.shared:
            lobby.lanes = Lanes(db_url, db_lanes, db_delay)
            app.state.arena = Arena(store, allowed, arena, clock=clock, lanes=lobby.lanes)
            await app.state.arena.in_lane(app.state.arena._reload)
            await lobby.resume_soon()
            heartbeat = Heartbeat(db_url, lobby.server_id, lease).start()
            lobby.beating = True
        else:
            app.state.arena = Arena(store, allowed, arena, clock=clock)
            lobby.resume()
        # what is loaded by now lives as long as the server: the garbage collector need not
        # look at it again, and it runs less often (a full pass would pause every table)
        gc.freeze()
        gc.set_threshold(20_000, 50, 100)
        ticker = asyncio.get_running_loop().create_task(lobby.run_clock(tick_seconds))
        watcher = asyncio.get_running_loop().create_task(_watch_loop()) if db_delay else None
        app.state.arena.start()
        try:
            yield
        finally:
            ticker.cancel()
            if watcher is not None:
                watcher.cancel()
            app.state.arena.close()
            for table in lobby.tables.values():
                if table.bot_task is not None:
                    table.bot_task.cancel()
            lobby.runner.shutdown()
            if listener is not None:
                heartbeat.stop()
                listener.stop()
                lobby.leave_cluster()
                lobby.lanes.close()
            store.close()

    async def _watch_loop(every: float = 0.02, late: float = 0.1) -> None:
        """Measuring a slow database: log each time the event loop answers ``late`` seconds
        after it should (what every socket of the server waits then)."""
        loop = asyncio.get_running_loop()
        while True:
            at = loop.time() + every
            await asyncio.sleep(every)
            if (lag := loop.time() - at) > late:
                log.warning("event loop late by %.0f ms at %.3f", lag * 1000, time.time())

    app = Starlette(routes=ROUTES, lifespan=lifespan)
    app.state.settings = Settings(
        clock=clock, secure_cookies=secure_cookies, password_cost=password_cost,
        by_name=Throttle(SIGNIN_PER_NAME, SIGNIN_WINDOW, clock),
        by_address=Throttle(SIGNIN_PER_ADDRESS, SIGNIN_WINDOW, clock),
        guests=Throttle(GUESTS_PER_ADDRESS, GUEST_WINDOW, clock))
    return app
