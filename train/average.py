"""The average of past policies as one network: NFSP's average network, fitted to snapshots.

In a two-player zero-sum game the last policy of self-play circles an equilibrium
and the average of its snapshots gets nearer (docs/results.md, "Blind Auction:
self-play that converges"); but a mix of snapshots, one drawn per game, is not a
network a bot can load. ``fit_average`` makes one: it plays games in which every
seat draws one snapshot for the whole game (as the ``average`` opponent entry
does) and fits a copy of the actor to the drawn snapshot's action probabilities at
each decision it made (cross-entropy to those soft targets). Every decision comes
with its own snapshot's chance of reaching it, so the fit is the mix's behaviour
strategy (what playing the mix does at each information state), not the plain mean
of the snapshots' choices there.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from cardrl.envs.batched import BatchedGames
from cardrl.train.exploit import sampling


@dataclass
class MixDecisions:
    obs: np.ndarray  # float32 (N, obs_size)
    masks: np.ndarray  # bool (N, actions)
    probs: np.ndarray  # float32 (N, actions): the acting snapshot's masked softmax
    games: int  # whole games played


def collect_mix(games: BatchedGames, policies: Sequence[Any], decisions: int,
                seed: int = 0) -> MixDecisions:
    """At least ``decisions`` decisions of the mix of ``policies`` (anything with
    ``logits(obs, masks)``), every seat of every game drawing one policy per game. The
    decisions of games still going when enough are collected are kept as well."""
    if not policies:
        raise ValueError("the average of no policies: take a snapshot first")
    if isinstance(decisions, bool) or not isinstance(decisions, int) or decisions < 1:
        raise ValueError(f"decisions must be an int >= 1, got {decisions!r}")
    rng = np.random.default_rng(seed)
    n, p = games.num_games, games.num_players
    drawn = rng.integers(len(policies), size=(n, p))
    batch = games.reset(seed=seed)
    obs, masks, probs = [], [], []
    count = finished = 0
    while count < decisions:
        who = drawn[np.arange(n), batch.seats]
        actions = np.zeros(n, dtype=np.int64)
        for k in np.unique(who):
            idx = np.flatnonzero(who == k)
            pr = sampling(policies[k])(batch.obs[idx], batch.masks[idx])
            cum = pr.cumsum(axis=1)  # one draw per row: the first action past a uniform
            actions[idx] = (cum > rng.random(len(idx))[:, None] * cum[:, -1:]).argmax(axis=1)
            obs.append(batch.obs[idx])
            masks.append(batch.masks[idx])
            probs.append(pr.astype(np.float32))
        count += n
        batch = games.step(actions)
        done = np.flatnonzero(batch.dones)
        finished += len(done)
        drawn[done] = rng.integers(len(policies), size=(len(done), p))
    return MixDecisions(np.concatenate(obs), np.concatenate(masks), np.concatenate(probs),
                        finished)


def fit_average(policy: Any, data: MixDecisions, epochs: int = 10, batch_size: int = 512,
                lr: float = 1e-3, seed: int = 0, holdout: float = 0.05) -> tuple[Any, dict]:
    """A copy of the SB3 ``policy`` whose actor is fitted to ``data`` (cross-entropy of its
    masked softmax to the snapshots' probabilities); returns it and its held-out
    cross-entropy less the targets' entropy (nats a decision: what the fit misses, plus
    what no single policy can match where the snapshots disagree in the same state)."""
    avg = copy.deepcopy(policy)
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(data.obs))
    n_val = max(1, int(len(order) * holdout))
    val, train = order[:n_val], order[n_val:]
    obs, targets = torch.as_tensor(data.obs), torch.as_tensor(data.probs)
    masks = data.masks
    entropy = -(targets * torch.log(targets.clamp_min(1e-12))).sum(dim=1)  # of each target
    opt = torch.optim.Adam(avg.parameters(), lr=lr)

    def cross_entropy(idx: np.ndarray) -> torch.Tensor:
        dist = avg.get_distribution(obs[idx], action_masks=masks[idx])
        logp = dist.distribution.logits  # normalised log-probabilities, illegal ones -1e8
        return -(targets[idx] * logp.clamp_min(-1e4)).sum(dim=1)

    avg.set_training_mode(True)
    for _ in range(epochs):
        rng.shuffle(train)
        for start in range(0, len(train), batch_size):
            idx = train[start:start + batch_size]
            loss = cross_entropy(idx).mean()
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(avg.parameters(), 10.0)
            opt.step()
    avg.set_training_mode(False)
    with torch.no_grad():
        kl = float((cross_entropy(val) - entropy[val]).mean())
    return avg, {"decisions": len(data.obs), "games": data.games, "epochs": epochs,
                 "heldout_excess_nats": round(kl, 5)}
