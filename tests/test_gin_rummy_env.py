"""The Gin Rummy PettingZoo env: masks, observer, no leaks in either observation kind,
rewards, and both encoders' blocks.

PettingZoo's api and seed tests, observer = encoder and the generic bad-input rules,
for every game and both kinds, are in ``tests/test_envs.py``.
"""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test

from cardrl.envs import cards
from cardrl.envs.encoding import KINDS
from cardrl.envs.games import get_game
from cardrl.envs.gin_rummy import features, infostate
from cardrl.envs.gin_rummy.actions import DRAW_STOCK, NUM_ACTIONS, TAKE_DISCARD, knock_action
from cardrl.envs.gin_rummy.engine import GinRummyState
from cardrl.envs.gin_rummy.environment import env, raw_env
from cardrl.envs.gin_rummy.features import encode, layout
from cardrl.envs.gin_rummy.rules import RulesError, get_rules
from tests.env_checks import check_illegal_action_refused, episode_with_penalties, random_moves
from tests.gin_rummy_util import C, full_deal, hands_of, look_ahead_by_search, oracle_legal

GAMES = [("seed", 2), ("seed", 3), ("seed", 4), ("standard", 2)]


LAYOUTS = {"infostate": infostate.layout, "features": features.layout}  # kind -> layout(n)


def encoder(kind: str):
    return get_game("gin_rummy").encoder(kind)


@pytest.mark.parametrize(("preset", "n"), GAMES)
def test_pettingzoo_api_with_one_hand_episodes(preset, n):
    """(``tests/test_envs.py`` runs whole games.)"""
    api_test(env(preset=preset, num_players=n, episode="hand", max_hands=2), num_cycles=300)


@pytest.mark.parametrize("n", [3, 4])
def test_the_standard_preset_is_refused_for_more_than_two_players(n):
    """The standard preset is the two-player game: 3 or 4 players are refused, naming the
    count and the preset to use; the seed preset takes them."""
    for make in (lambda: env(preset="standard", num_players=n),
                 lambda: get_rules("standard", num_players=n)):
        with pytest.raises(RulesError, match=rf"standard preset .*num_players={n}.*'seed'"):
            make()
    assert issubclass(RulesError, ValueError)
    e = env(preset="seed", num_players=n)
    assert e.rules.preset == "seed" and e.num_players == n


@pytest.mark.parametrize("kind", KINDS)
def test_metadata_and_spaces(kind):
    for n in (2, 3, 4):
        e = env(num_players=n, observation=kind)
        assert e.metadata["name"] == "gin_rummy_v9" and e.unwrapped is e
        assert e.possible_agents == [f"player_{i}" for i in range(n)]
        size = LAYOUTS[kind](n).size
        assert e.observation_space("player_0")["observation"].shape == (size,)
        assert size == encoder(kind).size(n)
        assert e.action_space(f"player_{n - 1}").n == NUM_ACTIONS == 106
    assert env().observation_kind == "infostate"  # the default


def _check_every_seat(e) -> None:
    """Each seat's observation equals its kind's encode(its view); only the actor has a mask."""
    state = e.unwrapped.state_obj
    enc = encoder(e.unwrapped.observation_kind)
    n = len(e.possible_agents)
    for seat, agent in enumerate(e.possible_agents):
        o = e.observe(agent)
        expected = enc.encode(state.view(seat))
        if not np.array_equal(o["observation"], expected):
            bad = np.flatnonzero(o["observation"] != expected)[:5]
            raise AssertionError(f"{enc.name} seat {seat}, {state!r}: " + ", ".join(
                f"{enc.describe(n, int(i))} is {o['observation'][i]}, encode gives "
                f"{expected[i]}" for i in bad))
        mask = np.flatnonzero(o["action_mask"]).tolist()
        assert mask == (oracle_legal(state) if seat == state.current_player else [])


@settings(max_examples=16, deadline=None)
@given(seed=st.integers(0, 2**31), game=st.sampled_from(GAMES), no_limit=st.booleans(),
       episode=st.sampled_from(["game", "hand"]), kind=st.sampled_from(KINDS))
