"""Many servers, one community: three real ``python -m cardrl.web`` processes on one throwaway
PostgreSQL database.

Accounts, sessions and the lobby are the same through every server; people at one
table play through different servers (their moves forwarded to the server that runs
the table); the server running a table is killed (SIGKILL) in the middle of a hand, a
move is sent while it is dead, and another server takes the table over from exactly
the stored moves: nothing lost, no move applied twice, and the stored moves replayed
give every seat exactly the position it was last shown.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest
from websockets.sync.client import connect

from cardrl.web.bots import Bots
from cardrl.web.db import Store
from cardrl.web.table import Table
from cardrl.web.testing import ServerProcess, get, post, postgres_url, signup
from tests import arena_util as nets

BOT = "bot:spades/expert"
LEASE = "2"  # seconds: a dead server's tables wait at most this (plus a tick) for another


@pytest.fixture
def servers(request):
    """Three servers on a fresh database (``request.param``: more options for them)."""
    url = postgres_url()
    extra = getattr(request, "param", ())
    procs = [ServerProcess(url, None, "--lease-seconds", LEASE, "--name", f"s{i}", *extra)
             for i in range(3)]
    with ThreadPoolExecutor(3) as pool:  # they start at once, as servers of a site would
        list(pool.map(lambda p: p.start(), procs))
    try:
        yield url, procs
    finally:
        for p in procs:
            p.stop()


class Person:
    """One websocket at one table; every move event seen, by the ply it was made at."""

    def __init__(self, server: ServerProcess, cookie: str, table: int, seat: int) -> None:
        self.cookie, self.table, self.seat = cookie, table, seat
        self.seen: dict[int, tuple[int, int]] = {}
        self.errors: list[str] = []
        self.kept: list[dict] = []  # read while waiting for an error, not yet played on
        self.open(server)

    def open(self, server: ServerProcess) -> None:
        self.server = server
        self.ws = connect(server.ws_url, additional_headers={"Cookie": self.cookie},
                          open_timeout=10).__enter__()
        self.send({"type": "join", "table": self.table})

    def send(self, msg: dict) -> None:
        self.ws.send(json.dumps(msg))

    def read(self) -> dict:
        m = json.loads(self.ws.recv(timeout=20))
        if m["type"] == "error":
            self.errors.append(m["error"])
        elif m["type"] == "table" and m["table"] == self.table and m["event"] is not None:
            ply = m["ply"] - 1
            assert ply not in self.seen, f"move {ply} shown twice"
            self.seen[ply] = (m["event"]["seat"], m["event"]["action"])
        return m

    def error(self) -> str:
        """The next error; the messages before it are kept for ``settled``."""
        while not self.errors:
            self.kept.append(self.read())
        return self.errors.pop(0)

    def chat(self) -> list[dict]:
        """The next chat message's lines; the messages before it are kept for ``settled``."""
        while (m := self.read())["type"] != "chat" or m.get("history"):
            self.kept.append(m)
        return m["lines"]

    def settled(self, after: int) -> dict:
        """The first message past move ``after`` with a person to move."""
        while True:
            m = self.kept.pop(0) if self.kept else self.read()
            if m["type"] == "table" and m["ply"] > after and m["status"] in (
                    "playing", "finished") and (m["status"] == "finished"
                                               or m["view"]["current_player"] in PEOPLE):
                return m


PEOPLE = (0, 1, 2)  # seat 3 is a bot


def play(people: list[Person], until, after: int = -1, msgs: list[dict] | None = None) \
        -> list[dict]:
    """The people play their first legal action until ``until(message)``; the messages
    they last read. ``msgs``: the messages read last, to play on from."""
    while True:
        msgs = msgs or [p.settled(after) for p in people]
        assert len({m["ply"] for m in msgs}) == 1, [m["ply"] for m in msgs]
        if until(msgs[0]):
            return msgs
        mover = next(i for i, m in enumerate(msgs) if m["legal"])
        people[mover].send({"type": "move", "table": people[mover].table,
                            "action": msgs[mover]["legal"][0][0], "ply": msgs[mover]["ply"]})
        after, msgs = msgs[0]["ply"], None


def lease_owner(url: str, table: int) -> str | None:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT owner FROM leases WHERE table_id = %s", (table,)).fetchone()
    return row and row[0]


def runner(url: str, table: int) -> int:
    """Which of the servers (named s0, s1, ...) runs the table now."""
    return int(lease_owner(url, table).split("/")[0].removeprefix("s"))


