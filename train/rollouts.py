"""One step of policy iteration over a rule bot, learned: duplicate rollouts label every
move, and the policy moves toward the moves that did better.

    python -m train.rollouts RUN --bot gin_rummy/expert --decisions 100000 --workers 2

PPO fine-tuning of a clone learns slowly: the clone plays the teacher's move nearly
always, so it rarely tries another, and a hand's return is mostly the luck of the
deal. Here the bot plays whole games in every seat, one seat labelled per game; at
each of that seat's decisions every legal move (or the bot's and the run's policy's
``--top-k`` likeliest) is tried on a copy of the true deal and the hand is played
out by the bots, over ``--reshuffles`` redeals of the cards no seat has seen (the
same for every move). A move's *advantage* is its value (``agents.search.hand_value``:
points less the others' mean, and the win reward when the game ends) less the bot's
own move's, on the same cards: the deal's luck cancels. Averaged
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
    advantages: np.ndarray  # float32 (N, actions): value less the bot's move's; 0 if not tried
    bot_actions: np.ndarray  # int64 (N,)
    hands: int

    def __len__(self) -> int:
        return len(self.bot_actions)


def finish_hand(state, bots: list) -> None:
    """Every seat plays its bot until the hand under way is over."""
    hands_before = len(state.results)
    while len(state.results) == hands_before:
        seat = state.current_player
        state.apply(int(bots[seat].act(state.view(seat), state.legal_actions())))


def redealt(game, state, n: int, rng: np.random.Generator) -> list:
    """``n`` copies of engine ``state``, each with the cards no seat has seen redealt
    (``game.redeal_unseen``: the Gin Rummy stock)."""
    if game.redeal_unseen is None:
        raise ValueError(f"{game.name} has no unseen cards to redeal; reshuffles must be 1")
    starts = []
    for _ in range(n):
        start = state.clone()
        game.redeal_unseen(start, rng)
        starts.append(start)
    return starts


def played_out(start, move: int, bots: list):
    """A copy of ``start`` after ``move``, the hand then played to its end by ``bots``."""
    s = start.clone()
    s.apply(move)
    finish_hand(s, bots)
    return s


def action_values(game, state, moves: Sequence[int], bots: list, score_scale: float,
                  win_reward: float = 1.0, reshuffles: int = 1,
                  rng: np.random.Generator | None = None) -> np.ndarray:
    """For the seat to act in engine ``state``: each of ``moves`` played, then the hand
    played out by ``bots``, worth what it pays the seat (``agents.search.hand_value``: its
    points less the others' mean over ``score_scale``, the win reward if the game ends).

    With ``reshuffles`` > 1 every move meets the same ``reshuffles`` redeals of the
    cards no seat has seen (``game.redeal_unseen``: the Gin Rummy stock) and its value is
    their mean: the luck still to come mostly cancels, what the true hands hold stays.
    """
    from agents.search import hand_value

    seat = state.current_player
    starts = redealt(game, state, reshuffles, rng) if reshuffles > 1 else [state]
    values = np.zeros(len(moves))
    for i, move in enumerate(moves):
        for start in starts:
            s = played_out(start, move, bots)
            values[i] += hand_value(game.hand_points(start, s), s.is_over, s.winners, seat,
                                    score_scale, win_reward)
    return values / len(starts)


def candidates(proposer, view, legal: Sequence[int], top_k: int | None, bot_move: int
               ) -> list[int]:
    """The moves worth labelling: the bot's, then the ``proposer``'s ``top_k`` likeliest
    (every legal move without a proposer or ``top_k``)."""
    if proposer is None or not top_k:
        rest = list(legal)
    else:
        probs = proposer.probabilities(view, legal)
        rest = sorted(legal, key=lambda a: -probs[a])[:top_k]
    return [bot_move, *(int(a) for a in rest if a != bot_move)]


def _label_worker(cfg_dict: dict, bot: str, decisions: int, seed: int,
                  proposer: str | None = None, top_k: int | None = None,
                  reshuffles: int = 1, min_legal: int = 2, report_every: int = 0) -> Labels:
    """Whole games of ``bot`` in every seat; one seat per game (in turn) is labelled at each
    of its decisions with at least ``min_legal`` legal moves (a progress line to stderr every
    ``report_every`` labels)."""
    from envs.games import get_game
    from train.config import TrainConfig

    cfg = TrainConfig.from_dict(cfg_dict)
    game = get_game(cfg.game)
    env = game.env(preset=cfg.preset, **cfg.env_rule_changes())
    n = len(env.possible_agents)
    bots = [agents.make(bot) for _ in range(n)]
    ranker = agents.load(proposer) if proposer else None
    rng = np.random.default_rng(seed)
    obs_l, mask_l, adv_l, act_l = [], [], [], []
    hands = games = 0
    while len(act_l) < decisions:
        deal = int(rng.integers(2**31))
        env.reset(seed=deal)
        for k, b in enumerate(bots):
            b.reset(deal + k)
        seat = games % n
        agent = env.possible_agents[seat]
        games += 1
        while not env.terminations[agent] and len(act_l) < decisions:
            state = env.state_obj
            current = state.current_player
            legal = state.legal_actions()
            view = state.view(current)
            action = int(bots[current].act(view, legal))
            if current == seat and len(legal) >= min_legal:
                moves = candidates(ranker, view, legal, top_k, action)
                values = action_values(game, state, moves, bots, env.score_scale,
                                       env.win_reward, reshuffles, rng)
                obs = env.observe(agent)
                adv = np.zeros(env.num_actions, np.float32)
                adv[moves] = values - values[0]
                obs_l.append(np.asarray(obs["observation"], np.float32))
                mask_l.append(obs["action_mask"].astype(bool))
                adv_l.append(adv)
                act_l.append(action)
                if report_every and len(act_l) % report_every == 0:
                    print(f"[rollouts] seed {seed}: {len(act_l):,}/{decisions:,} decisions "
                          f"labelled", file=sys.stderr, flush=True)
            env.step(action)
        hands += len(env.state_obj.results)
    return Labels(np.asarray(obs_l), np.asarray(mask_l), np.asarray(adv_l),
                  np.asarray(act_l, np.int64), hands)


def label(cfg, bot: str, decisions: int, seed: int, workers: int = 1,
          proposer: str | None = None, top_k: int | None = None, reshuffles: int = 1,
          min_legal: int = 2) -> Labels:
    """At least ``decisions`` labelled decisions of ``bot``, split over ``workers`` processes
    (``_label_worker`` for the knobs)."""
    per = -(-decisions // workers)
    jobs = [(cfg.to_dict(), bot, per, seed * 7919 + i, proposer, top_k, reshuffles, min_legal,
             max(100, per // 20)) for i in range(workers)]
    if workers == 1:
        parts = [_label_worker(*jobs[0])]
    else:
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(workers, mp_context=ctx) as pool:
            parts = list(pool.map(_label_worker, *zip(*jobs, strict=True)))
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
    p.add_argument("--top-k", type=int, default=0,
                   help="label only the bot's move and the run's policy's k likeliest (0 = all)")
    p.add_argument("--reshuffles", type=int, default=1,
                   help="value each move over this many redeals of the unseen cards (the Gin "
                        "Rummy stock), the same for every move")
    p.add_argument("--min-legal", type=int, default=2,
                   help="label only decisions with at least this many legal moves")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--save-labels", default=None, metavar="PATH.npz",
                   help="keep the labelled decisions (and reuse them if the file exists)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    from pathlib import Path

    from train.config import TrainConfig

    args = build_parser().parse_args(argv)
    try:
        cfg = TrainConfig.load_run(args.run)
        from train.imitate import check_teacher
        check_teacher(args.bot, cfg.game, role="bot")
        for key in ("decisions", "epochs", "workers", "reshuffles"):
            if getattr(args, key) < 1:
                raise ValueError(f"--{key} must be a positive int, got {getattr(args, key)}")
        if args.top_k < 0 or args.min_legal < 2:
            raise ValueError(f"--top-k must be >= 0 and --min-legal >= 2, got {args.top_k} "
                             f"and {args.min_legal}")
        from envs.games import get_game
        if args.reshuffles > 1 and get_game(cfg.game).redeal_unseen is None:
            raise ValueError(f"--reshuffles {args.reshuffles}: {cfg.game} has no unseen cards "
                             f"to redeal (every card is in a hand)")
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
        proposer = None
        if args.top_k:  # the run's policy as it is now ranks the moves worth a label
            proposer = trainer.export(trainer.run_dir / "proposer.onnx")
        data = label(trainer.cfg, args.bot, args.decisions, args.seed, args.workers,
                     None if proposer is None else str(proposer), args.top_k or None,
                     args.reshuffles, args.min_legal)
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
                            "hands": data.hands, "top_k": args.top_k,
                            "reshuffles": args.reshuffles, "min_legal": args.min_legal,
                            "beta": args.beta, "lr": args.lr,
                            "epochs": log}) + "\n")
    trainer.export(trainer.run_dir / "policy.onnx")
    print(f"[rollouts] {trainer.run_dir / 'policy.onnx'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
