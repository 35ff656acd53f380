"""The single-seat Gymnasium envs: one learner against bots (``cardrl.agents.single_seat``)."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import cardrl  # noqa: F401 - registers the single-seat envs with Gymnasium
from cardrl import agents
from cardrl.agents.single_seat import SingleSeatEnv
from cardrl.envs.games import GAMES, get_game
from cardrl.envs.registry import gym_id

ROOT = Path(__file__).resolve().parents[1]
ONNX = ROOT / "checkpoints" / "blind_auction-2p.onnx"  # a shipped 2-player bot


def random_legal(rng: np.random.Generator, mask: np.ndarray) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize("game", GAMES)
def test_each_game_passes_gymnasiums_and_sb3s_checkers(game):
    env = gymnasium.make(gym_id(game))
    assert isinstance(env.unwrapped, SingleSeatEnv) and env.unwrapped.game == game
    assert env.observation_space.shape == (get_game(game).encoder().size(
        env.unwrapped.num_players),)
    assert env.action_space == gymnasium.spaces.Discrete(get_game(game).num_actions)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SB3's advice on unbounded or asymmetric boxes
        gym_check_env(env.unwrapped, skip_render_check=True)
        sb3_check_env(SingleSeatEnv(game), warn=False)


def play_episode(env: SingleSeatEnv, seed: int, rng: np.random.Generator
                 ) -> tuple[list[float], list[int]]:
    """The learner plays random legal moves; its step rewards and the learner's seat."""
    obs, info = env.reset(seed=seed)
    rewards = []
    done = False
    while not done:
        assert np.array_equal(info["action_mask"], env.action_masks())
        assert info["action_mask"].any() and info["seat"] == env.seat
        obs, reward, done, truncated, info = env.step(random_legal(rng, env.action_masks()))
        assert not truncated
        rewards.append(reward)
    assert not info["action_mask"].any()
    return rewards, env.seat


def aec_rewards(game: str, seed: int, moves: list[int], seat: int, **options) -> list[float]:
    """What the AEC env's ``last()`` reports to the learner's agent at each of its turns
    and at the end, when the same moves are played on the same deal, per learner step."""
    e = get_game(game).env(**options)
    e.reset(seed=seed)
    agent = e.possible_agents[seat]
    reported, played = [], iter(moves)
    for who in e.agent_iter():
        _, reward, terminated, truncated, _ = e.last()
        if who == agent:
            reported.append(reward)
        e.step(None if terminated or truncated else next(played))
    assert next(played, None) is None  # every move was played
    # the learner's first step also gets what was paid before its first move
    assert len(reported) >= 2
    return [reported[0] + reported[1], *reported[2:]]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seat", [None, -1])
def test_the_learner_is_paid_what_the_aec_env_pays_its_agent(game, seat):
    options = {"episode": "hand", "relative_score": True} if game != GAMES[0] else {}
    n = get_game(game).num_players(get_game(game).make_rules())
    env = SingleSeatEnv(game, seat=None if seat is None else n - 1, illegal_action="raise",
                        **options)
    rng = np.random.default_rng(3)
    seats, paid = set(), []
    for seed in range(3 if seat is None else 2):
        rewards, learner = play_episode(env, seed, rng)
        seats.add(learner)
        expected = aec_rewards(game, seed, env.moves, learner, **options)
        assert rewards == pytest.approx(expected, abs=1e-12)
        paid += rewards
    assert any(r != 0 for r in paid)  # (a drawn game pays every seat 0)
    if seat is not None:
        assert seats == {n - 1}


def test_the_seat_is_drawn_per_episode_and_a_seeded_run_repeats():
    game = GAMES[0]
    env = SingleSeatEnv(game, episode="hand")
    other = SingleSeatEnv(game, episode="hand")
    seats, moves = [], []
    for e in (env, other):
        e.reset(seed=11)
        rng = np.random.default_rng(0)
        run = []
        for _ in range(6):
            done = False
            while not done:
                done = e.step(random_legal(rng, e.action_masks()))[2]
            run.append((e.seat, e.deal_seed, tuple(e.moves)))
            e.reset()
        (seats if e is env else moves).append(run)
    assert seats[0] == moves[0]  # the same seed: the same seats, deals and bots' moves
    assert len({s for s, _, _ in seats[0]}) > 1


def test_opponents_by_name_with_options_and_by_onnx_file():
    env = SingleSeatEnv("blind_auction", opponents=str(ONNX), seat=1, illegal_action="raise")
    assert type(env._spare[str(ONNX)]).__name__ == "OnnxBot"
    rewards, _ = play_episode(env, 5, np.random.default_rng(0))
    assert rewards == pytest.approx(aec_rewards("blind_auction", 5, env.moves, 1))
    three = SingleSeatEnv("blind_auction", num_players=3, seat=0,
                          opponents=["blind_auction/match", "random"])
    three.reset(seed=0)
    assert [type(b).__name__ for b in three._others] == [
        "NoneType", type(agents.make("blind_auction/match")).__name__, "RandomBot"]
    default = SingleSeatEnv("sevens", num_players=5)
    assert default.opponents == (get_game("sevens").strongest[0],) * 4