def test_three_servers_share_accounts_lobby_and_tables_and_survive_a_kill(servers):
    url, (s0, s1, s2) = servers
    ann, bob, cat = signup(s0.url, "ann"), signup(s1.url, "bob"), signup(s2.url, "cat")
    # one set of accounts and sessions: a name taken through one server is taken on all
    with pytest.raises(Exception, match="409|400"):
        signup(s2.url, "ANN")
    table = post(s0.url, "/api/tables", {"game": "spades", "rules": {"max_hands": 1},
                                         "seats": ["me", "open", "open", BOT]}, ann)[0]["table"]
    post(s1.url, f"/api/tables/{table}/sit", {}, bob)
    with pytest.raises(Exception, match="400"):  # the seat bob took through s1 is taken
        post(s2.url, f"/api/tables/{table}/sit", {"seat": 1}, cat)
    post(s2.url, f"/api/tables/{table}/sit", {}, cat)
    assert lease_owner(url, table).startswith("s")  # one server runs it (the one it was
    # made on, unless the machine stalled that one past its lease)

    # each person through another server: two of three moves are forwarded
    people = [Person(s1, ann, table, 0), Person(s2, bob, table, 1), Person(s0, cat, table, 2)]
    first = play(people, lambda m: True)
    assert first[0]["status"] == "playing" and [m["seat"] for m in first] == [0, 1, 2]
    # a chat line said through one server reaches the table through the others
    people[1].send({"type": "chat", "table": table, "text": "hi from s2"})
    assert [(x["name"], x["text"]) for x in people[0].chat()] == [("bob", "hi from s2")]
    assert [(x["name"], x["text"]) for x in people[2].chat()] == [("bob", "hi from s2")]
    # presence is stored in the table's database lane a moment after a socket comes: the
    # servers' lobbies agree within a couple of seconds
    deadline = time.monotonic() + 3.0
    while True:
        listings = [{k: v for k, v in get(s.url, "/api/lobby", c).items() if k != "now"}
                    for s in (s0, s1, s2) for c in (ann, cat)]
        if all(x == listings[0] for x in listings) or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert [t["table"] for t in listings[0]["mine"]] == [table]
    assert all(x == listings[0] for x in listings), "the lobby differs between servers"
    assert [p["online"] for p in listings[0]["mine"][0]["players"]] == [True] * 4

    # a move sent twice (a double click) through a server that does not run the table
    mid = play(people, lambda m: m["view"]["current_player"] == 0 and len(
        m["view"]["plays"]) >= 6, msgs=first)
    move = {"type": "move", "table": table, "action": mid[0]["legal"][0][0],
            "ply": mid[0]["ply"]}
    people[0].send(move)
    people[0].send(move)
    assert "stale move" in people[0].error()
    after = play(people, lambda m: True, mid[0]["ply"])
    assert after[0]["ply"] > mid[0]["ply"] and people[0].seen[mid[0]["ply"]] == (
        0, move["action"])

    # into the middle of the hand, ann to move; the server running the table is killed
    last = play(people, lambda m: m["view"]["current_player"] == 0 and len(
        m["view"]["plays"]) >= 18, msgs=after)
    owner = lease_owner(url, table)
    victim = (s0, s1, s2)[runner(url, table)]
    victim.stop(kill=True)
    killed_at = time.monotonic()
    for p in people:  # whoever was on the dead server opens the table on another
        if p.server is victim:
            p.open(s1 if victim is not s1 else s2)
    people[0].send({"type": "move", "table": table, "action": last[0]["legal"][0][0],
                    "ply": last[0]["ply"]})  # sent while nobody may run the table
    resumed = play(people, lambda m: True, last[0]["ply"])
    assert time.monotonic() - killed_at < 10  # taken over within seconds
    assert resumed[0]["ply"] >= last[0]["ply"] + 1
    assert people[0].seen[last[0]["ply"]] == (0, last[0]["legal"][0][0])  # not lost
    new_owner = lease_owner(url, table)
    assert new_owner not in (None, owner)

    # the hand goes on to its end through the two servers left
    end = play(people, lambda m: m["status"] == "finished", msgs=resumed)
    result = end[0]["view"]["last_hand"]
    assert result["hand_number"] == 1 and sum(result["tricks"]) == 13

    # the stored moves: one per ply, each the move everyone was shown, and replayed from
    # the seed they give every seat exactly its last view
    store = Store(url)
    try:
        row = store.table(table)
        names = store.user_names(s["user_id"] for s in row["seats"] if s["user_id"])
    finally:
        store.close()
    assert row["status"] == "finished" and len(row["moves"]) == end[0]["ply"]
    for p in people:
        for ply, move in p.seen.items():
            assert row["moves"][ply] == move, (p.seat, ply)
    for p in people[:2]:  # every move shown once, the kill notwithstanding
        assert set(range(first[0]["ply"], end[0]["ply"])) <= set(p.seen)
    replayed = Table(row, names, Bots([BOT.removeprefix("bot:")]))
    for p, m in zip(people, end, strict=True):
        assert replayed.state.view(p.seat).to_dict() == m["view"]
    for p in people:
        p.ws.close()