def test_observer_and_masks_equal_encode_and_the_oracle_at_every_step(seed, game, no_limit,
                                                                      episode, kind):
    preset, n = game
    e = env(preset=preset, num_players=n, max_hands=2, episode=episode,
            knock_limit=None if no_limit else 10, illegal_action="penalty", observation=kind)
    rng = np.random.default_rng(seed)
    for _ in range(2):  # the second reset reuses the env and its observer
        episode_with_penalties(e, rng, _check_every_seat)


@pytest.mark.parametrize("kind", KINDS)
def test_observer_follows_moves_applied_to_the_state_directly(kind):
    e = raw_env(preset="standard", observation=kind)
    e.reset(seed=5)
    state = e.state_obj
    state.apply(DRAW_STOCK)  # behind the env's back
    _check_every_seat(e)
    e.step(state.legal_actions()[0])
    _check_every_seat(e)
    obs = encoder(kind).make_observer(2)
    assert isinstance(obs, infostate.GinRummyObserver)
    other = GinRummyState(get_rules("seed"), 1)
    for seat in (0, 1):
        assert np.array_equal(obs.observation(other, seat), encoder(kind).encode(other.view(seat)))


# ----------------------------------------------------------------- no leaks
def _trajectory(rules, deal, seed):
    state = GinRummyState(rules, 0, deal=deal)
    rng = np.random.default_rng(seed)
    actions = []
    while state.hand_number == 1 and not state.is_over:
        legal = state.legal_actions()
        actions.append(legal[int(rng.integers(len(legal)))])
        state.apply(actions[-1])
    return actions


