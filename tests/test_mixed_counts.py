"""Training over several table sizes (``player_counts``): the composite of one batched game
per count (``MixedBatchedGames``) keeps every seat, reward and learner within its game's
own count, refuses what one network cannot read, and the recipe trains, resumes and
exports a bot that plays at every count."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from cardrl import agents
from cardrl.envs.batched import BatchedGames, MixedBatchedGames, make_games
from cardrl.envs.games import get_game
from cardrl.train import ship
from cardrl.train.config import TrainConfig, table_sizes
from cardrl.train.dmc import DMCConfig, DMCTrainer, Replay, SelfPlay
from cardrl.train.opponents import OpponentPool
from cardrl.train.ppo import Trainer
from cardrl.train.selfplay import SelfPlayVecEnv


def _random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.where(masks, rng.random(masks.shape), -1.0).argmax(axis=1)


def test_one_count_plays_as_the_plain_batched_games():
    plain = BatchedGames("sevens", 6, num_players=3)
    mixed = MixedBatchedGames("sevens", 6, (3,))
    a, b = plain.reset(seed=5), mixed.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(120):
        for x, y in zip(a, b, strict=True):
            assert np.array_equal(x, y)
        assert [s.view(0).to_dict() for s in plain.states] == \
            [s.view(0).to_dict() for s in mixed.states]
        actions = _random_actions(a.masks, rng)
        a, b = plain.step(actions), mixed.step(actions)
    assert np.array_equal(plain.episode_seeds, mixed.episode_seeds)


def test_every_seat_and_reward_stays_within_its_games_count():
    games = MixedBatchedGames("sevens", 7, (2, 3, 9))
    assert list(games.counts) == [2, 2, 2, 3, 3, 9, 9]  # evenly split, the rest to the first
    assert games.num_players == 9 and games.obs_size == BatchedGames("sevens", 1).obs_size
    batch = games.reset(seed=1)
    rng = np.random.default_rng(1)
    ended = np.zeros(7, dtype=int)
    paid = np.zeros((7, 9))
    for _ in range(600):
        assert ((batch.seats >= 0) & (batch.seats < games.counts)).all()
        for i, state in enumerate(games.states):
            assert state.current_player == batch.seats[i]  # the rows are the right games'
        batch = games.step(_random_actions(batch.masks, rng))
        beyond = np.arange(9)[None, :] >= games.counts[:, None]
        assert not batch.rewards[beyond].any()
        paid += np.abs(batch.rewards)
        ended += batch.dones
    assert (ended > 0).all()  # every game finished episodes (and restarted)
    assert (paid[:, 1] > 0).all() and (paid[5:, 8] > 0).all()  # the seats that exist are paid


def test_the_learner_and_its_opponents_sit_within_the_games_count():
    games = MixedBatchedGames("sevens", 6, (2, 3, 9))
    env = SelfPlayVecEnv(games, OpponentPool.parse("self@0.5,sevens/lookahead@0.5", "sevens"))
    env.reset()
    rng = np.random.default_rng(2)
    seen: set[tuple[int, int]] = set()
    for _ in range(300):
        assert (env.learner < games.counts).all()
        assert (games.seats == env.learner).all()  # every game waits for its learner
        seen.update(zip(games.counts.tolist(), env.learner.tolist(), strict=True))
        env.step(_random_actions(env.action_masks(), rng))
    assert {(2, 1), (9, 8)} <= seen  # the learner rotates through every seat of its table
    with pytest.raises(ValueError, match=r"seat must be None or in 0\.\.1"):
        SelfPlayVecEnv(games, OpponentPool.parse("self", "sevens"), seat=2)


@pytest.mark.parametrize(("game", "counts", "message"), [
    ("sevens", (2, 10), "10 players"),
    ("sevens", (3, 3), "a count twice"),
    ("sevens", (), "table sizes"),
    ("gin_rummy", (2, 3), "798 numbers .* 957|957 numbers .* 798"),
    ("spades", (4,), "no num_players field"),
])
def test_bad_counts_are_refused_naming_them(game, counts, message):
    with pytest.raises(ValueError, match=message):
        MixedBatchedGames(game, 8, counts)
    cfg = TrainConfig(game=game, player_counts=counts or (0,), net=(8,))
    with pytest.raises(ValueError, match=message if counts else "num_players must be"):
        cfg.validate()


def test_the_config_refuses_too_few_games_and_a_count_given_twice():
    with pytest.raises(ValueError, match="one game per count"):
        TrainConfig(game="sevens", player_counts=(2, 3, 4), n_games=2).validate()
    with pytest.raises(ValueError, match="not both"):
        TrainConfig(game="sevens", player_counts=(2, 3), rule_changes={"num_players": 3}
                    ).validate()
    assert table_sizes("2-4,9") == (2, 3, 4, 9)
    assert isinstance(make_games("sevens", 2), BatchedGames)


def test_dmc_collects_at_every_count(tmp_path, monkeypatch):
    """DMC's collector scores whole episodes at each count, every seat of the table only;
    a tiny DMC run over the counts goes through."""
    games = MixedBatchedGames("sevens", 4, (2, 5))
    collector = SelfPlay(games, Replay(10_000, games.obs_size), gamma=1.0, seed=0)
    rng = np.random.default_rng(3)
    while len(collector.lengths) < 8:
        collector.tick(lambda obs: rng.random((len(obs), games.num_actions)), 1.0)
    assert all(not collector._ids[i][s] for i in range(4) for s in range(games.counts[i], 5))
    assert set(collector.lengths) <= set(range(1, 52))
    monkeypatch.chdir(tmp_path)
    cfg = DMCConfig(game="sevens", player_counts=(2, 5), steps=600, n_games=4, net=(8,),
                    batch_size=32, eval_every=0, checkpoint_every=10_000, torch_threads=1,
                    name="dmc-mixed").resolved()
    trainer = DMCTrainer(cfg, progress=False, quiet=True)
    assert isinstance(trainer.selfplay.games, MixedBatchedGames)
    assert trainer.run().steps >= 600


def test_the_recipe_trains_resumes_and_its_bot_plays_at_every_count(tmp_path, monkeypatch):
    """The recipe's stage, tiny: the counts survive config.json and a resume, and the bot,
    its card saying the preset's count, plays legally at 2 and at 9 players."""
    monkeypatch.chdir(tmp_path)
    recipe = ship.RECIPES["sevens-random-counts"]
    (stage,) = recipe.stages
    assert stage.player_counts == tuple(range(2, 10)) and "tables of 2-9 players" in recipe.summary
    cfg = replace(stage, steps=512, n_games=8, n_steps=32, batch_size=64, n_epochs=1,
                  net=(16,), eval_every=0, checkpoint_every=256, snapshot_every=256,
                  name="counts").resolved()
    Trainer(cfg, progress=False, quiet=True).run()
    saved = TrainConfig.load(cfg.run_dir)
    assert saved.player_counts == stage.player_counts
    more = Trainer(replace(saved, steps=1024, name="counts"), resume=True, progress=False,
                   quiet=True)
    assert isinstance(more.env.venv.games, MixedBatchedGames)
    result = more.run()
    assert result.steps >= 1024 and result.onnx is not None
    card = json.loads(result.onnx.with_suffix(".json").read_text())
    game = get_game("sevens")
    for n in (2, 9):
        bot = agents.load(result.onnx)
        state = game.new_state(game.get_rules("random", num_players=n), 4)
        while not state.is_over:
            seat = state.current_player
            legal = state.legal_actions()
            move = bot.act(state.view(seat), legal) if seat == 0 else legal[0]
            assert move in legal
            state.apply(move)
    assert card["num_players"] == 4
