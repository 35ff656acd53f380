"""World samplers: deals of the hidden cards that fit what a seat saw, each equally likely,
built from the view alone."""

from __future__ import annotations

from collections import Counter
from itertools import permutations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardrl.envs import cards
from cardrl.envs.games import get_game
from cardrl.envs.sevens.engine import SUIT as SEVENS_SUIT
from cardrl.envs.spades.engine import SUIT_TABLE
from cardrl.envs.worlds import ANY_SUIT, ImpossibleDealError, deal_unseen
from tests.env_checks import random_moves

CLUBS, DIAMONDS = 1 << cards.CLUBS, 1 << cards.DIAMONDS


def brute_force_deals(unseen, room, allowed):
    """Every fitting deal, by trying every order of the cards."""
    deals = set()
    for order in permutations(unseen):
        hands, at = [], 0
        for r in room:
            hands.append(tuple(sorted(order[at:at + r])))
            at += r
        if all(allowed[i] >> cards.suit_of(c) & 1 for i, h in enumerate(hands) for c in h):
            deals.add(tuple(hands))
    return deals


@pytest.mark.parametrize("room, allowed", [
    ((2, 2, 3), (ANY_SUIT & ~CLUBS, ANY_SUIT, ANY_SUIT & ~DIAMONDS)),
    ((2, 1, 4), (ANY_SUIT & ~CLUBS & ~DIAMONDS, ANY_SUIT, ANY_SUIT)),
    ((2, 2, 3), (ANY_SUIT,) * 3),
])
def test_every_fitting_deal_is_equally_likely(room, allowed):
    # 7 cards in three suits: 2C 3C 4C, 2D 3D, 2H 3H
    unseen = [cards.parse(n) for n in ("2C", "3C", "4C", "2D", "3D", "2H", "3H")]
    fitting = brute_force_deals(unseen, room, allowed)
    samples = 300 * len(fitting)
    got = Counter(tuple(map(tuple, d)) for d in deal_unseen(
        unseen, room, allowed, SUIT_TABLE, np.random.default_rng(1), samples))
    assert set(got) == fitting  # only fitting deals, and every one of them
    expected = samples / len(fitting)
    # each count is binomial(samples, 1/k): 5 standard deviations is a bound no fair sampler
    # crosses here, while a sampler that favours some deals (a greedy fill) is far outside it
    assert max(abs(n - expected) for n in got.values()) < 5 * expected ** 0.5


def test_an_impossible_deal_is_refused_with_the_places_named():
    unseen = [cards.parse(n) for n in ("2C", "3C", "4C")]
    with pytest.raises(ImpossibleDealError, match=r"\[2, 1\]"):
        deal_unseen(unseen, [2, 1], [ANY_SUIT & ~CLUBS, ANY_SUIT], SUIT_TABLE,
                    np.random.default_rng(0))
    with pytest.raises(ImpossibleDealError, match="3 unseen cards"):
        deal_unseen(unseen, [2, 2], [ANY_SUIT] * 2, SUIT_TABLE, np.random.default_rng(0))


def _states(game: str, preset: str, seed: int, **changes):
    g = get_game(game)
    return g, random_moves(g.new_state(g.get_rules(preset, **changes), seed), seed,
                           int(np.random.default_rng(seed).integers(0, 200)))


def _check_world(world, state, seat: int, deck: list[int]) -> None:
    assert world.view(seat) == state.view(seat)  # the seat cannot tell it from the truth
    if state.current_player == seat:
        assert world.legal_actions() == state.legal_actions()
    assert [len(h) for h in world.hands] == [len(h) for h in state.hands]
    held = [c for h in world.hands for c in h]
    rest = getattr(world, "stock", []) + getattr(world, "pile", []) \
        + [c for _, c in getattr(world, "plays", [])]
    assert sorted(held + rest) == sorted(deck)  # every card once


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), preset=st.sampled_from(["killer", "cutthroat"]),
       jokers=st.booleans())
def test_spades_worlds_show_the_view_hold_the_counts_and_keep_every_void(seed, preset, jokers):
    g, state = _states("spades", preset, seed, jokers=jokers)
    if state.is_over:
        return
    seat = seed % 4
    view = state.view(seat)
    for world in g.sample_worlds(view, 5, np.random.default_rng(seed)):
        _check_world(world, state, seat, list(cards.make_deck(jokers)))
        for s in range(4):
            assert not any(view.voids[s] >> SUIT_TABLE[c] & 1 for c in world.hands[s])


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), preset=st.sampled_from(["killer", "cutthroat"]),
       moves=st.integers(0, 160))
