"""What the network alone allows: a trainer's network work timed with torch only, no env.

A training loop can go no faster than its forward and backward passes. These
functions time exactly that work on copies of a run's own modules (same sizes,
observation and actions, same torch threads), on made-up observations with every
action legal, so that ``cardrl.train.bench`` and ``cardrl.train.dmc`` can print the loop's rate
as a share of it (the ratio loop/limit): what is left above the network is the
loop's own cost (envs, plumbing, SB3's bookkeeping).

* PPO (``ppo_limit``), per learner step: the learner's actor and critic forward at
  the rollout batch (``n_games``), ``opponent_forwards`` actor forwards at the same
  batch (the other seats' moves), and per rollout ``n_epochs`` passes of forward,
  backward and Adam over minibatches of ``batch_size`` (PPO's clipped loss, value
  loss, entropy, gradient clipping).
* DMC (``dmc_limit``), per decision: the Q forward at ``n_games`` per tick, and per
  ``train_freq`` decisions ``gradient_steps`` Adam steps of ``batch_size``.
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable

import torch
from torch import nn

from cardrl.train.numpy_policy import MASKED

Timer = Callable[[], float]


def _rate(work, units: int, seconds: float, timer: Timer) -> float:
    """Units per second of ``work()`` (which does ``units``), over at least ``seconds`` of
    ``timer`` (``time.perf_counter``: wall time; ``time.process_time``: this process's CPU
    time, meaningful with one torch thread)."""
    with torch.enable_grad():  # the backward passes time the same whatever the caller's mode
        work()  # warm-up: allocator, threads
        done, start = 0, timer()
        while True:
            work()
            done += units
            spent = timer() - start
            if spent >= seconds:
                return done / spent


def ppo_limit(policy, n_games: int, n_steps: int, batch_size: int, n_epochs: int,
              opponent_forwards: int, seconds: float = 2.0, seed: int = 0,
              timer: Timer = time.perf_counter) -> float:
    """Learner steps per second of a MaskablePPO policy's network work alone (module doc).

    ``policy`` is an SB3 actor-critic policy (``features_extractor``, ``mlp_extractor``,
    ``action_net``, ``value_net``); it is copied, so the run's weights and optimizer stay
    as they were.
    """
    net = type(policy)(**policy._get_constructor_parameters())  # SB3's own way to copy one
    net.load_state_dict(policy.state_dict())
    net.train()
    params = [p for p in net.parameters() if p.requires_grad]
    optimizer = net.optimizer  # the copy's own: the run's optimizer class and settings
    gen = torch.Generator().manual_seed(seed)
    obs_size = net.observation_space.shape[0]
    num_actions = int(net.action_space.n)
    rollout = n_games * n_steps
    obs = torch.rand(rollout, obs_size, generator=gen)
    masks = torch.ones(rollout, num_actions, dtype=torch.bool)
    actions = torch.randint(num_actions, (rollout,), generator=gen)
    old_logp = torch.full((rollout,), -math.log(num_actions))
    advantages = torch.randn(rollout, generator=gen)
    returns = torch.randn(rollout, generator=gen)
    tick_obs = obs[:n_games]

    def logits_values(x: torch.Tensor, critic: bool = True):
        features = net.features_extractor(x)
        if not critic:
            return net.action_net(net.mlp_extractor.forward_actor(features)), None
        latent_pi, latent_vf = net.mlp_extractor(features)
        return net.action_net(latent_pi), net.value_net(latent_vf)

    def one_rollout() -> None:
        with torch.no_grad():
            for _ in range(n_steps):
                logits_values(tick_obs)
                for _ in range(opponent_forwards):
                    logits_values(tick_obs, critic=False)
        for _ in range(n_epochs):
            order = torch.randperm(rollout, generator=gen)
            for start in range(0, rollout, batch_size):
                idx = order[start:start + batch_size]
                logits, values = logits_values(obs[idx])
                logp_all = torch.log_softmax(torch.where(masks[idx], logits, MASKED), dim=1)
                logp = logp_all.gather(1, actions[idx, None]).squeeze(1)
                ratio = torch.exp(logp - old_logp[idx])
                adv = advantages[idx]
                policy_loss = -torch.min(adv * ratio, adv * ratio.clamp(0.8, 1.2)).mean()
                value_loss = nn.functional.mse_loss(returns[idx], values.flatten())
                entropy = -(logp_all.exp() * logp_all).sum(dim=1).mean()
                loss = policy_loss + 0.5 * value_loss - 0.01 * entropy
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(params, 0.5)
                optimizer.step()

    return _rate(one_rollout, rollout, seconds, timer)


def dmc_limit(net: nn.Module, obs_size: int, n_games: int, train_freq: int,
              gradient_steps: int, batch_size: int, max_grad_norm: float,
              seconds: float = 2.0, seed: int = 0, timer: Timer = time.perf_counter) -> float:
    """Decisions per second of a DMC Q-network's work alone (module doc); ``net`` is
    copied."""
    net = copy.deepcopy(net).train()
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-4)
    gen = torch.Generator().manual_seed(seed)
    tick_obs = torch.rand(n_games, obs_size, generator=gen)
    batch = torch.rand(batch_size, obs_size, generator=gen)
    ticks = math.ceil(train_freq / n_games)
    with torch.no_grad():
        num_actions = net(batch[:1]).shape[1]
    action = torch.randint(num_actions, (batch_size, 1), generator=gen)
    target = torch.randn(batch_size, generator=gen)

    def one_round() -> None:
        with torch.no_grad():
            for _ in range(ticks):
                net(tick_obs)
        for _ in range(gradient_steps):
            q = net(batch).gather(1, action).squeeze(1)
            loss = nn.functional.mse_loss(q, target)
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), max_grad_norm)
            optimizer.step()

    return _rate(one_round, ticks * n_games, seconds, timer)
