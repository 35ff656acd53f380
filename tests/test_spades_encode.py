"""Spades encoder: the feature tables, and the env's incremental observer against them.

``encode(view)`` is the definition of the observation; the env keeps every
seat's vector up to date move by move (``SpadesObserver``), so the property
test checks the two agree for every seat at every step of whole games.
"""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from envs import cards
from envs.spades import CUTTHROAT, KILLER, env, raw_env
from envs.spades.actions import CARD_OFFSET, card_action
from envs.spades.encode import (
    LAYOUT,
    OBS_SIZE,
    OFFSETS,
    SCORE_CLIP,
    SpadesObserver,
    describe,
    encode,
)
from envs.spades.engine import SpadesState
from tests.env_checks import episode_with_penalties, random_moves
from tests.spades_util import MIXED_DEAL, deal_of

C = cards.parse
SIZES = dict(LAYOUT)


DEAL = MIXED_DEAL


def block(vec: np.ndarray, name: str) -> np.ndarray:
    """The named block of an observation; per-seat blocks as (relative seat, feature)."""
    off, size = OFFSETS[name], SIZES[name]
    part = vec[off:off + size]
    if name in ("bids", "tricks", "played_by", "trick", "last_trick", "voids"):
        return part.reshape(4, -1)
    return part


def ones(vec: np.ndarray, name: str) -> list:
    """Where a block is 1: (relative seat, feature) pairs, or indices for flat blocks."""
    b = block(vec, name)
    return [tuple(int(x) for x in i) if b.ndim == 2 else int(i[0]) for i in np.argwhere(b == 1)]


def play(state: SpadesState, *names: str) -> None:
    for n in names:
        state.apply(card_action(C(n)))


def bid(state: SpadesState, *bids: int) -> None:
    for b in bids:
        state.apply(b)


# ------------------------------------------------------- observer vs encode


def _check_every_seat(e) -> None:
    """Each seat's observation equals encode(its view) and is a fresh array."""
    state = e.unwrapped.state_obj
    for seat, agent in enumerate(e.possible_agents):
        obs = e.observe(agent)["observation"]
        expected = encode(state.view(seat))
        assert obs.dtype == np.float32 and obs.shape == (OBS_SIZE,)
        if not np.array_equal(obs, expected):
            bad = np.flatnonzero(obs != expected)[:5]
            raise AssertionError(f"seat {seat}, {state!r}: " + ", ".join(
                f"{describe(i)} is {obs[i]}, encode gives {expected[i]}" for i in bad))
        obs[:] = 7.0  # a copy: scribbling on it changes no later observation
        assert np.array_equal(e.observe(agent)["observation"], expected)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1),
       preset=st.sampled_from(["killer", "cutthroat"]),
       jokers=st.booleans(),
       episode=st.sampled_from(["game", "hand"]))
def test_env_observation_is_encode_of_the_view_at_every_step(seed, preset, jokers, episode):
    e = env(preset=preset, jokers=jokers, max_hands=3, episode=episode,
            illegal_action="penalty")
    rng = np.random.default_rng(seed)
    for _game in range(2):  # the second reset reuses the env (and its observer)
        assert episode_with_penalties(e, rng, _check_every_seat) >= 56
        state = e.unwrapped.state_obj
        assert len(state.results) == (1 if episode == "hand" else 3) or state.is_over


def test_observer_follows_moves_applied_to_the_state_directly():
    """Moves the env did not make (state.apply) are noticed: the observer re-encodes."""
    e = raw_env(preset="killer", episode="game")
    e.reset(seed=5, options={"deal": DEAL})
    state = e.state_obj
    bid(state, 4, 2, 5, 1)  # a whole round of bids: the same player acts again
    _check_every_seat(e)
    e.step(card_action(C("2C")))
    play(state, "JC")
    e.step(card_action(C("JS")))
    _check_every_seat(e)
    play(state, "2H")  # completes the trick behind the env's back
    _check_every_seat(e)


