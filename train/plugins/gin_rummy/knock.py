"""When to knock in Gin Rummy, learned from play-outs: a small head beside the policy.

    python -m cardrl.train.plugins.gin_rummy RUN --bot gin_rummy/expert --games 6000 --workers 2

Knocking ends the hand; playing on may bring gin (a bonus) or hand the other player
its own knock, gin or undercut. Which is better turns on the other hand, which no
view shows, so neither PPO nor a clone learns it well: a clone copies its teacher's
rule (the standard expert waits for gin whatever its chances), and PPO's return is
mostly the luck of the deal. Here the bot plays whole games in every seat, and at
each of its decisions where a knock other than gin is legal both choices are played
out on the true deal: knocking (with the card that leaves least deadwood: the hand
is scored at once) and the bot's best plain move, after which the bot plays every
seat to the end of the hand, on ``reshuffles`` redeals of the stock that nobody has
seen. Each outcome is worth the chance of winning the game from the scores after the
hand (``win_table``: hands of the bot against itself, then exact backward induction
over the scores), so a knock that ends the game or saves it counts as such.

The head, a small MLP over the observation's ``knock`` block and the scores, stock
and dealer, regresses knock-minus-play-on. It learns from the true hidden cards but
reads only the observation, so its output is the expected gain of knocking given
what the seat knows: acting on it is one step of policy improvement over the bot
(Bertsekas' rollout). In the exported bot (``KnockSwitch``) a positive head knocks
with the policy's likeliest knock, otherwise the policy's likeliest other move
stands; gin is left to the policy. The labels are kept per chunk of games under
``runs/RUN/knock/``, so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import io
import json
import multiprocessing
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

from cardrl import agents
from cardrl.envs.files import write_atomic
from cardrl.envs.gin_rummy.actions import KNOCK_OFFSET
from cardrl.envs.gin_rummy.engine import GinRummyState
from cardrl.envs.gin_rummy.features import KNOCK_FEATURES, encode, layout
from cardrl.envs.gin_rummy.game import GAME
from cardrl.envs.gin_rummy.melds import CARD_BIT, deadwood, knock_discard
from cardrl.envs.gin_rummy.rules import GinRummyRules
from cardrl.train.config import RunConfig
from cardrl.train.numpy_policy import MASKED
from cardrl.train.opponents import check_bot

CHUNK_GAMES = 100  # games per label file: what an interruption can lose
HEAD_FILE, STATS_FILE, TABLE_FILE = "knock_head.pt", "knock_head.json", "win_table.npy"


# ------------------------------------------------------------------ play-outs
def redealt(state: GinRummyState, n: int, rng: np.random.Generator) -> list[GinRummyState]:
    """``n`` copies of ``state``, each with the stock (which no seat has seen) reshuffled."""
    starts = []
    for _ in range(n):
        start = state.clone()
        start.shuffle_stock(rng)
        starts.append(start)
    return starts


def played_out(start: GinRummyState, move: int, bots: list) -> GinRummyState:
    """A copy of ``start`` after ``move``, the hand then played to its end by ``bots``."""
    s = start.clone()
    s.apply(move)
    hands_before = len(s.results)
    while len(s.results) == hands_before:
        seat = s.current_player
        s.apply(int(bots[seat].act(s.view(seat), s.legal_actions())))
    return s


# ------------------------------------------------------------------ game value
def hand_outcomes(rules: GinRummyRules, bot: str, hands: int, seed: int) -> np.ndarray:
    """Net points of the non-dealer (negative: the dealer's) over ``hands`` first hands of
    ``bot`` against itself; 0 for a dead hand."""
    bots = [agents.make(bot) for _ in range(2)]
    rng = np.random.default_rng(seed)
    out = np.zeros(hands, np.int64)
    for i in range(hands):
        state = GinRummyState(rules, int(rng.integers(2**31)))
        while not state.results:
            seat = state.current_player
            state.apply(int(bots[seat].act(state.view(seat), state.legal_actions())))
        result = state.results[0]
        first, points = (result.dealer + 1) % 2, result.points
        out[i] = points[first] - points[1 - first]
    return out


def win_table(outcomes: np.ndarray, target: int) -> np.ndarray:
    """``W[a, b, f]``: the chance that a player on ``a`` points beats one on ``b`` when each
    hand's net points are drawn from ``outcomes`` (the non-dealer's view) and ``f`` = 1 if
    the player does not deal the next hand. Dead hands pass the deal; each score pair
    solves the 2 x 2 system that the deal passing back and forth makes."""
    values, counts = np.unique(outcomes, return_counts=True)
    probs = counts / counts.sum()
    table = np.zeros((target, target, 2))
    for total in range(2 * target - 2, -1, -1):
        for a in range(max(0, total - target + 1), min(total, target - 1) + 1):
            b = total - a
            c, z = [0.0, 0.0], [0.0, 0.0]  # W[f] = c[f] + z[f] W[1 - f]
            for f in (0, 1):
                for v, p in zip(values, probs, strict=True):
                    mine = int(v) if f else -int(v)
                    if mine > 0:
                        c[f] += p * (1.0 if a + mine >= target else table[a + mine, b, 1 - f])
                    elif mine < 0:
                        c[f] += p * (0.0 if b - mine >= target else table[a, b - mine, 1 - f])
                    else:
                        z[f] += p
            w1 = (c[1] + z[1] * c[0]) / (1.0 - z[1] * z[0])
            table[a, b, 1], table[a, b, 0] = w1, c[0] + z[0] * w1
    return table


def game_value(state: GinRummyState, seat: int, table: np.ndarray) -> float:
    """``seat``'s chance to win the game from ``state`` between hands (1 or 0 when over)."""
    if state.is_over:
        return 1.0 / len(state.winners) if seat in state.winners else 0.0
    return float(table[state.scores[seat], state.scores[1 - seat], int(state.dealer != seat)])


