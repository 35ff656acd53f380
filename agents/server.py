"""Serve any bot over stdin/stdout as JSON lines, so a program in any language can use it.

    python -m cardrl.agents.server spades/expert            # a registry bot
    python -m cardrl.agents.server checkpoints/spades-killer.onnx   # an exported bot
    python -m cardrl.agents.server --example spades         # print one request line for the game

Protocol: one JSON object per line in, one JSON object per line out, in order.

Request ``{"view": VIEW, "legal": [ACTION, ...]}`` -> ``{"action": A, "name": "..."}``.
``VIEW`` is the acting seat's PlayerView in its JSON form (``view.to_dict()``;
its ``"game"`` field picks the game, and ``Game.view_from_dict`` reads it
back); ``legal`` is the list of legal action ids (ints; each game's action
table is in its ``envs/<game>/actions.py``, and ``--example`` prints a real
view and the names of its legal actions). ``A`` is one of ``legal``; ``name``
is the action's readable name (e.g. ``"bid 3"``, ``"QH"``).

Request ``{"reset": SEED}`` (SEED an int or null) -> ``{"ok": true}``: a new
game starts (the bot's own randomness is reseeded).

Request ``{"calls": [[METHOD, *ARGS], ...]}`` -> ``{"ok": RESULT}``: the
bot's whole interface, for programs that keep a bot informed of the game (the
seed's control-program calls; the tournament's timed bot processes use it).
The calls run in order; RESULT is the last one's return value. METHOD is one
of ``reset`` (seed), ``start_game`` (seat, num_players, parameters),
``receive_cards`` (cards), ``observe_move`` (seat, action), ``act`` (VIEW,
legal; the bot's raw choice, not checked against ``legal``: the caller judges
it) and ``report_score`` (). At the first call that raises the answer is
``{"error": "Type: message", "traceback": "..."}``.

With ``--ready`` the server first writes ``{"ok": {"name": ..., "game": ...}}``
once the bot is built, or ``{"error": ...}`` and exits 2 if it cannot be.

Anything else - a line that is not JSON, a view that does not parse, a
``legal`` list that is empty, holds a non-int or an id outside the game's
action table, a view of another game than the bot plays, or a bot that raises
- is answered by ``{"error": "..."}`` naming the problem; the server keeps
serving. Blank lines are ignored; end of input ends the server (exit 0). What
the bot prints goes to stderr, so it cannot corrupt the replies; on Linux the
server also ends when the program that started it dies.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from collections.abc import Sequence
from typing import Any, TextIO

from cardrl import agents
from cardrl.agents.base import Bot
from cardrl.envs.games import game_names, get_game

_NUM_ACTIONS: dict[str, int] = {}


class RequestError(ValueError):
    """A request line the server cannot answer with an action."""


def make_bot(spec: str) -> Bot:
    """A registry spec (``spades/expert``, ``x.py``, ``x.onnx``) or an exported bot's card."""
    if spec.endswith(".json"):
        return agents.load(spec)
    return agents.make(spec)


def num_actions(game: str) -> int:
    """Size of the game's action table (from its env's action space)."""
    if game not in _NUM_ACTIONS:
        env = get_game(game).env()
        _NUM_ACTIONS[game] = int(env.action_space(env.possible_agents[0]).n)
    return _NUM_ACTIONS[game]


def parse_request(bot: Bot, request: Any) -> tuple[Any, list[int]]:
    """(view, legal actions) of an action request, checked."""
    if not isinstance(request, dict) or "view" not in request or "legal" not in request:
        raise RequestError('a request is {"view": {...}, "legal": [...]} or {"reset": seed}')
    data, legal = request["view"], request["legal"]
    if not isinstance(data, dict):
        raise RequestError(f"view must be a JSON object, got {type(data).__name__}")
    game = data.get("game")
    if game not in game_names():
        raise RequestError(f"view has unknown game {game!r}; games: {game_names()}")
    if bot.game not in (None, game):
        raise RequestError(f"this server's bot plays {bot.game}, the view is {game}")
    if (not isinstance(legal, list) or not legal
            or any(not isinstance(a, int) or isinstance(a, bool) for a in legal)):
        raise RequestError(f"legal must be a non-empty list of action ids (ints), got {legal!r}")
    n = num_actions(game)
    bad = [a for a in legal if not 0 <= a < n]
    if bad:
        raise RequestError(f"legal actions {bad} are outside the {game} action table 0..{n - 1}")
    try:
        view = get_game(game).view_from_dict(data)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as err:
        raise RequestError(f"bad {game} view: {type(err).__name__}: {err}") from None
    return view, legal


HOOKS = ("reset", "start_game", "receive_cards", "observe_move", "report_score")


