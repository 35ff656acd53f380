"""Spades engine: the legal set in every phase, tricks, conservation, errors, views."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardrl.envs import cards
from cardrl.envs.spades.actions import CARD_OFFSET, action_name, card_action, parse_action
from cardrl.envs.spades.engine import IllegalActionError, SpadesState
from cardrl.envs.spades.rules import CUTTHROAT, KILLER, RulesError, get_rules
from cardrl.envs.spades.view import SpadesView
from tests.spades_util import MIXED_DEAL, deal_of, oracle_legal, play_hand_with_bids

C = cards.parse


LEAD_DEAL = MIXED_DEAL


def to_play(state):
    while state.phase == "bid":
        state.apply(1 if state.rules.bids_may_total_tricks else 2)


# ----------------------------------------------------------------- bidding


@pytest.mark.parametrize(("bids", "refused"), [
    ([3, 4, 5], 1), ([0, 0, 0], 13), ([13, 0, 0], 0), ([5, 5, 4], None), ([4, 4, 4], 1),
])
def test_cutthroat_last_bidder_refused_the_value_that_makes_13(bids, refused):
    state = SpadesState(CUTTHROAT, 2)
    for b in bids:
        assert state.legal_actions() == list(range(14))  # first three bidders: anything
        state.apply(b)
    expected = [b for b in range(14) if b != refused]
    assert state.legal_actions() == expected
    if refused is not None:
        before = state.view(state.current_player)
        with pytest.raises(IllegalActionError, match=f"illegal action {refused}"):
            state.apply(refused)
        assert state.view(state.current_player) == before


def test_killer_bids_run_nil_to_13_for_everyone():
    state = SpadesState(KILLER, 2)
    for b in (3, 4, 5):
        state.apply(b)
    assert state.legal_actions() == list(range(14))
    state.apply(1)  # bids total 13: allowed in killer
    assert state.phase == "play"


# ------------------------------------------------------------ leading spades


def test_killer_spades_cannot_be_led_until_broken():
    state = SpadesState(KILLER, 0, deal=LEAD_DEAL)
    to_play(state)
    assert state.current_player == 1
    legal = state.legal_actions()
    assert all(cards.suit_of(a - CARD_OFFSET) == cards.CLUBS for a in legal)
    with pytest.raises(IllegalActionError):
        state.apply(card_action(C("2S")))
    # seat 1 leads 2C; seat 2 follows; seat 3 has no clubs and ruffs with JS: broken
    state.apply(card_action(C("2C")))
    state.apply(card_action(C("JC")))
    state.apply(card_action(C("JS")))
    assert state.spades_broken
    state.apply(card_action(C("2H")))
    assert state.last_trick_winner == 3
    assert card_action(C("AS")) in state.legal_actions()  # now spades may be led


def test_killer_leader_with_only_spades_may_lead_them():
    deal = deal_of(
        "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH",
        "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS",
        "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC",
        "2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD",
    )
    state = SpadesState(KILLER, 0, deal=deal)
    to_play(state)
    assert state.legal_actions() == [card_action(c) for c in range(39, 52)]
    state.apply(card_action(C("2S")))
    assert state.view(0).shown_void(1, cards.HEARTS)  # leading unbroken spades shows the rest


def test_cutthroat_spades_may_be_led_any_time_unless_option():
    state = SpadesState(CUTTHROAT, 0, deal=LEAD_DEAL)
    to_play(state)
    assert card_action(C("2S")) in state.legal_actions()
    state = SpadesState(CUTTHROAT.replace(spades_must_be_broken=True), 0, deal=LEAD_DEAL)
    to_play(state)
    assert card_action(C("2S")) not in state.legal_actions()


# ------------------------------------------------------ following and winning


def test_must_follow_suit_and_voids_are_recorded():
    state = SpadesState(KILLER, 0, deal=LEAD_DEAL)
    to_play(state)
    state.apply(card_action(C("9C")))
    assert state.legal_actions() == [card_action(C(n)) for n in ("JC", "QC", "KC", "AC")]
    with pytest.raises(IllegalActionError, match="legal"):
        state.apply(card_action(C("6S")))  # renege refused (A4.1)
    state.apply(card_action(C("AC")))
    assert len(state.legal_actions()) == 13  # seat 3 has no club: anything
    state.apply(card_action(C("AD")))  # sluff
    state.apply(card_action(C("AH")))
    view = state.view(2)
    assert view.shown_void(3, cards.CLUBS) and view.shown_void(0, cards.CLUBS)
    assert not view.shown_void(1, cards.CLUBS)
    assert state.last_trick_winner == 2  # highest of the suit led when nobody ruffs (P3.1)
    assert state.current_player == 2  # the winner leads (P2)


def test_over_ruff_highest_spade_wins():
    state = SpadesState(KILLER, 0, deal=LEAD_DEAL)
    to_play(state)
    state.apply(card_action(C("2C")))
    state.apply(card_action(C("AC")))
    state.apply(card_action(C("JS")))  # seat 3 ruffs
    state.apply(card_action(C("AH")))
    assert state.last_trick_winner == 3
    # seat 3 leads hearts? it has none; it leads a diamond: 1 ruffs low, 2 over-ruffs
    state.apply(card_action(C("6D")))
    state.apply(card_action(C("2H")))
    state.apply(card_action(C("2S")))
    state.apply(card_action(C("2D")))
    assert state.last_trick_winner == 1


def test_jokers_are_top_spades():
    rules = CUTTHROAT.replace(jokers=True)
    deal = deal_of(
        "LJ 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH",
        "BJ 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC",
        "3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD 2H",
        "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS",
    )
    state = SpadesState(rules, 0, deal=deal)
    to_play(state)
    state.apply(card_action(C("BJ")))  # seat 1 leads the big joker: a spade
    assert state.spades_broken
    assert len(state.legal_actions()) == 13  # seat 2 holds no spade: anything
    state.apply(card_action(C("2H")))
    assert state.legal_actions() == [card_action(c) for c in range(39, 52)]
    state.apply(card_action(C("AS")))
    assert state.legal_actions() == [card_action(C("LJ"))]  # a joker follows spades
    state.apply(card_action(C("LJ")))
    assert state.last_trick_winner == 1  # BJ > LJ > AS
    with pytest.raises(cards.CardError, match="2C of hand 0 is not in this game's deck"):
        SpadesState(rules, 0, deal=deal_of(*[" ".join(cards.names(range(i * 13, i * 13 + 13)))
                                             for i in range(4)]))


# -------------------------------------------------------- property tests


def _random_game_checks(rules, seed, hands=1):
    rng = np.random.default_rng(seed)
    state = SpadesState(rules.replace(max_hands=hands), seed)
    deck = set(cards.make_deck(rules.jokers))
    while not state.is_over:
        legal = state.legal_actions()
        assert legal == oracle_legal(state)
        views = [state.view(seat) for seat in range(4)]
        played = [c for _, c in views[0].plays]
        in_hands = [c for v in views for c in v.hand]
        assert sorted(played + in_hands) == sorted(deck)  # cards conserved
        for seat, view in enumerate(views):
            assert len(view.hand) == 13 - sum(s == seat for s, _ in view.plays)
        state.apply(legal[int(rng.integers(len(legal)))])
    return state


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**31), preset=st.sampled_from(["killer", "cutthroat"]),
       jokers=st.booleans())
def test_legal_set_matches_rules_and_cards_are_conserved(seed, preset, jokers):
    rules = get_rules(preset, jokers=jokers)
    state = _random_game_checks(rules, seed, hands=2)
    totals, bags = [0] * 4, [0] * 4
    for result in state.results:
        assert sum(result.tricks) == 13
        for seat in range(4):
            points, bags[seat] = _oracle_points(rules, result.bids[seat], result.tricks[seat],
                                                bags[seat])
            assert result.points[seat] == points
            totals[seat] += points
        assert list(result.totals) == totals and list(result.bags) == bags


def _oracle_points(rules, bid, tricks, bags):
    """docs/rules.md section 1 scoring, counted one overtrick (one bag) at a time."""
    if bid == 0:
        return (rules.nil_points if tricks == 0 else -rules.nil_points), bags
    if tricks < bid:
        return -10 * bid, bags
    points = 10 * bid
    for _ in range(tricks - bid):
        points += rules.overtrick_points
        if rules.bag_limit:
            bags += 1
            if bags == rules.bag_limit:
                points -= rules.bag_penalty
                bags = 0
    return points, bags


def test_illegal_action_error_names_action_player_and_legal_set():
    state = SpadesState(KILLER, 4)
    to_play(state)
    before = state.clone()
    bad = next(a for a in range(14, 68) if a not in state.legal_actions())
    with pytest.raises(IllegalActionError) as err:
        state.apply(bad)
    msg = str(err.value)
    assert str(bad) in msg and action_name(bad) in msg and f"player_{state.current_player}" in msg
    assert str(state.legal_actions()) in msg
    for seat in range(4):
        assert state.view(seat) == before.view(seat)
    with pytest.raises(IllegalActionError):
        state.apply(3)  # a bid during play


# -------------------------------------------------------------------- views


def test_view_shows_own_hand_only_and_round_trips_through_json():
    state = SpadesState(CUTTHROAT.replace(jokers=True), 11)
    rng = np.random.default_rng(1)
    for _ in range(30):
        legal = state.legal_actions()
        state.apply(legal[int(rng.integers(len(legal)))])
    for seat in range(4):
        view = state.view(seat)
        text = json.dumps(view.to_dict())
        assert json.loads(text)["hand"] == cards.names(view.hand)
        assert SpadesView.from_dict(json.loads(text)) == view
    with pytest.raises(ValueError, match="not a Spades view"):
        SpadesView.from_dict({"game": "gin_rummy"})


def test_clone_is_independent():
    state = SpadesState(KILLER, 5)
    copy = state.clone()
    play_hand_with_bids(copy, [2, 2, 2, 2])
    assert state.hand_number == 1 and state.phase == "bid" and state.scores == [0] * 4
    play_hand_with_bids(state, [2, 2, 2, 2])
    assert all(state.view(s).hand == copy.view(s).hand for s in range(4))  # same next deal


def test_same_seed_same_deals_whatever_is_played():
    a, b = SpadesState(KILLER, 21), SpadesState(KILLER, 21)
    play_hand_with_bids(a, [1, 2, 3, 4], np.random.default_rng(1))
    play_hand_with_bids(b, [5, 0, 0, 2], np.random.default_rng(2))
    assert a.hand_number == b.hand_number == 2
    assert all(a.view(s).hand == b.view(s).hand for s in range(4))


def test_rules_errors_name_the_bad_value():
    with pytest.raises(RulesError, match="first_dealer.*7"):
        KILLER.replace(first_dealer=7)
    with pytest.raises(RulesError, match="bag_limit"):
        CUTTHROAT.replace(bag_limit=0)
    with pytest.raises(RulesError, match="unknown Spades rules field.*colour"):
        KILLER.replace(colour="red")
    with pytest.raises(RulesError, match="'bridge'"):
        get_rules("bridge")


def test_action_names_and_parsing():
    assert action_name(0) == "bid nil" and action_name(5) == "bid 5"
    assert action_name(card_action(C("QS"))) == "QS"
    assert parse_action("nil") == 0 and parse_action("10") == 10
    assert parse_action("10H") == card_action(C("10H"))
    with pytest.raises(ValueError, match="'14'"):
        parse_action("14")
