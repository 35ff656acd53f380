"""The Spades PettingZoo env: masks, no leaks in either observation kind, rewards, errors.

PettingZoo's api and seed tests, observer = encoder and the generic bad-input rules,
for every game and both kinds, are in ``tests/test_envs.py``.
"""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test

from cardrl.envs import cards
from cardrl.envs.encoding import KINDS
from cardrl.envs.games import get_game
from cardrl.envs.spades import env, raw_env
from cardrl.envs.spades.actions import card_action
from tests.env_checks import check_illegal_action_refused, random_episode, reward_totals
from tests.spades_util import all_spades_deal, oracle_legal

PRESETS = ["killer", "cutthroat"]


@pytest.mark.parametrize("preset", PRESETS)
def test_pettingzoo_api_with_one_hand_episodes(preset):
    """(``tests/test_envs.py`` runs whole games.)"""
    api_test(env(preset=preset, episode="hand", max_hands=2), num_cycles=400)


@pytest.mark.parametrize("kind", KINDS)
def test_metadata_and_spaces(kind):
    e = env(observation=kind)
    assert e.metadata["name"] == "spades_v6"
    assert e.possible_agents == [f"player_{i}" for i in range(4)]
    space = e.observation_space("player_0")
    assert space["observation"].shape == ({"infostate": 805, "features": 1334}[kind],)
    assert e.observation_kind == kind and e.encoder is get_game("spades").encoder(kind)
    assert e.action_space("player_3").n == 68


def test_the_information_state_is_the_default_observation():
    assert env().observation_kind == "infostate"
    assert env().observation_space("player_0")["observation"].shape == (805,)


def test_masks_equal_the_legal_set_over_thousands_of_games():
    checked = 0

    def check(e, agent, obs):
        nonlocal checked
        state = e.unwrapped.state_obj
        assert agent == f"player_{state.current_player}"
        assert np.flatnonzero(obs["action_mask"]).tolist() == oracle_legal(state)
        for other in e.agents:  # seats not to act get an empty mask
            if other != agent:
                assert not e.observe(other)["action_mask"].any()
        checked += 1

    games = 0
    for preset, jokers in [("killer", False), ("cutthroat", False), ("cutthroat", True)]:
        e = env(preset=preset, jokers=jokers, episode="hand")
        for seed in range(700):
            random_episode(e, seed, check if seed % 7 == 0 else None)
            games += 1
        # the remaining games still run through the env's own mask check in step
    assert games == 2100 and checked > 15000


def _trajectory(deal, seed, preset="killer"):
    """Random legal actions from ``deal``; return the action list."""
    e = raw_env(preset=preset, episode="hand")
    e.reset(seed=seed, options={"deal": deal})
    rng = np.random.default_rng(seed)
    actions = []
    while not all(e.terminations.values()):
        legal = e.state_obj.legal_actions()
        a = legal[int(rng.integers(len(legal)))]
        actions.append(a)
        e.step(a)
    return actions


def _observations(deal, actions, seat, preset="killer", kind="infostate"):
    """The seat's (observation, mask) of the ``kind`` observation at each of its turns while
    ``actions`` replay."""
    e = raw_env(preset=preset, episode="hand", observation=kind)
    e.reset(seed=0, options={"deal": deal})
    seen = []
    for a in actions:
        if e.state_obj.current_player == seat:
            o = e.observe(f"player_{seat}")
            seen.append((o["observation"].copy(), o["action_mask"].copy()))
        e.step(a)
    return seen


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31), preset=st.sampled_from(PRESETS))
def test_no_leak_when_hidden_cards_swap_between_other_players(kind, preset, seed):
    rng = np.random.default_rng(seed)
    deck = [cards.name(c) for c in cards.shuffled(cards.make_deck(), rng)]
    deal = [deck[i * 13:(i + 1) * 13] for i in range(4)]
    actions = _trajectory(deal, seed, preset)
    seat = seed % 4
    a, b = [s for s in range(4) if s != seat][:2]
    order = {c: i for i, c in enumerate(actions)}  # when each card action is played
    pairs = [(x, y) for x in deal[a] for y in deal[b]
             if cards.suit_of(cards.parse(x)) == cards.suit_of(cards.parse(y))]
    assume(pairs)
    # swap the pair whose first card is played latest, so many turns are compared
    x, y = max(pairs, key=lambda p: min(order[14 + cards.parse(p[0])],
                                        order[14 + cards.parse(p[1])]))
    cut = min(order[14 + cards.parse(x)], order[14 + cards.parse(y)])
    swapped = [list(h) for h in deal]
    swapped[a][swapped[a].index(x)] = y
    swapped[b][swapped[b].index(y)] = x
    before = _observations(deal, actions[:cut], seat, preset, kind)
    after = _observations(swapped, actions[:cut], seat, preset, kind)
    assert len(before) == len(after) >= 3  # bidding turns at least
    for (o1, m1), (o2, m2) in zip(before, after, strict=True):
        assert np.array_equal(o1, o2)
        assert np.array_equal(m1, m2)