def _observations(rules, deal, actions, seat, kind="infostate"):
    """The seat's (observation, mask) of the ``kind`` observation after every action that
    replays legally."""
    e = raw_env(rules=rules, episode="hand", observation=kind)
    e.reset(seed=0, options={"deal": deal})
    agent = f"player_{seat}"
    seen = [(e.observe(agent)["observation"].copy(), e.observe(agent)["action_mask"].copy())]
    for a in actions:
        if a not in e.state_obj.legal_actions():
            break  # the other hand's knock limit may differ: stop comparing here
        e.step(a)
        o = e.observe(agent)
        seen.append((o["observation"].copy(), o["action_mask"].copy()))
    return seen


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**31), game=st.sampled_from(GAMES))
def test_no_leak_when_an_opponent_card_swaps_with_an_undrawn_stock_card(kind, seed, game):
    preset, n = game
    rules = get_rules(preset, num_players=n)
    rng = np.random.default_rng(seed)
    order = [cards.name(c) for c in cards.shuffled(range(52), rng)]
    deal = [order[i * 10:(i + 1) * 10] for i in range(n)] + [order[n * 10:]]
    actions = _trajectory(rules, deal, seed)
    seat = seed % n
    other = (seat + 1 + seed // n % (n - 1)) % n
    # when each card leaves the other's hand (a discard), and stock draws in order
    state = GinRummyState(rules, 0, deal=deal)
    gone_at, drawn = {}, []
    for i, a in enumerate(actions):
        if a == DRAW_STOCK:
            drawn.append((i, state.stock[-1]))
        elif a >= 2 and state.current_player == other:
            gone_at.setdefault(a - 2 if a < 54 else a - 54, i)
        state.apply(a)
    end = len(actions) - 1  # the hand ends: a showdown may show hands (legitimately)
    x = max(deal[other], key=lambda c: gone_at.get(C(c), end))  # held longest
    undrawn = [c for c in deal[n][1:] if C(c) not in {d for _, d in drawn}]
    y = undrawn[0] if undrawn else deal[n][-1]
    cut = min([gone_at.get(C(x), end), end] + [i for i, d in drawn if d == C(y)])
    swapped = [list(h) for h in deal]
    swapped[other][swapped[other].index(x)] = y
    swapped[n][swapped[n].index(y)] = x
    before = _observations(rules, deal, actions[:cut], seat, kind)
    after = _observations(rules, swapped, actions[:cut], seat, kind)
    n_cmp = min(len(before), len(after))
    assert n_cmp >= min(cut, 2)
    for (o1, m1), (o2, m2) in zip(before[:n_cmp], after[:n_cmp], strict=True):
        assert np.array_equal(o1, o2)
        assert np.array_equal(m1, m2)


@pytest.mark.parametrize("kind", KINDS)
def test_the_leak_test_would_catch_a_leak(kind):
    """Swapping a card between the seat's own hand and the stock changes its observation,
    and its mask once it discards."""
    rules = get_rules("seed")
    deal = full_deal(hands_of("AC 2C 3C 4D 4H 4S 9S 10S JS 5H",
                              "5C 6C 7C 8H 8S 8D KH KS KD 3H"), "QD", "QS")
    swapped = [list(h) for h in deal]
    swapped[0][0], swapped[2][-1] = swapped[2][-1], swapped[0][0]
    actions = [DRAW_STOCK, 2 + C("3H"), DRAW_STOCK]  # seat 1 draws QS, discards; seat 0 draws
    o1 = _observations(rules, deal, actions, 0, kind)
    o2 = _observations(rules, swapped, actions, 0, kind)
    assert len(o1) == len(o2) == 4
    assert not np.array_equal(o1[0][0], o2[0][0])
    assert not np.array_equal(o1[-1][1], o2[-1][1])  # its legal discards are its own cards


# ------------------------------------------------------------ errors, rewards
def test_illegal_action_raises_and_changes_nothing():
    e = env(preset="standard")
    e.reset(seed=3)
    assert "[0, 1]" in check_illegal_action_refused(e, 40)


def test_illegal_action_penalty_option_plays_a_random_legal_move():
    e = env(illegal_action="penalty", illegal_penalty=-0.5)
    e.reset(seed=3)
    agent = e.agent_selection
    e.step(40)
    assert e.unwrapped.state_obj.phase == "discard" and e.rewards[agent] == -0.5


def test_given_deal_is_dealt_and_checked():
    e = raw_env(num_players=3)
    deal = hands_of("AC 2C 3C 4D 4H 4S 9S 10S JS 5H", "5C 6C 7C 8H 8S 8D KH KS KD 3H",
                    "JC QC KC 9C 9D 9H 6H 6S 6D 3S")
    e.reset(seed=1, options={"deal": deal})
    assert cards.names(e.state_obj.view(2).hand) == sorted(deal[2], key=C)
    with pytest.raises(cards.CardError, match="misdeal: hand 2 has 9 cards"):
        e.reset(options={"deal": deal[:2] + [deal[2][:9]]})


def test_rewards_are_hand_points_over_100_plus_the_win_bonus():
    deal = full_deal(hands_of("2D 3S 5D 6S 7D 10C JD QH KC AH",
                              "AC 2C 3C 4D 4H 4S 9S 10S JS 5H"), "QC", "KH")
    e = raw_env(preset="standard", episode="hand")
    e.reset(seed=0, options={"deal": deal})
    e.step(DRAW_STOCK)
    e.step(knock_action(C("KH")))  # seat 1 knocks with 5 against 64: 59 points
    assert e.rewards == pytest.approx({"player_0": -0.59 - 1, "player_1": 0.59 + 1})
    raw = raw_env(preset="standard", episode="hand", relative_score=False)
    raw.reset(seed=0, options={"deal": deal})
    raw.step(DRAW_STOCK)
    raw.step(knock_action(C("KH")))
    assert raw.rewards == pytest.approx({"player_0": 0.0 - 1, "player_1": 0.59 + 1})
    assert all(e.terminations.values())
    e = raw_env(preset="standard", episode="hand", score_scale=0, win_reward=2.0)
    e.reset(seed=0, options={"deal": deal})
    e.step(TAKE_DISCARD)
    e.step(knock_action(C("5H")))  # takes QC, knocks with 0? no: QC is deadwood 10
    assert e.rewards == pytest.approx({"player_0": -2.0, "player_1": 2.0})


def test_a_dead_hand_in_hand_episodes_is_a_draw_that_pays_nobody():
    e = raw_env(preset="seed", episode="hand", num_players=3)
    e.reset(seed=2)
    state = e.state_obj
    while not all(e.terminations.values()):
        e.step(DRAW_STOCK if state.phase == "draw" else state.legal_actions()[0])
    assert state.results[0].dead
    assert e._cumulative_rewards == pytest.approx({f"player_{i}": 0.0 for i in range(3)})


def test_ansi_render_shows_the_table_and_only_the_actors_hand():
    deal = hands_of("AC 2C 3C 4D 4H 4S 9S 10S JS 5H", "5C 6C 7C 8H 8S 8D KH KS KD 3H")
    e = env(preset="standard", render_mode="ansi")
    e.reset(seed=0, options={"deal": deal})
    text = e.render()
    assert "standard" in text and "player_1 hand" in text and "deadwood 3" in text
    assert "♣ 5 6 7" in text and "A 2 3" not in text  # seat 0's cards are not shown


# ------------------------------------------------------------ encoder tables
def _ones(vec, lay, name, per_seat=False):
    off = lay[name]
    size = dict(lay.blocks)[name]
    idx = [int(i) for i in np.flatnonzero(vec[off:off + size] == 1)]
    return [(i // 52, i % 52) for i in idx] if per_seat else idx


THREE_DEAL = full_deal(hands_of("AC 2C 3C 4D 4H 4S 9S 10S JS 5H",
                                "5C 6C 7C 8H 8S 8D KH KS KD 3H",
                                "JC QC KC 9C 9D 9H 6H 6S 6D 3S"), "QD", "2S 7S 10H")


@pytest.mark.parametrize("kind", KINDS)
def test_encoder_blocks_are_relative_to_the_observer(kind):
    deal = THREE_DEAL
    state = GinRummyState(get_rules("seed", num_players=3), 0, deal=deal)
    lay = LAYOUTS[kind](3)
    encode = encoder(kind).encode
    state.apply(TAKE_DISCARD)  # seat 1 takes QD
    vec = encode(state.view(2))
    assert _ones(vec, lay, "phase") == [1] and _ones(vec, lay, "taken") == [C("QD")]
    assert _ones(vec, lay, "known", True) == [(2, C("QD"))]  # seat 1 is 2 after seat 2
    assert _ones(vec, lay, "hand") == sorted(C(c) for c in deal[2])
    assert _ones(vec, lay, "to_act") == [2] and _ones(vec, lay, "dealer") == [1]
    state.apply(2 + C("KH"))
    vec = encode(state.view(0))
    assert _ones(vec, lay, "pile_top") == [C("KH")] and _ones(vec, lay, "pile") == [C("KH")]
    assert _ones(vec, lay, "discarded", True) == [(1, C("KH"))]
    assert _ones(vec, lay, "known", True) == [(1, C("QD"))] and _ones(vec, lay, "taken") == []
    assert vec[lay["stock_size"]] == np.float32(21 / 21)
    if kind == "features":
        assert vec[lay["deadwood"]] == np.float32(5 / 100)  # seat 0 holds 5H dead
    assert vec[lay["rules"]:lay["rules"] + 5].tolist() == pytest.approx([0.1, 0, 1, 0, 0])
    view = state.view(1)
    scores = encode(type(view)(**{**{k: getattr(view, k) for k in view.__slots__},
                                  "scores": (50, 500, 0)}))
    assert scores[lay["scores"]:lay["scores"] + 3].tolist() == pytest.approx([4.0, 0.0, 0.5])
    assert lay.describe(lay["known"] + 52 + 3) == "known[1][3]"
    assert encoder(kind).describe(3, lay["known"] + 52 + 3) == "known[1][3]"


def test_picked_holds_every_card_taken_from_the_pile_also_once_discarded_again():
    """The information state's ``picked``: per relative seat, every card it took from the
    pile this hand. ``known`` drops a taken card when it is discarded again; ``picked``
    keeps it (that seat once wanted it), until the hand ends."""
    state = GinRummyState(get_rules("seed", num_players=3), 0, deal=THREE_DEAL)
    lay = infostate.layout(3)

    def blocks(seat):
        vec = infostate.encode(state.view(seat))
        return {name: _ones(vec, lay, name, True) for name in ("picked", "known", "discarded")}

    state.apply(TAKE_DISCARD)  # seat 1 takes QD and discards KH
    state.apply(2 + C("KH"))
    for seat in range(3):
        rel = (1 - seat) % 3
        assert blocks(seat)["picked"] == blocks(seat)["known"] == [(rel, C("QD"))]
    state.apply(TAKE_DISCARD)  # seat 2 takes KH, discards 3S
    state.apply(2 + C("3S"))
    state.apply(DRAW_STOCK)  # seat 0 draws 2S, discards 5H
    state.apply(2 + C("5H"))
    state.apply(DRAW_STOCK)  # seat 1 draws 7S and discards QD again
    state.apply(2 + C("QD"))
    assert state.hand_number == 1
    for seat in range(3):
        got = blocks(seat)
        one, two = (1 - seat) % 3, (2 - seat) % 3  # seats 1 and 2, relative to the observer
        assert got["picked"] == sorted([(one, C("QD")), (two, C("KH"))])
        assert got["known"] == [(two, C("KH"))]  # QD is back on the pile
        assert got["discarded"] == sorted([(one, C("KH")), (one, C("QD")), (two, C("3S")),
                                           ((0 - seat) % 3, C("5H"))])
    vec = infostate.encode(state.view(0))
    assert _ones(vec, lay, "pile_top") == [C("QD")]
    assert lay.describe(lay["picked"] + 2 * 52 + C("KH")) == f"picked[2][{C('KH')}]"


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), moves=st.integers(0, 120), n=st.integers(2, 4))
def test_infostate_is_the_features_information_and_the_picks(seed, moves, n):
    """Every block the two kinds share holds the same numbers, and ``picked`` is the view's
    picks by relative seat, over random play through several hands."""
    state = random_moves(GinRummyState(get_rules("seed", num_players=n), seed), seed, moves)
    info_lay, feat_lay = infostate.layout(n), features.layout(n)
    for seat in range(n):
        view = state.view(seat)
        info, feat = infostate.encode(view), encode(view)
        for name, size in info_lay.blocks:
            if name != "picked" and name not in LOOK_AHEAD:  # the tracker's estimate there
                assert np.array_equal(info[info_lay[name]:info_lay[name] + size],
                                      feat[feat_lay[name]:feat_lay[name] + size]), name
        # (a card can be taken twice in a hand: discarded, taken by another, discarded again)
        expect = sorted({((s - seat) % n, c) for s in range(n) for c in view.picked[s]})
        assert _ones(info, info_lay, "picked", True) == expect


EXACT = ("discard_deadwood", "discard_gin", "take_deadwood")  # the meld solver's answers
LOOK_AHEAD = ("discard_outlook", "discard_ready", "discard_gin_ready", "stock_outlook")


def test_infostate_holds_none_of_the_features_estimates():
    """Its blocks are the features' information blocks plus ``picked``, the meld solver's
    exact answers and the look-ahead counted exactly for the seat to act: no danger, no
    knock block, and nothing but those answers depends on who decides."""
    info = {name for name, _ in infostate.layout(2).blocks}
    feat = [name for name, _ in features.layout(2).blocks]
    estimates = feat[feat.index("discard_deadwood"):]
    assert "knock" in estimates and "discard_danger" in estimates
    assert info == set(feat) - set(estimates) | {"picked", *EXACT, *LOOK_AHEAD}
    lay = infostate.layout(2)
    per_card = ("discard_deadwood", "discard_gin", *LOOK_AHEAD[:3])
    assert encoder("infostate").action_features(2) == (
        *((lay[name], first, 52) for name in per_card for first in (2, 54)),
        (lay["take_deadwood"], 1, 1), (lay["stock_outlook"], 0, 1))
    assert encoder("features").action_features(2)
    deal = full_deal(hands_of("2D 3S 5D 6S 7D 10C JD QH KC AH",
                              "AC 2C 3C 4D 4H 4S 9S 10S JS 5H"), "QC", "QS")
    state = GinRummyState(get_rules("standard"), 0, deal=deal)
    state.apply(DRAW_STOCK)  # seat 1 draws QS: gin on a discard of 5H
    acting = state.view(1)
    assert features.encode(acting)[features.layout(2)["discard_deadwood"]:].any()
    waiting = dataclasses.replace(acting, current_player=0, phase="draw")
    info_acting, info_waiting = infostate.encode(acting), infostate.encode(waiting)
    differ = {lay.describe(int(i)).split("[")[0]
              for i in np.flatnonzero(info_acting != info_waiting)}
    assert differ == {"phase", "to_act", "discard_deadwood", "discard_gin", *LOOK_AHEAD[:3]}
    assert _ones(info_acting, lay, "discard_gin") == [C("5H")]  # the one discard that is gin
    dead = info_acting[lay["discard_deadwood"]:lay["discard_deadwood"] + 52]
    assert dead[C("QS")] == pytest.approx(0.05)
    assert dead[C("AC")] == pytest.approx(0.10)  # 2C 3C 5H left
    assert info_acting[lay["deadwood"]] == info_waiting[lay["deadwood"]] == pytest.approx(0.05)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), moves=st.integers(0, 40),
       preset=st.sampled_from(["seed", "standard"]))
