"""Regret-based self-play for two-player Blind Auction on small decks: CFR+ over the game's
information states, and the average-strategy network fitted to its average policy.

    python -m cardrl.train.cfr --experiment --cards-per-suit 4 --tie-rule carry --iterations 1000
    python -m cardrl.train.cfr --rule cards_per_suit=4 --rule tie_rule=carry --steps 1000 --name x

With two players every past bid and prize is public, so at the start of a round both seats
know the same history, and the round is a simultaneous matrix game (seat 1 bids second but
cannot see seat 0's card) with a chance move (the prize, hidden until the round resolves).
The information states are the env's observations: ``cardrl.envs.blind_auction.best_response``
walks every history level by level and merges histories whose observation is equal (their
futures are the same game), giving a DAG whose nodes are one information state per seat
(``table`` refuses two states with one observation and different mixes). The learner works
on that DAG with whole levels as numpy arrays (full width, no sampling); the walk takes
seconds on 4 cards and about a minute on 5 (the hook's limit):

* **CFR+** (Tammelin 2014): regret matching on clipped cumulative regrets, the seats updated
  in turn (alternating), the average strategy weighted by the iteration (linear). ``dcfr``
  is discounted CFR (Brown and Sandholm 2019, alpha 1.5, beta 0, gamma 2), ``cfr`` vanilla.
* Each node's counterfactual values: the opponent's and chance's reach summed over the
  histories merged into it (the past margin adds the same to every action's value, so it
  leaves the regrets alone), times the expected margin of each own bid from there on.
* **The average policy** at a node: each iteration's strategy weighted by the seat's own
  reach there (chance included), summed over iterations; what is measured and exported.

Nothing here imitates a rule bot or plays one: both seats are the learner. The average
policy's exploitability is measured with the game's exact hook
(``cardrl.envs.blind_auction.best_response.exploitability``, points of score margin, 0 for an
equilibrium), as every other Blind Auction learner is.

``fit_network`` is the "network" half (the average-strategy network of Deep CFR and NFSP):
an MLP reading the default observation, fitted by cross-entropy to the average policy at
every information state (weighted by 1 plus the acting seat's own reach under the average);
its masked softmax is measured by the same exact hook.

``CFRTrainer`` is the trainer ``cfr`` of ``cardrl.train.trainers`` (a run folder, resume,
export, recipes: ``blind_auction-2p-cfr4``); ``steps`` are CFR iterations. Results:
docs/results.md, "Blind Auction: self-play that converges".
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Self

import numpy as np
import torch
from torch import nn

from cardrl.envs.blind_auction import best_response
from cardrl.envs.blind_auction.actions import NUM_ACTIONS
from cardrl.envs.blind_auction.rules import TIE_RULES, BlindAuctionRules
from cardrl.envs.encoding import Encoder
from cardrl.envs.games import get_game
from cardrl.train import runs
from cardrl.train.config import RunConfig, knob, redefault
from cardrl.train.evaluate import evaluate_run
from cardrl.train.exploit import EXPLOIT
from cardrl.train.export import export_bot, run_card
from cardrl.train.nets import TORCH_ACTIVATIONS, set_threads
from cardrl.train.runs import (
    RunState,
    TrainResult,
    last_evaluation,
    sigterm_as_interrupt,
    start_run,
)

VARIANTS = ("cfr+", "dcfr", "cfr")
Probs = Callable[[np.ndarray, np.ndarray], np.ndarray]


@dataclass
class _Node:
    """One level of the DAG (round starts with ``k`` cards left per seat), as arrays."""

    k: int
    margin: np.ndarray  # (S, k, k): the round's expected margin for bids (i, j), prize averaged
    child: np.ndarray  # (S, k, k, k) index into the next level, or -1 (the last round)
    obs: tuple[np.ndarray, np.ndarray]  # each seat's observation (S, D)
    actions: tuple[np.ndarray, np.ndarray]  # each seat's cards (S, k), the order of i / j
    regret: list[np.ndarray] = field(default_factory=list)  # per seat (S, k)
    avg: list[np.ndarray] = field(default_factory=list)  # per seat (S, k): summed strategy


def _matching(regret: np.ndarray) -> np.ndarray:
    """Regret matching: the positive regrets normalised; uniform where none is positive."""
    pos = np.maximum(regret, 0.0)
    total = pos.sum(axis=1, keepdims=True)
    k = regret.shape[1]
    return np.where(total > 0, pos / np.where(total > 0, total, 1.0), 1.0 / k)


class CFR:
    """Full-width CFR+ (or DCFR, or vanilla CFR) on one small 2-player Blind Auction game."""

    def __init__(self, rules: BlindAuctionRules, encoder: Encoder | None = None,
                 variant: str = "cfr+") -> None:
        if variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
        best_response.check_rules(rules)
        self.rules = rules
        self.encoder = encoder or get_game("blind_auction").encoder()
        self.variant = variant
        self.iterations = 0
        levels, inputs = best_response._walk(rules, self.encoder, True)
        self.levels: list[_Node] = []
        for level, per_seat in zip(levels, inputs, strict=True):
            (obs0, _, ranks0), (obs1, _, ranks1) = per_seat
            k = ranks0.shape[1]
            node = _Node(k, level.margin.mean(axis=3), level.child, (obs0, obs1),
                         (ranks0, ranks1))
            node.regret = [np.zeros((len(obs0), k)) for _ in (0, 1)]
            node.avg = [np.zeros((len(obs0), k)) for _ in (0, 1)]
            self.levels.append(node)
        self.num_states = sum(len(n.obs[0]) for n in self.levels)

    # ------------------------------------------------------------ one pass
    def strategies(self) -> list[list[np.ndarray]]:
        """[level][seat] the current strategy (regret matching)."""
        return [[_matching(n.regret[0]), _matching(n.regret[1])] for n in self.levels]

    def reaches(self, sigma: list[list[np.ndarray]]) -> list[list[np.ndarray]]:
        """[level][seat] (S,): seat's own reach times chance's, summed over the histories
        merged into each node (so seat 0's is seat 1's counterfactual reach and back)."""
        out = [[np.ones(1), np.ones(1)]]
        for d, node in enumerate(self.levels[:-1]):
            k = node.k
            nxt = []
            for seat in (0, 1):
                own = sigma[d][seat]  # (S, k)
                r = out[d][seat][:, None] * own / k  # chance: each prize 1/k
                flow = r[:, :, None, None] if seat == 0 else r[:, None, :, None]
                flow = np.broadcast_to(flow, node.child.shape)
                nxt.append(np.bincount(node.child.reshape(-1), weights=flow.reshape(-1),
                                       minlength=len(self.levels[d + 1].obs[0])))
            out.append(nxt)
        return out

    def values(self, sigma: list[list[np.ndarray]]) -> list[np.ndarray]:
        """[level] (S, k, k): seat 0's expected margin from each node on, for bids (i, j)."""
        out: list[np.ndarray] = [np.empty(0)] * len(self.levels)
        below: np.ndarray | None = None
        for d in range(len(self.levels) - 1, -1, -1):
            node = self.levels[d]
            m = node.margin if below is None else node.margin + below[node.child].mean(axis=3)
            out[d] = m
            below = np.einsum("si,sij,sj->s", sigma[d][0], m, sigma[d][1])
        return out

    def _update(self, seat: int, sigma: list[list[np.ndarray]]) -> None:
        t = self.iterations + 1
        reach = self.reaches(sigma)
        values = self.values(sigma)
        if self.variant == "dcfr":
            pos, neg = t ** 1.5 / (t ** 1.5 + 1), 0.5
            weight = (t / (t + 1)) ** 2  # the sum so far is scaled, this one added at 1
        for d, node in enumerate(self.levels):
            m, s0, s1 = values[d], sigma[d][0], sigma[d][1]
            if seat == 0:
                u = np.einsum("sij,sj->si", m, s1)
            else:
                u = -np.einsum("si,sij->sj", s0, m)
            mine = sigma[d][seat]
            v = (u * mine).sum(axis=1, keepdims=True)
            inst = reach[d][1 - seat][:, None] * (u - v)
            r = node.regret[seat]
            if self.variant == "cfr+":
                np.maximum(r + inst, 0.0, out=r)
                node.avg[seat] += t * reach[d][seat][:, None] * mine
            elif self.variant == "dcfr":
                r *= np.where(r > 0, pos, neg)
                r += inst
                node.avg[seat] *= weight
                node.avg[seat] += reach[d][seat][:, None] * mine
            else:
                r += inst
                node.avg[seat] += reach[d][seat][:, None] * mine

    def iterate(self, n: int = 1) -> None:
        """``n`` iterations, each updating seat 0 then seat 1 (the second against the
        first's new strategy)."""
        for _ in range(n):
            self._update(0, self.strategies())
            self._update(1, self.strategies())
            self.iterations += 1

    # ------------------------------------------------------------ the average
    def average(self) -> list[list[np.ndarray]]:
        """[level][seat] (S, k): the average policy (uniform where never reached)."""
        out = []
        for node in self.levels:
            per = []
            for seat in (0, 1):
                s = node.avg[seat]
                total = s.sum(axis=1, keepdims=True)
                per.append(np.where(total > 0, s / np.where(total > 0, total, 1.0), 1.0 / node.k))
            out.append(per)
        return out

    def table(self, which: str = "average") -> dict[bytes, np.ndarray]:
        """Observation bytes -> probabilities over all actions (0 off the seat's cards), for
        every information state of both seats: the average policy, or the ``current`` one."""
        mixes = self.average() if which == "average" else self.strategies()
        out: dict[bytes, np.ndarray] = {}
        for node, per in zip(self.levels, mixes, strict=True):
            for seat in (0, 1):
                full = np.zeros((len(per[seat]), NUM_ACTIONS))
                np.put_along_axis(full, node.actions[seat], per[seat], axis=1)
                for o, p in zip(node.obs[seat], full, strict=True):
                    key = o.tobytes()
                    if key in out and not np.allclose(out[key], p):
                        raise ValueError("two information states share an observation")
                    out[key] = p
        return out

    def samples(self, which: str = "average") -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                        np.ndarray]:
        """(observations, legal masks, target probabilities, weights) of every information
        state of both seats, for fitting a network; the weight is the acting seat's own
        reach (chance's included) under the ``which`` profile: what any opponent can make
        of a mistake there is in proportion to it, whatever the opponent plays."""
        mixes = self.average() if which == "average" else self.strategies()
        reach = self.reaches(mixes)
        obs, masks, probs, weights = [], [], [], []
        for d, (node, per) in enumerate(zip(self.levels, mixes, strict=True)):
            for seat in (0, 1):
                full = np.zeros((len(per[seat]), NUM_ACTIONS))
                np.put_along_axis(full, node.actions[seat], per[seat], axis=1)
                legal = np.zeros(full.shape, bool)
                np.put_along_axis(legal, node.actions[seat], True, axis=1)
                obs.append(node.obs[seat])
                masks.append(legal)
                probs.append(full)
                weights.append(reach[d][seat])
        return (np.concatenate(obs), np.concatenate(masks), np.concatenate(probs),
                np.concatenate(weights))

    def exploitability(self, which: str = "average") -> dict:
        """The game's exact hook on the table's policy (points of margin)."""
        return best_response.exploitability(self.rules, self.encoder,
                                            [table_policy(self.table(which))])


