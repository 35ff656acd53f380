"""Gin Rummy's compiled batched core: N games as arrays, stepped in numba loops.

The engine (``cardrl.envs.gin_rummy.engine``) stays the rules' reference; this core plays
exactly its games (deals from the same seeds, the same legal sets, scores and
episode ends) and writes the information state (``cardrl.envs.gin_rummy.infostate``) of
the seat to act and its mask in place. The meld solver is ``cardrl.envs.gin_rummy.melds``'
search without its memo (``cardrl.envs.gin_rummy.meld_kernels``), and a knock is
scored as ``cardrl.envs.gin_rummy.scoring.settle_knock`` scores it (best splits in the
same order, layoffs). Per game: the generator row (``cardrl.envs.compiled_rng``: later hands are
dealt from it as the engine deals them), the hands, the pile and stock, the
per-seat card sets and one row of numbers (``NUM_COLUMNS``).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros

from cardrl.envs import compiled_rng
from cardrl.envs.compiled import (
    GOES_ON,
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
from cardrl.envs.compiled_draws import integers
from cardrl.envs.gin_rummy.actions import (
    DISCARD_OFFSET,
    DRAW_STOCK,
    KNOCK_OFFSET,
    TAKE_DISCARD,
)
from cardrl.envs.gin_rummy.infostate import (
    CARDS,
    DEADWOOD_SCALE,
    HAND_NUMBER_SCALE,
    PHASES,
    READY_LIMIT,
    RULE_ENTRIES,
    SCORE_CLIP,
    layout,
    rule_values,
)
from cardrl.envs.gin_rummy.meld_kernels import (
    ALL_CARDS,
    CARD_BIT,
    INDEX_CARD,
    INDEX_VALUE,
    RANK_MASK,
    card_mask,
    count_bits,
    deadwood,
    knock_cards,
    meldable,
    melded,
    stock_outlook,
    take_deadwood,
    write_discards,
    write_outlook,
)
from cardrl.envs.gin_rummy.rules import HAND_SIZE, GinRummyRules

MAX_SPLITS = 256  # best splits kept per knock (a 10-card hand has a handful)


def scratch() -> tuple:
    """Working space of the knock scoring (numba's kernels here allocate nothing): the best
    splits and their sizes, the search's stack and children, layoff options, small rows."""
    return (np.zeros((MAX_SPLITS, 4), np.int64), np.zeros(MAX_SPLITS, np.int64),
            np.zeros((_STACK, K_MELDS + _DEPTH), np.int64),
            np.zeros((C_VALUE + 1, 16), np.int64),
            np.zeros((4, 64), np.int64), np.zeros((8, 16), np.int64))


_STACK = 256  # entries of the split search's stack
_DEPTH = 8  # the melds a stack entry can hold
W_SPLITS, W_COUNTS, W_STACK, W_KIDS, W_OPTIONS, W_SMALL = range(6)
# the columns of a stack entry: the hand left, the value still to meld, the depth, then the
# melds chosen (one per depth)
K_HAND, K_NEED, K_DEPTH, K_MELDS = range(4)
# the rows of ``W_KIDS``, per child of an entry: the hand left, the meld chosen (0: none),
# its value
C_HAND, C_MELD, C_VALUE = range(3)
# rows of W_SMALL: run ends below and above a meld, option counts, the odometer, deadwood
# per seat, a split's trial deadwood, the path of melds chosen
BELOW, ABOVE, SIZES, PICK, DWS, TRIAL, PATH = range(7)


@njit(cache=True, _nrt=False)
def best_splits(m, w):
    """Fill ``w[W_SPLITS][k, :w[W_COUNTS][k]]`` with ``melds.best_splits(m)``, in its order;
    return how many (at most ``MAX_SPLITS``). The same depth-first search with a stack
    (numba's cache cannot load a recursive function with array arguments): each entry
    the hand left, the value still to meld, the depth and the melds chosen; its children
    pushed in reverse."""
    splits, counts, stack, kids, path = w[W_SPLITS], w[W_COUNTS], w[W_STACK], w[W_KIDS], \
        w[W_SMALL][PATH]
    stack[0, K_HAND], stack[0, K_NEED], stack[0, K_DEPTH] = m, melded(meldable(m)), 0
    top = 1
    found = 0
    while top and found < splits.shape[0]:
        top -= 1
        h, need, depth = meldable(stack[top, K_HAND]), stack[top, K_NEED], stack[top, K_DEPTH]
        if need == 0 or h == 0:
            for j in range(depth):
                splits[found, j] = stack[top, K_MELDS + j]
            counts[found] = depth
            found += 1
            continue
        x = h & -h
        nk = 0
        if melded(h ^ x) == need:  # the lowest card is deadwood ...
            kids[C_HAND, nk], kids[C_MELD, nk], kids[C_VALUE, nk] = h ^ x, 0, 0
            nk += 1
        i = low_bit(x)
        v = INDEX_VALUE[i]
        if (h >> (i + 1)) & 3 == 3:  # ... or starts a run ...
            run = x | (x << 1) | (x << 2)
            value = v + INDEX_VALUE[i + 1] + INDEX_VALUE[i + 2]
            j = i + 2
            while True:
                if value + melded(h ^ run) == need:
                    kids[C_HAND, nk], kids[C_MELD, nk], kids[C_VALUE, nk] = h ^ run, run, value
                    nk += 1
                j += 1
                if not (h >> j) & 1:
                    break
                run |= np.int64(1) << j
                value += INDEX_VALUE[j]
        same = h & RANK_MASK[i & 15]  # ... or is in a set
        k = count_bits(same)
        if k >= 3:
            if k * v + melded(h ^ same) == need:
                kids[C_HAND, nk], kids[C_MELD, nk], kids[C_VALUE, nk] = h ^ same, same, k * v
                nk += 1
            if k == 4:
                rest = same ^ x
                while rest:
                    y = rest & -rest
                    rest ^= y
                    if 3 * v + melded(h ^ same ^ y) == need:
                        kids[C_HAND, nk], kids[C_MELD, nk], kids[C_VALUE, nk] = (
                            h ^ same ^ y, same ^ y, 3 * v)
                        nk += 1
        for j in range(depth):
            path[j] = stack[top, K_MELDS + j]
        for c in range(nk - 1, -1, -1):
            stack[top, K_HAND], stack[top, K_NEED] = kids[C_HAND, c], need - kids[C_VALUE, c]
            for j in range(depth):
                stack[top, K_MELDS + j] = path[j]
            if kids[C_MELD, c]:
                stack[top, K_MELDS + depth] = kids[C_MELD, c]
                stack[top, K_DEPTH] = depth + 1
            else:
                stack[top, K_DEPTH] = depth
            top += 1
    return found


@njit(cache=True, _nrt=False)
def _layoff_choices(meld, hand, out, below, above):
    """``melds.layoff_choices``: the masks laid off together onto ``meld`` (0 first)."""
    i = low_bit(meld)
    rank = RANK_MASK[i & 15]
    out[0] = 0
    if meld & rank == meld:  # a set: its missing fourth card
        fourth = rank & ~meld
        if fourth and hand & fourth:
            out[1] = fourth
            return 2
        return 1
    below[0] = above[0] = 0
    nb = na = 1
    low = meld & -meld
    while True:
        low >>= 1
        if not (low and hand & low):
            break
        below[nb] = below[nb - 1] | low
        nb += 1
    high = np.int64(1) << (63 - np.int64(leading_zeros(meld)))
    while True:
        high <<= 1
        if not (high and hand & high):
            break
        above[na] = above[na - 1] | high
        na += 1
    k = 0
    for b in range(nb):
        for a in range(na):
            out[k] = below[b] | above[a]
            k += 1
    return k


@njit(cache=True, _nrt=False)
def layoff_deadwood(hand, split, count, w):
    """``melds.layoff_deadwood(hand, split[:count])[0]``: the least deadwood left once
    ``hand`` lays cards off onto the melds (each card onto one)."""
    options, small = w[W_OPTIONS], w[W_SMALL]
    sizes, pick = small[SIZES], small[PICK]
    for k in range(count):
        sizes[k] = _layoff_choices(split[k], hand, options[k], small[BELOW], small[ABOVE])
        pick[k] = 0
    best = deadwood(hand)
    while True:
        laid = np.int64(0)
        ok = True
        for k in range(count):
            part = options[k, pick[k]]
            if laid & part:
                ok = False
                break
            laid |= part
        if ok and laid:
            d = deadwood(hand ^ laid)
            if d < best:
                best = d
        k = count - 1  # the next combination (odometer)
        while k >= 0:
            pick[k] += 1
            if pick[k] < sizes[k]:
                break
            pick[k] = 0
            k -= 1
        if k < 0:
            return best


@njit(cache=True, _nrt=False)
def settle_knock(hands, n, knocker, layoff, knocker_wins_ties, gin_bonus, undercut_bonus, points,
                 w):
    """``scoring.settle_knock``'s winner and points (into ``points``) for masks ``hands``;
    ``w`` is ``scratch()``."""
    own = deadwood(hands[knocker])
    gin = own == 0
    dws, trial = w[W_SMALL][DWS], w[W_SMALL][TRIAL]
    for s in range(n):
        dws[s] = deadwood(hands[s])
    if layoff and not gin:
        found = best_splits(hands[knocker], w)
        best_total = -1
        splits, counts = w[W_SPLITS], w[W_COUNTS]
        for k in range(found):
            total = 0
            for s in range(n):
                trial[s] = own if s == knocker else layoff_deadwood(hands[s], splits[k],
                                                                    counts[k], w)
                total += trial[s]
            if total > best_total:
                best_total = total
                for s in range(n):
                    dws[s] = trial[s]
    low = dws[0]
    total = 0
    for s in range(n):
        low = min(low, dws[s])
        total += dws[s]
    ties = 0
    for s in range(n):
        ties += dws[s] == low
    if dws[knocker] == low and (gin or knocker_wins_ties or ties == 1):
        winner = knocker
    else:
        winner = knocker
        for k in range(1, n):
            s = (knocker + k) % n
            if dws[s] == low:
                winner = s
                break
    won = total - 2 * dws[winner]
    if winner == knocker and gin:
        won += gin_bonus
    if winner != knocker:
        won += undercut_bonus
    for s in range(n):
        points[s] = 0
    points[winner] = won
    return winner


# ------------------------------------------------------------------ games
# the columns of ``nums[i]``, one row of numbers per game
(CUR,  # the seat to act
 PHASE,  # DRAW, DISCARD or OVER
 TAKEN,  # the card the seat to act took from the pile this turn (-1: none)
 DRAWN,  # the card it drew this turn (-1: none)
 MOVES,  # moves made this hand
 DEALER,
 HAND_NO,  # the hand number, from 1
 PILE_N,  # cards in the discard pile (``st[S_PILE][i]``, bottom first)
 STOCK_N,  # cards in the stock (``st[S_STOCK][i]``, top last)
 PILE_SET) = range(10)  # the cards in the pile, as a bit set
NUM_COLUMNS = 10
# phases: the entries of the ``phase`` block, then the end
DRAW, DISCARD = PHASES.index("draw"), PHASES.index("discard")
OVER = len(PHASES)
RULE_WIDTH = len(RULE_ENTRIES)  # the ``rules`` block
# the rules as ints (-1 for None): these entries
(R_N, R_KNOCK, R_NO_TAKEN, R_DEAD_STOCK, R_KNOCKER_TIES, R_GIN, R_UNDERCUT, R_LAYOFF, R_TARGET,
 R_MAX_HANDS, R_MAX_MOVES, R_STOCK_SIZE, R_FIRST_DEALER) = range(13)
# the information state's blocks, whose offsets ``o`` holds in this order (-1: none)
BLOCKS = ("phase", "hand", "taken", "pile_top", "pile", "known", "picked", "discarded",
          "stock_size", "to_act", "dealer", "scores", "hand_number", "rules", "deadwood",
          "discard_deadwood", "discard_gin", "take_deadwood", "discard_outlook",
          "discard_ready", "discard_gin_ready", "stock_outlook")
(O_PHASE, O_HAND, O_TAKEN, O_TOP, O_PILE, O_KNOWN, O_PICKED, O_DISCARDED, O_STOCK, O_TO_ACT,
 O_DEALER, O_SCORES, O_HAND_NO, O_RULES, O_DEADWOOD, O_DISCARD_DW, O_DISCARD_GIN,
 O_TAKE_DW, O_OUTLOOK, O_READY, O_GIN_READY, O_STOCK_OUTLOOK) = range(len(BLOCKS))
# ``st``, the core's arrays: these entries (S_W*: the arrays of ``scratch()``)
(S_RULES, S_OFFSETS, S_RULES_BLOCK, S_NUMS, S_HANDS, S_KNOWN, S_PICKED, S_DISCARDED, S_PILE,
 S_STOCK, S_SCORES, S_POINTS, S_W0, S_W1, S_W2, S_W3, S_W4, S_W5) = range(18)


def _rules_row(rules: GinRummyRules) -> np.ndarray:
    def opt(x):
        return -1 if x is None else int(x)
    return np.array([rules.num_players, opt(rules.knock_limit), rules.no_discard_of_taken,
                     rules.dead_stock, rules.knocker_wins_ties, rules.gin_bonus,
                     rules.undercut_bonus, rules.layoff, rules.target, opt(rules.max_hands),
                     opt(rules.max_moves), rules.stock_size, opt(rules.first_dealer)],
                    dtype=np.int64)


def _rules_block(rules: GinRummyRules) -> np.ndarray:
    """The information state's ``rules`` block (``infostate.rule_values``), fixed for a
    game."""
    return np.array(rule_values(rules), dtype=np.float32)


@njit(**KERNEL)  # once per deal: a call, compiled once for every caller
def _deal(st, i, g, d_scratch):
    """Game ``i``'s next hand from generator ``g``, as ``engine._start_hand`` deals it
    (the deck's order in the driver's ``d_scratch``)."""
    r, nums = st[S_RULES], st[S_NUMS]
    n = r[R_N]
    perm = d_scratch[:CARDS]
    compiled_rng.permutation(g, perm)
    for s in range(n):
        m = np.int64(0)
        for k in range(HAND_SIZE * s, HAND_SIZE * (s + 1)):
            m |= CARD_BIT[np.int64(perm[k])]
        st[S_HANDS][i, s] = m
        st[S_KNOWN][i, s] = st[S_PICKED][i, s] = st[S_DISCARDED][i, s] = 0
    first = HAND_SIZE * n
    up = np.int64(perm[first])
    st[S_PILE][i, 0] = up  # the up card
    nums[i, PILE_N] = 1
    nums[i, PILE_SET] = np.int64(1) << up
    k = 0
    for j in range(CARDS - 1, first, -1):  # the stock, top last
        st[S_STOCK][i, k] = np.int64(perm[j])
        k += 1
    nums[i, STOCK_N] = k
    nums[i, HAND_NO] += 1
    nums[i, CUR] = (nums[i, DEALER] + 1) % n
    nums[i, PHASE] = DRAW
    nums[i, TAKEN] = nums[i, DRAWN] = -1
    nums[i, MOVES] = 0


@njit(**KERNEL)  # once per deal: a call, compiled once for every caller
def _new_game(st, d, i):
    """``begin`` row ``i``'s next episode and deal it as ``GinRummyState(rules, seed)``."""
    begin(d, i)
    r, nums = st[S_RULES], st[S_NUMS]
    g = d.rng[i]
    for c in range(nums.shape[1]):
        nums[i, c] = 0
    nums[i, DEALER] = integers(g, 0, r[R_N]) if r[R_FIRST_DEALER] < 0 else r[R_FIRST_DEALER]
    for s in range(r[R_N]):
        st[S_SCORES][i, s] = 0
    _deal(st, i, g, d.scratch)


@njit(**INLINE)
def _write_row(st, d, i):
    """Row ``i``'s observation (``infostate.encode`` of the seat to act's view), mask, seat."""
    nums = st[S_NUMS]
    if not d.live[i] or nums[i, PHASE] == OVER:
        clear(d, i)
        return
    r, o = st[S_RULES], st[S_OFFSETS]
    n = r[R_N]
    me = nums[i, CUR]
    d.seats[i] = me
    phase = nums[i, PHASE]
    blank(d, i)
    row = d.obs[i]
    row[o[O_PHASE] + phase] = 1.0
    h = st[S_HANDS][i, me]
    rest = h
    while rest:
        row[o[O_HAND] + INDEX_CARD[low_bit(rest)]] = 1.0
        rest &= rest - 1
    taken = nums[i, TAKEN]
    if taken >= 0:
        row[o[O_TAKEN] + taken] = 1.0
    npile = nums[i, PILE_N]
    if npile:
        row[o[O_TOP] + st[S_PILE][i, npile - 1]] = 1.0
    set_bits(row, o[O_PILE], nums[i, PILE_SET])
    scores = st[S_SCORES]
    seen = h | card_mask(nums[i, PILE_SET])  # for the look-ahead: what the seat has seen
    for s in range(n):
        if s != me:
            seen |= card_mask(st[S_KNOWN][i, s])
        rel = (s - me) % n
        set_bits(row, o[O_KNOWN] + CARDS * rel, st[S_KNOWN][i, s])
        set_bits(row, o[O_DISCARDED] + CARDS * rel, st[S_DISCARDED][i, s])
        if o[O_PICKED] >= 0:
            set_bits(row, o[O_PICKED] + CARDS * rel, st[S_PICKED][i, s])
        row[o[O_SCORES] + rel] = min(SCORE_CLIP, scores[i, s] / r[R_TARGET])
    row[o[O_TO_ACT]] = 1.0
    row[o[O_DEALER] + (nums[i, DEALER] - me) % n] = 1.0
    row[o[O_STOCK]] = nums[i, STOCK_N] / r[R_STOCK_SIZE]
    row[o[O_HAND_NO]] = min(1.0, (nums[i, HAND_NO] - 1) / HAND_NUMBER_SCALE)
    for j in range(RULE_WIDTH):
        row[o[O_RULES] + j] = st[S_RULES_BLOCK][j]
    if o[O_DEADWOOD] >= 0:
        row[o[O_DEADWOOD]] = min(1.0, deadwood(h) / DEADWOOD_SCALE)
    mask = d.masks[i]
    if phase == DRAW:
        mask[DRAW_STOCK] = mask[TAKE_DISCARD] = True  # the stock is never empty here
        # (engine._find_legal)
        if npile and o[O_TAKE_DW] >= 0:
            top = st[S_PILE][i, npile - 1]
            row[o[O_TAKE_DW]] = min(1.0, take_deadwood(h, top, r[R_NO_TAKEN] == 0)
                                    / DEADWOOD_SCALE)
        if o[O_STOCK_OUTLOOK] >= 0:
            row[o[O_STOCK_OUTLOOK]] = min(1.0, stock_outlook(h, ALL_CARDS & ~seen)
                                          / DEADWOOD_SCALE)
        return
    if o[O_DISCARD_DW] >= 0:
        write_discards(row, o[O_DISCARD_DW], o[O_DISCARD_GIN], h, DEADWOOD_SCALE)
    if o[O_OUTLOOK] >= 0:
        write_outlook(row, o[O_OUTLOOK], o[O_READY], o[O_GIN_READY], h, ALL_CARDS & ~seen,
                      READY_LIMIT if r[R_KNOCK] < 0 else r[R_KNOCK], DEADWOOD_SCALE)
    may = h
    if taken >= 0 and r[R_NO_TAKEN]:
        may &= ~CARD_BIT[taken]
    knock = may if r[R_KNOCK] < 0 else may & knock_cards(h, r[R_KNOCK])
    while may:
        b = may & -may
        c = INDEX_CARD[low_bit(b)]
        mask[DISCARD_OFFSET + c] = True
        if knock & b:
            mask[KNOCK_OFFSET + c] = True
        may ^= b


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


@njit(**INLINE)
def _score(st, d, i, k, rewards, dones):
    """Add row ``i``'s scored hand (``st[S_POINTS]``) to the totals; ``settle`` it; then the
    next deal, a new game, or the end."""
    r, nums, scores, points = st[S_RULES], st[S_NUMS], st[S_SCORES], st[S_POINTS]
    n = r[R_N]
    hand = d.hand  # the scored hand's points, totals and winners, for ``settle``
    for s in range(n):
        scores[i, s] += points[s]
    top = scores[i, 0]
    for s in range(1, n):
        top = max(top, scores[i, s])
    over = top >= r[R_TARGET] or (r[R_MAX_HANDS] >= 0 and nums[i, HAND_NO] >= r[R_MAX_HANDS])
    for s in range(n):
        hand[POINTS, s], hand[TOTALS, s] = points[s], scores[i, s]
        hand[WINNERS, s] = 1.0 if scores[i, s] == top else 0.0
    then = settle(d, i, k, over, rewards, dones)
    if then == GOES_ON:
        nums[i, DEALER] = (nums[i, DEALER] + 1) % n  # the deal passes left
        _deal(st, i, d.rng[i], d.scratch)
    elif then == RESTART:
        _new_game(st, d, i)
    else:
        nums[i, PHASE] = OVER


@njit(**KERNEL)
def step(st, d, idx, acts, rewards, dones):
    """``engine.GinRummyState.apply`` of each legal ``acts[k]`` in game ``idx[k]``."""
    r, nums = st[S_RULES], st[S_NUMS]
    hands, known, picked = st[S_HANDS], st[S_KNOWN], st[S_PICKED]
    pile = st[S_PILE]
    n = r[R_N]
    points = st[S_POINTS]
    flags = 0
    for k in range(idx.shape[0]):
        i = idx[k]
        if not d.live[i]:
            continue
        a = acts[k]
        flags |= record(d, i, a)
        seat = nums[i, CUR]
        nums[i, MOVES] += 1
        if a < DISCARD_OFFSET:  # a draw: from the stock, or the pile's top
            if a == DRAW_STOCK:
                nums[i, STOCK_N] -= 1
                card = st[S_STOCK][i, nums[i, STOCK_N]]
                nums[i, TAKEN] = -1
            else:
                nums[i, PILE_N] -= 1
                card = pile[i, nums[i, PILE_N]]
                nums[i, PILE_SET] ^= np.int64(1) << card
                picked[i, seat] |= np.int64(1) << card
                known[i, seat] |= np.int64(1) << card
                nums[i, TAKEN] = card
            nums[i, DRAWN] = card
            hands[i, seat] |= CARD_BIT[card]
            nums[i, PHASE] = DISCARD
        else:
            knock = a >= KNOCK_OFFSET
            card = a - KNOCK_OFFSET if knock else a - DISCARD_OFFSET
            hands[i, seat] ^= CARD_BIT[card]
            pile[i, nums[i, PILE_N]] = card
            nums[i, PILE_N] += 1
            nums[i, PILE_SET] |= np.int64(1) << card
            st[S_DISCARDED][i, seat] |= np.int64(1) << card
            known[i, seat] &= ~(np.int64(1) << card)
            nums[i, TAKEN] = nums[i, DRAWN] = -1
            scored = True
            if knock:
                settle_knock(hands[i], n, seat, r[R_LAYOFF], r[R_KNOCKER_TIES], r[R_GIN],
                             r[R_UNDERCUT], points,
                             (st[S_W0], st[S_W1], st[S_W2], st[S_W3], st[S_W4], st[S_W5]))
            elif nums[i, STOCK_N] <= r[R_DEAD_STOCK] or (
                    r[R_MAX_MOVES] >= 0 and nums[i, MOVES] >= r[R_MAX_MOVES]):
                for s in range(n):  # a dead hand: the stock ran out, or an endless pile cycle
                    points[s] = 0
            else:
                nums[i, CUR] = (seat + 1) % n
                nums[i, PHASE] = DRAW
                scored = False
            if scored:
                _score(st, d, i, k, rewards, dones)
        _write_row(st, d, i)  # one call site: numba inlines a helper once per site
    return flags


class GinRummyCore(Core):
    """Every Gin Rummy rules object, information state only (see ``supports``)."""

    start = staticmethod(start)
    step = staticmethod(step)
    write = staticmethod(write)

    def supports(self, rules: GinRummyRules, kind: str) -> str | None:
        if kind != "infostate":
            return (f"the {kind!r} observation is not compiled: its one-draw look-ahead reads "
                    f"the expert's card tracker (envs.gin_rummy.features)")
        return None

    def arrays(self, rules: GinRummyRules, num_games: int, kind: str) -> tuple:
        n, p = num_games, rules.num_players
        offsets = layout(p).offsets
        return (_rules_row(rules),
                np.array([offsets.get(name, -1) for name in BLOCKS], dtype=np.int64),
                _rules_block(rules), np.zeros((n, NUM_COLUMNS), np.int64),
                *(np.zeros((n, p), np.int64) for _ in range(4)),
                np.zeros((n, CARDS), np.int64), np.zeros((n, CARDS), np.int64),
                np.zeros((n, p), np.int64), np.zeros(p, np.int64), *scratch())

    def load(self, st: tuple, i: int, state) -> None:
        """Row ``i`` := ``state`` (an engine state; its generator is the driver's to copy)."""
        nums = st[S_NUMS]
        nums[i, :] = 0
        nums[i, CUR] = -1 if state.current_player is None else state.current_player
        nums[i, PHASE] = {"draw": DRAW, "discard": DISCARD}.get(state.phase, OVER)
        nums[i, TAKEN] = -1 if state.taken is None else state.taken
        nums[i, DRAWN] = -1 if state.drawn is None else state.drawn
        nums[i, MOVES], nums[i, DEALER] = state.moves, state.dealer
        nums[i, HAND_NO] = state.hand_number
        nums[i, PILE_N], nums[i, STOCK_N] = len(state.pile), len(state.stock)
        nums[i, PILE_SET] = sum(1 << c for c in state.pile)
        st[S_PILE][i, :len(state.pile)] = state.pile
        st[S_STOCK][i, :len(state.stock)] = state.stock
        for s in range(state.num_players):
            st[S_HANDS][i, s] = state.masks[s]
            st[S_KNOWN][i, s] = sum(1 << c for c in state.known[s])
            st[S_PICKED][i, s] = sum(1 << c for c in state.picked[s])
            st[S_DISCARDED][i, s] = sum(1 << c for c in state.discarded[s])
            st[S_SCORES][i, s] = state.scores[s]


CORE = GinRummyCore()
