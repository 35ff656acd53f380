"""Who sits at each deal's table: the whole lineup, or balanced draws from a larger one.

A tournament plays every deal once per cyclic rotation of the bots at its
table, so each of them sits in every seat position once per deal. With the
whole lineup at every table (the duplicate format) that is all; when a lineup
has more bots than a table has seats, or the seat count varies, each deal draws
its table so that every bot plays about equally many games and meets every
other bot about equally often: bots are picked one by one, fewest games first,
then fewest games already shared with the bots picked, ties at random; the
picked bots are then seated in a random cyclic order, so who plays after whom
varies too. The draw is sequential and seeded, so the tables of deals 0..k-1
are the same for any longer tournament (a larger ``--deals`` extends a run).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

Table = tuple[int, ...]  # lineup entries in seat order for rotation 0


def seat_entries(table: Table, rotation: int) -> list[int]:
    """Lineup entry at each seat: the table's i-th bot sits at seat (i + rotation) % n."""
    n = len(table)
    return [table[(seat - rotation) % n] for seat in range(n)]


def balanced_tables(active: Sequence[int], seat_counts: Sequence[int], deals: int,
                    seed: int) -> list[Table]:
    """The table of each deal 0..deals-1; deal d has ``seat_counts[d % len]`` seats."""
    active = list(active)
    if not seat_counts or max(seat_counts) > len(active):
        raise ValueError(f"seat counts {list(seat_counts)} need at least {max(seat_counts or [0])} "
                         f"bots; {len(active)} are playing")
    rng = np.random.default_rng(seed)
    games = dict.fromkeys(active, 0)
    met = {(a, b): 0 for a in active for b in active}
    tables = []
    for deal in range(deals):
        n = seat_counts[deal % len(seat_counts)]
        order = [active[i] for i in rng.permutation(len(active))]  # random tie-break
        chosen: list[int] = []
        for _ in range(n):
            pick = min((e for e in order if e not in chosen),
                       key=lambda e: (games[e], sum(met[e, c] for c in chosen)))
            chosen.append(pick)
        for e in chosen:
            games[e] += n  # the deal is played n times (one per rotation)
            for f in chosen:
                if f != e:
                    met[e, f] += n
        tables.append(tuple(chosen[i] for i in rng.permutation(n)))
    return tables


def parse_seat_counts(text: str) -> tuple[int, ...]:
    """'4' -> (4,); '2-9' -> (2, ..., 9); '3,5,7' -> (3, 5, 7)."""
    counts: list[int] = []
    try:
        for part in text.split(","):
            lo, dash, hi = part.strip().partition("-")
            counts.extend(range(int(lo), int(hi) + 1) if dash else [int(lo)])
    except ValueError:
        raise ValueError(f"bad seat counts {text!r}; expected e.g. '4', '2-9' or '3,5'") from None
    if not counts:
        raise ValueError(f"bad seat counts {text!r}; expected e.g. '4', '2-9' or '3,5'")
    return tuple(counts)
