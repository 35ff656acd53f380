"""The bot arena: a good upload is listed, plays duplicate matches and is ranked; it is a
seat option at tables; its owner withdraws it. Hostile uploads are refused with a 4xx
naming the reason and change nothing (no row, no file), on SQLite and PostgreSQL; a bot
that fails in a match is disqualified with the reason shown to its owner; uploads and
results survive ``kill -9`` of the server."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import replace

import pytest
from starlette.testclient import TestClient

from cardrl.eval.bot_process import ProcessBot, ProcessBotError
from cardrl.web.app import create_app
from cardrl.web.arena import ArenaSettings
from cardrl.web.arena_check import Limits, RefusedUploadError, check_card, check_model
from cardrl.web.testing import ServerProcess, get, post, postgres_url
from cardrl.web.testing import signup as signup_http
from tests import arena_util as nets
from tests.test_web_security import everything, signup

BOARD = "/api/arena/leaderboard?game=blind_auction&preset=2p&players=2"
MAX_BYTES = 64 * 1024


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    return f"sqlite:///{tmp_path / 'web.db'}" if request.param == "sqlite" else postgres_url()


def arena_app(db_url: str, folder, **changes):
    settings = replace(ArenaSettings(folder=folder, deals=1, limits=Limits(max_bytes=MAX_BYTES)),
                       **changes)
    return create_app(db_url, password_cost=2**10, arena=settings)


def wait_for(http: TestClient, path: str, headers: dict, done, limit: float = 90.0) -> dict:
    deadline = time.monotonic() + limit
    while True:
        answer = http.get(path, headers=headers).json()
        if done(answer):
            return answer
        assert time.monotonic() < deadline, answer
        time.sleep(0.3)


def hostile_uploads(tmp_path) -> list[tuple[str, object, int, str]]:
    """(what, request body, status, words the refusal names)."""
    secret = tmp_path / "secret.bin"
    secret.write_bytes(b"\0" * nets.OBS * nets.ACTIONS * 4)
    card = nets.CARD
    return [
        ("oversized", nets.upload("big", b"\0" * (MAX_BYTES + 1)), 413, "limit"),
        ("malformed bytes", nets.upload("junk", b"not a network at all"), 400,
         "not an ONNX model"),
        ("malformed base64", {**nets.upload("b64", nets.good()), "model": "%%%"}, 400,
         "base64"),
        ("no card", {**nets.upload("nocard", nets.good()), "card": "x.json"}, 400, "card"),
        ("another game", nets.upload("g", nets.good(), {**card, "game": "chess"}), 400,
         "'chess'"),
        ("another preset", nets.upload("p", nets.good(), {**card, "preset": "9p"}), 400,
         "preset '9p'"),
        ("old observation", nets.upload("o", nets.good(), {
            **card, "observation": {"kind": "infostate", "version": 0}}), 400, "version 0"),
        ("unknown observation", nets.upload("o", nets.good(), {
            **card, "observation": {"kind": "../../x", "version": 1}}), 400, "kind"),
        ("wrong sizes", nets.upload("s", nets.good(), {**card, "obs_size": 7}), 400,
         "obs_size"),
        ("rule changes", nets.upload("r", nets.good(), {**card, "rule_changes": {
            "cards_per_suit": 5}}), 400, "rule changes"),
        ("bad name", nets.upload("<script>", nets.good()), 400, "name"),
        ("bad sample", nets.upload("s", nets.good(), {**card, "sample": "yes"}), 400,
         "sample"),
        ("num_players beyond the game", nets.upload("n", nets.good(), {
            **card, "rule_changes": {"num_players": 99}}), 400, "rules"),
        ("forbidden operator", nets.upload("f", nets.forbidden_op()), 400,
         "forbidden operator 'RandomUniformLike'"),
        ("custom domain", nets.upload("c", nets.custom_domain()), 400, "custom operator"),
        ("external data path", nets.upload("e", nets.external_data(str(secret))), 400,
         "external data"),
        ("external data beside", nets.upload("e", nets.external_data("../../etc/passwd")),
         400, "external data"),
        ("wrong output shape", nets.upload("w", nets.wrong_shape()), 400, "[batch, 13]"),
        ("NaN outputs", nets.upload("n", nets.nan_output()), 400, "non-finite"),
        ("out-of-range choice", nets.upload("u", nets.unmasked()), 400, "not a legal action"),
        ("slow", nets.upload("slow", nets.slow(3000)), 400, "slow"),  # far past the limit anywhere
        ("memory bomb", nets.upload("m", nets.memory_bomb(30000)), 400,
         "failed on a sample view"),  # 3.6 GB past the check's 1 GiB
    ]


RUN_IN_THE_CHILD = {"wrong output shape", "NaN outputs", "out-of-range choice", "slow",
                    "memory bomb"}  # refused by running the network, seconds each


def test_hostile_uploads_are_refused_by_name_and_change_nothing(db_url, tmp_path):
    folder = tmp_path / "arena"
    app = arena_app(db_url, folder, matches=False)
    cases = hostile_uploads(tmp_path)
    if db_url.startswith("postgresql"):  # the child's checks are the same whatever the store
        cases = [c for c in cases if c[0] not in RUN_IN_THE_CHILD or c[0] == "NaN outputs"]
    with TestClient(app) as http:
        eve = signup(http, "eve")
        before = everything(app)
        for what, request, status, words in cases:
            res = http.post("/api/arena/bots", json=request, headers=eve)
            assert res.status_code == status, (what, res.text)
            assert words in res.json()["error"], (what, res.json()["error"])
            assert everything(app) == before, what
            assert not folder.exists() or not any(folder.iterdir()), what
        assert http.get("/api/arena/mine", headers=eve).json() == {"bots": []}
        # signed out: no upload at all; a guest: make an account first
        res = http.post("/api/arena/bots", json=nets.upload("anon", nets.good()))
        assert res.status_code == 401
        guest = http.post("/api/guest", json={})
        assert guest.status_code == 200, guest.text
        res = http.post("/api/arena/bots", json=nets.upload("guest", nets.good()))
        assert res.status_code == 403 and "account" in res.json()["error"]
        http.cookies.clear()
        before = everything(app)  # the guest's session and user are new
        # a body past the upload limit is cut off while it is read
        res = http.post("/api/arena/bots", content=b"x" * (MAX_BYTES * 2 + 200_000),
                        headers={**eve, "content-type": "application/json"})
        assert res.status_code == 413
        assert "ONNX file is larger than the limit of 0.0625 MiB" in res.json()["error"]
        assert everything(app) == before


def test_the_check_passes_where_no_game_kernel_is_cached(tmp_path, monkeypatch):
    """On a fresh install no game's compiled kernels are on disk, and the check's child
    may write no file: it gets the samples encoded and loads no game (a child that
    compiled a kernel there crashed, and every upload was refused)."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba-cache"))  # empty
    division = check_card(nets.CARD)
    report = asyncio.run(check_model(nets.CARD, division, nets.good(), Limits()))
    assert set(report) == {"forward_ms"} and report["forward_ms"] >= 0
    with pytest.raises(RefusedUploadError, match="non-finite"):  # and still checks
        asyncio.run(check_model(nets.CARD, division, nets.nan_output(), Limits()))


