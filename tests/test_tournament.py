"""Duplicate tournaments: seat rotation, shared deals, statistics, logs, resume, workers, CLI."""

from __future__ import annotations

import json
import math

import pytest

from cardrl import agents
from cardrl.agents.base import Bot
from cardrl.envs.files import write_atomic
from cardrl.envs.games import get_game
from cardrl.eval.config import ConfigError, TournamentConfig, split_bot_list
from cardrl.eval.play import BotError
from cardrl.eval.stats import average_ranks, bot_stats, head_to_head, win_shares
from cardrl.eval.tournament import main, run_tournament


class FirstLegalBot(Bot):
    """Deterministic test bot; ``tag`` only makes distinct names. Can simulate Ctrl-C."""

    name = "test/first"
    interrupt_after: int | None = None  # moves until a KeyboardInterrupt (class-wide)

    def __init__(self, tag: int = 0, seed: int | None = None) -> None:
        super().__init__(seed)

    def act(self, view, legal_actions):
        if FirstLegalBot.interrupt_after is not None:
            FirstLegalBot.interrupt_after -= 1
            if FirstLegalBot.interrupt_after < 0:
                raise KeyboardInterrupt
        return legal_actions[0]


class IllegalBot(Bot):
    name = "test/illegal"

    def act(self, view, legal_actions):
        return -1


@pytest.fixture(autouse=True)
def test_bots():
    """Register the test bots for one test only, so other tests' bot lists never see them."""
    with agents.registered({"test/first": (FirstLegalBot, ""), "test/illegal": (IllegalBot, "")}):
        yield

FOUR = ("test/first:tag=1", "random", "test/first:tag=2", "test/first:tag=3")


def small(bots=FOUR, max_hands=2, **kw) -> TournamentConfig:
    return TournamentConfig(game="spades", bots=tuple(bots), preset="killer",
                            max_hands=max_hands, **kw)


def read_logs(out):
    return {p.name: json.loads(p.read_text()) for p in sorted((out / "games").glob("*.json"))}


# ------------------------------------------------------------ duplicate format
def test_every_bot_sits_in_every_seat_once_per_deal_with_the_same_cards(tmp_path):
    cfg = small(max_hands=3)
    run_tournament(cfg, deals=3, out=tmp_path)
    games = read_logs(tmp_path)
    assert len(games) == 3 * 4
    dealt_by_deal = {}
    for deal in range(3):
        rots = [games[f"{deal:05d}-{r}.json"] for r in range(4)]
        for spec in FOUR:
            seats = [g["seats"].index(spec) for g in rots]
            assert sorted(seats) == [0, 1, 2, 3], (deal, spec, seats)
        # the deal fixes the cards of every hand, whoever sits where
        first = rots[0]["dealt_hands"]
        for g in rots[1:]:
            n = min(len(first), len(g["dealt_hands"]))
            assert n >= 1 and g["dealt_hands"][:n] == first[:n]
            assert g["seed"] == rots[0]["seed"]
        assert len({tuple(map(tuple, h)) for h in first[0]}) == 4  # 4 different hands
        dealt_by_deal[deal] = first[0]
    assert dealt_by_deal[0] != dealt_by_deal[1] != dealt_by_deal[2]


def test_logged_actions_replay_to_the_logged_result(tmp_path):
    run_tournament(small(), deals=1, out=tmp_path)
    game = get_game("spades")
    for log in read_logs(tmp_path).values():
        state = game.new_state(game.get_rules("killer", max_hands=2), log["seed"])
        start = [list(state.view(s).hand) for s in range(4)]
        assert [[c for c in h] for h in log["dealt_hands"][0]] == [
            [game.action_name(14 + c) for c in h] for h in start]
        for seat, action, name in log["actions"]:
            assert state.current_player == seat and game.action_name(action) == name
            state.apply(action)
        assert state.is_over and list(state.scores) == log["scores"]
        assert [r.to_dict() for r in state.results] == log["hand_results"]
        assert log["num_hands"] == 2 and log["hit_hand_cap"] is True


# ----------------------------------------------------------------- statistics
def test_ranks_and_win_shares_split_ties():
    assert average_ranks([10, 5, 5, 0]) == [1, 2.5, 2.5, 4]
    assert average_ranks([3, 3, 3, 3]) == [2.5] * 4
    assert average_ranks([0, 7, 7, 7]) == [4, 2, 2, 2]
    assert win_shares(4, (2,)) == [0, 0, 1, 0]
    assert win_shares(4, (1, 3)) == [0, 0.5, 0, 0.5]


def _rec(deal, rotation, seats, scores):
    winners = [s for s, x in enumerate(scores) if x == max(scores)]
    return {"deal": deal, "rotation": rotation, "seats": seats, "scores": scores,
            "win_shares": win_shares(len(seats), winners), "ranks": average_ranks(scores)}


