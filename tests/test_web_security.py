"""The web table against an attacker: no request loads code, every bad request gets a
4xx and changes nothing (in memory and in the database, SQLite and PostgreSQL alike),
bodies are bounded, wrong passwords are throttled, and no websocket message, however
malformed, drops the connection."""

from __future__ import annotations

import json
import time

import pytest
from starlette.testclient import TestClient

from cardrl.web.app import MAX_BODY, SIGNIN_PER_ADDRESS, SIGNIN_PER_NAME, SIGNIN_WINDOW, create_app
from cardrl.web.db import Store
from cardrl.web.testing import postgres_url
from tests.web_util import Clock

SOON = time.time() + 3600  # a start time the schedule accepts


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    """A fresh database of each kind (PostgreSQL: a throwaway cluster, never skipped)."""
    return f"sqlite:///{tmp_path / 'web.db'}" if request.param == "sqlite" else postgres_url()


def signup(http: TestClient, name: str) -> dict:
    res = http.post("/api/signup", json={"name": name, "password": "password123"})
    assert res.status_code == 200, res.text
    cookie = {"cookie": f"cardrl_session={res.cookies['cardrl_session']}"}
    http.cookies.clear()
    return cookie


def memory(app) -> list:
    """What the server holds in memory about its tables."""
    lobby = app.state.lobby
    return [(t.id, t.status, t.ply, t.fill_at, json.dumps(t.result), t.bot_spec,
             [(s.user_id, s.bot_spec, s.arrived, s.away) for s in t.seats])
            for t in sorted(lobby.tables.values(), key=lambda t: t.id)]


def everything(app) -> tuple:
    return memory(app), app.state.lobby.store.dump()


def settled(app) -> tuple:
    """``everything`` once the bots are done and nothing waits to be stored (PostgreSQL:
    moves and row writes are stored in database lanes, a moment after they are made)."""
    lobby = app.state.lobby
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and (
            any(t.bot_to_move() is not None or t.pending is not None
                for t in list(lobby.tables.values()))
            or (lobby.lanes is not None and lobby.lanes.pending())):
        time.sleep(0.02)
    return everything(app)


def marker_bot(tmp_path):
    """A bot file that leaves a marker when imported, and a path that does not exist, of
    the same length (an error names a spec only up to 80 characters: the two must read
    alike whatever the length of the temporary folder)."""
    marker = tmp_path / "imported"
    bot = tmp_path / "evil.py"
    bot.write_text("from pathlib import Path\n"
                   f"Path({str(marker)!r}).write_text('ran')\n"
                   "from cardrl.agents.base import RandomBot as Bot\n")
    (tmp_path / "evil.onnx").write_bytes(b"not a network")
    return marker, str(bot), str(tmp_path / "gone.py")


def test_a_file_named_as_a_bot_is_never_imported(tmp_path):
    marker, bot, missing = marker_bot(tmp_path)
    app = create_app(f"sqlite:///{tmp_path / 'web.db'}", password_cost=2**10)
    with TestClient(app) as http:
        me = signup(http, "mallory")
        signup(http, "victim")
        tries = []
        for spec in (bot, missing, bot + ":x=1", str(tmp_path / "evil.onnx"),
                     "checkpoint:../" + bot, "checkpoint:" + str(tmp_path / "evil.onnx"),
                     "checkpoint:evil.onnx", "spades/expert:bot=" + bot):
            tries += [
                ("/api/tables", {"game": "spades", "seats": ["me", f"bot:{spec}", "open",
                                                             "open"]}),
                ("/api/quickmatch", {"game": "spades", "bot": spec, "fill_after": 0}),
                ("/api/schedule", {"game": "spades", "starts_at": SOON, "bot": spec,
                                   "players": ["mallory", "victim", "victim2", "x"]}),
                ("/api/schedule", {"game": "spades", "starts_at": SOON,
                                   "players": ["mallory", f"bot:{spec}", "bot:random",
                                               "bot:random"]}),
            ]
        before = everything(app)
        answers = {}
        for path, body in tries:
            res = http.post(path, json=body, headers=me)
            assert res.status_code == 400, (path, body, res.text)
            assert "not offered for spades" in res.json()["error"]
            answers.setdefault(path, set()).add(
                res.json()["error"].replace(bot, "X").replace(missing, "X"))
        assert not marker.exists(), "the server imported a file a request named"
        assert everything(app) == before
        # the answer for an existing file and for a missing one differ in nothing else
        for path, body in tries[:2]:
            texts = []
            for spec in (bot, missing):
                b = json.loads(json.dumps(body).replace(bot, spec))
                texts.append(http.post(path, json=b, headers=me).json()["error"]
                             .replace(spec, "X"))
            assert texts[0] == texts[1]
    assert not marker.exists()