def test_observer_owns_its_buffers():
    a, b = raw_env(), raw_env()
    a.reset(seed=1)
    b.reset(seed=2)
    assert a._observer is not b._observer
    assert not np.shares_memory(a.observe("player_0")["observation"],
                                b.observe("player_0")["observation"])
    obs = SpadesObserver()
    state = SpadesState(KILLER, 1)
    assert np.array_equal(obs.observation(state, 3), encode(state.view(3)))


# ------------------------------------------------------------ encoder tables


def test_layout_covers_the_vector():
    assert sum(size for _, size in LAYOUT) == OBS_SIZE
    assert describe(OFFSETS["played_by"] + 54 + 51) == "played_by[105]"
    with pytest.raises(IndexError):
        describe(OBS_SIZE)


@pytest.mark.parametrize("seat", range(4))
def test_own_hand_bits_are_the_hand_and_nothing_else(seat):
    state = SpadesState(KILLER, 0, deal=DEAL)
    vec = encode(state.view(seat))
    assert ones(vec, "hand") == sorted(C(n) for n in DEAL[seat])
    assert ones(vec, "phase") == [0]  # bidding
    play_state = SpadesState(KILLER, 0, deal=DEAL)
    bid(play_state, 1, 1, 1, 1)
    assert ones(encode(play_state.view(seat)), "phase") == [1]


def test_bids_are_relative_to_the_observer():
    state = SpadesState(KILLER, 0, deal=DEAL)
    bid(state, 4, 2, 5)  # seats 1, 2, 3; seat 0 has not bid
    vec = encode(state.view(2))
    # relative 0 = seat 2 (bid 2), 1 = seat 3 (bid 5), 2 = seat 0 (none), 3 = seat 1 (bid 4)
    assert ones(vec, "bids") == [(0, 2 + 1), (1, 5 + 1), (2, 0), (3, 4 + 1)]
    assert ones(encode(state.view(0)), "bids") == [(0, 0), (1, 4 + 1), (2, 2 + 1), (3, 5 + 1)]
    bid(state, 0)  # seat 0 bids nil: index 1, not the "not bid yet" index 0
    assert (2, 1) in ones(encode(state.view(2)), "bids")


def test_played_by_trick_last_trick_leader_and_voids():
    state = SpadesState(KILLER, 0, deal=DEAL)
    bid(state, 4, 2, 5, 1)
    play(state, "2C", "JC", "JS")  # seat 3 has no clubs: ruffs, breaking spades
    vec = encode(state.view(0))
    on_table = [(1, C("2C")), (2, C("JC")), (3, C("JS"))]  # (relative to seat 0, card)
    assert ones(vec, "trick") == on_table
    assert ones(vec, "played_by") == on_table
    assert ones(vec, "leader") == [1]
    assert ones(vec, "spades_broken") == [0]
    assert ones(vec, "voids") == [(3, cards.CLUBS)]
    assert ones(vec, "last_trick") == [] and ones(vec, "last_trick_winner") == []
    assert ones(encode(state.view(1)), "voids") == [(2, cards.CLUBS)]  # seat 3 from seat 1

    play(state, "2H")  # seat 0 shows no clubs either; seat 3 wins with the spade
    vec = encode(state.view(2))  # relative: seat 2 -> 0, 3 -> 1, 0 -> 2, 1 -> 3
    assert ones(vec, "trick") == []
    trick = sorted([(3, C("2C")), (0, C("JC")), (1, C("JS")), (2, C("2H"))])
    assert ones(vec, "played_by") == trick  # still played this hand
    assert ones(vec, "last_trick") == trick
    assert ones(vec, "last_trick_winner") == [1]
    assert ones(vec, "leader") == [1]
    assert ones(vec, "tricks") == [(0, 0), (1, 1), (2, 0), (3, 0)]
    assert sorted(ones(vec, "voids")) == [(1, cards.CLUBS), (2, cards.CLUBS)]
    assert block(vec, "tricks_played")[0] == np.float32(1 / 13)
    assert C("2H") not in ones(encode(state.view(0)), "hand")


