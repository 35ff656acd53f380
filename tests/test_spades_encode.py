"""Spades encoders: both observation kinds' blocks, and the env's incremental observer.

``encode(view)`` of each kind is the definition of its observation: the
information state (``cardrl.envs.spades.infostate``, the env's default) and the
``features`` the shipped bots read (``cardrl.envs.spades.features``: the same information
blocks without ``trick_number``, with the last trick, then the expert's numbers for
the seat to act). The env keeps every seat's vector up to date move by move
(``SpadesObserver``), so the property test checks the two agree for every seat at
every step of whole games. The blocks both kinds hold are tested on both, each at
its own offsets.
"""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardrl.envs import cards
from cardrl.envs.encoding import KINDS
from cardrl.envs.games import get_game
from cardrl.envs.spades import CUTTHROAT, KILLER, env, features, infostate, raw_env
from cardrl.envs.spades.actions import CARD_OFFSET, card_action
from cardrl.envs.spades.engine import SpadesState
from cardrl.envs.spades.features import OBS_SIZE, OFFSETS, encode
from cardrl.envs.spades.infostate import SCORE_CLIP
from tests.env_checks import episode_with_penalties, random_moves
from tests.spades_util import MIXED_DEAL, deal_of

C = cards.parse
MODULES = {"infostate": infostate, "features": features}  # kind -> its layout's module
SIZES = dict(features.LAYOUT)  # the features kind's blocks (the seat-to-act tests below)
PER_SEAT = ("bids", "tricks", "played_by", "trick", "last_trick", "voids")
# the features' estimate blocks: the seat to act's numbers, from ``hand_estimate`` on
ESTIMATES = tuple(name for name, _ in features.LAYOUT
                  if features.OFFSETS[name] >= features.OFFSETS["hand_estimate"])


DEAL = MIXED_DEAL


def encoder(kind: str):
    return get_game("spades").encoder(kind)


def block(vec: np.ndarray, name: str, kind: str = "features") -> np.ndarray:
    """The named block of a ``kind`` observation; per-seat blocks as (relative seat, feature)."""
    mod = MODULES[kind]
    off, size = mod.OFFSETS[name], dict(mod.LAYOUT)[name]
    part = vec[off:off + size]
    if name in PER_SEAT:
        return part.reshape(4, -1)
    return part


def ones(vec: np.ndarray, name: str, kind: str = "features") -> list:
    """Where a block is 1: (relative seat, feature) pairs, or indices for flat blocks."""
    b = block(vec, name, kind)
    return [tuple(int(x) for x in i) if b.ndim == 2 else int(i[0]) for i in np.argwhere(b == 1)]


def play(state: SpadesState, *names: str) -> None:
    for n in names:
        state.apply(card_action(C(n)))


def bid(state: SpadesState, *bids: int) -> None:
    for b in bids:
        state.apply(b)


# ------------------------------------------------------- observer vs encode


def _check_every_seat(e) -> None:
    """Each seat's observation equals its kind's encode(its view) and is a fresh array."""
    state = e.unwrapped.state_obj
    enc = encoder(e.unwrapped.observation_kind)
    for seat, agent in enumerate(e.possible_agents):
        obs = e.observe(agent)["observation"]
        expected = enc.encode(state.view(seat))
        assert obs.dtype == np.float32 and obs.shape == (enc.size(4),)
        if not np.array_equal(obs, expected):
            bad = np.flatnonzero(obs != expected)[:5]
            raise AssertionError(f"{enc.name} seat {seat}, {state!r}: " + ", ".join(
                f"{enc.describe(4, int(i))} is {obs[i]}, encode gives {expected[i]}"
                for i in bad))
        obs[:] = 7.0  # a copy: scribbling on it changes no later observation
        assert np.array_equal(e.observe(agent)["observation"], expected)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1),
       preset=st.sampled_from(["killer", "cutthroat"]),
       jokers=st.booleans(),
       episode=st.sampled_from(["game", "hand"]),
       kind=st.sampled_from(KINDS))
