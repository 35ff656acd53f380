"""The websocket protocol: refused messages change nothing; no seat sees another's cards.

Four people (the test drives all four sockets) sit at one Spades table, so no
bot moves behind the test's back and every message can be accounted for. The
checks replay the stored seed and moves with a separate engine, so what each
socket was told is compared with the truth at that very move.
"""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
from starlette.testclient import TestClient

from cardrl.envs import cards
from cardrl.envs.spades import SpadesState, get_rules
from cardrl.envs.spades.actions import CARD_OFFSET
from cardrl.web.app import create_app

PLAYERS = ["ann", "bob", "cat", "dan"]
OPEN: list[Client] = []  # sockets to close before the server stops


class Client:
    """One person: a session cookie and (once opened) a websocket."""

    def __init__(self, http: TestClient, name: str) -> None:
        res = http.post("/api/signup", json={"name": name, "password": "password123"})
        assert res.status_code == 200, res.text
        self.cookie = f"cardrl_session={res.cookies['cardrl_session']}"
        http.cookies.clear()
        self.http = http
        self.name = name
        self.ws = None
        self.seen: list[dict] = []

    def post(self, path: str, body: dict) -> dict:
        res = self.http.post(path, json=body, headers={"cookie": self.cookie})
        assert res.status_code == 200, res.text
        return res.json()

    def open(self):
        self.ws = self.http.websocket_connect("/ws", headers={"cookie": self.cookie}).__enter__()
        OPEN.append(self)
        return self

    def send(self, msg: dict | str) -> None:
        self.ws.send_text(msg if isinstance(msg, str) else json.dumps(msg))

    def drain(self) -> list[dict]:
        """Every message the server sends before answering a ping (a fence)."""
        self.send({"type": "ping", "id": "fence"})
        out = []
        while (m := self.ws.receive_json())["type"] != "pong":
            out.append(m)
        self.seen += out
        return out

    def close(self) -> None:
        self.ws.__exit__(None, None, None)


@pytest.fixture()
def server(tmp_path):
    app = create_app(f"sqlite:///{tmp_path / 'web.db'}", password_cost=2**10)
    with TestClient(app) as http:
        yield app, http
        while OPEN:
            OPEN.pop().close()


def four_at_a_table(app, http, rules=None):
    people = [Client(http, n) for n in PLAYERS]
    table = people[0].post("/api/tables", {"game": "spades", "preset": "killer",
                                           "rules": rules or {}})["table"]
    for p in people[1:]:
        p.post(f"/api/tables/{table}/sit", {})
    for p in people:
        p.open().send({"type": "join", "table": table})
    for p in people:
        p.drain()
    return table, people


def snapshot(app, table_id):
    """Everything a refused message must leave alone: moves stored, ply, every seat's view."""
    table = app.state.lobby.tables[table_id]
    store = app.state.lobby.store
    return (len(store.table(table_id)["moves"]), table.ply,
            [table.state.view(s).to_dict() for s in range(4)])


def to_move(app, table_id, people):
    return people[app.state.lobby.tables[table_id].state.current_player]


def test_a_move_out_of_turn_is_refused_and_changes_nothing(server):
    app, http = server
    table, people = four_at_a_table(app, http)
    before = snapshot(app, table)
    mover = to_move(app, table, people)
    other = next(p for p in people if p is not mover)
    other.send({"type": "move", "table": table, "action": 3, "id": 7})
    [answer] = other.drain()
    assert answer["type"] == "error" and answer["id"] == 7 and answer["table"] == table
    assert "not your turn" in answer["error"]
    assert snapshot(app, table) == before
    assert all(p.drain() == [] for p in people if p is not other)  # nobody else heard a thing


def test_an_illegal_card_is_refused_and_changes_nothing(server):
    app, http = server
    table, people = four_at_a_table(app, http)
    state = app.state.lobby.tables[table].state
    while state.phase == "bid":  # everyone bids 3
        mover = to_move(app, table, people)
        mover.send({"type": "move", "table": table, "action": 3})
        for p in people:
            p.drain()
    mover = to_move(app, table, people)
    seat = state.current_player
    not_held = next(c for c in range(52) if c not in state.hands[seat])
    spade = next((c for c in state.hands[seat] if c >= 39), None)  # spades are not broken yet
    other_suit = any(c < 39 for c in state.hands[seat])
    bad = [CARD_OFFSET + not_held, 999, -1] + ([CARD_OFFSET + spade] if spade and other_suit
                                                else [])
    for action in bad:
        before = snapshot(app, table)
        mover.send({"type": "move", "table": table, "action": action})
        [answer] = mover.drain()
        assert answer["type"] == "error" and f"illegal action {action}" in answer["error"]
        assert "legal:" in answer["error"]
        assert snapshot(app, table) == before


@pytest.mark.parametrize("text, expected", [
    ("not json", "not JSON"),
    ("[1, 2]", "expected a JSON object"),
    ('{"type": "fly", "table": 1}', "unknown type 'fly'"),
    ('{"type": "move", "table": 1}', "needs 'action'"),
    ('{"type": "move", "action": 3}', "needs 'table'"),
    ('{"type": "move", "table": "one", "action": 3}', "'table' must be an integer"),
    ('{"type": "move", "table": 1, "action": "AS"}', "'action' must be an integer"),
    ('{"type": "move", "table": 1, "action": true}', "'action' must be an integer"),
    ('{"type": "move", "table": 1, "action": 3, "ply": "x"}', "'ply' must be an integer"),
    ('{"type": "join", "table": 1, "pad": "' + "x" * 5000 + '"}', "at most 4096"),
])
def test_a_malformed_message_is_refused_and_changes_nothing(server, text, expected):
    app, http = server
    table, people = four_at_a_table(app, http)
    mover = to_move(app, table, people)
    before = snapshot(app, table)
    mover.send(text)
    [answer] = mover.drain()
    assert answer["type"] == "error"
    assert answer["error"].startswith("malformed message") and expected in answer["error"]
    assert snapshot(app, table) == before