def test_leading_unbroken_spades_shows_voids_in_the_other_suits():
    deal = [DEAL[0]] + deal_of("2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS",
                               "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC",
                               "2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD")
    state = SpadesState(KILLER, 0, deal=deal)
    bid(state, 1, 1, 1, 1)
    play(state, "2S")
    assert ones(encode(state.view(0)), "voids") == [(1, s) for s in range(3)]


def _with(view, **changes):
    return dataclasses.replace(view, **changes)


def test_scores_are_over_the_target_and_clipped():
    view = SpadesState(KILLER, 0, deal=DEAL).view(1)  # target 250
    vec = encode(_with(view, scores=(100, -2000, 1100, 0)))
    # relative to seat 1: seat 1, 2, 3, 0
    assert block(vec, "scores").tolist() == [
        pytest.approx(-SCORE_CLIP), SCORE_CLIP, 0.0, pytest.approx(0.4)]
    assert block(vec, "scores")[3] == np.float32(100 / 250)


def test_bags_dealer_hand_number_and_rules_flags():
    killer = encode(SpadesState(KILLER, 0, deal=DEAL).view(0))
    assert block(killer, "rules").tolist() == [1.0, 1.0, 0.0, 0.0]  # broken, total, jokers, bags
    assert not block(killer, "bags").any()  # no bag limit: no bags
    assert ones(killer, "dealer") == [0]
    assert block(killer, "hand_number")[0] == 0.0

    state = SpadesState(CUTTHROAT.replace(first_dealer=2), 0)
    view = _with(state.view(3), bags=(1, 2, 3, 4), hand_number=4)
    vec = encode(view)
    assert block(vec, "rules").tolist() == [0.0, 0.0, 0.0, 1.0]
    assert block(vec, "bags").tolist() == pytest.approx([4 / 5, 1 / 5, 2 / 5, 3 / 5])
    assert ones(vec, "dealer") == [3]  # seat 2 from seat 3
    assert block(vec, "hand_number")[0] == np.float32(0.3)
    assert block(encode(_with(view, hand_number=30)), "hand_number")[0] == 1.0
    jokers = encode(SpadesState(CUTTHROAT.replace(jokers=True), 0).view(0))
    assert block(jokers, "rules").tolist() == [0.0, 0.0, 1.0, 1.0]


def test_joker_hand_bits():
    rules = KILLER.replace(jokers=True)
    state = SpadesState(rules, 0)
    for seat in range(4):
        vec = encode(state.view(seat))
        assert ones(vec, "hand") == sorted(state.hands[seat])
    held = [c for h in state.hands for c in h]
    assert cards.LITTLE_JOKER in held and cards.BIG_JOKER in held
    assert C("2C") not in held and C("2D") not in held
    assert all(CARD_OFFSET + c < 68 for c in held)


# ---------------------------------------------- env() without PettingZoo's wrapper


def test_env_checks_the_call_order_itself():
    """env() is not wrapped in OrderEnforcingWrapper (the observer made the per-step
    cost small; the wrapper's forwarding was as large): the same errors, from the env."""
    e = env()
    assert e.unwrapped is e
    for call in (lambda: e.step(0), lambda: e.observe("player_0"), e.render, e.agent_iter):
        with pytest.raises(AssertionError, match="reset"):
            call()
    for name in ("agent_selection", "rewards", "agents", "num_agents"):
        with pytest.raises(AttributeError, match=f"{name} cannot be accessed before reset"):
            getattr(e, name)
    with pytest.raises(AttributeError, match="before reset"):
        e.last()
    e.reset(seed=0)
    with pytest.raises(AssertionError, match="need to call step"):
        for _agent in e.agent_iter():
            pass  # no step: PettingZoo's iterator check stops the loop