@pytest.mark.parametrize("kind", KINDS)
def test_the_leak_test_would_catch_a_leak(kind):
    """Swapping cards between the seat's own hand and another's must change its observation
    and, once it plays, its mask (the swapped-in spade may not lead before spades break)."""
    deal = all_spades_deal()
    swapped = [list(h) for h in deal]
    swapped[0][0], swapped[1][0] = swapped[1][0], swapped[0][0]  # seat 1 gets 2S for 2C
    actions = [1, 1, 1, 1, card_action(cards.parse("3C"))]  # four bids, seat 1 leads 3C
    o1 = _observations(deal, actions, 1, kind=kind)
    o2 = _observations(swapped, actions, 1, kind=kind)
    assert len(o1) == len(o2) == 2
    assert not np.array_equal(o1[0][0], o2[0][0])  # its bid: its own hand differs
    assert not np.array_equal(o1[1][1], o2[1][1])  # its lead: its legal cards differ


def test_illegal_action_raises_and_changes_nothing():
    e = env(preset="killer")
    e.reset(seed=3)
    check_illegal_action_refused(e, 40)  # a card during bidding


def test_illegal_action_penalty_option_plays_a_random_legal_move():
    e = env(preset="killer", illegal_action="penalty", illegal_penalty=-0.5)
    e.reset(seed=3)
    agent = e.agent_selection
    e.step(40)
    assert e.unwrapped.state_obj.bids[int(agent[-1])] is not None
    assert e.rewards[agent] == -0.5


def test_given_deal_is_dealt_and_checked():
    e = raw_env()
    deal = all_spades_deal()
    e.reset(seed=1, options={"deal": deal})
    assert cards.names(e.state_obj.view(0).hand) == sorted(deal[0], key=cards.parse)
    with pytest.raises(cards.CardError, match="misdeal: hand 2 has 12 cards"):
        e.reset(options={"deal": deal[:2] + [deal[2][:12]] + deal[3:]})
    with pytest.raises(cards.CardError, match="AS is dealt twice"):
        e.reset(options={"deal": [deal[0], deal[1][:12] + ["AS"]] + deal[2:]})
    with pytest.raises(cards.CardError, match="'XS'"):
        e.reset(options={"deal": [deal[0][:12] + ["XS"]] + deal[1:]})


def test_rewards_are_hand_score_over_100_plus_win_bonus():
    e = raw_env(preset="killer", episode="hand")
    e.reset(seed=0, options={"deal": all_spades_deal()})
    bids = {0: 13, 1: 0, 2: 0, 3: 1}

    def choose(e):
        state = e.state_obj
        return bids[state.current_player] if state.phase == "bid" else state.legal_actions()[0]

    totals = reward_totals(e, choose)  # points 130, 100, 100, -10; seat 0 leads alone
    assert totals == pytest.approx({  # each less the others' mean; the losers share -1
        "player_0": (130 - 190 / 3) / 100 + 1, "player_1": (100 - 220 / 3) / 100 - 1 / 3,
        "player_2": (100 - 220 / 3) / 100 - 1 / 3, "player_3": (-10 - 330 / 3) / 100 - 1 / 3})
    assert sum(totals.values()) == pytest.approx(0.0, abs=1e-9)
    raw = raw_env(preset="killer", episode="hand", relative_score=False)
    raw.reset(seed=0, options={"deal": all_spades_deal()})
    assert reward_totals(raw, choose) == pytest.approx({
        "player_0": 1.3 + 1, "player_1": 1.0 - 1 / 3, "player_2": 1.0 - 1 / 3,
        "player_3": -0.1 - 1 / 3})


