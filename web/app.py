"""The ASGI app: accounts, the lobby's JSON API, the websocket and the static page.

    create_app("sqlite:///runs/web/web.db")     # then serve it with uvicorn

Accounts: names and scrypt-hashed passwords; a sign-in sets an HttpOnly
session cookie holding a random token (only its SHA-256 is stored). State-
changing requests must be ``application/json`` (a cross-site form cannot send
that) of at most ``MAX_BODY`` bytes, and a websocket must come from this
server's own page (Origin check). Wrong passwords are throttled per user name
and per client address. A refused request is answered 4xx with the reason and
changes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hashlib
import json
import logging
import re
import secrets
import time
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from web.bots import Bots
from web.db import Store
from web.hub import ABANDON, GRACE, TURN, Conn
from web.lobby import Lobby
from web.passwords import hash_password, verify_password
from web.table import RefusedError

log = logging.getLogger("web")
STATIC = Path(__file__).resolve().parent / "static"
COOKIE = "cardrl_session"
SESSION_DAYS = 30
NAME_RE = re.compile(r"^[A-Za-z0-9_.-]{3,24}$")
DEFAULT_DB = "sqlite:///runs/web/web.db"
MAX_BODY = 16 * 1024  # bytes of a request body; every request of the page is far smaller
SIGNIN_WINDOW = 300.0  # seconds over which failed sign-ins are counted
SIGNIN_PER_NAME = 5  # failed sign-ins per user name in the window before a pause
SIGNIN_PER_ADDRESS = 20  # failed sign-ins per client address in the window


class TooLargeError(RefusedError):
    status = 413


class ThrottledError(RefusedError):
    status = 429

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class Throttle:
    """At most ``limit`` failures per key within ``window`` seconds (kept in memory)."""

    def __init__(self, limit: int, window: float, clock: Callable[[], float]) -> None:
        self.limit, self.window, self.clock = limit, window, clock
        self.failures: dict[str, deque[float]] = {}

    def _recent(self, key: str) -> deque[float]:
        times = self.failures.get(key, deque())
        while times and times[0] <= self.clock() - self.window:
            times.popleft()
        return times

    def wait(self, key: str) -> float:
        """Seconds until ``key`` may try again; 0 if it may now."""
        times = self._recent(key)
        if len(times) < self.limit:
            return 0.0
        return max(1.0, times[0] + self.window - self.clock())

    def fail(self, key: str) -> None:
        if len(self.failures) > 100_000:  # forget keys whose failures are all old
            for k in [k for k in self.failures if not self._recent(k)]:
                del self.failures[k]
        times = self._recent(key)
        times.append(self.clock())
        self.failures[key] = times

    def clear(self, key: str) -> None:
        self.failures.pop(key, None)


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def create_app(db_url: str = DEFAULT_DB, *, clock: Callable[[], float] = time.time,
               tick_seconds: float = 1.0, bot_delay: float = 0.0,
               secure_cookies: bool = False, password_cost: int | None = None,
               bots: Iterable[str] | None = None, bot_processes: int = 2,
               turn: float = TURN, grace: float = GRACE, abandon: float = ABANDON) -> Starlette:
    """The server app; the store opens (and unfinished games resume) at startup.

    ``bots``: the bot specs tables may seat (default: every registered bot and
    shipped checkpoint); ``turn``, ``grace``: a person's turn clock at and away
    from the table; ``abandon``: seconds without a seated person before a table
    is closed.
    """
    allowed = Bots(bots)
    by_name = Throttle(SIGNIN_PER_NAME, SIGNIN_WINDOW, clock)
    by_address = Throttle(SIGNIN_PER_ADDRESS, SIGNIN_WINDOW, clock)

    def lobby(request) -> Lobby:
        return request.app.state.lobby

    def user_of(conn_or_request) -> dict | None:
        token = conn_or_request.cookies.get(COOKIE)
        if not token:
            return None
        return lobby(conn_or_request).store.session_user(_token_hash(token), clock())

    async def body(request: Request) -> dict:
        """The request's JSON object, read only up to ``MAX_BODY`` bytes."""
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
            raise RefusedError("send requests as application/json")
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
            raise TooLargeError(f"a request body has at most {MAX_BODY} bytes")
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > MAX_BODY:
                raise TooLargeError(f"a request body has at most {MAX_BODY} bytes")
            chunks.append(chunk)
        try:
            data = json.loads(b"".join(chunks))
        except (ValueError, RecursionError):
            raise RefusedError("the request body is not JSON") from None
        if not isinstance(data, dict):
            raise RefusedError("the request body must be a JSON object")
        return data

    def refusal(err: RefusedError) -> JSONResponse:
        headers = {}
        if isinstance(err, ThrottledError):
            headers["Retry-After"] = str(int(err.retry_after + 0.999))
        return JSONResponse({"error": str(err)}, status_code=err.status, headers=headers)

    def answers(handler):
        """A refusal becomes its 4xx answer; an unexpected failure a logged 500."""
        async def wrapper(request: Request):
            try:
                return await handler(request)
            except RefusedError as err:
                return refusal(err)
            except Exception:
                log.exception("%s %s failed", request.method, request.url.path)
                return JSONResponse({"error": "the server failed to answer"}, status_code=500)
        return wrapper

    def signed_in(handler):
        @answers
        async def wrapper(request: Request):
            user = user_of(request)
            if user is None:
                return JSONResponse({"error": "sign in first"}, status_code=401)
            return await handler(request, user)
        return wrapper

    def session_response(user_id: int, name: str) -> JSONResponse:
        token = secrets.token_urlsafe(32)
        lobby_ = app.state.lobby
        lobby_.store.add_session(_token_hash(token), user_id,
                                 clock() + SESSION_DAYS * 86400)
        response = JSONResponse({"name": name})
        response.set_cookie(COOKIE, token, max_age=SESSION_DAYS * 86400, httponly=True,
                            samesite="lax", secure=secure_cookies, path="/")
        return response

    def credentials(data: dict) -> tuple[str, str]:
        name, password = data.get("name"), data.get("password")
        if not isinstance(name, str) or not NAME_RE.match(name):
            raise RefusedError("a user name is 3 to 24 letters, digits, '.', '_' or '-'")
        if not isinstance(password, str) or not 8 <= len(password) <= 200:
            raise RefusedError("a password has 8 to 200 characters")
        return name, password

    @answers
    async def signup(request: Request):
        name, password = credentials(await body(request))
        cost = {} if password_cost is None else {"n": password_cost}
        hashed = await run_in_threadpool(hash_password, password, **cost)
        user_id = lobby(request).store.create_user(name, hashed, clock())
        if user_id is None:
            return JSONResponse({"error": f"the name {name!r} is taken"}, status_code=409)
        return session_response(user_id, name)

    @answers
    async def signin(request: Request):
        name, password = credentials(await body(request))
        keys = [(by_name, "name:" + name.lower()),
                (by_address, "address:" + (request.client.host if request.client else "?"))]
        wait = max(throttle.wait(key) for throttle, key in keys)
        if wait:
            raise ThrottledError(f"too many wrong passwords: try again in {wait:.0f} s", wait)
        user = lobby(request).store.user_by_name(name)
        ok = user is not None and await run_in_threadpool(verify_password, password,
                                                          user["password"])
        if not ok:
            for throttle, key in keys:
                throttle.fail(key)
            return JSONResponse({"error": "wrong user name or password"}, status_code=401)
        by_name.clear(keys[0][1])
        return session_response(user["id"], user["name"])

    @answers
    async def signout(request: Request):
        await body(request)
        token = request.cookies.get(COOKIE)
        if token:
            lobby(request).store.drop_session(_token_hash(token))
        response = JSONResponse({"ok": True})
        response.delete_cookie(COOKIE, path="/")
        return response

    @signed_in
    async def me(request: Request, user: dict):
        return JSONResponse({"name": user["name"], "id": user["id"]})

    @signed_in
    async def games(request: Request, user: dict):
        return JSONResponse({"games": lobby(request).games()})

    @signed_in
    async def listing(request: Request, user: dict):
        return JSONResponse(lobby(request).listing(user["id"]))

    @signed_in
    async def bots_for(request: Request, user: dict):
        d = await body(request)
        return JSONResponse(lobby(request).bots_for(d.get("game"), d.get("preset"),
                                                    d.get("rules")))

    def table_answer(table) -> JSONResponse:
        return JSONResponse({"table": table.id, "status": table.status})

    @signed_in
    async def create_table(request: Request, user: dict):
        d = await body(request)
        return table_answer(lobby(request).create_table(
            user["id"], d.get("game"), d.get("preset"), d.get("rules"), d.get("seats")))

    @signed_in
    async def quick_match(request: Request, user: dict):
        d = await body(request)
        return table_answer(lobby(request).quick_match(
            user["id"], d.get("game"), d.get("preset"), d.get("fill_after"), d.get("bot")))

    @signed_in
    async def schedule(request: Request, user: dict):
        d = await body(request)
        return table_answer(lobby(request).schedule(
            user["id"], d.get("game"), d.get("starts_at"), d.get("players"), d.get("preset"),
            d.get("rules"), d.get("absent", "bot"), d.get("bot")))

    def path_table(request: Request) -> int:
        return int(request.path_params["table_id"])  # the lobby refuses an id out of range

    @signed_in
    async def sit(request: Request, user: dict):
        d = await body(request)
        return table_answer(lobby(request).sit(user["id"], path_table(request), d.get("seat")))

    @signed_in
    async def stand(request: Request, user: dict):
        await body(request)
        return table_answer(lobby(request).stand(user["id"], path_table(request)))

    @signed_in
    async def again(request: Request, user: dict):
        await body(request)
        return table_answer(lobby(request).again(user["id"], path_table(request)))

    async def index(request: Request):
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    async def favicon(request: Request):
        return Response((STATIC / "favicon.svg").read_bytes(), media_type="image/svg+xml",
                        headers={"Cache-Control": "max-age=86400"})

    async def websocket(ws: WebSocket):
        origin = ws.headers.get("origin")
        if origin is not None and urlsplit(origin).netloc != ws.headers.get("host"):
            await ws.close(code=4403, reason="cross-site websocket refused")
            return
        await ws.accept()
        user = user_of(ws)
        if user is None:
            await ws.send_json({"type": "error", "table": None, "error": "sign in first"})
            await ws.close(code=4401)
            return
        hub = ws.app.state.lobby
        conn = Conn(user["id"], user["name"], ws.send_text)
        hub.connect(conn)
        pump = asyncio.get_running_loop().create_task(conn.pump())
        try:
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                hub.handle(conn, text if text is not None else message.get("bytes") or b"")
        except WebSocketDisconnect:
            pass
        finally:
            hub.disconnect(conn)
            conn.close()
            pump.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await pump

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        store = Store(db_url, exclusive=True)
        lobby_ = Lobby(store, clock=clock, bot_delay=bot_delay, bots=allowed,
                       bot_processes=bot_processes, turn=turn, grace=grace, abandon=abandon)
        app.state.lobby = lobby_
        lobby_.resume()
        # what is loaded by now lives as long as the server: the garbage collector need not
        # look at it again, and it runs less often (a full pass would pause every table)
        gc.freeze()
        gc.set_threshold(20_000, 50, 100)
        ticker = asyncio.get_running_loop().create_task(lobby_.run_clock(tick_seconds))
        try:
            yield
        finally:
            ticker.cancel()
            for table in lobby_.tables.values():
                if table.bot_task is not None:
                    table.bot_task.cancel()
            lobby_.runner.shutdown()
            store.close()

    routes = [
        Route("/", index),
        Route("/favicon.ico", favicon),
        Route("/api/signup", signup, methods=["POST"]),
        Route("/api/signin", signin, methods=["POST"]),
        Route("/api/signout", signout, methods=["POST"]),
        Route("/api/me", me),
        Route("/api/games", games),
        Route("/api/lobby", listing),
        Route("/api/tables", create_table, methods=["POST"]),
        Route("/api/tables/{table_id:int}/sit", sit, methods=["POST"]),
        Route("/api/tables/{table_id:int}/stand", stand, methods=["POST"]),
        Route("/api/tables/{table_id:int}/again", again, methods=["POST"]),
        Route("/api/bots", bots_for, methods=["POST"]),
        Route("/api/quickmatch", quick_match, methods=["POST"]),
        Route("/api/schedule", schedule, methods=["POST"]),
        WebSocketRoute("/ws", websocket),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    return app