def test_decision_features_are_the_meld_solvers_answers_for_the_seat_to_act(seed, moves,
                                                                             preset):
    """discard_deadwood[c] = deadwood of the hand without c (discarding); take_deadwood =
    the least deadwood after taking the top card and discarding another (drawing); both
    zero in every other seat's observation."""
    from cardrl.envs.gin_rummy.melds import deadwood, mask_of

    state = random_moves(GinRummyState(get_rules(preset), seed), seed, moves)
    lay = layout(2)
    dd, td, dg = lay["discard_deadwood"], lay["take_deadwood"], lay["discard_gin"]
    for seat in range(2):
        view = state.view(seat)
        obs = encode(view)
        expect = np.zeros(53)
        if seat == state.current_player and view.phase == "discard":
            for c in view.hand:
                expect[c] = min(1.0, deadwood(mask_of(set(view.hand) - {c})) / 100)
        elif seat == state.current_player and view.phase == "draw" and view.pile:
            top = view.pile[-1]
            grown = set(view.hand) | {top}
            expect[52] = min(deadwood(mask_of(grown - {d})) for d in grown
                             if not (d == top and view.rules.no_discard_of_taken)) / 100
        assert obs[dd:dd + 52] == pytest.approx(expect[:52])
        assert obs[td] == pytest.approx(expect[52])
        gin = [c for c in view.hand if seat == state.current_player and view.phase == "discard"
               and deadwood(mask_of(set(view.hand) - {c})) == 0]
        assert np.flatnonzero(obs[dg:dg + 52]).tolist() == sorted(gin)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), moves=st.integers(0, 60),
       game=st.sampled_from([("standard", 2, ()), ("seed", 3, ()), ("seed", 2, (None,))]))
