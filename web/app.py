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
import time
from collections.abc import Callable, Iterable

from starlette.applications import Starlette

from cardrl.web.arena import Arena, ArenaSettings
from cardrl.web.bots import Bots
from cardrl.web.cluster import Heartbeat, Listener
from cardrl.web.db import Store
from cardrl.web.http import MAX_BODY, Settings, Throttle
from cardrl.web.hub import ABANDON, GRACE, LEASE, TURN
from cardrl.web.lobby import Lobby
from cardrl.web.routes import ROUTES

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
               arena: ArenaSettings | None = None) -> Starlette:
    """The server app; the store opens (and unfinished games resume) at startup.

    ``bots``: the bot specs tables may seat (default: every registered bot and
    shipped checkpoint); ``turn``, ``grace``: a person's turn clock at and away
    from the table; ``abandon``: seconds without a seated person before a table
    is closed; ``lease``: seconds a table's lease lasts unrenewed (PostgreSQL: the
    longest a dead server's tables wait for another server); ``name``: what the server's
    leases say it is (with a random part, so that each process is told apart);
    ``arena``: the bot arena's settings (``cardrl.web.arena.ArenaSettings``).
    """
    allowed = Bots(bots)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        store = Store(db_url, exclusive=True)
        lobby = Lobby(store, clock=clock, bot_delay=bot_delay, bots=allowed,
                      bot_processes=bot_processes, turn=turn, grace=grace, abandon=abandon,
                      lease=lease, name=name)
        app.state.lobby = lobby
        listener = heartbeat = None
        if store.shared:  # hear the other servers before taking any table
            listener = Listener(db_url, asyncio.get_running_loop(), lobby.on_note,
                                lobby.on_reconnect, store.db.conn.info.backend_pid).start()
        app.state.arena = Arena(store, allowed, arena, clock=clock)
        lobby.resume()
        if store.shared:
            heartbeat = Heartbeat(db_url, lobby.server_id, lease).start()
            lobby.beating = True
        # what is loaded by now lives as long as the server: the garbage collector need not
        # look at it again, and it runs less often (a full pass would pause every table)
        gc.freeze()
        gc.set_threshold(20_000, 50, 100)
        ticker = asyncio.get_running_loop().create_task(lobby.run_clock(tick_seconds))
        app.state.arena.start()
        try:
            yield
        finally:
            ticker.cancel()
            app.state.arena.close()
            for table in lobby.tables.values():
                if table.bot_task is not None:
                    table.bot_task.cancel()
            lobby.runner.shutdown()
            if listener is not None:
                heartbeat.stop()
                listener.stop()
                lobby.leave_cluster()
            store.close()

    app = Starlette(routes=ROUTES, lifespan=lifespan)
    app.state.settings = Settings(
        clock=clock, secure_cookies=secure_cookies, password_cost=password_cost,
        by_name=Throttle(SIGNIN_PER_NAME, SIGNIN_WINDOW, clock),
        by_address=Throttle(SIGNIN_PER_ADDRESS, SIGNIN_WINDOW, clock),
        guests=Throttle(GUESTS_PER_ADDRESS, GUEST_WINDOW, clock))
    return app
