"""Load test of the web table: many tables over websockets at once, and fast tables
beside tables whose bots think for long.

    python -m benchmarks.bench_web_load [--tables 100] [--hands 5] [--timeout 180]
                                        [--servers 3] [--server-tables 100]
                                        [--fast 16] [--slow 4] [--slow-bot spades/search]

Each part starts ``python -m cardrl.web`` on loopback (a fresh SQLite database in a
temporary folder) and signs up its accounts.

**Load**: ``--tables`` Spades tables with one account per seat (a rules cap of
``--hands`` hands ends each game; five by default, so the percentiles cover some 28,000
moves, not only the first hand that all tables deal at the same moment). One
websocket per seat (400 for 100 tables) joins its table, and a bot on the client
side plays every move the server asks of its seat, from the view the server sent (rebuilt with
``SpadesView.from_dict``): every move crosses the socket, is checked, stored
and broadcast by the server. The latency of a move is from sending it until
the server's broadcast of it reaches the mover (p50/p95/p99).

**Many servers**: the same load on ``--servers`` servers sharing one throwaway
PostgreSQL database, ``--server-tables`` tables per server. Table ``t`` is made
on server ``t mod n`` (which runs it) and seat ``i`` plays through server
``(t + i) mod n``, so three moves in four are forwarded to the table's server
through the database and come back by ``NOTIFY``. A row of one server on the
same PostgreSQL shows what the database costs apart from the servers.

**A slow database**: the many-servers load again with ``--db-delay`` seconds (50 ms by
default) slept before every database statement of every server (``--db-delay`` of
``python -m cardrl.web``), ``--slow-db-tables`` tables per server, ``--slow-db-lanes``
database lanes per server and ``--slow-db-hands``
hands each. The tables are made on servers without the delay, which then stop and
start again with it (they take the tables back from the database). Moves are stored,
forwarded and announced in the servers' database lanes, off the event loop, so the
sockets should not wait for the database: besides the move latency, every row gives
the **longest stall**, the slowest answer to a ``ping`` that one extra socket per
server sends every 20 ms while the tables play (a ping needs no database: its answer
waits only for the event loops - the server's, and the client's, which shares the
cores and plays every seat), and the servers' own measure: with ``--db-delay`` a server
logs each time its event loop runs over 100 ms late, and where a database statement
ran on its event loop (both printed here); with ``PYTHONASYNCIODEBUG=1`` in the
environment the servers also name each callback that took over 100 ms.

**Slow bots beside fast ones**: ``--fast`` tables of one person (a client-side
bot) and three server bots that answer at once (``--fast-bot``), first alone,
then again beside ``--slow`` tables whose three server bots search
(``--slow-bot``); the fast tables start once every slow table's bots are past
the bidding, so the searches run all through. A server bot's move time is the
time from the broadcast of the move before it to the broadcast of its own, as
the person at the table sees it; the rows give its p50/p95/max on the fast
tables, and how many moves the searching bots made meanwhile.

Errors (error messages, timeouts, dropped sockets, unfinished tables) must be
0. The client runs on the same machine and shares its cores with the server,
so it reads only what it needs of each message (the move number, whether it
is asked to move) and parses the whole message only when it must move. There
is no peer to compare with (OpenSpiel and RLCard have no network server), so
the tables stand alone.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import tempfile
import time
from pathlib import Path

import numpy as np
from websockets.asyncio.client import connect

from cardrl import agents
from cardrl.envs.spades.view import SpadesView
from cardrl.web.testing import ServerProcess, post, postgres_url, signup

NAMES = ["north", "east", "south", "west"]
PLY = re.compile(rb'"ply":\s*(\d+)')
STATUS = re.compile(rb'"status":\s*"(\w+)"')
SEAT = re.compile(rb'"event":\s*\{"seat":\s*(\d+)')
NOTHING_TO_PLAY = re.compile(rb'"legal":\s*\[\]')
ERROR = re.compile(rb'^\{"type":\s*"error"')
LATE = re.compile(r"event loop late by (\d+) ms at ([\d.]+)")
SETTLED = 5.0  # seconds after the start: past every socket's first join and bid


class Seat:
    """One websocket playing one seat of one table with a client-side bot."""

    def __init__(self, table: int, seat: int, cookie: str, bot_spec: str, seed: int) -> None:
        self.table = table
        self.seat = seat
        self.cookie = cookie
        self.bot = agents.make(bot_spec)
        self.bot.reset(seed)
        self.latencies: list[float] = []  # own moves: sent until the broadcast came back
        self.bot_moves: list[float] = []  # server bots' moves: broadcast to broadcast
        self.errors: list[str] = []
        self.finished = False
        self.hands = 0

    async def play(self, url: str, deadline: float, stop: asyncio.Event | None = None,
                   start: Start | None = None) -> None:
        """Play to the end; with ``start``, only once every seat of the part is connected
        (so that no move waits behind another socket's handshake)."""
        sent_ply, sent_at, last_at = None, 0.0, None
        waiting = start  # a seat that fails before it is ready must not hold up the others
        try:
            async with connect(url, additional_headers={"Cookie": self.cookie},
                               max_size=1 << 20, open_timeout=60, compression=None) as ws:
                await ws.send(json.dumps({"type": "join", "table": self.table}))
                first = await ws.recv(decode=False)
                if start is not None:
                    waiting = None
                    await start.ready()
                async with asyncio.timeout_at(deadline):
                    while not self.finished:
                        if first is not None:
                            text, first = first, None
                        else:
                            recv = ws.recv(decode=False)
                            if stop is not None:
                                recv = _first(recv, stop)
                            text = await recv
                        if text is None:
                            return  # stopped: the part is over
                        now = time.perf_counter()
                        if ERROR.match(text):
                            self.errors.append(json.loads(text)["error"])
                            continue
                        ply = int(PLY.search(text).group(1))
                        if sent_ply is not None and ply > sent_ply:
                            self.latencies.append(now - sent_at)
                            sent_ply = None
                        mover = SEAT.search(text)
                        if mover and int(mover.group(1)) != self.seat and last_at is not None:
                            self.bot_moves.append(now - last_at)
                        last_at = now
                        if STATUS.search(text).group(1) == b"finished":
                            self.finished = True
                            self.hands = json.loads(text)["view"]["hand_number"]
                        elif sent_ply is None and not NOTHING_TO_PLAY.search(text):
                            m = json.loads(text)
                            view = SpadesView.from_dict(m["view"])
                            action = self.bot.act(view, [a for a, _ in m["legal"]])
                            sent_ply, sent_at = m["ply"], time.perf_counter()
                            await ws.send(json.dumps({"type": "move", "table": self.table,
                                                      "action": int(action), "ply": ply}))
        except TimeoutError:
            self.errors.append(f"table {self.table}: not finished in time")
        except Exception as err:  # every failure counts as an error
            self.errors.append(f"table {self.table}: {type(err).__name__}: {err}")
        finally:
            if waiting is not None:
                waiting.drop()


class Start:
    """A barrier: every seat waits until all ``n`` have connected."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.go = asyncio.Event()
        self.at = 0.0
        self.wall = 0.0  # the same moment by the wall clock (the servers' logs use it)

    async def ready(self) -> None:
        self.drop()
        await self.go.wait()

    def drop(self) -> None:
        """One seat fewer to wait for (ready, or failed)."""
        self.n -= 1
        if self.n == 0:
            self.at, self.wall = time.perf_counter(), time.time()
            self.go.set()


async def _first(recv, stop: asyncio.Event):
    """The next message, or None once ``stop`` is set."""
    got, stopped = asyncio.ensure_future(recv), asyncio.ensure_future(stop.wait())
    done, _ = await asyncio.wait({got, stopped}, return_when=asyncio.FIRST_COMPLETED)
    stopped.cancel()
    if got in done:
        return got.result()
    got.cancel()
    return None


def percentiles(values: list[float], *qs: float) -> list[float | None]:
    arr = np.array(values) * 1000
    return [float(np.percentile(arr, q)) if arr.size else None for q in qs]


def table_row(header: tuple, row: tuple) -> None:
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    print("| " + " | ".join(str(x) for x in row) + " |")


# ------------------------------------------------------------------- load
async def probe(url: str, cookie: str, start: Start, stop: asyncio.Event) -> list[float]:
    """Ping round trips to one server, every 20 ms from the start until ``stop``."""
    times: list[float] = []
    async with connect(url, additional_headers={"Cookie": cookie}, open_timeout=60,
                       compression=None) as ws:
        await start.go.wait()
        while not stop.is_set():
            sent = time.perf_counter()
            await ws.send('{"type":"ping","id":1}')
            while b'"pong"' not in await ws.recv(decode=False):
                pass
            times.append(time.perf_counter() - sent)
            await asyncio.sleep(0.02)
    return times


def load(args, servers: int = 1, tables: int | None = None, db: str = "sqlite",
         delay: float = 0.0, hands: int | None = None, lanes: int = 8) -> dict:
    """``tables`` Spades tables on ``servers`` servers sharing a ``db`` database; with
    ``delay``, seconds slept before every database statement once the tables are made (and
    ``lanes`` database threads per server)."""
    tables = args.tables if tables is None else tables
    hands = args.hands if hands is None else hands
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        url = Path(tmp) / "load.db" if db == "sqlite" else postgres_url()
        # long turn clocks: no stand-in bot takes a seat whose socket waits for the others
        flags = ("--turn-seconds", "3600", "--grace-seconds", "3600")
        procs = [stack.enter_context(ServerProcess(url, None, *flags))
                 for _ in range(servers)]
        cookies = [signup(procs[0].url, n) for n in NAMES]
        ids = []
        for k in range(tables):
            t = post(procs[k % servers].url, "/api/tables", {
                "game": "spades", "preset": "killer", "rules": {"max_hands": hands}},
                cookies[0])[0]["table"]
            for i, c in enumerate(cookies[1:], 1):
                post(procs[(k + i) % servers].url, f"/api/tables/{t}/sit", {}, c)
            ids.append(t)
        logs = []
        if delay:  # the same servers on a slow database: they take the tables back
            for proc in procs:
                proc.stop()
            for i, proc in enumerate(procs):
                proc.args = (*flags, "--db-delay", str(delay), "--db-lanes", str(lanes))
                logs.append(Path(tmp) / f"server{i}.log")
                proc.start(timeout=300, stderr=stack.enter_context(logs[-1].open("w")))
        idle = [p.memory() for p in procs]
        seats = [Seat(t, i, cookies[i], args.bot, seed=1000 * t + i)
                 for t in ids for i in range(4)]
        urls = [procs[(k + i) % servers].ws_url for k in range(tables) for i in range(4)]

        async def run() -> tuple[float, list[float], float]:
            deadline = asyncio.get_running_loop().time() + args.timeout
            start, stop = Start(len(seats)), asyncio.Event()
            probes = [asyncio.ensure_future(probe(p.ws_url, cookies[0], start, stop))
                      for p in procs]
            await asyncio.gather(*(s.play(u, deadline, start=start)
                                   for s, u in zip(seats, urls, strict=True)))
            seconds = time.perf_counter() - start.at
            stop.set()
            pings = await asyncio.gather(*probes)
            return seconds, [x for p in pings for x in p], start.wall

        seconds, pings, began = asyncio.run(run())
        memory = [p.memory() for p in procs]
        # what the servers' own loops measured (``--db-delay`` logs each lag over 100 ms),
        # apart from the client's loop, which shares the cores and answers the pings
        lags = [(float(ms), float(at) - began) for f in logs
                for ms, at in LATE.findall(f.read_text())]
        late = [ms for ms, at in lags if at > SETTLED]  # past the first joins and bids
        lags = [ms for ms, _ in lags]
        for f in logs:
            for line in f.read_text().splitlines():
                if "on the event loop" in line or " took " in line:
                    print(line)

    lat = [x for s in seats for x in s.latencies]
    errors = [e for s in seats for e in s.errors]
    done = {s.table for s in seats if s.finished}
    hands = sum(s.hands for s in seats if s.finished) / 4
    p50, p95, p99 = percentiles(lat, 50, 95, 99)
    stall = percentiles(pings, 100)[0]
    idle_mib = max(m["VmRSS"] for m in idle) / 1024
    rss_mib = max(m["VmRSS"] for m in memory) / 1024
    peak_mib = max(m["VmHWM"] for m in memory) / 1024
    result = {
        "servers": servers, "database": db, "db_delay_ms": delay * 1000,
        "db_lanes": lanes if delay else None,
        "longest_stall_ms": stall,
        "server_lag_ms_max": max(lags, default=0.0) if delay else None,
        "server_lags_over_100ms": len(lags) if delay else None,
        "server_lag_ms_max_after_5s": max(late, default=0.0) if delay else None,
        "tables": tables, "sockets": len(seats), "hands": hands, "seconds": seconds,
        "hands_per_s": hands / seconds, "moves": len(lat), "moves_per_s": len(lat) / seconds,
        "latency_ms_p50": p50, "latency_ms_p95": p95, "latency_ms_p99": p99,
        "errors": len(errors) + tables - len(done), "error_samples": errors[:5],
        "server_rss_mib_idle": idle_mib, "server_rss_mib": rss_mib,
        "server_peak_rss_mib": peak_mib,
    }
    table_row(("servers", "database", "tables", "sockets", "hands", "s", "hands/s", "moves/s",
               "p50 ms", "p95 ms", "p99 ms", "longest stall ms",
               "server loop lag ms: max (lags over 100 ms) / max after 5 s", "errors",
               "RSS MiB per server idle/after/peak"),
              (servers, db + (f", {delay * 1000:g} ms a statement, {lanes} lanes" if delay
                              else ""), tables,
               len(seats), f"{hands:g}", f"{seconds:.1f}",
               f"{result['hands_per_s']:.2f}", f"{result['moves_per_s']:.0f}", f"{p50:.1f}",
               f"{p95:.1f}", f"{p99:.1f}", f"{stall:.0f}",
               f"{max(lags, default=0):.0f} ({len(lags)}) / {max(late, default=0):.0f}"
               if delay else "-", result["errors"],
               f"{idle_mib:.0f} / {rss_mib:.0f} / {peak_mib:.0f}"))
    for e in errors[:5]:
        print("error:", e)
    return result


# ------------------------------------------------------ slow beside fast
def beside(args, slow: int) -> dict:
    """``args.fast`` tables of fast server bots, with ``slow`` tables of searching ones."""
    with tempfile.TemporaryDirectory() as tmp, ServerProcess(Path(tmp) / "mixed.db") as server:
        cookie = signup(server.url, "person")
        kinds = [args.fast_bot] * args.fast + [args.slow_bot] * slow
        tables = []
        for bot in kinds:
            tables.append(post(server.url, "/api/tables", {
                "game": "spades", "preset": "killer", "rules": {"max_hands": args.fast_hands},
                "seats": ["me"] + [f"bot:{bot}"] * 3}, cookie)[0]["table"])
        seats = [Seat(t, 0, cookie, args.bot, seed=t) for t in tables]
        fast, rest = seats[:args.fast], seats[args.fast:]

        async def run() -> float:
            deadline = asyncio.get_running_loop().time() + args.timeout
            stop = asyncio.Event()
            others = [asyncio.ensure_future(s.play(server.ws_url, deadline, stop))
                      for s in rest]
            # the fast tables start once every slow table's bots are past the bidding: the
            # searching bots are thinking (their processes started) all through
            while any(len(s.bot_moves) < 4 for s in rest):
                await asyncio.sleep(0.05)
            before = [len(s.bot_moves) for s in rest]
            start = time.perf_counter()
            await asyncio.gather(*(s.play(server.ws_url, deadline) for s in fast))
            seconds = time.perf_counter() - start
            stop.set()
            await asyncio.gather(*others)
            for s, n in zip(rest, before, strict=True):  # the slow moves during the part
                s.bot_moves = s.bot_moves[n:]
            return seconds

        seconds = asyncio.run(run())
    moves = [x for s in fast for x in s.bot_moves]
    slow_moves = [x for s in rest for x in s.bot_moves]
    errors = [e for s in fast for e in s.errors] + [e for s in rest for e in s.errors]
    p50, p95, top = percentiles(moves, 50, 95, 100)
    result = {"fast_tables": args.fast, "slow_tables": slow, "fast_bot": args.fast_bot,
              "slow_bot": args.slow_bot, "seconds": seconds, "bot_moves": len(moves),
              "bot_move_ms_p50": p50, "bot_move_ms_p95": p95, "bot_move_ms_max": top,
              "slow_bot_moves": len(slow_moves),
              "slow_bot_move_ms_p50": percentiles(slow_moves, 50)[0],
              "errors": len(errors) + sum(not s.finished for s in fast),
              "error_samples": errors[:5]}
    table_row(("fast tables", "slow tables", "fast bot", "slow bot", "s", "bot moves",
               "p50 ms", "p95 ms", "max ms", "slow bot moves meanwhile", "their p50 ms",
               "errors"),
              (args.fast, slow, args.fast_bot, args.slow_bot if slow else "-",
               f"{seconds:.1f}", len(moves),
               f"{p50:.1f}", f"{p95:.1f}", f"{top:.1f}", len(slow_moves) if slow else "-",
               "-" if not slow_moves else f"{result['slow_bot_move_ms_p50']:.0f}",
               result["errors"]))
    for e in errors[:5]:
        print("error:", e)
    return result


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_web_load",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=100)
    p.add_argument("--hands", type=int, default=5, help="hands per game (rules max_hands)")
    p.add_argument("--fast-hands", type=int, default=10,
                   help="hands per game of the fast tables beside slow ones")
    p.add_argument("--bot", default="spades/spade-count", help="client-side bot for every seat")
    p.add_argument("--fast", type=int, default=16, help="tables of fast server bots")
    p.add_argument("--slow", type=int, default=4, help="tables of searching server bots")
    p.add_argument("--fast-bot", default="spades/expert")
    p.add_argument("--slow-bot", default="spades/search")
    p.add_argument("--servers", type=int, default=3,
                   help="servers sharing one PostgreSQL database in the many-servers part")
    p.add_argument("--server-tables", type=int, default=100,
                   help="tables per server in the many-servers part")
    p.add_argument("--db-delay", type=float, default=0.05,
                   help="seconds added to every database statement in the slow-database part")
    p.add_argument("--slow-db-tables", type=int, default=100,
                   help="tables per server in the slow-database part")
    p.add_argument("--slow-db-lanes", type=int, default=32,
                   help="database lanes (threads with a connection) per server in the "
                        "slow-database part: with 50 ms a statement, one does 20 a second")
    p.add_argument("--slow-db-hands", type=int, default=1,
                   help="hands per game in the slow-database part")
    p.add_argument("--only", choices=("load", "servers", "slowdb", "beside"),
                   help="run one part only")
    p.add_argument("--timeout", type=float, default=180.0, help="seconds before giving up")
    p.add_argument("--out", default=str(Path("runs") / "bench_web_load.json"))
    args = p.parse_args(argv)

    result = {}
    if args.only in (None, "load"):
        result["load"] = load(args)
    if args.only in (None, "servers"):
        n = args.servers * args.server_tables
        result["postgresql_one_server"] = load(args, 1, n, "postgresql")
        result["postgresql_servers"] = load(args, args.servers, n, "postgresql")
    if args.only in (None, "slowdb"):
        result["postgresql_servers_slow_db"] = load(
            args, args.servers, args.servers * args.slow_db_tables, "postgresql",
            delay=args.db_delay, hands=args.slow_db_hands, lanes=args.slow_db_lanes)
    if args.only in (None, "beside"):
        result["fast_alone"] = beside(args, 0)
        result["fast_beside_slow"] = beside(args, args.slow)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
