"""Blind Auction envs: masks, no leaks in either observation kind, observer, rewards, errors.

PettingZoo's api and seed tests (AEC and Parallel), observer = encoder and the generic
bad-input rules, for every game and both kinds, are in ``tests/test_envs.py``.
"""

import json
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardrl.envs import cards
from cardrl.envs.blind_auction import env, parallel_env, raw_env
from cardrl.envs.blind_auction import infostate as encode
from cardrl.envs.blind_auction.engine import BlindAuctionState
from cardrl.envs.blind_auction.rules import get_rules
from cardrl.envs.encoding import KINDS
from cardrl.envs.games import get_game
from tests.blind_auction_util import oracle_legal, random_actions
from tests.env_checks import check_illegal_action_refused, random_episode, reward_totals

CASES = [(2, "discard"), (2, "carry"), (3, "split"), (3, "carry")]


@pytest.mark.parametrize("kind", KINDS)
def test_metadata_and_spaces(kind):
    for players in (2, 3):
        e = env(num_players=players, observation=kind)
        assert e.metadata["name"] == "blind_auction_v1"
        assert e.possible_agents == [f"player_{i}" for i in range(players)]
        assert e.observation_space("player_0")["observation"].shape == (encode.OBS_SIZE,)
        assert e.action_space("player_1").n == 13
    assert parallel_env(observation=kind).metadata["name"] == "blind_auction_v1"
    assert parallel_env(observation=kind).aec.observation_kind == kind


def test_both_observation_kinds_are_the_one_information_state_vector():
    """The rule bots reckon with nothing beyond the information state, so ``features`` is
    the same vector, with the same version, under the other name."""
    g = get_game("blind_auction")
    info, feat = g.encoder("infostate"), g.encoder("features")
    assert (info.kind, feat.kind) == ("infostate", "features")
    assert info.version == feat.version == encode.VERSION
    assert info.encode is feat.encode is encode.encode
    assert feat.action_features(2) == info.action_features(2) == ()


def test_masks_equal_the_oracle_and_observations_equal_encode_at_every_step():
    checked = 0

    def check(e, agent, obs):
        nonlocal checked
        state = e.unwrapped.state_obj
        assert agent == f"player_{state.current_player}"
        for seat, other in enumerate(e.possible_agents):
            o = e.observe(other)
            assert np.flatnonzero(o["action_mask"]).tolist() == oracle_legal(state, seat)
            assert np.array_equal(o["observation"], encode.encode(state.view(seat)))
        checked += 1

    for players, tie_rule in CASES + [(2, "split"), (3, "discard")]:
        for n in (3, 7, 13):
            e = env(num_players=players, tie_rule=tie_rule, cards_per_suit=n)
            for seed in range(12):
                random_episode(e, seed, check)
    assert checked > 2000


# -------------------------------------------------------------------- no leaks
def _observations(rules, order, actions, stop, kind="infostate"):
    """Every seat's (observation, mask) of the ``kind`` observation after reset and after
    each of the first ``stop`` actions, as the env gives them."""
    e = raw_env(rules=rules, observation=kind)
    e.reset(seed=0, options={"deal": order})
    seen = []

    def snap():
        seen.append([(o["observation"].copy(), o["action_mask"].copy())
                     for o in (e.observe(a) for a in e.possible_agents)])

    snap()
    for a in actions[:stop]:
        e.step(a)
        snap()
    return seen


