"""cardrl.train.masked: MaskablePPO's rollout and update passes without a distribution object
give sb3-contrib's own numbers."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from cardrl.train.config import TrainConfig
from cardrl.train.ppo import make_env, new_model


@pytest.mark.parametrize("policy", ["mlp", "card"])
@pytest.mark.parametrize("game", ["spades", "blind_auction"])
def test_fast_passes_equal_sb3_contribs(game, policy):
    cfg = TrainConfig(game=game, policy=policy, net=(16,), card_embed=8, n_games=4,
                      n_steps=8, batch_size=16, opponents="self@1", name="t").resolved()
    model = new_model(cfg, make_env(cfg, seed=0))
    net = model.policy
    rng = np.random.default_rng(1)
    n, size, num_actions = 64, net.observation_space.shape[0], int(net.action_space.n)
    obs = torch.from_numpy((rng.random((n, size)) < 0.2).astype(np.float32))
    masks = rng.random((n, num_actions)) < 0.3
    masks[np.arange(n), rng.integers(num_actions, size=n)] = True
    actions = torch.from_numpy(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
    with torch.no_grad():
        ours = net.evaluate_actions(obs, actions, action_masks=torch.from_numpy(masks))
        theirs = MaskableActorCriticPolicy.evaluate_actions(net, obs, actions,
                                                             action_masks=torch.from_numpy(masks))
        for a, b in zip(ours, theirs, strict=True):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-5)
        best, values, logp = net(obs, deterministic=True, action_masks=masks)
        best_sb3, values_sb3, logp_sb3 = MaskableActorCriticPolicy.forward(
            net, obs, deterministic=True, action_masks=masks)
        assert torch.equal(best, best_sb3)
        np.testing.assert_allclose(values.numpy(), values_sb3.numpy(), rtol=1e-6)
        np.testing.assert_allclose(logp.numpy(), logp_sb3.numpy(), rtol=1e-5, atol=1e-5)
        drawn, _, logp = net(obs, action_masks=masks)
        assert masks[np.arange(n), drawn.numpy()].all()  # never an illegal action
        _, logp_sb3, _ = MaskableActorCriticPolicy.evaluate_actions(
            net, obs, drawn, action_masks=torch.from_numpy(masks))
        np.testing.assert_allclose(logp.numpy(), logp_sb3.numpy(), rtol=1e-5, atol=1e-5)


def test_draws_follow_the_masked_softmax():
    cfg = TrainConfig(game="blind_auction", net=(8,), n_games=2, n_steps=8, batch_size=16,
                      opponents="self@1", name="t").resolved()
    net = new_model(cfg, make_env(cfg, seed=0)).policy
    torch.manual_seed(0)
    obs = torch.rand(1, net.observation_space.shape[0]).repeat(20000, 1)
    mask = np.zeros((20000, 13), dtype=bool)
    mask[:, [0, 4, 7]] = True
    with torch.no_grad():
        drawn, _, _ = net(obs, action_masks=mask)
        p = net.get_distribution(obs[:1], action_masks=mask[:1]).distribution.probs[0].numpy()
    share = np.bincount(drawn.numpy(), minlength=13) / 20000
    np.testing.assert_allclose(share, p, atol=0.015)
    assert share[mask[0]].sum() == 1.0