def test_look_ahead_is_every_draw_searched_for_the_seat_to_act(seed, moves, game):
    """``discard_outlook`` / ``discard_ready`` / ``discard_gin_ready`` per held card and
    ``stock_outlook`` equal a search of every unseen draw (the knock limit, or 10 with
    none); zero for the other seats."""
    preset, n, limit = game
    rules = get_rules(preset, num_players=n, **({"knock_limit": None} if limit else {}))
    state = random_moves(GinRummyState(rules, seed), seed, moves)
    lay = infostate.layout(n)
    for seat in range(n):
        view = state.view(seat)
        obs = infostate.encode(view)
        acting = seat == state.current_player
        want = look_ahead_by_search(view, rules.knock_limit or 10)
        for name in LOOK_AHEAD:
            got = obs[lay[name]:lay[name] + len(want[name])]
            assert got == pytest.approx(want[name] if acting else 0 * want[name]), name


def test_discard_gin_marks_the_gin_discard_that_deadwood_zero_cannot():
    deal = full_deal(hands_of("2D 3S 5D 6S 7D 10C JD QH KC AH",
                              "AC 2C 3C 4D 4H 4S 9S 10S JS 5H"), "QC", "QS")
    e = raw_env(preset="standard", observation="features")
    e.reset(seed=0, options={"deal": deal})
    e.step(DRAW_STOCK)  # seat 1 draws QS: 9-10-J-Q of spades, and 5H is the one spare card
    lay = layout(2)
    obs = e.observe("player_1")["observation"]
    assert np.flatnonzero(obs[lay["discard_gin"]:lay["discard_gin"] + 52]).tolist() == [C("5H")]
    assert obs[lay["discard_deadwood"] + C("5H")] == 0.0  # as for a card not held
    assert obs[lay["discard_deadwood"] + C("AC")] > 0.0
    other = e.observe("player_0")["observation"]
    assert not other[lay["discard_gin"]:lay["discard_gin"] + 52].any()
    # kept gin stays gin after any draw: no deadwood expected, every draw allows a knock
    assert obs[lay["discard_outlook"] + C("5H")] == 0.0
    assert obs[lay["discard_ready"] + C("5H")] == 1.0
    assert obs[lay["discard_outlook"] + C("AC")] > 0.0


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), moves=st.integers(0, 40),
       preset=st.sampled_from(["seed", "standard"]))
