"""Blind Auction rule bots (each heuristic's choice from a view) and tournaments of them."""

import json

import pytest

from cardrl import agents
from cardrl.agents.blind_auction.exploit import (
    bot_policy,
    policy_tables,
    profile_value,
    representative_states,
)
from cardrl.agents.blind_auction.tree import PublicTree
from cardrl.envs import cards
from cardrl.envs.blind_auction.engine import BlindAuctionState
from cardrl.envs.blind_auction.rules import get_rules
from cardrl.eval.config import TournamentConfig
from cardrl.eval.tournament import main as tournament_main
from cardrl.eval.tournament import run_tournament
from tests.blind_auction_util import bid_round

HEURISTICS = ["match", "high-early", "save-high", "mirror"]


def choice(name, state, seat=None):
    seat = state.current_player if seat is None else seat
    bot = agents.make(f"blind_auction/{name}")
    return cards.RANKS[bot.act(state.view(seat), state.legal_actions())]


def test_every_blind_auction_bot_is_registered_for_the_game():
    names = agents.names("blind_auction")
    assert names == sorted(["random", "blind_auction/equilibrium"]
                           + [f"blind_auction/{h}" for h in HEURISTICS])
    for name in names[:-1]:
        assert agents.make(name).game == "blind_auction"


def test_heuristic_choices_at_the_start_of_a_full_game():
    state = BlindAuctionState(get_rules("2p"), 0)
    # expected prize: the mean of 2..14 is 8; the opponent's median card is the 8
    assert [choice(h, state) for h in HEURISTICS] == ["8", "A", "2", "9"]


def test_heuristics_follow_the_carried_prizes_and_the_cards_left():
    rules = get_rules("3p", tie_rule="carry", cards_per_suit=5)  # cards 2..6
    state = BlindAuctionState(rules, deal=["6D", "2D", "3D", "4D", "5D"])
    bid_round(state, "6", "6", "2")  # 6D carried; prizes left 2..5, mean 3.5: pot 9.5
    assert choice("match", state) == "5"  # nearest 9.5 of 2, 3, 4, 5
    assert choice("save-high", state) == "5"  # prizes carried: its highest
    assert choice("high-early", state) == "5"
    # seat 1 holds 2-5 (median 3); seat 2 holds 3-6 (median 4): beat both with a 5
    assert choice("mirror", state) == "5"
    bid_round(state, "5", "3", "4")  # seat 0 takes 6D + 2D
    assert choice("save-high", state) == "2" and choice("match", state) == "4"  # 4D, 5D: 4.5


def test_mirror_bids_its_lowest_when_nothing_beats_the_expected_bids():
    state = BlindAuctionState(get_rules("2p", cards_per_suit=4), deal=["2D", "3D", "4D", "5D"])
    bid_round(state, "5", "2")  # seat 0 holds 2, 3, 4; seat 1 holds 3, 4, 5 (median 4)
    assert choice("mirror", state) == "2"
    state.apply(0)
    assert choice("mirror", state) == "4"  # seat 1: beats seat 0's median 3 with its 4


def test_heuristics_give_one_hot_mixes():
    state = BlindAuctionState(get_rules("2p", cards_per_suit=6), 3)
    for h in HEURISTICS:
        bot = agents.make(f"blind_auction/{h}")
        legal = state.legal_actions()
        probs = bot.action_probs(state.view(0), legal)
        assert probs.sum() == 1 and probs[legal.index(bot.act(state.view(0), legal))] == 1


@pytest.mark.parametrize("players", [2, 3])
def test_tournament_plays_blind_auction_with_every_bot(tmp_path, players):
    bots = (["blind_auction/equilibrium", "blind_auction/match"] if players == 2
            else ["blind_auction/mirror", "random", "blind_auction/save-high"])
    preset = f"{players}p"
    cfg = TournamentConfig(game="blind_auction", bots=tuple(bots), preset=preset,
                           rule_changes={"cards_per_suit": 5, "tie_rule": "carry"})
    run = run_tournament(cfg, deals=4, out=tmp_path)
    assert run.summary["games"] == 4 * players
    logs = [json.loads(p.read_text()) for p in sorted((tmp_path / "games").glob("*.json"))]
    prize_orders = {}
    for log in logs:
        assert len(log["actions"]) == 5 * players and log["num_hands"] == 1
        result = log["hand_results"][0]
        assert log["scores"] == result["totals"]
        unclaimed = sum(cards.rank_of(cards.parse(c)) + 2 for c in result["unclaimed"])
        assert sum(log["scores"]) == 20 - unclaimed  # carry: every other prize scored once
        prize_orders.setdefault(log["deal"], set()).add(tuple(result["prizes"]))
    assert all(len(orders) == 1 for orders in prize_orders.values())  # duplicate deals
    assert len({next(iter(o)) for o in prize_orders.values()}) > 1


def test_tournament_cli_takes_rule_changes(tmp_path, capsys):
    code = tournament_main(["blind_auction", "--preset", "2p", "--bots",
                            "blind_auction/high-early,blind_auction/mirror", "--deals", "3",
                            "--rule", "tie_rule=split", "--workers", "1", "--out",
                            str(tmp_path), "--quiet"])
    assert code == 0
    out = capsys.readouterr().out
    assert "blind_auction/high-early" in out and "blind_auction/mirror" in out
    code = tournament_main(["blind_auction", "--bots", "random,random,random,random",
                            "--deals", "1", "--out", str(tmp_path / "x"), "--quiet"])
    assert code == 2 and "num_players must be 2 or 3, got 4" in capsys.readouterr().err


@pytest.mark.parametrize("tie_rule", ["discard", "carry"])
def test_the_equilibrium_never_loses_on_average_to_any_heuristic(tie_rule):
    """Exact expected margins over every prize order and every bid of a 5-card game:
    the equilibrium holds at least the value 0 against each heuristic in both seats;
    with discard it equalises (exactly 0), with carry it wins from every one."""
    rules = get_rules("2p", cards_per_suit=5, tie_rule=tie_rule)
    tree = PublicTree(5, tie_rule)
    reps = representative_states(tree, rules)
    eq = policy_tables(tree, reps, bot_policy(agents.make("blind_auction/equilibrium"))[0])
    for h in HEURISTICS:
        row, col = policy_tables(tree, reps, bot_policy(agents.make(f"blind_auction/{h}"))[0])
        as_seat0 = profile_value(tree, eq[0], col)
        as_seat1 = -profile_value(tree, row, eq[1])
        if tie_rule == "discard":
            assert (as_seat0, as_seat1) == pytest.approx((0, 0), abs=1e-9), h
        else:
            assert as_seat0 > 1e-3 and as_seat1 > 1e-3, (h, as_seat0, as_seat1)
