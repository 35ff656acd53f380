"""Accounts: sign up, sign in (throttled), sign out, who am I, and guests.

A sign-in sets an HttpOnly session cookie holding a random token (only its
SHA-256 is stored). Wrong passwords are throttled per user name and per client
address.

A guest (``/api/guest``) gets a session at once, under a made-up name and with
no password, so a newcomer plays before making an account; guest sessions are
throttled per client address. Signing up from a guest session turns the guest
into the account (same user id), so its tables and results stay its own.
What only an account may do is refused to a guest with 403 (``account_only``).
"""

from __future__ import annotations

import re
import secrets

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from cardrl.web.db import Store
from cardrl.web.http import (
    COOKIE,
    ThrottledError,
    answers,
    body,
    db_soon,
    lobby,
    settings,
    signed_in,
    token_hash,
    user_soon,
)
from cardrl.web.passwords import hash_password, verify_password
from cardrl.web.table import RefusedError

SESSION_DAYS = 30
NAME_RE = re.compile(r"^[A-Za-z0-9_.-]{3,24}$")
GUEST_PREFIX = "guest-"  # guests' names; no account may take one
# a player's settings, each with its type and default: ``auto_tricks``, a finished trick
# is collected by itself after a moment (default: it waits for "Next trick")
PREFS = {"auto_tricks": (bool, False)}


async def session_response(request: Request, user_id: int, name: str,
                           guest: bool = False, extra: dict | None = None) -> JSONResponse:
    """The answer that signs ``user_id`` in: a new session and its cookie (stored off the
    event loop when the server has database lanes)."""
    token = secrets.token_urlsafe(32)
    s = settings(request)
    await db_soon(request, Store.add_session, token_hash(token), user_id,
                  s.clock() + SESSION_DAYS * 86400)
    response = JSONResponse({"name": name, "id": user_id, "guest": guest, **(extra or {})})
    response.set_cookie(COOKIE, token, max_age=SESSION_DAYS * 86400, httponly=True,
                        samesite="lax", secure=s.secure_cookies, path="/")
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
    if name.lower().startswith(GUEST_PREFIX):
        raise RefusedError(f"names starting with {GUEST_PREFIX!r} are for guests")
    s = settings(request)
    cost = {} if s.password_cost is None else {"n": s.password_cost}
    hashed = await run_in_threadpool(hash_password, password, **cost)
    user = await user_soon(request)
    if user is not None and user["guest"]:  # the guest keeps its tables: it becomes the account
        if not await db_soon(request, Store.adopt_guest, user["id"], name, hashed):
            return JSONResponse({"error": f"the name {name!r} is taken"}, status_code=409)
        lobby(request).adopted(user["id"], name)
        return JSONResponse({"name": name, "id": user["id"], "guest": False})
    user_id = await db_soon(request, Store.create_user, name, hashed, s.clock())
    if user_id is None:
        return JSONResponse({"error": f"the name {name!r} is taken"}, status_code=409)
    return await session_response(request, user_id, name)


@answers
async def signin(request: Request):
    name, password = credentials(await body(request))
    s = settings(request)
    keys = [(s.by_name, "name:" + name.lower()),
            (s.by_address, "address:" + (request.client.host if request.client else "?"))]
    wait = max(throttle.wait(key) for throttle, key in keys)
    if wait:
        raise ThrottledError(f"too many wrong passwords: try again in {wait:.0f} s", wait)
    user = await db_soon(request, Store.user_by_name, name)
    ok = user is not None and await run_in_threadpool(verify_password, password,
                                                      user["password"])
    if not ok:
        for throttle, key in keys:
            throttle.fail(key)
        return JSONResponse({"error": "wrong user name or password"}, status_code=401)
    s.by_name.clear(keys[0][1])
    return await session_response(request, user["id"], user["name"])


@answers
async def signout(request: Request):
    await body(request)
    token = request.cookies.get(COOKIE)
    if token:
        await db_soon(request, Store.drop_session, token_hash(token))
    response = JSONResponse({"ok": True})
    response.delete_cookie(COOKIE, path="/")
    return response


@answers
async def guest(request: Request):
    """A guest session at once (or the session already held). With ``invite`` (a link's
    token) the link is checked first - a link that is over makes no account - and the
    guest takes its seat: the answer's ``table``."""
    d = await body(request)
    invite = d.get("invite")
    if invite is not None:
        await lobby(request).check_invite_soon(invite)
    user = await user_soon(request)
    if user is not None:
        answer = {"name": user["name"], "id": user["id"], "guest": user["guest"]}
        if invite is not None:
            answer["table"] = (await lobby(request).accept_invite_soon(user["id"], invite)).id
        return JSONResponse(answer)
    s = settings(request)
    key = "address:" + (request.client.host if request.client else "?")
    wait = s.guests.wait(key) if s.guests is not None else 0
    if wait:
        raise ThrottledError(f"too many guests from your address: try again in {wait:.0f} s "
                             "or make an account", wait)
    for _ in range(5):
        name = GUEST_PREFIX + secrets.token_hex(3)
        user_id = await db_soon(request, Store.create_guest, name, s.clock())
        if user_id is not None:
            break
    else:
        raise RefusedError("no free guest name: try again")
    if s.guests is not None:
        s.guests.fail(key)
    table = None
    if invite is not None:
        try:
            table = (await lobby(request).accept_invite_soon(user_id, invite)).id
        except RefusedError as err:  # the last seat went meanwhile: the guest stays
            return await session_response(request, user_id, name, guest=True,
                                          extra={"invite_error": str(err)})
    return await session_response(request, user_id, name, guest=True,
                                  extra=None if table is None else {"table": table})


@signed_in
async def prefs(request: Request, user: dict):
    """The player's settings, kept with the account (a guest's too): GET reads them, POST
    changes the ones it names; an unknown name or a wrong type changes nothing."""
    if request.method == "GET":
        return JSONResponse({**{k: d for k, (_, d) in PREFS.items()},
                             **await db_soon(request, Store.prefs, user["id"])})
    d = await body(request)
    for key, value in d.items():
        if key not in PREFS:
            raise RefusedError(f"no setting {key[:40]!r}: the settings are {', '.join(PREFS)}")
        if type(value) is not PREFS[key][0]:
            raise RefusedError(f"{key} is {PREFS[key][0].__name__}, got {str(value)[:40]!r}")
    def merge(store: Store) -> dict:  # read and written in one thread, in turn
        merged = {**store.prefs(user["id"]), **d}
        store.set_prefs(user["id"], merged)
        return merged

    merged = await db_soon(request, merge)
    return JSONResponse({**{k: v for k, (_, v) in PREFS.items()}, **merged})


@signed_in
async def me(request: Request, user: dict):
    return JSONResponse({"name": user["name"], "id": user["id"], "guest": user["guest"]})


@answers
async def session(request: Request):
    """Who is signed in, or ``{"user": null}``: the page's first question, answered 200
    either way (a signed-out first visit is no error)."""
    user = await user_soon(request)
    if user is None:
        return JSONResponse({"user": None})
    return JSONResponse({"user": {"name": user["name"], "id": user["id"],
                                  "guest": user["guest"]}})


ROUTES = [
    Route("/api/signup", signup, methods=["POST"]),
    Route("/api/signin", signin, methods=["POST"]),
    Route("/api/signout", signout, methods=["POST"]),
    Route("/api/me", me),
    Route("/api/prefs", prefs, methods=["GET", "POST"]),
    Route("/api/session", session),
    Route("/api/guest", guest, methods=["POST"]),
]
