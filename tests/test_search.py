"""The search bot: play-outs in lock step equal play-outs one at a time, the best-valued
candidate is played, decisions depend on the view alone, and exported cards carry it."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from cardrl import agents
from cardrl.agents.learned import BotLoadError, OnnxBot
from cardrl.agents.search import BELIEF_POOL, SearchBot, hand_value, sharpened_log
from cardrl.envs.games import get_game, registered
from cardrl.train.ppo import export_untrained
from tests.env_checks import random_moves


@pytest.fixture(scope="module")
def nets(tmp_path_factory) -> dict[str, Path]:
    """Untrained networks over the default observation, by game; over the ``features``
    observation, by ``(game, "features")``."""
    root = tmp_path_factory.mktemp("search")
    out: dict = {game: export_untrained(game, root / f"{game}.onnx", net=(16,), seed=2)
                 for game in ("spades", "gin_rummy")}
    for game in ("spades", "gin_rummy"):
        out[game, "features"] = export_untrained(game, root / f"{game}-features.onnx",
                                                 net=(16,), seed=2, observation="features")
    return out


def decision(game: str, seed: int, moves: int):
    """A state where the player to act has at least two moves."""
    g = get_game(game)
    state = random_moves(g.new_state(g.get_rules(g.presets[0]), seed), seed, moves)
    while len(state.legal_actions()) < 2:
        state.apply(state.legal_actions()[0])
    return state


@pytest.mark.parametrize("points, over, winners, seat, expected", [
    ((30, -20, 10, 0), False, (), 0, (30 - (-20 + 10 + 0) / 3) / 100),
    ((30, -20, 10, 0), False, (), 1, (-20 - (30 + 10 + 0) / 3) / 100),
    ((30, -20, 10, 0), True, (0,), 0, (30 - (-20 + 10 + 0) / 3) / 100 + 1),
    ((30, -20, 10, 0), True, (0, 2), 2, (10 - (30 - 20 + 0) / 3) / 100 + 0.5),
    ((30, -20, 10, 0), True, (0,), 3, (0 - (30 - 20 + 10) / 3) / 100 - 1 / 3),
    ((30, -20, 10, 0), True, (0, 2), 1, (-20 - (30 + 10 + 0) / 3) / 100 - 0.5),
    ((10, 10), True, (0, 1), 0, 0.0),  # a draw pays nothing
    ((25, 0), False, (), 1, -0.25),
    (None, True, (1,), 1, 1.0),  # the game ended without a scored hand: only the win counts
])
def test_a_hand_pays_relative_points_over_the_scale_and_the_win(points, over, winners, seat,
                                                                expected):
    n = 4 if points is None else len(points)
    assert hand_value(points, over, winners, seat, 100.0, n) == pytest.approx(expected)


@pytest.mark.parametrize("bids, tricks, points, penalties, expected", [
    # 42 = bid 4 made with 2 overtricks: 2 bags, each worth -10 over a game; 3 set; 2 made
    ((4, 3, 2, 2), (6, 2, 2, 3), (42, -30, 20, 21), (0, 0, 0, 0), (22, -30, 20, 11)),
    # the fifth bag: -50 paid now and the count drops by 5: handed back, the bag charged
    ((3, 4, 2, 1), (4, 4, 2, 3), (31 - 50, 40, 20, 12), (1, 0, 0, 0), (31 - 10, 40, 20, -8)),
    # a nil made or failed makes no bags
    ((0, 0, 6, 5), (2, 0, 6, 5), (-50, 50, 60, 50), (0, 0, 0, 0), (-50, 50, 60, 50)),
])
def test_cutthroat_bags_cost_their_share_of_the_penalty_when_made(bids, tricks, points,
                                                                  penalties, expected):
    from cardrl.envs.spades.rules import get_rules
    from cardrl.envs.spades.scoring import HandResult, hand_worth

    result = HandResult(1, 0, bids, tricks, points, penalties, (0,) * 4, points)
    assert hand_worth(get_rules("cutthroat"), result) == expected
    assert hand_worth(get_rules("killer"), result) == points  # no bags


def test_a_searched_spades_hand_is_worth_its_points_less_its_bags():
    """Played out from a world, the value is the hand's points with bags charged."""
    g = get_game("spades")
    state = g.new_state(g.get_rules("cutthroat"), 1)
    state.bags = [4, 0, 2, 0]
    world = g.sample_worlds(state.view(state.current_player), 1, np.random.default_rng(0))[0]
    after = world.clone()
    while len(after.results) == len(world.results):  # everyone bids 1, then plays high
        after.apply(1 if after.phase == "bid" else after.legal_actions()[-1])
    result = after.results[-1]
    got = g.hand_worth(after.rules, result)
    assert result.bags != tuple(world.bags)  # some seat made bags (or paid for the fifth)
    for seat in range(4):
        gained = result.bags[seat] - world.bags[seat]  # less 5 where a penalty was paid
        assert got[seat] == result.points[seat] - 10 * gained