# ---------------------------------------------------------------------- labels
def knock_card(state: GinRummyState, observation: np.ndarray) -> int | None:
    """The legal knock the labels try (least deadwood, then the highest card), read with the
    seat to act's ``observation``; None when no knock is legal or gin is (gin is left to
    the policy)."""
    at = layout(state.num_players)["knock"]
    if observation[at] == 0.0 or observation[at + 1] == 0.0:
        return None
    hand = state.masks[state.current_player]
    knocks = [a - KNOCK_OFFSET for a in state.legal_actions() if a >= KNOCK_OFFSET]
    return knock_discard({c: deadwood(hand ^ CARD_BIT[c]) for c in knocks}, knocks)


def label_games(rules: GinRummyRules, bot: str, games: int, seed: int, reshuffles: int,
                table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(observations, knock-minus-play-on game values) at every decision of ``games`` games
    of ``bot`` in both seats where a knock other than gin is legal."""
    bots = [agents.make(bot) for _ in range(2)]
    rng = np.random.default_rng(seed)
    obs, gains = [], []
    for _ in range(games):
        state = GinRummyState(rules, int(rng.integers(2**31)))
        while not state.is_over:
            seat, legal = state.current_player, state.legal_actions()
            view = state.view(seat)
            action = int(bots[seat].act(view, legal))
            o = encode(view) if state.phase == "discard" else None
            card = None if o is None else knock_card(state, o)
            if card is not None:
                knocked = state.clone()
                knocked.apply(KNOCK_OFFSET + card)
                plain = [a for a in legal if a < KNOCK_OFFSET]
                on = action if action < KNOCK_OFFSET else int(bots[seat].act(view, plain))
                on_value = sum(game_value(played_out(start, on, bots), seat, table)
                               for start in redealt(state, reshuffles, rng)) / reshuffles
                obs.append(o)
                gains.append(game_value(knocked, seat, table) - on_value)
            state.apply(action)
    return (np.asarray(obs, np.float32).reshape(-1, layout(2).size),
            np.asarray(gains, np.float32))


def _chunk_job(rules: GinRummyRules, bot: str, seed: int, reshuffles: int, table_path: str,
               out: str) -> str:
    obs, gains = label_games(rules, bot, CHUNK_GAMES, seed, reshuffles, np.load(table_path))
    buf = io.BytesIO()
    np.savez_compressed(buf, obs=obs, gains=gains)
    write_atomic(out, buf.getvalue())
    return out


def labels(run_dir: Path, rules: GinRummyRules, bot: str, games: int, reshuffles: int,
           workers: int, seed: int) -> list[Path]:
    """The label chunks of ``games`` games under ``run_dir/knock/`` (made where missing)."""
    folder = run_dir / "knock"
    folder.mkdir(parents=True, exist_ok=True)
    chunks = [folder / f"labels-{seed}-{i:04d}.npz" for i in range(-(-games // CHUNK_GAMES))]
    todo = [(i, c) for i, c in enumerate(chunks) if not c.is_file()]
    if todo:
        print(f"[knock] labelling {len(todo) * CHUNK_GAMES:,} games of {bot} "
              f"({len(chunks) - len(todo)} chunks already there)", file=sys.stderr)
    jobs = [(rules, bot, seed * 100_003 + i, reshuffles,
             str(run_dir / TABLE_FILE), str(c)) for i, c in todo]
    t0 = time.monotonic()
    if workers == 1:
        for k, job in enumerate(jobs, 1):
            _chunk_job(*job)
            print(f"[knock] {k}/{len(jobs)} chunks, {time.monotonic() - t0:.0f} s",
                  file=sys.stderr, flush=True)
    elif jobs:
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(workers, mp_context=ctx) as pool:
            for k, _ in enumerate(pool.map(_chunk_job, *zip(*jobs, strict=True)), 1):
                print(f"[knock] {k}/{len(jobs)} chunks, {time.monotonic() - t0:.0f} s",
                      file=sys.stderr, flush=True)
    return chunks


# ------------------------------------------------------------------------ head
def head_inputs(num_players: int = 2) -> list[int]:
    """Observation indices the head reads: the ``knock`` block, the stock, the seat's and
    the next seat's scores, and whether the seat deals."""
    o = layout(num_players).offsets
    return [*range(o["knock"], o["knock"] + len(KNOCK_FEATURES)), o["stock_size"],
            o["scores"], o["scores"] + 1, o["dealer"]]


class KnockHead(nn.Module):
    """Observation -> expected gain in game-win chance of knocking now over playing on."""

    def __init__(self, inputs: Sequence[int], hidden: int = 64) -> None:
        super().__init__()
        self.register_buffer("inputs", torch.as_tensor(list(inputs), dtype=torch.long))
        self.hidden = hidden
        self.net = nn.Sequential(nn.Linear(len(inputs), hidden), nn.Tanh(),
                                 nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, 1))

    def forward(self, observation: torch.Tensor) -> torch.Tensor:
        return self.net(observation[:, self.inputs]).squeeze(1)

    def save(self, path: Path, stats: dict) -> None:
        torch.save({"inputs": self.inputs.tolist(), "hidden": self.hidden,
                    "state": self.state_dict()}, path)
        write_atomic(path.parent / STATS_FILE, json.dumps(stats, indent=2) + "\n")

    @classmethod
    def load(cls, path: Path) -> KnockHead:
        saved = torch.load(path, weights_only=True)
        head = cls(saved["inputs"], saved["hidden"])
        head.load_state_dict(saved["state"])
        return head.eval()


