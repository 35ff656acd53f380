"""Sevens' information state: ``SevensView`` -> float32 vector.

Everything a seat's view holds and nothing a bot estimates: the player count,
the game's parameters (each symbol's permitted values, the three point
amounts), the running total (scaled, its sign, mod 7, its last two digits,
whether it contains a 7), the last card and who placed it, every card on the
table and who played it, the own hand, each seat's points and cards held, the
seats in use, whose turn it is and how far the game has gone, and per play of an
own card what it scores now and the most a card this seat has not seen could then
score. One fixed layout
for every player count 2..9, so one network can play any table: per-seat blocks
have ``MAX_PLAYERS`` slots, relative to the observer (slot 0 is always the
observing seat, then the players after it in turn order), and ``seated`` marks
the slots in use. Bump ``VERSION`` (and the env name) when the layout changes.

``play_points`` and ``reply_points`` are functions of the rest (the total, the
cards' values, the point amounts, the cards seen), written out because a network
cannot find them: a play scores when the new total is divisible by 7 or contains a
7, a modular function of a randomly drawn value, and networks fitted to it from the
other features explained a quarter of its variance (docs/results.md). Like
``total_mod7`` they add no information, only a form a network can read.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from cardrl.envs import encoding
from cardrl.envs.sevens.actions import NUM_ACTIONS, NUM_CARDS
from cardrl.envs.sevens.rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_SYMBOLS,
    POINT_KINDS,
    Parameters,
    hand_size,
)
from cardrl.envs.sevens.scoring import points_for_total
from cardrl.envs.sevens.view import SevensView

if TYPE_CHECKING:
    from cardrl.envs.sevens.engine import SevensState

VERSION = 2
P = MAX_PLAYERS
CLIP = 4.0
VALUE_SCALE = 13.0  # a symbol's value / 13
POINT_SCALE = 20.0  # point amounts and
SCORE_SCALE = 50.0  # points per player, clipped to +-CLIP after scaling
TOTAL_SCALE = 100.0
MAX_HAND = hand_size(MIN_PLAYERS)  # 25: cards held / 25
VALUE_SLOTS = 3  # per symbol: first value, second value, has two
MOD = 7  # the total's residue block: total mod 7
DIGITS = 10  # a one-hot decimal digit of |total|

# (name, size) of each block, in order
LAYOUT = (
    ("num_players", P - MIN_PLAYERS + 1),  # one-hot n = 2..9
    ("values", NUM_SYMBOLS * VALUE_SLOTS),  # per symbol (2..A): first value / 13, second
    # value / 13, has two
    ("points", len(POINT_KINDS)),  # / 20: divisible by 7 only, contains 7 only, both
    ("total", 1),  # running total / 100, clipped
    ("total_negative", 1),
    ("total_mod7", MOD),  # one-hot total mod 7
    ("total_units", DIGITS),  # one-hot last digit of |total|
    ("total_tens", DIGITS),  # one-hot tens digit of |total|
    ("total_has7", 1),  # |total| contains the digit 7
    ("last_card", NUM_CARDS),  # the card the next play must differ from
    ("last_by", P + 1),  # who placed it: relative seat, or the table (last slot)
    ("on_table", NUM_CARDS),  # every card on the table (dealt there or played)
    ("played_by", P * NUM_CARDS),  # per relative seat: the cards it played
    ("hand", NUM_CARDS),
    ("scores", P),  # points / 50, clipped
    ("hand_sizes", P),  # cards held / 25
    ("seated", P),  # 1 for each slot with a player
    ("to_act", P),  # relative seat to play (none once over)
    ("progress", 1),  # plays made / plays in the game
    ("play_points", NUM_ACTIONS),  # per action of an own card: points it scores now / 20
    ("reply_points", NUM_ACTIONS),  # per such action: the most points a card this seat has
)                                   # not seen then scores on the new total / 20
OFFSETS, OBS_SIZE = encoding.offsets(LAYOUT)

_NP = OFFSETS["num_players"]
_VALUES = OFFSETS["values"]
_POINTS = OFFSETS["points"]
_TOTAL = OFFSETS["total"]
_NEG = OFFSETS["total_negative"]
_MOD7 = OFFSETS["total_mod7"]
_UNITS = OFFSETS["total_units"]
_TENS = OFFSETS["total_tens"]
_HAS7 = OFFSETS["total_has7"]
_LAST = OFFSETS["last_card"]
_LAST_BY = OFFSETS["last_by"]
_ON_TABLE = OFFSETS["on_table"]
_PLAYED = OFFSETS["played_by"]
_HAND = OFFSETS["hand"]
_SCORES = OFFSETS["scores"]
_SIZES = OFFSETS["hand_sizes"]
_SEATED = OFFSETS["seated"]
_TO_ACT = OFFSETS["to_act"]
_PROGRESS = OFFSETS["progress"]
_PLAY_POINTS = OFFSETS["play_points"]
_REPLY_POINTS = OFFSETS["reply_points"]

# the features that are not in [0, 1]
SIGNED = [(_VALUES + VALUE_SLOTS * s + i) for s in range(NUM_SYMBOLS) for i in (0, 1)] \
    + list(range(_POINTS, _POINTS + len(POINT_KINDS))) + [_TOTAL] \
    + list(range(_SCORES, _SCORES + P)) \
    + list(range(_PLAY_POINTS, _REPLY_POINTS + NUM_ACTIONS))


def clip(x: float) -> float:
    return CLIP if x > CLIP else -CLIP if x < -CLIP else x


@lru_cache(maxsize=64)
def _game_block(params: Parameters, n: int) -> np.ndarray:
    """The blocks before ``total``, fixed for a game: the player count, the values and
    the points (the parameters change every game; a cache serves its plays)."""
    out = np.zeros(_TOTAL, dtype=np.float32)
    out[_NP + n - MIN_PLAYERS] = 1.0
    for s, vals in enumerate(params.values):
        out[_VALUES + VALUE_SLOTS * s] = clip(vals[0] / VALUE_SCALE)
        if len(vals) == 2:
            out[_VALUES + VALUE_SLOTS * s + 1] = clip(vals[1] / VALUE_SCALE)
            out[_VALUES + VALUE_SLOTS * s + 2] = 1.0
    for i, p in enumerate(params.points):
        out[_POINTS + i] = clip(p / POINT_SCALE)
    return out


def write(view: SevensView, out: np.ndarray) -> None:
    """Write ``view``'s information blocks into the zeroed ``out`` (its first ``OBS_SIZE``
    entries: the features layout starts with the same blocks)."""
    n, me = view.num_players, view.seat
    out[:_TOTAL] = _game_block(view.params, n)
    ones = []
    total = view.total
    out[_TOTAL] = clip(total / TOTAL_SCALE)
    digits = str(abs(total))
    if total < 0:
        ones.append(_NEG)
    ones += [_MOD7 + total % MOD, _UNITS + abs(total) % DIGITS,
             _TENS + abs(total) // DIGITS % DIGITS]
    if "7" in digits:
        ones.append(_HAS7)
    ones.append(_LAST + view.last_card)
    ones.append(_LAST_BY + ((view.plays[-1][0] - me) % n if view.plays else P))
    ones.extend(_ON_TABLE + c for c in view.table)
    for seat, c, _ in view.plays:
        ones.append(_ON_TABLE + c)
        ones.append(_PLAYED + ((seat - me) % n) * NUM_CARDS + c)
    ones.extend(_HAND + c for c in view.hand)
    for seat in range(n):
        rel = (seat - me) % n
        out[_SCORES + rel] = clip(view.scores[seat] / SCORE_SCALE)
        out[_SIZES + rel] = view.hand_sizes[seat] / MAX_HAND
        ones.append(_SEATED + rel)
    if view.current_player is not None:
        ones.append(_TO_ACT + (view.current_player - me) % n)
    out[ones] = 1.0
    out[_PROGRESS] = len(view.plays) / (n * view.rules.hand_size)
    points, values = view.params.points, view.params.values
    replies = {v for c in view.unseen() for v in values[c % NUM_SYMBOLS]}
    for c in view.hand:
        for i, v in enumerate(values[c % NUM_SYMBOLS]):
            a = 2 * c + i
            out[_PLAY_POINTS + a] = clip(points_for_total(total + v, points) / POINT_SCALE)
            if replies:
                out[_REPLY_POINTS + a] = clip(max(points_for_total(total + v + r, points)
                                                  for r in replies) / POINT_SCALE)


def encode(view: SevensView, out: np.ndarray | None = None) -> np.ndarray:
    """The information-state vector of ``view`` (written into ``out`` if given)."""
    if out is None:
        out = np.zeros(OBS_SIZE, dtype=np.float32)
    else:
        out.fill(0.0)
    write(view, out)
    return out


def bounds(size: int) -> tuple[np.ndarray, np.ndarray]:
    """[0, 1] but the values, points, total and scores (+-``CLIP``), over ``size`` entries."""
    low, high = encoding.unit_bounds(size)
    low[SIGNED] = -CLIP
    high[SIGNED] = CLIP
    return low, high


def describe(index: int) -> str:
    """Which feature an observation index holds, e.g. 'played_by[60]'."""
    return encoding.describe(LAYOUT, OFFSETS, index)


# ------------------------------------------------------------------ observer
_PER_SEAT = {"last_by": 1, "played_by": NUM_CARDS, "scores": 1, "hand_sizes": 1, "seated": 1,
             "to_act": 1}  # blocks with one slot (of this size) per relative seat


def _rotation(n: int, me: int) -> np.ndarray:
    """Indices into seat 0's vector followed by one zero that give seat ``me``'s vector
    with an empty hand: seat 0's per-seat slots rotated, the hand taken from the zero."""
    index = np.arange(OBS_SIZE, dtype=np.intp)
    for name, k in _PER_SEAT.items():
        off = OFFSETS[name]
        for rel in range(n):
            seat = (me + rel) % n  # seat 0 sees it at relative slot ``seat``
            index[off + rel * k:off + (rel + 1) * k] = np.arange(off + seat * k,
                                                                 off + (seat + 1) * k)
    index[_HAND:_HAND + NUM_CARDS] = OBS_SIZE
    index[_PLAY_POINTS:_REPLY_POINTS + NUM_ACTIONS] = OBS_SIZE
    return index


