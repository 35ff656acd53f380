"""The Sevens PettingZoo env: masks, both observation kinds' contents, no leaks in either.

PettingZoo's api and seed tests (2, 5 and 9 players), observer = encoder and the
generic bad-input rules, for every game and both kinds, are in ``tests/test_envs.py``.
"""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from cardrl.envs import cards
from cardrl.envs.encoding import KINDS
from cardrl.envs.games import get_game
from cardrl.envs.sevens import SevensState, env, features, get_rules, infostate, raw_env
from cardrl.envs.sevens import features as encode
from cardrl.envs.sevens.features import OFFSETS
from tests.env_checks import (
    check_illegal_action_refused,
    random_episode,
    random_moves,
    reward_totals,
)
from tests.sevens_util import fixed_rules, oracle_legal, random_deal

MODULES = {"infostate": infostate, "features": features}  # kind -> its layout's module


def encoder(kind: str):
    return get_game("sevens").encoder(kind)


@pytest.mark.parametrize("kind", KINDS)
def test_metadata_and_one_observation_size_for_every_player_count(kind):
    size = MODULES[kind].OBS_SIZE
    for n in range(2, 10):
        e = env(num_players=n, observation=kind)
        assert e.metadata["name"] == "sevens_v5"
        assert e.possible_agents == [f"player_{i}" for i in range(n)]
        assert e.observation_space("player_0")["observation"].shape == (size,)
        assert encoder(kind).size(n) == size
        assert e.action_space("player_1").n == 104
    assert env().observation_kind == "infostate"  # the default


def test_infostate_is_the_first_959_floats_of_the_features():
    """The information state is the features' first blocks, ending with the points of each
    play and of its best reply; the features add only the expected reply after it."""
    assert infostate.OBS_SIZE == 959 and features.LAYOUT[:len(infostate.LAYOUT)] == \
        infostate.LAYOUT
    added = [name for name, _ in features.LAYOUT[len(infostate.LAYOUT):]]
    assert added == ["reply_expected"]
    assert encoder("infostate").action_features(5) == (
        (OFFSETS["play_points"], 0, 104), (OFFSETS["reply_points"], 0, 104))
    assert [o for o, _, _ in encoder("features").action_features(5)] == [
        OFFSETS[name] for name in ("play_points", "reply_points", *added)]
    rng = np.random.default_rng(4)
    for n in (2, 6, 9):
        state = SevensState(get_rules("random", num_players=n), n)
        while not state.is_over:
            for seat in range(n):
                view = state.view(seat)
                info, feat = infostate.encode(view), features.encode(view)
                assert info.shape == (959,) and np.array_equal(info, feat[:959])
            state.apply(int(rng.choice(state.legal_actions())))


def test_masks_equal_the_oracle_and_observations_stay_in_bounds():
    checked = 0

    def check(e, agent, obs):
        nonlocal checked
        state = e.unwrapped.state_obj
        seat = state.current_player
        assert agent == f"player_{seat}"
        assert np.flatnonzero(obs["action_mask"]).tolist() == oracle_legal(state.view(seat))
        assert e.observation_space(agent)["observation"].contains(obs["observation"])
        checked += 1

    for n in range(2, 10):
        e = env(num_players=n)
        for seed in range(12):
            random_episode(e, seed, check)
    assert checked > 2000


def check_action_points(state) -> None:
    """play_points: the scoring table at total + value; reply_points: the best of the same
    table one unseen card further; zero for every action not of an own card."""
    from cardrl.envs.sevens.engine import RANK
    from cardrl.envs.sevens.scoring import points_for_total

    view = state.view(state.current_player)
    obs = encode.encode(view)
    play = obs[OFFSETS["play_points"]:OFFSETS["play_points"] + 104]
    reply = obs[OFFSETS["reply_points"]:OFFSETS["reply_points"] + 104]
    pts, values = view.params.points, view.params.values
    expect_play, expect_reply = np.zeros(104), np.zeros(104)
    unseen_values = [u for card in view.unseen() for u in values[RANK[card]]]
    for c in view.hand:
        for i, v in enumerate(values[RANK[c]]):
            total = view.total + v
            expect_play[2 * c + i] = points_for_total(total, pts) / 20
            expect_reply[2 * c + i] = max((points_for_total(total + u, pts) / 20
                                           for u in unseen_values), default=0)
    assert play == pytest.approx(np.clip(expect_play, -4, 4))
    assert reply == pytest.approx(np.clip(expect_reply, -4, 4))
    # reply_expected: the next player's expected best reply (held cards drawn from unseen)
    from cardrl.envs.sevens.reply import expected_best_reply

    nxt = (view.seat + 1) % view.num_players
    held = view.hand_sizes[nxt] if nxt != view.seat else 0
    expect = np.zeros(104)
    for c in view.hand:
        for i, v in enumerate(values[RANK[c]]):
            total = view.total + v
            gains = [max(points_for_total(total + u, pts) for u in vals) for vals in values]
            expect[2 * c + i] = expected_best_reply(gains, view.unseen(), held, c) / 20
    got = obs[OFFSETS["reply_expected"]:OFFSETS["reply_expected"] + 104]
    assert got == pytest.approx(np.clip(expect, -4, 4), abs=1e-6)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 9), moves=st.integers(0, 30))