@pytest.mark.parametrize("servers", [("--turn-seconds", "0.5", "--grace-seconds", "0.5")],
                         indirect=True)
def test_quick_match_clocks_and_a_gentle_stop_across_servers(servers):
    url, procs = servers
    cookies = [signup(s.url, f"player{i}") for i, s in enumerate(procs + procs[:1])]
    wait = {"game": "spades", "fill_after": None}  # for people, not bots
    tables = [post(procs[i % 3].url, "/api/quickmatch", wait, c)[0]
              for i, c in enumerate(cookies)]
    table = tables[0]["table"]
    assert {t["table"] for t in tables} == {table}  # one table, whichever server was asked
    assert [t["status"] for t in tables] == ["waiting"] * 3 + ["playing"]

    def lobbies() -> list[dict]:  # without each server's clock
        return [{k: v for k, v in get(s.url, "/api/lobby", cookies[0]).items() if k != "now"}
                for s in procs]

    # nobody at the table: no clock runs, no bot plays for anyone
    time.sleep(1.0)
    first = lobbies()
    assert all(x == first[0] for x in first)
    assert [t["table"] for t in first[0]["mine"]] == [table]
    assert not any(p["away"] or p["online"] for p in first[0]["mine"][0]["players"])

    # player0 opens it through a server that does not run it: the clocks run there, and
    # stand-in bots play for the people who are not at the table
    person = Person(procs[(runner(url, table) + 1) % 3], cookies[0], table, 0)
    deadline = time.monotonic() + 15
    while True:
        listing = lobbies()
        players = listing[0]["mine"][0]["players"]
        if sum(p["away"] for p in players) >= 3 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert all(x == listing[0] for x in listing), "the lobby differs between servers"
    assert sum(p["away"] for p in players) >= 3 and players[0]["online"]
    m = person.read()
    while m.get("table") != table or m["ply"] < 4:
        m = person.read()

    # the table's server stops gently: it hands the lease back, another takes the table at
    # its next tick and plays on from the stored moves
    owner = lease_owner(url, table)
    victim = procs[runner(url, table)]
    victim.stop()
    if person.server is victim:  # the table moved to player0's server meanwhile (a stall)
        person.open(procs[(procs.index(victim) + 1) % 3])
    assert lease_owner(url, table) != owner
    deadline = time.monotonic() + 10
    while lease_owner(url, table) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert lease_owner(url, table) not in (None, owner)
    with psycopg.connect(url) as conn:
        stored = conn.execute("SELECT count(*) FROM moves WHERE table_id = %s",
                              (table,)).fetchone()[0]
    while m.get("table") != table or m["ply"] < stored + 4:
        m = person.read()
    assert set(range(4, m["ply"])) <= set(person.seen)
    person.ws.close()


