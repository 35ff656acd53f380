"""One step of policy iteration over a rule bot, learned: duplicate rollouts label every
move, and the policy moves toward the moves that did better.

    python -m train.rollouts RUN --bot gin_rummy/expert --decisions 100000 --workers 2

PPO fine-tuning of a clone learns slowly: the clone plays the teacher's move nearly
always, so it rarely tries another, and a hand's return is mostly the luck of the
deal. Here the bot plays whole hands in one seat (the others are the bot too); at
each of that seat's decisions every legal move is tried on a copy of the true deal
and the hand is played out by the bots. A move's *advantage* is its hand reward
less the bot's own move's, on the same cards: the deal's luck cancels. Averaged
over the deals a seat's view allows, that is the move's advantage under the bot's
continuation, so acting on it is Bertsekas' rollout policy (never worse than the
bot where the advantages are exact). The hidden cards only pick which sample a
decision gets; the policy still sees only its own observation.

The policy of run RUN (its checkpoint) is then trained on

    loss = -sum_a pi(a|s) A(s, a) + beta * KL(pi_0(.|s) || pi(.|s))

(pi_0: the policy before this step), whose optimum is pi_0 * exp(A / beta): it
leaves the moves the data says nothing about where they were. The held-out *gain*
is the mean advantage of the policy's greedy move on decisions it was not trained
on: what the step is worth per decision, before any match is played. The run
keeps its step count; its checkpoint and ``policy.onnx`` are replaced.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np

import agents


@dataclass
class Labels:
    obs: np.ndarray  # float32 (N, obs_size)
    masks: np.ndarray  # bool (N, actions)
    advantages: np.ndarray  # float32 (N, actions): hand reward less the bot's move's; 0 if illegal
    bot_actions: np.ndarray  # int64 (N,)
    hands: int

    def __len__(self) -> int:
        return len(self.bot_actions)


def hand_reward(state, seat: int, score_scale: float, win_reward: float) -> float:
    """The seat's reward for the last hand as a hand episode pays it (envs.aec): points over
    the scale, plus the win term for leading on total score."""
    result = state.results[-1]
    top = max(result.totals)
    leaders = [s for s, t in enumerate(result.totals) if t == top]
    bonus = win_reward / len(leaders) if seat in leaders else -win_reward
    return result.points[seat] / score_scale + bonus


def _play_out(state, bots: list, hands_before: int) -> None:
    """Every seat plays its bot until the hand under way is over."""
    while len(state.results) == hands_before:
        seat = state.current_player
        state.apply(int(bots[seat].act(state.view(seat), state.legal_actions())))


def action_values(env, bots: list) -> dict[int, float]:
    """Each legal move of the seat to act in ``env`` (a hand-episode env): its hand reward
    when the hand is played out by ``bots`` on a copy of the true deal."""
    state = env.state_obj
    seat, before = state.current_player, len(state.results)
    values = {}
    for a in state.legal_actions():
        copy = state.clone()
        copy.apply(a)
        _play_out(copy, bots, before)
        values[a] = hand_reward(copy, seat, env.score_scale, env.win_reward)
    return values


def _label_worker(cfg_dict: dict, bot: str, decisions: int, seed: int) -> Labels:
    from envs.games import get_game
    from train.config import TrainConfig

    cfg = TrainConfig.from_dict(cfg_dict)
    env = get_game(cfg.game).env(preset=cfg.preset, **cfg.env_rule_changes(), episode="hand")
    n = len(env.possible_agents)
    bots = [agents.make(bot) for _ in range(n)]
    rng = np.random.default_rng(seed)
    obs_l, mask_l, adv_l, act_l = [], [], [], []
    hands = 0
    while len(act_l) < decisions:
        deal = int(rng.integers(2**31))
        env.reset(seed=deal)
        for k, b in enumerate(bots):
            b.reset(deal + k)
        seat = hands % n
        agent = env.possible_agents[seat]
        hands += 1
        while not env.terminations[agent]:
            state = env.state_obj
            current = state.current_player
            legal = state.legal_actions()
            action = int(bots[current].act(state.view(current), legal))
            if current == seat and len(legal) > 1:
                values = action_values(env, bots)
                obs = env.observe(agent)
                adv = np.zeros(env.num_actions, np.float32)
                for a, v in values.items():
                    adv[a] = v - values[action]
                obs_l.append(np.asarray(obs["observation"], np.float32))
                mask_l.append(obs["action_mask"].astype(bool))
                adv_l.append(adv)
                act_l.append(action)
            env.step(action)
    return Labels(np.asarray(obs_l), np.asarray(mask_l), np.asarray(adv_l),
                  np.asarray(act_l, np.int64), hands)


def label(cfg, bot: str, decisions: int, seed: int, workers: int = 1) -> Labels:
    """At least ``decisions`` labelled decisions of ``bot``, split over ``workers`` processes."""
    per = -(-decisions // workers)
    args = [[cfg.to_dict()] * workers, [bot] * workers, [per] * workers,
            [seed * 7919 + i for i in range(workers)]]
    if workers == 1:
        parts = [_label_worker(*(a[0] for a in args))]
    else:
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(workers, mp_context=ctx) as pool:
            parts = list(pool.map(_label_worker, *args))
    return Labels(*(np.concatenate([getattr(p, k) for p in parts])
                    for k in ("obs", "masks", "advantages", "bot_actions")),
                  sum(p.hands for p in parts))


def fit(policy, data: Labels, epochs: int, beta: float, batch_size: int = 512,
        lr: float = 1e-4, seed: int = 0, holdout: float = 0.1, log=None) -> dict:
    """Train the actor on ``-E_pi[A] + beta KL(pi_0 || pi)``; returns held-out statistics:
    the greedy move's mean advantage (``gain``), the best move's (``oracle``, a bound no
    policy reaches: it sees the deal) and how often the greedy move is the bot's."""
    import torch

    rng = np.random.default_rng(seed)
    # The held-out decisions are the last ones labelled, a block of whole hands: a
    # hand's decisions share its hidden cards, so a random split would leak them.
    n_val = max(1, int(len(data) * holdout))
    val = np.arange(len(data) - n_val, len(data))
    train = rng.permutation(len(data) - n_val)
    obs = torch.as_tensor(data.obs)
    adv = torch.as_tensor(data.advantages)
    masks = data.masks

    def probs(idx) -> torch.Tensor:
        return policy.get_distribution(obs[idx], action_masks=masks[idx]).distribution.probs

    with torch.no_grad():
        p0 = torch.cat([probs(np.arange(i, min(i + 4096, len(data))))
                        for i in range(0, len(data), 4096)])

    def held_out() -> dict:
        with torch.no_grad():
            greedy = probs(val).argmax(dim=1)
        picked = adv[val].gather(1, greedy[:, None]).squeeze(1)
        best = torch.where(torch.as_tensor(masks[val]), adv[val], -torch.inf).max(dim=1).values
        return {"gain": float(picked.mean()), "gain_ci95": float(1.96 * picked.std()
                                                                  / len(val) ** 0.5),
                "oracle": float(best.mean()),
                "agreement": float((greedy == torch.as_tensor(data.bot_actions[val]))
                                   .float().mean())}

    params = [p for m in (policy.mlp_extractor.policy_net, policy.action_net)
              for p in m.parameters()]
    opt = torch.optim.Adam(params, lr=lr)
    stats = {"epoch": 0, **held_out()}
    if log is not None:
        log(stats)
    policy.set_training_mode(True)
    for epoch in range(epochs):
        rng.shuffle(train)
        total = 0.0
        for start in range(0, len(train), batch_size):
            idx = train[start:start + batch_size]
            p = probs(idx)
            q = p0[idx]
            kl = (q * (torch.log(q.clamp_min(1e-12)) - torch.log(p.clamp_min(1e-12)))).sum(1)
            loss = (-(p * adv[idx]).sum(1) + beta * kl).mean()
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 10.0)
            opt.step()
            total += loss.item() * len(idx)
        policy.set_training_mode(False)
        stats = {"epoch": epoch + 1, "loss": total / len(train), **held_out()}
        policy.set_training_mode(True)
        if log is not None:
            log(stats)
    policy.set_training_mode(False)
    return stats


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m train.rollouts",
                                description=__doc__.splitlines()[0])
    p.add_argument("run", help="the run under runs/ whose policy takes the step")
    p.add_argument("--bot", required=True, help="the rule bot whose moves are labelled")
    p.add_argument("--decisions", type=int, default=50_000)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--beta", type=float, default=0.05, help="weight of the KL to the start")
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--save-labels", default=None, metavar="PATH.npz",
                   help="keep the labelled decisions (and reuse them if the file exists)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    from pathlib import Path

    from train.config import RUNS_DIR, TrainConfig

    args = build_parser().parse_args(argv)
    try:
        cfg = TrainConfig.load(RUNS_DIR / args.run)
        cfg.name = args.run
        from train.imitate import check_teacher
        check_teacher(args.bot, cfg.game, role="bot")
        for key in ("decisions", "epochs", "workers"):
            if getattr(args, key) < 1:
                raise ValueError(f"--{key} must be a positive int, got {getattr(args, key)}")
        if not args.beta >= 0:
            raise ValueError(f"--beta must be >= 0, got {args.beta}")
        from train.trainer import Trainer

        trainer = Trainer(cfg, resume=True, progress=False, quiet=True)
    except (ValueError, FileNotFoundError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    t0 = time.monotonic()
    saved = Path(args.save_labels) if args.save_labels else None
    if saved is not None and saved.is_file():
        with np.load(saved) as z:
            data = Labels(z["obs"], z["masks"], z["advantages"], z["bot_actions"],
                          int(z["hands"]))
    else:
        data = label(trainer.cfg, args.bot, args.decisions, args.seed, args.workers)
        if saved is not None:
            tmp = saved.with_suffix(".tmp.npz")
            np.savez_compressed(tmp, obs=data.obs, masks=data.masks, advantages=data.advantages,
                                bot_actions=data.bot_actions, hands=data.hands)
            tmp.replace(saved)
    print(f"[rollouts] {len(data):,} decisions of {args.bot} from {data.hands:,} hands "
          f"in {time.monotonic() - t0:.0f} s", file=sys.stderr)
    log: list[dict] = []

    def record(stats: dict) -> None:
        log.append(stats)
        print("[rollouts] " + ", ".join(f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}"
                                        for k, v in stats.items()), file=sys.stderr)

    fit(trainer.model.policy, data, args.epochs, args.beta, lr=args.lr, seed=args.seed,
        log=record)
    step = trainer.state.steps
    trainer.checkpoint(step)
    with (trainer.run_dir / "rollouts.jsonl").open("a") as f:
        f.write(json.dumps({"step": step, "bot": args.bot, "decisions": len(data),
                            "hands": data.hands, "beta": args.beta, "lr": args.lr,
                            "epochs": log}) + "\n")
    trainer.export(trainer.run_dir / "policy.onnx")
    print(f"[rollouts] {trainer.run_dir / 'policy.onnx'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