def test_an_upload_plays_is_ranked_is_a_seat_option_and_is_withdrawn(db_url, tmp_path):
    folder = tmp_path / "arena"
    app = arena_app(db_url, folder, deals=2, per_user=1, provisional=2)
    with TestClient(app) as http:
        ann, bob = signup(http, "ann"), signup(http, "bob")
        res = http.post("/api/arena/bots", json=nets.upload("Linear 1", nets.good()),
                        headers=ann)
        assert res.status_code == 200, res.text
        spec = res.json()["spec"]
        # one listed bot a person here: a second is refused before it is even checked
        rows = app.state.lobby.store.dump()["arena_bots"]
        second = http.post("/api/arena/bots", json=nets.upload("Linear 2", nets.good()),
                           headers=ann)
        assert second.status_code == 400 and "withdraw one" in second.json()["error"]
        assert app.state.lobby.store.dump()["arena_bots"] == rows
        # stored under the server's name, whatever the card's "onnx" said
        files = sorted(p.name for p in folder.iterdir()) if folder.exists() else []
        assert all(name.startswith(f"arena-{res.json()['bot']}-") for name in files)
        board = wait_for(http, BOARD, bob, lambda b: b["deals"] >= 2 and not b["playing"])
        rows = {r["bot"]: r for r in board["bots"]}
        mine = rows[spec]
        assert mine["name"] == "Linear 1 (by ann)" and mine["kind"] == "uploaded"
        assert mine["deals"] == 2 and mine["games"] == 4  # 2 deals x 2 seat rotations
        assert mine["win"]["n"] == 2 and 0 <= mine["win"]["mean"] <= 1
        assert {"rule bot", "shipped network"} <= {r["kind"] for r in board["bots"]}
        # every game is against the upload: each opponent's games are its games with it
        opponents = [r for r in board["bots"] if r["bot"] != spec and r["games"]]
        assert sum(r["games"] for r in opponents) == mine["games"]
        pairs = {(h["bot"], h["vs"]): h["mean"] for h in board["head_to_head"]}
        for r in opponents:
            assert pairs[spec, r["bot"]] + pairs[r["bot"], spec] == pytest.approx(1.0)
        # rows under 2 deals are provisional: ranked, by average place, after measured ones
        assert mine["provisional"] is False and board["provisional"] == 2
        played = [r for r in board["bots"] if r["rank"]]
        assert all(r["provisional"] == (r["deals"] < 2) for r in played)
        flags = [r["provisional"] for r in played]
        assert flags == sorted(flags), played
        for group in (False, True):
            ranks = [r["rank"]["mean"] for r in played if r["provisional"] == group]
            assert ranks == sorted(ranks)
        # anyone may sit down against it: a seat option at its game's tables
        offered = http.post("/api/bots", json={"game": "blind_auction", "preset": "2p"},
                            headers=bob).json()["bots"]
        assert spec in offered
        table = http.post("/api/tables", json={"game": "blind_auction", "preset": "2p",
                                               "seats": ["me", f"bot:{spec}"]}, headers=bob)
        assert table.status_code == 200, table.text
        # only its owner withdraws it
        res = http.post(f"/api/arena/bots/{res.json()['bot']}/withdraw", json={}, headers=bob)
        assert res.status_code == 404
        bot_id = int(spec.split(":")[1])
        res = http.post(f"/api/arena/bots/{bot_id}/withdraw", json={}, headers=ann)
        assert res.status_code == 200
        offered = http.post("/api/bots", json={"game": "blind_auction", "preset": "2p"},
                            headers=bob).json()["bots"]
        assert spec not in offered
        assert spec not in {r["bot"] for r in http.get(BOARD, headers=bob).json()["bots"]}
        assert not any(folder.glob(f"arena-{bot_id}-*"))
        status = http.get("/api/arena/mine", headers=ann).json()["bots"][0]
        assert status["status"] == "withdrawn"


