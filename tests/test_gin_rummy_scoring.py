"""The Gin Rummy scoring table (rules 6c-8 and the standard preset), as table tests."""

import pytest

from cardrl.envs import cards
from cardrl.envs.gin_rummy import SEED, STANDARD, GinRummyState
from cardrl.envs.gin_rummy.actions import DRAW_STOCK, discard_action, knock_action
from cardrl.envs.gin_rummy.melds import mask_of
from cardrl.envs.gin_rummy.scoring import HandResult, settle_knock
from tests.gin_rummy_util import C, full_deal, hands_of

# ten-card hands with known deadwood (melds in brackets)
GIN = "AC 2C 3C 4D 4H 4S 9S 10S JS QS"  # [A23C] [444] [9-Q S]: 0
FIVE = "AC 2C 3C 4D 4H 4S 9S 10S JS 5H"  # 5H: 5
EIGHT = "AC 2C 3C 4D 4H 4S 9S 10S JS 8D"  # 8D: 8
THREE_A = "5C 6C 7C 8H 8S 8D KH KS KD 3H"  # 3H: 3
THREE_B = "JC QC KC 9C 9D 9H 6H 6S 6D 3S"  # 3S: 3
TWENTY = "2D 3S 5D 6S 7D 10C JD QH KC AH"  # no meld: 2+3+5+6+7+10+10+10+10+1 = 64
THIRTY = "2H 3H 4H 5S 6D 7C 8C QD KH 10D"  # [234H]: 5+6+7+8+10+10+10 = 56


FOUR = SEED.replace(num_players=4)


def masks(*hands: str) -> list[int]:
    return [mask_of(cards.parse_many(h.split())) for h in hands]


# (rules, knocker, hands) -> (winner, points per seat)
TABLE = [
    # 2 players: the plain difference (rule 8)
    (SEED, 0, (FIVE, TWENTY), 0, (64 - 5, 0)),
    (SEED, 1, (THIRTY, EIGHT), 1, (0, 56 - 8)),
    # gin: no bonus in seed
    (SEED, 0, (GIN, TWENTY), 0, (64, 0)),
    # 3 players: the winner scores the sum of the others less its own, once
    (SEED, 0, (FIVE, TWENTY, THIRTY), 0, (64 + 56 - 5, 0, 0)),
    (SEED, 2, (TWENTY, THIRTY, EIGHT), 2, (0, 0, 64 + 56 - 8)),
    # a player with less deadwood than the knocker wins (rule 7)
    (SEED, 0, (EIGHT, THREE_A, TWENTY), 1, (0, 8 + 64 - 3, 0)),
    # a tie for least: the knocker wins it ...
    (SEED, 0, (THREE_A, THREE_B), 0, (0, 0)),
    (SEED, 1, (THIRTY, THREE_A, THREE_B), 1, (0, 56 + 3 - 3, 0)),
    # ... else the first tied player after the knocker (seat 3 after 2, then 0)
    (FOUR, 2, (THREE_A, TWENTY, EIGHT, THREE_B), 3, (0, 0, 0, 64 + 8 + 3 - 3)),
    (FOUR, 3, (THREE_A, THREE_B, TWENTY, EIGHT), 0, (64 + 8 + 3 - 3, 0, 0, 0)),
    # standard: gin bonus 25; undercut (less, or a tie) 25 to the defender
    (STANDARD, 0, (GIN, TWENTY), 0, (64 + 25, 0)),
    (STANDARD, 1, (THREE_A, EIGHT), 0, (8 - 3 + 25, 0)),
    (STANDARD, 0, (THREE_A, THREE_B), 1, (0, 25)),
    (STANDARD, 0, (FIVE, THIRTY), 0, (56 - 5, 0)),
]


@pytest.mark.parametrize(("rules", "knocker", "hands", "winner", "points"), TABLE)
def test_scoring_table(rules, knocker, hands, winner, points):
    s = settle_knock(rules, knocker, masks(*hands))
    assert (s.winner, s.points) == (winner, points)
    assert s.undercut == (winner != knocker)


def test_gin_bonus_goes_to_gin_even_on_a_tie_and_blocks_layoffs():
    other = "AH 2H 3H 5D 5S 5C 10D JD QD KD"  # gin as well: 0
    s = settle_knock(STANDARD, 0, masks(GIN, other))
    assert (s.winner, s.points, s.gin) == (0, (25, 0), True)
    lays = "5H 6H 7H 8H 2D 3D 4C 10H JH KS"  # 2D 3D 4C could go on [A23C]? no: 4C
    s = settle_knock(STANDARD, 0, masks(GIN, lays))
    assert s.laid_off == ((), ())  # nothing is laid off on gin


