"""Spades' compiled core (``cardrl.envs.compiled``): N games as arrays, every rules field.

A hand is a 64-bit mask of card ids; the plays of the hand are kept in order (card,
seat), so the trick on the table is their last ``plays % 4``. The kernels follow
``cardrl.envs.spades.engine`` move by move (legal sets, voids, trick winners, scoring, the
next hand dealt from the game's generator) and write the information state of
``cardrl.envs.spades.infostate`` block by block (its play blocks with ``play_kernels``). The
``features`` kind stays on the Python engines (its expert numbers are a Python program
of their own).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from cardrl.envs import cards, compiled, compiled_rng
from cardrl.envs.spades import engine, infostate
from cardrl.envs.spades.actions import CARD_OFFSET
from cardrl.envs.spades.play_kernels import POWER, SPADES, SUIT, SUIT_MASK, write_play
from cardrl.envs.spades.rules import HAND_SIZE, NUM_PLAYERS, NUM_TRICKS, SpadesRules

P = NUM_PLAYERS
BID, PLAY, OVER = 0, 1, 2  # phases
# where the information blocks are, and the numbers that size and scale them
# (``infostate.BLOCKS``, ``infostate.TRICK_SCALE``, ...)
_O = infostate.OFFSETS
PHASE, HAND, BIDS, TRICKS = _O["phase"], _O["hand"], _O["bids"], _O["tricks"]
PLAYED, NUMBER, TRICK, LEADER = _O["played_by"], _O["trick_number"], _O["trick"], _O["leader"]
BROKEN, VOIDS, SCORES, BAGS = _O["spades_broken"], _O["voids"], _O["scores"], _O["bags"]
DEALER, HAND_NUMBER, PLAYED_TRICKS, FLAGS = (_O["dealer"], _O["hand_number"],
                                             _O["tricks_played"], _O["rules"])
BID_SLOTS, TRICK_SLOTS, SUITS = infostate.BID_SLOTS, infostate.TRICK_SLOTS, infostate.SUITS
TRICK_SCALE, HAND_NUMBER_SCALE = infostate.TRICK_SCALE, infostate.HAND_NUMBER_SCALE
F_MUST_BREAK, F_MAY_TOTAL, F_JOKERS, F_BAGS = (
    infostate.RULE_FLAGS.index(f) for f in ("spades_must_be_broken", "bids_may_total_tricks",
                                            "jokers", "bags"))
PLAY_AT = infostate.PLAY_AT
NC = cards.NUM_CARDS
TRICK_NUMBER = np.array([(j // P + 1) / TRICK_SCALE for j in range(P * NUM_TRICKS)])  # per play
# (four seats: a relative seat is (seat - me) & 3)

CLIP = infostate.SCORE_CLIP
# the columns of ``game[i]`` (indexed in place: a row view would cost a reference count)
(G_PLAYS,  # cards played this hand
 G_LEADER,  # the seat that leads the trick on the table
 G_TO_ACT,  # the seat to act (-1: over)
 G_PHASE,  # BID, PLAY or OVER
 G_BROKEN,  # spades broken
 G_DEALER,
 G_HAND_NUMBER,
 G_BIDS_MADE) = range(8)
G_COLUMNS = 8
# the rules as numbers: ``rp[...]``
(MUST_BREAK, MAY_TOTAL, PER_TRICK, OVERTRICK, BAG_LIMIT, BAG_PENALTY, NIL, TARGET, INCLUSIVE,
 JOKERS, MAX_HANDS, FIRST_DEALER) = range(12)


def _rule_numbers(rules: SpadesRules) -> np.ndarray:
    return np.array([rules.spades_must_be_broken, rules.bids_may_total_tricks,
                     rules.points_per_bid_trick, rules.overtrick_points, rules.bag_limit or 0,
                     rules.bag_penalty, rules.nil_points, rules.target, rules.target_inclusive,
                     rules.jokers, rules.max_hands or 0,
                     -1 if rules.first_dealer is None else rules.first_dealer], np.int64)


# ------------------------------------------------------------------- kernels
@njit(**compiled.INLINE)
def _deal(st, d, i):
    """The engine's ``_start_hand`` with ``cards.deal(deck, 4, 13, rng)``."""
    (hands, bids, tricks, pcard, pseat, voids, scores, bags, game, rp, deck) = st
    order = d.scratch[:deck.shape[0]]
    compiled_rng.permutation(d.rng[i], order)
    for s in range(P):
        m = np.uint64(0)
        for j in range(s * HAND_SIZE, (s + 1) * HAND_SIZE):
            m |= np.uint64(1) << np.uint64(deck[order[j]])
        hands[i, s] = m
        bids[i, s] = -1
        tricks[i, s] = 0
        voids[i, s] = 0
    game[i, G_HAND_NUMBER] += 1
    game[i, G_PLAYS] = 0
    game[i, G_LEADER] = (game[i, G_DEALER] + 1) % P
    game[i, G_TO_ACT] = game[i, G_LEADER]
    game[i, G_PHASE] = BID
    game[i, G_BROKEN] = 0
    game[i, G_BIDS_MADE] = 0


