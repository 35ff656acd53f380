"""Community: accounts, quick match (first come, first served), bot filling after a
wait, scheduled games with their 10-minute window (A1.1a.1-3), bad requests."""

from __future__ import annotations

import asyncio

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from web.app import create_app
from web.db import Store
from web.hub import Conn
from web.lobby import WINDOW, Lobby
from web.table import RefusedError

T0 = 1_000_000.0


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


def with_lobby(test):
    """Run ``test(lobby, clock, users)`` inside an event loop (bots need one)."""
    async def main():
        clock = Clock()
        lobby = Lobby(Store("sqlite://"), clock=clock)
        users = {n: lobby.store.create_user(n, "x", T0) for n in "abcdefgh"}
        try:
            await test(lobby, clock, users)
        finally:
            for t in lobby.tables.values():
                if t.bot_task:
                    t.bot_task.cancel()
            lobby.pool.shutdown(wait=False)
    return lambda: asyncio.run(main())


def seated(table) -> list:
    return [s.user_name or (s.bot_spec and "bot") for s in table.seats]


@with_lobby
async def test_quick_match_seats_players_first_come_first_served(lobby, clock, users):
    first = lobby.quick_match(users["a"], "spades")
    for i, n in enumerate("bcd"):
        clock.now += 1
        assert lobby.quick_match(users[n], "spades") is first
        assert seated(first)[: i + 2] == ["a", "b", "c", "d"][: i + 2]
    assert first.status == "playing" and seated(first) == ["a", "b", "c", "d"]
    second = lobby.quick_match(users["e"], "spades")
    other_rules = lobby.quick_match(users["f"], "spades", preset="cutthroat")
    assert second is not first and other_rules is not second
    assert lobby.quick_match(users["g"], "spades") is second  # the oldest waiting one
    assert lobby.quick_match(users["e"], "spades") is second  # already waiting there
    assert seated(second) == ["e", "g", None, None] and second.status == "waiting"
    listing = lobby.listing(users["h"])
    assert [t["table"] for t in listing["open"]] == [second.id, other_rules.id]
    assert [t["table"] for t in listing["playing"]] == [first.id]
    assert [t["table"] for t in lobby.listing(users["a"])["mine"]] == [first.id]


@with_lobby
async def test_empty_seats_get_bots_when_the_wait_is_over(lobby, clock, users):
    table = lobby.quick_match(users["a"], "spades", fill_after=30, bot="spades/count-bid")
    clock.now += 10
    lobby.quick_match(users["b"], "spades")
    clock.now += 19.9
    lobby.tick()
    assert table.status == "waiting"
    clock.now += 0.1
    lobby.tick()
    assert table.status == "playing"
    assert [s.bot_spec for s in table.seats] == [None, None, "spades/count-bid",
                                                  "spades/count-bid"]
    assert lobby.store.table(table.id)["seats"][3]["bot"] == "spades/count-bid"
    now = lobby.quick_match(users["c"], "spades", fill_after=0)  # three bots at once
    assert now.status == "playing" and seated(now) == ["c", "bot", "bot", "bot"]


def arrive(lobby, user_id, table):
    conn = Conn(user_id, "x", None)
    lobby.join(conn, table)
    return conn


@with_lobby
async def test_a_scheduled_game_starts_when_everyone_has_arrived(lobby, clock, users):
    start = T0 + 3600
    table = lobby.schedule(users["a"], "spades", start, ["a", "b", "bot:spades/expert", "c"])
    arrive(lobby, users["a"], table)
    arrive(lobby, users["b"], table)
    clock.now = start
    lobby.tick()
    assert table.status == "scheduled"  # c has not come
    clock.now = start + WINDOW - 1
    arrive(lobby, users["c"], table)
    assert table.status == "playing" and seated(table) == ["a", "b", "bot", "c"]


@with_lobby
async def test_early_arrivals_wait_for_the_start_time(lobby, clock, users):
    table = lobby.schedule(users["a"], "spades", T0 + 60, ["a", "b", "c", "d"])
    for n in "abcd":
        arrive(lobby, users[n], table)
    assert table.status == "scheduled"
    clock.now = T0 + 60
    lobby.tick()
    assert table.status == "playing"


@with_lobby
async def test_absentees_are_replaced_by_bots_at_the_end_of_the_window(lobby, clock, users):
    table = lobby.schedule(users["a"], "spades", T0 + 60, ["a", "b", "c", "d"], absent="bot",
                           bot="spades/spade-count")
    arrive(lobby, users["a"], table)
    clock.now = T0 + 60 + WINDOW - 0.5
    lobby.tick()
    assert table.status == "scheduled"
    clock.now = T0 + 60 + WINDOW
    arrive(lobby, users["b"], table)  # too late: does not count
    lobby.tick()
    assert table.status == "playing"
    assert [s.user_name or s.bot_spec for s in table.seats] == [
        "a", "spades/spade-count", "spades/spade-count", "spades/spade-count"]