def test_env_observation_is_encode_of_the_view_at_every_step(seed, preset, jokers, episode,
                                                             kind):
    e = env(preset=preset, jokers=jokers, max_hands=3, episode=episode,
            illegal_action="penalty", observation=kind)
    rng = np.random.default_rng(seed)
    for _game in range(2):  # the second reset reuses the env (and its observer)
        assert episode_with_penalties(e, rng, _check_every_seat) >= 56
        state = e.unwrapped.state_obj
        assert len(state.results) == (1 if episode == "hand" else 3) or state.is_over


@pytest.mark.parametrize("kind", KINDS)
def test_observer_follows_moves_applied_to_the_state_directly(kind):
    """Moves the env did not make (state.apply) are noticed: the observer re-encodes."""
    e = raw_env(preset="killer", episode="game", observation=kind)
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


@pytest.mark.parametrize("kind", KINDS)
def test_observer_owns_its_buffers(kind):
    a, b = raw_env(observation=kind), raw_env(observation=kind)
    a.reset(seed=1)
    b.reset(seed=2)
    assert a._observer is not b._observer
    assert not np.shares_memory(a.observe("player_0")["observation"],
                                b.observe("player_0")["observation"])
    obs = encoder(kind).make_observer(4)
    assert isinstance(obs, infostate.SpadesObserver)
    state = SpadesState(KILLER, 1)
    for seat in (3, state.current_player):
        assert np.array_equal(obs.observation(state, seat), encoder(kind).encode(state.view(seat)))


# ------------------------------------------------------------ encoder tables


@pytest.mark.parametrize("kind", KINDS)
def test_layout_covers_the_vector(kind):
    mod = MODULES[kind]
    assert encoder(kind).kind == kind and encoder(kind).version == mod.VERSION
    assert sum(size for _, size in mod.LAYOUT) == mod.OBS_SIZE == encoder(kind).size(4)
    assert mod.describe(mod.OFFSETS["played_by"] + 54 + 51) == "played_by[105]"
    assert encoder(kind).describe(4, mod.OFFSETS["played_by"] + 54 + 51) == "played_by[105]"
    with pytest.raises(IndexError):
        mod.describe(mod.OBS_SIZE)
    assert {"infostate": 805, "features": 1334}[kind] == mod.OBS_SIZE


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seat", range(4))
def test_own_hand_bits_are_the_hand_and_nothing_else(seat, kind):
    enc = encoder(kind).encode
    state = SpadesState(KILLER, 0, deal=DEAL)
    vec = enc(state.view(seat))
    assert ones(vec, "hand", kind) == sorted(C(n) for n in DEAL[seat])
    assert ones(vec, "phase", kind) == [0]  # bidding
    play_state = SpadesState(KILLER, 0, deal=DEAL)
    bid(play_state, 1, 1, 1, 1)
    assert ones(enc(play_state.view(seat)), "phase", kind) == [1]


@pytest.mark.parametrize("kind", KINDS)
def test_bids_are_relative_to_the_observer(kind):
    enc = encoder(kind).encode
    state = SpadesState(KILLER, 0, deal=DEAL)
    bid(state, 4, 2, 5)  # seats 1, 2, 3; seat 0 has not bid
    vec = enc(state.view(2))
    # relative 0 = seat 2 (bid 2), 1 = seat 3 (bid 5), 2 = seat 0 (none), 3 = seat 1 (bid 4)
    assert ones(vec, "bids", kind) == [(0, 2 + 1), (1, 5 + 1), (2, 0), (3, 4 + 1)]
    assert ones(enc(state.view(0)), "bids", kind) == [(0, 0), (1, 4 + 1), (2, 2 + 1),
                                                      (3, 5 + 1)]
    bid(state, 0)  # seat 0 bids nil: index 1, not the "not bid yet" index 0
    assert (2, 1) in ones(enc(state.view(2)), "bids", kind)


