"""Every scoring row of docs/rules.md section 1, for both presets, as table tests."""

import pytest

from cardrl.envs.spades.engine import SpadesState
from cardrl.envs.spades.rules import CUTTHROAT, KILLER
from cardrl.envs.spades.scoring import score_bid
from tests.spades_util import all_spades_deal, play_hand_with_bids

# (bid, tricks, bags before) -> (points, bags after, penalties)
KILLER_TABLE = [
    ((4, 4, 0), (40, 0, 0)),  # made exactly: +10 x bid (S1)
    ((13, 13, 0), (130, 0, 0)),
    ((5, 3, 0), (-50, 0, 0)),  # under: -10 x bid (S2)
    ((1, 0, 0), (-10, 0, 0)),
    ((3, 5, 0), (10, 0, 0)),  # over: 10 x bid - 10 x overtricks (S3)
    ((2, 9, 0), (-50, 0, 0)),
    ((0, 0, 0), (100, 0, 0)),  # nil made (S4)
    ((0, 1, 0), (-100, 0, 0)),  # nil failed (S4.1)
    ((0, 6, 0), (-100, 0, 0)),
]
CUTTHROAT_TABLE = [
    ((4, 4, 0), (40, 0, 0)),
    ((5, 3, 2), (-50, 2, 0)),  # under: no bags
    ((3, 5, 0), (32, 2, 0)),  # over: +1 per overtrick, each a bag
    ((3, 5, 3), (32 - 50, 0, 1)),  # bags reach 5: -50, count drops by 5
    ((1, 13, 0), (10 + 12 - 100, 2, 2)),  # 12 bags at once cross 5 twice
    ((2, 4, 4), (22 - 50, 1, 1)),
    ((0, 0, 3), (50, 3, 0)),  # nil made
    ((0, 2, 3), (-50, 3, 0)),  # nil failed: its tricks make no bags
]


@pytest.mark.parametrize(("args", "expected"), KILLER_TABLE)
def test_killer_scoring_table(args, expected):
    assert score_bid(KILLER, *args) == expected


@pytest.mark.parametrize(("args", "expected"), CUTTHROAT_TABLE)
def test_cutthroat_scoring_table(args, expected):
    assert score_bid(CUTTHROAT, *args) == expected


def test_bags_cross_five_more_than_once_in_a_game():
    bags, total, penalties = 0, 0, 0
    for bid, tricks in [(2, 5), (1, 3), (4, 4), (3, 6)]:  # 3 + 2 bags, then 0, then 3 more
        points, bags, pen = score_bid(CUTTHROAT, bid, tricks, bags)
        total += points
        penalties += pen
    assert penalties == 1 and bags == 3
    assert total == (20 + 3) + (10 + 2 - 50) + 40 + (30 + 3)
    for bid, tricks in [(1, 3), (1, 2)]:  # 3 + 2 + 1 = 6 bags: crosses 5 a second time
        points, bags, pen = score_bid(CUTTHROAT, bid, tricks, bags)
        penalties += pen
    assert penalties == 2 and bags == 1


@pytest.mark.parametrize(("rules", "bids", "points"), [
    (KILLER, [13, 0, 0, 0], [130, 100, 100, 100]),
    (KILLER, [10, 1, 0, 2], [70, -10, 100, -20]),  # 3 overtricks cost 30
    (CUTTHROAT, [12, 0, 0, 2], [121, 50, 50, -20]),
    (CUTTHROAT, [5, 0, 2, 1], [5 * 10 + 8 - 50, 50, -20, -10]),
])
def test_engine_scores_a_whole_hand(rules, bids, points):
    state = SpadesState(rules, 1, deal=all_spades_deal())
    play_hand_with_bids(state, bids)
    result = state.results[0]
    assert result.tricks == (13, 0, 0, 0)
    assert list(result.points) == points
    assert list(state.scores) == points


@pytest.mark.parametrize(("rules", "start", "over", "winner"), [
    (KILLER, 120, False, None),  # 120 + 130 = 250 is not over 250: the game goes on
    (KILLER, 121, True, 0),
    (CUTTHROAT, 370, True, 0),  # 370 + 130 = 500: at least 500 ends it
    (CUTTHROAT, 369, False, None),
])
def test_target_reached(rules, start, over, winner):
    state = SpadesState(rules, 1, deal=all_spades_deal())
    state.scores[0] = start
    play_hand_with_bids(state, [13, 1, 1, 2])
    assert state.is_over is over
    if over:
        assert state.winners == (winner,) and state.current_player is None
        assert state.legal_actions() == []
    else:
        assert state.hand_number == 2 and state.phase == "bid"


@pytest.mark.parametrize("rules", [KILLER, CUTTHROAT])
def test_tie_at_the_top_continues(rules):
    state = SpadesState(rules, 1, deal=all_spades_deal())
    nil = rules.nil_points
    state.scores[:] = [rules.target, rules.target + 130 - nil, 0, 0]
    play_hand_with_bids(state, [13, 0, 1, 1])  # seat 0 +130, seat 1 nil made
    assert state.scores[0] == state.scores[1] == rules.target + 130
    assert not state.is_over and state.hand_number == 2
    assert state.dealer == 1  # dealer rotated clockwise


def test_dealer_rotation_and_first_bidder():
    state = SpadesState(KILLER, 3)
    for hand in range(1, 5):
        assert state.hand_number == hand
        assert state.dealer == (hand - 1) % 4  # seat 0 deals first (A2.1)
        assert state.current_player == (state.dealer + 1) % 4  # left of dealer bids (B1)
        play_hand_with_bids(state, [3, 3, 3, 3])


def test_random_first_dealer_option_is_seeded():
    rules = CUTTHROAT.replace(first_dealer=None)
    dealers = {SpadesState(rules, seed).dealer for seed in range(30)}
    assert dealers == {0, 1, 2, 3}
    assert SpadesState(rules, 5).dealer == SpadesState(rules, 5).dealer


def test_max_hands_cap_ends_the_game_with_top_scorers():
    state = SpadesState(KILLER.replace(max_hands=2), 9)
    play_hand_with_bids(state, [1, 1, 1, 1])
    assert not state.is_over
    play_hand_with_bids(state, [1, 1, 1, 1])
    assert state.is_over and state.hand_number == 2
    top = max(state.scores)
    assert state.winners == tuple(s for s in range(4) if state.scores[s] == top)