def test_intervals_come_from_per_deal_means_with_duplicate_names_pooled():
    # 3 deals x 2 rotations of a 3-seat lineup a, r, r ('r' twice: pooled)
    games = [
        _rec(0, 0, ["a", "r", "r"], [10, 0, 20]), _rec(0, 1, ["r", "a", "r"], [0, 20, 0]),
        _rec(1, 0, ["a", "r", "r"], [40, 0, 0]), _rec(1, 1, ["r", "a", "r"], [10, 0, 10]),
        _rec(2, 0, ["a", "r", "r"], [5, 5, 5]), _rec(2, 1, ["r", "a", "r"], [30, 15, 30]),
    ]
    stats = {b.name: b for b in bot_stats(games)}
    a, r = stats["a"], stats["r"]
    # a: per-deal means 15, 20, 10 -> mean 15, sd 5
    assert a.score.mean == pytest.approx(15)
    assert a.score.half_width == pytest.approx(1.96 * 5 / math.sqrt(3))
    assert a.score.n == 3 and a.games == 6
    # r: per-deal means of its 4 results: (0+20+0+0)/4=5, (0+0+10+10)/4=5, (5+5+30+30)/4=17.5
    r_means = [5, 5, 17.5]
    r_mean = sum(r_means) / 3
    sd = math.sqrt(sum((x - r_mean) ** 2 for x in r_means) / 2)
    assert r.score.mean == pytest.approx(r_mean)
    assert r.score.half_width == pytest.approx(1.96 * sd / math.sqrt(3))
    assert r.games == 6  # games it played in, not seats
    # wins: deal 0: a wins 0 then 1 -> 0.5; deal 1: 1, 0 -> 0.5; deal 2: 1/3, 0 -> 1/6
    assert a.win.mean == pytest.approx((0.5 + 0.5 + 1 / 6) / 3)
    # ranks of a: deal 0: 2 and 1 -> 1.5; deal 1: 1 and 3 -> 2; deal 2: 2 and 3 -> 2.5
    assert a.rank.mean == pytest.approx(2.0)
    assert a.rank.half_width == pytest.approx(1.96 * 0.5 / math.sqrt(3))
    # head-to-head, a above each r seat: deal 0: 1, 0 | 1, 1; deal 1: 1, 1 | 0, 0; deal 2: ties
    h2h = head_to_head(games)
    per_deal = [(1 + 0 + 1 + 1) / 4, (1 + 1 + 0 + 0) / 4, (0.5 + 0.5 + 0 + 0) / 4]
    assert h2h["a", "r"].mean == pytest.approx(sum(per_deal) / 3)
    assert h2h["r", "a"].mean == pytest.approx(1 - sum(per_deal) / 3)
    assert ("r", "r") not in h2h


def test_one_deal_has_no_interval(tmp_path):
    run = run_tournament(small(), deals=1, out=tmp_path)
    assert all(b["score"]["ci95"] is None for b in run.summary["bots"])
    assert "± -" in run.text


# ----------------------------------------------------------------------- logs
def test_game_logs_and_summary_are_complete_json(tmp_path):
    cfg = small()
    run = run_tournament(cfg, deals=2, out=tmp_path)
    assert run.played == 8 and run.loaded == 0
    games = read_logs(tmp_path)
    assert sorted(games) == [f"{d:05d}-{r}.json" for d in range(2) for r in range(4)]
    for log in games.values():
        for key in ("game", "preset", "rules", "seed", "seats", "bot_seeds", "actions",
                    "hand_results", "scores", "winners", "num_hands", "win_shares", "ranks"):
            assert key in log, key
        assert log["game"] == "spades" and log["preset"] == "killer"
        assert log["rules"]["max_hands"] == 2
        assert all(isinstance(a, int) and isinstance(n, str) for _, a, n in log["actions"])
        assert sum(log["win_shares"]) == pytest.approx(1)
        assert sum(log["ranks"]) == pytest.approx(10)
    assert not list((tmp_path / "games").glob("*.tmp"))
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary == run.summary and summary["games"] == 8
    assert summary["games_at_hand_cap"] == 8
    assert (tmp_path / "summary.txt").read_text() == run.text
    assert {b["bot"] for b in summary["bots"]} == set(FOUR)
    assert all(b["games"] == 8 for b in summary["bots"])


def test_atomic_write_leaves_old_file_or_whole_new_one(tmp_path):
    path = tmp_path / "x.json"
    write_atomic(path, "old")
    with pytest.raises(TypeError):
        write_atomic(path, 123)  # fails while writing
    assert path.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["x.json"]
    write_atomic(tmp_path / "new" / "x.bin", b"\x00new")  # bytes, into a new folder
    assert (tmp_path / "new" / "x.bin").read_bytes() == b"\x00new"


# --------------------------------------------------------------------- resume
def test_rerun_and_deleted_logs_replay_only_missing_games(tmp_path):
    cfg = small()
    first = run_tournament(cfg, deals=2, out=tmp_path)
    again = run_tournament(cfg, deals=2, out=tmp_path)
    assert (again.played, again.loaded) == (0, 8)
    assert again.summary == first.summary and again.text == first.text
    for name in ("00000-1.json", "00001-3.json", "00001-0.json"):
        (tmp_path / "games" / name).unlink()
    (tmp_path / "games" / "00000-2.json.abc.tmp").write_text("{half")  # a killed write
    resumed = run_tournament(cfg, deals=2, out=tmp_path)
    assert (resumed.played, resumed.loaded) == (3, 5)
    assert resumed.summary == first.summary
    assert not list((tmp_path / "games").glob("*.tmp"))
    more = run_tournament(cfg, deals=3, out=tmp_path)
    assert (more.played, more.loaded) == (4, 8)


