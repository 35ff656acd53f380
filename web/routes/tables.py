"""The lobby's JSON API: the games and bots on offer, the listing, and making, joining,
leaving and replaying tables, invite links (every request answered by
``cardrl.web.lobby.Lobby``). A guest may do all of it but schedule games."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from cardrl.web.http import account_only, body, lobby, signed_in


def table_answer(table) -> JSONResponse:
    return JSONResponse({"table": table.id, "status": table.status})


def path_table(request: Request) -> int:
    return int(request.path_params["table_id"])  # the lobby refuses an id out of range


@signed_in
async def games(request: Request, user: dict):
    return JSONResponse({"games": lobby(request).games()})


@signed_in
async def listing(request: Request, user: dict):
    """The lobby's lists, your invitations to scheduled games, and the server's time (the
    page counts "starts in N minutes" from it)."""
    hub = lobby(request)
    live = await hub.live_soon()  # many servers: read off the event loop
    return JSONResponse({**hub.listing(user["id"], live),
                         "invitations": hub.invitations(user["id"], live), "now": hub.clock()})


@signed_in
async def bots_for(request: Request, user: dict):
    d = await body(request)
    return JSONResponse(lobby(request).bots_for(d.get("game"), d.get("preset"), d.get("rules")))


@signed_in
async def create_table(request: Request, user: dict):
    d = await body(request)
    return table_answer(await lobby(request).create_table_soon(
        user["id"], d.get("game"), d.get("preset"), d.get("rules"), d.get("seats")))


@signed_in
async def quick_match(request: Request, user: dict):
    """Bots fill the empty seats at once unless ``fill_after`` says to wait for people
    (seconds, or null: only people)."""
    d = await body(request)
    return table_answer(await lobby(request).quick_match_soon(
        user["id"], d.get("game"), d.get("preset"), d.get("fill_after", 0), d.get("bot")))


@signed_in
async def schedule(request: Request, user: dict):
    account_only(user, "schedule games")
    d = await body(request)
    return table_answer(await lobby(request).schedule_soon(
        user["id"], d.get("game"), d.get("starts_at"), d.get("players"), d.get("preset"),
        d.get("rules"), d.get("absent", "bot"), d.get("bot")))


@signed_in
async def sit(request: Request, user: dict):
    d = await body(request)
    return table_answer(await lobby(request).sit_soon(user["id"], path_table(request),
                                                      d.get("seat")))


@signed_in
async def stand(request: Request, user: dict):
    await body(request)
    return table_answer(await lobby(request).stand_soon(user["id"], path_table(request)))


@signed_in
async def invite(request: Request, user: dict):
    """A new invite link to a table waiting for players: whoever opens it takes a seat.
    The secret sits in the page's #fragment, which browsers send to no server."""
    await body(request)
    token = await lobby(request).invite_soon(user["id"], path_table(request))
    return JSONResponse({"token": token, "link": f"/#/invite/{token}"})


@signed_in
async def accept_invite(request: Request, user: dict):
    d = await body(request)
    return table_answer(await lobby(request).accept_invite_soon(user["id"], d.get("token")))


@signed_in
async def again(request: Request, user: dict):
    await body(request)
    return table_answer(await lobby(request).again_soon(user["id"], path_table(request)))


ROUTES = [
    Route("/api/games", games),
    Route("/api/lobby", listing),
    Route("/api/tables", create_table, methods=["POST"]),
    Route("/api/tables/{table_id:int}/sit", sit, methods=["POST"]),
    Route("/api/tables/{table_id:int}/stand", stand, methods=["POST"]),
    Route("/api/tables/{table_id:int}/again", again, methods=["POST"]),
    Route("/api/tables/{table_id:int}/invite", invite, methods=["POST"]),
    Route("/api/invite", accept_invite, methods=["POST"]),
    Route("/api/bots", bots_for, methods=["POST"]),
    Route("/api/quickmatch", quick_match, methods=["POST"]),
    Route("/api/schedule", schedule, methods=["POST"]),
]
