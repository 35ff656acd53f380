"""Blind Auction's information state: ``BlindAuctionView`` -> float32 vector.

The one place numeric features are made. Cards are by rank (13 slots per
block, whatever ``cards_per_suit``); seats are relative, block 0 is the
observer, then the seats after it; blocks are laid out for 3 seats, so 2- and
3-player games share one layout (a 2-player game leaves seat block 2 empty).
Nothing here depends on the order of the unrevealed prizes or on another
seat's bid before its round resolves. Bump ``VERSION`` (and the env name) when
the layout changes.

The vector holds what the view records in the form play depends on: the cards
each seat has still to show, the prizes left and carried, who won what, the
last round and the scores. The order in which earlier bids met earlier prizes
is left out: with the cards left known, it changes no outcome still to come.
The rule bots reckon with nothing beyond this (the mean of the prizes left),
so the ``features`` kind of this game is the same vector.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from envs import cards, encoding
from envs.blind_auction.rules import TIE_RULES
from envs.blind_auction.view import BlindAuctionView

VERSION = 1
P = 3  # seat blocks
R = 13  # rank slots

LAYOUT = (
    ("hand", R),  # own cards that may still be bid
    ("chosen", R),  # own bid this round, until it resolves
    ("remaining", P * R),  # per relative seat: cards not yet shown
    ("acted", P),  # per relative seat: has bid this round
    ("prizes_left", R),  # prizes not yet turned up
    ("carried", R),  # prizes carried into this round
    ("won", P * R),  # per relative seat: prizes it scored (both tied seats on a split)
    ("last_bids", P * R),  # per relative seat: its bid in the last resolved round
    ("last_prize", R),
    ("scores", P),  # score / prize total
    ("round", 1),  # rounds resolved / cards_per_suit
    ("players", 2),  # 2 players, 3 players
    ("tie_rule", len(TIE_RULES)),  # discard, carry, split
    ("deck", 1),  # cards_per_suit / 13
)
OFFSETS, OBS_SIZE = encoding.offsets(LAYOUT)

_HAND, _CHOSEN, _REMAINING = OFFSETS["hand"], OFFSETS["chosen"], OFFSETS["remaining"]
_ACTED, _LEFT, _CARRIED = OFFSETS["acted"], OFFSETS["prizes_left"], OFFSETS["carried"]
_WON, _LAST_BIDS, _LAST_PRIZE = OFFSETS["won"], OFFSETS["last_bids"], OFFSETS["last_prize"]
_SCORES, _ROUND, _PLAYERS = OFFSETS["scores"], OFFSETS["round"], OFFSETS["players"]
_TIE, _DECK = OFFSETS["tie_rule"], OFFSETS["deck"]


def _rank(card_id: int) -> int:
    return card_id % 13


def encode(view: BlindAuctionView, out: np.ndarray | None = None) -> np.ndarray:
    """The observation vector of ``view`` (written into ``out`` if given).

    The definition of every feature: the env's incremental ``BlindAuctionObserver``
    is tested to equal it at every step.
    """
    if out is None:
        out = np.zeros(OBS_SIZE, dtype=np.float32)
    else:
        out.fill(0.0)
    rules = view.rules
    n = rules.num_players
    me = view.seat
    ones = [_HAND + _rank(c) for c in view.hand]
    if view.chosen is not None:
        ones.append(_CHOSEN + _rank(view.chosen))
    for seat in range(n):
        rel = (seat - me) % n
        ones.extend(_REMAINING + rel * R + _rank(c) for c in view.remaining[seat])
        if view.acted[seat]:
            ones.append(_ACTED + rel)
    ones.extend(_LEFT + _rank(c) for c in view.prizes_left)
    ones.extend(_CARRIED + _rank(c) for c in view.carried)
    for rnd in view.rounds:
        for seat in rnd.scorers:
            rel = (seat - me) % n
            ones.extend(_WON + rel * R + _rank(c) for c in (rnd.taken or (rnd.prize,)))
    if view.rounds:
        last = view.rounds[-1]
        ones.extend(_LAST_BIDS + ((seat - me) % n) * R + _rank(c)
                    for seat, c in enumerate(last.bids))
        ones.append(_LAST_PRIZE + _rank(last.prize))
    ones.append(_PLAYERS + n - 2)
    ones.append(_TIE + TIE_RULES.index(rules.tie_rule))
    out[ones] = 1.0
    total = rules.prize_total
    for seat in range(n):
        out[_SCORES + (seat - me) % n] = view.scores[seat] / total
    out[_ROUND] = len(view.rounds) / rules.cards_per_suit
    out[_DECK] = rules.cards_per_suit / 13
    return out


class BlindAuctionObserver:
    """Every seat's observation vector, kept equal to ``encode(state.view(seat))``.

    The env's hot path: a bid flips three features (the bidder's hand and
    chosen slots, its "acted" flag in every row); a round's end flips the few
    features it changes, in every row, by scalar stores through a memoryview
    at precomputed positions (cheaper than numpy indexing for a handful of
    values). A new game starts from the rows encoded once for these rules (the
    first observation cannot depend on the hidden prize order); anything else
    (another state, moves applied behind the env's back) re-encodes every seat
    from its view, so ``encode`` stays the one definition. The tests check the
    two agree for every seat at every step. One observer belongs to one env.
    """

    def __init__(self, num_players: int) -> None:
        n = self._n = num_players
        self._obs = np.zeros((n, OBS_SIZE), dtype=np.float32)
        self._rows = list(self._obs)
        self._mv = memoryview(self._obs.reshape(-1))

        def every_row(offset: int, seat: int = 0, stride: int = 0) -> tuple[int, ...]:
            return encoding.in_every_row(OBS_SIZE, n, offset, seat, stride)

        self._acted_at = [every_row(_ACTED, s, 1) for s in range(n)]
        self._remaining_at = [[every_row(_REMAINING + r, s, R) for r in range(R)]
                              for s in range(n)]
        self._won_at = [[every_row(_WON + r, s, R) for r in range(R)] for s in range(n)]
        self._last_bid_at = [[every_row(_LAST_BIDS + r, s, R) for r in range(R)]
                             for s in range(n)]
        self._score_at = [every_row(_SCORES, s, 1) for s in range(n)]
        self._left_at = [every_row(_LEFT + r) for r in range(R)]
        self._carried_at = [every_row(_CARRIED + r) for r in range(R)]
        self._last_prize_at = [every_row(_LAST_PRIZE + r) for r in range(R)]
        self._round_at = every_row(_ROUND)
        # a round's end per (seat, bid): what it clears (the seat's chosen slot, its
        # "acted" flags, the card from its unshown cards) and what it sets (the last bid)
        self._bid_clears = [[(s * OBS_SIZE + _CHOSEN + r, *self._acted_at[s],
                              *self._remaining_at[s][r]) for r in range(R)] for s in range(n)]
        # the previous round's end per (bids, prize) is undone through ``_last_at``
        self._state = None
        self._fresh_rules = None  # the rules ``_fresh`` (rows of a game's start) was made for
        self._masks = np.zeros((n, R), dtype=np.int8)  # per seat: the ranks it may still bid
        self._mask_mv = memoryview(self._masks.reshape(-1))
        self._no_mask = np.zeros(R, dtype=np.int8)

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        del state["_rows"], state["_mv"], state["_mask_mv"]  # views: rebuilt on unpickling
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._rows = list(self._obs)
        self._mv = memoryview(self._obs.reshape(-1))
        self._mask_mv = memoryview(self._masks.reshape(-1))

    def reset(self, state) -> None:
        """Encode every seat afresh from its view of ``state``."""
        at_start = state.round == 0 and state.current_player == 0
        if at_start and self._fresh_rules is state.rules:
            self._obs[...] = self._fresh
        else:
            for seat, row in enumerate(self._rows):
                encode(state.view(seat), out=row)
            if at_start:
                self._fresh, self._fresh_rules = self._obs.copy(), state.rules
        masks = self._masks
        masks.fill(0)
        for seat, hand in enumerate(state.hands):
            masks[seat, hand] = 1
        self._state = state
        self._round = state.round
        self._player = state.current_player
        self._total = state.rules.prize_total
        self._num_rounds = state.num_rounds
        self._carried = [c % 13 for c in state.carried]
        last = state.rounds[-1] if state.rounds else None
        # where the last round shows (its bids, its prize): cleared when the next one ends
        self._last_set = [] if last is None else [
            *self._last_prize_at[last.prize % 13],
            *(i for seat, c in enumerate(last.bids) for i in self._last_bid_at[seat][c % 13])]

    def after_apply(self, state, player: int, action: int) -> None:
        """Update the vectors after ``player`` bid ``action`` (a rank) in ``state``."""
        if state is not self._state or player != self._player:
            self.reset(state)
            return
        mv = self._mv
        self._mask_mv[player * R + action] = 0
        if state.round == self._round:  # a bid; the round goes on
            base = player * OBS_SIZE
            mv[base + _HAND + action] = 0.0
            mv[base + _CHOSEN + action] = 1.0
            for i in self._acted_at[player]:
                mv[i] = 1.0
            self._player = state.current_player
            return
        if state.round != self._round + 1:
            self.reset(state)
            return
        rnd = state.rounds[-1]
        prize = rnd.prize % 13
        mv[player * OBS_SIZE + _HAND + action] = 0.0
        for i in self._last_set:  # the previous round stops being the last
            mv[i] = 0.0
        last_set = [*self._last_prize_at[prize]]
        clears, last_bid_at = self._bid_clears, self._last_bid_at
        for seat, card in enumerate(rnd.bids):
            bid = card % 13
            for i in clears[seat][bid]:
                mv[i] = 0.0
            last_set += last_bid_at[seat][bid]
        for i in self._left_at[prize]:
            mv[i] = 0.0
        for i in last_set:
            mv[i] = 1.0
        self._last_set = last_set
        if rnd.carried:
            self._carried.append(prize)
            for i in self._carried_at[prize]:
                mv[i] = 1.0
        elif self._carried:  # taken with this prize by its winner
            for c in self._carried:
                for i in self._carried_at[c]:
                    mv[i] = 0.0
            self._carried = []
        scores = state.scores
        total = self._total
        for seat in rnd.scorers:
            won_at = self._won_at[seat]
            for c in rnd.taken or (rnd.prize,):
                for i in won_at[c % 13]:
                    mv[i] = 1.0
            for i in self._score_at[seat]:
                mv[i] = scores[seat] / total
        for i in self._round_at:
            mv[i] = state.round / self._num_rounds
        self._round = state.round
        self._player = state.current_player

    def observation(self, state, seat: int) -> np.ndarray:
        """A new copy of ``seat``'s vector: ``encode(state.view(seat))``."""
        if (state is not self._state or state.round != self._round
                or state.current_player != self._player):
            self.reset(state)  # moved without after_apply (e.g. state.apply called directly)
        return self._rows[seat].copy()

    def action_mask(self, state, seat: int) -> np.ndarray:
        """A new copy of ``seat``'s mask: the ranks it holds if it is to bid, else none."""
        if (state is not self._state or state.round != self._round
                or state.current_player != self._player):
            self.reset(state)
        return (self._masks[seat] if seat == state.current_player else self._no_mask).copy()


def _label(name: str, size: int, i: int) -> str:
    if size == R:
        return f"{name}[{cards.RANKS[i]}]"
    if size == P * R:
        return f"{name}[{i // R}][{cards.RANKS[i % R]}]"
    return f"{name}[{i}]"


def describe(index: int) -> str:
    """Which feature an observation index holds, e.g. 'remaining[1][Q]'."""
    return encoding.describe(LAYOUT, OFFSETS, index, _label)


def card_table(n: int = P) -> encoding.CardTable:
    """Each rank: in the own hand, bid this round, still held by each seat, a prize left or
    carried, won by each seat, bid by each seat last round, the last prize; a bid is a rank."""
    o = OFFSETS
    planes = [o["hand"], o["chosen"], *(o["remaining"] + s * R for s in range(P)),
              o["prizes_left"], o["carried"], *(o["won"] + s * R for s in range(P)),
              *(o["last_bids"] + s * R for s in range(P)), o["last_prize"]]
    return encoding.CardTable(encoding.card_planes(planes, R), np.arange(R), np.zeros(R))


INFOSTATE = encoding.Encoder(
    kind="infostate", version=VERSION, size=lambda n: OBS_SIZE,
    encode=encode, bounds=lambda n: encoding.unit_bounds(OBS_SIZE),
    describe=lambda n, i: describe(i), observer=BlindAuctionObserver, cards=card_table)
FEATURES = dataclasses.replace(INFOSTATE, kind="features")  # the same vector (module docstring)
