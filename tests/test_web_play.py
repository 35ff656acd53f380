"""Instant play on the server: guest sessions (and the account that adopts one), invite
links, invitations to scheduled games in the lobby, the table chat (length, rate, who may
write, kept for a reload), and the turn clock waiting while a finished trick is held.
What a guest may not do is refused with 403 and changes nothing."""

from __future__ import annotations

import asyncio
import json

import pytest
from starlette.testclient import TestClient

from cardrl.envs.spades.rules import PRESETS
from cardrl.envs.spades.scoring import score_bid, score_parts
from cardrl.web.app import GUESTS_PER_ADDRESS, create_app
from cardrl.web.db import Store
from cardrl.web.http import COOKIE
from cardrl.web.lobby import CHAT_RATE, CHAT_WINDOW, Lobby
from cardrl.web.protocol import CHAT_MAX
from tests.web_util import T0, Clock, Person

TURN = 60.0


def with_lobby(test):
    async def main():
        clock = Clock()
        lobby = Lobby(Store("sqlite://"), clock=clock, turn=TURN, grace=30.0)
        users = {n: lobby.store.create_user(n, "x", T0) for n in ("ann", "bob", "cat")}
        try:
            await test(lobby, clock, users)
        finally:
            for t in lobby.tables.values():
                if t.bot_task:
                    t.bot_task.cancel()
            lobby.runner.shutdown()
    return lambda: asyncio.run(main())


async def settle(lobby) -> None:
    for _ in range(10_000):
        if not any(t.bot_task and not t.bot_task.done() for t in lobby.tables.values()):
            return
        await asyncio.sleep(0)
    raise AssertionError("the bots did not settle")


class As:
    """One person's session on the test client: one app (one lifespan), many people."""

    def __init__(self, http: TestClient) -> None:
        self.http, self.token = http, None

    def _call(self, method: str, path: str, **kwargs):
        self.http.cookies.clear()
        if self.token:
            self.http.cookies.set(COOKIE, self.token)
        answer = getattr(self.http, method)(path, **kwargs)
        self.token = self.http.cookies.get(COOKIE)  # set, kept or cleared by the answer
        return answer

    def get(self, path: str):
        return self._call("get", path)

    def post(self, path: str, json: dict):
        return self._call("post", path, json=json)


@pytest.fixture()
def app(tmp_path):
    clock = Clock()
    application = create_app(f"sqlite:///{tmp_path / 'web.db'}", password_cost=2**10,
                             clock=clock)
    application.state.test_clock = clock
    return application


# -------------------------------------------------------------------- guests
def test_a_guest_plays_at_once_and_an_account_adopts_its_tables(app):
    with TestClient(app) as http:
        assert http.get("/api/session").json() == {"user": None}  # no 401 on a first visit
        guest = http.post("/api/guest", json={}).json()
        assert guest["guest"] and guest["name"].startswith("guest-")
        assert http.get("/api/session").json()["user"]["guest"] is True
        table = http.post("/api/quickmatch", json={"game": "spades", "fill_after": 0}).json()
        store = app.state.lobby.store
        assert store.table(table["table"])["seats"][0]["user_id"] == guest["id"]
        # asked again with the session, the same guest (no new user)
        assert http.post("/api/guest", json={})
        assert len(store.dump()["users"]) == 1
        # nobody can sign in as a guest: it has no password
        assert http.post("/api/signin", json={"name": guest["name"], "password":
                                              "guest-pass"}).status_code == 401
        # no account may take a guest's kind of name
        refused = http.post("/api/signup", json={"name": "Guest-x1", "password": "long enough"})
        assert refused.status_code == 400 and "guests" in refused.json()["error"]

        # what only accounts may do: scheduling a game (403, nothing stored)
        before = store.dump()
        answer = http.post("/api/schedule", json={
            "game": "spades", "starts_at": T0 + 600,
            "players": [guest["name"], "bot:spades/expert", "bot:spades/expert",
                        "bot:spades/expert"]})
        assert answer.status_code == 403 and "make an account" in answer.json()["error"]
        assert store.dump() == before

        # making an account from the guest session keeps the id, so the tables
        made = http.post("/api/signup", json={"name": "gina", "password": "long enough"})
        assert made.status_code == 200 and made.json() == {"name": "gina", "id": guest["id"],
                                                           "guest": False}
        assert http.get("/api/me").json() == {"name": "gina", "id": guest["id"], "guest": False}
        assert store.dump()["guests"] == []
        assert store.table(table["table"])["seats"][0]["user_id"] == guest["id"]
        lobby = app.state.lobby
        assert lobby.tables[table["table"]].seats[0].user_name == "gina"
        assert [t["table"] for t in http.get("/api/lobby").json()["mine"]] == [table["table"]]
        # the account signs in with its password from now on
        http.post("/api/signout", json={})
        assert http.post("/api/signin", json={"name": "gina", "password": "long enough"}) \
            .status_code == 200


