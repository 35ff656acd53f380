"""Load test of the web table: many tables of bot players over websockets at once.

    python -m benchmarks.bench_web_load [--tables 100] [--hands 1] [--timeout 180]

Starts ``python -m web`` on loopback (a fresh SQLite database in a temporary
folder), signs up four accounts and opens ``--tables`` Spades tables with one
account per seat (a rules cap of ``--hands`` hands ends each game). Then one
websocket per seat (400 for 100 tables) joins its table, and a bot on the
client side plays every move the server asks of its seat, from the view the
server sent (rebuilt with ``SpadesView.from_dict``): every move crosses the
socket, is checked, stored and broadcast by the server.

Reports hands per second, the latency of a move (sent until the server's
broadcast of it reaches the mover) at p50/p99, errors (error messages,
timeouts, dropped sockets: must be 0) and the server's resident memory, now
and at its peak. Bounded in time: past ``--timeout`` seconds the run stops and
every unfinished table counts as an error. There is no peer to compare with
(OpenSpiel and RLCard have no network server), so the table stands alone.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path

import numpy as np
from websockets.asyncio.client import connect

import agents
from envs.spades.view import SpadesView
from web.testing import ROOT, ServerProcess, post, signup

NAMES = ["north", "east", "south", "west"]


class Seat:
    """One websocket playing one seat of one table with a client-side bot."""

    def __init__(self, table: int, cookie: str, bot_spec: str, seed: int) -> None:
        self.table = table
        self.cookie = cookie
        self.bot = agents.make(bot_spec)
        self.bot.reset(seed)
        self.latencies: list[float] = []
        self.errors: list[str] = []
        self.finished = False
        self.hands = 0

    async def play(self, url: str, deadline: float) -> None:
        sent_ply, sent_at = None, 0.0
        try:
            async with connect(url, additional_headers={"Cookie": self.cookie},
                               max_size=1 << 20, open_timeout=60) as ws:
                await ws.send(json.dumps({"type": "join", "table": self.table}))
                while not self.finished:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        self.errors.append(f"table {self.table}: not finished in time")
                        return
                    m = json.loads(await asyncio.wait_for(ws.recv(), left))
                    if m["type"] == "error":
                        self.errors.append(m["error"])
                        continue
                    if sent_ply is not None and m["ply"] > sent_ply:
                        self.latencies.append(time.perf_counter() - sent_at)
                        sent_ply = None
                    if m["status"] == "finished":
                        self.finished = True
                        self.hands = m["view"]["hand_number"]  # the hands this game had
                    elif m["legal"] and sent_ply is None:
                        view = SpadesView.from_dict(m["view"])
                        action = self.bot.act(view, [a for a, _ in m["legal"]])
                        sent_ply, sent_at = m["ply"], time.perf_counter()
                        await ws.send(json.dumps({"type": "move", "table": self.table,
                                                  "action": int(action), "ply": m["ply"]}))
        except Exception as err:  # every failure counts as an error
            self.errors.append(f"table {self.table}: {type(err).__name__}: {err}")


async def run_seats(seats: list[Seat], url: str, timeout: float) -> float:
    deadline = time.monotonic() + timeout
    start = time.perf_counter()
    await asyncio.gather(*(s.play(url, deadline) for s in seats))
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_web_load",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=100)
    p.add_argument("--hands", type=int, default=1, help="hands per game (rules max_hands)")
    p.add_argument("--bot", default="spades/spade-count", help="client-side bot for every seat")
    p.add_argument("--timeout", type=float, default=180.0, help="seconds before giving up")
    p.add_argument("--out", default=str(ROOT / "runs" / "bench_web_load.json"))
    args = p.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp, ServerProcess(Path(tmp) / "load.db") as server:
        cookies = [signup(server.url, n) for n in NAMES]
        tables = []
        for _ in range(args.tables):
            t = post(server.url, "/api/tables", {"game": "spades", "preset": "killer",
                                                 "rules": {"max_hands": args.hands}},
                     cookies[0])[0]["table"]
            for c in cookies[1:]:
                post(server.url, f"/api/tables/{t}/sit", {}, c)
            tables.append(t)
        idle = server.memory()
        seats = [Seat(t, cookies[i], args.bot, seed=1000 * t + i)
                 for t in tables for i in range(4)]
        seconds = asyncio.run(run_seats(seats, server.ws_url, args.timeout))
        memory = server.memory()

    lat = np.array([x for s in seats for x in s.latencies]) * 1000
    errors = [e for s in seats for e in s.errors]
    done = {s.table for s in seats if s.finished}
    hands = sum(s.hands for s in seats if s.finished) / 4
    result = {
        "tables": args.tables, "sockets": len(seats), "hands": hands, "seconds": seconds,
        "hands_per_s": hands / seconds, "moves": int(lat.size),
        "moves_per_s": lat.size / seconds,
        "latency_ms_p50": float(np.percentile(lat, 50)) if lat.size else None,
        "latency_ms_p99": float(np.percentile(lat, 99)) if lat.size else None,
        "errors": len(errors) + args.tables - len(done), "error_samples": errors[:5],
        "server_rss_mib_idle": idle["VmRSS"] / 1024, "server_rss_mib": memory["VmRSS"] / 1024,
        "server_peak_rss_mib": memory["VmHWM"] / 1024,
    }
    header = ("tables", "sockets", "hands", "s", "hands/s", "moves/s", "p50 ms", "p99 ms",
              "errors", "RSS MiB idle/after/peak")
    row = (args.tables, len(seats), f"{hands:g}", f"{seconds:.1f}", f"{result['hands_per_s']:.2f}",
           f"{result['moves_per_s']:.0f}", f"{result['latency_ms_p50']:.1f}",
           f"{result['latency_ms_p99']:.1f}", result["errors"],
           f"{result['server_rss_mib_idle']:.0f} / {result['server_rss_mib']:.0f} / "
           f"{result['server_peak_rss_mib']:.0f}")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    print("| " + " | ".join(str(x) for x in row) + " |")
    for e in errors[:5]:
        print("error:", e)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