def test_a_bot_path_in_an_old_database_is_never_imported(tmp_path):
    """A table stored with a path for a bot (as the old server let a request do) is not
    resumed: nothing is imported, the row stays as it was, and opening it is refused."""
    marker, bot, _ = marker_bot(tmp_path)
    url = f"sqlite:///{tmp_path / 'web.db'}"
    store = Store(url)
    ann = store.create_user("ann", "x", 1.0)
    table = store.create_table(game="spades", preset="killer", rules={}, seed=1, kind="custom",
                               status="playing", host=ann, created=1.0, starts_at=None,
                               absent=None, bot_spec=None, fill_at=None,
                               seats=[(ann, None), (None, bot), (None, bot), (None, bot)])
    before = store.dump()
    store.close()
    app = create_app(url, password_cost=2**10)
    with TestClient(app) as http:
        assert app.state.lobby.tables == {}
        bob = signup(http, "bob")
        with http.websocket_connect("/ws", headers=bob) as ws:
            ws.send_text(json.dumps({"type": "join", "table": table}))
            answer = ws.receive_json()
            assert answer["type"] == "error" and "cannot be played here" in answer["error"]
        res = http.post(f"/api/tables/{table}/sit", json={}, headers=bob)
        assert res.status_code == 400
    assert not marker.exists()
    store = Store(url)
    after = store.dump()
    store.close()
    assert after["game_tables"] == before["game_tables"] and after["seats"] == before["seats"]


def bad_requests(table: int, playing: int) -> list[tuple[str, object, int]]:
    """(path, body, status): each is refused whole."""
    big = 10 ** 21
    deep = "[" * 2000 + "]" * 2000
    return [
        ("/api/tables", {"game": ["spades"]}, 400),
        ("/api/tables", {"game": {"x": 1}}, 400),
        ("/api/tables", {"game": "spades", "preset": ["killer"]}, 400),
        ("/api/tables", {"game": "spades", "rules": {"target": -5}}, 400),
        ("/api/tables", {"game": "spades", "rules": {"target": big}}, 400),
        ("/api/tables", {"game": "spades", "rules": {"target": 1.5}}, 400),
        ("/api/tables", {"game": "spades", "rules": {"max_hands": True}}, 400),
        ("/api/tables", {"game": "spades", "rules": {"jokers": [1]}}, 400),
        ("/api/tables", {"game": "spades", "rules": {"__class__": 1}}, 400),
        ("/api/tables", {"game": "spades", "rules": "x"}, 400),
        ("/api/tables", {"game": "spades", "seats": "me"}, 400),
        ("/api/tables", {"game": "spades", "seats": ["me", {"a": 1}, "open", "open"]}, 400),
        ("/api/tables", {"game": "blind_auction", "preset": "3p", "seats": ["me", "open"]},
         400),
        ("/api/tables", {"game": "blind_auction", "seats": [
            "me", "bot:blind_auction/equilibrium"]}, 400),
        ("/api/tables", deep, 400),
        ("/api/tables", "not json", 400),
        ("/api/tables", [1, 2], 400),
        ("/api/quickmatch", {"game": "spades", "fill_after": "soon"}, 400),
        ("/api/quickmatch", {"game": "spades", "fill_after": float("inf")}, 400),
        ("/api/quickmatch", {"game": "spades", "bot": 7}, 400),
        ("/api/schedule", {"game": "spades", "starts_at": big, "players": []}, 400),
        ("/api/schedule", {"game": "spades", "starts_at": SOON, "players": {"a": 1}}, 400),
        ("/api/schedule", {"game": "spades", "starts_at": SOON, "absent": [],
                           "players": ["ann", "bob", "bot:random", "bot:random"]}, 400),
        ("/api/schedule", {"game": "spades", "starts_at": SOON,
                           "players": ["ann", "x" * 5000, "bot:random", "bot:random"]}, 400),
        (f"/api/tables/{big}/sit", {}, 404),
        (f"/api/tables/{big}/stand", {}, 404),
        (f"/api/tables/{big}/again", {}, 404),
        ("/api/tables/0/sit", {}, 404),
        (f"/api/tables/{table}/sit", {"seat": 1.0}, 400),
        (f"/api/tables/{table}/sit", {"seat": True}, 400),
        (f"/api/tables/{table}/sit", {"seat": "1"}, 400),
        (f"/api/tables/{table}/sit", {"seat": -1}, 400),
        (f"/api/tables/{table}/sit", {"seat": big}, 400),
        (f"/api/tables/{table}/sit", {"seat": 0}, 400),
        (f"/api/tables/{playing}/sit", {}, 400),
        (f"/api/tables/{playing}/stand", {}, 400),
        (f"/api/tables/{playing}/again", {}, 400),
        ("/api/bots", {"game": "spades", "rules": {"target": -1}}, 400),
    ]


