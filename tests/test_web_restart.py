"""Restart: kill the server in the middle of a hand, start it again, play on; and
one server per SQLite database. Both on SQLite and on PostgreSQL (a throwaway cluster).

A real ``python -m cardrl.web`` process on loopback, two people and two bots at one
Spades table. The server is killed (SIGKILL, no chance to tidy up) while a
person is to move; the new process must give both people their seats back
with exactly the position they last saw, and the hand must go on to its end
(on PostgreSQL once the dead server's lease has run out). A second server
started on the same SQLite database refuses to start, and the first goes on
undisturbed.
"""

from __future__ import annotations

import json
import subprocess

import pytest
from websockets.sync.client import connect

from cardrl.web.testing import ServerProcess, get, post, postgres_url, signup

BOT = "bot:spades/expert"


HUMANS = (0, 2)  # ann and bob; seats 1 and 3 are bots


class Person:
    def __init__(self, server: ServerProcess, cookie: str) -> None:
        self.ws = connect(server.ws_url, additional_headers={"Cookie": cookie},
                          open_timeout=10).__enter__()

    def send(self, msg: dict) -> None:
        self.ws.send(json.dumps(msg))

    def settled(self, table: int, after: int) -> dict:
        """The first message past move ``after`` with a person to move (bots done)."""
        while True:
            m = json.loads(self.ws.recv(timeout=20))
            assert m["type"] != "error", m
            if m.get("table") == table and m["ply"] > after and m["status"] == "playing" \
                    and m["view"]["current_player"] in HUMANS:
                return m


def play_until(people, table, done, msgs=None):
    """Both people play their last legal action until ``done(messages)``; the last messages.

    ``msgs``: the messages the people last read, if the play starts from them.
    """
    after = -1
    while True:
        msgs = msgs or [p.settled(table, after) for p in people]
        assert msgs[0]["ply"] == msgs[1]["ply"]
        if done(msgs):
            return msgs
        mover = next(i for i, m in enumerate(msgs) if m["legal"])
        people[mover].send({"type": "move", "table": table, "action": msgs[mover]["legal"][-1][0]})
        after = msgs[0]["ply"]
        msgs = None


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request, tmp_path):
    """A fresh database of each kind (PostgreSQL: a throwaway cluster, never skipped)."""
    return tmp_path / "web.db" if request.param == "sqlite" else postgres_url()


def test_a_game_resumes_exactly_after_the_server_is_killed(db):
    server = ServerProcess(db).start()
    try:
        cookies = [signup(server.url, "ann"), signup(server.url, "bob")]
        table = post(server.url, "/api/tables", {"game": "spades", "seats": [
            "me", BOT, "open", BOT]}, cookies[0])[0]["table"]
        post(server.url, f"/api/tables/{table}/sit", {}, cookies[1])
        people = [Person(server, c) for c in cookies]
        for p in people:
            p.send({"type": "join", "table": table})
        # into the middle of the first hand, stopping where a person is to move
        last = play_until(people, table, lambda ms: len(ms[0]["view"]["plays"]) >= 18)
        for p in people:
            p.ws.close()
        server.stop(kill=True)

        server = ServerProcess(db, server.port).start()
        people = [Person(server, c) for c in cookies]  # same sessions, from the database
        for p in people:
            p.send({"type": "join", "table": table})
        again = [p.settled(table, -1) for p in people]
        for before, after in zip(last, again, strict=True):
            assert after["seat"] == before["seat"]
            assert after["ply"] == before["ply"]
            assert after["view"] == before["view"]
            assert after["legal"] == before["legal"]
            assert [p["name"] for p in after["players"]] == [p["name"] for p in before["players"]]
        assert again[0]["players"][0]["name"] == "ann" and again[1]["seat"] == 2
        assert again[0]["view"]["hand_number"] == 1

        # the hand goes on to its end, bots included
        end = play_until(people, table, lambda ms: ms[0]["view"]["hand_number"] == 2, again)
        result = end[0]["view"]["last_hand"]
        assert result["hand_number"] == 1 and sum(result["tricks"]) == 13
        assert [t["table"] for t in get(server.url, "/api/lobby", cookies[0])["mine"]] == [table]
        for p in people:
            p.ws.close()
    finally:
        server.stop()


def test_a_second_server_on_the_same_sqlite_database_refuses_to_start(tmp_path):
    db = tmp_path / "web.db"  # PostgreSQL takes many servers: tests/test_web_multi.py
    with ServerProcess(db) as first:
        cookie = signup(first.url, "ann")
        table = post(first.url, "/api/tables", {"game": "spades", "seats": [
            "me", BOT, BOT, BOT]}, cookie)[0]["table"]
        second = ServerProcess(db)
        with pytest.raises(RuntimeError, match="exited"):
            second.start(stderr=subprocess.PIPE)
        assert "one server per database" in second.proc.stderr.read().decode()
        second.proc.stderr.close()
        # the first server and its game go on
        person = Person(first, cookie)
        person.send({"type": "join", "table": table})
        m = json.loads(person.ws.recv(timeout=20))
        while not m["legal"]:
            m = json.loads(person.ws.recv(timeout=20))
        person.send({"type": "move", "table": table, "action": m["legal"][0][0]})
        after = json.loads(person.ws.recv(timeout=20))
        assert after["ply"] == m["ply"] + 1 and after["event"]["seat"] == 0
        person.ws.close()