def test_look_ahead_blocks_are_the_trackers_numbers_for_the_seat_to_act(seed, moves, preset):
    """discard_outlook / discard_ready / discard_danger per held card and stock_outlook
    are what ``Knowledge`` (the expert's tracker) computes from the same view; every
    other seat's blocks are zero."""
    from cardrl.envs.gin_rummy.melds import CARD_BIT, mask_of
    from cardrl.envs.gin_rummy.tracking import Knowledge

    state = random_moves(GinRummyState(get_rules(preset), seed), seed, moves)
    lay = layout(2)
    blocks = ("discard_outlook", "discard_ready", "discard_gin_ready", "discard_danger")
    for seat in range(2):
        view = state.view(seat)
        obs = encode(view)
        expect = {name: np.zeros(52) for name in blocks}
        stock = 0.0
        acting = seat == state.current_player
        know = Knowledge(view)
        if acting and view.phase == "discard":
            for c in view.hand:
                mean, ready, gin = know.outlook(mask_of(view.hand) ^ CARD_BIT[c], 10)
                expect["discard_outlook"][c] = min(1.0, mean / 100)
                expect["discard_ready"][c] = ready
                expect["discard_gin_ready"][c] = gin
                expect["discard_danger"][c] = min(1.0, know.danger(c) / 3)
        elif acting and view.phase == "draw" and view.pile:
            stock = min(1.0, know.expected_deadwood(mask_of(view.hand)) / 100)
        for name in blocks:
            assert obs[lay[name]:lay[name] + 52] == pytest.approx(expect[name], abs=1e-6), name
        assert obs[lay["stock_outlook"]] == pytest.approx(stock, abs=1e-6)


