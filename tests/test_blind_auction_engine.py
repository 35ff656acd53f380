"""Blind Auction engine: rules, the tie-rule table for 2 and 3 players, scores, errors, views."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardrl.envs import cards
from cardrl.envs.blind_auction.actions import action_name, parse_action
from cardrl.envs.blind_auction.engine import BlindAuctionState, IllegalActionError
from cardrl.envs.blind_auction.rules import RulesError, get_rules
from cardrl.envs.blind_auction.scoring import resolve
from cardrl.envs.blind_auction.view import BlindAuctionView
from tests.blind_auction_util import bid_round, oracle_legal, random_actions

PRIZES = ["4D", "2D", "3D"]  # the prize order of the table games (3 cards a suit: 2, 3, 4)


def game(players: int, tie_rule: str, order=PRIZES) -> BlindAuctionState:
    rules = get_rules("2p" if players == 2 else "3p", tie_rule=tie_rule, cards_per_suit=3)
    return BlindAuctionState(rules, deal=order)


def play(players, tie_rule, rounds):
    state = game(players, tie_rule)
    for bids in rounds:
        bid_round(state, *bids)
    return state


# ------------------------------------------------------------ the table
# docs/rules.md section 4: the single highest bid takes the prize (and any carried);
# a tie for highest: discard = nobody, carry = it goes with the next prize,
# split = each tied player scores half; carried prizes left at the end go to nobody.
TWO_TIE_FIRST = [("4", "4"), ("2", "3"), ("3", "2")]  # 4D tied, 2D to seat 1, 3D to seat 0
TWO_TIE_LAST = [("2", "3"), ("3", "2"), ("4", "4")]  # 4D to seat 1, 2D to seat 0, 3D tied
THREE_TIES = [("4", "4", "2"), ("3", "3", "3"), ("2", "2", "4")]  # two tie on top, all three
THREE_TIE_END = [("2", "3", "4"), ("3", "2", "3"), ("4", "4", "2")]  # ties in the last two rounds


@pytest.mark.parametrize(("players", "rounds", "tie_rule", "scores", "unclaimed"), [
    (2, TWO_TIE_FIRST, "discard", (3, 2), ["4D"]),
    (2, TWO_TIE_FIRST, "carry", (3, 6), []),
    (2, TWO_TIE_FIRST, "split", (5, 4), []),
    (2, TWO_TIE_LAST, "discard", (2, 4), ["3D"]),
    (2, TWO_TIE_LAST, "carry", (2, 4), ["3D"]),  # carried past the last round: nobody's
    (2, TWO_TIE_LAST, "split", (3.5, 5.5), []),  # half of 3 each
    (3, THREE_TIES, "discard", (0, 0, 3), ["4D", "2D"]),
    (3, THREE_TIES, "carry", (0, 0, 9), []),  # seat 2 takes 4D + 2D + 3D
    (3, THREE_TIES, "split", (3, 3, 4), []),  # 2 + 1 each for seats 0, 1; all three get 1
    (3, THREE_TIE_END, "discard", (0, 0, 4), ["2D", "3D"]),
    (3, THREE_TIE_END, "carry", (0, 0, 4), ["2D", "3D"]),
    (3, THREE_TIE_END, "split", (2.5, 1.5, 5), []),
])
def test_tie_rule_table(players, rounds, tie_rule, scores, unclaimed):
    state = play(players, tie_rule, rounds)
    assert state.is_over and state.current_player is None
    assert tuple(state.scores) == scores
    result = state.results[-1]
    assert result.points == result.totals == scores
    assert cards.names(result.unclaimed) == unclaimed
    top = max(scores)
    assert state.winners == tuple(s for s, x in enumerate(scores) if x == top)


def test_carried_prizes_are_shown_and_taken_by_the_next_single_winner():
    state = game(3, "carry")
    bid_round(state, "4", "4", "2")
    assert cards.names(state.view(2).carried) == ["4D"]
    assert state.rounds[-1].carried and state.rounds[-1].scorers == ()
    bid_round(state, "3", "3", "3")
    assert cards.names(state.view(0).carried) == ["4D", "2D"]
    bid_round(state, "2", "2", "4")
    last = state.rounds[-1]
    assert last.scorers == (2,) and cards.names(last.taken) == ["4D", "2D", "3D"]
    assert last.points == (0, 0, 9) and state.view(1).carried == ()


def test_a_single_high_bid_wins_although_lower_bids_tie():
    state = game(3, "discard")
    bid_round(state, "2", "2", "3")
    assert state.rounds[-1].scorers == (2,) and state.scores == [0, 0, 4]


def test_equal_scores_are_a_draw():
    state = game(2, "discard", ["2D", "3D", "4D"])
    bid_round(state, "4", "4")  # 2D discarded
    bid_round(state, "2", "3")  # 3D to seat 1
    bid_round(state, "3", "2")  # 4D to seat 0: 4 against 3
    assert state.winners == (0,)
    state = game(2, "split", ["3D", "2D", "4D"])
    bid_round(state, "2", "2")  # 1.5 each
    bid_round(state, "3", "4")  # 2D to seat 1
    bid_round(state, "4", "3")  # 4D to seat 0: 5.5 against 3.5
    assert state.scores == [5.5, 3.5]
    state = game(2, "discard")
    for bids in [("2", "2"), ("3", "3"), ("4", "4")]:
        bid_round(state, *bids)
    assert state.scores == [0, 0] and state.winners == (0, 1)


@pytest.mark.parametrize(("bids", "tie_rule", "expected"), [
    ([5, 3], "discard", ((0,), [9, 0], False)),
    ([3, 5, 1], "carry", ((1,), [0, 9 + 6, 0], False)),
    ([5, 5], "discard", ((), [0, 0], False)),
    ([5, 5], "carry", ((), [0, 0], True)),
    ([5, 5, 2], "split", ((0, 1), [4.5, 4.5, 0], False)),
    ([7, 7, 7], "split", ((0, 1, 2), [4.5, 4.5, 4.5], False)),  # RULES: each scores half
])
def test_resolve_table(bids, tie_rule, expected):
    assert resolve(tie_rule, bids, 9, 6 if tie_rule == "carry" else 0) == expected


# ------------------------------------------------------------ legal moves
def test_a_played_card_cannot_be_played_again():
    state = game(2, "discard")
    bid_round(state, "3", "2")
    assert state.legal_actions() == [0, 2]
    before = state.view(0)
    with pytest.raises(IllegalActionError, match=r"illegal action 1 \(bid 3\) for player_0"):
        state.apply(1)
    assert state.view(0) == before
    state.apply(0)
    assert state.legal_actions() == [1, 2]  # seat 1 bid its 2 (rank 0) in round 1
    with pytest.raises(IllegalActionError, match=r"illegal action 0 \(bid 2\) for player_1"):
        state.apply(0)
    state.apply(2)
    assert state.legal_actions() == [2] and state.hands == [[2], [1]]


@pytest.mark.parametrize("bad", [3, 13, -1, None, "1", True, 1.5])
def test_illegal_actions_raise_naming_the_action_and_change_nothing(bad):
    state = game(2, "discard")
    before = state.view(0), state.view(1), list(state.prizes)
    with pytest.raises(IllegalActionError, match="illegal action"):
        state.apply(bad)
    assert (state.view(0), state.view(1), list(state.prizes)) == before


def test_no_bid_after_the_game():
    state = play(2, "discard", TWO_TIE_FIRST)
    assert state.legal_actions() == []
    with pytest.raises(IllegalActionError, match="the game is over"):
        state.apply(0)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31), players=st.sampled_from([2, 3]),
       tie_rule=st.sampled_from(["discard", "carry", "split"]), n=st.integers(3, 13))
def test_random_games_conserve_cards_follow_the_oracle_and_sum_the_points(seed, players, tie_rule,
                                                                          n):
    rules = get_rules("2p", num_players=players, tie_rule=tie_rule, cards_per_suit=n)
    state = BlindAuctionState(rules, seed)
    rng = np.random.default_rng(seed)
    while not state.is_over:
        seat = state.current_player
        assert state.legal_actions() == oracle_legal(state, seat)
        for other in range(players):
            if other != seat:
                assert oracle_legal(state, other) == []
        legal = state.legal_actions()
        state.apply(legal[int(rng.integers(len(legal)))])
    assert len(state.rounds) == n
    for seat in range(players):  # every card of every seat bid exactly once
        assert sorted(r.bids[seat] for r in state.rounds) == rules.hand_of(seat)
    assert sorted(r.prize for r in state.rounds) == rules.prize_cards
    taken = [c for r in state.rounds for c in r.taken]
    assert len(taken) == len(set(taken))
    result = state.results[0]
    assert sorted(taken + list(result.unclaimed)) == rules.prize_cards
    for seat in range(players):
        assert state.scores[seat] == sum(r.points[seat] for r in state.rounds)
    value = {c: cards.rank_of(c) + 2 for c in rules.prize_cards}
    if tie_rule != "split":  # every taken prize is scored once, by its taker
        assert sum(state.scores) == sum(value[c] for c in taken)
    for r in state.rounds:  # the winner is the single highest bid, if there is one
        bids = [cards.rank_of(c) for c in r.bids]
        if bids.count(max(bids)) == 1:
            assert r.scorers == (bids.index(max(bids)),)
        else:
            assert r.scorers == (tuple(s for s, b in enumerate(bids) if b == max(bids))
                                 if tie_rule == "split" else ())


def test_seed_fixes_the_prize_order_whatever_is_bid():
    rules = get_rules("3p", cards_per_suit=13)
    a, b = BlindAuctionState(rules, 7), BlindAuctionState(rules, 7)
    random_actions(a, np.random.default_rng(1))
    random_actions(b, np.random.default_rng(2))
    assert [r.prize for r in a.rounds] == [r.prize for r in b.rounds]
    assert a.prizes != BlindAuctionState(rules, 8).prizes


# ----------------------------------------------------------- rules, deals
@pytest.mark.parametrize(("changes", "message"), [
    ({"num_players": 4}, "num_players must be 2 or 3, got 4"),
    ({"tie_rule": "coin"}, "tie_rule must be one of discard, carry, split, got 'coin'"),
    ({"cards_per_suit": 2}, "cards_per_suit must be an int 3..13, got 2"),
    ({"cards_per_suit": 14}, "got 14"),
    ({"max_hands": 0}, "max_hands must be None or at least 1"),
    ({"target": 3}, r"unknown Blind Auction rules field\(s\): \['target'\]"),
])
def test_bad_rules_are_refused_with_the_bad_value(changes, message):
    with pytest.raises(RulesError, match=message):
        get_rules("2p", **changes)


def test_presets_and_derived_fields():
    two, three = get_rules("2p"), get_rules("3p")
    assert (two.num_players, three.num_players, two.tie_rule, two.cards_per_suit) == (2, 3,
                                                                                      "discard", 13)
    assert two.prize_total == 104 and get_rules("2p", cards_per_suit=3).prize_total == 9
    assert cards.names(two.hand_of(0))[-1] == "AH" and cards.names(three.hand_of(2))[0] == "2S"
    assert cards.names(two.hand_of(1))[:2] == ["2C", "3C"]
    assert get_rules("2p", max_hands=100).max_hands == 100  # the tournament's cap is accepted
    with pytest.raises(RulesError, match="unknown Blind Auction preset 'duel'"):
        get_rules("duel")


@pytest.mark.parametrize(("order", "message"), [
    (["4D", "2D"], "the prize order needs 3 cards, got 2"),
    (["4D", "2D", "2D"], "prize 2D appears twice"),
    (["4D", "2D", "5D"], "card 5D is not a prize card"),
    (["4D", "2D", "3H"], "card 3H is not a prize card"),
    (["4D", "2D", "XD"], "unknown card 'XD'"),
    ("4D 2D 3D", "a Blind Auction deal is the prize order"),
])
def test_bad_prize_orders_are_refused(order, message):
    with pytest.raises(cards.CardError, match=message):
        game(2, "discard", order)


def test_views_hold_only_what_the_seat_may_know_and_round_trip_json():
    state = game(3, "carry")
    bid_round(state, "4", "4", "2")
    state.apply(parse_action("2"))  # seat 0 bids its 2 in round 2
    v1 = state.view(1)
    assert v1.chosen is None and v1.acted == (True, False, False)
    assert cards.names(v1.remaining[0]) == ["2H", "3H"]  # the pending 2H is not shown as played
    assert cards.names(v1.hand) == ["2C", "3C"] and v1.current_player == 1
    assert cards.names(v1.prizes_left) == ["2D", "3D"] and cards.names(v1.carried) == ["4D"]
    v0 = state.view(0)
    assert cards.names([v0.chosen]) == ["2H"] and cards.names(v0.hand) == ["3H"]
    assert v0.round_number == 2 and v0.rounds_played == 1
    for view in (v0, v1):
        text = json.dumps(view.to_dict())
        assert BlindAuctionView.from_dict(json.loads(text)) == view
    with pytest.raises(ValueError, match="not a Blind Auction view"):
        BlindAuctionView.from_dict({"game": "spades"})
    with pytest.raises(ValueError, match="no seat 3"):
        state.view(3)


def test_action_names_and_parsing():
    assert [action_name(a) for a in (0, 8, 12)] == ["bid 2", "bid 10", "bid A"]
    assert action_name(13) == "13" and action_name(True) == "True"
    assert [parse_action(t) for t in ("2", "bid 10", "T", "q", "KH", 5)] == [0, 8, 8, 10, 11, 5]
    for bad in ("BJ", "1", 13, None):
        with pytest.raises(ValueError):
            parse_action(bad)


def test_clone_is_independent():
    state = game(2, "carry")
    bid_round(state, "4", "4")
    copy = state.clone()
    bid_round(copy, "2", "3")
    assert len(state.rounds) == 1 and state.carried == [cards.parse("4D")]
    assert state.hands == [[0, 1], [0, 1]] and copy.hands == [[1], [0]]
