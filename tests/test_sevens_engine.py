"""Sevens engine: deal sizes, the colour-then-suit rule, scoring table, conservation, errors."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardrl.envs import cards
from cardrl.envs.sevens import IllegalActionError, SevensState, SevensView, get_rules
from cardrl.envs.sevens.actions import NUM_ACTIONS, action_name, card_action, parse_action
from cardrl.envs.sevens.rules import RulesError, SevensRules
from cardrl.envs.sevens.scoring import (
    TOTAL_RANGE,
    contains_seven,
    divisible_by_seven,
    points_for_total,
    points_for_totals,
)
from tests.sevens_util import TWO_VALUES, fixed_rules, oracle_legal, play_random, random_deal

C = cards.parse


# ------------------------------------------------------------------ dealing
@pytest.mark.parametrize("n, k, table", [(2, 25, 2), (3, 17, 1), (4, 12, 4), (5, 10, 2),
                                         (6, 8, 4), (7, 7, 3), (8, 6, 4), (9, 5, 7)])
def test_deal_sizes_for_every_player_count(n, k, table):
    state = SevensState(get_rules(num_players=n), n)
    assert state.hand_sizes == (k,) * n
    assert len(state.table) == table == 52 - n * k >= 1
    dealt = [c for h in state.hands for c in h] + list(state.table)
    assert sorted(dealt) == list(range(52))
    assert state.last_card == state.table[-1]
    assert state.current_player == 0


def test_table_cards_count_their_first_value_and_earn_nothing():
    rules = fixed_rules(n=3, values=TWO_VALUES)
    rest = [c for c in cards.names(range(52)) if c != "7C"]
    deal = [rest[:17], rest[17:34], rest[34:], ["7C"]]  # one table card: 7 or -7, counts 7
    state = SevensState(rules, 0, deal=deal)
    assert state.total == 7 and state.scores == [0, 0, 0] and state.last_card == C("7C")
    five = fixed_rules(n=5, values=TWO_VALUES)  # two table cards, both at their first value
    rest = [c for c in cards.names(range(52)) if c not in ("2C", "AS")]
    state = SevensState(five, 0, deal=[rest[i * 10:(i + 1) * 10] for i in range(5)]
                        + [["AS", "2C"]])
    assert state.total == 14 + 2 and state.last_card == C("2C") and state.scores == [0] * 5


@pytest.mark.parametrize("n", [2, 4, 9])
def test_given_deal_replays_and_is_checked(n):
    deal = random_deal(n, np.random.default_rng(n))
    state = SevensState(get_rules(num_players=n), 1, deal=deal)
    assert [cards.names(h) for h in state.hands] == [sorted(h, key=C) for h in deal[:n]]
    assert cards.names(state.table) == deal[n]  # the table in the order given
    no_table = SevensState(get_rules(num_players=n), 1, deal=deal[:n])
    assert list(no_table.table) == sorted(C(c) for c in deal[n])
    with pytest.raises(cards.CardError, match=f"misdeal: hand 0 has {51 // n - 1} cards"):
        SevensState(get_rules(num_players=n), 1, deal=[deal[0][1:]] + deal[1:])
    with pytest.raises(cards.CardError, match="table cards"):
        SevensState(get_rules(num_players=n), 1, deal=deal[:n] + [deal[n][:-1]])
    with pytest.raises(cards.CardError, match="table cards"):
        SevensState(get_rules(num_players=n), 1, deal=deal[:n] + [deal[n][:-1] + [deal[0][0]]])
    with pytest.raises(cards.CardError, match=f"{n} hands"):
        SevensState(get_rules(num_players=n), 1, deal=deal[: n - 1])


# ------------------------------------------------------- colour, then suit
def nine_player_deal(last: str, hand: str) -> list[list[str]]:
    """9 players (5 cards each, 7 on the table): seat 0 holds ``seat0``, the table is six
    cards of symbols 3..6 and then ``last``, the other seats hold the rest."""
    seat0 = hand.split()
    assert len(seat0) == 5
    filler = [c for c in cards.names(range(52)) if c[:-1] in "3456" and c not in seat0
              and c != last][:6]
    rest = [c for c in cards.names(range(52)) if c not in seat0 + filler + [last]]
    return [seat0] + [rest[i * 5:(i + 1) * 5] for i in range(8)] + [filler + [last]]


def _legal_cards(state) -> list[str]:
    return cards.names(sorted({a >> 1 for a in state.legal_actions()}))


@pytest.mark.parametrize("hand, legal", [
    # last card KH (red): seat 0 holds black cards -> only those
    ("2C 3C 4S 5H 6D", "2C 3C 4S"),
    # only red cards: hearts and diamonds -> another suit than hearts
    ("2D 5H 9D 7H 8H", "2D 9D"),
    # only hearts -> anything
    ("5H 9H AH 2H 3H", "2H 3H 5H 9H AH"),
])
def test_colour_then_suit_restriction(hand, legal):
    state = SevensState(fixed_rules(n=9), 0, deal=nine_player_deal("KH", hand))
    assert cards.name(state.last_card) == "KH"
    assert _legal_cards(state) == legal.split()
    refused = [c for c in hand.split() if c not in legal.split()]
    for c in refused:
        with pytest.raises(IllegalActionError):
            state.apply(card_action(C(c)))
    assert len(state.hands[0]) == 5


def test_nine_player_helper_builds_the_deal_it_claims():
    deal = nine_player_deal("KH", "2D 5H 9D 7H 8H")
    assert " ".join(deal[0]) == "2D 5H 9D 7H 8H" and deal[9][-1] == "KH" and len(deal[9]) == 7
    assert sorted(sum(deal, []), key=C) == cards.names(range(52))


def test_the_rule_follows_the_last_card_played():
    state = SevensState(fixed_rules(n=9), 0, deal=nine_player_deal("KH", "2C 3C 4S 5H 6D"))
    state.apply(card_action(C("2C")))  # seat 1 now plays on a black club
    hand1 = cards.names(state.hands[1])
    expected = [c for c in hand1 if c[-1] in "DH"] or [c for c in hand1 if c[-1] != "C"] \
        or hand1
    assert _legal_cards(state) == sorted(expected, key=C)
    assert state.last_card == C("2C")


# --------------------------------------------------------------- scoring
@pytest.mark.parametrize("total, div, has7", [
    (0, True, False), (7, True, True), (14, True, False), (17, False, True),
    (70, True, True), (77, True, True), (71, False, True), (49, True, False),
    (-7, True, True), (-14, True, False), (-17, False, True), (-21, True, False),
    (107, False, True), (700, True, True), (1, False, False), (-1, False, False),
])
def test_divisible_and_contains_seven(total, div, has7):
    assert divisible_by_seven(total) is div
    assert contains_seven(total) is has7
    expected = {(True, False): 5, (False, True): 3, (True, True): 20, (False, False): 0}
    assert points_for_total(total, (5, 3, 20)) == expected[div, has7]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-3 * TOTAL_RANGE, 3 * TOTAL_RANGE), min_size=1, max_size=30),
       st.tuples(*[st.integers(-50, 50)] * 3))
def test_points_for_totals_is_the_rule_per_entry(totals, points):
    """The encoder's array lookup gives the rule's points for every total, in the
    table's range and past it (fixed parameters may use any values)."""
    grid = np.array(totals).reshape(1, -1)
    got = points_for_totals(grid, points)
    assert got.shape == grid.shape
    assert got[0].tolist() == [points_for_total(t, points) for t in totals]
    inside = np.clip(grid, -TOTAL_RANGE, TOTAL_RANGE)
    assert points_for_totals(inside, points)[0].tolist() == [
        points_for_total(int(t), points) for t in inside[0]]


