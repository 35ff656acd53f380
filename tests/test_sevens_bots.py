"""Sevens rule bots: greedy takes the most points now, lookahead's expectation is exact."""

import itertools
import math

import numpy as np
import pytest

from cardrl import agents
from cardrl.envs import cards
from cardrl.envs.sevens import SevensState, get_rules
from cardrl.envs.sevens.actions import card_action
from cardrl.envs.sevens.engine import RANK, playable_cards
from cardrl.envs.sevens.reply import expected_best_reply
from cardrl.envs.sevens.scoring import points_for_total
from tests.sevens_util import fixed_rules

C = cards.parse


def test_registered_and_play_only_legal_actions_at_every_table_size():
    assert agents.describe("sevens/greedy") and agents.describe("sevens/lookahead")
    for n in (2, 5, 9):
        state = SevensState(get_rules(num_players=n), n)
        bots = [agents.make("sevens/lookahead" if s % 2 else "sevens/greedy") for s in range(n)]
        for s, b in enumerate(bots):
            b.reset(s)
        while not state.is_over:
            seat = state.current_player
            legal = state.legal_actions()
            action = bots[seat].act(state.view(seat), legal)
            assert action in legal and isinstance(action, int)
            state.apply(action)


def _greedy_choice_points(state, action):
    v = state.params.values[RANK[action >> 1]][action & 1]
    return points_for_total(state.total + v, state.params.points)


def test_greedy_always_takes_the_most_points_available():
    bot = agents.make("sevens/greedy")
    for seed in range(30):
        state = SevensState(get_rules(num_players=4), seed)
        while not state.is_over:
            legal = state.legal_actions()
            best = max(_greedy_choice_points(state, a) for a in legal)
            action = bot.act(state.view(state.current_player), legal)
            assert _greedy_choice_points(state, action) == best
            state.apply(action)


def test_lookahead_expectation_equals_brute_force_over_all_hands():
    rng = np.random.default_rng(0)
    for _ in range(20):
        unseen = sorted(int(c) for c in rng.choice(52, size=9, replace=False))
        gains = [int(g) for g in rng.integers(-5, 6, size=13)]
        last = int(rng.integers(52))
        held = int(rng.integers(1, 6))
        brute = []
        for hand in itertools.combinations(unseen, held):
            brute.append(max(gains[RANK[c]] for c in playable_cards(hand, last)))
        expected = sum(brute) / math.comb(9, held)
        assert expected_best_reply(gains, unseen, held, last) == pytest.approx(expected)


def test_lookahead_refuses_points_that_hand_the_next_player_more():
    # 9 players. Values: 2 = 3, 3 = 4, K = 10, 4/5/6 = 0, the rest 1; the table (three 4-6s
    # of diamonds and hearts, then KH) adds up to 10. Seat 0 holds only black cards, all
    # legal on KH: 3C/3S make 14 (+5 now) but leave 14, from which an unseen 3 makes 17
    # (+30 to the next player); 4C keeps 10 and leaves far less.
    values = [(1,)] * 13
    values[0], values[1], values[11] = (3,), (4,), (10,)
    values[2] = values[3] = values[4] = (0,)
    rules = fixed_rules(n=9, values=tuple(values), points=(5, 30, 40))
    deal_cards = cards.names(range(52))
    seat0 = ["2C", "3C", "2S", "3S", "4C"]
    table = ["4D", "5D", "6D", "4H", "5H", "6H", "KH"]
    rest = [c for c in deal_cards if c not in seat0 + table]
    deal = [seat0] + [rest[i * 5:(i + 1) * 5] for i in range(8)] + [table]
    state = SevensState(rules, 0, deal=deal)
    assert state.total == 10
    view = state.view(0)
    legal = state.legal_actions()
    greedy = agents.make("sevens/greedy").act(view, legal)
    lookahead = agents.make("sevens/lookahead").act(view, legal)
    assert _greedy_choice_points(state, greedy) == 5  # 3C or 3S: 14
    unseen = view.unseen()

    def risk(action):
        total = state.total + state.params.values[RANK[action >> 1]][0]
        gains = [max(points_for_total(total + v, rules.points) for v in vals)
                 for vals in state.params.values]
        return expected_best_reply(gains, unseen, 5, action >> 1)

    score = {a: _greedy_choice_points(state, a) - risk(a) for a in legal}
    assert lookahead == max(score, key=score.get)
    assert score[lookahead] > score[greedy]  # here the lookahead prefers another play
    assert lookahead in (card_action(C("2C")), card_action(C("2S")), card_action(C("4C")))


def test_bad_lookahead_option_is_refused():
    with pytest.raises(ValueError, match="'heavy'"):
        agents.make("sevens/lookahead:weight=heavy")