# ------------------------------------------------------- the seat-to-act blocks
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), moves=st.integers(0, 50), jokers=st.booleans())
def test_seat_to_act_blocks_are_the_experts_numbers_and_only_the_actor_sees_them(
        seed, moves, jokers):
    from envs.spades.strength import contract_tricks, estimate_tricks, nil_chance, nil_value
    from envs.spades.tracking import Knowledge

    state = random_moves(SpadesState(dataclasses.replace(KILLER, jokers=jokers), seed), seed, moves)
    for seat in range(4):
        view = state.view(seat)
        vec = encode(view)
        expect = np.zeros(OBS_SIZE - OFFSETS["hand_estimate"], dtype=np.float32)
        if seat == state.current_player and view.phase == "bid":
            expect[0] = min(1.0, estimate_tricks(view.hand, jokers) / 13)
            expect[1] = nil_chance(view.hand)
            tricks = contract_tricks(view.hand, jokers, view.bids, seat)
            at = {name: OFFSETS[name] - OFFSETS["hand_estimate"]
                  for name in ("contract_tricks", "bid_distance", "bid_excess", "nil_value")}
            expect[at["contract_tricks"]] = min(1.0, max(0.0, tricks / 13))
            expect[at["bid_distance"]] = -1.0  # nil
            for b in range(1, 14):
                expect[at["bid_distance"] + b] = -min(1.0, abs(b - tricks) / 6)
                expect[at["bid_excess"] + b] = min(1.0, max(-1.0, (b - tricks) / 6))
            expect[at["nil_value"]] = min(1.0, max(-1.0, nil_value(view.hand, view.rules.nil_points)
                                                   / 100))
        elif seat == state.current_player and view.phase == "play":
            kn = Knowledge(view)
            expect[2] = min(1.0, kn.expected_tricks / 13)
            base = OFFSETS["p_win"] - OFFSETS["hand_estimate"]
            for c in view.hand:
                expect[base + c] = kn.p_win(c)
                expect[base + SIZES["p_win"] + c] = kn.is_master(c)
            expect_play_blocks(kn, expect, OFFSETS["hand_estimate"])
        assert vec[OFFSETS["hand_estimate"]:] == pytest.approx(expect, abs=1e-6)


def expect_play_blocks(kn, expect, start):
    """Version 4's play blocks, from ``Knowledge`` and the expert's own danger measure."""
    from agents.spades.play import ExpertPlay
    from envs.spades.engine import POWER_TABLE, SUIT_TABLE
    from envs.spades.tracking import SPADES, beats

    at = {name: OFFSETS[name] - start for name in SIZES if OFFSETS[name] >= OFFSETS["need"]}
    need = kn.need()
    expect[at["need"]] = np.clip(need / 13, -1, 1)
    expect[at["shortfall"]] = np.clip((need - kn.expected_tricks) / 13, -1, 1)
    for seat in range(4):
        expect[at["nil_alive"] + (seat - kn.seat) % 4] = kn.nil_alive(seat)
    danger = ExpertPlay("smart", "ignore", "avoid-under").danger  # the expert ducks by it
    by_cost = sorted(kn.hand, key=lambda c: (SUIT_TABLE[c] == SPADES, POWER_TABLE[c]))
    for c in kn.hand:
        suit = SUIT_TABLE[c]
        expect[at["tops_trick"] + c] = not kn.trick or beats(c, kn.best, kn.led)
        expect[at["danger"] + c] = danger(kn, c) / 18
        expect[at["counted"] + c] = c in kn.counted
        expect[at["cheap"] + c] = 1 - by_cost.index(c) / max(1, len(by_cost) - 1)
        expect[at["suit_length"] + c] = sum(SUIT_TABLE[d] == suit for d in kn.hand) / 13
        expect[at["ruff_risk"] + c] = 0.0 if suit == SPADES else kn.p_ruffed(suit)