rules_st = st.builds(lambda p, t, n: get_rules("2p", num_players=p, tie_rule=t, cards_per_suit=n),
                     st.sampled_from([2, 3]), st.sampled_from(["discard", "carry", "split"]),
                     st.integers(3, 13))


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=60, deadline=None)
@given(rules=rules_st, seed=st.integers(0, 2**31), data=st.data())
def test_no_leak_when_unrevealed_prizes_change_order(kind, rules, seed, data):
    state = BlindAuctionState(rules, seed)
    order = cards.names(state.prizes)
    actions = random_actions(state, np.random.default_rng(seed))
    n, players = rules.cards_per_suit, rules.num_players
    r = data.draw(st.integers(0, n - 2), label="round whose prize is swapped")
    j = data.draw(st.integers(r + 1, n - 1), label="later position")
    swapped = list(order)
    swapped[r], swapped[j] = swapped[j], swapped[r]
    stop = r * players + players - 1  # every action before round r resolves
    before = _observations(rules, order, actions, stop, kind)
    after = _observations(rules, swapped, actions, stop, kind)
    assert len(before) == stop + 1
    for b, a in zip(before, after, strict=True):
        for (o1, m1), (o2, m2) in zip(b, a, strict=True):
            assert np.array_equal(o1, o2) and np.array_equal(m1, m2)
    # the round's resolution turns the prize up: then it shows
    end_b = _observations(rules, order, actions, stop + 1, kind)[-1]
    end_a = _observations(rules, swapped, actions, stop + 1, kind)[-1]
    assert not np.array_equal(end_b[0][0], end_a[0][0])


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=60, deadline=None)
@given(rules=rules_st, seed=st.integers(0, 2**31), data=st.data())
def test_no_leak_of_a_bid_made_earlier_in_the_same_round(kind, rules, seed, data):
    state = BlindAuctionState(rules, seed)
    order = cards.names(state.prizes)
    actions = random_actions(state, np.random.default_rng(seed))
    n, players = rules.cards_per_suit, rules.num_players
    r = data.draw(st.integers(0, n - 2), label="round")
    bidder = data.draw(st.integers(0, players - 2), label="earlier bidder")
    at = r * players + bidder
    hand = sorted({a for i, a in enumerate(actions) if i % players == bidder and i >= at})
    other = data.draw(st.sampled_from([c for c in hand if c != actions[at]]), label="other bid")
    changed = list(actions)
    # the bidder swaps its bids of round r and of the round it bid ``other``
    later = next(i for i in range(at + players, len(actions), players) if actions[i] == other)
    changed[at], changed[later] = other, actions[at]
    stop = r * players + players - 1  # up to the last bid of round r, before it resolves
    before = _observations(rules, order, actions, stop, kind)
    after = _observations(rules, order, changed, stop, kind)
    for step, (b, a) in enumerate(zip(before, after, strict=True)):
        for seat, ((o1, m1), (o2, m2)) in enumerate(zip(b, a, strict=True)):
            if seat == bidder and step > at:
                assert not np.array_equal(o1, o2)  # its own bid it does see
            else:
                assert np.array_equal(o1, o2) and np.array_equal(m1, m2), (step, seat)
    end_b = _observations(rules, order, actions, stop + 1, kind)[-1]
    end_a = _observations(rules, order, changed, stop + 1, kind)[-1]
    for seat in range(players):  # once the round resolves, every seat sees the bid
        assert not np.array_equal(end_b[seat][0], end_a[seat][0])


# ------------------------------------------------------------------ rewards
def test_rewards_are_score_over_the_prize_total_plus_win_bonus():
    """By default the score less the other's (zero-sum) over the prize total; raw with
    ``relative_score=False``."""
    for relative, want in ((True, {"player_0": 1 / 9 + 1, "player_1": -1 / 9 - 1}),
                           (False, {"player_0": 3 / 9 + 1, "player_1": 2 / 9 - 1})):
        e = raw_env(num_players=2, cards_per_suit=3, relative_score=relative)
        e.reset(seed=0, options={"deal": ["4D", "2D", "3D"]})
        bids = iter([2, 2, 0, 1, 1, 0])  # 4D tied, 2D to seat 1, 3D to seat 0: 3 against 2
        assert reward_totals(e, lambda e, bids=bids: next(bids)) == pytest.approx(want)


def test_parallel_env_plays_rounds_at_once_and_refuses_bad_steps():
    p = parallel_env(num_players=3, tie_rule="carry", cards_per_suit=3, score_scale=0)
    obs, infos = p.reset(seed=0, options={"deal": ["4D", "2D", "3D"]})
    assert all(np.flatnonzero(o["action_mask"]).tolist() == [0, 1, 2] for o in obs.values())
    before = {a: o["observation"].copy() for a, o in obs.items()}
    with pytest.raises(ValueError, match=r"illegal action 5 by player_1 \(bid 7\)"):
        p.step({"player_0": 0, "player_1": 5, "player_2": 0})
    with pytest.raises(ValueError, match=r"actions missing for \['player_2'\]"):
        p.step({"player_0": 0, "player_1": 1})
    assert p.state_obj.pending == [None, None, None] and p.state_obj.round == 0
    assert all(np.array_equal(p._observations()[a]["observation"], before[a]) for a in before)
    obs, rew, term, trunc, _ = p.step({"player_0": 2, "player_1": 2, "player_2": 0})
    assert cards.names(p.state_obj.carried) == ["4D"] and not any(term.values())
    assert all(np.flatnonzero(o["action_mask"]).tolist() == [0, 1] for a, o in obs.items()
               if a != "player_2")
    p.step({"player_0": 1, "player_1": 1, "player_2": 1})
    obs, rew, term, trunc, _ = p.step({"player_0": 0, "player_1": 0, "player_2": 2})
    assert all(term.values()) and p.agents == []
    assert p.state_obj.scores == [0, 0, 9]
    assert rew == {"player_0": -0.5, "player_1": -0.5, "player_2": 1.0}  # losers share -1
    with pytest.raises(ValueError, match="after the game ended"):
        p.step({})


def _parallel_snapshot(p) -> tuple:
    state = p.state_obj
    return (state.view(0), state.view(1), list(state.pending), state.round, list(p.agents),
            [o["observation"].tobytes() for o in p._observations().values()])


