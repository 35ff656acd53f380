"""The meld solver against brute force, and the meld rules it encodes."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardrl.envs import cards
from cardrl.envs.gin_rummy import melds
from cardrl.envs.gin_rummy.melds import (
    best_split,
    best_splits,
    cards_of,
    deadwood,
    deadwood_after_discards,
    layoff_deadwood,
    least_deadwood_after_discard,
    mask_of,
    meld_partners,
    meldable,
)
from tests.gin_rummy_util import all_melds, brute_force_deadwood, points

C = cards.parse


def dw(text: str) -> int:
    return deadwood(mask_of(cards.parse_many(text.split())))


@pytest.mark.parametrize("size", [10, 11])
def test_solver_equals_brute_force_on_thousands_of_random_hands(size):
    rng = np.random.default_rng(size)
    for _ in range(2500):
        hand = rng.choice(52, size, replace=False).tolist()
        assert deadwood(mask_of(hand)) == brute_force_deadwood(hand), cards.names(hand)


# hands rich in melds (few ranks and suits), where the solver has real choices
@settings(max_examples=250, deadline=None)
@given(st.lists(st.sampled_from([c for c in range(52) if cards.rank_of(c) in (12, 0, 1, 2, 3)
                                 or cards.suit_of(c) == 2]),
                min_size=10, max_size=11, unique=True))
def test_solver_equals_brute_force_on_meld_rich_hands(hand):
    assert deadwood(mask_of(hand)) == brute_force_deadwood(hand)


def test_a_set_and_a_run_sharing_a_card_count_only_one():
    # 7C 7D 7H set and 5H 6H 7H run share 7H: one of them, the other two cards deadwood
    assert dw("7C 7D 7H 5H 6H") == 5 + 6  # keep the set (21 points melded), 5H 6H dead
    assert brute_force_deadwood(cards.parse_many(["7C", "7D", "7H", "5H", "6H"])) == 11
    # with a fourth 7 both fit: 7C 7D 7S set and 5H 6H 7H run
    assert dw("7C 7D 7H 7S 5H 6H") == 0


def test_ace_is_low_only_and_points_follow_rule_9():
    assert dw("AS 2S 3S") == 0
    assert dw("QS KS AS") == 10 + 10 + 1  # Q-K-A is no run
    assert dw("JH QH KH") == 0
    assert dw("AC 5D 10H JS QC KD") == 1 + 5 + 10 + 10 + 10 + 10
    assert [points(C(c)) for c in ("AC", "9D", "10H", "KS")] == [1, 9, 10, 10]


def test_runs_do_not_wrap_between_suits():
    assert dw("QC KC AD 2D") == 10 + 10 + 1 + 2  # the mask's suit fields leave gaps
    assert dw("KC AD 2D") == 13


def test_best_splits_are_disjoint_real_melds_with_the_least_deadwood():
    rng = np.random.default_rng(7)
    for _ in range(300):
        hand = rng.choice(52, 11, replace=False).tolist()
        mask = mask_of(hand)
        legal = set(all_melds(hand))
        for split in best_splits(mask):
            used = 0
            for m in split:
                assert frozenset(cards_of(m)) in legal
                assert not used & m
                used |= m
            assert sum(points(c) for c in cards_of(mask & ~used)) == deadwood(mask)
        assert best_split(mask) in best_splits(mask)


def test_deadwood_after_each_discard_in_one_pass():
    rng = np.random.default_rng(3)
    for _ in range(500):
        hand = rng.choice(52, 11, replace=False).tolist()
        mask = mask_of(hand)
        full = deadwood_after_discards(mask)
        assert full == {c: brute_force_deadwood([x for x in hand if x != c]) for c in hand}
        assert deadwood_after_discards(mask, 10) == {c: d for c, d in full.items() if d <= 10}



@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=11, max_size=11, unique=True))
def test_least_deadwood_after_a_discard_is_the_least_of_every_discard(hand):
    mask = mask_of(hand)
    assert least_deadwood_after_discard(mask) == min(deadwood_after_discards(mask).values())
    assert least_deadwood_after_discard(mask) == min(
        brute_force_deadwood([x for x in hand if x != c]) for c in hand)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=0, max_size=11, unique=True))
def test_meld_partners_are_the_cards_that_would_join_a_meld(hand):
    mask = mask_of(hand)
    joins = {c for c in range(52) if c not in hand and meldable(mask | mask_of([c])) & mask_of([c])}
    assert set(cards_of(meld_partners(mask))) == joins


def test_meld_partners_table():
    hand = mask_of(cards.parse_many(["KH", "QH", "5C", "5D", "AS"]))
    partners = cards.names(cards_of(meld_partners(hand)))
    # JH extends Q-K of hearts; no card above K (ace low); 5H and 5S make the set of fives
    assert sorted(partners) == sorted(["JH", "5H", "5S"])

def test_layoffs_extend_runs_at_both_ends_and_complete_sets():
    knocker = [mask_of(cards.parse_many(m.split())) for m in ("5H 6H 7H", "9C 9D 9S")]
    hand = mask_of(cards.parse_many(["3H", "4H", "8H", "9H", "KC", "QD"]))
    left, laid = layoff_deadwood(hand, knocker)
    assert cards.names(cards_of(laid)) == ["3H", "4H", "8H", "9H"]  # 9H: run or set, once
    assert left == 20
    # a card may go on one meld only; the rest of the hand melds at best
    hand = mask_of(cards.parse_many(["9H", "10H", "JH", "QH", "2C"]))
    left, laid = layoff_deadwood(hand, knocker)
    assert left == 2 and cards.names(cards_of(laid)) == []  # 9H-QH is a meld of its own


def test_cache_limit_keeps_results_right(monkeypatch):
    monkeypatch.setattr(melds, "_CACHE_LIMIT", 4)
    rng = np.random.default_rng(11)
    for _ in range(200):
        hand = rng.choice(52, 10, replace=False).tolist()
        assert deadwood(mask_of(hand)) == brute_force_deadwood(hand)