def test_p_win_and_master_on_a_dealt_trick():
    """Seat 1 leads 10C. Seat 2 holds J-Q-K-A of clubs: every unseen club is lower, so all
    four are masters and win alike unless seat 3 ruffs; its diamonds cannot beat the
    lead; its low spades would ruff. The seat that just played sees no such block."""
    state = SpadesState(KILLER, 0, deal=DEAL)
    bid(state, 4, 2, 5, 1)
    assert state.current_player == 1
    play(state, "10C")
    vec = encode(state.view(2))
    pw, master = block(vec, "p_win"), block(vec, "master")
    assert sorted(np.flatnonzero(master).tolist()) == sorted(C(n) for n in ("JC", "QC", "KC", "AC"))
    assert pw[C("JC")] == pw[C("AC")]
    assert 0.0 < pw[C("AC")] < 1.0  # seat 3 has not shown a club void, but may ruff
    assert not pw[[C(n) for n in ("2D", "3D", "4D", "5D")]].any()
    assert pw[C("6S")] > 0.0
    assert block(vec, "hand_estimate")[0] == 0.0  # a bidding block: zero in play
    assert not encode(state.view(1))[OFFSETS["hand_estimate"]:].any()


def test_play_blocks_on_a_dealt_trick():
    """Seat 2 answers a 10C lead holding JC-AC, 2D-5D and 6S-10S: its clubs and (ruffing)
    spades top the trick, its diamonds do not; 2D is the cheapest card and 10S the
    dearest; of equal masters the ace is the more dangerous; a lead of its spades
    cannot be ruffed. Nobody bid nil."""
    state = SpadesState(KILLER, 0, deal=DEAL)
    bid(state, 4, 2, 5, 1)
    play(state, "10C")
    view = state.view(2)
    vec = encode(view)
    names = lambda *ns: [C(n) for n in ns]  # noqa: E731
    clubs, diamonds = names("JC", "QC", "KC", "AC"), names("2D", "3D", "4D", "5D")
    spades = names("6S", "7S", "8S", "9S", "10S")
    tops = block(vec, "tops_trick")
    assert sorted(np.flatnonzero(tops).tolist()) == sorted(clubs + spades)
    cheap = block(vec, "cheap")
    assert cheap[C("2D")] == 1.0 and cheap[C("10S")] == 0.0
    assert (cheap[diamonds[1]] > cheap[clubs[0]] > cheap[spades[0]]) and not cheap[C("2H")]
    length = block(vec, "suit_length")
    assert length[clubs] == pytest.approx([4 / 13] * 4) and length[C("6S")] == pytest.approx(5 / 13)
    danger = block(vec, "danger")
    assert danger[C("AC")] > danger[C("JC")] > danger[C("2D")]
    assert danger[C("10S")] > danger[C("9S")] > danger[C("5D")]  # JS-AS outrank both spades
    ruff = block(vec, "ruff_risk")
    assert not ruff[spades].any() and (ruff[clubs] > 0).all()
    need = view.bids[2] - view.tricks[2]
    assert block(vec, "need")[0] == pytest.approx(need / 13)
    assert not block(vec, "nil_alive").any()
    assert not block(encode(state.view(1)), "tops_trick").any()  # only the player sees it


def test_bid_blocks_point_the_bidder_at_its_contract():
    """The second bidder bids after a 4: with the modified count m, the fit says
    4.1 + 0.64 m - 0.31 x (4 + 2 x 2.7) tricks. The nearest bid is the top of
    bid_distance; bid_excess rises by 1/6 a bid up to its clip; nil is never the nearest."""
    from envs.spades.strength import estimate_tricks

    state = SpadesState(KILLER, 0, deal=DEAL)
    bid(state, 4)
    bidder = state.current_player
    view = state.view(bidder)
    vec = encode(view)
    tricks = 4.1 + 0.64 * estimate_tricks(view.hand, KILLER.jokers) - 0.31 * (4 + 2 * 2.7)
    assert block(vec, "contract_tricks")[0] == pytest.approx(tricks / 13)
    distance, excess = block(vec, "bid_distance"), block(vec, "bid_excess")
    assert int(np.argmax(distance)) == max(1, round(tricks))
    assert distance[0] == -1.0
    assert excess[1:] == pytest.approx(np.clip((np.arange(1, 14) - tricks) / 6, -1, 1), abs=1e-6)
    assert np.diff(excess[1:7]) == pytest.approx(np.full(5, 1 / 6), abs=1e-6)
    # a seat that is not bidding sees none of it
    assert not block(encode(state.view((bidder + 1) % 4)), "bid_distance").any()