def test_per_action_points_are_what_each_play_scores_and_the_best_reply(seed, n, moves):
    state = random_moves(SevensState(get_rules("random", num_players=n), seed), seed, moves)
    assume(not state.is_over)
    check_action_points(state)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 9), moves=st.integers(0, 30))
def test_lookahead_plays_the_best_points_now_less_expected_reply_from_the_observation(
        seed, n, moves):
    """The observation holds both terms of sevens/lookahead's score, so a network can
    play it exactly: its choice maximises play_points - reply_expected over legal plays."""
    from cardrl import agents

    state = random_moves(SevensState(get_rules("random", num_players=n), seed), seed, moves)
    assume(not state.is_over)
    view = state.view(state.current_player)
    obs = encode.encode(view)
    legal = state.legal_actions()
    score = {a: obs[OFFSETS["play_points"] + a] - obs[OFFSETS["reply_expected"] + a]
             for a in legal}
    choice = agents.make("sevens/lookahead").act(view, legal)
    assert score[choice] == pytest.approx(max(score.values()), abs=1e-5)


def test_per_action_points_hold_for_fixed_values_far_past_the_lookup_table():
    values = tuple((700 * (r + 1), -7) if r % 2 else (1400 * (r + 1),) for r in range(13))
    state = SevensState(fixed_rules(n=3, values=values, points=(6, -4, 20)), 5)
    rng = np.random.default_rng(5)
    for _ in range(6):
        check_action_points(state)
        state.apply(int(rng.choice(state.legal_actions())))


@pytest.mark.parametrize("kind", KINDS)
def test_observation_holds_parameters_total_last_card_hand_points_and_sizes(kind):
    rules = fixed_rules(n=3, values=tuple((r + 2, -(r + 2)) if r == 12 else (r + 2,)
                                          for r in range(13)), points=(6, -4, 20))
    state = SevensState(rules, 4)
    for _ in range(4):
        state.apply(state.legal_actions()[0])
    view = state.view(2)
    obs = encoder(kind).encode(view)
    offsets = MODULES[kind].OFFSETS

    def block(name, size):
        return obs[offsets[name]:offsets[name] + size]

    assert block("num_players", 8).tolist() == [0, 1, 0, 0, 0, 0, 0, 0]
    vals = block("values", 39).reshape(13, 3)
    assert vals[0].tolist() == pytest.approx([2 / 13, 0, 0])
    assert vals[12].tolist() == pytest.approx([14 / 13, -14 / 13, 1])
    assert block("points", 3).tolist() == pytest.approx([6 / 20, -4 / 20, 1])
    assert block("total", 1)[0] == pytest.approx(min(4, view.total / 100))
    assert np.flatnonzero(block("total_mod7", 7)).tolist() == [view.total % 7]
    assert np.flatnonzero(block("last_card", 52)).tolist() == [view.last_card]
    # the last card was played by seat 0, which is 1 seat after seat 2 in a 3-player game
    assert np.flatnonzero(block("last_by", 10)).tolist() == [1]
    assert np.flatnonzero(block("hand", 52)).tolist() == list(view.hand)
    on_table = sorted(list(view.table) + [c for _, c, _ in view.plays])
    assert np.flatnonzero(block("on_table", 52)).tolist() == on_table
    played = block("played_by", 9 * 52).reshape(9, 52)
    for seat, c, _ in view.plays:
        assert played[(seat - 2) % 3, c] == 1
    assert played.sum() == 4
    assert block("hand_sizes", 9).tolist() == pytest.approx(
        [view.hand_sizes[(2 + r) % 3] / 25 for r in range(3)] + [0] * 6)
    assert block("scores", 9).tolist() == pytest.approx(
        [view.scores[(2 + r) % 3] / 50 for r in range(3)] + [0] * 6)
    assert block("seated", 9).tolist() == [1, 1, 1] + [0] * 6
    assert np.flatnonzero(block("to_act", 9)).tolist() == [(view.current_player - 2) % 3]
    assert encoder(kind).describe(3, offsets["hand"] + 5) == "hand[5]"


def _trajectory(n, deal, seed):
    e = raw_env(num_players=n)
    e.reset(seed=seed, options={"deal": deal})
    rng = np.random.default_rng(seed)
    actions = []
    while not e.state_obj.is_over:
        legal = e.state_obj.legal_actions()
        actions.append(legal[int(rng.integers(len(legal)))])
        e.step(actions[-1])
    return actions


