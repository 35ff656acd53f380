"""Our games as OpenSpiel games (``cardrl.agents.openspiel``): OpenSpiel's own random simulation
test, the information state against the env's observation, resampling, IS-MCTS as a bot,
and OpenSpiel's solvers against our Blind Auction LP."""

from __future__ import annotations

import numpy as np
import pyspiel  # the openspiel extra, which `make test` installs: no skip
import pytest

from cardrl import agents
from cardrl.agents import openspiel as ops
from cardrl.agents.blind_auction.equilibrium import EquilibriumBot, solution
from cardrl.envs.games import game_names, get_game

# every preset, as the parameters name it; one hand where a game has many (the test's speed)
CASES = [(name, {"preset": p, **({"episode": "hand"} if "max_hands" in ops.parameter_specification(
    get_game(name)) else {})}) for name in game_names() for p in get_game(name).presets]
CASES += [("blind_auction", {"turn_based": True}),
          ("spades", {"preset": "cutthroat", "max_hands": 2, "returns": "win"}),
          ("gin_rummy", {"num_players": 3, "episode": "hand"}),
          ("sevens", {"num_players": 3})]


def test_every_game_is_registered_under_its_name():
    assert set(ops.GAMES) == {f"cardrl_{name}" for name in game_names()}
    assert set(ops.GAMES) <= set(pyspiel.registered_names())
    sim = {name: ops.load(name).get_type().dynamics for name in game_names()}
    for name, dynamics in sim.items():
        expected = "SIMULTANEOUS" if get_game(name).simultaneous else "SEQUENTIAL"
        assert dynamics.name == expected


@pytest.mark.parametrize("name, params", CASES, ids=lambda x: str(x))
def test_each_game_passes_openspiels_random_simulation_test(name, params):
    game = ops.load(name, **params)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
    rules = game.spec.rules
    assert rules.preset == params.get("preset", get_game(name).presets[0]) or \
        rules.preset == "custom"
    assert game.num_players() == get_game(name).num_players(rules)


def test_parameters_change_the_rules_and_bad_ones_are_refused_by_name():
    game = ops.load("gin_rummy", preset="standard", target=50, knock_limit=-2)
    assert game.spec.rules.target == 50 and game.spec.rules.knock_limit is None
    assert ops.load("spades", preset="cutthroat").spec.rules.target == \
        get_game("spades").make_rules("cutthroat").target  # -1 keeps the preset's
    assert ops.load("spades", jokers=1).spec.rules.jokers is True
    with pytest.raises(Exception, match="episode must be one of"):
        ops.load("spades", episode="week")
    with pytest.raises(Exception, match="'target' cannot be none"):
        ops.load("spades", target=-2)
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        ops.load("chess")


def _play_both(name: str, params: dict, seed: int, env_kwargs: dict) -> int:
    """Deal the env and the OpenSpiel game alike, play the same random moves, and check
    at every step that each seat's information state tensor is its env observation."""
    decl = get_game(name)
    game = ops.load(name, **params)
    env = decl.env(**env_kwargs)
    env.reset(seed=seed)
    state = game.new_initial_state()
    for outcome in ops.chance_outcomes_of_seed(decl, game.spec.rules, seed):
        assert state.is_chance_node()
        state.apply_action(outcome)
    rng = np.random.default_rng(seed)
    steps = 0
    while not state.is_terminal():
        assert not state.is_chance_node()  # one hand: no deal after the first
        for seat, agent in enumerate(env.possible_agents):
            np.testing.assert_array_equal(np.asarray(state.information_state_tensor(seat)),
                                          env.observe(agent)["observation"])
        seat = state.current_player()
        assert env.agent_selection == env.possible_agents[seat]
        legal = state.legal_actions()
        assert legal == np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist()
        action = int(rng.choice(legal))
        state.apply_action(action)
        env.step(action)
        steps += 1
    return steps


@pytest.mark.parametrize("name, params, env_kwargs", [
    ("spades", {"preset": "killer", "max_hands": 1}, {"preset": "killer", "max_hands": 1}),
    ("gin_rummy", {"preset": "standard", "max_hands": 1}, {"preset": "standard", "max_hands": 1}),
    ("sevens", {"preset": "random"}, {"preset": "random"}),
    ("blind_auction", {"preset": "3p", "turn_based": True}, {"preset": "3p"}),
])
def test_the_information_state_tensor_is_the_env_observation_on_the_same_deal(
        name, params, env_kwargs):
    assert _play_both(name, params, 7, env_kwargs) > 10


@pytest.mark.parametrize("name, params", [("spades", {"episode": "hand"}),
                                          ("gin_rummy", {"episode": "hand"}),
                                          ("sevens", {}), ("blind_auction", {"turn_based": True})])
