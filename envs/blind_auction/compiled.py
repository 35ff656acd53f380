"""Blind Auction's compiled core (``cardrl.envs.compiled``): N games as arrays, every rules field.

Each seat's cards and the prizes are rank masks; a round resolves as
``cardrl.envs.blind_auction.scoring.resolve`` says (a single top bid takes the prize and the
carried ones; a tie discards, carries or splits). The kernels write the vector of
``cardrl.envs.blind_auction.infostate``, which is both observation kinds of this game.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from cardrl.envs import compiled, compiled_rng
from cardrl.envs.blind_auction import engine, infostate
from cardrl.envs.blind_auction.rules import MIN_PLAYERS, TIE_RULES, BlindAuctionRules

P, R = infostate.P, infostate.R  # seat blocks, rank slots
DECK_SCALE = infostate.DECK_SCALE
DISCARD, CARRY, SPLIT = (TIE_RULES.index(t) for t in ("discard", "carry", "split"))
_O = infostate.OFFSETS
HAND, CHOSEN, REMAINING, ACTED = _O["hand"], _O["chosen"], _O["remaining"], _O["acted"]
LEFT, CARRIED, WON, LAST_BIDS = _O["prizes_left"], _O["carried"], _O["won"], _O["last_bids"]
LAST_PRIZE, SCORES, ROUND, PLAYERS = _O["last_prize"], _O["scores"], _O["round"], _O["players"]
TIE, DECK = _O["tie_rule"], _O["deck"]
# ``st``: these arrays
HANDS, PENDING, PRIZES, WON_BY, LAST_BIDS_BY, SCORES_BY, GAME, RULES = range(8)
# the columns of ``game[i]``
(ROUNDS,  # rounds resolved
 CURRENT,  # the seat to act (-1: over)
 CARRY_MASK,  # the carried prizes' ranks, as a mask
 LAST) = range(4)  # the last round's prize (-1: none yet)
GAME_COLUMNS = 4
# the entries of ``rp``, the rules as numbers
PLAYERS_N, TIE_RULE, CARDS, TOTAL = range(4)
RULE_ENTRIES = 4


# ------------------------------------------------------------------- kernels
@njit(**compiled.INLINE)
def _start(st, d, i):
    """A new game as ``BlindAuctionState(rules, seed)`` deals it (after ``compiled.begin``)."""
    hands, pending, prizes, won, last_bids, scores, game, rp = st
    cards = rp[CARDS]
    order = d.scratch[:cards]
    compiled_rng.permutation(d.rng[i], order)
    for j in range(cards):
        prizes[i, j] = order[j]
    for s in range(P):
        hands[i, s] = (1 << cards) - 1
        pending[i, s] = -1
        won[i, s] = 0
        last_bids[i, s] = -1
        scores[i, s] = 0.0
    game[i, ROUNDS] = 0
    game[i, CURRENT] = 0
    game[i, CARRY_MASK] = 0
    game[i, LAST] = -1
    return True


@njit(**compiled.INLINE)
def _apply(st, hand, i, a):
    """Bid rank ``a``; returns -1 (goes on) or 1 (the game is over: its points, totals and
    winners in ``hand``, the driver's ``d.hand``)."""
    hands, pending, prizes, won, last_bids, scores, game, rp = st
    n = rp[PLAYERS_N]
    seat = game[i, CURRENT]
    hands[i, seat] &= ~(1 << a)
    pending[i, seat] = a
    if seat + 1 < n:
        game[i, CURRENT] = seat + 1
        return -1
    prize = prizes[i, game[i, ROUNDS]]
    top, count, best = -1, 0, -1
    for s in range(n):
        b = pending[i, s]
        if b > top:
            top, count, best = b, 1, s
        elif b == top:
            count += 1
    value = prize + 2
    carried = game[i, CARRY_MASK]
    if count == 1:
        worth = value
        for r in range(R):
            if carried >> r & 1:
                worth += r + 2
        scores[i, best] += worth
        won[i, best] |= carried | (1 << prize)
        game[i, CARRY_MASK] = 0
    elif rp[TIE_RULE] == SPLIT:
        half = value / 2.0
        for s in range(n):
            if pending[i, s] == top:
                scores[i, s] += half
                won[i, s] |= carried | (1 << prize)
        game[i, CARRY_MASK] = 0
    elif rp[TIE_RULE] == CARRY:
        game[i, CARRY_MASK] = carried | (1 << prize)
    game[i, ROUNDS] += 1
    game[i, LAST] = prize
    for s in range(n):
        last_bids[i, s] = pending[i, s]
        pending[i, s] = -1
    if game[i, ROUNDS] < rp[CARDS]:
        game[i, CURRENT] = 0
        return -1
    game[i, CURRENT] = -1
    high = scores[i, 0]
    for s in range(1, n):
        high = max(high, scores[i, s])
    for s in range(n):
        hand[compiled.POINTS, s] = hand[compiled.TOTALS, s] = scores[i, s]
        hand[compiled.WINNERS, s] = 1.0 if scores[i, s] == high else 0.0
    return 1


@njit(**compiled.INLINE)
def _write_seat(st, row, mask, i, me):
    """``infostate.encode`` of seat ``me``'s view of game ``i`` into the zeroed ``row``, and
    the ranks it still holds into ``mask``."""
    hands, pending, prizes, won, last_bids, scores, game, rp = st
    n = rp[PLAYERS_N]
    hand = hands[i, me]
    for r in range(R):
        if hand >> r & 1:
            row[HAND + r] = 1.0
            mask[r] = True
    if pending[i, me] >= 0:
        row[CHOSEN + pending[i, me]] = 1.0
    for s in range(n):
        rel = (s - me) % n
        held = hands[i, s]
        if pending[i, s] >= 0:
            held |= 1 << pending[i, s]
            row[ACTED + rel] = 1.0
        w = won[i, s]
        for r in range(R):
            if held >> r & 1:
                row[REMAINING + rel * R + r] = 1.0
            if w >> r & 1:
                row[WON + rel * R + r] = 1.0
        if game[i, LAST] >= 0:
            row[LAST_BIDS + rel * R + last_bids[i, s]] = 1.0
        row[SCORES + rel] = scores[i, s] / rp[TOTAL]
    for j in range(game[i, ROUNDS], rp[CARDS]):
        row[LEFT + prizes[i, j]] = 1.0
    carried = game[i, CARRY_MASK]
    for r in range(R):
        if carried >> r & 1:
            row[CARRIED + r] = 1.0
    if game[i, LAST] >= 0:
        row[LAST_PRIZE + game[i, LAST]] = 1.0
    row[PLAYERS + n - MIN_PLAYERS] = 1.0
    row[TIE + rp[TIE_RULE]] = 1.0
    row[ROUND] = game[i, ROUNDS] / rp[CARDS]
    row[DECK] = rp[CARDS] / DECK_SCALE


@njit(**compiled.INLINE)
def _write(st, d, i):
    """Row ``i``: ``infostate.encode`` of the seat to act's view, its bids, the seat."""
    me = st[GAME][i, CURRENT]
    compiled.blank(d, i)
    if me < 0 or not d.live[i]:
        d.seats[i] = -1
        return
    d.seats[i] = me
    _write_seat(st, d.obs[i], d.masks[i], i, me)


@njit(**compiled.KERNEL)
def write(st, d, rows):
    for i in rows:
        _write(st, d, i)


@njit(**compiled.KERNEL)
def start(st, d, rows):
    for i in rows:
        compiled.begin(d, i)
        _start(st, d, i)
    write(st, d, rows)  # a call, not a second inlined copy of the row writer (compile time)
    return 0


@njit(**compiled.KERNEL)
def step(st, d, idx, acts, rewards, dones):
    flags = 0
    for k in range(idx.shape[0]):
        i = idx[k]
        if not d.live[i]:
            continue
        flags |= compiled.record(d, i, acts[k])
        if _apply(st, d.hand, i, acts[k]) > 0:
            after = compiled.settle(d, i, k, True, rewards, dones)
            if after == compiled.STOPPED:
                continue
            compiled.begin(d, i)
            _start(st, d, i)
        _write(st, d, i)
    return flags


# -------------------------------------------------------------------- Python
def rule_numbers(rules: BlindAuctionRules) -> np.ndarray:
    """``rp``: the rules as numbers (``PLAYERS_N``, ``TIE_RULE``, ``CARDS``, ``TOTAL``)."""
    rp = np.zeros(RULE_ENTRIES, np.int64)
    rp[PLAYERS_N], rp[TIE_RULE] = rules.num_players, TIE_RULES.index(rules.tie_rule)
    rp[CARDS], rp[TOTAL] = rules.cards_per_suit, rules.prize_total
    return rp


class BlindAuctionCore(compiled.Core):
    start, step, write = staticmethod(start), staticmethod(step), staticmethod(write)

    def supports(self, rules: Any, kind: str) -> str | None:
        return None  # both kinds are the information state (``game.py``)

    def arrays(self, rules: BlindAuctionRules, num_games: int, kind: str) -> tuple:
        n = num_games
        return (np.zeros((n, P), np.int64), np.full((n, P), -1, np.int64),
                np.zeros((n, R), np.int64), np.zeros((n, P), np.int64),
                np.full((n, P), -1, np.int64), np.zeros((n, P), np.float64),
                np.zeros((n, GAME_COLUMNS), np.int64), rule_numbers(rules))

    def load(self, st: tuple, i: int, state: engine.BlindAuctionState) -> None:
        hands, pending, prizes, won, last_bids, scores, game, rp = st
        hands[i], pending[i], won[i], last_bids[i], scores[i] = 0, -1, 0, -1, 0.0
        for s in range(state.num_players):
            hands[i, s] = sum(1 << r for r in state.hands[s])
            pending[i, s] = -1 if state.pending[s] is None else state.pending[s]
            scores[i, s] = state.scores[s]
        prizes[i, :len(state.prizes)] = [c % R for c in state.prizes]
        for rnd in state.rounds:
            for s in rnd.scorers:
                won[i, s] |= sum(1 << (c % R) for c in rnd.taken or (rnd.prize,))
        last = state.rounds[-1] if state.rounds else None
        if last is not None:
            last_bids[i, :len(last.bids)] = [c % R for c in last.bids]
        game[i, ROUNDS] = state.round
        game[i, CURRENT] = -1 if state.current_player is None else state.current_player
        game[i, CARRY_MASK] = sum(1 << (c % R) for c in state.carried)
        game[i, LAST] = -1 if last is None else last.prize % R


CORE = BlindAuctionCore()
