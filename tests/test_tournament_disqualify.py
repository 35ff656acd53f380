"""Disqualification: broken bots (raise, illegal, too slow, unloadable) leave, the rest is ranked;
a killed tournament resumes from its logs to the same table; bot files and their hooks."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cardrl import agents
from cardrl.agents.base import Bot
from cardrl.eval.config import ConfigError, TournamentConfig
from cardrl.eval.play import BotError
from cardrl.eval.tournament import main, run_tournament
from tests.team_bots import ILLEGAL, KEEPER, RAISER, SLEEPER, write_bots

ROOT = Path(__file__).resolve().parent.parent

GOOD = ("sevens/lookahead", "sevens/greedy", "random")


def lineup(tmp_path: Path) -> tuple[str, ...]:
    p = write_bots(tmp_path, keeper=KEEPER, raiser=RAISER, illegal=ILLEGAL, sleeper=SLEEPER)
    # the broken ones first, so they sit at the first tables
    return (p["raiser"], p["sleeper"], *GOOD, p["illegal"], p["keeper"])


def seven_bot_config(bots, **kw) -> TournamentConfig:
    """Bot files run in their own process, timed; the registered bots play in this one."""
    return TournamentConfig(game="sevens", bots=tuple(bots), preset="random", seats=(2, 3, 4),
                            time_limit=1.0, disqualify=True, **kw)


def read_logs(out: Path) -> dict[str, dict]:
    return {p.name: json.loads(p.read_text()) for p in sorted((out / "games").glob("*.json"))}


def test_three_broken_bots_are_disqualified_with_their_reasons_and_the_rest_ranked(tmp_path):
    bots = lineup(tmp_path)
    run = run_tournament(seven_bot_config(bots), deals=6, out=tmp_path / "out")
    kinds = {d["bot"]: d["kind"] for d in run.disqualified}
    raiser, sleeper, illegal, keeper = bots[0], bots[1], bots[5], bots[6]
    assert kinds == {raiser: "raised", sleeper: "timeout", illegal: "illegal"}
    reasons = {d["bot"]: d["reason"] for d in run.summary["disqualified"]}
    assert "RuntimeError: team red forgot a case" in reasons[raiser]
    assert "time limit of 1 s" in reasons[sleeper]
    assert "illegal action" in reasons[illegal]
    assert {b["bot"] for b in run.summary["bots"]} == {*GOOD, keeper}
    games = read_logs(tmp_path / "out")
    assert len(games) == run.summary["games"] == 2 + 3 + 4 + 2 + 3 + 4
    for log in games.values():
        assert set(log["seats"]) <= {*GOOD, keeper}
        assert log["excluded"] == [0, 1, 5]
        if keeper in log["seats"]:  # its own count of the moves, reported at the end
            assert log["reported_scores"][log["seats"].index(keeper)] == len(log["actions"])
    # each failure's game is kept, with the moves up to it
    failed = sorted((tmp_path / "out" / "voided").glob("round-*/failed-*.json"))
    assert len(failed) == 3
    for path in failed:
        log = json.loads(path.read_text())
        assert log["failure"]["kind"] in ("raised", "timeout", "illegal")
    assert "disqualified (the tournament was rerun without them)" in run.text
    assert (tmp_path / "out" / "summary.txt").read_text() == run.text


def _summary(out: Path) -> str:
    return (out / "summary.txt").read_text()


def test_killing_the_tournament_process_and_rerunning_resumes_to_the_same_table(tmp_path):
    bots = lineup(tmp_path)
    deals = 12
    clean = run_tournament(seven_bot_config(bots), deals=deals, out=tmp_path / "clean")
    out = tmp_path / "killed"
    argv = [sys.executable, "-m", "cardrl.eval.tournament", "sevens", "--seats", "2-4",
            "--time-limit", "1", "--disqualify", "--bots", ",".join(bots),
            "--deals", str(deals), "--out", str(out), "--workers", "1", "--quiet"]
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:  # kill it once the final round has some games
            dq = out / "disqualified.json"
            if dq.exists() and len(json.loads(dq.read_text())) == 3 \
                    and len(list((out / "games").glob("*.json"))) >= 5:
                break
            time.sleep(0.005)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert not (out / "summary.txt").exists(), "the run finished before the kill"
    finished = len(list((out / "games").glob("*.json")))
    assert 5 <= finished < clean.summary["games"]
    resumed = run_tournament(seven_bot_config(bots), deals=deals, out=out)
    assert resumed.loaded == finished and resumed.played == clean.summary["games"] - finished
    assert resumed.summary == clean.summary and _summary(out) == clean.text
    assert read_logs(out) == read_logs(tmp_path / "clean")


def test_a_bot_file_that_fails_to_load_is_disqualified_before_any_game(tmp_path):
    p = write_bots(tmp_path, broken="import no_such_module_at_all\n",
                   empty="x = 1\n", crasher="import os\nos._exit(3)\n")
    cfg = TournamentConfig(game="sevens", bots=(p["broken"], "sevens/greedy", p["empty"],
                                                "random", p["crasher"]), preset="random",
                           disqualify=True)
    run = run_tournament(cfg, deals=2, out=tmp_path / "out")
    reasons = {d["bot"]: d for d in run.disqualified}
    assert set(reasons) == {p["broken"], p["empty"], p["crasher"]}
    assert all(d["kind"] == "load" and d["deal"] is None for d in reasons.values())
    assert "ModuleNotFoundError" in reasons[p["broken"]]["reason"]
    assert "exactly one Bot subclass" in reasons[p["empty"]]["reason"]
    assert "code 3" in reasons[p["crasher"]]["reason"]
    assert not (tmp_path / "out" / "voided").exists()  # nothing was played before
    # the two left play the duplicate format at a 2-player table
    assert {b["bot"] for b in run.summary["bots"]} == {"sevens/greedy", "random"}
    assert run.summary["games"] == 4


def test_without_disqualify_a_broken_file_bot_stops_the_run_naming_it(tmp_path):
    p = write_bots(tmp_path, raiser=RAISER)
    cfg = TournamentConfig(game="sevens", bots=(p["raiser"], "random"), preset="random")
    with pytest.raises(BotError, match="team red forgot a case") as err:
        run_tournament(cfg, deals=1, out=tmp_path / "out")
    assert err.value.kind == "raised" and err.value.bot == p["raiser"]


def test_isolated_registered_bots_are_timed_in_their_own_process(tmp_path):
    cfg = TournamentConfig(game="sevens", bots=("sevens/greedy", "random"), preset="random",
                           isolate=True, time_limit=1e-6)
    with pytest.raises(BotError, match="did not answer within the time limit") as err:
        run_tournament(cfg, deals=1, out=tmp_path / "out")
    assert err.value.kind == "timeout" and err.value.seat == 0


class IllegalSpadesBot(Bot):
    name = "test/illegal-spades"

    def act(self, view, legal_actions):
        return -1


def test_disqualification_works_for_any_game_in_process(tmp_path):
    with agents.registered({"test/illegal-spades": (IllegalSpadesBot, "")}):
        bots = ("spades/count-bid", "test/illegal-spades", "random", "spades/spade-count", "random")
        cfg = TournamentConfig(game="spades", bots=bots, preset="killer", max_hands=1, seats=(4,),
                               disqualify=True)
        run = run_tournament(cfg, deals=2, out=tmp_path / "out")
        assert [(d["bot"], d["kind"]) for d in run.disqualified] == [("test/illegal-spades",
                                                                       "illegal")]
        assert run.summary["games"] == 8
        for log in read_logs(tmp_path / "out").values():
            assert "test/illegal-spades" not in log["seats"] and log["excluded"] == [1]
        # four bots cannot lose one more: the rerun would have no table
        four = TournamentConfig(game="spades", bots=bots[:4], preset="killer", max_hands=1,
                                disqualify=True)
        with pytest.raises(ConfigError, match="3 bots are left"):
            run_tournament(four, deals=1, out=tmp_path / "four")


def test_cli_runs_a_file_bot_tournament_and_prints_disqualifications(tmp_path, capsys):
    p = write_bots(tmp_path, keeper=KEEPER, illegal=ILLEGAL)
    code = main(["sevens", "--seats", "2-3", "--disqualify", "--bots",
                 f"sevens/greedy,{p['keeper']},{p['illegal']},random", "--deals", "3",
                 "--out", str(tmp_path / "out"), "--workers", "2", "--quiet"])
    out = capsys.readouterr().out
    assert code == 0
    assert f"{p['illegal']}: illegal" in out and "tables of 2-3 seats drawn from 4 bots" in out
    assert p["keeper"] in out.split("disqualified")[0]


@pytest.mark.parametrize("argv, bad", [
    (["--seats", "x"], "'x'"),
    (["--seats", "5"], "5 seats"),
    (["--seats", "1"], "1"),
    (["--time-limit", "0"], "0"),
])
def test_cli_bad_seats_and_time_limit_exit_2(tmp_path, capsys, argv, bad):
    code = main(["sevens", "--bots", "random,random,sevens/greedy,sevens/lookahead", *argv,
                 "--out", str(tmp_path / "t"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and bad in err and err.startswith("error:")
    assert not (tmp_path / "t").exists()


def test_a_missing_bot_file_is_a_config_error_before_playing(tmp_path):
    cfg = TournamentConfig(game="sevens", bots=(str(tmp_path / "missing.py"), "random"),
                           preset="random", disqualify=True)
    with pytest.raises(ConfigError, match="missing.py' does not exist"):
        run_tournament(cfg, deals=1, out=tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_bot_files_load_by_factory_instance_or_single_class(tmp_path):
    p = write_bots(
        tmp_path,
        factory="from cardrl.agents.base import RandomBot\n"
                "def make_bot(depth=1):\n    b = RandomBot()\n    b.depth = depth\n    return b\n",
        instance="from cardrl.agents.base import RandomBot\nBOT = RandomBot()\n",
        single="from cardrl.agents.base import Bot, RandomBot\n"
               "class Mine(Bot):\n    def __init__(self, bias=0):\n        super().__init__()\n"
               "        self.bias = bias\n    def act(self, view, legal):\n"
               "        return legal[0]\n",
        two="from cardrl.agents.base import Bot\nclass A(Bot):\n    pass\n"
            "class B(Bot):\n    pass\n",
        notabot="def make_bot():\n    return 42\n",
    )
    bot = agents.make(p["factory"] + ":depth=3")
    assert bot.depth == 3 and bot.name == p["factory"] + ":depth=3"
    assert agents.make(p["instance"]).act(None, [7]) == 7
    assert agents.make(p["single"] + ":bias=2").bias == 2
    with pytest.raises(ValueError, match=r"exactly one Bot subclass; found \['A', 'B'\]"):
        agents.make(p["two"])
    with pytest.raises(ValueError, match="made 42, which is not an agents.Bot"):
        agents.make(p["notabot"])
    with pytest.raises(ValueError, match="takes no options"):
        agents.make(p["instance"] + ":x=1")
    with pytest.raises(ValueError, match="does not exist"):
        agents.make(str(tmp_path / "nope.py"))


@pytest.mark.parametrize("game,flag,expect", [
    ("sevens", None, True),  # the Sevens seed's tournament disqualifies and reruns
    ("sevens", "--no-disqualify", False),
    ("spades", None, False),  # elsewhere a failing bot stops the run unless asked
    ("spades", "--disqualify", True),
])
def test_the_cli_disqualifies_by_the_games_rule_unless_told(game, flag, expect):
    from cardrl.eval.tournament import build_parser, config_from_args

    bots = "random,random" if game == "sevens" else "random,random,random,random"
    argv = [game, "--bots", bots] + ([flag] if flag else [])
    assert config_from_args(build_parser().parse_args(argv)).disqualify is expect


def test_a_sevens_cli_tournament_disqualifies_a_raising_bot_without_the_flag(tmp_path):
    p = write_bots(tmp_path, raiser=RAISER)
    code = main(["sevens", "--bots", f"{p['raiser']},sevens/greedy,random", "--deals", "2",
                 "--out", str(tmp_path / "out"), "--workers", "1", "--quiet"])
    assert code == 0
    dq = json.loads((tmp_path / "out" / "disqualified.json").read_text())
    assert [d["bot"] for d in dq] == [p["raiser"]]