def test_spades_past_moves_replay_the_others_bids_of_this_hand_as_they_saw_them(seed, preset,
                                                                              moves):
    """On the truth, the replay gives back every other seat's bid this hand with the view
    and legal bids it had; in a sampled world, the same bids, the bidders holding the
    world's cards with this hand's plays put back."""
    g = get_game("spades")
    state = g.new_state(g.get_rules(preset), seed)
    rng = np.random.default_rng(seed)
    bids: list = []  # this hand's bids: (seat, view, legal, bid)
    for _ in range(moves):
        if state.is_over:
            return
        hands_before = len(state.results)
        seat, legal = state.current_player, state.legal_actions()
        action = int(rng.choice(legal))
        if state.phase == "bid":
            bids.append((seat, state.view(seat), legal, action))
        state.apply(action)
        if len(state.results) > hands_before:
            bids = []
    if state.is_over:
        return
    me = seed % 4
    view = state.view(me)
    expected = [(v, legal, a) for s, v, legal, a in bids if s != me]
    assert g.past_moves(view, state) == expected
    for world in g.sample_worlds(view, 3, np.random.default_rng(seed)):
        replayed = g.past_moves(view, world)
        assert [a for _, _, a in replayed] == [a for _, _, a in expected]
        for past, _, _ in replayed:
            played = [c for s, c in view.plays if s == past.seat]
            assert sorted(past.hand) == sorted(world.hands[past.seat] + played)
            assert past.bids == next(v.bids for v, _, _ in expected if v.seat == past.seat)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), preset=st.sampled_from(["seed", "standard"]),
       players=st.integers(2, 4))
def test_gin_worlds_show_the_view_and_keep_the_known_cards_where_they_are(seed, preset,
                                                                           players):
    changes = {"num_players": players} if preset == "seed" else {}
    g, state = _states("gin_rummy", preset, seed, **changes)
    if state.is_over:
        return
    seat = seed % state.num_players
    view = state.view(seat)
    for world in g.sample_worlds(view, 5, np.random.default_rng(seed)):
        _check_world(world, state, seat, list(cards.STANDARD_DECK))
        assert len(world.stock) == len(state.stock) and world.moves == state.moves
        for s in range(state.num_players):
            assert set(view.known[s]) <= set(world.hands[s])


@pytest.mark.parametrize("game, preset", [("spades", "killer"), ("gin_rummy", "seed")])
def test_worlds_come_from_the_view_alone(game, preset):
    """Two truths the seat cannot tell apart give the same worlds from the same seed."""
    g = get_game(game)
    state = random_moves(g.new_state(g.get_rules(preset), 3), 3, 30)
    seat = state.current_player
    other = g.sample_worlds(state.view(seat), 1, np.random.default_rng(9))[0]
    assert other.hands != state.hands  # a different truth behind the same view
    a = g.sample_worlds(state.view(seat), 4, np.random.default_rng(5))
    b = g.sample_worlds(other.view(seat), 4, np.random.default_rng(5))
    assert [w.hands for w in a] == [w.hands for w in b]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31), preset=st.sampled_from(["random", "classic"]),
       players=st.integers(2, 6))
def test_sevens_worlds_show_the_view_and_give_no_seat_a_suit_its_plays_ruled_out(
        seed, preset, players):
    from cardrl.envs.sevens.worlds import allowed_suits

    g, state = _states("sevens", preset, seed, num_players=players)
    if state.is_over:
        return
    seat = seed % players
    view = state.view(seat)
    allowed = allowed_suits(view)
    for s in range(players):  # the truth fits what the plays showed
        assert all(allowed[s] >> SEVENS_SUIT[c] & 1 for c in state.hands[s])
    for world in g.sample_worlds(view, 5, np.random.default_rng(seed)):
        assert world.view(seat) == view
        assert world.legal_actions() == state.legal_actions() or state.current_player != seat
        for s in range(players):
            assert all(allowed[s] >> SEVENS_SUIT[c] & 1 for c in world.hands[s])


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31), preset=st.sampled_from(["2p", "3p"]))
def test_blind_auction_worlds_show_the_view_and_keep_the_revealed_prizes(seed, preset):
    g, state = _states("blind_auction", preset, seed)
    if state.is_over:
        return
    n = state.num_players
    worlds = {}
    for seat in range(n):
        view = state.view(seat)
        for world in g.sample_worlds(view, 5, np.random.default_rng(seed)):
            assert world.view(seat) == view  # the seat cannot tell it from the truth
            assert world.prizes[:world.round] == state.prizes[:state.round]
            assert sorted(world.prizes) == sorted(state.prizes)
            if state.current_player == seat:
                assert world.legal_actions() == state.legal_actions()
            worlds.setdefault(seat, set()).add(tuple(world.prizes))
    if len(state.prizes) - state.round >= 3:  # the hidden order is drawn anew
        assert any(len(orders) > 1 for orders in worlds.values())