def test_a_guest_cannot_be_invited_by_name_and_an_adopted_name_must_be_free(app):
    with TestClient(app) as client:
        http, other = As(client), As(client)
        http.post("/api/signup", json={"name": "alice", "password": "long enough"})
        guest = other.post("/api/guest", json={}).json()
        answer = http.post("/api/schedule", json={
            "game": "sevens", "starts_at": T0 + 600, "players": ["alice", guest["name"]],
            "rules": {"num_players": 2}})
        assert answer.status_code == 400 and "is a guest" in answer.json()["error"]
        before = app.state.lobby.store.dump()
        taken = other.post("/api/signup", json={"name": "ALICE", "password": "long enough"})
        assert taken.status_code == 409 and app.state.lobby.store.dump() == before
        assert other.get("/api/session").json()["user"]["guest"] is True


def test_guest_sessions_are_throttled_per_address(app):
    with TestClient(app) as http:
        for _ in range(GUESTS_PER_ADDRESS):
            assert http.post("/api/guest", json={}).status_code == 200
            http.cookies.clear()
        before = app.state.lobby.store.dump()
        answer = http.post("/api/guest", json={})
        assert answer.status_code == 429 and int(answer.headers["retry-after"]) > 0
        assert app.state.lobby.store.dump() == before


# -------------------------------------------------------------- invite links
def test_an_invite_link_seats_whoever_opens_it_while_the_table_waits(app):
    with TestClient(app) as client:
        host, friend, late = As(client), As(client), As(client)
        host.post("/api/signup", json={"name": "hana", "password": "long enough"})
        table = host.post("/api/tables", json={
            "game": "spades", "seats": ["me", "open", "bot:spades/expert", "open"]}).json()
        link = host.post(f"/api/tables/{table['table']}/invite", json={}).json()
        token = link["token"]
        assert link["link"] == f"/#/invite/{token}" and len(token) == 32
        store = app.state.lobby.store
        assert token not in json.dumps(store.dump())  # only its hash is stored
        # not an account: a guest opens it and takes a seat
        friend.post("/api/guest", json={})
        seated = friend.post("/api/invite", json={"token": token})
        assert seated.json() == {"table": table["table"], "status": "waiting"}
        assert friend.post("/api/invite", json={"token": token}).json()["table"] == table["table"]
        # refused links change nothing: malformed, unknown, not seated at the table
        late.post("/api/signup", json={"name": "lars", "password": "long enough"})
        before = store.dump()
        for bad, status in ((token[:-1], 400), ("../../etc/passwd", 400), (None, 400),
                            ("A" * 32, 404)):
            answer = friend.post("/api/invite", json={"token": bad})
            assert answer.status_code == status, bad
        assert late.post(f"/api/tables/{table['table']}/invite", json={}).status_code == 400
        assert store.dump() == before
        # the last open seat: the game starts; the link is over after that
        assert late.post("/api/invite", json={"token": token}).json()["status"] == "playing"
        other = host.post("/api/tables", json={"game": "sevens", "rules": {"num_players": 2}})
        second = host.post(f"/api/tables/{other.json()['table']}/invite", json={}).json()
        assert second["token"] != token
        fourth = As(client)
        # a newcomer with a link that is over: refused before any guest account is made
        before = store.dump()
        for bad in (token, "A" * 32, "../x"):
            over = fourth.post("/api/guest", json={"invite": bad})
            assert over.status_code in (400, 404) and store.dump() == before, bad
        assert "is over" in fourth.post("/api/guest", json={"invite": token}).json()["error"]
        assert fourth.get("/api/session").json() == {"user": None}
        # with a link still open: the guest is made and seated in one request
        fresh = fourth.post("/api/guest", json={"invite": second["token"]}).json()
        assert fresh["guest"] and fresh["table"] == other.json()["table"]
        assert store.table(fresh["table"])["seats"][1]["user_id"] == fresh["id"]
        over = fourth.post("/api/invite", json={"token": token})
        assert over.status_code == 400 and "is over" in over.json()["error"]


