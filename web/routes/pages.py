"""The page, its files, and the websocket that carries the live table (``cardrl.web.hub``).

A websocket must come from this server's own page or another server's of the community
(Origin check against the ``--public-url`` the servers stored) and a signed-in user;
its messages go to the hub, and the hub's answers come back through the connection's
pump.
"""

from __future__ import annotations

import asyncio
import contextlib
from importlib import resources
from pathlib import Path
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from cardrl.web.http import lobby, user_soon
from cardrl.web.hub import Conn

STATIC = Path(str(resources.files("cardrl.web") / "static"))  # package data


async def index(request: Request):
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})


async def favicon(request: Request):
    return Response((STATIC / "favicon.svg").read_bytes(), media_type="image/svg+xml",
                    headers={"Cache-Control": "max-age=86400"})


async def websocket(ws: WebSocket):
    origin = ws.headers.get("origin")
    # this server's own page, or a page another server of the community served (its
    # ``--public-url``: the page moves here when its server dies)
    if origin is not None and urlsplit(origin).netloc != ws.headers.get("host") \
            and origin not in lobby(ws).known_urls:
        await ws.close(code=4403, reason="cross-site websocket refused")
        return
    await ws.accept()
    user = await user_soon(ws)
    if user is None:
        await ws.send_json({"type": "error", "table": None, "error": "sign in first"})
        await ws.close(code=4401)
        return
    hub = lobby(ws)
    conn = Conn(user["id"], user["name"], ws.send_text)
    hub.connect(conn)
    if hub.peers:  # where the page goes on if this server dies
        conn.send({"type": "peers", "peers": hub.peers})
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


ROUTES = [
    Route("/", index),
    Route("/favicon.ico", favicon),
    WebSocketRoute("/ws", websocket),
    Mount("/static", StaticFiles(directory=STATIC), name="static"),
]
