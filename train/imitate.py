"""Warm start: clone a rule bot's choices into the policy before PPO takes over.

PPO from a random policy spends most of a small budget rediscovering what a
rule bot already knows (follow suit, bid your tricks, keep melds). With
``--imitate spades/expert`` a run first plays ``imitate_samples`` decisions
with the *teacher* in the learner's seat (against the run's own opponent mix),
then fits the actor to the teacher's actions (masked cross-entropy) and the
critic to the discounted returns the teacher earned, and only then starts PPO.
PPO then has to improve on the teacher rather than catch up with it.

Collection runs in ``n_envs`` worker processes without torch; the fit runs in
the trainer's process on the SB3 policy itself, so what is exported is the
same network either way.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np

import agents


@dataclass
class Demonstrations:
    obs: np.ndarray  # float32 (N, obs_size)
    masks: np.ndarray  # bool (N, actions)
    actions: np.ndarray  # int64 (N,)
    returns: np.ndarray  # float32 (N,): discounted reward-to-go of the learner's seat
    episodes: int

    def __len__(self) -> int:
        return len(self.actions)


def check_teacher(spec: str, game: str, role: str = "teacher") -> None:
    """A clear error for a teacher (or another ``role``) that is not a bot of ``game``."""
    try:
        bot = agents.make(spec)
    except ValueError as err:
        raise ValueError(f"bad {role} {spec!r}: {err}") from None
    if bot.game not in (None, game):
        raise ValueError(f"{role} {spec!r} plays {bot.game}, not {game}")


def _collect_worker(cfg_dict: dict, teacher: str, samples: int, seed: int) -> Demonstrations:
    from train.config import TrainConfig
    from train.opponents import BotSeat, MixEntry
    from train.single_seat import SingleSeatEnv

    cfg = TrainConfig.from_dict(cfg_dict)
    env = SingleSeatEnv(cfg.game, cfg.preset, cfg.opponents, rule_changes=cfg.env_rule_changes(),
                        env_options=cfg.env_options())
    # policy seats ("self", "snapshot") have no policy yet; the teacher stands in for them
    env.pool.mix = [e if e.what not in ("self", "snapshot") else MixEntry(teacher, e.weight)
                    for e in env.pool.mix]
    seat = BotSeat(agents.make(teacher))
    rng = np.random.default_rng(seed)
    obs_l, mask_l, act_l, ret_l = [], [], [], []
    episodes = 0
    obs, _ = env.reset(seed=seed)
    while len(act_l) < samples:
        seat.reset(int(rng.integers(2**31)))
        rewards: list[float] = []
        done = False
        while not done:
            action = seat.act(env.aec, env.seat)
            obs_l.append(obs)
            mask_l.append(env.action_masks().copy())
            act_l.append(action)
            obs, reward, terminated, truncated, _ = env.step(action)
            rewards.append(reward)
            done = terminated or truncated
        ret = np.zeros(len(rewards), np.float32)
        acc = 0.0
        for i in range(len(rewards) - 1, -1, -1):
            acc = rewards[i] + cfg.gamma * acc
            ret[i] = acc
        ret_l.append(ret)
        episodes += 1
        obs, _ = env.reset()
    return Demonstrations(np.asarray(obs_l, np.float32), np.asarray(mask_l, bool),
                          np.asarray(act_l, np.int64), np.concatenate(ret_l), episodes)


def collect(cfg, teacher: str, samples: int, seed: int, workers: int = 1) -> Demonstrations:
    """``samples`` (at least) teacher decisions in the learner's seat, split over workers."""
    per = -(-samples // workers)
    if workers == 1:
        parts = [_collect_worker(cfg.to_dict(), teacher, per, seed)]
    else:
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(workers, mp_context=ctx) as pool:
            parts = list(pool.map(_collect_worker, [cfg.to_dict()] * workers,
                                  [teacher] * workers, [per] * workers,
                                  [seed * 7919 + i for i in range(workers)]))
    return Demonstrations(*(np.concatenate([getattr(p, k) for p in parts])
                            for k in ("obs", "masks", "actions", "returns")),
                          sum(p.episodes for p in parts))


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
    import torch

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
