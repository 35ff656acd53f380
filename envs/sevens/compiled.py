"""Sevens' compiled batched core: N games as arrays, stepped in numba loops.

The engine (``cardrl.envs.sevens.engine``) stays the rules' reference; this core plays
exactly its games and writes the information state (``cardrl.envs.sevens.infostate``, the
points of each play and of its best reply included) of the seat to act and its mask
in place. A game starts from its seed as
``SevensState(rules, seed)`` does: the parameters drawn (``rules.draw_parameters``,
by ``cardrl.envs.compiled_draws``) and the deck dealt from the same generator. Hands and the
cards each seat played are bit sets of card ids; the scoring is
``cardrl.envs.sevens.points`` (the scoring and the points of each play).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardrl.envs import cards, compiled_rng
from cardrl.envs.compiled import (
    INLINE,
    KERNEL,
    POINTS,
    RESTART,
    TOTALS,
    WINNERS,
    Core,
    begin,
    blank,
    clear,
    low_bit,
    record,
    set_bits,
    settle,
)
from cardrl.envs.compiled_draws import MAX_RANGE, integers, random
from cardrl.envs.sevens import infostate as info
from cardrl.envs.sevens.actions import NUM_CARDS
from cardrl.envs.sevens.points import points_at
from cardrl.envs.sevens.points import write as points_write
from cardrl.envs.sevens.rules import MIN_PLAYERS, NUM_SYMBOLS, POINT_KINDS, SevensRules

_RED = np.int64(sum(1 << c for c in range(NUM_CARDS)
                    if cards.suit_of(c) in (cards.DIAMONDS, cards.HEARTS)))
_BLACK = np.int64(((1 << NUM_CARDS) - 1) ^ _RED)
_SUIT = np.array([((1 << NUM_SYMBOLS) - 1) << (NUM_SYMBOLS * s)
                  for s in range(NUM_CARDS // NUM_SYMBOLS)], dtype=np.int64)
NUM_POINTS = len(POINT_KINDS)  # the three point amounts
VALUE_SLOTS, MOD, DIGITS = info.VALUE_SLOTS, info.MOD, info.DIGITS

# the columns of ``nums[i]``, one row of numbers per game
(CUR,  # the seat to play (-1: over)
 TOTAL,  # the running total
 LAST,  # the last card placed
 LAST_BY,  # the seat that placed it (_P: the table)
 PLAYS,  # plays made
 ON_TABLE) = range(6)  # every card on the table, as a bit set
NUM_COLUMNS = 6
# the rules as numbers: these entries (fixed values / points: 1 if the rules fix them)
(R_N, R_K, R_VALUE_MIN, R_VALUE_MAX, R_POINTS_MIN, R_POINTS_MAX, R_FIXED_VALUES,
 R_FIXED_POINTS) = range(8)
# ``st``, the core's arrays: these entries
(S_RULES, S_CHANCE, S_FIXED_VALUES, S_FIXED_COUNTS, S_FIXED_POINTS, S_NUMS, S_VALUES,
 S_COUNTS, S_POINTS, S_GAME_BLOCK, S_HANDS, S_PLAYED, S_SCORES) = range(13)
_P = info.P  # per-seat slots of the information state


@njit(inline="always")
def _clip(x):
    return info.CLIP if x > info.CLIP else -info.CLIP if x < -info.CLIP else x


@njit(**INLINE)
def playable(hand, last):
    """``engine.playable_cards`` as bit sets: the other colour, else another suit, else any."""
    other = hand & (_BLACK if (_RED >> last) & 1 else _RED)
    if other:
        return other
    other = hand & ~_SUIT[last // NUM_SYMBOLS]
    return other if other else hand


@njit(**KERNEL)  # once per deal: a call, compiled once for every caller
def _new_game(st, d, i):
    """``begin`` row ``i``'s next episode; draw and deal it as ``SevensState(rules, seed)``."""
    begin(d, i)
    r, nums = st[S_RULES], st[S_NUMS]
    g = d.rng[i]
    values, counts, points = st[S_VALUES][i], st[S_COUNTS][i], st[S_POINTS][i]
    lo, hi = r[R_VALUE_MIN], r[R_VALUE_MAX]
    for s in range(NUM_SYMBOLS):  # rules.draw_parameters
        values[s, 0] = integers(g, lo, hi + 1)
        counts[s] = 1
        if lo < hi and random(g) < st[S_CHANCE][0]:
            second = integers(g, lo, hi)
            values[s, 1] = second + (second >= values[s, 0])
            counts[s] = 2
    for j in range(NUM_POINTS):
        points[j] = integers(g, r[R_POINTS_MIN], r[R_POINTS_MAX] + 1)
    if r[R_FIXED_VALUES]:
        fixed, fixed_counts = st[S_FIXED_VALUES], st[S_FIXED_COUNTS]
        for s in range(NUM_SYMBOLS):
            values[s, 0], values[s, 1], counts[s] = fixed[s, 0], fixed[s, 1], fixed_counts[s]
    if r[R_FIXED_POINTS]:
        for j in range(NUM_POINTS):
            points[j] = st[S_FIXED_POINTS][j]
    n, k = r[R_N], r[R_K]
    perm = d.scratch[:NUM_CARDS]
    compiled_rng.permutation(g, perm)  # cards.deal
    for s in range(n):
        m = np.int64(0)
        for j in range(k * s, k * (s + 1)):
            m |= np.int64(1) << np.int64(perm[j])
        st[S_HANDS][i, s] = m
        st[S_PLAYED][i, s] = 0
        st[S_SCORES][i, s] = 0
    total = 0
    table = np.int64(0)
    for j in range(n * k, NUM_CARDS):  # the table cards, at their first value
        c = np.int64(perm[j])
        total += values[c % NUM_SYMBOLS, 0]
        table |= np.int64(1) << c
    nums[i, CUR] = 0
    nums[i, TOTAL] = total
    nums[i, LAST] = np.int64(perm[NUM_CARDS - 1])
    nums[i, LAST_BY] = _P
    nums[i, PLAYS] = 0
    nums[i, ON_TABLE] = table
    _game_block(st, i)