def test_interrupt_loses_no_finished_game(tmp_path):
    cfg = small()
    clean = run_tournament(cfg, deals=2, out=tmp_path / "clean")
    # a 2-hand game is 2 x 56 moves, 84 of them by the 3 test bots: stop inside game 4
    FirstLegalBot.interrupt_after = 3 * 84 + 20
    try:
        with pytest.raises(KeyboardInterrupt):
            run_tournament(cfg, deals=2, out=tmp_path / "cut")
    finally:
        FirstLegalBot.interrupt_after = None
    finished = list((tmp_path / "cut" / "games").glob("*"))
    assert len(finished) == 3 and all(p.suffix == ".json" for p in finished)
    resumed = run_tournament(cfg, deals=2, out=tmp_path / "cut")
    assert (resumed.played, resumed.loaded) == (5, 3)
    assert resumed.summary == clean.summary
    assert read_logs(tmp_path / "cut") == read_logs(tmp_path / "clean")


def test_resume_refuses_a_directory_of_another_tournament(tmp_path):
    run_tournament(small(), deals=1, out=tmp_path)
    with pytest.raises(ConfigError, match="seed"):
        run_tournament(small(seed=5), deals=1, out=tmp_path)
    other = small(bots=("random",) * 4)
    with pytest.raises(ConfigError, match="bots"):
        run_tournament(other, deals=1, out=tmp_path)
    run = run_tournament(other, deals=1, out=tmp_path, fresh=True)
    assert run.played == 4


# -------------------------------------------------------------------- workers
def test_two_workers_give_the_same_logs_and_summary(tmp_path):
    cfg = small(bots=("random",) * 4, max_hands=3, seed=7)
    one = run_tournament(cfg, deals=3, out=tmp_path / "one", workers=1)
    two = run_tournament(cfg, deals=3, out=tmp_path / "two", workers=2)
    assert two.played == 12
    assert one.summary == two.summary and one.text == two.text
    for name, log in read_logs(tmp_path / "one").items():
        assert (tmp_path / "two" / "games" / name).read_text() == \
            (tmp_path / "one" / "games" / name).read_text(), name
        assert log["deal"] == int(name[:5])


def test_other_seeds_give_other_games(tmp_path):
    a = run_tournament(small(bots=("random",) * 4), deals=1, out=tmp_path / "a")
    b = run_tournament(small(bots=("random",) * 4, seed=1), deals=1, out=tmp_path / "b")
    assert a.summary["bots"] != b.summary["bots"]


# ------------------------------------------------------------------------ CLI
def test_cli_prints_the_table(tmp_path, capsys):
    code = main(["spades", "--preset", "cutthroat", "--bots", ",".join(FOUR), "--deals", "2",
                 "--max-hands", "2", "--out", str(tmp_path), "--workers", "1", "--quiet",
                 "--rule", "target=300"])
    out = capsys.readouterr().out
    assert code == 0
    assert "spades (cutthroat, target=300)" in out and "head-to-head" in out
    for spec in FOUR:
        assert spec in out
    assert json.loads((tmp_path / "tournament.json").read_text())["rules"]["target"] == 300


@pytest.mark.parametrize("argv, bad", [
    (["chess", "--bots", "random"], "'chess'"),
    (["spades", "--preset", "bridge", "--bots", "random,random,random,random"], "'bridge'"),
    (["spades", "--bots", "random,random,spades/nope,random"], "'spades/nope'"),
    (["spades", "--bots", "random,random,random"], "3 bots"),
    (["spades", "--bots", "random,random,random,random", "--deals", "0"], "--deals"),
    (["spades", "--bots", "random,random,random,random", "--rule", "colour=red"], "colour"),
    (["spades", "--bots", "random,random,random,random", "--rule", "target=high"], "'high'"),
    (["spades", "--bots", "random,random,random,random", "--rule", "target"], "'target'"),
    (["spades", "--bots", "random,random,random,random", "--max-hands", "-1"], "-1"),
])
def test_cli_bad_input_exits_2_naming_the_value(tmp_path, capsys, argv, bad):
    out = tmp_path / "t"
    assert main([*argv, "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert bad in err and err.startswith("error:") and err.count("\n") == 1
    assert not out.exists()  # nothing played, nothing written


def test_cli_bot_that_breaks_the_rules_is_named(tmp_path, capsys):
    with pytest.raises(BotError, match="test/illegal"):
        run_tournament(small(bots=("random", "random", "random", "test/illegal")), deals=1,
                       out=tmp_path)


def test_bot_list_keeps_options_with_their_bot():
    assert split_bot_list("spades/expert:nil=set-safe,prefer=over,random, random") == [
        "spades/expert:nil=set-safe,prefer=over", "random", "random"]
