"""Sevens observation encoder: ``SevensView`` -> float32 vector, and the action mask.

One fixed layout for every player count 2..9, so one network can play any
table: per-seat blocks have ``MAX_PLAYERS`` slots, relative to the observer
(slot 0 is always the observing seat, then the players after it in turn order),
and ``seated`` marks the slots in use. The parameters change every game, so
they are part of every observation. Bump ``ENCODER_VERSION`` (and the env
name) when the layout changes.

Version 2 adds two per-action blocks, the arithmetic a network finds hardest
to learn from the total's digits: the points each play scores now, and the
most the next play could then score with any card this seat has not seen
(the reply a play sets up). Both are public knowledge of the seat.
Version 3 adds what ``sevens/lookahead`` subtracts from a play's points: the
points the next player's best reply can be expected to earn after it
(``envs.sevens.reply``), exact over the hands it could hold.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from envs import encoding
from envs.aec import mask_function
from envs.sevens.actions import NUM_ACTIONS, NUM_CARDS
from envs.sevens.engine import RANK
from envs.sevens.reply import expected_reply_array
from envs.sevens.rules import MAX_PLAYERS, MIN_PLAYERS, NUM_SYMBOLS, Parameters, hand_size
from envs.sevens.scoring import points_for_totals
from envs.sevens.view import SevensView

ENCODER_VERSION = 3
P = MAX_PLAYERS
CLIP = 4.0
VALUE_SCALE = 13.0  # a symbol's value / 13
POINT_SCALE = 20.0  # point amounts and
SCORE_SCALE = 50.0  # points per player, clipped to +-CLIP after scaling
TOTAL_SCALE = 100.0
MAX_HAND = hand_size(MIN_PLAYERS)  # 25

# (name, size) of each block, in order
LAYOUT = (
    ("num_players", P - MIN_PLAYERS + 1),  # one-hot n = 2..9
    ("values", NUM_SYMBOLS * 3),  # per symbol (2..A): first value, second value, has two
    ("points", 3),  # divisible by 7 only, contains 7 only, both
    ("total", 1),  # running total / 100, clipped
    ("total_negative", 1),
    ("total_mod7", 7),  # one-hot total mod 7
    ("total_units", 10),  # one-hot last digit of |total|
    ("total_tens", 10),  # one-hot tens digit of |total|
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
    ("reply_points", NUM_ACTIONS),  # per such action: the best points an unseen card then
                                    # scores on the new total / 20
    ("reply_expected", NUM_ACTIONS),  # per such action: the next player's expected best
)                                     # reply / 20
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
_REPLY_EXPECTED = OFFSETS["reply_expected"]

# the features that are not in [0, 1]
_SIGNED = [(_VALUES + 3 * s + i) for s in range(NUM_SYMBOLS) for i in (0, 1)] \
    + list(range(_POINTS, _POINTS + 3)) + [_TOTAL] + list(range(_SCORES, _SCORES + P)) \
    + list(range(_PLAY_POINTS, _PLAY_POINTS + 3 * NUM_ACTIONS))


def _points(totals: np.ndarray, points: tuple[int, int, int]) -> np.ndarray:
    """Scaled, clipped points for an array of totals."""
    return np.clip(points_for_totals(totals, points) / POINT_SCALE, -CLIP, CLIP)


def _action_points(view: SevensView, out: np.ndarray) -> None:
    points = tuple(view.params.points)
    values = view.params.values
    actions, new_totals = [], []
    for c in view.hand:
        for i, v in enumerate(values[RANK[c]]):
            actions.append(2 * c + i)
            new_totals.append(view.total + v)
    if not actions:
        return
    totals = np.array(new_totals)
    acts = np.array(actions)
    out[_PLAY_POINTS + acts] = _points(totals, points)
    unseen = view.unseen()
    replies = sorted({v for c in unseen for v in values[RANK[c]]})
    if replies:
        after = totals[:, None] + np.array(replies)[None, :]
        out[_REPLY_POINTS + acts] = _points(after, points).max(axis=1)
    expected = expected_reply_array(view, acts, totals, unseen)
    out[_REPLY_EXPECTED + acts] = np.clip(expected / POINT_SCALE, -CLIP, CLIP)


def _clip(x: float) -> float:
    return CLIP if x > CLIP else -CLIP if x < -CLIP else x


@lru_cache(maxsize=64)
def _game_block(params: Parameters, n: int) -> np.ndarray:
    """The blocks before ``total``, fixed for a game: the player count, the values and
    the points (the parameters change every game; a cache serves its plays)."""
    out = np.zeros(_TOTAL, dtype=np.float32)
    out[_NP + n - MIN_PLAYERS] = 1.0
    for s, vals in enumerate(params.values):
        out[_VALUES + 3 * s] = _clip(vals[0] / VALUE_SCALE)
        if len(vals) == 2:
            out[_VALUES + 3 * s + 1] = _clip(vals[1] / VALUE_SCALE)
            out[_VALUES + 3 * s + 2] = 1.0
    for i, p in enumerate(params.points):
        out[_POINTS + i] = _clip(p / POINT_SCALE)
    return out


def encode(view: SevensView, out: np.ndarray | None = None) -> np.ndarray:
    """The observation vector of ``view`` (written into ``out`` if given)."""
    if out is None:
        out = np.zeros(OBS_SIZE, dtype=np.float32)
    else:
        out.fill(0.0)
    n, me = view.num_players, view.seat
    out[:_TOTAL] = _game_block(view.params, n)
    ones = []
    total = view.total
    out[_TOTAL] = _clip(total / TOTAL_SCALE)
    digits = str(abs(total))
    if total < 0:
        ones.append(_NEG)
    ones += [_MOD7 + total % 7, _UNITS + abs(total) % 10, _TENS + abs(total) // 10 % 10]
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
        out[_SCORES + rel] = _clip(view.scores[seat] / SCORE_SCALE)
        out[_SIZES + rel] = view.hand_sizes[seat] / MAX_HAND
        ones.append(_SEATED + rel)
    if view.current_player is not None:
        ones.append(_TO_ACT + (view.current_player - me) % n)
    out[ones] = 1.0
    out[_PROGRESS] = len(view.plays) / (n * view.rules.hand_size)
    _action_points(view, out)
    return out


def action_features(num_players: int) -> tuple[tuple[int, int, int], ...]:
    """The per-action blocks (``envs.games.Game.action_features``), any player count."""
    return tuple((OFFSETS[name], 0, NUM_ACTIONS)
                 for name in ("play_points", "reply_points", "reply_expected"))


action_mask = mask_function(NUM_ACTIONS)  # legal ids -> int8 mask

def observation_bounds() -> tuple[np.ndarray, np.ndarray]:
    low = np.zeros(OBS_SIZE, dtype=np.float32)
    high = np.ones(OBS_SIZE, dtype=np.float32)
    low[_SIGNED] = -CLIP
    high[_SIGNED] = CLIP
    return low, high


def describe(index: int) -> str:
    """Which feature an observation index holds, e.g. 'played_by[60]'."""
    return encoding.describe(LAYOUT, OFFSETS, index)


__all__ = ["encode", "action_features", "action_mask", "observation_bounds", "describe",
           "OBS_SIZE", "NUM_ACTIONS", "ENCODER_VERSION", "LAYOUT", "OFFSETS"]
