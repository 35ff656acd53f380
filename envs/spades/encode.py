"""Spades observation encoder: ``SpadesView`` -> float32 vector, and the action mask.

The one place numeric features are made; the env, trained bots and export all
call it. Seats are relative: block 0 is always the observing seat, then the
players after it in clockwise order. Bump ``ENCODER_VERSION`` (and the env
name) when the layout changes.

Version 2 adds, for the seat to act only, what the expert bot reckons with
(``strength``, ``tracking.Knowledge``): bidding, the hand's modified count and
its nil chance; playing, the tricks the hand should still take by force and,
per own card, the chance it wins this trick and whether it is the top unseen
card of its suit. Version 3 adds per-bid blocks for the bidder: each bid's
distance from the tricks the hand should take given the bids on the table
(``strength.contract_tricks``), signed and unsigned, and what a nil is worth,
so that a policy can weigh each bid by them directly (``train.policy``).
Version 4 adds, for the player, what the expert's card choice turns on
(``agents.spades.play``): the tricks the bid still needs and the shortfall
after the hand's sure tricks, which seats' nils are alive, and per own card
whether it tops the trick, how dangerous it is to keep, whether the hand counts
on it, how cheap it is, its suit's length and the ruff risk of leading it.
"""

from __future__ import annotations

import numpy as np

from envs import encoding
from envs.aec import mask_function
from envs.cards import NUM_CARDS
from envs.spades.actions import CARD_OFFSET, NUM_ACTIONS, NUM_BIDS
from envs.spades.engine import SUIT_TABLE
from envs.spades.strength import contract_tricks, estimate_tricks, nil_chance, nil_value
from envs.spades.tracking import SPADES, Knowledge, beats, cost
from envs.spades.view import SpadesView

ENCODER_VERSION = 4
P = 4  # players
SCORE_CLIP = 4.0

# (name, size) of each block, in order
LAYOUT = (
    ("phase", 2),  # bidding, playing
    ("hand", NUM_CARDS),
    ("bids", P * 15),  # per relative seat: not bid yet, or bid 0..13
    ("tricks", P * 14),  # per relative seat: tricks taken 0..13
    ("played_by", P * NUM_CARDS),  # every card played this hand, by whom
    ("trick", P * NUM_CARDS),  # the trick on the table, by whom
    ("leader", P),
    ("last_trick", P * NUM_CARDS),
    ("last_trick_winner", P),
    ("spades_broken", 1),
    ("voids", P * 4),
    ("scores", P),  # total / target, clipped to +-4
    ("bags", P),  # bags / bag limit
    ("dealer", P),
    ("hand_number", 1),  # hands played / 10, clipped to 1
    ("tricks_played", 1),  # / 13
    ("rules", 4),  # spades must be broken, bids may total 13, jokers, bags counted
    # the seat to act only (zero for every other seat):
    ("hand_estimate", 1),  # bidding: the modified count (strength.estimate_tricks) / 13
    ("nil_chance", 1),  # bidding: strength.nil_chance
    ("expected_tricks", 1),  # playing: tricks the hand still takes by force / 13
    ("p_win", NUM_CARDS),  # playing, per own card: chance it wins this trick (Knowledge.p_win)
    ("master", NUM_CARDS),  # playing, per own card: no unseen card of its suit outranks it
    ("contract_tricks", 1),  # bidding: strength.contract_tricks / 13, clipped to 0..1
    ("bid_distance", NUM_BIDS),  # bidding, per bid 1..13: -|bid - contract_tricks| / 6, to -1;
    # nil (no trick bid) -1
    ("bid_excess", NUM_BIDS),  # bidding, per bid 1..13: (bid - contract_tricks) / 6, +-1
    ("nil_value", 1),  # bidding: strength.nil_value / 100, clipped to +-1 (for the nil bid)
    ("need", 1),  # playing: tricks the bid still needs / 13, +-1 (overtricks negative)
    ("shortfall", 1),  # playing: need - expected_tricks, / 13, +-1
    ("nil_alive", P),  # playing, per relative seat: bid nil and has taken no trick yet
    ("tops_trick", NUM_CARDS),  # playing, per own card: it would take the trick as it stands
    ("danger", NUM_CARDS),  # playing, per own card: how likely it is to win a later trick
    ("counted", NUM_CARDS),  # playing, per own card: one of the winners expected_tricks counts
    ("cheap", NUM_CARDS),  # playing, per own card: 1 for the cheapest (side suits first), to 0
    ("suit_length", NUM_CARDS),  # playing, per own card: own cards of its suit / 13
    ("ruff_risk", NUM_CARDS),  # playing, per own side-suit card: chance a lead of it is ruffed
)
BID_SCALE, NIL_SCALE, DANGER_SCALE = 6.0, 100.0, 18.0
OFFSETS, OBS_SIZE = encoding.offsets(LAYOUT)