def test_the_lobby_shows_invitations_and_when_they_start(app):
    with TestClient(app) as client:
        host, bob = As(client), As(client)
        host.post("/api/signup", json={"name": "hana", "password": "long enough"})
        bob.post("/api/signup", json={"name": "bobby", "password": "long enough"})
        starts = T0 + 12 * 60
        table = host.post("/api/schedule", json={
            "game": "sevens", "starts_at": starts, "players": ["hana", "bobby"],
            "rules": {"num_players": 2}}).json()
        listing = bob.get("/api/lobby").json()
        assert listing["now"] == T0
        [invitation] = listing["invitations"]
        assert invitation["table"] == table["table"] and invitation["host"] == "hana"
        assert invitation["starts_at"] == starts and not invitation["mine"]
        assert host.get("/api/lobby").json()["invitations"][0]["mine"]


# ---------------------------------------------------------------------- chat
@with_lobby
async def test_chat_is_short_rate_limited_for_players_only_and_kept(lobby, clock, users):
    table = lobby.create_table(users["ann"], "sevens", rules={"num_players": 2},
                               seats=["me", "open"])
    lobby.sit(users["bob"], table.id)
    ann, bob, cat = (Person(users[n], n) for n in ("ann", "bob", "cat"))
    for who in (ann, bob, cat):  # cat only watches
        lobby.join(who, table)
    await settle(lobby)
    for who in (ann, bob, cat):
        who.messages()

    def chat(who, text):
        lobby.handle(who, json.dumps({"type": "chat", "table": table.id, "text": text}))
        return who.messages()

    html = "<img src=x onerror=alert(1)>"
    chat(ann, f"  hello\n\tthere {html} ")
    [line] = bob.messages()[0]["lines"]
    # kept as text (the page shows it as text); control characters and runs of spaces go
    assert line == {"seat": 0, "name": "ann", "text": f"hello there {html}", "at": T0}
    assert cat.messages()[0]["lines"] == [line]  # watchers read along
    before = lobby.store.dump()
    assert "only the players" in chat(cat, "hi")[0]["error"]
    assert f"1 to {CHAT_MAX} characters" in chat(ann, "x" * (CHAT_MAX + 1))[0]["error"]
    assert "1 to" in chat(ann, " \n ")[0]["error"]
    lobby.handle(ann, json.dumps({"type": "chat", "table": table.id, "text": 7}))
    assert "string" in ann.messages()[0]["error"]
    assert lobby.store.dump() == before and bob.messages() == []

    for i in range(CHAT_RATE - 1):
        assert chat(ann, f"line {i}")[0]["type"] == "chat"
    slow = chat(ann, "one too many")
    assert "slow down" in slow[0]["error"] and len(lobby.store.chat(table.id, 99)) == CHAT_RATE
    clock.now += CHAT_WINDOW
    assert chat(ann, "later")[0]["lines"][0]["text"] == "later"

    # a reload: the table's lines come with the table
    again = Person(users["bob"], "bob")
    lobby.join(again, table)
    history = [m for m in again.messages() if m["type"] == "chat"]
    assert history[0]["history"] and history[0]["lines"][0]["text"].startswith("hello")
    assert history[0]["lines"][-1]["text"] == "later"


