"""What every route handler shares: the server's settings, the signed-in user, reading a
JSON body, and turning a refusal into its 4xx answer (``answers``, ``signed_in``).

Handlers are plain module-level functions (``cardrl.web.routes``); what ``create_app`` was
given lives on ``request.app.state``: ``settings`` (``Settings``) and ``lobby``.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse

from cardrl.web.db import Store
from cardrl.web.lobby import Lobby
from cardrl.web.table import RefusedError

log = logging.getLogger("web")
COOKIE = "cardrl_session"
MAX_BODY = 16 * 1024  # bytes of a request body; every request of the page is far smaller


class TooLargeError(RefusedError):
    status = 413


class ForbiddenError(RefusedError):
    """What only an account may do, asked by a guest."""

    status = 403


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


@dataclass
class Settings:
    """What the handlers read of ``create_app``'s arguments (``app.state.settings``)."""

    clock: Callable[[], float]
    secure_cookies: bool
    password_cost: int | None  # scrypt's n; None: web.passwords' default
    by_name: Throttle  # failed sign-ins per user name
    by_address: Throttle  # and per client address
    guests: Throttle | None = None  # guest sessions made per client address


def settings(conn: HTTPConnection) -> Settings:
    return conn.app.state.settings


def lobby(conn: HTTPConnection) -> Lobby:
    return conn.app.state.lobby


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def user_of(conn: HTTPConnection) -> dict | None:
    """The signed-in user of a request or websocket (its session cookie), or None:
    ``id``, ``name`` and ``guest`` (True for a guest session)."""
    token = conn.cookies.get(COOKIE)
    if not token:
        return None
    return lobby(conn).store.session_user(token_hash(token), settings(conn).clock())


async def user_soon(conn: HTTPConnection) -> dict | None:
    """``user_of``, read in a database lane when the server has them (many servers): a
    slow database holds up this request, not the others."""
    hub = lobby(conn)
    token = conn.cookies.get(COOKIE)
    if not token or hub.lanes is None:
        return user_of(conn)
    return await hub.lanes.run("read", Store.session_user, token_hash(token),
                               settings(conn).clock())


async def db_soon(conn: HTTPConnection, fn: Callable, *args, key: int | str = "accounts"):
    """``fn(store, *args)``: in a database lane when the server has them (``key``: a table's
    id keeps its order with the table's moves), else at once (SQLite: one server, no lanes)."""
    hub = lobby(conn)
    if hub.lanes is None:
        return fn(hub.store, *args)
    return await hub.lanes.run(key, fn, *args)


async def body(request: Request, limit: int = MAX_BODY) -> dict:
    """The request's JSON object, read only up to ``limit`` bytes."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise RefusedError("send requests as application/json")
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > limit):
        raise TooLargeError(f"a request body has at most {limit} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TooLargeError(f"a request body has at most {limit} bytes")
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


def account_only(user: dict, what: str) -> None:
    """Refuse (403) what only an account may do when ``user`` is a guest."""
    if user.get("guest"):
        raise ForbiddenError(f"guests cannot {what}: make an account (it keeps your tables)")


def signed_in(handler):
    """``answers``, for a handler ``(request, user)`` that needs a signed-in user (else 401)."""
    @answers
    async def wrapper(request: Request):
        user = await user_soon(request)
        if user is None:
            return JSONResponse({"error": "sign in first"}, status_code=401)
        return await handler(request, user)
    return wrapper