def test_a_resampled_state_looks_the_same_to_its_seat_and_hides_another_truth(name, params):
    game = ops.load(name, **params)
    state = game.new_initial_state()
    rng = np.random.default_rng(3)
    moves = 0
    while state.is_chance_node() or moves < 9:
        if state.is_chance_node():
            state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
            moves += 1
    seat = state.current_player()
    others = []
    for _ in range(4):
        other = state.resample_from_infostate(seat, rng=rng)
        assert other.information_state_string(seat) == state.information_state_string(seat)
        assert other.information_state_tensor(seat) == state.information_state_tensor(seat)
        assert other.legal_actions() == state.legal_actions()
        others.append(str(other))
    assert any(o != str(state) for o in others)  # the other seats' cards were dealt anew


@pytest.mark.parametrize("name, rules", [("spades", {"max_hands": 1}),
                                         ("gin_rummy", {"max_hands": 1}),
                                         ("sevens", {"num_players": 3}),
                                         ("blind_auction", {"cards_per_suit": 5})])
def test_ismcts_finishes_a_game_against_random_players(name, rules):
    decl = get_game(name)
    state = decl.new_state(decl.make_rules(**rules), 5)
    bot = agents.make("openspiel/ismcts:simulations=4,uct_c=1.5", seed=1)
    other = agents.make("random", seed=2)
    moves = 0
    while not state.is_over:
        seat = state.current_player
        player = bot if seat == 0 else other
        action = player.act(state.view(seat), state.legal_actions())
        assert action in state.legal_actions()
        state.apply(action)
        moves += 1
    assert moves > 0 and state.results


def test_ismcts_plays_a_duplicate_tournament_by_its_spec(tmp_path):
    from cardrl.eval.config import TournamentConfig
    from cardrl.eval.tournament import run_tournament

    spec = "openspiel/ismcts:simulations=8,uct_c=1"
    cfg = TournamentConfig(game="blind_auction", bots=(spec, "blind_auction/high-early"),
                           preset="2p", rule_changes={"cards_per_suit": 4}, max_hands=1)
    run = run_tournament(cfg, deals=2, out=tmp_path, workers=1)
    assert run.played == 4  # 2 deals x 2 seat rotations
    assert spec in run.text


def test_bad_ismcts_options_are_refused_by_name():
    for spec, message in [("openspiel/ismcts:simulations=0", "simulations must be"),
                          ("openspiel/ismcts:worlds=0", "worlds must be"),
                          ("openspiel/ismcts:final=best", "final must be one of")]:
        with pytest.raises(ValueError, match=message):
            agents.make(spec)


def _equilibrium_policy(game):
    """Our LP's equilibrium (``blind_auction/equilibrium``) as an OpenSpiel tabular policy."""
    from open_spiel.python import policy as policy_lib

    table = policy_lib.TabularPolicy(game)
    bot = EquilibriumBot()
    for index, state in enumerate(table.states):
        seat = state.current_player()
        legal = state.legal_actions()
        probs = bot.action_probs(state.engine.view(seat), legal)
        table.action_probability_array[index, legal] = probs / probs.sum()
    return table


@pytest.mark.parametrize("tie_rule", ["discard", "carry"])
def test_openspiel_finds_our_blind_auction_equilibrium_exact(tie_rule):
    """OpenSpiel's exact best responses gain nothing against our LP's equilibrium, and its
    value is the LP's, and OpenSpiel's sequence-form LP (cvxpy) finds the same value."""
    from open_spiel.python.algorithms import exploitability

    game = ops.load("blind_auction", cards_per_suit=3, tie_rule=tie_rule, turn_based=True)
    scale = game.spec.rules.prize_total
    lp_value = solution(3, tie_rule).value
    table = _equilibrium_policy(game)
    assert exploitability.nash_conv(game, table) == pytest.approx(0.0, abs=1e-9)
    assert exploitability.nash_conv(game, _lowest_first(game)) > 0.05  # the check can fail
    from open_spiel.python.algorithms.expected_game_score import policy_value
    value = policy_value(game.new_initial_state(), [table, table])
    assert value[0] * scale == pytest.approx(lp_value, abs=1e-9)
    from open_spiel.python.algorithms import sequence_form_lp

    v0, v1, _, _ = sequence_form_lp.solve_zero_sum_game(game)
    assert v0 * scale == pytest.approx(lp_value, abs=1e-6)
    assert v1 == pytest.approx(-v0, abs=1e-6)


def _lowest_first(game):
    """Always the lowest card: a best response beats it by one rank in each round."""
    from open_spiel.python import policy as policy_lib

    table = policy_lib.TabularPolicy(game)
    table.action_probability_array[:] = 0
    for index, state in enumerate(table.states):
        table.action_probability_array[index, min(state.legal_actions())] = 1.0
    return table


def test_cfr_approaches_the_lp_value_on_a_small_blind_auction():
    from open_spiel.python.algorithms import cfr, exploitability

    game = ops.load("blind_auction", cards_per_suit=3, tie_rule="carry", turn_based=True)
    solver = cfr.CFRPlusSolver(game)
    convs = []
    for iterations in (2, 3):
        for _ in range(iterations):
            solver.evaluate_and_update_policy()
        convs.append(exploitability.nash_conv(game, solver.average_policy()))
    assert convs[1] < convs[0] < exploitability.nash_conv(game, _lowest_first(game))
