"""cardrl.train.limit and train.bench: the torch-alone limit beside the loop's rate."""

from __future__ import annotations

import math

import pytest
import torch

from cardrl.train.bench import ppo_row
from cardrl.train.config import TrainConfig
from cardrl.train.limit import dmc_limit, ppo_limit
from cardrl.train.ppo import make_env, new_model


@pytest.mark.parametrize("policy", ["mlp", "card"])
def test_the_limit_times_a_copy_and_leaves_the_run_as_it_was(policy):
    cfg = TrainConfig(game="blind_auction", policy=policy, net=(8,), card_embed=4, n_games=4,
                      n_steps=4, batch_size=8, opponents="self@1", name="t").resolved()
    model = new_model(cfg, make_env(cfg, seed=0))
    before = {k: v.clone() for k, v in model.policy.state_dict().items()}
    rate = ppo_limit(model.policy, 4, 4, 8, 2, 1, seconds=0.05)
    assert math.isfinite(rate) and rate > 0
    after = model.policy.state_dict()
    assert all(torch.equal(before[k], after[k]) for k in before)  # Adam stepped the copy only
    assert not model.policy.optimizer.state  # nor touched the run's optimizer

    net = torch.nn.Sequential(torch.nn.Linear(5, 3))
    weight = net[0].weight.clone()
    assert dmc_limit(net, 5, n_games=4, train_freq=8, gradient_steps=2, batch_size=8,
                     max_grad_norm=1.0, seconds=0.05) > 0
    assert torch.equal(net[0].weight, weight)


def test_a_bench_row_reports_its_rate_over_the_limit():
    row = ppo_row("blind_auction", (8,), steps=64, n_games=4, n_steps=8, threads=1,
                  clock_name="cpu", limit_seconds=0.05)
    assert row["steps"] >= 64
    assert row["ratio"] == row["rate"] / row["limit"]
    assert row["clean_ratio"] == row["rate"] / row["clean"] and row["clean"] > 0
    assert row["ratio_no_envs"] >= row["clean_ratio"]  # timed in a process of its own
    assert 0 <= row["envs"] <= 1 and 0 < row["update"] <= 1
