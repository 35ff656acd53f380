"""A bot in its own process, answering the tournament over a pipe (the child side).

    python -m eval.bot_server        (started by ``eval.bot_process``; not by hand)

Protocol: one JSON object per line each way. The parent sends
``{"load": spec, "game": name}`` first, then messages ``{"calls": [[method,
*args], ...]}``; the child runs the calls in order on its bot and answers
``{"ok": result of the last call}`` or, at the first call that raises,
``{"error": "Type: message", "traceback": text}``. Methods: ``reset``,
``start_game``, ``receive_cards``, ``observe_move``, ``act`` (its view arrives
as the game's ``to_dict`` form) and ``report_score``. Anything the bot prints
goes to stderr, so it cannot corrupt the answers. The child exits when its
input closes, and on Linux when its parent dies.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from typing import Any


def _die_with_parent() -> None:
    """Linux: get SIGKILL when the parent dies (a killed tournament leaves no bots behind)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        if os.getppid() == 1:  # the parent died before prctl
            os._exit(1)
    except (OSError, AttributeError):
        pass


def _jsonable(value: Any) -> Any:
    if hasattr(value, "item") and not isinstance(value, list | dict | str):
        value = value.item()  # numpy scalars
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return {"unreadable": repr(value)}
    return value


def serve(inp, out) -> None:
    bot, view_from_dict = None, None

    def send(obj: dict) -> None:
        out.write(json.dumps(obj).encode() + b"\n")
        out.flush()

    for line in inp:
        try:
            msg = json.loads(line)
            if "load" in msg:
                import agents
                from envs.games import get_game

                view_from_dict = get_game(msg["game"]).view_from_dict
                bot = agents.make(msg["load"])
                send({"ok": {"name": bot.name, "game": bot.game}})
                continue
            result = None
            for method, *args in msg["calls"]:
                if method == "act":
                    view, legal = args
                    result = bot.act(view_from_dict(view), legal)
                elif method in ("reset", "start_game", "receive_cards", "observe_move",
                                "report_score"):
                    result = getattr(bot, method)(*args)
                else:
                    raise ValueError(f"unknown call {method!r}")
            send({"ok": _jsonable(result)})
        except BaseException as err:  # the bot's failure is the answer, whatever it is
            if isinstance(err, KeyboardInterrupt):
                raise
            send({"error": f"{type(err).__name__}: {err}",
                  "traceback": traceback.format_exc(limit=-8)})


def main() -> None:
    _die_with_parent()
    out = os.fdopen(os.dup(1), "wb")  # the answers' channel: the original stdout
    os.dup2(2, 1)  # the bot's prints go to stderr
    sys.stdout = sys.stderr
    serve(sys.stdin.buffer, out)


if __name__ == "__main__":
    main()
