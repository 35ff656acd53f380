"""Community: accounts, quick match (first come, first served), bot filling after a
wait, scheduled games with their 10-minute window (A1.1a.1-3), play again, the bots
offered for a table's rules, and bad requests."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from cardrl.web.app import create_app
from cardrl.web.db import Store
from cardrl.web.hub import Conn
from cardrl.web.lobby import WINDOW, Lobby
from cardrl.web.table import RefusedError
from cardrl.web.testing import postgres_url
from tests.test_web_security import signup
from tests.web_util import T0, Clock


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
            lobby.runner.shutdown()
    return lambda: asyncio.run(main())


def seated(table) -> list:
    return [s.user_name or (s.bot_spec and "bot") for s in table.seats]


def arrive(lobby, user_id, table):
    """The user opens the table (a websocket following it)."""
    conn = Conn(user_id, "x", None)
    lobby.join(conn, table)
    return conn


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
    # the lobby lists live tables only: a seated person has the table open
    assert lobby.listing(users["h"]) == {"mine": [], "open": [], "playing": []}
    for user, table in (("a", first), ("g", second), ("f", other_rules)):
        arrive(lobby, users[user], table)
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
    waiting = lobby.create_table(a, "spades")
    cases = [
        (lambda: lobby.quick_match(a, "poker"), "unknown game 'poker'"),
        (lambda: lobby.quick_match(a, ["spades"]), "game must be a game's name"),
        (lambda: lobby.quick_match(a, "spades", preset="bridge"), "unknown spades preset"),
        (lambda: lobby.quick_match(a, "spades", bot="spades/nobody"), "not offered for spades"),
        (lambda: lobby.quick_match(a, "spades", bot=["x"]), "not offered for spades"),
        (lambda: lobby.quick_match(a, "spades", fill_after=-5), "fill_after"),
        (lambda: lobby.create_table(a, "spades", rules={"target": "high"}), "bad rules"),
        (lambda: lobby.create_table(a, "spades", rules={"target": -5}), "target must be"),
        (lambda: lobby.create_table(a, "spades", rules={"max_hands": 0}), "max_hands must"),
        (lambda: lobby.create_table(a, "spades", rules={"nil_points": 1}),
         "'nil_points' cannot be changed"),
        (lambda: lobby.create_table(a, "spades", rules={"num_players": 3}), "bad rules"),
        (lambda: lobby.create_table(a, "spades", rules=[1]), "rules must be an object"),
        (lambda: lobby.create_table(a, "spades", seats=["me", "open"]), "has 4 seats"),
        (lambda: lobby.create_table(a, "spades", seats=["open"] * 4), "\"me\" exactly once"),
        (lambda: lobby.create_table(a, "spades", seats=["me", 1, "open", "open"]),
         "a seat is"),
        (lambda: lobby.create_table(a, "blind_auction", preset="3p",
                                    seats=["me", "open"]), "has 3 seats"),
        (lambda: lobby.create_table(a, "blind_auction", seats=["me", "bot:blind_auction/"
                                                                     "equilibrium"]),
         "cannot play these blind_auction rules"),
        (lambda: lobby.schedule(a, "spades", T0 - 3 * WINDOW, ["a", "b", "c", "d"]),
         "starts_at"),
        (lambda: lobby.schedule(a, "spades", T0 + 9, ["a", "b", "c", "zed"]), "no user"),
        (lambda: lobby.schedule(a, "spades", T0 + 9, ["a", "a", "c", "d"]), "invited twice"),
        (lambda: lobby.schedule(a, "spades", T0 + 9, ["a", "b", "c", "d"], absent="wait"),
         "absent must be"),
        (lambda: lobby.sit(a, 12345), "no table 12345"),
        (lambda: lobby.sit(a, 10 ** 21), "no table"),
        (lambda: lobby.sit(users["b"], waiting.id, 1.0), "seat 1.0 .* is not open"),
        (lambda: lobby.sit(users["b"], waiting.id, True), "seat True .* is not open"),
        (lambda: lobby.sit(users["b"], waiting.id, 0), "seat 0 .* is not open"),
        (lambda: lobby.stand(users["b"], waiting.id), "no seat"),
        (lambda: lobby.again(a, waiting.id), "not over"),
    ]
    before = lobby.store.dump()
    for call, words in cases:
        with pytest.raises(RefusedError, match=words):
            call()
    assert list(lobby.tables) == [waiting.id]  # nothing else was made
    assert seated(waiting) == ["a", None, None, None] and waiting.status == "waiting"
    assert lobby.store.dump() == before


@with_lobby
async def test_the_bots_offered_are_those_that_can_play_the_rules(lobby, clock, users):
    """The exact-equilibrium bot solves 2 players with up to 8 cards a suit only: it is
    offered there, and nowhere else; a 3-player network is never offered for 2."""
    eq = "blind_auction/equilibrium"
    two = lobby.bots_for("blind_auction", "2p", None)
    assert two["players"] == 2 and eq not in two["bots"] and "random" in two["bots"]
    small = lobby.bots_for("blind_auction", "2p", {"cards_per_suit": 6})
    assert eq in small["bots"]
    three = lobby.bots_for("blind_auction", "3p", {"cards_per_suit": 6})
    assert three["players"] == 3 and eq not in three["bots"]
    assert "checkpoint:blind_auction-2p.onnx" not in three["bots"]
    assert "checkpoint:blind_auction-2p.onnx" in two["bots"]
    sevens = lobby.bots_for("sevens", "random", {"num_players": 3})
    assert not any(b.startswith("checkpoint:") for b in sevens["bots"])  # trained for 4
    games = {g["game"]: g for g in lobby.games()}
    presets = {p["name"]: p for p in games["blind_auction"]["presets"]}
    assert presets["3p"]["players"] == 3 and presets["2p"]["players"] == 2
    assert eq not in presets["2p"]["bots"] and eq in games["blind_auction"]["bots"]
    assert all(isinstance(text, str) and text for text in games["spades"]["bots"].values())
    table = lobby.create_table(users["a"], "blind_auction", rules={"cards_per_suit": 6},
                               seats=["me", f"bot:{eq}"])
    assert table.status == "playing" and table.seats[1].bot_spec == eq


@with_lobby
async def test_play_again_opens_the_same_seats_and_is_asked_once(lobby, clock, users):
    table = lobby.create_table(users["a"], "blind_auction", rules={"cards_per_suit": 3},
                               seats=["me", "open"])
    lobby.sit(users["b"], table.id)
    ann, bob = arrive(lobby, users["a"], table), arrive(lobby, users["b"], table)
    while table.status == "playing":
        lobby.move(table, table.state.current_player, table.state.legal_actions()[0])
    assert table.status == "finished"
    with pytest.raises(RefusedError, match="no seat"):
        lobby.again(users["c"], table.id)
    again = lobby.again(users["b"], table.id)
    assert lobby.again(users["a"], table.id) is again  # the same new table for both
    assert [s.user_id for s in again.seats] == [users["a"], users["b"]]
    assert again.status == "scheduled" and again.rule_changes == {"cards_per_suit": 3}
    assert lobby.store.table(table.id)["result"]["again"] == again.id
    assert table.result["again"] == again.id and ann.queue.qsize() and bob.queue.qsize()
    arrive(lobby, users["a"], again)
    assert again.status == "scheduled"  # bob has not opened it yet
    arrive(lobby, users["b"], again)
    assert again.status == "playing"


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


def test_a_player_keeps_the_setting_to_collect_tricks_by_themselves(tmp_path):
    """Item 7 of issue 57: the "Next trick" pause stays the default; a player may choose to
    have tricks go on by themselves, kept with the account; a bad setting changes nothing."""
    url = f"sqlite:///{tmp_path / 'web.db'}"
    with TestClient(create_app(url, password_cost=2**10)) as http:
        assert http.get("/api/prefs").status_code == 401
        http.post("/api/signup", json={"name": "alice", "password": "s3cret-pass"})
        assert http.get("/api/prefs").json() == {"auto_tricks": False}
        for bad, word in (({"auto_tricks": "yes"}, "'yes'"), ({"auto_trick": True}, "auto_trick"),
                          ({"auto_tricks": 1}, "'1'")):
            res = http.post("/api/prefs", json=bad)
            assert res.status_code == 400 and word in res.json()["error"], res.json()
        assert http.get("/api/prefs").json() == {"auto_tricks": False}
        assert http.post("/api/prefs", json={"auto_tricks": True}).json() == {"auto_tricks": True}
    with TestClient(create_app(url, password_cost=2**10)) as http:  # kept over a restart
        http.post("/api/signin", json={"name": "alice", "password": "s3cret-pass"})
        assert http.get("/api/prefs").json() == {"auto_tricks": True}
        http.post("/api/signout", json={})
        http.post("/api/signup", json={"name": "bobby", "password": "s3cret-pass"})
        assert http.get("/api/prefs").json() == {"auto_tricks": False}  # each player's own


def test_the_lobby_offers_only_checkpoints_the_installed_game_can_load(tmp_path, monkeypatch):
    import json

    from cardrl.envs.games import get_game
    from cardrl.web import bots

    card = json.loads((bots.shipped_folder() / "gin_rummy-seed.json").read_text())
    for name, env_name in (("gin_rummy-new", get_game("gin_rummy").env_name),
                           ("gin_rummy-old", "gin_rummy_v0")):
        (tmp_path / f"{name}.onnx").write_bytes(b"")
        (tmp_path / f"{name}.json").write_text(json.dumps(
            {**card, "game": "gin_rummy", "env_name": env_name, "onnx": f"{name}.onnx"}))
    from cardrl.agents import learned

    monkeypatch.setattr(learned, "shipped_folder", lambda: tmp_path)
    monkeypatch.setattr(bots, "shipped_folder", lambda: tmp_path)
    assert bots.shipped_checkpoints("gin_rummy") == ["checkpoint:gin_rummy-new.onnx"]
    offered = [n for n in bots.Bots().specs("gin_rummy") if n.startswith(bots.PREFIX)]
    assert offered == ["checkpoint:gin_rummy-new.onnx"]


def test_the_operator_list_names_bots_never_files(tmp_path):
    from cardrl.web.bots import BotError, Bots

    only = Bots(["spades/expert", "spades/search:worlds=2", "random"])
    assert only.specs("spades") == ["spades/expert", "spades/search:worlds=2", "random"]
    assert only.specs("sevens") == ["random"]
    marker = tmp_path / "ran"
    bot_file = tmp_path / "bot.py"
    bot_file.write_text(f"open({str(marker)!r}, 'w').close()\n")
    for spec in (str(bot_file), str(tmp_path / "x.onnx"), "spades/nobody", ""):
        with pytest.raises(BotError):
            Bots([spec])
    assert not marker.exists()


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_play_again_asked_at_once_by_both_players_is_one_new_table(kind, tmp_path):
    """Over HTTP, where PostgreSQL stores the new table in a database lane: both players
    asking at the same moment get the same new table, and only one is stored."""
    url = f"sqlite:///{tmp_path / 'web.db'}" if kind == "sqlite" else postgres_url()
    # a slow database widens the moment in which both requests are in flight
    app = create_app(url, password_cost=2**10, db_delay=0.02 if kind == "postgresql" else 0)
    with TestClient(app) as http:
        ann, bob = signup(http, "ann"), signup(http, "bob")
        table = http.post("/api/tables", json={"game": "blind_auction", "preset": "2p",
                                               "rules": {"cards_per_suit": 3},
                                               "seats": ["me", "open"]},
                          headers=ann).json()["table"]
        assert http.post(f"/api/tables/{table}/sit", json={}, headers=bob).status_code == 200
        with http.websocket_connect("/ws", headers=ann) as wa, \
                http.websocket_connect("/ws", headers=bob) as wb:
            sockets = [wa, wb]
            for ws in sockets:
                ws.send_json({"type": "join", "table": table})
            status = "playing"
            while status == "playing":  # each plays its first legal bid when asked
                for ws in sockets:
                    ws.send_json({"type": "ping", "id": "fence"})
                    while (m := ws.receive_json())["type"] != "pong":
                        if m["type"] == "table" and m["table"] == table:
                            status = m["status"]
                            if m["legal"]:
                                ws.send_json({"type": "move", "table": table,
                                              "action": m["legal"][0][0]})
        assert status == "finished"
        with ThreadPoolExecutor(2) as pool:
            answers = list(pool.map(lambda who: http.post(f"/api/tables/{table}/again",
                                                          json={}, headers=who), (ann, bob)))
        assert [a.status_code for a in answers] == [200, 200], [a.text for a in answers]
        again = {a.json()["table"] for a in answers}
        assert len(again) == 1 and again != {table}
        store = app.state.lobby.store
        assert store.table(table)["result"]["again"] == again.pop()
        assert len(store.dump()["game_tables"]) == 2