@pytest.mark.parametrize("game, moves", [("spades", 30), ("spades", 0), ("gin_rummy", 25)])
def test_lock_step_play_outs_value_moves_as_single_play_outs_do(nets, game, moves):
    net = agents.load(nets[game])
    state = decision(game, 4, moves)
    seat, view = state.current_player, state.view(state.current_player)
    bot = SearchBot(net, game, worlds=3, top_k=2, seed=11)
    legal = state.legal_actions()
    got = bot.values(view, legal[:2])
    worlds = get_game(game).sample_worlds(view, 3, np.random.default_rng(11))
    expected = []
    for move in legal[:2]:
        row = []
        for w in worlds:
            s = w.clone()
            s.apply(move)
            hands = len(s.results)
            while not s.is_over and len(s.results) == hands:
                s.apply(net.act(s.view(s.current_player), s.legal_actions()))
            points = get_game(game).hand_worth(s.rules, s.results[-1])
            row.append(hand_value(points, s.is_over, s.winners, seat, bot.score_scale,
                                  len(s.scores)))
        expected.append(row)
    assert np.allclose(got, expected)
    assert state.view(seat) == view  # the search played on copies


def test_the_best_valued_candidate_is_played_and_ties_go_to_the_likelier(nets, monkeypatch):
    net = agents.load(nets["spades"])
    state = decision("spades", 7, 20)
    view, legal = state.view(state.current_player), state.legal_actions()
    probs = net.probabilities(view, legal)
    assert sum(probs.values()) == pytest.approx(1.0)
    bot = SearchBot(net, "spades", worlds=2, top_k=3, seed=0)
    ranked = sorted(legal, key=lambda a: -probs[a])
    assert bot.candidates(view, legal) == ranked[:3]
    bot.min_prior = (probs[ranked[0]] + probs[ranked[1]]) / 2  # only the first is likely enough
    assert bot.candidates(view, legal) == ranked[:1]
    bot.min_prior = 0.0
    monkeypatch.setattr(bot, "values", lambda v, moves: np.array([[0.1, 0.1], [0.7, 0.7],
                                                                  [0.2, 0.2]])[:len(moves)])
    assert bot.act(view, legal) == ranked[1]
    monkeypatch.setattr(bot, "values", lambda v, moves: np.array([[0.5, 0.4], [0.5, 0.4],
                                                                  [0.2, 0.2]])[:len(moves)])
    assert bot.act(view, legal) == ranked[0]


@pytest.mark.parametrize("rows, z, expected", [
    ([[0, 0, 0, 0], [1, 1, 1, 1]], 0, 1),
    ([[0, 0, 0, 0], [1, 1, 1, 1]], 50, 1),  # no spread at all: clear at any z
    ([[0, 0, 0, 0], [2, -1, 2, -1]], 0, 1),  # gain 0.5, standard error 0.866
    ([[0, 0, 0, 0], [2, -1, 2, -1]], 0.5, 1),
    ([[0, 0, 0, 0], [2, -1, 2, -1]], 0.6, 0),
    ([[0, 0, 0, 0], [-1, -1, -1, -1], [0, 0, 0, 0]], 0, 0),  # a tie keeps the policy's move
    ([[0, 0, 0, 0], [2, -1, 2, -1], [0.4, 0.4, 0.4, 0.4]], 0, 1),  # the larger gain
    ([[0, 0, 0, 0], [2, -1, 2, -1], [0.4, 0.4, 0.4, 0.4]], 1, 2),  # the clear one
    ([[1, 2, 3, 4], [2, 3, 4, 5]], 3, 1),  # paired: the worlds' luck cancels
])
def test_the_policy_move_stands_unless_another_beats_it_by_z_standard_errors(nets, rows, z,
                                                                           expected):
    bot = SearchBot(agents.load(nets["spades"]), "spades", z=z)
    assert bot.choose(np.array(rows, dtype=float)) == expected