def _scoring_state(table_value: int, card_values: tuple[int, ...], points=(5, -3, 20)):
    """9 players; the table adds up to ``table_value`` (KH, after six cards worth 0), seat 0
    plays 2C, whose symbol is worth ``card_values``."""
    values = [(0,)] * 13
    values[11] = (table_value,)  # K
    values[0] = card_values  # 2
    deal = nine_player_deal("KH", "2C 3C 4S 5H 6D")
    return SevensState(fixed_rules(n=9, values=tuple(values), points=points), 0, deal=deal)


@pytest.mark.parametrize("table_value, card_value, points_after", [
    (-3, 3, 5),      # total 0: divisible by 7 (0 counts)
    (63, 7, 20),     # 70: divisible and contains 7 -> both
    (70, 7, 20),     # 77: both
    (10, 7, -3),     # 17: contains only -> the (negative) contains amount
    (10, 11, 5),     # 21: divisible only
    (-20, 3, -3),    # -17: contains 7 (absolute value) -> punishment
    (-20, 6, 5),     # -14: divisible
    (-20, -50, 20),  # -70: both
    (10, 2, 0),      # 12: nothing
])
def test_points_of_a_play_follow_the_table(table_value, card_value, points_after):
    state = _scoring_state(table_value, (card_value,))
    assert state.total == table_value
    state.apply(card_action(C("2C")))
    assert state.total == table_value + card_value
    assert state.scores == [points_after] + [0] * 8
    assert state.plays == [(0, C("2C"), card_value)]


def test_a_chosen_second_value_counts():
    # 10 + 2 = 12 scores nothing, 10 + 4 = 14 is divisible by 7
    for index, total, pts in [(0, 12, 0), (1, 14, 5)]:
        state = _scoring_state(10, (2, 4))
        assert card_action(C("2C"), 1) in state.legal_actions()
        state.apply(card_action(C("2C"), index))
        assert (state.total, state.scores[0], state.plays[-1][2]) == (total, pts, (2, 4)[index])


def test_second_value_action_is_illegal_for_a_one_value_symbol():
    state = _scoring_state(10, (2,))
    before = state.view(0)
    with pytest.raises(IllegalActionError, match="2C/2"):
        state.apply(card_action(C("2C"), 1))
    assert state.view(0) == before


