"""Tables drawn from a larger lineup: balance of games, opponents and seats; Sevens at 2-9 seats."""

from __future__ import annotations

import itertools
import json
from collections import Counter

import pytest

from cardrl.eval.config import TournamentConfig
from cardrl.eval.schedule import balanced_tables, parse_seat_counts, seat_entries
from cardrl.eval.tournament import run_tournament


def test_drawn_tables_give_every_bot_about_as_many_games_and_meetings():
    entries = list(range(9))
    counts = tuple(range(2, 10))
    tables = balanced_tables(entries, counts, deals=160, seed=3)
    games, met = Counter(), Counter()
    for deal, table in enumerate(tables):
        assert len(table) == counts[deal % len(counts)] and len(set(table)) == len(table)
        for e in table:
            games[e] += len(table)  # a deal is played once per rotation
        for a, b in itertools.combinations(sorted(table), 2):
            met[a, b] += len(table)
    total = sum(games.values())
    assert all(abs(games[e] - total / 9) <= 9 for e in entries), games
    pairs = [met[p] for p in itertools.combinations(entries, 2)]
    assert min(pairs) >= 0.85 * max(pairs), pairs
    # who plays after whom varies: every ordered neighbour pair occurs
    follows = Counter((t[i], t[(i + 1) % len(t)]) for t in tables for i in range(len(t)))
    assert len(follows) == 9 * 8


def test_tables_of_a_longer_tournament_start_with_those_of_a_shorter_one():
    long = balanced_tables(range(7), (2, 3, 4), deals=30, seed=1)
    assert balanced_tables(range(7), (2, 3, 4), deals=12, seed=1) == long[:12]
    assert balanced_tables(range(7), (2, 3, 4), deals=30, seed=2) != long


def test_rotations_seat_every_bot_of_a_table_in_every_seat_once():
    table = (5, 2, 7)
    seats = [seat_entries(table, r) for r in range(3)]
    for e in table:
        assert sorted(s.index(e) for s in seats) == [0, 1, 2]
    assert seats[0] == list(table)


@pytest.mark.parametrize("text, counts", [("4", (4,)), ("2-5", (2, 3, 4, 5)),
                                          ("3,5,7", (3, 5, 7)), ("2-3,9", (2, 3, 9))])
def test_seat_counts_parse(text, counts):
    assert parse_seat_counts(text) == counts


def test_sevens_tournament_at_2_to_9_seats_logs_every_game(tmp_path):
    bots = ("sevens/lookahead", "sevens/greedy", "random", "sevens/lookahead:weight=0.5",
            "sevens/greedy", "random", "sevens/lookahead", "random", "sevens/greedy")
    cfg = TournamentConfig(game="sevens", bots=bots, preset="random", seats=tuple(range(2, 10)))
    run = run_tournament(cfg, deals=8, out=tmp_path)
    logs = [json.loads(p.read_text()) for p in sorted((tmp_path / "games").glob("*.json"))]
    assert len(logs) == sum(range(2, 10)) == run.summary["games"]
    by_deal: dict[int, list[dict]] = {}
    for log in logs:
        by_deal.setdefault(log["deal"], []).append(log)
        n = len(log["seats"])
        assert log["rules"]["num_players"] == n and len(log["actions"]) == n * (51 // n)
        assert [bots[e] for e in log["lineup_entries"]] == log["seats"]
    for deal, games in by_deal.items():
        n = len(games[0]["seats"])
        assert n == 2 + deal and len(games) == n
        assert len({g["seed"] for g in games}) == 1  # one deal, its cards in every rotation
        for e in games[0]["lineup_entries"]:
            assert sorted(g["lineup_entries"].index(e) for g in games) == list(range(n))
    assert run.summary["seat_counts"] == list(range(2, 10))
    assert "tables of 2-9 seats drawn from 9 bots" in run.text
    names = {b["bot"] for b in run.summary["bots"]}
    assert names == set(bots)  # repeated names are pooled into one row


def test_full_sevens_lineup_plays_the_duplicate_format_at_its_size(tmp_path):
    bots = ("sevens/lookahead", "sevens/greedy", "random", "random", "sevens/greedy")
    run = run_tournament(TournamentConfig(game="sevens", bots=bots, preset="classic"),
                         deals=2, out=tmp_path)
    assert run.summary["games"] == 10 and run.summary["rotations"] == 5
    assert "duplicate: 2 deals x 5 seat rotations" in run.text
    log = json.loads((tmp_path / "games" / "00001-3.json").read_text())
    assert log["rules"]["num_players"] == 5 and log["rules"]["preset"] == "classic"


def test_a_config_without_the_new_options_is_stored_as_before():
    cfg = TournamentConfig(game="spades", bots=("random",) * 4, preset="killer")
    assert set(cfg.to_dict()) == {"game", "preset", "bots", "rule_changes", "max_hands", "seed",
                                  "rules"}
    drawn = TournamentConfig(game="sevens", bots=("random",) * 5, preset="random", seats=(2, 3),
                             disqualify=True)
    assert drawn.to_dict()["seats"] == [2, 3] and drawn.to_dict()["disqualify"] is True
    assert drawn.key() != TournamentConfig(game="sevens", bots=("random",) * 5,
                                           preset="random", seats=(2, 3)).key()