_PHASE = OFFSETS["phase"]
_HAND = OFFSETS["hand"]
_BIDS = OFFSETS["bids"]
_TRICKS = OFFSETS["tricks"]
_PLAYED = OFFSETS["played_by"]
_TRICK = OFFSETS["trick"]
_LEADER = OFFSETS["leader"]
_LAST = OFFSETS["last_trick"]
_LAST_WIN = OFFSETS["last_trick_winner"]
_BROKEN = OFFSETS["spades_broken"]
_VOIDS = OFFSETS["voids"]
_SCORES = OFFSETS["scores"]
_BAGS = OFFSETS["bags"]
_DEALER = OFFSETS["dealer"]
_HANDNO = OFFSETS["hand_number"]
_TPLAYED = OFFSETS["tricks_played"]
_RULES = OFFSETS["rules"]
_DECISION = OFFSETS["hand_estimate"]  # the seat-to-act blocks run from here to the end
_P_WIN = OFFSETS["p_win"]
_MASTER = OFFSETS["master"]
_CONTRACT = OFFSETS["contract_tricks"]
_BID_DISTANCE = OFFSETS["bid_distance"]
_BID_EXCESS = OFFSETS["bid_excess"]
_NIL_VALUE = OFFSETS["nil_value"]
_NEED = OFFSETS["need"]
_SHORTFALL = OFFSETS["shortfall"]
_NIL_ALIVE = OFFSETS["nil_alive"]
_PER_CARD = tuple(OFFSETS[name] for name in ("tops_trick", "danger", "counted", "cheap",
                                             "suit_length", "ruff_risk"))
_SIGNED = np.r_[_BID_DISTANCE:_BID_DISTANCE + NUM_BIDS, _BID_EXCESS:_BID_EXCESS + NUM_BIDS,
                _NIL_VALUE, _NEED, _SHORTFALL]