def test_reward_options_turn_terms_off_and_ties_share_the_win_and_the_loss():
    e = raw_env(preset="killer", episode="hand", score_scale=0, win_reward=2.0)
    e.reset(seed=0, options={"deal": all_spades_deal()})
    state = e.state_obj
    for action in [0, 0, 13, 0]:  # seat 1 nil, 2 nil, 3 bids 13 (set), 0 nil (fails)
        e.step(action)
    while state.hand_number == 1:
        e.step(state.legal_actions()[0])
    assert state.results[0].points == (-100, 100, 100, -130)
    assert e.rewards == {"player_0": -1.0, "player_1": 1.0, "player_2": 1.0, "player_3": -1.0}


def test_ansi_render_shows_the_table_and_only_the_actors_hand():
    e = env(preset="cutthroat", render_mode="ansi")
    e.reset(seed=0, options={"deal": all_spades_deal()})
    text = e.render()
    assert "cutthroat" in text and "player_1 hand" in text and "♣" in text  # seat 1 holds clubs
    assert "♠" not in text.split("hand:")[1]  # seat 0's spades are not shown
    for a in range(4):
        assert f"player_{a}" in text


@pytest.mark.parametrize("seed", range(3))
def test_worth_pays_each_bag_as_made_so_a_game_pays_its_score_less_its_bags(seed):
    """``hand_reward="worth"`` in cutthroat: a hand pays its points with each bag made
    charged 10 (50 per 5) and a penalty paid handed back, so over any stretch of hands from
    a fresh game a seat's rewards add up to its total less 10 per bag it still holds; the
    points pay the total alone. Random play, twelve hands, raw points, no bonus."""
    options = dict(preset="cutthroat", relative_score=False, score_scale=1.0, win_reward=0.0,
                   max_episode_hands=12)
    worth, points = raw_env(hand_reward="worth", **options), raw_env(**options)
    paid, plain = (reward_totals_reset(e, seed, random_legal(seed)) for e in (worth, points))
    state = worth.state_obj
    assert [r.bids for r in state.results] == [r.bids for r in points.state_obj.results]
    assert len(state.results) == 12 and any(state.bags)  # random bids leave bags
    assert any(any(r.bag_penalties) for r in state.results)  # and pay for a fifth
    for seat in range(4):
        assert paid[f"player_{seat}"] == state.scores[seat] - 10 * state.bags[seat]
        assert plain[f"player_{seat}"] == state.scores[seat]


def random_legal(seed: int):
    rng = np.random.default_rng(seed)
    return lambda e: int(rng.choice(e.state_obj.legal_actions()))


def reward_totals_reset(e, seed: int, choose) -> dict[str, float]:
    e.reset(seed=seed)
    return reward_totals(e, choose)


def test_worth_is_the_points_where_bags_cost_nothing_and_a_bad_choice_is_named():
    """Killer has no bags: its worth is its points. An unknown ``hand_reward`` is refused
    by name, by the env and by a training config."""
    from cardrl.train.dmc import DMCConfig

    a, b = raw_env(hand_reward="worth", episode="hand"), raw_env(episode="hand")
    assert reward_totals_reset(a, 4, lambda e: e.state_obj.legal_actions()[0]) == \
        reward_totals_reset(b, 4, lambda e: e.state_obj.legal_actions()[0])
    with pytest.raises(ValueError, match="hand_reward must be one of .*'bags'"):
        raw_env(hand_reward="bags")
    with pytest.raises(ValueError, match="hand_reward must be one of .*'bags'"):
        DMCConfig(game="spades", hand_reward="bags").validate()
