"""Tournament statistics: per-game ranks and win shares, duplicate-aware intervals.

In duplicate play the rotations of one deal share its cards, so their games are
not independent samples. Each bot's metric is therefore averaged over the
rotations of a deal first, and the 95% interval comes from the spread of those
per-deal means across deals: mean +/- 1.96 * sd / sqrt(n_deals).
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Z95 = 1.96


def average_ranks(scores: Sequence[float]) -> list[float]:
    """Rank 1 = highest score; tied seats share the average of the ranks they span."""
    ranks = []
    for score in scores:
        above = sum(other > score for other in scores)
        tied = sum(other == score for other in scores)
        ranks.append(above + (tied + 1) / 2)
    return ranks


def win_shares(num_players: int, winners: Iterable[int]) -> list[float]:
    """1 for a sole winner, 1/k for each of k tied winners, 0 for everyone else."""
    winners = set(winners)
    return [1 / len(winners) if seat in winners else 0.0 for seat in range(num_players)]


@dataclass(frozen=True)
class Estimate:
    """A mean with the half-width of its 95% interval (nan when n < 2)."""

    mean: float
    half_width: float
    n: int

    def to_dict(self) -> dict:
        hw = None if math.isnan(self.half_width) else self.half_width
        return {"mean": self.mean, "ci95": hw, "n": self.n}


def mean_ci(values: Sequence[float]) -> Estimate:
    """Mean and normal-approximation 95% half-width of independent samples."""
    n = len(values)
    if n == 0:
        return Estimate(math.nan, math.nan, 0)
    mean = statistics.fmean(values)
    if n < 2:
        return Estimate(mean, math.nan, n)
    return Estimate(mean, Z95 * statistics.stdev(values) / math.sqrt(n), n)


METRICS = ("score", "win", "rank")


@dataclass(frozen=True)
class BotStats:
    name: str
    games: int  # games this bot took part in (copies of one name count once per game)
    score: Estimate
    win: Estimate
    rank: Estimate

    def to_dict(self) -> dict:
        return {"bot": self.name, "games": self.games,
                **{m: getattr(self, m).to_dict() for m in METRICS}}


def bot_stats(games: Sequence[dict]) -> list[BotStats]:
    """Per bot name, in order of first appearance, from game records.

    A record needs ``deal``, ``seats`` (bot name per seat), ``scores``,
    ``win_shares`` and ``ranks``. Several seats with one name are pooled.
    """
    per_deal: dict[str, dict[int, dict[str, list[float]]]] = {}
    games_played: dict[str, int] = defaultdict(int)
    for g in games:
        for name in dict.fromkeys(g["seats"]):
            games_played[name] += 1
        for seat, name in enumerate(g["seats"]):
            deal = per_deal.setdefault(name, {}).setdefault(g["deal"], defaultdict(list))
            deal["score"].append(g["scores"][seat])
            deal["win"].append(g["win_shares"][seat])
            deal["rank"].append(g["ranks"][seat])
    out = []
    for name, deals in per_deal.items():
        ests = {m: mean_ci([statistics.fmean(deals[d][m]) for d in sorted(deals)])
                for m in METRICS}
        out.append(BotStats(name, games_played[name], **ests))
    return out


def head_to_head(games: Sequence[dict]) -> dict[tuple[str, str], Estimate]:
    """For names A != B: share of (game, A seat, B seat) where A scored above B, ties half.

    Averaged per deal first, like ``bot_stats``, so the interval is duplicate-honest.
    """
    per_deal: dict[tuple[str, str], dict[int, list[float]]] = {}
    for g in games:
        seats, scores = g["seats"], g["scores"]
        for a, name_a in enumerate(seats):
            for b, name_b in enumerate(seats):
                if name_a == name_b:
                    continue
                above = 1.0 if scores[a] > scores[b] else 0.5 if scores[a] == scores[b] else 0.0
                per_deal.setdefault((name_a, name_b), {}).setdefault(g["deal"], []).append(above)
    return {pair: mean_ci([statistics.fmean(deals[d]) for d in sorted(deals)])
            for pair, deals in per_deal.items()}


def seating_balance(games: Sequence[dict]) -> dict:
    """How evenly drawn tables spread the bots: [min, max] games per lineup entry, and
    [min, max] games shared by each pair of entries (over entries that played)."""
    played: dict[int, int] = defaultdict(int)
    pairs: dict[tuple[int, int], int] = defaultdict(int)
    for g in games:
        entries = g["lineup_entries"]
        for e in entries:
            played[e] += 1
        for i, a in enumerate(entries):
            for b in entries[i + 1:]:
                pairs[min(a, b), max(a, b)] += 1
    if not played:
        return {"games": [0, 0], "pairs": [0, 0]}
    keys = sorted(played)
    shared = [pairs.get((a, b), 0) for i, a in enumerate(keys) for b in keys[i + 1:]] or [0]
    return {"games": [min(played.values()), max(played.values())],
            "pairs": [min(shared), max(shared)]}
