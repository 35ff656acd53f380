"""Gin Rummy's compiled meld kernels equal ``melds.py`` and ``scoring.py`` on random hands.

The generic test (tests/test_compiled.py) plays random games, which seldom knock, and
more seldom still with layoffs onto several best splits; these drive the kernels that
score a knock directly, on hands rich in melds.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cardrl.envs import cards
from cardrl.envs.gin_rummy import compiled, meld_kernels, melds
from cardrl.envs.gin_rummy.rules import get_rules
from cardrl.envs.gin_rummy.scoring import settle_knock

# hands from few ranks, so that sets, runs and their overlaps are common
RICH = st.lists(st.integers(0, 51).filter(lambda c: c % 13 < 6 or c % 13 == 12),
                min_size=8, max_size=11, unique=True)
ANY = st.lists(st.integers(0, 51), min_size=8, max_size=11, unique=True)


@settings(max_examples=150, deadline=None)
@given(hand=st.one_of(RICH, ANY), limit=st.integers(0, 30))
def test_deadwood_and_knock_cards_equal_the_solver(hand, limit):
    m = melds.mask_of(hand)
    assert compiled.meldable(m) == melds.meldable(m)
    assert compiled.deadwood(m) == melds.deadwood(m)
    knock = melds.deadwood_after_discards(m, limit)
    assert compiled.knock_cards(m, limit) == melds.mask_of(knock)


@settings(max_examples=150, deadline=None)
@given(hand=st.one_of(RICH, ANY), seen=st.lists(st.integers(0, 51), max_size=40, unique=True),
       limit=st.integers(0, 30))
def test_the_look_ahead_counts_every_draw_by_brute_force(hand, seen, limit):
    """``draw_outlook`` (its shortcut: a draw melding with nothing replaces the best spare
    card) equals searching every draw; ``least_after_discard`` and ``meld_partners`` equal
    the solver's; ``card_mask`` maps card-id bits to hand bits."""
    kept = melds.mask_of(hand[:10])
    draws = melds.ALL_CARDS & ~kept & ~melds.mask_of(seen)
    after = [melds.least_deadwood_after_discard(kept | b) for b in melds.CARD_BIT if b & draws]
    got = meld_kernels.draw_outlook(kept, draws, limit)
    assert got == (sum(after), sum(d <= limit for d in after), after.count(0), len(after))
    assert meld_kernels.least_after_discard(kept) == melds.least_deadwood_after_discard(kept)
    assert meld_kernels.meld_partners(kept) == melds.meld_partners(kept)
    assert meld_kernels.card_mask(sum(1 << c for c in seen)) == melds.mask_of(seen)


def _outlook(hand: str, unseen: str, limit: int = 10) -> tuple:
    """``draw_outlook`` of a hand over named unseen cards."""
    return meld_kernels.draw_outlook(melds.mask_of(cards.parse_many(hand.split())),
                                     melds.mask_of(cards.parse_many(unseen.split())), limit)


def test_the_look_ahead_table():
    # 3-4-5C and three 7s meld; 9C KH QS JD are 39 deadwood. 6C extends the run, then a
    # ten-point card goes: 29. 2H melds nothing: it replaces a ten-point card, 31.
    assert _outlook("3C 4C 5C 7H 7S 7D 9C KH QS JD", "6C 2H") == (60, 0, 0, 2)
    # three melds and KH (10 deadwood): 9C makes four nines and KH goes, gin; 2H leaves 2
    # (a knock); KS melds with nothing and is thrown back, 10 (a knock at 10, not at 9)
    hand = "3C 4C 5C 7H 7S 7D 9H 9S 9D KH"
    assert _outlook(hand, "9C 2H KS") == (12, 3, 1, 3)
    assert _outlook(hand, "9C 2H KS", limit=9) == (12, 2, 1, 3)
    assert _outlook(hand, "") == (0, 0, 0, 0)


@settings(max_examples=150, deadline=None)
@given(hand=RICH, other=ANY)
def test_best_splits_in_the_solvers_order_and_layoffs(hand, other):
    m = melds.mask_of(hand)
    work = compiled.scratch()
    found = compiled.best_splits(m, work)
    splits, counts = work[compiled.W_SPLITS].copy(), work[compiled.W_COUNTS].copy()
    expected = melds.best_splits(m)
    assert [tuple(splits[k, :counts[k]]) for k in range(found)] == expected
    rest = melds.mask_of(c for c in other if c not in hand)
    for k, split in enumerate(expected):
        assert compiled.layoff_deadwood(rest, splits[k], counts[k], work) == \
            melds.layoff_deadwood(rest, split)[0]


@settings(max_examples=100, deadline=None)
@given(deck=st.permutations(range(52)), players=st.integers(2, 4), knocker=st.integers(0, 3),
       rich=st.booleans(), preset=st.sampled_from(["seed", "standard"]),
       ties=st.booleans())
def test_a_knock_is_scored_as_settle_knock_scores_it(deck, players, knocker, rich, preset,
                                                     ties):
    if rich:  # meld-rich hands: low ranks first
        deck = sorted(deck, key=lambda c: (c % 13 > 5, deck.index(c)))
    if preset == "standard":
        players = 2
    rules = get_rules(preset, num_players=players, knocker_wins_ties=ties,
                      **({} if preset == "standard" else {"layoff": True, "gin_bonus": 20}))
    knocker %= players
    hands = [melds.mask_of(deck[10 * s:10 * s + 10]) for s in range(players)]
    points = np.zeros(players, np.int64)
    winner = compiled.settle_knock(np.array(hands, np.int64), players, knocker, rules.layoff,
                                   rules.knocker_wins_ties, rules.gin_bonus,
                                   rules.undercut_bonus, points, compiled.scratch())
    expected = settle_knock(rules, knocker, hands)
    assert (winner, tuple(points.tolist())) == (expected.winner, expected.points)