@pytest.mark.parametrize(("kwargs", "named"), [
    ({"game": "chess"}, "'chess'"),
    ({"game": "spades", "opponents": "spades/no-such-bot"}, "'spades/no-such-bot'"),
    ({"game": "spades", "opponents": "gin_rummy/expert"}, "'gin_rummy/expert'"),
    ({"game": "spades", "opponents": ["random", "random"]}, "3 bots"),
    ({"game": "spades", "opponents": 7}, "7"),
    ({"game": "spades", "opponents": "missing.onnx"}, "'missing.onnx'"),
    ({"game": "spades", "seat": 4}, "4"),
    ({"game": "spades", "seat": True}, "True"),
    ({"game": "spades", "observation": "pixels"}, "'pixels'"),
    ({"game": "spades", "preset": "nope"}, "'nope'"),
    ({"game": "spades", "no_such_field": 1}, "no_such_field"),
    ({"game": "spades", "render_mode": "human"}, "'human'"),
])
def test_bad_arguments_are_refused_naming_the_value(kwargs, named):
    with pytest.raises(ValueError, match=named.replace("(", r"\(")):
        SingleSeatEnv(**kwargs)


def test_bad_actions_and_calls_out_of_order_are_refused():
    env = SingleSeatEnv("blind_auction", illegal_action="raise")
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env.reset(seed=0)
    for bad in ("1", 1.5, True, None):
        with pytest.raises(ValueError, match=repr(bad).replace("(", r"\(")):
            env.step(bad)
    illegal = int(np.flatnonzero(~env.action_masks())[0]) if not env.action_masks().all() \
        else env.action_space.n
    before = list(env.moves)
    with pytest.raises(ValueError, match=f"illegal action {illegal}"):
        env.step(illegal)
    assert env.moves == before
    env.step(np.int64(np.flatnonzero(env.action_masks())[0]))  # a numpy integer is an action
    penalty = SingleSeatEnv("blind_auction", num_players=3, seat=0)  # the default: a penalty
    penalty.reset(seed=0)
    mask = penalty.action_masks()
    assert penalty.step(int(np.flatnonzero(~mask)[0]) if not mask.all()
                        else penalty.action_space.n)[1] <= -1.0


def test_rules_fields_and_env_options_are_keywords():
    env = gymnasium.make(gym_id("gin_rummy"), preset="seed", num_players=3,
                         observation="features", opponents="gin_rummy/simple")
    game = get_game("gin_rummy")
    assert env.unwrapped.aec.rules == game.make_rules("seed", num_players=3)
    assert env.observation_space.shape == (game.encoder("features").size(3),)
    obs, _ = env.reset(seed=0)
    assert obs.shape == env.observation_space.shape and obs.dtype == np.float32
    shown = gymnasium.make(gym_id("gin_rummy"), render_mode="ansi")
    shown.reset(seed=0)
    table = shown.render()
    state = shown.unwrapped.aec.state_obj
    assert table == game.render(state.view(state.current_player))  # the learner's view


def run_vector(kind: type, game: str, steps: int) -> list:
    envs = kind([lambda: gymnasium.make(gym_id(game), episode="hand") for _ in range(2)])
    obs, info = envs.reset(seed=[4, 9])
    rng = np.random.default_rng(0)
    out, ended, done = [obs], 0, np.zeros(2, dtype=bool)
    for _ in range(steps):
        masks = info["action_mask"]
        assert masks.shape == (2, envs.single_action_space.n)
        # an env that ended last step shows no legal action: this step resets it
        np.testing.assert_array_equal(masks.any(axis=1), ~done)
        obs, reward, terminated, truncated, info = envs.step(
            np.array([random_legal(rng, m) if m.any() else 0 for m in masks]))
        done = terminated | truncated
        out += [obs, reward, terminated]
        ended += int(terminated.sum())
    envs.close()
    assert ended >= 2  # episodes ended and the vector env reset them
    return out


@pytest.mark.parametrize("game", GAMES)
def test_sync_and_async_vector_envs_give_the_same_episodes(game):
    sync = run_vector(gymnasium.vector.SyncVectorEnv, game, 30)
    asynchronous = run_vector(gymnasium.vector.AsyncVectorEnv, game, 30)
    assert len(sync) == len(asynchronous)
    for a, b in zip(sync, asynchronous, strict=True):
        np.testing.assert_array_equal(a, b)


def test_make_vec_async_workers_find_the_env_without_the_drivers_imports():
    code = ("import gymnasium, numpy as np, cardrl\n"
            "envs = gymnasium.make_vec('cardrl/BlindAuction-v1', num_envs=2,\n"
            "                          vectorization_mode='async',\n"
            "                          vector_kwargs={'context': 'spawn'})\n"
            "obs, info = envs.reset(seed=0)\n"
            "print(obs.shape, info['action_mask'].shape)\n"
            "envs.close()\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True, timeout=120).stdout.strip()
    n = get_game("blind_auction").num_players(get_game("blind_auction").make_rules())
    size = get_game("blind_auction").encoder().size(n)
    assert out == f"(2, {size}) (2, {get_game('blind_auction').num_actions})"


@pytest.mark.parametrize("game", GAMES)
def test_maskable_ppo_trains_and_never_plays_an_illegal_move(game):
    from sb3_contrib import MaskablePPO

    # made by id, so that MaskablePPO finds action_masks() through Gymnasium's wrappers
    env = gymnasium.make(gym_id(game), episode="hand", illegal_action="raise")  # one raises
    model = MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=256, n_epochs=1, seed=0,
                        policy_kwargs={"net_arch": [32]}, device="cpu")
    model.learn(2048)
    assert model.num_timesteps >= 2048
    env = env.unwrapped
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]


def test_the_single_seat_env_loads_no_torch():
    code = ("import sys, numpy as np\n"
            "from cardrl.agents.single_seat import SingleSeatEnv\n"
            f"e = SingleSeatEnv('blind_auction', opponents={str(ONNX)!r})\n"
            "e.reset(seed=0); e.step(int(np.flatnonzero(e.action_masks())[0]))\n"
            "print(sorted(m for m in ('torch', 'cardrl.train', 'stable_baselines3')\n"
            "             if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout.strip()
    assert out == "[]"