def test_every_bad_request_gets_a_4xx_and_changes_nothing(db_url):
    app = create_app(db_url, password_cost=2**10)
    with TestClient(app) as http:
        ann, bob = signup(http, "ann"), signup(http, "bob")
        table = http.post("/api/tables", json={"game": "spades"}, headers=ann).json()["table"]
        playing = http.post("/api/tables", json={"game": "sevens", "seats": [
            "me", "bot:random", "bot:random", "bot:random"]}, headers=ann).json()["table"]
        cases = bad_requests(table, playing)
        before = settled(app)
        for path, body, status in cases:
            data = body if isinstance(body, str) else json.dumps(body)
            res = http.post(path, content=data, headers={**bob, "content-type":
                                                         "application/json"})
            assert res.status_code == status, (path, str(body)[:80], res.text)
            assert res.json()["error"], (path, body)
            assert everything(app) == before, (path, str(body)[:80])
        # not JSON at all, and a cross-site form
        for headers in ({}, {"content-type": "application/x-www-form-urlencoded"}):
            res = http.post("/api/tables", content=b"game=spades", headers={**bob, **headers})
            assert res.status_code == 400 and "application/json" in res.json()["error"]
        assert everything(app) == before
        # a good request still works afterwards, and is stored
        res = http.post(f"/api/tables/{table}/sit", json={"seat": 1}, headers=bob)
        assert res.status_code == 200
        assert app.state.lobby.store.table(table)["seats"][1]["user_id"] is not None


def test_a_request_body_has_a_size_limit(tmp_path):
    app = create_app(f"sqlite:///{tmp_path / 'web.db'}", password_cost=2**10)
    with TestClient(app) as http:
        before = app.state.lobby.store.dump()
        huge = b'{"name": "' + b"a" * (50 << 20) + b'", "password": "password123"}'
        res = http.post("/api/signin", content=huge, headers={"content-type":
                                                              "application/json"})
        assert res.status_code == 413 and str(MAX_BODY) in res.json()["error"]
        chunks = (b'{"name": "' if i == 0 else b"a" * 4096 for i in range(100))  # no length
        res = http.post("/api/signup", content=chunks,
                        headers={"content-type": "application/json"})
        assert res.status_code == 413
        assert app.state.lobby.store.dump() == before
        ok = http.post("/api/signup", json={"name": "ann", "password": "p" * 200})
        assert ok.status_code == 200


