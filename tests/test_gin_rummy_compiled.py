"""Gin Rummy's compiled meld kernels equal ``melds.py`` and ``scoring.py`` on random hands.

The generic test (tests/test_compiled.py) plays random games, which seldom knock, and
more seldom still with layoffs onto several best splits; these drive the kernels that
score a knock directly, on hands rich in melds.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from envs.gin_rummy import compiled, melds
from envs.gin_rummy.rules import get_rules
from envs.gin_rummy.scoring import settle_knock

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