def expert_moves(state, moves: int):
    """``state`` after up to ``moves`` moves of ``gin_rummy/expert`` in every seat, stopping
    at the end of the first hand (the expert's hands reach knocks, random ones rarely do)."""
    from cardrl import agents

    bot = agents.make("gin_rummy/expert")
    for _ in range(moves):
        if state.is_over or state.results:
            break
        seat = state.current_player
        state.apply(int(bot.act(state.view(seat), state.legal_actions())))
    return state


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), moves=st.integers(10, 60),
       preset=st.sampled_from(["seed", "standard"]))
def test_knock_block_is_worked_out_from_the_view_of_the_seat_to_act(seed, moves, preset):
    """The ``knock`` block, recomputed by brute force: the least deadwood of a legal knock,
    the best look-ahead shares of the plain discards, the unseen cards that join a meld of
    the knocking hand's best split, and the next player's picks and discards; zero for
    the other seat and whenever no knock is legal."""
    from cardrl.envs.gin_rummy.features import KNOCK_FEATURES
    from cardrl.envs.gin_rummy.melds import (
        CARD_BIT,
        CARD_VALUE,
        best_split,
        deadwood,
        mask_of,
        meldable,
    )
    from cardrl.envs.gin_rummy.tracking import Knowledge

    state = expert_moves(GinRummyState(get_rules(preset), seed), moves)
    lay = layout(2)
    at, size = lay["knock"], len(KNOCK_FEATURES)
    for seat in range(2):
        view = state.view(seat)
        block = encode(view)[at:at + size]
        legal = state.legal_actions() if seat == state.current_player else []
        knocks = [a - 54 for a in legal if a >= 54]
        if not knocks:
            assert not block.any()
            continue
        hand = mask_of(view.hand)
        card = min(knocks, key=lambda c: (deadwood(hand ^ CARD_BIT[c]), -CARD_VALUE[c], c))
        plain = [a - 2 for a in legal if 2 <= a < 54]
        know = Knowledge(view)
        shares = [know.outlook(hand ^ CARD_BIT[c], 10) for c in plain]
        melds = best_split(hand ^ CARD_BIT[card])
        seen = set(view.hand) | set(view.pile) | set(view.known[1 - seat])
        lay_off = [x for x in range(52) if x not in seen
                   and any(meldable(m | CARD_BIT[x]) & CARD_BIT[x] for m in melds)]
        thrown = [CARD_VALUE[c] for c in view.discarded[1 - seat]]
        held = view.known[1 - seat]
        melded = [c for c in held if meldable(mask_of(held)) & CARD_BIT[c]]
        expect = [1, deadwood(hand ^ CARD_BIT[card]) / 10, max(s[2] for s in shares),
                  max(s[1] for s in shares), len(lay_off) / 10,
                  sum(CARD_VALUE[x] for x in lay_off) / 50, len(view.discarded[seat]) / 10,
                  len(thrown) / 10, len(view.picked[1 - seat]) / 5, len(held) / 5,
                  len(melded) / 5, np.mean(thrown) / 10 if thrown else 0,
                  thrown[-1] / 10 if thrown else 0,
                  np.mean([v >= 8 for v in thrown]) if thrown else 0]
        assert block == pytest.approx(np.minimum(1.0, expect), abs=1e-6)