@njit(**INLINE)
def _game_block(st, i):
    """``infostate._game_block``: the player count, values and points of game ``i``."""
    out = st[S_GAME_BLOCK][i]
    for j in range(out.shape[0]):
        out[j] = 0.0
    out[info._NP + st[S_RULES][R_N] - MIN_PLAYERS] = 1.0
    values, counts = st[S_VALUES][i], st[S_COUNTS][i]
    for s in range(NUM_SYMBOLS):
        out[info._VALUES + VALUE_SLOTS * s] = _clip(values[s, 0] / info.VALUE_SCALE)
        if counts[s] == 2:
            out[info._VALUES + VALUE_SLOTS * s + 1] = _clip(values[s, 1] / info.VALUE_SCALE)
            out[info._VALUES + VALUE_SLOTS * s + 2] = 1.0
    for j in range(NUM_POINTS):
        out[info._POINTS + j] = _clip(st[S_POINTS][i, j] / info.POINT_SCALE)


@njit(**INLINE)
def _write_row(st, d, i):
    """Row ``i``'s observation (``infostate.encode`` of the seat to act's view), mask, seat."""
    nums = st[S_NUMS]
    me = nums[i, CUR]
    if not d.live[i] or me < 0:
        clear(d, i)
        return
    r = st[S_RULES]
    n = r[R_N]
    d.seats[i] = me
    blank(d, i)
    row = d.obs[i]
    block = st[S_GAME_BLOCK][i]
    for j in range(info._TOTAL):
        row[j] = block[j]
    total = nums[i, TOTAL]
    row[info._TOTAL] = _clip(total / info.TOTAL_SCALE)
    t = abs(total)
    if total < 0:
        row[info._NEG] = 1.0
    row[info._MOD7 + total % MOD] = 1.0
    row[info._UNITS + t % DIGITS] = 1.0
    row[info._TENS + t // DIGITS % DIGITS] = 1.0
    while t:
        if t % 10 == 7:  # a digit 7
            row[info._HAS7] = 1.0
            break
        t //= 10
    row[info._LAST + nums[i, LAST]] = 1.0
    by = nums[i, LAST_BY]
    row[info._LAST_BY + (_P if by == _P else (by - me) % n)] = 1.0
    set_bits(row, info._ON_TABLE, nums[i, ON_TABLE])
    hands = st[S_HANDS]
    for s in range(n):
        rel = (s - me) % n
        set_bits(row, info._PLAYED + NUM_CARDS * rel, st[S_PLAYED][i, s])
        row[info._SCORES + rel] = _clip(st[S_SCORES][i, s] / info.SCORE_SCALE)
        size = 0
        h = hands[i, s]
        while h:
            h &= h - 1
            size += 1
        row[info._SIZES + rel] = size / info.MAX_HAND
        row[info._SEATED + rel] = 1.0
    set_bits(row, info._HAND, hands[i, me])
    row[info._TO_ACT] = 1.0
    row[info._PROGRESS] = nums[i, PLAYS] / (n * r[R_K])
    counts, values, points = st[S_COUNTS][i], st[S_VALUES][i], st[S_POINTS][i]
    points_write(row, info._PLAY_POINTS, info._REPLY_POINTS, info.POINT_SCALE, info.CLIP,
                 total, hands[i, me], nums[i, ON_TABLE], values, counts, points)
    mask = d.masks[i]
    may = playable(hands[i, me], nums[i, LAST])
    while may:
        c = low_bit(may)
        mask[2 * c] = True
        if counts[c % NUM_SYMBOLS] == 2:
            mask[2 * c + 1] = True
        may &= may - 1


@njit(**KERNEL)
def write(st, d, rows):
    for i in rows:
        _write_row(st, d, i)


@njit(**KERNEL)
def start(st, d, rows):
    for i in rows:
        _new_game(st, d, i)
    write(st, d, rows)  # a call, not a second inlined copy of the row writer (compile time)
    return 0


@njit(**KERNEL)
def step(st, d, idx, acts, rewards, dones):
    """``engine.SevensState.apply`` of each legal ``acts[k]`` in game ``idx[k]``."""
    r, nums, scores = st[S_RULES], st[S_NUMS], st[S_SCORES]
    n = r[R_N]
    hand = d.hand  # the game's points, totals and winners, for ``settle``
    flags = 0
    for k in range(idx.shape[0]):
        i = idx[k]
        if not d.live[i]:
            continue
        a = acts[k]
        flags |= record(d, i, a)
        seat = nums[i, CUR]
        card = a >> 1
        nums[i, TOTAL] += st[S_VALUES][i, card % NUM_SYMBOLS, a & 1]
        scores[i, seat] += points_at(nums[i, TOTAL], st[S_POINTS][i])
        bit = np.int64(1) << card
        st[S_HANDS][i, seat] ^= bit
        st[S_PLAYED][i, seat] |= bit
        nums[i, ON_TABLE] |= bit
        nums[i, LAST] = card
        nums[i, LAST_BY] = seat
        nums[i, PLAYS] += 1
        if nums[i, PLAYS] < n * r[R_K]:
            nums[i, CUR] = (seat + 1) % n
        else:  # every hand is empty: the game (one hand) is over
            top = scores[i, 0]
            for s in range(1, n):
                top = max(top, scores[i, s])
            for s in range(n):
                hand[POINTS, s] = hand[TOTALS, s] = scores[i, s]
                hand[WINNERS, s] = 1.0 if scores[i, s] == top else 0.0
            if settle(d, i, k, True, rewards, dones) == RESTART:
                _new_game(st, d, i)
            else:
                nums[i, CUR] = -1
        _write_row(st, d, i)
    return flags


class SevensCore(Core):
    """Sevens for every player count and preset, information state only (``supports``)."""

    start = staticmethod(start)
    step = staticmethod(step)
    write = staticmethod(write)

    def supports(self, rules: SevensRules, kind: str) -> str | None:
        if kind != "infostate":
            return (f"the {kind!r} observation is not compiled: it scores every expected "
                    f"reply (envs.sevens.reply)")
        for lo, hi in (("value_min", "value_max"), ("points_min", "points_max")):
            width = getattr(rules, hi) - getattr(rules, lo) + 1
            if width > MAX_RANGE:
                return f"{lo}..{hi} spans {width} values; the compiled draws take up to 2**32"
        return None

    def arrays(self, rules: SevensRules, num_games: int, kind: str) -> tuple:
        n, p = num_games, rules.num_players
        fixed_values = np.zeros((NUM_SYMBOLS, 2), np.int64)
        fixed_counts = np.ones(NUM_SYMBOLS, np.int64)
        for s, vals in enumerate(rules.values or ()):
            fixed_values[s, :len(vals)] = vals
            fixed_counts[s] = len(vals)
        rules_row = np.array([p, rules.hand_size, rules.value_min, rules.value_max,
                              rules.points_min, rules.points_max, rules.values is not None,
                              rules.points is not None], dtype=np.int64)
        return (rules_row, np.array([rules.second_value_chance], np.float64), fixed_values,
                fixed_counts, np.array(rules.points or (0,) * NUM_POINTS, np.int64),
                np.zeros((n, NUM_COLUMNS), np.int64), np.zeros((n, NUM_SYMBOLS, 2), np.int64),
                np.ones((n, NUM_SYMBOLS), np.int64), np.zeros((n, NUM_POINTS), np.int64),
                np.zeros((n, info._TOTAL), np.float32), np.zeros((n, p), np.int64),
                np.zeros((n, p), np.int64), np.zeros((n, p), np.int64))

    def load(self, st: tuple, i: int, state) -> None:
        """Row ``i`` := ``state`` (an engine state, perhaps of a given deal)."""
        nums = st[S_NUMS]
        for s, vals in enumerate(state.params.values):
            st[S_VALUES][i, s, :len(vals)] = vals
            st[S_COUNTS][i, s] = len(vals)
        st[S_POINTS][i] = state.params.points
        nums[i, CUR] = -1 if state.current_player is None else state.current_player
        nums[i, TOTAL], nums[i, LAST] = state.total, state.last_card
        nums[i, LAST_BY] = state.plays[-1][0] if state.plays else _P
        nums[i, PLAYS] = len(state.plays)
        on_table = sum(1 << c for c in state.table)
        st[S_PLAYED][i] = 0
        for seat, card, _ in state.plays:
            st[S_PLAYED][i, seat] |= 1 << card
            on_table |= 1 << card
        nums[i, ON_TABLE] = on_table
        for s in range(state.num_players):
            st[S_HANDS][i, s] = sum(1 << c for c in state.hands[s])
            st[S_SCORES][i, s] = state.scores[s]
        _game_block(st, i)


CORE = SevensCore()