class KnockSwitch(nn.Module):
    """Masked policy logits -> the same, except that where a knock other than gin is legal
    the head decides: its gain above ``margin`` puts the policy's likeliest knock one logit
    above the likeliest other move, otherwise one below."""

    def __init__(self, head: KnockHead, num_players: int = 2, margin: float = 0.0) -> None:
        super().__init__()
        self.head, self.margin = head, float(margin)
        self.gin_at = layout(num_players)["discard_gin"]

    def forward(self, observation: torch.Tensor, action_mask: torch.Tensor,
                logits: torch.Tensor) -> torch.Tensor:
        k = KNOCK_OFFSET
        legal = action_mask[:, k:] > 0.5
        gin = (observation[:, self.gin_at:self.gin_at + 52] > 0.5) & legal
        decide = legal.any(dim=1) & ~gin.any(dim=1)
        knocks, others = logits[:, k:], logits[:, :k]
        sign = torch.where(self.head(observation) > self.margin, 1.0, -1.0)
        shift = others.max(dim=1).values - knocks.max(dim=1).values + sign
        moved = torch.where(legal, knocks + shift[:, None], torch.full_like(knocks, MASKED))
        return torch.cat([others, torch.where(decide[:, None], moved, knocks)], dim=1)


def fit(obs: np.ndarray, gains: np.ndarray, held_out: int, epochs: int = 800,
        lr: float = 3e-3, weight_decay: float = 1e-4, seed: int = 0, log=None
        ) -> tuple[KnockHead, dict]:
    """Train a head on all but the last ``held_out`` rows (whole chunks of games: a hand's
    decisions share its cards), full batch; the held-out *gain* is the mean label of the
    decisions where it knocks (0 where it plays on): what it adds per decision over the
    bot's own play-on."""
    torch.manual_seed(seed)
    head = KnockHead(head_inputs())
    x, y = torch.as_tensor(obs), torch.as_tensor(gains)
    n = len(y) - held_out
    opt = torch.optim.Adam(head.parameters(), lr=lr, weight_decay=weight_decay)
    for epoch in range(epochs):
        opt.zero_grad()
        loss = ((head(x[:n]) - y[:n]) ** 2).mean()
        loss.backward()
        opt.step()
        if log is not None and (epoch + 1) % 200 == 0:
            log(f"epoch {epoch + 1}: mse {loss.item():.6f}")
    head.eval()
    with torch.no_grad():
        knock = (head(x[n:]) > 0).numpy()
    picked = np.where(knock, gains[n:], 0.0)
    stats = {"decisions": int(len(y)), "held_out": int(held_out),
             "gain": float(picked.mean()) if held_out else None,
             "gain_ci95": float(1.96 * picked.std() / held_out ** 0.5) if held_out else None,
             "oracle": float(np.maximum(gains[n:], 0).mean()) if held_out else None,
             "knock_share": float(knock.mean()) if held_out else None}
    return head, stats