@pytest.mark.parametrize("kind", KINDS)
def test_played_by_trick_leader_and_voids(kind):
    enc = encoder(kind).encode
    state = SpadesState(KILLER, 0, deal=DEAL)
    bid(state, 4, 2, 5, 1)
    play(state, "2C", "JC", "JS")  # seat 3 has no clubs: ruffs, breaking spades
    vec = enc(state.view(0))
    on_table = [(1, C("2C")), (2, C("JC")), (3, C("JS"))]  # (relative to seat 0, card)
    assert ones(vec, "trick", kind) == on_table
    assert ones(vec, "played_by", kind) == on_table
    assert ones(vec, "leader", kind) == [1]
    assert ones(vec, "spades_broken", kind) == [0]
    assert ones(vec, "voids", kind) == [(3, cards.CLUBS)]
    assert ones(enc(state.view(1)), "voids", kind) == [(2, cards.CLUBS)]  # seat 3 from seat 1

    play(state, "2H")  # seat 0 shows no clubs either; seat 3 wins with the spade
    vec = enc(state.view(2))  # relative: seat 2 -> 0, 3 -> 1, 0 -> 2, 1 -> 3
    assert ones(vec, "trick", kind) == []
    trick = sorted([(3, C("2C")), (0, C("JC")), (1, C("JS")), (2, C("2H"))])
    assert ones(vec, "played_by", kind) == trick  # still played this hand
    assert ones(vec, "leader", kind) == [1]  # the winner leads
    assert ones(vec, "tricks", kind) == [(0, 0), (1, 1), (2, 0), (3, 0)]
    assert sorted(ones(vec, "voids", kind)) == [(1, cards.CLUBS), (2, cards.CLUBS)]
    assert block(vec, "tricks_played", kind)[0] == np.float32(1 / 13)
    assert C("2H") not in ones(enc(state.view(0)), "hand", kind)


def test_features_keep_the_last_trick_and_its_winner():
    state = SpadesState(KILLER, 0, deal=DEAL)
    bid(state, 4, 2, 5, 1)
    play(state, "2C", "JC", "JS")
    vec = encode(state.view(0))
    assert ones(vec, "last_trick") == [] and ones(vec, "last_trick_winner") == []
    play(state, "2H")
    vec = encode(state.view(2))
    trick = sorted([(3, C("2C")), (0, C("JC")), (1, C("JS")), (2, C("2H"))])
    assert ones(vec, "last_trick") == trick
    assert ones(vec, "last_trick_winner") == [1]
    play(state, "6D")  # seat 3 leads the second trick: the first stays the last
    assert ones(encode(state.view(2)), "last_trick") == trick


# ------------------------------------------- the information state's own blocks
def test_trick_number_says_in_which_trick_each_played_card_fell():
    """(the trick's number, 1..13) / 13 at each card played this hand, 0 elsewhere, the
    same for every seat (a card, not a seat, block); the last trick needs no block."""
    state = SpadesState(KILLER, 0, deal=DEAL)
    bid(state, 4, 2, 5, 1)
    play(state, "2C", "JC", "JS", "2H")  # seat 3 ruffs and wins, then leads
    play(state, "6D", "AH")
    expect = np.zeros(52, np.float32)
    expect[[C(n) for n in ("2C", "JC", "JS", "2H")]] = 1 / 13
    expect[[C(n) for n in ("6D", "AH")]] = 2 / 13
    for seat in range(4):
        vec = infostate.encode(state.view(seat))
        assert np.array_equal(block(vec, "trick_number", "infostate")[:52], expect)
        assert not block(vec, "trick_number", "infostate")[52:].any()
    assert ones(vec, "trick", "infostate") == [(0, C("6D")), (1, C("AH"))]  # seat 3, seat 0
    bid_state = SpadesState(KILLER, 0, deal=DEAL)
    assert not block(infostate.encode(bid_state.view(0)), "trick_number", "infostate").any()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), moves=st.integers(0, 60), jokers=st.booleans())