@pytest.mark.parametrize("model,changes,words", [
    # the check runs it on one view only, where it is fine; in play it outputs NaN
    (nets.nan_later, {"limits": Limits(max_bytes=MAX_BYTES, views=1)}, "non-finite"),
    # fast enough for a lenient check, too slow for the matches' time per move
    (lambda: nets.slow(1500), {"limits": Limits(max_bytes=MAX_BYTES, move_seconds=30, views=2),
                               "move_seconds": 0.05}, "within the time limit of 0.05 s"),
], ids=["nan-in-play", "late-in-play"])
def test_a_bot_that_fails_in_a_match_is_disqualified_with_the_reason(tmp_path, model, changes,
                                                                      words):
    app = arena_app(f"sqlite:///{tmp_path / 'web.db'}", tmp_path / "arena", **changes)
    with TestClient(app) as http:
        mal = signup(http, "mal")
        res = http.post("/api/arena/bots", json=nets.upload("Later", model()), headers=mal)
        assert res.status_code == 200, res.text
        bots = wait_for(http, "/api/arena/mine", mal,
                        lambda a: a["bots"][0]["status"] != "listed")["bots"]
        assert bots[0]["status"] == "disqualified"
        assert words in bots[0]["reason"], bots[0]
        assert "arena-" not in bots[0]["reason"]  # the server's file names stay its own
        board = http.get(BOARD, headers=mal).json()
        assert res.json()["spec"] not in {r["bot"] for r in board["bots"]}
        assert board["games"] == 0  # its deal was voided
        assert not any((tmp_path / "arena").glob("arena-*"))


def test_uploads_and_results_survive_a_kill(tmp_path):
    args = ("--arena-dir", str(tmp_path / "arena"), "--arena-deals", "3")
    db = tmp_path / "web.db"
    with ServerProcess(db, None, *args) as server:
        cookie = signup_http(server.url, "kim")
        answer, _ = post(server.url, "/api/arena/bots", nets.upload("Kims bot", nets.good()),
                         cookie)
        spec = answer["spec"]
        deadline = time.monotonic() + 90
        while get(server.url, BOARD, cookie)["games"] < 1:
            assert time.monotonic() < deadline
            time.sleep(0.2)
        server.stop(kill=True)
        before = _games(db)
    assert before  # what was stored before the kill
    with ServerProcess(db, None, *args) as server:
        deadline = time.monotonic() + 120
        while True:
            board = get(server.url, BOARD, cookie)
            if board["deals"] >= 3 and not board["playing"]:
                break
            assert time.monotonic() < deadline, board
            time.sleep(0.3)
        row = next(r for r in board["bots"] if r["bot"] == spec)
        assert row["deals"] == 3 and row["games"] == 6
    after = _games(db)
    assert {k: v for k, v in after.items() if k in before} == before  # nothing replayed
    assert sorted(after) == sorted(set(after))


def test_a_bot_process_gets_the_memory_limit():
    """What the arena's bot processes run under: past the limit nothing even loads."""
    with pytest.raises(ProcessBotError) as err:
        ProcessBot("blind_auction/mirror", "blind_auction", 5.0, memory_limit=64 * 2**20)
    assert err.value.kind == "load"
    bot = ProcessBot("blind_auction/mirror", "blind_auction", 5.0, memory_limit=2**30)
    assert bot.alive and bot.game == "blind_auction"
    bot.close()


def _games(db) -> dict:
    import sqlite3

    with sqlite3.connect(db) as conn:
        return {(d, r): json.loads(rec)["scores"] for d, r, rec in conn.execute(
            "SELECT deal_id, rotation, record FROM arena_games")}