def test_a_binary_frame_is_refused(server):
    app, http = server
    table, people = four_at_a_table(app, http)
    before = snapshot(app, table)
    people[0].ws.send_bytes(b'{"type": "ping"}')
    [answer] = people[0].drain()
    assert "not binary" in answer["error"]
    assert snapshot(app, table) == before


def test_a_message_for_another_table_is_refused(server):
    app, http = server
    table, people = four_at_a_table(app, http)
    outsider = Client(http, "eve").open()
    other = outsider.post("/api/tables", {"game": "spades", "seats": [
        "me", "bot:spades/expert", "bot:spades/expert", "bot:spades/expert"]})["table"]
    deadline = time.monotonic() + 10
    while app.state.lobby.tables[other].state.current_player != 0:  # bots done: eve to move
        assert time.monotonic() < deadline, "the bots did not bid"
        time.sleep(0.01)
    mover = to_move(app, table, people)
    before, before_other = snapshot(app, table), snapshot(app, other)
    mover.send({"type": "move", "table": other, "action": 3})
    mover.send({"type": "move", "table": 999, "action": 3})
    outsider.send({"type": "move", "table": table, "action": 3})
    first, second = mover.drain()
    assert first["error"] == f"you have no seat at table {other}" and first["table"] == other
    assert second["error"] == "no table 999"
    assert outsider.drain()[0]["error"] == f"you have no seat at table {table}"
    assert snapshot(app, table) == before
    assert snapshot(app, other) == before_other


def test_a_stale_move_is_refused(server):
    app, http = server
    table, people = four_at_a_table(app, http)
    mover = to_move(app, table, people)
    mover.send({"type": "move", "table": table, "action": 3, "ply": 0})
    for p in people:
        p.drain()
    mover = to_move(app, table, people)
    before = snapshot(app, table)
    mover.send({"type": "move", "table": table, "action": 3, "ply": 0})
    [answer] = mover.drain()
    assert "stale move" in answer["error"] and snapshot(app, table) == before


def _strings(x):
    if isinstance(x, str):
        yield x
    elif isinstance(x, dict):
        for k, v in x.items():
            yield k
            yield from _strings(v)
    elif isinstance(x, list):
        for v in x:
            yield from _strings(v)


@pytest.mark.parametrize("game_seed", [1, 2])
def test_no_message_ever_shows_a_seat_another_seats_cards(server, game_seed):
    """Whole games (capped at two hands) over the sockets, a watcher included."""
    app, http = server
    table, people = four_at_a_table(app, http, rules={"max_hands": 2})
    watcher = Client(http, "wes").open()
    watcher.send({"type": "join", "table": table})
    rng = np.random.default_rng(game_seed)
    everyone = people + [watcher]
    for p in everyone:
        p.drain()
    for p in everyone:
        p.seen.clear()
    while True:
        last = people[0].seen[-1] if people[0].seen else None
        if last is not None and last["status"] == "finished":
            break
        mover = to_move(app, table, people)
        legal = mover.seen[-1]["legal"] if mover.seen else None
        if not legal:  # the first message after joining: ask for the state
            mover.send({"type": "join", "table": table})
            for p in everyone:
                p.drain()
            continue
        action = legal[int(rng.integers(len(legal)))][0]
        mover.send({"type": "move", "table": table, "action": action})
        for p in everyone:
            p.drain()

    row = app.state.lobby.store.table(table)
    truth = SpadesState(get_rules(row["preset"], **row["rules"]), row["seed"])
    states = [truth.clone()]
    for _seat, action in row["moves"]:
        truth.apply(action)
        states.append(truth.clone())
    assert truth.is_over and len(truth.results) == 2
    names = {cards.name(c) for c in range(cards.NUM_CARDS)}
    checked = 0
    for seat, person in enumerate(everyone):
        for m in person.seen:
            ply = m["ply"]
            state = states[ply]
            others = [s for s in range(4) if s != seat]
            hidden = {cards.name(c) for s in others for c in state.hands[s]}
            seen = set(_strings({k: v for k, v in m.items() if k != "event"}))
            assert not seen & hidden, (person.name, ply, seen & hidden)
            if m["event"] is not None:
                # the event names only cards of the move just made and its trick: public
                before = states[ply - 1]
                played = {cards.name(c) for c in before.trick}
                played.add(cards.name(row["moves"][ply - 1][1] - CARD_OFFSET)
                           if row["moves"][ply - 1][1] >= CARD_OFFSET else "")
                assert set(_strings(m["event"])) & names <= played, (person.name, ply)
            if seat < 4:
                assert m["seat"] == seat
                assert m["view"] == state.view(seat).to_dict()
                assert [a for a, _ in m["legal"]] == (
                    state.legal_actions() if state.current_player == seat else [])
            else:
                assert m["seat"] is None and m["view"]["hand"] == [] and m["legal"] == []
            checked += 1
    assert checked > 4 * 2 * 52
