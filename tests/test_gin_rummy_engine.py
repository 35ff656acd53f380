"""Gin Rummy engine: turns, the legal set, conservation, deals, errors, views."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardrl.envs import cards
from cardrl.envs.gin_rummy import SEED, STANDARD, GinRummyState, GinRummyView, IllegalActionError
from cardrl.envs.gin_rummy.actions import (
    DRAW_STOCK,
    TAKE_DISCARD,
    action_name,
    discard_action,
    knock_action,
    parse_action,
)
from cardrl.envs.gin_rummy.rules import RulesError, get_rules
from tests.gin_rummy_util import C, full_deal, hands_of, oracle_legal, play_random

DEAL3 = hands_of("AC 2C 3C 4D 4H 4S 9S 10S JS 5H",
                 "5C 6C 7C 8H 8S 8D KH KS KD 3H",
                 "JC QC KC 9C 9D 9H 6H 6S 6D 3S")


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), preset=st.sampled_from(["seed", "standard"]),
       n=st.sampled_from([2, 3, 4]), no_limit=st.booleans())
def test_legal_set_matches_the_oracle_and_cards_are_conserved(seed, preset, n, no_limit):
    rules = get_rules(preset, num_players=n, max_hands=2,
                      knock_limit=None if no_limit else 10)
    state = GinRummyState(rules, seed)
    rng = np.random.default_rng(seed)
    while not state.is_over:
        legal = state.legal_actions()
        assert legal == oracle_legal(state)
        views = [state.view(s) for s in range(n)]
        v = views[0]
        seen = [c for w in views for c in w.hand] + list(v.pile) + state.stock
        assert sorted(seen) == list(range(52))  # every card once: hands, pile, stock
        assert v.stock_size == len(state.stock)
        for seat, w in enumerate(views):
            acting = seat == state.current_player and state.phase == "discard"
            assert len(w.hand) == 10 + acting
            assert set(w.known[seat]) <= set(w.hand)  # known cards really are held
        state.apply(legal[int(rng.integers(len(legal)))])


def test_turn_order_goes_left_of_the_dealer_and_the_deal_rotates():
    rules = SEED.replace(num_players=4, max_hands=3)
    state = GinRummyState(rules, 1)
    rng = np.random.default_rng(0)
    for hand in range(3):
        assert state.dealer == hand % 4 and state.current_player == (hand + 1) % 4
        order = []
        while state.hand_number == hand + 1 and not state.is_over:
            if state.phase == "draw":
                order.append(state.current_player)
            legal = [a for a in state.legal_actions() if a < 54]  # never knock
            state.apply(legal[int(rng.integers(len(legal)))])
        assert order[:8] == [(hand + 1 + k) % 4 for k in range(8)]


def test_first_dealer_option_and_random_dealer():
    assert GinRummyState(SEED.replace(first_dealer=1), 0).current_player == 0
    dealers = {GinRummyState(SEED.replace(first_dealer=None), s).dealer for s in range(20)}
    assert dealers == {0, 1}


def test_draws_and_the_card_just_taken_may_not_go_back():
    state = GinRummyState(SEED.replace(num_players=3), 0, deal=full_deal(DEAL3, "QD", "2S"))
    assert state.legal_actions() == [DRAW_STOCK, TAKE_DISCARD]
    assert state.view(1).pile == (C("QD"),) and state.view(1).stock_size == 52 - 31
    state.apply(TAKE_DISCARD)
    assert state.taken == C("QD") and state.view(0).known[1] == (C("QD"),)
    assert discard_action(C("QD")) not in state.legal_actions()
    with pytest.raises(IllegalActionError, match="discard QD"):
        state.apply(discard_action(C("QD")))
    state.apply(discard_action(C("KH")))
    v = state.view(0)
    assert v.pile == (C("KH"),) and v.discarded[1] == (C("KH"),) and v.picked[1] == (C("QD"),)
    assert v.known[1] == (C("QD"),) and v.current_player == 2 and v.taken is None
    state.apply(DRAW_STOCK)  # seat 2 draws the 2S
    assert C("2S") in state.view(2).hand and state.view(0).stock_size == 52 - 32
    rules = SEED.replace(no_discard_of_taken=False, num_players=3)
    other = GinRummyState(rules, 0, deal=full_deal(DEAL3, "QD", "2S"))
    other.apply(TAKE_DISCARD)
    assert discard_action(C("QD")) in other.legal_actions()


def test_knocks_only_within_the_limit_and_gin_with_none_left():
    state = GinRummyState(SEED.replace(num_players=3), 0, deal=full_deal(DEAL3, "QD", "QS"))
    state.apply(DRAW_STOCK)  # seat 1: [567C] [888] [KKK] 3H + QS
    legal = state.legal_actions()
    assert knock_action(C("QS")) in legal and knock_action(C("3H")) in legal  # 3 or 10 left
    assert knock_action(C("5C")) not in legal  # 6C 7C + 3H + QS = 26
    state.apply(knock_action(C("QS")))
    r = state.results[0]
    assert r.knocker == 1 and r.deadwood == (5, 3, 3) and r.winner == 1
    assert r.points == (0, 5 + 3 - 3, 0)
    strict = GinRummyState(SEED.replace(num_players=3, knock_limit=0), 0,
                           deal=full_deal(DEAL3, "QD", "QS"))
    strict.apply(DRAW_STOCK)
    assert max(strict.legal_actions()) < 54  # 3 deadwood: no knock at limit 0


def test_illegal_action_error_names_action_player_and_legal_set_and_changes_nothing():
    state = GinRummyState(STANDARD, 4)
    before = [state.view(s) for s in range(2)]
    for bad in (discard_action(state.hands[1][0]), 200, None, True, "x"):
        with pytest.raises(IllegalActionError) as err:
            state.apply(bad)
        msg = str(err.value)
        assert repr(bad) in msg and "player_1" in msg and "[0, 1]" in msg
    assert [state.view(s) for s in range(2)] == before and state.moves == 0
    state.apply(DRAW_STOCK)
    before = [state.view(s) for s in range(2)]
    absent = next(c for c in range(52) if c not in state.hands[1])
    with pytest.raises(IllegalActionError, match=f"discard {cards.name(absent)}"):
        state.apply(discard_action(absent))
    assert [state.view(s) for s in range(2)] == before


def test_given_deals_are_checked():
    with pytest.raises(cards.CardError, match="misdeal: hand 1 has 9 cards"):
        GinRummyState(SEED, 0, deal=[DEAL3[0], DEAL3[1][:9]])
    with pytest.raises(cards.CardError, match="needs 2 hands"):
        GinRummyState(SEED, 0, deal=DEAL3[:1])
    with pytest.raises(cards.CardError, match="5H is dealt twice"):
        GinRummyState(SEED, 0, deal=[DEAL3[0], DEAL3[1][:9] + ["5H"]])
    with pytest.raises(cards.CardError, match="missing: QD"):
        GinRummyState(SEED, 0, deal=full_deal(DEAL3[:2], "QD")[:2] + [
            full_deal(DEAL3[:2], "QD")[2][1:]])
    with pytest.raises(cards.CardError, match="'BJ'|BJ"):
        GinRummyState(SEED, 0, deal=[DEAL3[0], DEAL3[1][:9] + ["BJ"]])
    state = GinRummyState(SEED, 0, deal=full_deal(DEAL3[:2], "QD", "2S 3S"))
    assert state.pile == [C("QD")] and state.stock[-2:] == [C("3S"), C("2S")]


def test_same_seed_same_deals_whatever_is_played():
    a, b = GinRummyState(SEED.replace(max_hands=5), 21), GinRummyState(SEED.replace(max_hands=5),
                                                                       21)
    play_random(a, np.random.default_rng(1))
    play_random(b, np.random.default_rng(2))
    assert a.hand_number == b.hand_number == 2
    assert all(a.view(s).hand == b.view(s).hand for s in range(2))


def test_clone_is_independent():
    state = GinRummyState(STANDARD, 5)
    copy = state.clone()
    play_random(copy, np.random.default_rng(0))
    assert state.hand_number == 1 and state.moves == 0 and len(state.stock) == 31
    play_random(state, np.random.default_rng(1))
    assert all(state.view(s).hand == copy.view(s).hand for s in range(2))


def test_view_round_trips_through_json_and_shows_only_public_facts():
    state = GinRummyState(STANDARD.replace(max_hands=4), 11)
    rng = np.random.default_rng(1)
    for _ in range(150):
        if state.is_over:
            break
        legal = state.legal_actions()
        state.apply(legal[int(rng.integers(len(legal)))])
        for seat in range(2):
            view = state.view(seat)
            assert GinRummyView.from_dict(json.loads(json.dumps(view.to_dict()))) == view
    with pytest.raises(ValueError, match="not a Gin Rummy view"):
        GinRummyView.from_dict({"game": "spades"})


@pytest.mark.parametrize("preset", [SEED, STANDARD])
def test_a_hand_cycling_cards_through_the_pile_ends_dead_at_max_moves(preset):
    """Two players who only ever take the discard never shrink the stock: without the cap
    the hand would never end. At max_moves actions it is dead: no points, the next deal."""
    state = GinRummyState(preset.replace(max_moves=12, knock_limit=0, gin_bonus=0), 3)
    stock = state.view(0).stock_size
    rng = np.random.default_rng(3)
    applied = 0
    while state.hand_number == 1:
        legal = state.legal_actions()
        assert not any(a >= 54 for a in legal)  # no knock can end it first (limit 0, no gin)
        takes = [a for a in legal if a == TAKE_DISCARD]
        state.apply(takes[0] if takes else int(rng.choice(legal)))
        applied += 1
    assert applied == 12  # six turns: the cap, not the stock
    first = state.results[0]
    assert first.knocker is None and first.points == (0, 0) and state.scores == [0, 0]
    assert len(state.view(0).discarded[0]) + len(state.view(0).discarded[1]) == 0  # new hand
    assert stock > 2  # the stock was far from empty: only the cap ended it


def test_rules_errors_name_the_bad_value():
    with pytest.raises(RulesError, match="num_players.*5"):
        SEED.replace(num_players=5)
    with pytest.raises(RulesError, match="first_dealer.*2"):
        SEED.replace(first_dealer=2)
    with pytest.raises(RulesError, match="knock_limit.*-1"):
        SEED.replace(knock_limit=-1)
    with pytest.raises(RulesError, match="dead_stock.*11"):
        SEED.replace(num_players=4, dead_stock=11)
    with pytest.raises(RulesError, match="unknown Gin Rummy rules field.*colour"):
        SEED.replace(colour="red")
    with pytest.raises(RulesError, match="'bridge'"):
        get_rules("bridge")
    with pytest.raises(RulesError, match="layoff"):
        SEED.replace(layoff="yes")
    with pytest.raises(RulesError, match="max_moves.*1"):
        SEED.replace(max_moves=1)
    assert get_rules("standard").knock_limit == 10 and get_rules("seed", knock_limit=None)


def test_action_names_and_parsing():
    assert action_name(DRAW_STOCK) == "draw stock" and action_name(TAKE_DISCARD) == "take discard"
    assert action_name(discard_action(C("QS"))) == "discard QS"
    assert action_name(knock_action(C("10H"))) == "knock 10H"
    for a in range(106):
        assert parse_action(action_name(a)) == a
    assert parse_action("QS") == discard_action(C("QS")) and parse_action("take") == 1
    with pytest.raises(ValueError, match="106"):
        parse_action(106)
    with pytest.raises(ValueError, match="jokers"):
        parse_action("knock BJ")