@with_lobby
async def test_a_scheduled_game_is_cancelled_if_the_host_chose_so(lobby, clock, users):
    table = lobby.schedule(users["a"], "spades", T0 + 60, ["a", "b", "c", "d"], absent="cancel")
    for n in "abc":
        arrive(lobby, users[n], table)
    clock.now = T0 + 60 + WINDOW
    lobby.tick()
    assert table.status == "cancelled" and "d" in table.result["cancelled"]
    assert lobby.store.table(table.id)["status"] == "cancelled"


@with_lobby
async def test_bad_requests_are_refused_with_the_reason(lobby, clock, users):
    a = users["a"]
    cases = [
        (lambda: lobby.quick_match(a, "poker"), "unknown game 'poker'"),
        (lambda: lobby.quick_match(a, "spades", preset="bridge"), "unknown spades preset"),
        (lambda: lobby.quick_match(a, "spades", bot="spades/nobody"), "unknown bot"),
        (lambda: lobby.quick_match(a, "spades", fill_after=-5), "fill_after"),
        (lambda: lobby.create_table(a, "spades", rules={"target": "high"}), "bad rules"),
        (lambda: lobby.create_table(a, "spades", seats=["me", "open"]), "has 4 seats"),
        (lambda: lobby.create_table(a, "spades", seats=["open"] * 4), "\"me\" exactly once"),
        (lambda: lobby.schedule(a, "spades", T0 - 3 * WINDOW, ["a", "b", "c", "d"]),
         "starts_at"),
        (lambda: lobby.schedule(a, "spades", T0 + 9, ["a", "b", "c", "zed"]), "no user"),
        (lambda: lobby.schedule(a, "spades", T0 + 9, ["a", "a", "c", "d"]), "invited twice"),
        (lambda: lobby.schedule(a, "spades", T0 + 9, ["a", "b", "c", "d"], absent="wait"),
         "absent must be"),
        (lambda: lobby.sit(a, 12345), "no table 12345"),
    ]
    for call, words in cases:
        with pytest.raises(RefusedError, match=words):
            call()
    assert lobby.tables == {}  # nothing was made


def test_accounts_hash_passwords_and_keep_sessions(tmp_path):
    app = create_app(f"sqlite:///{tmp_path / 'web.db'}", password_cost=2**10)
    with TestClient(app) as http:
        assert http.get("/api/me").status_code == 401
        res = http.post("/api/signup", json={"name": "alice", "password": "s3cret-pass"})
        assert res.status_code == 200
        cookie = res.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=lax" in cookie
        assert http.get("/api/me").json()["name"] == "alice"
        stored = app.state.lobby.store.user_by_name("alice")["password"]
        assert stored.startswith("scrypt$") and "s3cret-pass" not in stored
        again = http.post("/api/signup", json={"name": "Alice", "password": "other-pass"})
        assert again.status_code == 409 and "taken" in again.json()["error"]
        assert http.post("/api/signup", json={"name": "x", "password": "longenough"}) \
            .status_code == 400
        assert http.post("/api/signout", json={}).status_code == 200
        assert http.get("/api/me").status_code == 401
        wrong = http.post("/api/signin", json={"name": "alice", "password": "wrong-pass"})
        assert wrong.status_code == 401
        assert http.post("/api/signin", json={"name": "alice", "password": "s3cret-pass"}) \
            .status_code == 200
        assert http.get("/api/me").json()["name"] == "alice"
        # a cross-site form cannot act for the player: JSON only
        form = http.post("/api/quickmatch", data={"game": "spades"})
        assert form.status_code == 400 and "application/json" in form.json()["error"]
        assert app.state.lobby.tables == {}
        # a websocket opened from another site is refused
        with pytest.raises(WebSocketDisconnect) as closed, http.websocket_connect(
                "/ws", headers={"origin": "https://evil.example"}) as ws:
            ws.receive_json()
        assert closed.value.code == 4403


def test_the_lobby_offers_only_checkpoints_the_installed_game_can_load(tmp_path, monkeypatch):
    import json

    from envs.games import get_game
    from web import bots

    card = json.loads((bots.CHECKPOINTS / "sevens-random.json").read_text())
    for name, env_name in (("gin_rummy-new", get_game("gin_rummy").env_name),
                           ("gin_rummy-old", "gin_rummy_v0")):
        (tmp_path / f"{name}.onnx").write_bytes(b"")
        (tmp_path / f"{name}.json").write_text(json.dumps(
            {**card, "game": "gin_rummy", "env_name": env_name, "onnx": f"{name}.onnx"}))
    monkeypatch.setattr(bots, "CHECKPOINTS", tmp_path)
    offered = [n for n in bots.bot_names("gin_rummy") if n.startswith(bots.PREFIX)]
    assert offered == ["checkpoint:gin_rummy-new.onnx"]
