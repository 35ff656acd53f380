"""Warm start: clone a rule bot's choices into the policy before PPO takes over (an option).

PPO from a random policy spends most of a small budget rediscovering what a
rule bot already knows (follow suit, bid your tricks, keep melds). With
``--imitate spades/expert`` a run first plays ``imitate_samples`` decisions of
the *teacher* in every seat of batched games (``cardrl.envs.batched``), then fits the
actor to the teacher's actions (masked cross-entropy) and the critic to the
discounted returns each seat earned, and only then starts PPO. Self-play from
scratch (no teacher) is the default; this is the other recipe.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from cardrl import agents
from cardrl.envs.batched import BatchedGames


@dataclass
class Demonstrations:
    obs: np.ndarray  # float32 (N, obs_size)
    masks: np.ndarray  # bool (N, actions)
    actions: np.ndarray  # int64 (N,)
    returns: np.ndarray  # float32 (N,): discounted reward-to-go of the deciding seat
    episodes: int

    def __len__(self) -> int:
        return len(self.actions)


def collect(games: BatchedGames, teacher: str, samples: int, gamma: float,
            seed: int = 0) -> Demonstrations:
    """At least ``samples`` decisions of ``teacher`` playing every seat of ``games``.

    Each seat's rewards go to its own latest decision (a hand usually ends on
    someone else's card), and its returns are discounted over its own decisions.
    """
    n, p = games.num_games, games.num_players
    bots = [[agents.make(teacher) for _ in range(p)] for _ in range(n)]
    rng = np.random.default_rng(seed)
    for row in bots:
        for bot in row:
            bot.reset(int(rng.integers(2**31)))
    batch = games.reset(seed=seed)
    obs, masks, actions = [], [], []
    rewards: list[float] = []  # per decision: what its seat got until its next decision
    open_episode = [[[] for _ in range(p)] for _ in range(n)]  # game, seat -> decision ids
    episodes = 0

    def close(i: int) -> list[tuple[int, float]]:
        """(decision, discounted return) of game ``i``'s episode, every seat."""
        out = []
        for ids in open_episode[i]:
            acc = 0.0
            for d in reversed(ids):
                acc = rewards[d] + gamma * acc
                out.append((d, acc))
            ids.clear()
        return out

    finished: list[tuple[int, float]] = []
    while len(actions) < samples:
        chosen = []
        for i in range(n):
            state, seat = games.states[i], int(batch.seats[i])
            chosen.append(bots[i][seat].act(state.view(seat), state.legal_actions()))
            open_episode[i][seat].append(len(actions))
            obs.append(batch.obs[i])
            masks.append(batch.masks[i])
            actions.append(chosen[-1])
            rewards.append(0.0)
        batch = games.step(chosen)
        for i in range(n):
            for s in range(p):  # rewards to each seat's latest decision
                ids = open_episode[i][s]
                if ids:
                    rewards[ids[-1]] += float(batch.rewards[i, s])
            if batch.dones[i]:
                finished += close(i)
                episodes += 1
                for bot in bots[i]:
                    bot.reset(int(rng.integers(2**31)))
    for i in range(n):  # episodes still going: returns so far
        finished += close(i)
    returns = np.zeros(len(actions), np.float32)
    for d, value in finished:
        returns[d] = value
    return Demonstrations(np.asarray(obs, np.float32), np.asarray(masks, bool),
                          np.asarray(actions, np.int64), returns, episodes)


def action_weights(actions: np.ndarray, balance: float) -> np.ndarray:
    """Each decision's weight in the cross-entropy: (how often its action was taken) to the
    power ``-balance``, scaled to mean 1.

    A teacher's rare moves can be its most valuable: the Gin expert knocks for gin
    about once a hand, each of 52 knock actions a few dozen times in 100k
    decisions, and an unweighted clone of it played on past most of its gins.
    """
    counts = np.bincount(actions)
    weights = counts[actions].astype(np.float64) ** -float(balance)
    return (weights / weights.mean()).astype(np.float32)


def fit(policy, data: Demonstrations, epochs: int, batch_size: int = 512, lr: float = 1e-3,
        seed: int = 0, holdout: float = 0.05, balance: float = 0.0, log=None) -> dict:
    """Cross-entropy of the masked actor on the teacher's actions (weighted by
    ``action_weights``) plus the critic's MSE on the returns; returns the held-out
    agreement with the teacher (what the clone is worth)."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(data))
    n_val = max(1, int(len(data) * holdout))
    val, train = order[:n_val], order[n_val:]
    tensors = {k: torch.as_tensor(getattr(data, k)) for k in ("obs", "masks", "actions",
                                                               "returns")}
    weights = torch.as_tensor(action_weights(data.actions, balance))
    opt = torch.optim.Adam(policy.parameters(), lr=lr)

    def evaluate(idx):
        with torch.no_grad():
            dist = policy.get_distribution(tensors["obs"][idx],
                                           action_masks=tensors["masks"][idx].numpy())
            pred = dist.distribution.probs.argmax(dim=1)
            return float((pred == tensors["actions"][idx]).float().mean())

    stats: dict = {}
    policy.set_training_mode(True)
    for epoch in range(epochs):
        rng.shuffle(train)
        ce_sum = vf_sum = 0.0
        for start in range(0, len(train), batch_size):
            idx = train[start:start + batch_size]
            values, log_prob, _ = policy.evaluate_actions(
                tensors["obs"][idx], tensors["actions"][idx],
                action_masks=tensors["masks"][idx].numpy())
            ce = -(log_prob * weights[idx]).mean()
            vf = torch.nn.functional.mse_loss(values.flatten(), tensors["returns"][idx])
            opt.zero_grad()
            (ce + 0.5 * vf).backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 10.0)
            opt.step()
            ce_sum += ce.item() * len(idx)
            vf_sum += vf.item() * len(idx)
        stats = {"epoch": epoch + 1, "cross_entropy": ce_sum / len(train),
                 "value_mse": vf_sum / len(train), "agreement": evaluate(val)}
        if log is not None:
            log(stats)
    policy.set_training_mode(False)
    return stats