# ---------------------------------------------------- whole games, oracle
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(2, 9), preset=st.sampled_from(["random",
                                                                                  "classic"]))
def test_masks_equal_oracle_cards_conserved_points_follow_table(seed, n, preset):
    rules = get_rules(preset, num_players=n)
    state = SevensState(rules, seed)
    rng = np.random.default_rng(seed)
    points = state.params.points
    expected_scores = [0] * n
    total = state.total
    while not state.is_over:
        seat = state.current_player
        view = state.view(seat)
        assert state.legal_actions() == oracle_legal(view)
        a = state.legal_actions()[int(rng.integers(len(state.legal_actions())))]
        value = state.params.values[cards.rank_of(a // 2)][a % 2]
        total += value
        div, has7 = total % 7 == 0, "7" in str(abs(total))
        expected_scores[seat] += points[2] if div and has7 else points[0] if div else \
            points[1] if has7 else 0
        state.apply(a)
        held = [c for h in state.hands for c in h]
        on_table = list(state.table) + [c for _, c, _ in state.plays]
        assert sorted(held + on_table) == list(range(52))
        assert state.total == total and state.scores == expected_scores
        assert state.current_player in (None, (seat + 1) % n)
    assert len(state.plays) == n * (51 // n)
    assert state.results[0].points == tuple(expected_scores)
    top = max(expected_scores)
    assert state.winners == tuple(s for s in range(n) if expected_scores[s] == top)
    assert state.legal_actions() == []


def test_parameters_are_drawn_per_game_within_the_ranges_and_repeat_with_the_seed():
    rules = get_rules("random", num_players=4)
    seen = set()
    for seed in range(200):
        p = SevensState(rules, seed).params
        assert p == SevensState(rules, seed).params
        seen.add(p)
        for vals in p.values:
            assert len(vals) in (1, 2) and len(set(vals)) == len(vals)
            assert all(rules.value_min <= v <= rules.value_max for v in vals)
        assert all(rules.points_min <= x <= rules.points_max for x in p.points)
    assert len(seen) == 200
    two = sum(len(v) == 2 for s in range(200) for v in SevensState(rules, s).params.values)
    assert 0.4 < two / (200 * 13) < 0.6  # second_value_chance 0.5


def test_fixed_parameters_are_used_and_the_deal_stays_that_of_the_seed():
    drawn = SevensState(get_rules(num_players=3), 5)
    fixed = SevensState(get_rules("classic", num_players=3), 5)
    assert fixed.params.values[12] == (1, 11) and fixed.params.points == (5, 3, 20)
    assert fixed.hands == drawn.hands and fixed.table == drawn.table
    text = SevensRules(values="2,3,4,5,6,7,8,9,10,10,10,10,1/11", points="5,3,20")
    assert text.values == get_rules("classic").values and text.points == (5, 3, 20)


@pytest.mark.parametrize("changes, bad", [
    ({"num_players": 1}, "1"), ({"num_players": 10}, "10"),
    ({"values": [(1,)] * 12}, "13 symbols"), ({"values": [(1, 1)] * 13}, "must differ"),
    ({"values": [(1, 2, 3)] + [(1,)] * 12}, "(1, 2, 3)"), ({"points": (1, 2)}, "(1, 2)"),
    ({"values": "1,2,x"}, "'1,2,x'"), ({"max_hands": 0}, "0"),
    ({"value_min": 5, "value_max": 1}, "value_min"), ({"second_value_chance": 2}, "2"),
    ({"colour": "red"}, "colour"),
])
def test_bad_rules_are_refused_naming_the_value(changes, bad):
    with pytest.raises(RulesError) as err:
        get_rules("random", **changes)
    assert bad in str(err.value)


def test_illegal_actions_raise_and_change_nothing():
    state = SevensState(get_rules(num_players=5), 3)
    before = [state.view(s) for s in range(5)]
    legal = state.legal_actions()
    illegal = [a for a in range(NUM_ACTIONS) if a not in legal][0]
    for bad in (illegal, -1, NUM_ACTIONS, None, True, "2C"):
        with pytest.raises(IllegalActionError, match="legal"):
            state.apply(bad)
    assert [state.view(s) for s in range(5)] == before


def test_view_round_trips_through_json_and_hides_other_hands():
    state = SevensState(get_rules(num_players=4), 8)
    play_random(state, np.random.default_rng(1), stop_after=9)
    for seat in range(4):
        view = state.view(seat)
        d = json.loads(json.dumps(view.to_dict()))
        assert SevensView.from_dict(d) == view
        others = {c for s in range(4) if s != seat for c in state.hands[s]}
        assert not set(cards.parse_many(d["hand"])) & others
        assert sorted(view.unseen()) == sorted(others)


def test_action_names_round_trip():
    for a in range(NUM_ACTIONS):
        assert parse_action(action_name(a)) == a
    assert action_name(card_action(C("AS"), 1)) == "AS/2"
    with pytest.raises(ValueError, match="'LJ'"):
        parse_action("LJ")