def _observations(n, deal, actions, seat, seed, kind="infostate"):
    e = raw_env(num_players=n, observation=kind)
    e.reset(seed=seed, options={"deal": deal})
    seen = []
    for a in actions:
        o = e.observe(f"player_{seat}")
        seen.append((o["observation"].copy(), o["action_mask"].copy()))
        e.step(a)
    return seen


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(3, 9))
def test_no_leak_when_same_suit_cards_swap_between_two_other_players(kind, seed, n):
    rng = np.random.default_rng(seed)
    deal = random_deal(n, rng)
    actions = _trajectory(n, deal, seed)
    seat = seed % n
    a, b = [s for s in range(n) if s != seat][:2]
    when = {a_ >> 1: i for i, a_ in enumerate(actions)}  # card -> when it was played
    pairs = [(x, y) for x in deal[a] for y in deal[b] if x[-1] == y[-1]]
    assume(pairs)
    # the pair whose first card is played latest, so many turns are compared
    x, y = max(pairs, key=lambda p: min(when[cards.parse(p[0])], when[cards.parse(p[1])]))
    cut = min(when[cards.parse(x)], when[cards.parse(y)])  # both unplayed before this
    assume(cut >= n)  # every seat, ours included, has had a turn
    swapped = [list(h) for h in deal]
    swapped[a][swapped[a].index(x)] = y
    swapped[b][swapped[b].index(y)] = x
    before = _observations(n, deal, actions[:cut], seat, seed, kind)
    after = _observations(n, swapped, actions[:cut], seat, seed, kind)
    assert len(before) == len(after) == cut
    for (o1, m1), (o2, m2) in zip(before, after, strict=True):
        assert np.array_equal(o1, o2)
        assert np.array_equal(m1, m2)


@pytest.mark.parametrize("kind", KINDS)
def test_the_leak_test_would_catch_a_leak(kind):
    """Swapping a card between the seat's own hand and another's changes its observation
    and its mask."""
    deal = random_deal(4, np.random.default_rng(0))
    legal = SevensState(get_rules("random", num_players=4), 0, deal=deal).legal_actions()
    k = next(i for i, c in enumerate(deal[0]) if 2 * cards.parse(c) in legal)  # a playable card
    swapped = [list(h) for h in deal]
    swapped[0][k], swapped[1][0] = swapped[1][0], swapped[0][k]
    seen = []
    for d in (deal, swapped):
        e = raw_env(num_players=4, observation=kind)
        e.reset(seed=0, options={"deal": d})
        assert e.agent_selection == "player_0"
        seen.append(e.observe("player_0"))
    assert not np.array_equal(seen[0]["observation"], seen[1]["observation"])
    assert not np.array_equal(seen[0]["action_mask"], seen[1]["action_mask"])


def test_rewards_are_points_over_10_plus_win_bonus():
    rules = fixed_rules(n=2, points=(10, -5, 30))
    e = raw_env(rules=rules, relative_score=False)  # raw points
    e.reset(seed=2)
    totals = reward_totals(e, lambda e: e.state_obj.legal_actions()[-1])
    scores = e.state_obj.scores
    winners = e.state_obj.winners
    for seat in range(2):
        bonus = 0.0 if len(winners) == 2 else 1.0 if seat in winners else -1.0
        assert totals[f"player_{seat}"] == pytest.approx(scores[seat] / 10 + bonus)


@pytest.mark.parametrize("n", [2, 4, 7])
def test_relative_score_pays_points_minus_the_others_mean(n):
    e = raw_env(num_players=n, relative_score=True, win_reward=0.0)
    e.reset(seed=n)
    totals = reward_totals(e, lambda e: e.state_obj.legal_actions()[0])
    scores = e.state_obj.scores
    assert any(scores)
    for seat in range(n):
        others = (sum(scores) - scores[seat]) / (n - 1)
        assert totals[f"player_{seat}"] == pytest.approx((scores[seat] - others) / 10)
    assert sum(totals.values()) == pytest.approx(0.0, abs=1e-9)
    with pytest.raises(ValueError, match="relative_score must be True or False, got 'yes'"):
        raw_env(relative_score="yes")


def test_illegal_action_raises_and_changes_nothing():
    e = env(num_players=4)
    e.reset(seed=3)
    legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"]).tolist()
    check_illegal_action_refused(e, next(a for a in range(104) if a not in legal))


def test_given_deal_and_fixed_parameters_through_reset():
    deal = random_deal(5, np.random.default_rng(9))
    e = raw_env(preset="classic", num_players=5)
    e.reset(seed=1, options={"deal": deal})
    assert cards.names(e.state_obj.table) == deal[5]
    assert e.state_obj.params.values == get_rules("classic").values
    with pytest.raises(cards.CardError, match="dealt twice"):
        e.reset(options={"deal": [deal[0], deal[1][:-1] + [deal[0][0]]] + deal[2:]})


def test_ansi_render_shows_parameters_points_and_only_the_actors_hand():
    deal = random_deal(3, np.random.default_rng(5))
    e = env(preset="classic", num_players=3, render_mode="ansi")
    e.reset(seed=0, options={"deal": deal})
    e.step(e.unwrapped.state_obj.legal_actions()[0])
    text = e.render()
    assert "A=1/11" in text and "divisible by 7 +5" in text and "player_1 to play" in text
    hand_line = text.split("player_1 hand:")[1]
    shown = hand_line.split()
    assert len(shown) == 17
    seat0 = set(deal[0])
    assert not any(cards.name(c) in seat0 for c in (cards.parse(x.replace("♣", "C").replace(
        "♦", "D").replace("♥", "H").replace("♠", "S")) for x in shown))
