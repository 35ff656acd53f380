"""The websocket protocol: JSON text frames, one object each.

Client to server::

    {"type": "join",  "table": 7}               watch table 7 (and play, if seated)
    {"type": "leave", "table": 7}               stop receiving table 7
    {"type": "move",  "table": 7, "action": 31, "ply": 12}
    {"type": "back",  "table": 7}               take your seat back from the stand-in bot
    {"type": "ready", "table": 7, "ply": 12}    you went on from the moment held on your
                                                screen (a finished trick): your clock runs
    {"type": "chat",  "table": 7, "text": "gl hf"}   a chat line (players of the table)
    {"type": "ping"}

``ply`` is optional: the number of moves the client had seen; a move sent for
an older position is refused instead of landing on a newer one. Any message
may carry an ``"id"``, echoed in the answer.

Server to client::

    {"type": "table", "table": 7, "seat": 2, "ply": 13, "status": "playing",
     "players": [...], "view": {...}, "legal": [[action, name], ...], "event": {...},
     "clock": {"seat": 1, "bot_at": epoch, "now": epoch} or null, "notice": "..." or null}
    {"type": "chat", "table": 7, "lines": [{"seat": 1, "name": "ann", "text": "...",
     "at": epoch}], "history": true}           (history: the last lines, on joining)
    {"type": "error", "table": 7, "error": "not your turn at table 7: ...", "id": ...}
    {"type": "pong"}
    {"type": "peers", "peers": ["http://host:8002", ...]}   on connecting, where servers
                                                have ``--public-url``: the live ones, for
                                                the page to go on through if this one dies

A refused message changes nothing and is answered only to its sender; no
message, however malformed, closes the connection.
"""

from __future__ import annotations

import json

from cardrl.web.table import RefusedError

MAX_MESSAGE = 4096
CHAT_MAX = 200  # characters of a chat line
_FIELDS = {"join": ("table",), "leave": ("table",), "move": ("table", "action"),
           "back": ("table",), "ready": ("table",), "chat": ("table",), "ping": ()}
_LIMIT = 1 << 63  # every integer field fits a 64-bit database column


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def parse_message(text: str | bytes) -> dict:
    """The checked message, or RefusedError naming what is wrong with it."""
    if isinstance(text, bytes):
        raise RefusedError("malformed message: send JSON text frames, not binary")
    if len(text) > MAX_MESSAGE:
        raise RefusedError(f"malformed message: {len(text)} characters, at most {MAX_MESSAGE}")
    try:
        msg = json.loads(text)
    except ValueError as err:
        raise RefusedError(f"malformed message: not JSON ({err.msg} at character {err.pos})") \
            from None
    except RecursionError:
        raise RefusedError("malformed message: nested too deeply") from None
    if not isinstance(msg, dict):
        raise RefusedError(f"malformed message: expected a JSON object, got {type(msg).__name__}")
    kind = msg.get("type")
    if kind not in _FIELDS:
        raise RefusedError(f"malformed message: unknown type {kind!r}; "
                           f"expected one of {', '.join(_FIELDS)}")
    for name in _FIELDS[kind]:
        if name not in msg:
            raise RefusedError(f"malformed message: a {kind!r} message needs {name!r}")
        if not _is_int(msg[name]) or not -_LIMIT < msg[name] < _LIMIT:
            raise RefusedError(f"malformed message: {name!r} must be an integer of 64 bits, got "
                               f"{_short(msg[name])}")
    if "ply" in msg and (not _is_int(msg["ply"]) or not 0 <= msg["ply"] < _LIMIT):
        raise RefusedError(f"malformed message: 'ply' must be an integer 0..2**63-1, got "
                           f"{_short(msg['ply'])}")
    if kind == "chat":
        text = msg.get("text")
        if not isinstance(text, str):
            raise RefusedError(f"malformed message: a chat 'text' is a string, got "
                               f"{_short(text)}")
        text = " ".join("".join(c if c.isprintable() else " " for c in text).split())
        if not 1 <= len(text) <= CHAT_MAX:
            raise RefusedError(f"a chat line has 1 to {CHAT_MAX} characters, got {len(text)}")
        msg["text"] = text
    return msg


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
