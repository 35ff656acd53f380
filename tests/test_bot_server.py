"""The bot server: JSON-line views in, legal actions out; bad requests get an error line and
the server keeps serving; any registry bot or exported file can be served."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cardrl.agents.server import answer, make_bot
from cardrl.envs.games import game_names, get_game
from cardrl.train.ppo import export_untrained

ROOT = Path(__file__).resolve().parents[1]


def requests(game: str, count: int, seed: int = 0) -> list[tuple[dict, list[int]]]:
    """(view dict, legal) at the first ``count`` decisions of a random game."""
    g = get_game(game)
    state = g.new_state(g.get_rules(g.presets[0]), seed)
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count and not state.is_over:
        legal = state.legal_actions()
        out.append((json.loads(json.dumps(state.view(state.current_player).to_dict())), legal))
        state.apply(int(rng.choice(legal)))
    return out


def serve(bot: str, lines: list[str]) -> list[dict]:
    """Run the server process on ``lines``; its replies, one per non-blank line."""
    out = subprocess.run([sys.executable, "-m", "cardrl.agents.server", bot], cwd=ROOT, timeout=120,
                         input="\n".join(lines) + "\n", capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_server_answers_views_with_legal_actions_and_survives_bad_lines():
    good = requests("spades", 30)
    bad = [
        "this is not json",
        json.dumps({"view": {"game": "spades"}, "legal": [1]}),  # a view missing its fields
        json.dumps({"view": good[0][0], "legal": []}),
        json.dumps({"view": good[0][0], "legal": [1, "2"]}),
        json.dumps({"view": good[0][0], "legal": [500]}),
        json.dumps({"view": {**good[0][0], "game": "chess"}, "legal": [1]}),
        json.dumps({"legal": [1]}),
        json.dumps({"reset": "soon"}),
    ]
    lines = [json.dumps({"view": v, "legal": legal}) for v, legal in good[:15]] + bad + [
        "", json.dumps({"reset": 4})] + [json.dumps({"view": v, "legal": legal})
                                         for v, legal in good[15:]]
    replies = serve("spades/expert", lines)
    assert len(replies) == 30 + len(bad) + 1
    actions = replies[:15] + replies[15 + len(bad) + 1:]
    for reply, (_, legal) in zip(actions, good, strict=True):
        assert reply["action"] in legal
        assert reply["name"] == get_game("spades").action_name(reply["action"])
    errors = [r["error"] for r in replies[15:15 + len(bad)]]
    assert errors[0].startswith("not JSON")
    assert errors[1].startswith("bad spades view")
    assert "non-empty list" in errors[2] and "'2'" in errors[3]
    assert "[500] are outside the spades action table 0..67" in errors[4]
    assert "unknown game 'chess'" in errors[5]
    assert '{"view": {...}, "legal": [...]}' in errors[6]
    assert "reset seed must be an int" in errors[7]
    assert replies[15 + len(bad)] == {"ok": True}


def test_server_plays_what_the_bot_plays():
    """In-process answers equal the bot's own choice on the parsed view."""
    bot, twin = make_bot("spades/count-bid"), make_bot("spades/count-bid")
    game = get_game("spades")
    for view, legal in requests("spades", 40, seed=3):
        reply = answer(bot, json.dumps({"view": view, "legal": legal}))
        assert reply["action"] == twin.act(game.view_from_dict(view), legal)


def test_server_serves_an_exported_bot_file(tmp_path):
    path = export_untrained("spades", tmp_path / "b.onnx")
    good = requests("spades", 10, seed=1)
    replies = serve(str(path), [json.dumps({"view": v, "legal": legal}) for v, legal in good])
    assert [r["action"] in legal for r, (_, legal) in zip(replies, good, strict=True)] == \
        [True] * 10


@pytest.mark.parametrize("game", game_names())
def test_random_bot_serves_every_game(game):
    good = requests(game, 5)
    replies = serve("random", [json.dumps({"view": v, "legal": legal}) for v, legal in good])
    assert all(r["action"] in legal for r, (_, legal) in zip(replies, good, strict=True))


def test_a_bot_of_another_game_refuses_the_view():
    other = [g for g in game_names() if g != "spades"]
    view, legal = requests(other[0], 1)[0]
    reply = answer(make_bot("spades/expert"), json.dumps({"view": view, "legal": legal}))
    assert reply == {"error": f"this server's bot plays spades, the view is {other[0]}"}


def test_unknown_bot_exits_with_a_clear_error():
    out = subprocess.run([sys.executable, "-m", "cardrl.agents.server", "nobody/bot"], cwd=ROOT,
                         input="", capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "unknown bot 'nobody/bot'" in out.stderr


def test_example_request_is_answerable():
    out = subprocess.run([sys.executable, "-m", "cardrl.agents.server", "--example", "spades"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    request = out.stdout.splitlines()[0]
    reply = answer(make_bot("spades/expert"), request)
    assert reply["action"] in json.loads(request)["legal"]


class Recorder:
    """A bot that logs every call it gets (the ``calls`` protocol's hooks)."""

    game = "spades"
    name = "recorder"

    def __init__(self) -> None:
        self.log: list = []

    def reset(self, seed=None):
        self.log.append(["reset", seed])

    def start_game(self, seat, num_players, parameters):
        self.log.append(["start_game", seat, num_players, parameters])

    def observe_move(self, seat, action):
        self.log.append(["observe_move", seat, action])

    def act(self, view, legal):
        self.log.append(["act", view.seat, legal])
        if legal == [13]:
            raise RuntimeError("no plan for a lone 13")
        return legal[-1]

    def report_score(self):
        return np.float64(2.5)  # numpy results come back as JSON numbers


def test_calls_reach_the_bot_hooks_in_order_and_return_the_last_result():
    bot = Recorder()
    view, legal = requests("spades", 1)[0]
    calls = [["reset", 7], ["start_game", 0, 4, {"preset": "killer"}], ["observe_move", 3, 2],
             ["act", view, legal]]
    assert answer(bot, json.dumps({"calls": calls})) == {"ok": legal[-1]}
    assert bot.log == [["reset", 7], ["start_game", 0, 4, {"preset": "killer"}],
                       ["observe_move", 3, 2], ["act", view["seat"], legal]]
    assert answer(bot, json.dumps({"calls": [["report_score"]]})) == {"ok": 2.5}


def test_a_failing_call_answers_its_error_and_traceback_and_stops_the_batch():
    bot = Recorder()
    view, _ = requests("spades", 1)[0]
    reply = answer(bot, json.dumps({"calls": [["act", view, [13]], ["observe_move", 1, 1]]}))
    assert reply["error"] == "RuntimeError: no plan for a lone 13"
    assert "in act" in reply["traceback"]
    assert bot.log == [["act", view["seat"], [13]]]  # the call after the failure never ran
    assert "unknown call 'fly'" in answer(bot, json.dumps({"calls": [["fly"]]}))["error"]
    assert "calls must be a list" in answer(bot, json.dumps({"calls": "act"}))["error"]


def test_ready_line_says_whether_the_bot_was_built():
    def first_line(spec):
        out = subprocess.run([sys.executable, "-m", "cardrl.agents.server", spec, "--ready"],
                             cwd=ROOT,
                             input="", capture_output=True, text=True, timeout=60)
        return out.returncode, json.loads(out.stdout.splitlines()[0])

    assert first_line("spades/expert") == (0, {"ok": {"name": "spades/expert",
                                                       "game": "spades"}})
    code, reply = first_line("nobody/bot")
    assert code == 2 and "unknown bot 'nobody/bot'" in reply["error"]