def _jsonable(value: Any) -> Any:
    if hasattr(value, "item") and not isinstance(value, list | dict | str):
        value = value.item()  # numpy scalars
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return {"unreadable": repr(value)}
    return value


def run_calls(bot: Bot, calls: Any) -> dict:
    """The reply to a ``{"calls": ...}`` request: the last call's result, or the first error
    (with its traceback: the bot's author needs it)."""
    try:
        if not isinstance(calls, list) or not all(isinstance(c, list) and c for c in calls):
            raise RequestError(f"calls must be a list of [method, *args] lists, got {calls!r}")
        result = None
        for method, *args in calls:
            if method == "act":
                view, legal = args
                result = bot.act(get_game(view["game"]).view_from_dict(view), legal)
            elif method in HOOKS:
                result = getattr(bot, method)(*args)
            else:
                raise RequestError(f"unknown call {method!r}; calls: act, {', '.join(HOOKS)}")
        return {"ok": _jsonable(result)}
    except (Exception, SystemExit) as err:  # the bot's failure is the answer, whatever it is
        return {"error": f"{type(err).__name__}: {err}",
                "traceback": traceback.format_exc(limit=-8)}


def answer(bot: Bot, line: str) -> dict | None:
    """The reply to one request line (None for a blank line)."""
    if not line.strip():
        return None
    try:
        request = json.loads(line)
    except json.JSONDecodeError as err:
        return {"error": f"not JSON: {err}"}
    if isinstance(request, dict) and "reset" in request and len(request) == 1:
        seed = request["reset"]
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            return {"error": f"reset seed must be an int or null, got {seed!r}"}
        bot.reset(seed)
        return {"ok": True}
    if isinstance(request, dict) and "calls" in request and len(request) == 1:
        return run_calls(bot, request["calls"])
    try:
        view, legal = parse_request(bot, request)
    except RequestError as err:
        return {"error": str(err)}
    try:
        action = bot.act(view, legal)
    except Exception as err:  # a bot bug must not kill the server
        return {"error": f"bot {bot.name!r} raised {type(err).__name__}: {err}"}
    if action not in legal or isinstance(action, bool):
        return {"error": f"bot {bot.name!r} chose {action!r}, not in legal {legal}"}
    return {"action": int(action), "name": get_game(view.game).action_name(int(action))}


def die_with_parent() -> None:
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


def serve(bot: Bot, inp: TextIO, out: TextIO) -> int:
    for line in inp:
        reply = answer(bot, line)
        if reply is not None:
            out.write(json.dumps(reply) + "\n")
            out.flush()
    return 0


def example(game: str, seed: int = 0) -> str:
    """One request line of ``game``: the first decision of a seeded deal, with action names."""
    g = get_game(game)
    state = g.new_state(g.get_rules(g.presets[0]), seed)
    seat = state.current_player
    assert seat is not None  # a new game has a seat to act
    legal = state.legal_actions()
    request = {"view": state.view(seat).to_dict(), "legal": legal}
    names = ", ".join(f"{a}={g.action_name(a)}" for a in legal)
    return json.dumps(request) + f"\n# legal actions: {names}\n"


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="cardrl serve",
                                description="Serve a bot over JSON lines (see the module doc).")
    p.add_argument("bot", nargs="?", help="bot spec: spades/expert, a bot file x.py or an "
                                          "exported x.onnx")
    p.add_argument("--seed", type=int, default=None, help="seed of the bot's own randomness")
    p.add_argument("--example", metavar="GAME", help="print an example request and exit")
    p.add_argument("--ready", action="store_true",
                   help='first write {"ok": {"name", "game"}} once the bot is built')
    args = p.parse_args(argv)
    if args.example:
        if args.example not in game_names():
            print(f"error: unknown game {args.example!r}; games: {game_names()}", file=sys.stderr)
            return 2
        sys.stdout.write(example(args.example))
        return 0
    if not args.bot:
        p.error("give a bot to serve, or --example GAME")
    die_with_parent()
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w")  # the replies' channel
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # what the bot prints goes to stderr
    sys.stdout = sys.stderr
    try:
        bot = make_bot(args.bot)
        bot.reset(args.seed)
    except Exception as err:  # a bot file may fail in any way while loading
        message = f"{type(err).__name__}: {err}"
        if args.ready:
            out.write(json.dumps({"error": message}) + "\n")
            out.flush()
        print(f"error: {message}", file=sys.stderr)
        return 2
    if args.ready:
        out.write(json.dumps({"ok": {"name": bot.name, "game": bot.game}}) + "\n")
        out.flush()
    print(f"serving {bot.name} ({bot.game or 'any game'}); one JSON request per line",
          file=sys.stderr)
    return serve(bot, sys.stdin, out)


if __name__ == "__main__":
    sys.exit(main())