@pytest.mark.parametrize("game, kind, belief", [
    ("spades", "infostate", 0.0), ("spades", "features", 0.0), ("spades", "infostate", 0.5),
    ("gin_rummy", "infostate", 0.0), ("gin_rummy", "features", 0.0)])
def test_the_decision_depends_on_the_view_alone(nets, game, kind, belief):
    net = nets[game] if kind == "infostate" else nets[game, kind]
    assert agents.load(net).card["observation"]["kind"] == kind
    state = decision(game, 8, 30)
    seat = state.current_player
    view = state.view(seat)
    other = get_game(game).sample_worlds(view, 1, np.random.default_rng(1))[0]
    assert other.hands != state.hands and other.view(seat) == view
    choices = []
    for truth in (state, other):
        bot = SearchBot(agents.load(net), game, worlds=4, top_k=3, belief=belief, seed=21)
        choices.append([bot.act(truth.view(seat), truth.legal_actions()) for _ in range(3)])
    assert choices[0] == choices[1]


def test_a_network_acts_on_a_batch_as_on_each_view(nets):
    net = agents.load(nets["gin_rummy"])
    g = get_game("gin_rummy")
    state = g.new_state(g.get_rules("seed"), 2)
    rng = np.random.default_rng(0)
    views, legals = [], []
    while len(views) < 150 and not state.is_over:
        views.append(state.view(state.current_player))
        legals.append(state.legal_actions())
        state.apply(int(rng.choice(legals[-1])))
    one_by_one = [net.act(v, la) for v, la in zip(views, legals, strict=True)]
    assert net.act_batch(views, legals) == one_by_one
    with pytest.raises(ValueError, match="no legal actions"):
        net.act_batch(views[:2], [legals[0], []])


def _card_with(path: Path, tmp_path: Path, **changes) -> Path:
    card = json.loads(path.with_suffix(".json").read_text())
    card.update(changes)
    target = tmp_path / path.name
    target.write_bytes(path.read_bytes())
    target.with_suffix(".json").write_text(json.dumps(card))
    return target


def test_a_card_with_search_loads_the_network_inside_a_search_bot(nets, tmp_path):
    path = _card_with(nets["spades"], tmp_path, search={"worlds": 6, "top_k": 2})
    bot = agents.load(path, seed=1)
    assert isinstance(bot, SearchBot) and (bot.worlds, bot.top_k) == (6, 2)
    assert bot.card["search"] == {"worlds": 6, "top_k": 2}
    assert isinstance(agents.load(path, worlds=0), OnnxBot)
    assert agents.make(f"{path}:worlds=3").worlds == 3
    assert isinstance(agents.load(nets["spades"]), OnnxBot)  # no search entry: the network
    state = decision("spades", 3, 10)
    assert bot.act(state.view(state.current_player), state.legal_actions()) \
        in state.legal_actions()


@pytest.mark.parametrize("options, message", [
    ({"worlds": -1}, "worlds must be an integer >= 1, got -1"),
    ({"top_k": 1.5}, "top_k must be an integer >= 1, got 1.5"),
    ({"min_prior": 2}, "min_prior must be in"),
    ({"z": -1}, "z must be a number in"),
    ({"belief": -0.5}, r"belief must be a temperature in \[0, 100\) \(0: uniform worlds\), "
                       r"got -0.5"),
    ({"belief": True}, "belief must be a temperature"),
    ({"depth": 3}, r"unknown option\(s\) \['depth'\]"),
])
def test_bad_search_settings_are_refused_by_name(nets, options, message):
    with pytest.raises(BotLoadError, match=message):
        agents.load(nets["spades"], **options)


def test_a_game_without_a_world_sampler_cannot_be_searched():
    unsampled = dataclasses.replace(get_game("sevens"), name="unsampled", sample_worlds=None)
    with registered(unsampled), \
            pytest.raises(ValueError, match="'unsampled' has no world sampler"):
        SearchBot(agents.make("random"), "unsampled")