def test_a_server_reaped_while_it_stalled_stores_its_people_again(servers):
    """Another server forgets a server silent past its lease (its heartbeat row and the
    people at tables through it, ``Store.reap_servers``). If that server was only stalled,
    it must come back: else the table's owner thinks nobody is at the table, and no clock
    runs and no stand-in plays for good."""
    url, procs = servers
    ann = signup(procs[0].url, "ann")
    table = post(procs[0].url, "/api/tables", {"game": "spades",
                                               "seats": ["me", BOT, BOT, BOT]}, ann)[0]["table"]
    through = (runner(url, table) + 1) % 3  # a server that does not run the table
    person = Person(procs[through], ann, table, 0)
    person.read()

    def online() -> list[bool]:
        return [get(s.url, "/api/lobby", ann)["mine"][0]["players"][0]["online"] for s in procs]

    def rows(conn) -> tuple[int, int]:
        server = conn.execute("SELECT count(*) FROM servers WHERE id LIKE %s",
                              (f"s{through}/%",)).fetchone()[0]
        here = conn.execute("SELECT count(*) FROM presence WHERE server LIKE %s AND "
                            "table_id = %s", (f"s{through}/%", table)).fetchone()[0]
        return server, here

    with psycopg.connect(url, autocommit=True) as conn:
        # presence is stored off the event loop, so it may land just after the first message
        deadline = time.monotonic() + float(LEASE)
        while rows(conn) != (1, 1) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert rows(conn) == (1, 1) and online() == [True] * 3
        # what another server's reap does to a server it heard nothing from for a lease
        with conn.transaction():
            conn.execute("DELETE FROM presence WHERE server LIKE %s", (f"s{through}/%",))
            conn.execute("DELETE FROM servers WHERE id LIKE %s", (f"s{through}/%",))
            assert rows(conn) == (0, 0)
    deadline = time.monotonic() + 3 * float(LEASE)
    with psycopg.connect(url, autocommit=True) as conn:
        while rows(conn) != (1, 1) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert rows(conn) == (1, 1), "the stalled server did not come back"
    assert online() == [True] * 3
    person.ws.close()


def test_account_and_table_requests_run_no_statement_on_the_event_loop(tmp_path):
    """With a slow database (``--db-delay``) the server names each statement still run on its
    event loop: none for signing up and in, guests, settings, making, sitting at, standing
    up from and inviting to tables, quick match, an invite link, scheduling a game, the
    lobby's invitations, or the arena's upload, bots, leaderboard and withdrawal."""
    log_path = tmp_path / "server.log"
    server = ServerProcess(postgres_url(), None, "--db-delay", "0.01")
    with open(log_path, "w") as log_file:
        server.start(stderr=log_file)
        try:
            started = len(log_path.read_text())
            ann, bob = signup(server.url, "ann"), signup(server.url, "bob")
            post(server.url, "/api/signin", {"name": "ann", "password": "password123"})
            post(server.url, "/api/prefs", {"auto_tricks": True}, ann)
            assert get(server.url, "/api/prefs", bob) == {"auto_tricks": False}
            table = post(server.url, "/api/tables", {"game": "spades"}, ann)[0]["table"]
            post(server.url, f"/api/tables/{table}/sit", {}, bob)
            post(server.url, f"/api/tables/{table}/stand", {}, bob)
            token = post(server.url, f"/api/tables/{table}/invite", {}, ann)[0]["token"]
            guest = post(server.url, "/api/guest", {"invite": token})[0]
            assert guest["table"] == table and guest["guest"]
            quick = post(server.url, "/api/quickmatch", {"game": "sevens"}, bob)[0]
            assert quick["status"] == "playing", quick
            # a game ann schedules for others: bob's lobby names her, read with the tables
            post(server.url, "/api/schedule", {
                "game": "spades", "starts_at": time.time() + 600,
                "players": ["bob", "bot:random", "bot:random", "bot:random"]}, ann)
            [invitation] = get(server.url, "/api/lobby", bob)["invitations"]
            assert invitation["host"] == "ann" and not invitation["mine"]
            with pytest.raises(Exception, match="400"):  # refused in the lane, by name
                post(server.url, "/api/schedule", {
                    "game": "spades", "starts_at": time.time() + 600,
                    "players": ["bob", "nobody", "bot:random", "bot:random"]}, ann)
            # the arena: upload, your bots, a leaderboard, withdraw
            bot = post(server.url, "/api/arena/bots", nets.upload("Lane", nets.good()),
                       ann)[0]["bot"]
            assert [b["id"] for b in get(server.url, "/api/arena/mine", ann)["bots"]] == [bot]
            board = get(server.url, "/api/arena/leaderboard?game=blind_auction&preset=2p"
                                    "&players=2", ann)
            assert f"arena:{bot}" in {r["bot"] for r in board["bots"]}
            post(server.url, f"/api/arena/bots/{bot}/withdraw", {}, ann)
            assert get(server.url, "/api/arena/mine", ann)["bots"][0]["status"] == "withdrawn"
            post(server.url, "/api/signout", {}, bob)
            with pytest.raises(Exception, match="409"):
                signup(server.url, "ANN")
            during = log_path.read_text()[started:]
        finally:
            server.stop()
    assert "on the event loop" not in during, during