# ------------------------------------------------------------------ the stage
@dataclass(frozen=True)
class KnockStage:
    """The settings of the knock stage (the plug-in's ``**settings``)."""

    bot: str = "gin_rummy/expert"  # the bot that plays the labelled games
    games: int = 6000  # games labelled
    reshuffles: int = 12  # stock redeals per play-on
    table_hands: int = 6000  # hands of the bot against itself behind the win table
    held_out: float = 0.1  # share of label chunks held out
    workers: int = 1
    seed: int = 1

    def check(self, cfg: RunConfig) -> GinRummyRules:
        """The rules of run ``cfg``, once the run and these settings are fit for a head."""
        if cfg.game != GAME.name:
            raise ValueError(f"run {cfg.name!r} plays {cfg.game}; a knock head is for "
                             f"{GAME.name}")
        if cfg.observation != "features":
            raise ValueError(f"run {cfg.name!r} reads the {cfg.observation!r} observation; the "
                             f"knock head reads the 'features' observation's knock block, so "
                             f"it needs a run trained with observation='features'")
        check_bot(self.bot, cfg.game, role="bot")
        for key in ("games", "reshuffles", "table_hands", "workers"):
            value = getattr(self, key)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{key} must be a positive int, got {value!r}")
        if not 0.0 <= self.held_out < 1.0:
            raise ValueError(f"held_out must be in [0, 1), got {self.held_out!r}")
        rules = GAME.get_rules(cfg.preset or GAME.presets[0], **cfg.rule_changes)
        if rules.num_players != 2:
            raise ValueError(f"the knock head's win table is for 2 players, "
                             f"got num_players={rules.num_players}")
        return rules

    def run(self, cfg: RunConfig) -> dict:
        """The win table, the labels and the head of run ``cfg``, saved in its folder (each
        made only where missing, so an interrupted stage resumes); the head's statistics."""
        rules, run_dir = self.check(cfg), cfg.run_dir
        t0 = time.monotonic()
        if not (run_dir / TABLE_FILE).is_file():
            outcomes = hand_outcomes(rules, self.bot, self.table_hands, self.seed)
            np.save(run_dir / TABLE_FILE, win_table(outcomes, rules.target))
            print(f"[knock] win table from {self.table_hands:,} hands of {self.bot}, "
                  f"{time.monotonic() - t0:.0f} s", file=sys.stderr)
        chunks = labels(run_dir, rules, self.bot, self.games, self.reshuffles, self.workers,
                        self.seed)
        parts = [np.load(c) for c in chunks]
        n_out = int(round(len(parts) * self.held_out))
        obs = np.concatenate([p["obs"] for p in parts])
        gains = np.concatenate([p["gains"] for p in parts])
        held_out = sum(len(p["gains"]) for p in parts[len(parts) - n_out:]) if n_out else 0
        head, stats = fit(obs, gains, held_out, seed=self.seed,
                          log=lambda m: print(f"[knock] {m}", file=sys.stderr))
        stats.update({"games": self.games, "bot": self.bot, "reshuffles": self.reshuffles,
                      "table_hands": self.table_hands, "seconds": round(time.monotonic() - t0)})
        head.save(run_dir / HEAD_FILE, stats)
        print("[knock] " + ", ".join(f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}"
                                     for k, v in stats.items()), file=sys.stderr)
        return stats


def export_switch(run_dir: Path) -> tuple[nn.Module | None, dict]:
    """The learned knock after the policy in the exported graph, and its statistics for the
    card; nothing for a run without a head."""
    head_file = Path(run_dir) / HEAD_FILE
    if not head_file.is_file():
        return None, {}
    return (KnockSwitch(KnockHead.load(head_file)),
            {"knock_head": json.loads((Path(run_dir) / STATS_FILE).read_text())})