def test_infostate_is_the_features_information_and_the_order_of_play(seed, moves, jokers):
    """Every block the two kinds share holds the same numbers; ``trick_number`` is the
    order of play by tricks, from which the features' ``last_trick`` and its winner are
    read back: the information state drops nothing a seat knows."""
    rules = dataclasses.replace(KILLER, jokers=jokers)
    state = random_moves(SpadesState(rules, seed), seed, moves)
    for seat in range(4):
        view = state.view(seat)
        info, feat = infostate.encode(view), encode(view)
        for name, _ in infostate.LAYOUT:
            if name != "trick_number":
                assert np.array_equal(block(info, name, "infostate"), block(feat, name)), name
        numbers = block(info, "trick_number", "infostate")
        expect = np.zeros(len(numbers), np.float32)
        for i, (_, c) in enumerate(view.plays):
            expect[c] = (i // 4 + 1) / 13
        assert np.array_equal(numbers, expect)
        done = len(view.plays) // 4  # tricks completed this hand
        played = block(info, "played_by", "infostate")
        last = sorted((int(r), int(c)) for r, c in np.argwhere(played == 1)
                      if done and numbers[c] == np.float32(done / 13))
        assert ones(feat, "last_trick") == last
        assert ones(feat, "last_trick_winner") == (ones(info, "leader", "infostate")
                                                   if done else [])


EXACT = ("tops_trick", "master")  # the seat-to-act blocks the information state holds too


def test_infostate_holds_none_of_the_features_estimates():
    """Its blocks are the features' information blocks, less the last trick (read back from
    ``trick_number``), plus ``trick_number`` and the two play blocks that are exact
    functions of the view (which card tops the trick, which no unseen card outranks): no
    estimate block, whoever is to act."""
    names = [name for name, _ in infostate.LAYOUT]
    info_blocks = [name for name, _ in features.LAYOUT if name not in ESTIMATES]
    assert set(names) == set(info_blocks) - {"last_trick", "last_trick_winner"} | {
        "trick_number", *EXACT}
    assert "p_win" in ESTIMATES and "hand_estimate" in ESTIMATES and "ruff_risk" in ESTIMATES
    assert set(names) & set(ESTIMATES) == set(EXACT)
    assert encoder("infostate").action_features(4) == tuple(
        (infostate.OFFSETS[name], CARD_OFFSET, cards.NUM_CARDS) for name in EXACT)
    assert encoder("features").action_features(4)
    # the seat to act's vector holds no more than any other seat's but those two blocks
    state = SpadesState(KILLER, 0, deal=DEAL)
    bid(state, 4, 2, 5, 1)
    play(state, "10C")
    acting, waiting = state.view(2), state.view(3)
    assert np.count_nonzero(encode(acting)[features.OFFSETS["hand_estimate"]:])
    assert not encode(waiting)[features.OFFSETS["hand_estimate"]:].any()
    as_if_waiting = dataclasses.replace(acting, current_player=3)
    mine, other = infostate.encode(acting), infostate.encode(as_if_waiting)
    private = infostate.OFFSETS["tops_trick"]
    assert private + 2 * cards.NUM_CARDS == infostate.OBS_SIZE  # the two blocks close it
    assert np.array_equal(mine[:private], other[:private])
    assert mine[private:].any() and not other[private:].any()


def test_infostate_play_blocks_on_a_dealt_trick():
    """Seat 2 answers a 10C lead holding JC-AC, 2D-5D and 6S-10S: its clubs and (ruffing)
    spades top the trick, its diamonds do not; only its clubs are masters (6D-AD and
    JS-AS are unseen). After JC, seat 3 (diamonds 6-A, spades J-A, no club) tops the trick
    with any spade only, and every card it holds is a master: no higher card of either
    suit is unseen. Bidding, or waiting, nobody sees the blocks."""
    state = SpadesState(KILLER, 0, deal=DEAL)
    private = infostate.OFFSETS["tops_trick"]
    assert not infostate.encode(state.view(state.current_player))[private:].any()
    bid(state, 4, 2, 5, 1)
    play(state, "10C")
    names = lambda text: sorted(C(n) for n in text.split())  # noqa: E731
    vec = infostate.encode(state.view(2))
    assert ones(vec, "tops_trick", "infostate") == names("JC QC KC AC 6S 7S 8S 9S 10S")
    assert ones(vec, "master", "infostate") == names("JC QC KC AC")
    assert not infostate.encode(state.view(1))[private:].any()
    play(state, "JC")
    vec = infostate.encode(state.view(3))
    assert ones(vec, "tops_trick", "infostate") == names("JS QS KS AS")
    assert ones(vec, "master", "infostate") == names(" ".join(DEAL[3]))
    assert not infostate.encode(state.view(2))[private:].any()


@pytest.mark.parametrize("kind", KINDS)
def test_leading_unbroken_spades_shows_voids_in_the_other_suits(kind):
    deal = [DEAL[0]] + deal_of("2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS",
                               "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC",
                               "2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD")
    state = SpadesState(KILLER, 0, deal=deal)
    bid(state, 1, 1, 1, 1)
    play(state, "2S")
    assert ones(encoder(kind).encode(state.view(0)), "voids", kind) == [(1, s) for s in range(3)]


def _with(view, **changes):
    return dataclasses.replace(view, **changes)


@pytest.mark.parametrize("kind", KINDS)
def test_scores_are_over_the_target_and_clipped(kind):
    view = SpadesState(KILLER, 0, deal=DEAL).view(1)  # target 250
    vec = encoder(kind).encode(_with(view, scores=(100, -2000, 1100, 0)))
    # relative to seat 1: seat 1, 2, 3, 0
    assert block(vec, "scores", kind).tolist() == [
        pytest.approx(-SCORE_CLIP), SCORE_CLIP, 0.0, pytest.approx(0.4)]
    assert block(vec, "scores", kind)[3] == np.float32(100 / 250)
    low, high = encoder(kind).bounds(4)
    at = MODULES[kind].OFFSETS["scores"]
    assert low[at] == -SCORE_CLIP and high[at + 3] == SCORE_CLIP


@pytest.mark.parametrize("kind", KINDS)
def test_bags_dealer_hand_number_and_rules_flags(kind):
    enc = encoder(kind).encode
    killer = enc(SpadesState(KILLER, 0, deal=DEAL).view(0))
    # broken, total, jokers, bags
    assert block(killer, "rules", kind).tolist() == [1.0, 1.0, 0.0, 0.0]
    assert not block(killer, "bags", kind).any()  # no bag limit: no bags
    assert ones(killer, "dealer", kind) == [0]
    assert block(killer, "hand_number", kind)[0] == 0.0

    state = SpadesState(CUTTHROAT.replace(first_dealer=2), 0)
    view = _with(state.view(3), bags=(1, 2, 3, 4), hand_number=4)
    vec = enc(view)
    assert block(vec, "rules", kind).tolist() == [0.0, 0.0, 0.0, 1.0]
    assert block(vec, "bags", kind).tolist() == pytest.approx([4 / 5, 1 / 5, 2 / 5, 3 / 5])
    assert ones(vec, "dealer", kind) == [3]  # seat 2 from seat 3
    assert block(vec, "hand_number", kind)[0] == np.float32(0.3)
    assert block(enc(_with(view, hand_number=30)), "hand_number", kind)[0] == 1.0
    jokers = enc(SpadesState(CUTTHROAT.replace(jokers=True), 0).view(0))
    assert block(jokers, "rules", kind).tolist() == [0.0, 0.0, 1.0, 1.0]


@pytest.mark.parametrize("kind", KINDS)
def test_joker_hand_bits(kind):
    rules = KILLER.replace(jokers=True)
    state = SpadesState(rules, 0)
    for seat in range(4):
        vec = encoder(kind).encode(state.view(seat))
        assert ones(vec, "hand", kind) == sorted(state.hands[seat])
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
        with pytest.raises(AttributeError):  # a plain AttributeError (envs.aec)
            getattr(e, name)
    with pytest.raises(AttributeError):
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
    from cardrl.envs.spades.strength import contract_tricks, estimate_tricks, nil_chance, nil_value
    from cardrl.envs.spades.tracking import Knowledge

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
    from cardrl.agents.spades.play import ExpertPlay
    from cardrl.envs.spades.engine import POWER_TABLE, SUIT_TABLE
    from cardrl.envs.spades.tracking import SPADES, beats

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
    from cardrl.envs.spades.strength import estimate_tricks

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