# --------------------------------------------------- the clock and a held trick
@with_lobby
async def test_the_turn_clock_waits_while_a_finished_trick_is_held(lobby, clock, users):
    table = lobby.create_table(users["ann"], "spades", seats=[
        "me", "bot:spades/count-bid", "bot:spades/count-bid", "bot:spades/count-bid"])
    ann = Person(users["ann"], "ann")
    lobby.join(ann, table)
    await settle(lobby)
    marks_seen = set()
    # ann plays until a trick ends with her to move next: her clock waits for her
    for _ in range(60):
        assert table.to_move() == 0
        said = ann.messages()
        if said and said[-1]["marks"]:
            marks_seen.update(said[-1]["marks"]["notes"])
            assert said[-1]["marks"]["leader"] == (table.state.leader
                                                   if table.state.phase == "play" else None)
            if table.state.phase == "play":  # the note says the state, whatever the deal
                broken = "spades broken" if table.state.spades_broken else "spades not broken yet"
                assert said[-1]["marks"]["notes"] == [broken]
        if 0 in table.unseen:
            break
        lobby.move(table, 0, table.state.legal_actions()[0])
        await settle(lobby)
    else:
        raise AssertionError("no trick ended with ann to move")
    assert marks_seen  # the play phase was seen (the deal decides which note it showed)
    held_at = table.unseen[0][1]
    assert lobby.clock_info(table)["held"] is True
    assert table.deadline(TURN, 30.0) == max(table.turn_since, held_at + TURN) + TURN
    clock.now += TURN + 1  # a whole turn looking at the trick: no stand-in yet
    lobby.tick()
    assert not table.seats[0].away
    # an answer for an older hold does not start the clock
    lobby.handle(ann, json.dumps({"type": "ready", "table": table.id,
                                  "ply": table.unseen[0][0] - 1}))
    assert 0 in table.unseen
    lobby.handle(ann, json.dumps({"type": "ready", "table": table.id, "ply": table.ply}))
    assert 0 not in table.unseen and table.turn_since == clock.now
    assert lobby.clock_info(table)["held"] is False
    clock.now += TURN - 1
    lobby.tick()
    assert not table.seats[0].away
    clock.now += 1
    lobby.tick()
    assert table.seats[0].away  # from "ready" on, the usual clock


@with_lobby
async def test_a_held_trick_waits_at_most_one_turn(lobby, clock, users):
    table = lobby.create_table(users["ann"], "spades", seats=[
        "me", "bot:spades/count-bid", "bot:spades/count-bid", "bot:spades/count-bid"])
    ann = Person(users["ann"], "ann")
    lobby.join(ann, table)
    await settle(lobby)
    while 0 not in table.unseen:
        lobby.move(table, 0, table.state.legal_actions()[0])
        await settle(lobby)
    clock.now = table.unseen[0][1] + 2 * TURN - 1
    lobby.tick()
    assert not table.seats[0].away
    clock.now += 1
    lobby.tick()
    assert table.seats[0].away  # never went on: the clock started a turn after the hold


# ------------------------------------------------------------- hand summary
def test_the_score_parts_add_up_to_the_hand_points():
    for rules in PRESETS.values():
        for bid in range(14):
            for tricks in range(14):
                for bags in range(rules.bag_limit or 1):
                    points, _, penalties = score_bid(rules, bid, tricks, bags)
                    parts = score_parts(rules, bid, tricks, penalties)
                    assert sum(p for _, p in parts) == points, (rules.preset, bid, tricks)
                    names = [what for what, _ in parts]
                    assert names[0] == ("nil" if bid == 0 else "set" if tricks < bid
                                        else "bid made")
                    assert ("overtricks" in names) == (bid > 0 and tricks > bid)
                    assert ("bags" in names) == (penalties > 0)


@with_lobby
async def test_a_hand_ending_trick_carries_its_score_parts(lobby, clock, users):
    table = lobby.create_table(users["ann"], "spades", preset="cutthroat", seats=[
        "me", "bot:spades/count-bid", "bot:spades/count-bid", "bot:spades/count-bid"])
    ann = Person(users["ann"], "ann")
    lobby.join(ann, table)
    await settle(lobby)
    said = []
    while not table.state.results:
        lobby.move(table, 0, table.state.legal_actions()[-1])
        await settle(lobby)
        said += ann.messages()
    events = [m["event"] for m in said if m.get("event")]
    [end] = [e for e in events if e.get("hand_over")]
    result = table.state.results[0]
    assert [sum(p for _, p in parts) for parts in end["breakdown"]] == list(result.points)
    assert sum("trick" in e for e in events) == 13 and all(e["hold"] for e in events
                                                          if "trick" in e)
    # cutthroat lets spades lead at any time: no "broken" note; the leader is marked
    marks = [m["marks"] for m in said if m["marks"]]
    assert marks and not any(m["notes"] for m in marks)
    assert any(m["leader"] is not None for m in marks)