@njit(**compiled.INLINE)
def _start(st, d, i):
    """A new game as ``SpadesState(rules, seed)`` makes it (after ``compiled.begin``)."""
    (hands, bids, tricks, pcard, pseat, voids, scores, bags, game, rp, deck) = st
    if rp[FIRST_DEALER] < 0:
        return False  # a random first dealer: the engine draws it (rng.integers)
    game[i, G_DEALER] = rp[FIRST_DEALER]
    game[i, G_HAND_NUMBER] = 0
    for s in range(P):
        scores[i, s] = 0
        bags[i, s] = 0
    _deal(st, d, i)
    return True


@njit(**compiled.INLINE)
def _score_bid(rp, bid, took, bags):
    """``cardrl.envs.spades.scoring.score_bid``: (points, bags after)."""
    if bid == 0:
        return (rp[NIL] if took == 0 else -rp[NIL]), bags
    base = rp[PER_TRICK] * bid
    if took < bid:
        return -base, bags
    over = took - bid
    points = base + rp[OVERTRICK] * over
    if rp[BAG_LIMIT] > 0:
        bags += over
        points -= (bags // rp[BAG_LIMIT]) * rp[BAG_PENALTY]
        bags = bags % rp[BAG_LIMIT]
    return points, bags


@njit(**compiled.INLINE)
def _apply(st, d, i, a):
    """Play legal action ``a``; returns -1 (goes on), BID (a hand was scored and the next
    dealt) or OVER, the hand's points, totals and winners in ``d.hand``."""
    (hands, bids, tricks, pcard, pseat, voids, scores, bags, game, rp, deck) = st
    seat = game[i, G_TO_ACT]
    if a < CARD_OFFSET:
        bids[i, seat] = a
        game[i, G_BIDS_MADE] += 1
        if game[i, G_BIDS_MADE] == P:
            game[i, G_PHASE] = PLAY
            game[i, G_TO_ACT] = game[i, G_LEADER]
        else:
            game[i, G_TO_ACT] = (seat + 1) % P
        return -1
    card = a - CARD_OFFSET
    n = game[i, G_PLAYS]
    on_table = n % P
    suit = SUIT[card]
    if on_table:
        led = SUIT[pcard[i, n - on_table]]
        if suit != led:
            voids[i, seat] |= 1 << led
    elif suit == SPADES and rp[MUST_BREAK] and not game[i, G_BROKEN]:
        voids[i, seat] |= 0b0111
    hands[i, seat] &= ~(np.uint64(1) << np.uint64(card))
    pcard[i, n] = card
    pseat[i, n] = seat
    game[i, G_PLAYS] = n = n + 1
    if suit == SPADES:
        game[i, G_BROKEN] = 1
    if n % P:
        game[i, G_TO_ACT] = (seat + 1) % P
        return -1
    first = n - P
    best, best_suit = first, SUIT[pcard[i, first]]
    for j in range(first + 1, n):
        c = pcard[i, j]
        s = SUIT[c]
        if s == best_suit:
            if POWER[c] > POWER[pcard[i, best]]:
                best = j
        elif s == SPADES:
            best, best_suit = j, s
    winner = (game[i, G_LEADER] + best - first) % P
    tricks[i, winner] += 1
    game[i, G_LEADER] = game[i, G_TO_ACT] = winner
    if n < P * NUM_TRICKS:
        return -1
    hand = d.hand
    worth = d.pay[compiled.WORTH] != 0.0 and rp[BAG_LIMIT] > 0
    for s in range(P):
        before = bags[i, s]
        p, bags[i, s] = _score_bid(rp, bids[i, s], tricks[i, s], before)
        scores[i, s] += p
        # scoring.hand_worth: each bag charged as made, a penalty handed back
        hand[compiled.POINTS, s] = (p - rp[BAG_PENALTY] / rp[BAG_LIMIT] * (bags[i, s] - before)
                                    if worth else p)
        hand[compiled.TOTALS, s] = scores[i, s]
    top = scores[i, 0]
    for s in range(1, P):
        top = max(top, scores[i, s])
    count = 0
    for s in range(P):
        hand[compiled.WINNERS, s] = 1.0 if scores[i, s] == top else 0.0
        count += scores[i, s] == top
    reached = top >= rp[TARGET] if rp[INCLUSIVE] else top > rp[TARGET]
    if (count == 1 and reached) or (rp[MAX_HANDS] > 0 and game[i, G_HAND_NUMBER] >= rp[MAX_HANDS]):
        game[i, G_PHASE] = OVER
        game[i, G_TO_ACT] = -1
        return OVER
    game[i, G_DEALER] = (game[i, G_DEALER] + 1) % P
    _deal(st, d, i)
    return BID


@njit(**compiled.INLINE)
def _write(st, d, i):
    """Row ``i``: the seat to act's information state (``infostate.encode`` of its view),
    its legal actions and the seat."""
    (hands, bids, tricks, pcard, pseat, voids, scores, bags, game, rp, deck) = st
    me = game[i, G_TO_ACT]
    obs, masks = d.obs, d.masks
    compiled.blank(d, i)
    if me < 0 or not d.live[i]:
        d.seats[i] = -1
        return
    d.seats[i] = me
    phase, n = game[i, G_PHASE], game[i, G_PLAYS]
    obs[i, PHASE + phase] = 1.0
    hand = hands[i, me]
    m = hand
    while m:
        obs[i, HAND + trailing_zeros(m)] = 1.0
        m &= m - np.uint64(1)
    bid_total = 0
    for s in range(P):
        rel = (s - me) % P
        b = bids[i, s]
        obs[i, BIDS + rel * BID_SLOTS + b + 1] = 1.0
        if b > 0:
            bid_total += b
        obs[i, TRICKS + rel * TRICK_SLOTS + tricks[i, s]] = 1.0
        v = voids[i, s]
        for u in range(SUITS):
            if v >> u & 1:
                obs[i, VOIDS + rel * SUITS + u] = 1.0
        obs[i, SCORES + rel] = min(CLIP, max(-CLIP, scores[i, s] / rp[TARGET]))
        if rp[BAG_LIMIT] > 0:
            obs[i, BAGS + rel] = bags[i, s] / rp[BAG_LIMIT]
    on_table = n % P
    for j in range(n):
        c = pcard[i, j]
        obs[i, PLAYED + ((pseat[i, j] - me) & 3) * NC + c] = 1.0
        obs[i, NUMBER + c] = TRICK_NUMBER[j]
    for j in range(n - on_table, n):
        obs[i, TRICK + ((pseat[i, j] - me) & 3) * NC + pcard[i, j]] = 1.0
    obs[i, LEADER + (game[i, G_LEADER] - me) % P] = 1.0
    if game[i, G_BROKEN]:
        obs[i, BROKEN] = 1.0
    obs[i, DEALER + (game[i, G_DEALER] - me) % P] = 1.0
    if rp[MUST_BREAK]:
        obs[i, FLAGS + F_MUST_BREAK] = 1.0
    if rp[MAY_TOTAL]:
        obs[i, FLAGS + F_MAY_TOTAL] = 1.0
    if rp[JOKERS]:
        obs[i, FLAGS + F_JOKERS] = 1.0
    if rp[BAG_LIMIT] > 0:
        obs[i, FLAGS + F_BAGS] = 1.0
    obs[i, HAND_NUMBER] = min(1.0, (game[i, G_HAND_NUMBER] - 1) / HAND_NUMBER_SCALE)
    obs[i, PLAYED_TRICKS] = (n // P) / TRICK_SCALE
    if phase == BID:
        refused = -1
        if not rp[MAY_TOTAL] and game[i, G_BIDS_MADE] == P - 1:
            refused = NUM_TRICKS - bid_total
        for b in range(NUM_TRICKS + 1):
            masks[i, b] = b != refused
        return
    legal = hand
    if on_table:
        same = hand & SUIT_MASK[SUIT[pcard[i, n - on_table]]]
        if same:
            legal = same
    elif rp[MUST_BREAK] and not game[i, G_BROKEN]:
        others = hand & ~SUIT_MASK[SPADES]
        if others:
            legal = others
    while legal:
        masks[i, CARD_OFFSET + trailing_zeros(legal)] = True
        legal &= legal - np.uint64(1)
    write_play(obs[i], PLAY_AT)


@njit(**compiled.KERNEL)
def start(st, d, rows):
    flags = 0
    for i in rows:
        compiled.begin(d, i)
        if not _start(st, d, i):
            flags |= compiled.python_start(d, i)
            continue
        _write(st, d, i)
    return flags


@njit(**compiled.KERNEL)
def step(st, d, idx, acts, rewards, dones):
    flags = 0
    for k in range(idx.shape[0]):
        i = idx[k]
        if not d.live[i]:
            continue
        flags |= compiled.record(d, i, acts[k])
        status = _apply(st, d, i, acts[k])
        if status >= 0:
            after = compiled.settle(d, i, k, status == OVER, rewards, dones)
            if after == compiled.STOPPED:
                continue
            if after == compiled.RESTART:
                compiled.begin(d, i)
                if not _start(st, d, i):
                    flags |= compiled.python_start(d, i)
                    continue
        _write(st, d, i)
    return flags


@njit(**compiled.KERNEL)
def write(st, d, rows):
    for i in rows:
        _write(st, d, i)


# -------------------------------------------------------------------- Python
class SpadesCore(compiled.Core):
    start, step, write = staticmethod(start), staticmethod(step), staticmethod(write)

    def supports(self, rules: Any, kind: str) -> str | None:
        if kind != "infostate":
            return f"spades' compiled core writes the infostate only, not {kind!r}"
        return None

    def arrays(self, rules: SpadesRules, num_games: int, kind: str) -> tuple:
        n = num_games
        return (np.zeros((n, P), np.uint64), np.full((n, P), -1, np.int64),
                np.zeros((n, P), np.int64), np.zeros((n, P * NUM_TRICKS), np.int64),
                np.zeros((n, P * NUM_TRICKS), np.int64), np.zeros((n, P), np.int64),
                np.zeros((n, P), np.int64), np.zeros((n, P), np.int64),
                np.zeros((n, G_COLUMNS), np.int64), _rule_numbers(rules),
                np.array(cards.make_deck(rules.jokers), np.int64))

    def load(self, st: tuple, i: int, state: engine.SpadesState) -> None:
        (hands, bids, tricks, pcard, pseat, voids, scores, bags, game, rp, deck) = st
        for s in range(P):
            hands[i, s] = sum(1 << c for c in state.hands[s])
            bids[i, s] = -1 if state.bids[s] is None else state.bids[s]
        tricks[i], voids[i] = state.tricks, state.voids
        scores[i], bags[i] = state.scores, state.bags
        for j, (seat, c) in enumerate(state.plays):
            pcard[i, j], pseat[i, j] = c, seat
        game[i, G_PLAYS], game[i, G_LEADER] = len(state.plays), state.leader
        game[i, G_TO_ACT] = -1 if state.current_player is None else state.current_player
        game[i, G_PHASE] = {"bid": BID, "play": PLAY, "over": OVER}[state.phase]
        game[i, G_BROKEN], game[i, G_DEALER] = state.spades_broken, state.dealer
        game[i, G_HAND_NUMBER], game[i, G_BIDS_MADE] = state.hand_number, state.num_bids_made


CORE = SpadesCore()
