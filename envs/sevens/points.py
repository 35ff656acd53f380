"""The points of a Sevens play and of its best reply, compiled.

What the information state's ``play_points`` and ``reply_points`` hold
(``cardrl.envs.sevens.infostate.write`` is their definition), written by the compiled core
(``cardrl.envs.sevens.compiled``) and by the AEC env's observer alike: both are tested equal
to the definition at every step.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardrl.envs.compiled import INLINE, low_bit
from cardrl.envs.sevens.scoring import KIND, TOTAL_RANGE

ALL = np.int64((1 << 52) - 1)  # every card, as a bit set
_KIND = np.asarray(KIND, dtype=np.int64)  # per total + TOTAL_RANGE: which points it scores


@njit(**INLINE)
def points_for_total(total, points):
    """``scoring.points_for_total``: divisible by 7 (0 counts), contains a 7 (|total|)."""
    div = total % 7 == 0
    has7 = False
    t = abs(total)
    while t:
        if t % 10 == 7:
            has7 = True
            break
        t //= 10
    if div:
        return points[2] if has7 else points[0]
    return points[1] if has7 else 0


@njit(**INLINE)
def points_at(total, points):
    """``points_for_total`` by the scoring module's table of totals (the function beyond)."""
    if -TOTAL_RANGE <= total <= TOTAL_RANGE:
        kind = _KIND[total + TOTAL_RANGE]
        return 0 if kind == 0 else points[kind - 1]
    return points_for_total(total, points)


@njit(**INLINE)
def _symbols(cards):
    """The bit set of the symbols (ranks) of a bit set of cards."""
    out = 0
    while cards:
        out |= 1 << (low_bit(cards) % 13)
        cards &= cards - 1
    return out


@njit(**INLINE)
def _clip(x, bound):
    return bound if x > bound else -bound if x < -bound else x


@njit(**INLINE)
def write(row, play_at, reply_at, scale, bound, total, hand, seen, values, counts, points):
    """Per play of a card in ``hand`` (a bit set; ``2 * card + value index``), into ``row``
    where it is 0: its points on the new total at ``play_at``, and the most a card outside
    ``hand`` and ``seen`` then scores at ``reply_at``, each / ``scale`` clipped to
    ``bound``. Every card of a symbol scores alike, so each symbol is worked out once."""
    held = _symbols(hand)
    unseen = _symbols(ALL & ~(seen | hand))
    while held:
        s = low_bit(held)
        held &= held - 1
        for j in range(counts[s]):
            t = total + values[s, j]
            play = _clip(points_at(t, points) / scale, bound)
            reply = 0.0
            if unseen:
                best = np.int64(-(1 << 62))
                others = unseen
                while others:
                    u = low_bit(others)
                    others &= others - 1
                    for k in range(counts[u]):
                        best = max(best, points_at(t + values[u, k], points))
                reply = _clip(best / scale, bound)
            for suit in range(4):
                c = 13 * suit + s
                if hand >> c & 1:
                    row[play_at + 2 * c + j] = play
                    row[reply_at + 2 * c + j] = reply


@njit(cache=True, _nrt=False)
def write_kernel(row, play_at, reply_at, scale, bound, total, hand, seen, values, counts,
                 points):
    """``write``, called from Python (the AEC env's observer)."""
    write(row, play_at, reply_at, scale, bound, total, hand, seen, values, counts, points)
