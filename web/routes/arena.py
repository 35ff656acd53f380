"""The bot arena's JSON API (``cardrl.web.arena.Arena``): upload, withdraw, your bots, the
divisions and a division's leaderboard.

Only an account uploads (a guest is refused with 403). An upload is one JSON request
``{"name", "card", "model"}`` (``model``: the ONNX file in base64), so it is sent like
every other state-changing request (a cross-site form cannot send JSON), with a body
limit fitted to the arena's file limit.
"""

from __future__ import annotations

from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from cardrl.web.arena import Arena
from cardrl.web.arena_check import MAX_CARD
from cardrl.web.http import TooLargeError, account_only, body, signed_in


def arena(conn: HTTPConnection) -> Arena:
    return conn.app.state.arena


def upload_limit(a: Arena) -> int:
    """Bytes of an upload request: the file in base64, the card and the name."""
    return (a.settings.limits.max_bytes + 2) // 3 * 4 + MAX_CARD + 4096


@signed_in
async def upload(request: Request, user: dict):
    account_only(user, "upload bots")
    a = arena(request)
    try:
        d = await body(request, upload_limit(a))
    except TooLargeError:  # the person chose a file: name the file's limit, not the body's
        limit = a.settings.limits.max_bytes
        raise TooLargeError(f"the ONNX file is larger than the limit of {limit / 2**20:g} MiB "
                            f"({limit} bytes)") from None
    return JSONResponse(await a.upload(user["id"], d.get("name"), d.get("card"),
                                       d.get("model")))


@signed_in
async def withdraw(request: Request, user: dict):
    await body(request)
    return JSONResponse(await arena(request).withdraw(user["id"],
                                                      int(request.path_params["bot_id"])))


@signed_in
async def mine(request: Request, user: dict):
    a = arena(request)
    return JSONResponse({"bots": await a.in_lane(a.mine, user["id"])})


@signed_in
async def divisions(request: Request, user: dict):
    a = arena(request)
    return JSONResponse({"divisions": a.divisions(), "limits": {
        "max_bytes": a.settings.limits.max_bytes, "move_seconds": a.settings.move_seconds,
        "check_move_seconds": a.settings.limits.move_seconds,
        "memory_mib": a.settings.memory >> 20, "per_user": a.settings.per_user,
        "deals": a.settings.deals}})


@signed_in
async def leaderboard(request: Request, user: dict):
    q = request.query_params
    players = q.get("players", "")
    a = arena(request)
    return JSONResponse(await a.in_lane(
        a.leaderboard, q.get("game"), q.get("preset"),
        int(players) if players.isdigit() and len(players) < 4 else players))


ROUTES = [
    Route("/api/arena", divisions),
    Route("/api/arena/leaderboard", leaderboard),
    Route("/api/arena/mine", mine),
    Route("/api/arena/bots", upload, methods=["POST"]),
    Route("/api/arena/bots/{bot_id:int}/withdraw", withdraw, methods=["POST"]),
]