def test_knock_block_on_a_dealt_hand():
    from cardrl.envs.gin_rummy.features import KNOCK_FEATURES

    # seat 1 holds 2-3-4 and 9-10-J of clubs and three 7s; it draws 5H and may knock
    deal = full_deal(hands_of("2D 3S 5D 6S 8D 10D JD QH KH AH",
                              "2C 3C 4C 9C 10C JC 7C 7D 7H KS"), "QC", "5H")
    e = raw_env(preset="standard", observation="features")
    e.reset(seed=0, options={"deal": deal})
    e.step(DRAW_STOCK)
    lay = layout(2)
    obs = e.observe("player_1")["observation"]
    block = dict(zip(KNOCK_FEATURES, obs[lay["knock"]:], strict=False))
    assert block["legal"] == 1.0
    assert block["deadwood"] == pytest.approx(0.5)  # knocking with KS leaves 5H: 5 points
    # lay-offs on 2-3-4C, 9-10-JC, 7C-7D-7H: AC 5C 8C and 7S (QC is on the pile: seen)
    assert block["layoff_cards"] == pytest.approx(0.4)
    assert block["layoff_points"] == pytest.approx((1 + 5 + 8 + 7) / 50)
    assert block["own_discards"] == 0.0 and block["next_discards"] == 0.0
    assert not e.observe("player_0")["observation"][lay["knock"]:].any()
