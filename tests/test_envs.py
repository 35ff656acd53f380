"""What every game's env promises, for every preset, player count and observation kind.

PettingZoo's own tests (api, seed, and the parallel ones for Blind Auction); the
observer's vectors equal the encoder's and lie in the space; masks are the legal
set; and the rules ``cardrl.envs.aec`` applies once for every game: a bool is not an
action, penalty mode never raises, reset options are checked, packages export
their env functions and engines load no PettingZoo.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

from cardrl.envs.encoding import KINDS
from cardrl.envs.games import game_names, get_game
from tests.env_checks import example_id, examples

ROOT = Path(__file__).resolve().parents[1]

# (game, preset, rule changes): every declared game's presets, player counts and extra
# examples (``tests.env_checks.examples``)
CONFIGS = examples()
IDS = [example_id(*c) for c in CONFIGS]


def make(game: str, preset: str, changes: dict, kind: str, **options):
    return get_game(game).env(preset=preset, observation=kind, **changes, **options)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("game", "preset", "changes"), CONFIGS, ids=IDS)
def test_pettingzoo_api_and_seed_tests(game, preset, changes, kind):
    api_test(make(game, preset, changes, kind), num_cycles=200)
    seed_test(lambda: make(game, preset, changes, kind), num_cycles=200)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("players", [2, 3])
def test_blind_auction_parallel_api_and_seed_tests(players, kind):
    from cardrl.envs.blind_auction import parallel_env

    parallel_api_test(parallel_env(num_players=players, observation=kind), num_cycles=100)
    parallel_seed_test(lambda: parallel_env(num_players=players, observation=kind))


def _check_every_seat(e) -> int:
    """Every seat's observation equals its encoder's vector of its view, lies in the
    space, and only the seat to act has a mask, exactly the legal set."""
    state = e.state_obj
    encoder = e.encoder
    for seat, agent in enumerate(e.possible_agents):
        o = e.observe(agent)
        expected = encoder.encode(state.view(seat))
        if not np.array_equal(o["observation"], expected):
            bad = np.flatnonzero(o["observation"] != expected)[:5]
            raise AssertionError(f"{e.metadata['name']} {encoder.name} seat {seat}, {state!r}: "
                                 + ", ".join(f"{encoder.describe(e.num_players, int(i))} is "
                                             f"{o['observation'][i]}, encode gives {expected[i]}"
                                             for i in bad))
        assert e.observation_space(agent).contains(o), (encoder.name, seat)
        legal = state.legal_actions() if seat == state.current_player else []
        assert np.flatnonzero(o["action_mask"]).tolist() == sorted(legal)
    return 1


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("game", "preset", "changes"), CONFIGS, ids=IDS)
def test_observer_is_the_encoder_at_every_step_and_masks_are_the_legal_set(
        game, preset, changes, kind):
    """Random play with illegal actions now and then (penalised and replaced), and moves
    applied to the state behind the env's back (the observer must notice and re-encode)."""
    e = make(game, preset, changes, kind, illegal_action="penalty")
    rng = np.random.default_rng(7)
    checks = 0
    for episode in range(8):
        e.reset(seed=100 + episode)
        for _agent in e.agent_iter():
            checks += _check_every_seat(e)
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            r = rng.random()
            if r < 0.03 and len(legal) < e.num_actions:
                e.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
            elif r < 0.045 and episode % 2:
                e.state_obj.apply(int(rng.choice(legal)))  # behind the env's back: the
                checks += _check_every_seat(e)  # observer must notice; the env's agent
                break  # selection is out of step now, so a new episode
            else:
                e.step(int(rng.choice(legal)))
    assert checks > 60


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("game", game_names())
def test_describe_names_every_index_and_bounds_match_the_size(game, kind):
    g = get_game(game)
    rules = g.get_rules(g.presets[0])
    n = g.num_players(rules)
    encoder = g.encoder(kind)
    size = encoder.size(n)
    names = [encoder.describe(n, i) for i in range(size)]
    assert all(isinstance(x, str) and "[" in x for x in names)
    low, high = encoder.bounds(n)
    assert low.shape == high.shape == (size,) and (low <= high).all()
    with pytest.raises(IndexError):
        encoder.describe(n, size)


@pytest.mark.parametrize("game", game_names())
def test_an_unknown_observation_kind_is_refused_by_name(game):
    with pytest.raises(ValueError, match="infostate.*'expert'"):
        get_game(game).env(observation="expert")


# ----------------------------------------------------------- one rule for every game
def _views(e) -> list:
    return [e.state_obj.view(s) for s in range(e.num_players)]


@pytest.mark.parametrize("bad", [True, False, 1.0, 2.5, "1", None, [1], np.array([1]),
                                 np.array(1.0), np.array(True), np.array([[1]])])