def test_wrong_passwords_are_throttled_per_name_and_per_address(tmp_path):
    clock = Clock()
    app = create_app(f"sqlite:///{tmp_path / 'web.db'}", password_cost=2**10, clock=clock)
    with TestClient(app) as http:
        for name in ("alice", "bob"):
            assert http.post("/api/signup", json={"name": name, "password": "right-pass"}) \
                .status_code == 200
        http.cookies.clear()

        def signin(name, password="wrong-pass"):
            return http.post("/api/signin", json={"name": name, "password": password})

        for _ in range(SIGNIN_PER_NAME):
            assert signin("alice").status_code == 401
        refused = signin("alice", "right-pass")  # even the right password must wait
        assert refused.status_code == 429 and "try again" in refused.json()["error"]
        assert 0 < int(refused.headers["retry-after"]) <= SIGNIN_WINDOW
        assert "cardrl_session" not in refused.cookies
        assert signin("bob", "right-pass").status_code == 200  # another name is not held up
        clock.now += SIGNIN_WINDOW + 1
        assert signin("alice", "right-pass").status_code == 200
        # one address trying many names is held up too
        for i in range(SIGNIN_PER_ADDRESS):
            assert signin(f"user{i}").status_code == 401
        assert signin("bob", "right-pass").status_code == 429


def test_malformed_websocket_messages_are_answered_and_the_socket_stays(tmp_path):
    app = create_app(f"sqlite:///{tmp_path / 'web.db'}", password_cost=2**10)
    with TestClient(app) as http:
        ann = signup(http, "ann")
        table = http.post("/api/tables", json={"game": "sevens", "seats": [
            "me", "bot:random", "bot:random", "bot:random"]}, headers=ann).json()["table"]
        big = 10 ** 21
        cases = [
            (f'{{"type": "join", "table": {big}}}', "'table' must be an integer"),
            ('{"type": "join", "table": -1}', "no table -1"),
            ('{"type": "join", "table": 0}', "no table 0"),
            (f'{{"type": "move", "table": {big}, "action": 1}}', "'table' must be"),
            (f'{{"type": "move", "table": {table}, "action": {big}}}', "'action' must be"),
            (f'{{"type": "move", "table": {table}, "action": 1, "ply": {big}}}',
             "'ply' must be"),
            ('{"type": "back", "table": 99}', "no table 99"),
            ("[" * 2000 + "]" * 2000, "nested too deeply"),
            ('{"type": "ping", "id": ' + "[" * 1500 + "]" * 1500 + "}", "nested too deeply"),
            ("\udcff", "malformed"),
        ]
        with http.websocket_connect("/ws", headers=ann) as ws:
            ws.send_text(json.dumps({"type": "join", "table": table}))
            first = ws.receive_json()
            assert first["type"] == "table" and first["seat"] == 0
            while first["legal"] == []:  # bots before the person
                first = ws.receive_json()
            before = everything(app)
            for text, words in cases:
                try:
                    ws.send_text(text)
                except UnicodeEncodeError:
                    ws.send_bytes(text.encode("utf-8", "surrogatepass"))
                answer = ws.receive_json()
                assert answer["type"] == "error" and words in answer["error"], (text[:60],
                                                                                 answer)
                ws.send_text('{"type": "ping", "id": 1}')
                assert ws.receive_json() == {"type": "pong", "id": 1}  # still open
                assert everything(app) == before


def test_a_bad_public_url_is_refused_by_name(tmp_path):
    """``--public-url`` names the origins whose pages may open sockets: only a bare
    http(s)://host[:port] is taken."""
    url = f"sqlite:///{tmp_path / 'web.db'}"
    for bad in ("ftp://cards.example", "http://cards.example/path", "http://a:80/",
                "cards.example:8001", "http://evil.example\nx", 8001):
        with pytest.raises(ValueError, match="public URL") as err:
            create_app(url, public_url=bad)
        assert repr(bad) in str(err.value)
    create_app(url, public_url="https://cards.example:8001")  # taken
