"""Acceptance: train a few thousand steps from scratch on each game and observation kind (PPO
in batched self-play: the current policy and its snapshots in the other seats, no imitation),
export to ONNX, reload through ``cardrl.agents.load``, check that the ONNX bot plays what the torch
policy plays on 1000 views (encoded by the kind the card names) and a whole legal game. Every
game also trains its information state with the card-structured network
(``cardrl.train.cardnet``)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from cardrl import agents
from cardrl.envs.encoding import KINDS
from cardrl.envs.games import game_names, get_game
from cardrl.train.cardnet import CardActor
from cardrl.train.config import TrainConfig
from cardrl.train.nets import game_action_features
from cardrl.train.policy import CardPolicy, policy_weights
from cardrl.train.ppo import Trainer
from tests.env_checks import INFOSTATE_ACTION_BLOCKS, decision_points

GAMES = game_names()
CASES = [(game, kind, "mlp") for game in GAMES for kind in KINDS] + [
    (game, "infostate", "card") for game in GAMES]
STEPS = 2048


@pytest.fixture(scope="module", params=CASES, ids=[f"{g}-{k}-{p}" for g, k, p in CASES])
def trained(request, tmp_path_factory):
    game, kind, policy = request.param
    root = tmp_path_factory.mktemp(f"train-{game}-{kind}-{policy}")
    cfg = TrainConfig(game=game, observation=kind, policy=policy, card_embed=8, steps=STEPS,
                      seed=3,
                      opponents="self@0.8,snapshot@0.2", net=(32, 32), n_games=8, n_steps=64,
                      batch_size=128, n_epochs=2, max_hands=3, eval_every=0,
                      checkpoint_every=1024, snapshot_every=1024, torch_threads=1,
                      name=f"export-{game}-{kind}-{policy}")
    assert not cfg.imitate  # from scratch
    mp = pytest.MonkeyPatch()
    mp.chdir(root)  # runs/ under the test's own directory
    try:
        trainer = Trainer(cfg, progress=False, quiet=True)
        result = trainer.run()
        yield game, kind, trainer, result, root
    finally:
        mp.undo()


def test_onnx_bot_plays_the_torch_policy_actions_on_1000_views(trained):
    game, kind, trainer, result, root = trained
    assert result.steps >= STEPS and not result.interrupted
    bot = agents.load(root / result.onnx)
    encoder = get_game(game).encoder(kind)
    assert bot.encoder is encoder
    points = decision_points(game, 1000, max_hands=3)
    obs = np.stack([encoder.encode(view) for view, _ in points]).astype(np.float32)
    masks = np.zeros((len(points), bot.card["num_actions"]), dtype=bool)
    for i, (_, legal) in enumerate(points):
        masks[i, legal] = True
    torch_actions, _ = trainer.model.policy.predict(obs, action_masks=masks, deterministic=True)
    onnx_actions = np.array([bot.act(view, legal) for view, legal in points])
    assert (onnx_actions == torch_actions).all()
    assert all(a in legal for a, (_, legal) in zip(onnx_actions, points, strict=True))
    # the logits themselves agree, not only their argmax
    with torch.no_grad():
        dist = trainer.model.policy.get_distribution(torch.as_tensor(obs[:50]),
                                                     action_masks=masks[:50])
    raw = dist.distribution.logits.numpy()  # normalised masked logits (log-probabilities)
    ours = np.stack([bot.logits(v, legal) for v, legal in points[:50]])
    legal_logits = np.where(masks[:50], ours, -np.inf)
    norm = legal_logits - np.logaddexp.reduce(legal_logits, axis=1, keepdims=True)
    assert np.allclose(np.where(masks[:50], norm, 0), np.where(masks[:50], raw, 0), atol=1e-4)


def test_the_run_was_batched_self_play_and_the_exported_bot_plays_a_whole_legal_game(trained):
    game, kind, trainer, result, root = trained
    venv = trainer.env.venv
    assert venv.num_envs == 8 and venv.games.num_games == 8
    assert venv.episodes.sum() > 8  # episodes finished and were dealt again
    suffix = ".pt" if trainer.cfg.policy == "card" else ".npz"
    assert [p.name for p in sorted((result.run_dir / "snapshots").iterdir())] == [
        f"step-000001024{suffix}"]  # a snapshot joined the pool at 1024 steps
    g = get_game(game)
    rules = g.get_rules(g.presets[0], max_hands=3)  # the training games' length
    bots = [agents.load(root / result.onnx) for _ in range(g.num_players(rules))]
    state = g.new_state(rules, 17)
    moves = 0
    while not state.is_over:
        seat, legal = state.current_player, state.legal_actions()
        action = bots[seat].act(state.view(seat), legal)
        assert action in legal
        state.apply(action)
        moves += 1
        assert moves < 20_000, "the game does not end"
    assert state.results and state.winners


def test_training_moves_the_per_action_weights_that_export_carries(trained):
    """The ONNX and numpy tests above then cover the head's direct path too. The features
    kind has per-action blocks (Blind Auction's none), and so do the information states of
    Sevens, Spades and Gin Rummy."""
    game, kind, trainer, _, _ = trained
    if trainer.cfg.policy == "card":  # scores come from the card net itself
        assert isinstance(trainer.model.policy, CardPolicy)
        assert isinstance(policy_weights(trainer.model.policy), CardActor)
        return
    head = trainer.model.policy.action_net
    blocks = game_action_features(game, trainer.cfg.preset, trainer.cfg.rule_changes, kind)
    assert head.blocks == blocks
    assert bool(blocks) == (kind == "features" and game != "blind_auction"
                            or (game, kind) in INFOSTATE_ACTION_BLOCKS)
    if not head.blocks:  # a plain MLP head
        assert policy_weights(trainer.model.policy).skip is None
        return
    assert head.weight.abs().max() > 0  # (a block whose actions stayed masked keeps 0)
    assert policy_weights(trainer.model.policy).skip is not None


def test_numpy_opponent_policy_matches_torch(trained):
    game, kind, trainer, _, _ = trained
    encoder = get_game(game).encoder(kind)
    weights = policy_weights(trainer.model.policy)
    points = decision_points(game, 200, seed=1, max_hands=3)
    for view, legal in points:
        obs = encoder.encode(view)
        mask = np.zeros(trainer.model.action_space.n, dtype=bool)
        mask[legal] = True
        action, _ = trainer.model.policy.predict(obs[None], action_masks=mask[None],
                                                 deterministic=True)
        assert weights.act(obs, mask) == int(action[0])


def test_card_describes_the_bot(trained):
    game, kind, trainer, result, root = trained
    card = json.loads((root / result.onnx).with_suffix(".json").read_text())
    g = get_game(game)
    encoder = g.encoder(kind)
    rules = g.get_rules(card["preset"])
    assert card["game"] == game and card["preset"] == g.presets[0]
    assert card["env_name"] == g.env_name
    assert card["observation"] == {"kind": kind, "version": encoder.version}
    assert card["num_players"] == g.num_players(rules)
    assert card["training"]["steps"] == result.steps
    assert 0 < card["training"]["wall_time_s"] == pytest.approx(result.wall_time_s, abs=5)
    assert card["obs_size"] == len(encoder.encode(decision_points(game, 1, max_hands=3)[0][0]))
    assert card["obs_size"] == encoder.size(card["num_players"])
    assert card["training"]["config"]["game"] == game
    assert card["training"]["config"]["observation"] == kind
    assert card["training"]["config"]["policy"] == trainer.cfg.policy