def test_layoffs_reduce_the_defenders_deadwood():
    knocker = EIGHT  # [A23C] [444] [9-J S], 8D
    defender = "4C 5C QS KS 8H 8C 2H 2D 7D 6H"
    hands = masks(knocker, defender)
    plain = settle_knock(SEED, 0, hands)  # no layoffs in seed
    laid = settle_knock(STANDARD, 0, hands)
    # 4C 5C extend A23C, QS KS extend 9-J S; 8H 8C 2H 2D 7D 6H stay: 33
    assert plain.deadwood == (8, 4 + 5 + 10 + 10 + 33)
    assert laid.deadwood == (8, 33)
    assert sorted(laid.laid_off[1]) == sorted(cards.parse_many(["4C", "5C", "QS", "KS"]))
    assert laid.points == (33 - 8, 0) and plain.points == (4 + 5 + 10 + 10 + 33 - 8, 0)


def test_layoffs_can_turn_a_knock_into_an_undercut():
    defender = "QS KS 6H 7H 8H 5D 5S 5C 2D 3D"  # QS KS lay off; 2D 3D: 5 left
    s = settle_knock(STANDARD, 0, masks(EIGHT, defender))
    assert s.deadwood == (8, 5) and s.winner == 1 and s.points == (0, 3 + 25)


def test_the_knocker_picks_the_split_leaving_the_others_most_deadwood():
    # [4H 5H 6H] leaves 5C 5D, [5C 5D 5H] leaves 4H 6H: 10 either way, plus 8C 8D
    knocker = "4H 5H 6H 5C 5D AS 2S 3S 8C 8D"
    defender = "7H 9C 9D 9S JC QC KC 2D 3D 4D"  # 7H lays off on the run only
    s = settle_knock(STANDARD, 0, masks(knocker, defender))
    assert s.deadwood == (26, 7) and s.laid_off == ((), ())
    assert tuple(cards.parse_many(["5C", "5D", "5H"])) in s.knocker_melds


# ------------------------------------------------------ through the engine
def knock_deal(rules, knocker_hand: str, other_hands: list[str], upcard: str, draw: str):
    """Seat 1 (left of dealer 0) draws ``draw`` from the stock and knocks."""
    hands = hands_of(*(["" for _ in range(rules.num_players)]))
    hands[1] = knocker_hand.split()
    others = iter(other_hands)
    for seat in range(rules.num_players):
        if seat != 1:
            hands[seat] = next(others).split()
    return full_deal(hands, upcard, draw)


@pytest.mark.parametrize(("before", "over"), [(40, False), (41, True), (90, True)])
def test_game_ends_when_a_total_reaches_100(before, over):
    deal = knock_deal(SEED, FIVE, [TWENTY], "QC", "KH")  # seat 1 wins 64 - 5 = 59
    state = GinRummyState(SEED, 0, deal=deal)
    state.scores = [0, before]
    state.apply(DRAW_STOCK)
    state.apply(knock_action(C("KH")))
    assert state.results[0].points == (0, 59) and state.scores == [0, before + 59]
    assert state.is_over == over
    if over:
        assert state.winners == (1,) and state.current_player is None
    else:
        assert state.hand_number == 2 and not state.winners
        assert state.dealer == 1 and state.current_player == 0  # the deal passes left


def test_two_past_the_target_in_one_hand_the_higher_total_wins():
    deal = knock_deal(SEED, FIVE, [TWENTY], "QC", "KH")
    state = GinRummyState(SEED, 0, deal=deal)
    state.scores = [120, 50]  # (only reachable with a lower target before; the rule holds)
    state.apply(DRAW_STOCK)
    state.apply(knock_action(C("KH")))
    assert state.scores == [120, 109] and state.winners == (0,)


def test_stock_running_out_ends_the_hand_with_no_points():
    for rules in (SEED.replace(num_players=3), STANDARD):
        state = GinRummyState(rules, 4)
        stock_before = len(state.stock)
        while state.hand_number == 1:
            state.apply(DRAW_STOCK)
            legal = state.legal_actions()
            state.apply(next(a for a in legal if a < 54))  # never knock
        result = state.results[0]
        assert result.dead and result.points == (0,) * rules.num_players
        assert result.winner is None and result.deadwood == ()  # nobody's hand is shown
        assert state.scores == [0] * rules.num_players
        turns = stock_before - rules.dead_stock
        assert state.dealer == 1 and result.totals == (0,) * rules.num_players
        assert len(state.results) == 1 and turns > 0


def test_hand_result_round_trips_through_a_dict():
    deal = knock_deal(STANDARD, FIVE, [TWENTY], "QC", "KH")
    state = GinRummyState(STANDARD, 0, deal=deal)
    state.apply(DRAW_STOCK)
    state.apply(knock_action(C("KH")))
    result = state.results[0]
    assert HandResult.from_dict(result.to_dict()) == result
    assert result.knocker == 1 and result.winner == 1 and not result.gin


def test_a_plain_discard_is_no_knock():
    deal = knock_deal(SEED, FIVE, [TWENTY], "QC", "KH")
    state = GinRummyState(SEED, 0, deal=deal)
    state.apply(DRAW_STOCK)
    state.apply(discard_action(C("KH")))
    assert not state.results and state.current_player == 0