@pytest.mark.parametrize("illegal_action", ["raise", "penalty"])
def test_parallel_step_refuses_an_unknown_agent_and_changes_nothing(illegal_action):
    """An action for an agent not at the table is refused by name, whatever
    ``illegal_action`` says (it is not an illegal bid to replace), and nothing changes."""
    p = parallel_env(num_players=2, illegal_action=illegal_action)
    p.reset(seed=4)
    before = _parallel_snapshot(p)
    with pytest.raises(ValueError, match="player_9"):
        p.step({"player_0": 0, "player_1": 0, "player_9": 0})
    assert _parallel_snapshot(p) == before
    with pytest.raises(ValueError, match="player_2"):  # a seat of a bigger table
        p.step({"player_0": 0, "player_1": 0, "player_2": 0})
    assert _parallel_snapshot(p) == before
    p.step({"player_0": 0, "player_1": 0})  # the same bids without it are played
    assert p.state_obj.round == 1


@pytest.mark.parametrize("bad", [[0, 0], (0, 0), 0, None, "player_0", {0, 1}])
@pytest.mark.parametrize("illegal_action", ["raise", "penalty"])
def test_parallel_step_refuses_what_is_not_a_dict_and_changes_nothing(bad, illegal_action):
    p = parallel_env(num_players=2, illegal_action=illegal_action)
    p.reset(seed=4)
    before = _parallel_snapshot(p)
    with pytest.raises(ValueError, match="dict"):
        p.step(bad)
    assert _parallel_snapshot(p) == before


def test_illegal_action_raises_and_changes_nothing_and_penalty_option():
    e = env(num_players=3)
    e.reset(seed=3)
    e.step(5)
    assert e.agent_selection == "player_1"
    check_illegal_action_refused(e, 13)
    e = env(num_players=2, illegal_action="penalty", illegal_penalty=-0.5)
    e.reset(seed=3)
    e.step(5)
    e.step(5)
    e.step(5)  # already bid by seat 0: a random legal bid is played instead
    assert e.rewards["player_0"] == -0.5 and 5 not in e.unwrapped.state_obj.hands[0]
    assert len(e.unwrapped.state_obj.hands[0]) == 11


def test_given_prize_order_is_played_and_checked():
    e = raw_env(cards_per_suit=4)
    e.reset(options={"deal": ["5D", "2D", "4D", "3D"]})
    assert cards.names(e.state_obj.prizes) == ["5D", "2D", "4D", "3D"]
    with pytest.raises(cards.CardError, match="needs 4 cards"):
        e.reset(options={"deal": ["5D", "2D", "4D"]})


def test_ansi_render_shows_the_table_and_only_the_own_bid():
    e = env(num_players=3, render_mode="ansi", tie_rule="carry", cards_per_suit=5)
    e.reset(seed=0, options={"deal": ["6D", "2D", "3D", "4D", "5D"]})
    e.step(4)  # seat 0 bids 6H
    text = e.render()  # from seat 1, to act
    assert "player_1 to bid" in text and "6H" not in text and "?" in text
    e.step(4)
    e.step(0)  # 6D carried
    assert "carried prizes: 6D" in e.render() and "prizes still face down: 2 3 4 5" in e.render()


@pytest.mark.parametrize("bad", [True, 1.0, "1", None, 13])
def test_parallel_step_refuses_a_bid_that_is_not_an_action_and_changes_nothing(bad):
    """Every bid is checked before any is played: a bad one for the second seat leaves the
    first seat's good bid unplayed too."""
    p = parallel_env(num_players=2)
    p.reset(seed=4)
    before = _parallel_snapshot(p)
    with pytest.raises(ValueError, match=rf"illegal action {re.escape(repr(bad))} by player_1"):
        p.step({"player_0": 0, "player_1": bad})
    assert _parallel_snapshot(p) == before


_OBSERVER_PROBE = """
import json
from cardrl.envs.blind_auction import env
from cardrl.envs.blind_auction.observer import observe
e = env(num_players=3, tie_rule="carry")
e.reset(seed=2)
for agent in e.agent_iter():
    obs, _, term, trunc, _ = e.last()
    e.step(None if term or trunc else int(obs["action_mask"].nonzero()[0][-1]))
stats = observe.stats
print(json.dumps([sum(stats.cache_hits.values()), sum(stats.cache_misses.values())]))
"""


def test_the_compiled_observer_is_cached_and_recompiled_when_the_core_changes():
    """The observer's kernel inlines the core's code (another file, which numba's own cache
    check does not read): a second process loads it from the cache, and a stamp of other
    sources makes the next process compile it anew, then keep it."""
    import subprocess
    import sys
    from pathlib import Path

    from cardrl.envs.blind_auction.observer import observe
    from cardrl.envs.compiled import sources_digest

    def probe():
        return json.loads(subprocess.run([sys.executable, "-c", _OBSERVER_PROBE], check=True,
                                         capture_output=True, text=True).stdout)

    probe()  # compiled (if no test before compiled it) and stamped
    hits, misses = probe()
    assert hits >= 1 and misses == 0
    stamp = Path(observe._cache.cache_path) / "blind_auction.observer.sources"
    assert stamp.read_text() == sources_digest("blind_auction")
    stamp.write_text("a digest of other sources")
    assert probe()[1] >= 1  # compiled anew
    hits, misses = probe()
    assert hits >= 1 and misses == 0 and stamp.read_text() == sources_digest("blind_auction")