@pytest.mark.parametrize("game", game_names())
def test_what_is_not_an_action_id_is_refused_and_changes_nothing(game, bad):
    """A bool is not an action (True is not 1), nor a float, a string, None or an array of
    one value in a dimension: the error names it and the agent, and the game is as it was."""
    e = get_game(game).env()
    e.reset(seed=3)
    agent, before = e.agent_selection, _views(e)
    with pytest.raises(ValueError) as err:
        e.step(bad)
    assert repr(bad) in str(err.value) and agent in str(err.value)
    assert _views(e) == before and e.agent_selection == agent


@pytest.mark.parametrize("bad", [True, 1.0, "1", None, -1, 10**6])
@pytest.mark.parametrize("game", game_names())
def test_penalty_mode_never_raises_it_penalises_and_plays_a_legal_move(game, bad):
    e = get_game(game).env(illegal_action="penalty", illegal_penalty=-0.5, score_scale=0,
                           win_reward=0)
    e.reset(seed=3)
    agent = e.agent_selection
    before = e.state_obj.clone()
    e.step(bad)
    assert e.rewards[agent] == -0.5
    played = [a for a in before.legal_actions()
              if (lambda s: (s.apply(a), s.view(0))[1])(before.clone()) == e.state_obj.view(0)]
    assert played, "the env played no legal move for the penalised agent"


@pytest.mark.parametrize("wrap", [np.int64, np.uint8, np.array,
                                  lambda a: np.array(a, dtype=np.int32)])
@pytest.mark.parametrize("game", game_names())
def test_numpy_integers_are_action_ids(game, wrap):
    """A numpy integer, bare or a 0-d array (what Gymnasium's Discrete space contains and
    stable-baselines3's ``predict`` returns for one observation), plays as its int."""
    e, twin = get_game(game).env(), get_game(game).env()
    e.reset(seed=5)
    twin.reset(seed=5)
    for _ in range(6):
        legal = e.state_obj.legal_actions()
        action = wrap(legal[-1])
        assert e.action_space(e.agent_selection).contains(action)
        e.step(action)
        twin.step(legal[-1])
        assert _views(e) == _views(twin)


@pytest.mark.parametrize("game", game_names())
def test_reset_refuses_options_it_does_not_know_and_keeps_the_game(game):
    e = get_game(game).env()
    e.reset(seed=9)
    e.step(e.state_obj.legal_actions()[0])
    state, agent = e.state_obj, e.agent_selection
    before = _views(e)
    n = e.num_players
    for options, named in [("deal", "'deal'"), (["deal"], "['deal']"), ({"dael": []}, "'dael'"),
                           ({"deal": [None] * n}, "None"), ({"deal": None, "seed": 1}, "'seed'")]:
        with pytest.raises(ValueError) as err:
            e.reset(seed=1, options=options)
        assert named in str(err.value), (options, str(err.value))
        assert e.state_obj is state and e.agent_selection == agent and _views(e) == before
    with pytest.raises(ValueError, match="seed"):
        e.reset(seed=-1)
    e.reset(seed=1, options={"options": 1})  # what PettingZoo's api_test passes: let through


def test_every_package_exports_its_env_functions_not_its_modules():
    """``from envs.<game> import env`` is the env constructor, also after the module that
    defines it was imported (a submodule called ``env`` used to shadow it)."""
    for game in game_names():
        importlib.import_module(f"cardrl.envs.{game}.environment")
        package = importlib.import_module(f"cardrl.envs.{game}")
        for name in ("env", "raw_env"):
            assert callable(getattr(package, name)) and not isinstance(getattr(package, name),
                                                                       type(sys))
        e = package.env()
        assert isinstance(e, package.raw_env) and e.metadata["name"] == get_game(game).env_name
    from cardrl.envs.blind_auction import parallel_env, parallel_raw_env
    assert isinstance(parallel_env(), parallel_raw_env)


def test_engines_and_declarations_load_no_env_bot_numba_or_torch_module():
    """An engine and its declaration are plain Python: a web server or a bot process loads
    them without the env, the bots, numba or torch. (``import cardrl`` runs first and
    registers the ids, which loads PettingZoo's and Gymnasium's registries.)"""
    code = ("import sys\n"
            "import cardrl.envs.games as games\n"
            "for g in games.game_names():\n"
            "    __import__(f'cardrl.envs.{g}.engine'); games.get_game(g)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numba', 'torch')\n"
            "             or m.startswith(('cardrl.agents', 'cardrl.train',\n"
            "                              'cardrl.envs.aec'))))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT / "tests").stdout
    assert out.strip() == "[]"