# the compiled play points, bound by the first observer (``_import_points``): they load
# numba, which importing the encoders does not (None until then)
if TYPE_CHECKING:
    from cardrl.envs.sevens import points
else:
    points = None


def _import_points() -> None:
    global points
    from cardrl.envs.sevens import points


class SevensObserver:
    """The information state of every seat, from one vector kept move by move.

    Everything but the hand is public, and a seat's vector is seat 0's with the
    per-seat slots rotated; so the observer keeps seat 0's vector without its hand
    (each play changes a dozen features of it) and builds a seat's vector when
    asked, with one ``take`` through that seat's rotation, its hand's bits and its
    plays' points and best replies (one compiled call, ``cardrl.envs.sevens.points``): the
    cost does not grow with the number of players, where keeping nine rows would.
    Anything but the next play from where the last call left off re-encodes, so
    ``encode`` stays the one definition (the tests check the two at every step).
    """

    def __init__(self, num_players: int) -> None:
        self.n = num_players
        self._rotations = [_rotation(num_players, me) for me in range(num_players)]
        self._pub = np.zeros(OBS_SIZE + 1, dtype=np.float32)  # + the zero the hands read
        self._mv = encoding.float_view(self._pub)
        self._plays: list[tuple[int, int, int]] | None = None
        # the game whose values and points the next three hold
        self._params: Parameters | None = None
        _import_points()
        from cardrl.envs import compiled
        # the kernel inlines code of other files, whose changes numba's own check misses
        compiled.fresh_kernels("sevens.points", "sevens", [points.write_kernel])

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        del state["_mv"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._mv = encoding.float_view(self._pub)
        _import_points()

    def reset(self, state: SevensState) -> None:
        view = state.view(0)
        encode(view, out=self._pub[:OBS_SIZE])
        self._pub[_HAND:_HAND + NUM_CARDS] = 0.0
        self._pub[_PLAY_POINTS:_REPLY_POINTS + NUM_ACTIONS] = 0.0
        self._sync(state)
        # bit sets of each seat's hand and of the cards on the table (dealt or played)
        self._held = [sum(1 << c for c in hand) for hand in state.hands]
        self._seen = sum(1 << c for c in view.table) | sum(1 << c for _, c, _ in view.plays)
        if self._params is not state.params:
            self._params = state.params
            self._values = np.zeros((NUM_SYMBOLS, 2), dtype=np.int64)
            self._counts = np.zeros(NUM_SYMBOLS, dtype=np.int64)
            for s, vals in enumerate(state.params.values):
                self._values[s, :len(vals)] = vals
                self._counts[s] = len(vals)
            self._points = np.array(state.params.points, dtype=np.int64)

    def _sync(self, state: SevensState) -> None:
        self._plays = state.plays
        self._num_plays = len(state.plays)
        self._total = state.total
        self._last = state.last_card
        self._last_by = state.plays[-1][0] if state.plays else P

    def after_apply(self, state: SevensState, player: int, action: int) -> None:
        plays = state.plays
        if (plays is not self._plays or len(plays) != self._num_plays + 1
                or state.current_player is None):
            self.reset(state)  # the end of the game, missed moves, another state
            return
        mv, n = self._mv, self.n
        old, total = self._total, state.total
        for i, _value in _total_features(old):
            mv[i] = 0.0
        for i, value in _total_features(total):
            mv[i] = value
        card = action >> 1
        mv[_LAST + self._last] = 0.0
        mv[_LAST + card] = 1.0
        mv[_LAST_BY + self._last_by] = 0.0
        mv[_LAST_BY + player] = 1.0
        mv[_ON_TABLE + card] = 1.0
        mv[_PLAYED + player * NUM_CARDS + card] = 1.0
        mv[_SCORES + player] = clip(state.scores[player] / SCORE_SCALE)
        mv[_SIZES + player] = len(state.hands[player]) / MAX_HAND
        mv[_TO_ACT + player] = 0.0
        mv[_TO_ACT + state.current_player] = 1.0
        mv[_PROGRESS] = len(plays) / (n * state.rules.hand_size)
        self._num_plays, self._total, self._last, self._last_by = len(plays), total, card, player
        self._held[player] &= ~(1 << card)
        self._seen |= 1 << card

    def observation(self, state: SevensState, seat: int) -> np.ndarray:
        """A new vector of ``seat``'s information state: ``encode(state.view(seat))``."""
        if state.plays is not self._plays or len(state.plays) != self._num_plays:
            self.reset(state)  # moved without after_apply (e.g. state.apply called directly)
        obs = self._pub.take(self._rotations[seat])
        for c in state.hands[seat]:
            obs[_HAND + c] = 1.0
        held = self._held[seat]
        if held:
            points.write_kernel(obs, _PLAY_POINTS, _REPLY_POINTS, POINT_SCALE, CLIP,
                                self._total, held, self._seen, self._values, self._counts,
                                self._points)
        return obs


def _total_features(total: int) -> list[tuple[int, float]]:
    """(index, value) of the ``total`` blocks for a running total."""
    out = [(_TOTAL, clip(total / TOTAL_SCALE)), (_MOD7 + total % MOD, 1.0),
           (_UNITS + abs(total) % DIGITS, 1.0), (_TENS + abs(total) // DIGITS % DIGITS, 1.0)]
    if total < 0:
        out.append((_NEG, 1.0))
    if "7" in str(abs(total)):
        out.append((_HAS7, 1.0))
    return out


def card_table(n: int = P) -> encoding.CardTable:
    """Each card: in the hand, the last card, on the table, played by each seat slot, and
    its symbol's values; an action plays a card at its first or second value (its kind)."""
    o = OFFSETS
    planes = encoding.card_planes([o["hand"], o["last_card"], o["on_table"],
                                   *(o["played_by"] + s * NUM_CARDS for s in range(P))],
                                  NUM_CARDS)
    rank = np.arange(NUM_CARDS) % NUM_SYMBOLS
    values = o["values"] + VALUE_SLOTS * rank[:, None] + np.arange(VALUE_SLOTS)[None, :]
    actions = np.arange(NUM_ACTIONS)
    return encoding.CardTable(np.concatenate([planes, values], axis=1), actions >> 1,
                              actions & 1)


def action_features(num_players: int) -> tuple[tuple[int, int, int], ...]:
    """The per-action blocks (``cardrl.envs.encoding.Encoder.action_features``): each play's points
    and its best reply's."""
    return ((_PLAY_POINTS, 0, NUM_ACTIONS), (_REPLY_POINTS, 0, NUM_ACTIONS))


INFOSTATE = encoding.Encoder(
    kind="infostate", version=VERSION, size=lambda n: OBS_SIZE, encode=encode,
    bounds=lambda n: bounds(OBS_SIZE), describe=lambda n, i: describe(i),
    observer=SevensObserver, cards=card_table, action_features=action_features)