def test_a_game_that_cannot_replay_its_moves_cannot_weigh_worlds_by_belief():
    unreplayed = dataclasses.replace(get_game("spades"), name="unreplayed", past_moves=None)
    with registered(unreplayed), \
            pytest.raises(ValueError, match="'unreplayed' cannot replay its moves"):
        SearchBot(agents.make("random"), "unreplayed", belief=0.5)
    with registered(unreplayed):  # uniform worlds: fine
        assert SearchBot(agents.make("random"), "unreplayed").belief == 0


@pytest.mark.parametrize("probs, action, temperature, expected", [
    ({0: 0.5, 1: 0.25, 2: 0.25}, 1, 1.0, np.log(0.25)),
    ({0: 0.5, 1: 0.25, 2: 0.25}, 0, 0.5, np.log(0.25 / 0.375)),  # squared: .25, .0625, .0625
    ({0: 0.5, 1: 0.25, 2: 0.25}, 2, 0.5, np.log(0.0625 / 0.375)),
    ({0: 0.5, 1: 0.5}, 1, 0.1, np.log(0.5)),  # a tie stays a tie at any temperature
    ({0: 1.0, 1: 0.0}, 0, 1.0, 0.0),
    ({0: 1.0, 1: 0.0}, 1, 1.0, np.log(1e-300)),  # ruled out, but finite
])
def test_a_move_s_likelihood_is_its_probability_sharpened_by_the_temperature(
        probs, action, temperature, expected):
    assert sharpened_log(probs, action, temperature) == pytest.approx(expected)


@pytest.mark.parametrize("seed", range(3))
def test_belief_keeps_the_worlds_where_the_others_bid_as_the_policy_would_with_their_cards(
        seed):
    """With a deterministic policy a world where another seat would have bid otherwise is all
    but ruled out: the kept worlds are those of the pool with the fewest such bids."""
    g = get_game("spades")
    expert = agents.make("spades/expert")
    state = g.new_state(g.get_rules("killer"), seed)
    while state.phase == "bid":
        state.apply(expert.act(state.view(state.current_player), state.legal_actions()))
    view = state.view(state.current_player)
    bot = SearchBot(agents.make("spades/expert"), "spades", worlds=8, belief=1.0, seed=seed)
    pools: list = []
    sample = bot._sample
    bot._sample = lambda v, n, rng: pools.append(sample(v, n, rng)) or pools[-1]

    def misfits(world) -> int:
        return sum(expert.act(v, legal) != bid for v, legal, bid in g.past_moves(view, world))

    kept = bot.sample(view)
    (pool,) = pools
    assert len(pool) == BELIEF_POOL * 8 and len(kept) == 8
    assert all(any(k is w for w in pool) for k in kept)
    in_pool = sorted(misfits(w) for w in pool)
    assert in_pool[0] < in_pool[-1]  # the check means something here
    assert sorted(misfits(k) for k in kept) == in_pool[:8]


def test_without_belief_the_worlds_are_the_uniform_sampler_s():
    g = get_game("spades")
    state = decision("spades", 4, 20)
    view = state.view(state.current_player)
    bot = SearchBot(agents.make("random"), "spades", worlds=5, seed=7)
    worlds = bot.sample(view)
    assert [w.hands for w in worlds] == \
        [w.hands for w in g.sample_worlds(view, 5, np.random.default_rng(7))]


def test_a_network_s_probabilities_on_a_batch_are_those_of_each_view(nets):
    net = agents.load(nets["spades"])
    state, views, legals = decision("spades", 5, 0), [], []
    for _ in range(12):
        views.append(state.view(state.current_player))
        legals.append(state.legal_actions())
        state.apply(legals[-1][0])
    batch = net.probabilities_batch(views, legals)
    for got, v, legal in zip(batch, views, legals, strict=True):
        one = net.probabilities(v, legal)
        assert list(got) == legal and got == pytest.approx(one)
        assert sum(got.values()) == pytest.approx(1.0)


def test_a_simultaneous_game_gets_no_search_bot_though_it_samples_worlds():
    assert get_game("blind_auction").sample_worlds is not None
    assert "blind_auction/search" not in agents.names("blind_auction")
    assert "sevens/search" in agents.names("sevens")