def encode(view: SpadesView, out: np.ndarray | None = None) -> np.ndarray:
    """The observation vector of ``view`` (written into ``out`` if given).

    The definition of every feature: the env's incremental ``SpadesObserver``
    is tested to equal it at every step.
    """
    if out is None:
        out = np.zeros(OBS_SIZE, dtype=np.float32)
    else:
        out.fill(0.0)
    me = view.seat
    ones = []
    if view.phase == "bid":
        ones.append(_PHASE)
    elif view.phase == "play":
        ones.append(_PHASE + 1)
    ones.extend(_HAND + c for c in view.hand)
    for seat in range(P):
        rel = (seat - me) % P
        bid = view.bids[seat]
        ones.append(_BIDS + rel * 15 + (0 if bid is None else bid + 1))
        ones.append(_TRICKS + rel * 14 + view.tricks[seat])
        v = view.voids[seat]
        for s in range(4):
            if v >> s & 1:
                ones.append(_VOIDS + rel * 4 + s)
    for seat, c in view.plays:
        ones.append(_PLAYED + ((seat - me) % P) * NUM_CARDS + c)
    for seat, c in view.trick:
        ones.append(_TRICK + ((seat - me) % P) * NUM_CARDS + c)
    ones.append(_LEADER + (view.leader - me) % P)
    for seat, c in view.last_trick:
        ones.append(_LAST + ((seat - me) % P) * NUM_CARDS + c)
    if view.last_trick_winner is not None:
        ones.append(_LAST_WIN + (view.last_trick_winner - me) % P)
    if view.spades_broken:
        ones.append(_BROKEN)
    ones.append(_DEALER + (view.dealer - me) % P)
    rules = view.rules
    if rules.spades_must_be_broken:
        ones.append(_RULES)
    if rules.bids_may_total_tricks:
        ones.append(_RULES + 1)
    if rules.jokers:
        ones.append(_RULES + 2)
    if rules.bag_limit is not None:
        ones.append(_RULES + 3)
    out[ones] = 1.0
    for seat in range(P):
        rel = (seat - me) % P
        out[_SCORES + rel] = min(SCORE_CLIP, max(-SCORE_CLIP, view.scores[seat] / rules.target))
        if rules.bag_limit is not None:
            out[_BAGS + rel] = view.bags[seat] / rules.bag_limit
    out[_HANDNO] = min(1.0, (view.hand_number - 1) / 10.0)
    out[_TPLAYED] = (len(view.plays) // P) / 13.0
    if view.current_player == me:
        decision_features(view, out)
    return out


def decision_features(view: SpadesView, out: np.ndarray) -> None:
    """The blocks only the seat to act sees, from its own view: the hand's worth
    before a bid, each card's odds before a play."""
    if view.phase == "bid":
        hand, rules = view.hand, view.rules
        out[_DECISION] = min(1.0, estimate_tricks(hand, rules.jokers) / 13.0)
        out[_DECISION + 1] = nil_chance(hand)
        tricks = contract_tricks(hand, rules.jokers, view.bids, view.seat)
        out[_CONTRACT] = min(1.0, max(0.0, tricks / 13.0))
        excess = np.clip((np.arange(1, NUM_BIDS) - tricks) / BID_SCALE, -1.0, 1.0)
        out[_BID_DISTANCE] = -1.0  # nil: weighed by nil_value instead
        out[_BID_DISTANCE + 1:_BID_DISTANCE + NUM_BIDS] = -np.abs(excess)
        out[_BID_EXCESS + 1:_BID_EXCESS + NUM_BIDS] = excess
        out[_NIL_VALUE] = min(1.0, max(-1.0, nil_value(hand, rules.nil_points) / NIL_SCALE))
    elif view.phase == "play":
        kn = Knowledge(view)
        out[_DECISION + 2] = min(1.0, kn.expected_tricks / 13.0)
        for c in view.hand:
            out[_P_WIN + c] = kn.p_win(c)
            if kn.is_master(c):
                out[_MASTER + c] = 1.0
        play_features(kn, out)


def play_features(kn: Knowledge, out: np.ndarray) -> None:
    """What the expert's card choice turns on (``agents.spades.play``): whether a card
    takes the trick, how dangerous it is to keep, whether the hand counts on it, how
    cheap it is, its suit's length and the ruff risk of leading it."""
    view, me = kn.view, kn.seat
    need = kn.need()
    out[_NEED] = max(-1.0, min(1.0, need / 13.0))
    out[_SHORTFALL] = max(-1.0, min(1.0, (need - kn.expected_tricks) / 13.0))
    for seat in range(P):
        if kn.nil_alive(seat):
            out[_NIL_ALIVE + (seat - me) % P] = 1.0
    tops, danger, counted, cheap, length, ruff = _PER_CARD
    hand = sorted(view.hand, key=cost)
    last = max(1, len(hand) - 1)
    for i, c in enumerate(hand):
        suit = SUIT_TABLE[c]
        if not kn.trick or beats(c, kn.best, kn.led):
            out[tops + c] = 1.0
        out[danger + c] = kn.danger(c) / DANGER_SCALE
        if c in kn.counted:
            out[counted + c] = 1.0
        out[cheap + c] = 1.0 - i / last
        out[length + c] = len(kn.my_suits[suit]) / 13.0
        if suit != SPADES:
            out[ruff + c] = kn.p_ruffed(suit)


# ------------------------------------------------------------------ observer
# Blocks laid out per relative seat (``P`` sub-blocks, the observer's first);
# every other block but ``hand`` is the same for all observers.
_PER_SEAT_BLOCKS = ("bids", "tricks", "played_by", "trick", "leader", "last_trick",
                    "last_trick_winner", "voids", "scores", "bags", "dealer")


def _rotation(me: int) -> np.ndarray:
    """Indices into seat 0's vector followed by ``NUM_CARDS`` zeros that give seat
    ``me``'s vector with an empty hand: seat 0's per-seat sub-blocks rotated, the
    hand block taken from the zeros."""
    index = np.arange(OBS_SIZE, dtype=np.intp)
    for name, size in LAYOUT:
        if name in _PER_SEAT_BLOCKS:
            k, off = size // P, OFFSETS[name]
            for rel in range(P):
                seat = (me + rel) % P  # seat 0 sees it at relative position ``seat``
                index[off + rel * k:off + (rel + 1) * k] = np.arange(off + seat * k,
                                                                     off + (seat + 1) * k)
    index[_HAND:_HAND + NUM_CARDS] = np.arange(OBS_SIZE, OBS_SIZE + NUM_CARDS)
    return index


_ROTATIONS = tuple(_rotation(me) for me in range(P))


# Index tables for ``SpadesObserver``: positions in its flat buffer of all four
# seats' vectors (seat ``me``'s vector starts at ``me * OBS_SIZE``). Most are
# index arrays naming a feature in every observer's vector at once, as one
# numpy assignment through them costs less than a Python loop of stores.
def _per_observer(offset: int, seat: int, stride: int = 0) -> tuple[int, ...]:
    """The index of ``offset + rel * stride`` in each observer's vector, where
    ``rel`` is ``seat`` relative to that observer."""
    return encoding.in_every_row(OBS_SIZE, P, offset, seat, stride)


def _array(indices: tuple[int, ...]) -> np.ndarray:
    return np.array(indices, dtype=np.intp)


_HAND_AT = tuple(tuple(s * OBS_SIZE + _HAND + c for c in range(NUM_CARDS)) for s in range(P))
_PLAY_AT = tuple(  # [seat][card]: the card's played_by and trick indices
    tuple(_array(_per_observer(_PLAYED + c, s, NUM_CARDS) + _per_observer(_TRICK + c, s, NUM_CARDS))
          for c in range(NUM_CARDS))
    for s in range(P))
_BID_AT = tuple(tuple(_array(_per_observer(_BIDS + b, s, 15)) for b in range(15))  # [seat][bid+1]
                for s in range(P))
_tricks_at = tuple(tuple(_per_observer(_TRICKS + t, s, 14) for t in range(14)) for s in range(P))
_TRICKS_AT = tuple(tuple(_array(t) for t in row) for row in _tricks_at)
_leader_at = tuple(_per_observer(_LEADER, s, 1) for s in range(P))
_last_win_at = tuple(_per_observer(_LAST_WIN, s, 1) for s in range(P))
_VOID_AT = tuple(  # [seat][bits]: the void indices of the suits set in ``bits``
    tuple(_array(sum((_per_observer(_VOIDS + suit, s, 4) for suit in range(4) if bits >> suit & 1),
                     ())) for bits in range(16))
    for s in range(P))
_LEADER_CLEARS = tuple(  # [leader][last trick's winner, None]: what a trick's end clears
    {w: _array(_leader_at[lead] + (() if w is None else _last_win_at[w]))
     for w in (*range(P), None)}
    for lead in range(P))
_WINNER_SETS = tuple(  # [winner][tricks taken]: what the trick's end sets
    tuple(_array(_leader_at[w] + _last_win_at[w] + _tricks_at[w][t]) for t in range(14))
    for w in range(P))
_BID_PHASE_AT = _array(_per_observer(_PHASE, 0))
_PLAY_PHASE_AT = _array(_per_observer(_PHASE + 1, 0))
_BROKEN_AT = _array(_per_observer(_BROKEN, 0))
_TPLAYED_AT = _array(_per_observer(_TPLAYED, 0))
del _tricks_at, _leader_at, _last_win_at


class SpadesObserver:
    """Every seat's observation vector, kept equal to ``encode(state.view(seat))``.

    The env's hot path: instead of building a view and encoding it at every
    step, each move flips only the features it changes (a bid; a card leaving a
    hand for the table; a trick moving to ``last_trick``, its winner scoring and
    leading). A new hand or the end of the game re-encodes: ``encode`` of seat
    0's view, rotated for the other seats (only the hand differs), so ``encode``
    stays the one definition of the features; the tests check that the two agree
    for every seat at every step. One observer belongs to one env.

    The vectors are the rows of one (4, OBS_SIZE) float32 array. A move sets a
    feature in all four at once through a precomputed index array (one numpy
    assignment); single values go through a ``memoryview``, where a scalar
    store costs a fraction of numpy's item assignment. A trick's end moves the
    trick block to the last-trick block with two block copies. The seat-to-act
    blocks stay zero in the rows; ``observation`` adds them to the acting seat's
    copy, so they are computed only for a vector someone asks for.
    """

    def __init__(self) -> None:
        self._obs = np.zeros((P, OBS_SIZE), dtype=np.float32)
        self._seat0 = np.zeros(OBS_SIZE + NUM_CARDS, dtype=np.float32)  # see _rotation
        self._plays = None  # no state yet: the first call re-encodes
        self._make_views()

    def _make_views(self) -> None:
        """Views of ``_obs`` (not pickled: a memoryview cannot be, and copies of
        views would no longer share the buffer)."""
        self._rows = list(self._obs)
        self._flat = self._obs.reshape(-1)
        self._mv = memoryview(self._flat)
        self._trick_block = self._obs[:, _TRICK:_TRICK + P * NUM_CARDS]
        self._last_block = self._obs[:, _LAST:_LAST + P * NUM_CARDS]

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        for name in ("_rows", "_flat", "_mv", "_trick_block", "_last_block"):
            del state[name]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._make_views()

    def reset(self, state) -> None:
        """Encode every seat afresh from ``state``: seat 0's view, rotated for the others."""
        rows, mv, seat0 = self._rows, self._mv, self._seat0
        encode(state.view(0), out=seat0[:OBS_SIZE])  # seat0[OBS_SIZE:] stays zero
        seat0[_DECISION:OBS_SIZE] = 0.0  # added per observation (``observation``)
        rows[0][...] = seat0[:OBS_SIZE]
        for me in range(1, P):
            seat0.take(_ROTATIONS[me], out=rows[me], mode="clip")  # all but the hand
            hand_at = _HAND_AT[me]
            for c in state.hands[me]:
                mv[hand_at[c]] = 1.0
        self._voids = list(state.voids)
        self._broken = state.spades_broken
        self._leader = state.leader
        self._last_winner = state.last_trick_winner
        self._plays = state.plays
        self._num_plays = len(state.plays)
        self._player = state.current_player
        self._phase = state.phase

    def after_apply(self, state, player: int, action: int) -> None:
        """Update the vectors after ``player``'s ``action`` was applied to ``state``.

        Anything but the next move from where the last call left off (a new
        hand, the end of the game, moves applied to the state directly, another
        state) re-encodes every seat.
        """
        plays = state.plays
        if plays is not self._plays or player != self._player:
            self.reset(state)  # a new hand (a new plays list), another state, missed moves
            return
        flat = self._flat
        if action < CARD_OFFSET:  # a bid
            if self._phase != "bid":
                self.reset(state)
                return
            flat[_BID_AT[player][0]] = 0.0
            flat[_BID_AT[player][action + 1]] = 1.0
            if state.phase == "play":  # the last bid: play begins
                flat[_BID_PHASE_AT] = 0.0
                flat[_PLAY_PHASE_AT] = 1.0
                self._phase = "play"
            self._player = state.current_player
            return
        num_plays = len(plays)
        if num_plays != self._num_plays + 1 or self._phase != "play" or state.phase != "play":
            self.reset(state)  # the game is over, or moves we did not see
            return
        card = action - CARD_OFFSET
        self._mv[_HAND_AT[player][card]] = 0.0
        flat[_PLAY_AT[player][card]] = 1.0
        voids = state.voids[player]
        if voids != self._voids[player]:  # voids only grow within a hand
            flat[_VOID_AT[player][voids & ~self._voids[player]]] = 1.0
            self._voids[player] = voids
        if state.spades_broken and not self._broken:
            flat[_BROKEN_AT] = 1.0
            self._broken = True
        if not state.trick:  # the card completed a trick
            self._trick_done(state, num_plays)
        self._num_plays = num_plays
        self._player = state.current_player

    def _trick_done(self, state, num_plays: int) -> None:
        """The trick leaves the table for ``last_trick``; its winner takes it and leads."""
        self._last_block[...] = self._trick_block  # same layout: the trick is the last trick
        self._trick_block.fill(0.0)
        flat = self._flat
        winner = state.last_trick_winner
        taken = state.tricks[winner]
        flat[_LEADER_CLEARS[self._leader][self._last_winner]] = 0.0
        flat[_TRICKS_AT[winner][taken - 1]] = 0.0
        flat[_WINNER_SETS[winner][taken]] = 1.0
        flat[_TPLAYED_AT] = (num_plays // P) / 13.0
        self._leader = self._last_winner = winner

    def observation(self, state, seat: int) -> np.ndarray:
        """A new copy of ``seat``'s vector: ``encode(state.view(seat))``."""
        if (state.plays is not self._plays or len(state.plays) != self._num_plays
                or state.current_player != self._player or state.phase != self._phase):
            self.reset(state)  # moved without after_apply (e.g. state.apply called directly)
        obs = self._rows[seat].copy()
        if seat == state.current_player:  # the rows leave the seat-to-act blocks at zero
            decision_features(state.view(seat), obs)
        return obs


def action_features(num_players: int = P) -> tuple[tuple[int, int, int], ...]:
    """The per-action blocks (``envs.games.Game.action_features``): each bid's distance
    from the contract and nil's value, for the bid actions; each own card's trick
    odds, master flag and version 4's per-card blocks, for the action that plays it."""
    return ((_BID_DISTANCE, 0, NUM_BIDS), (_BID_EXCESS, 0, NUM_BIDS), (_NIL_VALUE, 0, 1),
            (_P_WIN, CARD_OFFSET, NUM_CARDS), (_MASTER, CARD_OFFSET, NUM_CARDS),
            *((offset, CARD_OFFSET, NUM_CARDS) for offset in _PER_CARD))


action_mask = mask_function(NUM_ACTIONS)  # legal ids -> int8 mask

def observation_bounds() -> tuple[np.ndarray, np.ndarray]:
    low = np.zeros(OBS_SIZE, dtype=np.float32)
    high = np.ones(OBS_SIZE, dtype=np.float32)
    low[_SCORES:_SCORES + P] = -SCORE_CLIP
    high[_SCORES:_SCORES + P] = SCORE_CLIP
    low[_SIGNED] = -1.0
    return low, high


def describe(index: int) -> str:
    """Which feature an observation index holds, e.g. 'played_by[1][AS]'."""
    return encoding.describe(LAYOUT, OFFSETS, index)


__all__ = ["encode", "action_features", "action_mask", "SpadesObserver", "OBS_SIZE", "NUM_ACTIONS",
           "ENCODER_VERSION", "LAYOUT", "CARD_OFFSET", "SUIT_TABLE"]
