"""The public-state tree of two-player Blind Auction, for exact analysis.

With two players everything but the prize order and the bids of the round
being played is public: both bids are shown when the round resolves, and so is
the prize. So a seat's information at the start of a round is the public
history, and what is left of the game depends only on the *public state*

    (seat 0's cards left, seat 1's cards left, prizes left, carried prizes)

(the points already scored only add a constant to the score difference). The
game is then a finite stochastic game with simultaneous moves: at each public
state the two seats play a matrix game whose entry for bids (i, j) is the
expected score difference (seat 0 minus seat 1) of the round plus the value of
the state it leads to, the next prize being uniform over the prizes left
(hidden until the round resolves). Backward induction over these states
(Shapley) gives a Nash equilibrium of the whole game and its value, and a best
response to any policy that depends only on the public state.

Levels are indexed by ``k``, the cards each seat has left; a state is four
bit masks over ranks 0..n-1, packed into one int64 key. Everything is numpy
arrays per level, so ``cards_per_suit`` up to 7 builds in seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cardrl.envs.blind_auction.rules import TIE_RULES


@dataclass
class Level:
    """All reachable public states with ``k`` cards left per seat (at a round's start)."""

    k: int
    a: np.ndarray  # (S,) bit mask of seat 0's ranks
    b: np.ndarray  # (S,) seat 1's
    p: np.ndarray  # (S,) prizes left
    c: np.ndarray  # (S,) carried prizes
    keys: np.ndarray  # (S,) sorted packed keys
    a_ranks: np.ndarray  # (S, k) seat 0's ranks, ascending: row i of a matrix game
    b_ranks: np.ndarray  # (S, k) seat 1's ranks: column j
    p_ranks: np.ndarray  # (S, k) prize ranks: chance outcome q
    reward: np.ndarray  # (S, k, k, k) score difference of the round for (i, j, q)
    child: np.ndarray | None = None  # (S, k, k, k) index of the next state at level k-1
    first: np.ndarray | None = None  # (S,) flat (s, i, j, q) of the transition first reaching it

    @property
    def size(self) -> int:
        return len(self.keys)


def ranks_of(masks: np.ndarray, n: int, k: int) -> np.ndarray:
    """(S, k) ascending ranks of the set bits of each mask (each has exactly ``k``)."""
    bits = (masks[:, None] >> np.arange(n)) & 1
    rows, cols = np.nonzero(bits)
    return cols.reshape(len(masks), k)


def prize_values(ranks: np.ndarray) -> np.ndarray:
    return ranks + 2


class PublicTree:
    """Every reachable public state of a 2-player game, level by level, with transitions."""

    def __init__(self, cards_per_suit: int, tie_rule: str = "discard") -> None:
        if tie_rule not in TIE_RULES:
            raise ValueError(f"tie_rule must be one of {TIE_RULES}, got {tie_rule!r}")
        self.n = n = cards_per_suit
        self.tie_rule = tie_rule
        full = (1 << n) - 1
        self.levels: dict[int, Level] = {}
        a = b = p = np.array([full], dtype=np.int64)
        c = np.zeros(1, dtype=np.int64)
        for k in range(n, 0, -1):
            level = self._level(k, a, b, p, c)
            self.levels[k] = level
            if k > 1:
                a, b, p, c = self._expand(level)

    def pack(self, a, b, p, c):
        n = self.n
        return a | (b << n) | (p << (2 * n)) | (c << (3 * n))

    def _level(self, k, a, b, p, c) -> Level:
        n = self.n
        keys = self.pack(a, b, p, c)
        order = np.argsort(keys)
        a, b, p, c, keys = a[order], b[order], p[order], c[order], keys[order]
        ar, br, pr = ranks_of(a, n, k), ranks_of(b, n, k), ranks_of(p, n, k)
        carried = ((c[:, None] >> np.arange(n)) & 1) @ prize_values(np.arange(n))
        sign = np.sign(ar[:, :, None] - br[:, None, :])  # (S, k, k)
        pot = prize_values(pr) + carried[:, None]  # (S, k)
        reward = sign[:, :, :, None] * pot[:, None, None, :]
        return Level(k, a, b, p, c, keys, ar, br, pr, reward.astype(np.float64))

    def _expand(self, lv: Level):
        """The states of level k-1, and each transition's child index into them."""
        k = lv.k
        bit_a = (np.int64(1) << lv.a_ranks)[:, :, None, None]
        bit_b = (np.int64(1) << lv.b_ranks)[:, None, :, None]
        bit_p = (np.int64(1) << lv.p_ranks)[:, None, None, :]
        shape = (lv.size, k, k, k)
        ca = np.broadcast_to(lv.a[:, None, None, None] ^ bit_a, shape)
        cb = np.broadcast_to(lv.b[:, None, None, None] ^ bit_b, shape)
        cp = np.broadcast_to(lv.p[:, None, None, None] ^ bit_p, shape)
        if self.tie_rule == "carry":
            tie = (lv.a_ranks[:, :, None] == lv.b_ranks[:, None, :])[:, :, :, None]
            cc = np.where(tie, lv.c[:, None, None, None] | bit_p, 0)
            cc = np.broadcast_to(cc, shape)
        else:
            cc = np.zeros(shape, dtype=np.int64)
        keys = self.pack(ca, cb, cp, cc).reshape(-1)
        uniq, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        lv.child = inverse.reshape(shape)
        lv.first = first
        flat = first
        return (ca.reshape(-1)[flat], cb.reshape(-1)[flat], cp.reshape(-1)[flat],
                cc.reshape(-1)[flat])

    @property
    def num_states(self) -> int:
        return sum(lv.size for lv in self.levels.values())

    def find(self, k: int, a: int, b: int, p: int, c: int) -> int:
        """Index of a state in level ``k``; KeyError if it is not reachable."""
        lv = self.levels[k]
        key = int(self.pack(np.int64(a), np.int64(b), np.int64(p), np.int64(c)))
        i = int(np.searchsorted(lv.keys, key))
        if i >= lv.size or int(lv.keys[i]) != key:
            raise KeyError(f"no reachable state a={a:b} b={b:b} p={p:b} c={c:b} at k={k}")
        return i

    def stage_matrices(self, k: int, values_below: np.ndarray | None) -> np.ndarray:
        """(S, k, k) matrix games of level ``k`` given the values of level k-1 (row = seat 0)."""
        lv = self.levels[k]
        total = lv.reward if values_below is None else lv.reward + values_below[lv.child]
        return total.mean(axis=3)


# ----------------------------------------------------------------- solving
_EPS = 1e-9  # pivots on smaller entries are round-off noise


def solve_matrix_game(m: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """An exact equilibrium (x, y, value) of a zero-sum matrix game; the row maximises.

    The textbook reduction to one linear program: shift the matrix so every
    entry is at least 1 (value v > 0), then the column player's
    ``max sum(w) s.t. A w <= 1, w >= 0`` has the slack basis as a feasible
    start (no phase one), its optimum is ``1 / v`` with ``y = w v``, and the
    row player's ``x = u v`` is read from the duals ``u`` in the final
    tableau. A dense tableau simplex with Bland's rule (no cycling on the
    degenerate games this game is full of); the games have at most 13 rows.
    """
    k1, k2 = m.shape
    shift = 1.0 - float(m.min())
    t = np.zeros((k1 + 1, k2 + k1 + 1))
    t[:k1, :k2] = m + shift
    t[:k1, k2:k2 + k1] = np.eye(k1)
    t[:k1, -1] = 1.0
    t[-1, :k2] = -1.0
    basis = list(range(k2, k2 + k1))
    while True:
        entering = np.flatnonzero(t[-1, :-1] < -_EPS)
        if not len(entering):
            break
        j = int(entering[0])
        column = t[:k1, j]
        rows = np.flatnonzero(column > _EPS)
        ratios = t[rows, -1] / column[rows]
        best = ratios.min()
        ties = rows[ratios <= best + _EPS]
        i = int(min(ties, key=lambda r: basis[r]))
        t[i] /= t[i, j]
        others = t[:, j].copy()
        others[i] = 0.0
        t -= np.outer(others, t[i])
        basis[i] = j
    w = np.zeros(k2)
    for i, var in enumerate(basis):
        if var < k2:
            w[var] = t[i, -1]
    v = 1.0 / t[-1, -1]
    x = np.maximum(t[-1, k2:k2 + k1], 0.0) * v
    y = np.maximum(w, 0.0) * v
    return x / x.sum(), y / y.sum(), v - shift


def solve_matrix_games(m: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``solve_matrix_game`` over a batch (S, k, k), each distinct game solved once.

    Many states share a game up to a positive scale (with ``discard`` the
    prizes only scale the game), so games are normalised by their largest
    entry and deduplicated before solving.
    """
    s, k, _ = m.shape
    if k == 1:
        return np.ones((s, 1)), np.ones((s, 1)), m[:, 0, 0].copy()
    scale = np.abs(m).reshape(s, -1).max(1)
    scale[scale == 0] = 1.0
    normal = np.round(m / scale[:, None, None], 12).reshape(s, -1)
    uniq, inverse = np.unique(normal, axis=0, return_inverse=True)
    xs, ys, vs = np.empty((len(uniq), k)), np.empty((len(uniq), k)), np.empty(len(uniq))
    for u, game in enumerate(uniq):
        xs[u], ys[u], vs[u] = solve_matrix_game(game.reshape(k, k))
    inverse = inverse.reshape(-1)
    return xs[inverse], ys[inverse], vs[inverse] * scale


@dataclass
class Solution:
    """Equilibrium of every public state: values (seat 0 minus seat 1) and both seats' mixes."""

    tree: PublicTree
    values: dict[int, np.ndarray]  # k -> (S,)
    row: dict[int, np.ndarray]  # k -> (S, k) seat 0's mix over its ranks, ascending
    col: dict[int, np.ndarray]  # k -> (S, k) seat 1's mix

    @property
    def value(self) -> float:
        """The game's value for seat 0 (0 by symmetry)."""
        return float(self.values[self.tree.n][0])


def solve(tree: PublicTree) -> Solution:
    """Backward induction: each level's matrix games solved exactly given the level below."""
    values, row, col = {}, {}, {}
    below = None
    for k in range(1, tree.n + 1):
        m = tree.stage_matrices(k, below)
        row[k], col[k], values[k] = solve_matrix_games(m)
        below = values[k]
    return Solution(tree, values, row, col)


def best_response(tree: PublicTree, row: dict[int, np.ndarray] | None = None,
                  col: dict[int, np.ndarray] | None = None) -> float:
    """Value for seat 0 when one seat plays the given per-state mixes and the other
    best-responds: give ``col`` (seat 1's mixes) to get seat 0's best response value,
    or ``row`` (seat 0's mixes) to get the value seat 1's best response holds seat 0 to."""
    if (row is None) == (col is None):
        raise ValueError("give the mixes of exactly one seat (row or col)")
    below: np.ndarray | None = None
    for k in range(1, tree.n + 1):
        m = tree.stage_matrices(k, below)
        if col is not None:
            below = np.einsum("sij,sj->si", m, col[k]).max(1)
        else:
            assert row is not None  # one of the two
            below = np.einsum("si,sij->sj", row[k], m).min(1)
    assert below is not None  # a tree has a level per card
    return float(below[0])
