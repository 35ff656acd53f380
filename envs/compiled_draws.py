"""``Generator.integers`` and ``Generator.random`` over ``cardrl.envs.compiled_rng`` rows,
bit for bit.

Engines draw more than a shuffle from their seed: Gin Rummy's random first dealer
(``rng.integers(n)``), Sevens' game parameters (``integers`` and ``random``). These
replay numpy's algorithms for them: Lemire's bounded draw over 32-bit outputs for
``integers(low, high)`` (a range that fits 32 bits, as every rules field allows), 53
bits of a 64-bit output for ``random()``. tests/test_compiled_draws.py compares them
with numpy on many seeds and call sequences.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardrl.envs.compiled_rng import next32, next64

_U = np.uint64
_M32 = _U(0xFFFFFFFF)
MAX_RANGE = 1 << 32  # ``integers`` takes ``high - low`` up to this


@njit(cache=True)
def integers(g, low, high):
    """``Generator.integers(low, high)``: ``high`` excluded, ``high - low`` in 1..2**32; a
    range of one value draws nothing, as numpy's."""
    r = _U(high - 1 - low)
    if r == _U(0):
        return low
    if r == _M32:
        return low + np.int64(next32(g))
    excl = r + _U(1)
    m = _U(next32(g)) * excl
    left = m & _M32
    if left < excl:
        threshold = (_M32 - r) % excl
        while left < threshold:
            m = _U(next32(g)) * excl
            left = m & _M32
    return low + np.int64(m >> _U(32))


@njit(cache=True)
def random(g):
    """``Generator.random()``."""
    return np.float64(next64(g) >> _U(11)) * (1.0 / 9007199254740992.0)