def table_policy(table: dict[bytes, np.ndarray]) -> Probs:
    """(obs, masks) -> probabilities, looked up by observation (KeyError if unseen)."""
    def probs(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        out = np.stack([table[o.tobytes()] for o in np.asarray(obs, np.float32)])
        return out * masks
    return probs


# ------------------------------------------------------------------ the network
def mlp(obs_size: int, hidden: Sequence[int], activation: str = "relu") -> nn.Sequential:
    """observation -> one logit per action."""
    layers: list[nn.Module] = []
    size = obs_size
    for h in hidden:
        layers += [nn.Linear(size, h), TORCH_ACTIVATIONS[activation]()]
        size = h
    layers.append(nn.Linear(size, NUM_ACTIONS))
    return nn.Sequential(*layers)


class MaskedLogits(nn.Module):
    """(observation, action_mask) -> logits with every illegal action at -1e8: the graph
    ONNX gets, and what a bot draws from (its softmax) or plays the argmax of."""

    def __init__(self, net: nn.Module) -> None:
        super().__init__()
        self.net = net

    def forward(self, observation: torch.Tensor, action_mask: torch.Tensor) -> torch.Tensor:
        z = self.net(observation)
        return torch.where(action_mask > 0.5, z, torch.full_like(z, -1e8))


def network_policy(net: nn.Module) -> Probs:
    """(obs, masks) -> the network's masked softmax (0 on illegal actions)."""
    masked = MaskedLogits(net).eval()

    def probs(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            z = masked(torch.as_tensor(np.asarray(obs, np.float32)),
                       torch.as_tensor(np.asarray(masks, np.float32)))
            return torch.softmax(z.double(), dim=1).numpy() * np.asarray(masks, bool)
    return probs


def fit_network(net: nn.Module, obs: np.ndarray, masks: np.ndarray, targets: np.ndarray,
                weights: np.ndarray, epochs: int = 400, lr: float = 3e-3,
                batch_size: int = 1024, floor: float = 1.0, seed: int = 0) -> dict:
    """Fit ``net`` (observation -> logits) by weighted cross-entropy of its masked softmax
    to ``targets`` (Adam, the rate falling to 0 on a cosine); a sample's weight is ``floor``
    plus ``weights`` scaled to mean 1. Returns the fit's numbers: the weighted cross-entropy
    less the targets' entropy (nats a decision; 0 is a perfect fit)."""
    torch.manual_seed(seed)
    x = torch.as_tensor(obs, dtype=torch.float32)
    m = torch.as_tensor(masks, dtype=torch.bool)
    y = torch.as_tensor(targets, dtype=torch.float32)
    w = np.asarray(weights, float)
    w = floor + w / w.mean()
    wt = torch.as_tensor(w / w.mean(), dtype=torch.float32)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, max(epochs, 1))
    rng = np.random.default_rng(seed)

    def cross_entropy(idx) -> torch.Tensor:
        logp = torch.log_softmax(net(x[idx]).masked_fill(~m[idx], -1e9), dim=1)
        return -(y[idx] * logp.clamp_min(-1e4)).sum(dim=1)

    t0 = time.perf_counter()
    net.train()
    for _ in range(epochs):
        order = torch.as_tensor(rng.permutation(len(x)))
        for start in range(0, len(x), batch_size):
            idx = order[start:start + batch_size]
            loss = (wt[idx] * cross_entropy(idx)).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
    net.eval()
    with torch.no_grad():
        entropy = -(y * torch.log(y.clamp_min(1e-12))).sum(dim=1)
        excess = float((wt * (cross_entropy(slice(None)) - entropy)).mean())
    return {"samples": len(x), "epochs": epochs, "weighted_excess_nats": round(excess, 6),
            "fit_s": round(time.perf_counter() - t0, 1)}


# ------------------------------------------------------------------ the trainer
ALGO = "cfr"
CHECKPOINT = "cfr.npz"
NETWORK = "average_net.pt"


@dataclass
class CFRConfig(RunConfig):
    """The shared knobs plus CFR's. ``steps`` are CFR iterations; the network knobs (``net``,
    ``activation``, ``learning_rate``, ``batch_size``) are the average network's fit."""

    TRAINER: ClassVar[str] = ALGO
    COMMAND: ClassVar[str] = "cardrl.train.cfr"
    STEPS: ClassVar[str] = "CFR iterations (each updates both seats at every information state)"

    algo: str = knob(ALGO, cli=False)  # config.json says which trainer resumes it
    variant: str = knob("cfr+", "cfr+ (alternating, linear average), dcfr (discounted) or "
                        "cfr (vanilla)", choices=VARIANTS)
    exploit_every: int = knob(100, "iterations between exact measures of the average "
                              "policy's exploitability (0: at the end only)", tunable=True)
    fit_epochs: int = knob(400, "epochs of the average network's fit (0: no network)",
                           tunable=True)
    fit_floor: float = knob(1.0, "each state's weight in the fit: this plus the acting "
                            "seat's reach (mean 1)", tunable=True)
    game: str = redefault(RunConfig, "game", "blind_auction")
    steps: int = redefault(RunConfig, "steps", 1000)
    net: tuple[int, ...] = redefault(RunConfig, "net", (128, 128))
    activation: str = redefault(RunConfig, "activation", "relu")
    learning_rate: float = redefault(RunConfig, "learning_rate", 3e-3)
    batch_size: int = redefault(RunConfig, "batch_size", 1024)
    eval_every: int = redefault(RunConfig, "eval_every", 0)

    @classmethod
    def from_dict(cls, d: dict) -> Self:
        if d.get("algo", ALGO) != ALGO:
            raise ValueError(f"not a CFR run (its config.json has algo {d.get('algo')!r})")
        return super().from_dict(d)

    def validate(self) -> None:
        super().validate()
        if self.algo != ALGO:
            raise ValueError(f"a CFR config has algo {ALGO!r}, got {self.algo!r}")
        if self.game != "blind_auction":
            raise ValueError(f"CFR here solves two-player Blind Auction on small decks, not "
                             f"{self.game!r}")
        rules = get_game(self.game).get_rules(self.preset or "2p", **self.env_rule_changes())
        best_response.check_rules(rules)  # 2 players, up to 5 cards: raises naming the value
        if self.variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, got {self.variant!r}")
        for key in ("exploit_every", "fit_epochs"):
            value = getattr(self, key)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{key} must be an int >= 0, got {value!r}")
        if isinstance(self.fit_floor, bool) or not isinstance(self.fit_floor, int | float) \
                or self.fit_floor < 0:
            raise ValueError(f"fit_floor must be a number >= 0, got {self.fit_floor!r}")

    def rules(self) -> BlindAuctionRules:
        return get_game(self.game).get_rules(self.preset, **self.env_rule_changes())


class CFRTrainer:
    """One CFR run (``cardrl.train.runs``' trainer interface): ``run()`` iterates to the
    run's steps, measuring the average policy exactly every ``exploit_every`` iterations
    (``exploitability.jsonl``), then fits the average network, measures it and exports it
    (``policy.onnx``: masked logits; play it with ``sample`` on, it is a mixed strategy)."""

    CONFIG = CFRConfig
    CHECKPOINT = CHECKPOINT

    def __init__(self, cfg: CFRConfig, resume: bool = False, progress: bool = True,
                 quiet: bool = False) -> None:
        self.cfg = cfg = start_run(cfg, resume, CHECKPOINT)
        self.run_dir = cfg.run_dir
        self.progress, self.quiet = progress, quiet
        ckpt = self.run_dir / CHECKPOINT
        set_threads(1)
        self._start = time.monotonic()  # the walk of the game counts in the run's time
        self.state = RunState.load(self.run_dir) if resume else RunState()
        self._wall0 = self.state.wall_time_s
        game = get_game(cfg.game)
        self.cfr = CFR(cfg.rules(), game.encoder(cfg.observation), cfg.variant)
        self.obs_size = self.cfr.levels[0].obs[0].shape[1]
        torch.manual_seed(cfg.seed)
        self.net: nn.Module | None = None
        if resume:
            self._load(ckpt)

    @property
    def steps(self) -> int:
        return self.cfr.iterations

    def wall_time(self) -> float:
        return self._wall0 + time.monotonic() - self._start

    def _load(self, ckpt: Path) -> None:
        saved = np.load(ckpt)
        for d, node in enumerate(self.cfr.levels):
            for seat in (0, 1):
                node.regret[seat][:] = saved[f"regret_{d}_{seat}"]
                node.avg[seat][:] = saved[f"avg_{d}_{seat}"]
        self.cfr.iterations = int(saved["iterations"])
        if (self.run_dir / NETWORK).is_file():
            self.net = mlp(self.obs_size, self.cfg.net, self.cfg.activation)
            self.net.load_state_dict(torch.load(self.run_dir / NETWORK, weights_only=True))
            self.net.eval()

    def checkpoint(self, step: int | None = None) -> None:
        """The regrets, the average's sums and the network (``step`` is the run's own)."""
        arrays = {"iterations": np.array(self.cfr.iterations)}
        for d, node in enumerate(self.cfr.levels):
            for seat in (0, 1):
                arrays[f"regret_{d}_{seat}"] = node.regret[seat]
                arrays[f"avg_{d}_{seat}"] = node.avg[seat]
        tmp = self.run_dir / (CHECKPOINT + ".tmp.npz")
        np.savez(tmp, **arrays)
        os.replace(tmp, self.run_dir / CHECKPOINT)
        if self.net is not None:
            torch.save(self.net.state_dict(), self.run_dir / NETWORK)
        else:  # none, or one fitted to an older average: a resume fits again
            (self.run_dir / NETWORK).unlink(missing_ok=True)
        self.state.steps = self.steps
        self.state.wall_time_s = self.wall_time()
        self.state.save(self.run_dir)

    def _record(self, record: dict) -> None:
        with open(self.run_dir / EXPLOIT, "a") as f:
            f.write(json.dumps(record) + "\n")
        if not self.quiet:
            which = "network" if "network" in record else "average"
            e = record[which]
            print(f"[cfr] {record['step']:,} iterations, {record['wall_time_s']:.1f} s: {which} "
                  f"exploitability {e['exploitability']:.5f} ({100 * e['fraction']:.3f}% of "
                  f"the prizes)", file=sys.stderr)

    def measure(self) -> dict:
        """The average policy's exact exploitability now (and the current policy's)."""
        record = {"step": self.steps, "wall_time_s": round(self.wall_time(), 2),
                  "average": self.cfr.exploitability("average"),
                  "current": self.cfr.exploitability("current")}
        self._record(record)
        return record

    def fit(self) -> dict:
        """The average network: a fresh MLP fitted to the average policy, measured exactly."""
        cfg = self.cfg
        net = mlp(self.obs_size, cfg.net, cfg.activation)
        obs, masks, targets, weights = self.cfr.samples("average")
        info = fit_network(net, obs, masks, targets, weights, cfg.fit_epochs, cfg.learning_rate,
                           cfg.batch_size, cfg.fit_floor, cfg.seed)
        self.net = net
        e = best_response.exploitability(self.cfr.rules, self.cfr.encoder, [network_policy(net)])
        record = {"step": self.steps, "wall_time_s": round(self.wall_time(), 2),
                  "network": {**e, **info}}
        self._record(record)
        return record

    def run(self) -> TrainResult:
        cfg = self.cfg
        interrupted = False
        try:
            with sigterm_as_interrupt():
                if self.steps < cfg.steps:
                    self.net = None  # fitted to an average that more iterations change
                while self.steps < cfg.steps:
                    every = cfg.exploit_every or cfg.steps
                    self.cfr.iterate(min(every - self.steps % every, cfg.steps - self.steps))
                    if self.steps % every == 0 or self.steps == cfg.steps:
                        self.measure()
                if self.net is None and cfg.fit_epochs:
                    self.fit()
        except KeyboardInterrupt:
            interrupted = True
        finally:
            self.checkpoint()
        onnx = None
        if not interrupted and self.net is not None:
            if cfg.eval_every and not runs.read_evals(self.run_dir):
                path = self.run_dir / "evals" / f"step-{self.steps:09d}.onnx"
                self.export(path, evaluation=None)
                evaluate_run(cfg, path, self.steps, self.wall_time(), self.run_dir)
            onnx = self.export(self.run_dir / "policy.onnx")
        return TrainResult(self.run_dir, self.steps, self.wall_time(), onnx,
                           runs.read_evals(self.run_dir), interrupted)

    def export(self, path: Path | str, evaluation: dict | None | bool = True) -> Path:
        """The average network as ONNX at ``path`` with its card (its exploitability in the
        card's ``training``)."""
        if self.net is None:
            raise ValueError("no average network yet: run the trainer (fit_epochs > 0) first")
        if evaluation is True:
            evaluation = last_evaluation(self.run_dir)
        card = run_card(self.cfg, self.steps, self.wall_time(), evaluation, algo=ALGO,
                        exploitability=self.exploitability_summary())
        return export_bot(MaskedLogits(self.net), self.obs_size, NUM_ACTIONS, path,
                          {**card, "sample": True}, self.run_dir)

    def exploitability_summary(self) -> dict[str, Any]:
        """The last measures of the run (points of margin; the prize total beside them)."""
        out: dict[str, Any] = {"prize_total": self.cfr.rules.prize_total}
        path = self.run_dir / EXPLOIT
        if path.is_file():
            for line in path.read_text().splitlines():
                record = json.loads(line)
                for which in ("average", "current", "network"):
                    if which in record:
                        out[which] = round(record[which]["exploitability"], 6)
        return out


# ------------------------------------------------------------------ command line
def experiment(cards_per_suit: int, tie_rule: str, iterations: int, every: int,
               variant: str = "cfr+", network: bool = False, hidden: Sequence[int] = (128, 128),
               epochs: int = 400, seed: int = 0, log: Callable[[str], None] = print) -> dict:
    """CFR for ``iterations`` with no run folder, measuring the average policy every
    ``every`` iterations (and at the end), then optionally the network; returns the record
    (and prints it as it goes)."""
    game = get_game("blind_auction")
    rules = game.get_rules("2p", cards_per_suit=cards_per_suit, tie_rule=tie_rule)
    t0 = time.perf_counter()
    cfr = CFR(rules, game.encoder(), variant)
    build = time.perf_counter() - t0
    log(f"blind auction 2p, {cards_per_suit} cards, ties {tie_rule}: {cfr.num_states:,} "
        f"information states per seat, built in {build:.1f} s; {variant}")
    curve = []
    train_s = 0.0
    while cfr.iterations < iterations:
        t = time.perf_counter()
        cfr.iterate(min(every, iterations - cfr.iterations))
        train_s += time.perf_counter() - t
        e = cfr.exploitability()
        curve.append({"iterations": cfr.iterations, "train_s": round(train_s, 2),
                      "exploitability": e["exploitability"]})
        log(f"  {cfr.iterations:6d} iterations, {train_s:7.1f} s: average policy "
            f"exploitability {e['exploitability']:.5f} of {rules.prize_total} "
            f"({100 * e['fraction']:.3f}%)")
    out: dict[str, Any] = {"cards_per_suit": cards_per_suit, "tie_rule": tie_rule,
                           "variant": variant, "states": cfr.num_states,
                           "build_s": round(build, 1), "curve": curve,
                           "current": cfr.exploitability("current")["exploitability"]}
    log(f"  current (last) policy exploitability {out['current']:.5f}")
    if network:
        torch.manual_seed(seed)  # the network's first weights
        net = mlp(cfr.levels[0].obs[0].shape[1], hidden)
        obs, masks, targets, weights = cfr.samples()
        info = fit_network(net, obs, masks, targets, weights, epochs, seed=seed)
        e = best_response.exploitability(rules, cfr.encoder, [network_policy(net)])
        out["network"] = {**info, "hidden": list(hidden), "exploitability": e["exploitability"]}
        log(f"  network {list(hidden)} fitted on {info['samples']:,} states in "
            f"{info['fit_s']} s: exploitability {e['exploitability']:.5f} of "
            f"{rules.prize_total} (weighted excess cross-entropy {info['weighted_excess_nats']})")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """``--experiment``: measure CFR with no run folder (``experiment``); otherwise the
    trainer's command line (``cardrl.train.runs``: a flag per ``CFRConfig`` knob)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--experiment" not in argv:
        return runs.main(CFRTrainer, argv, "python -m cardrl.train.cfr",
                         __doc__.splitlines()[0])
    argv.remove("--experiment")
    p = argparse.ArgumentParser(prog="python -m cardrl.train.cfr --experiment",
                                description=__doc__.splitlines()[0])
    p.add_argument("--cards-per-suit", type=int, default=4)
    p.add_argument("--tie-rule", default="carry", choices=TIE_RULES)
    p.add_argument("--iterations", type=int, default=1000)
    p.add_argument("--every", type=int, default=100, help="measure every this many iterations")
    p.add_argument("--variant", default="cfr+", choices=VARIANTS)
    p.add_argument("--network", action="store_true", help="fit and measure the average network")
    p.add_argument("--hidden", default="128,128")
    p.add_argument("--epochs", type=int, default=400)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", default=None, help="write the record here")
    args = p.parse_args(argv)
    set_threads(1)
    out = experiment(args.cards_per_suit, args.tie_rule, args.iterations, args.every,
                     args.variant, args.network, tuple(int(h) for h in args.hidden.split(",")),
                     args.epochs, args.seed)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
