"""numpy's ``default_rng(seed)`` in numba, bit for bit: what the engines' deals draw.

The engines deal from ``numpy.random.default_rng(seed)`` (``cardrl.envs.states.generator``):
a ``SeedSequence`` hashes the seed into a ``PCG64`` state, and ``cards.shuffled`` takes
``Generator.permutation``. A compiled core (``cardrl.envs.compiled``) starts thousands of
episodes a second, where ``default_rng`` alone costs about 15 us in Python, so it
replays the same three steps here: ``seed_state`` (SeedSequence + PCG64 seeding),
``next64`` / ``next32`` (PCG64's XSL-RR output and its 32-bit buffer) and
``permutation`` (numpy's Fisher-Yates with ``random_interval``). A generator's state is
one row of six uint64: the 128-bit state (high, low), the 128-bit increment (high,
low), ``has_uint32`` and ``uinteger``, as ``bit_generator.state`` holds them
(``from_generator`` / ``to_generator`` convert). The tests check all of it against
numpy on many seeds. Like every kernel of a core, these run without numba's reference
counting (``_nrt=False``) and allocate nothing.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cardrl.envs import cards
from cardrl.envs.states import generator

U = np.uint64
M32 = U(0xFFFFFFFF)
M64 = (1 << 64) - 1
SHIFT16, SHIFT32, SHIFT58, ONE, ZERO = U(16), U(32), U(58), U(1), U(0)
# SeedSequence's hash constants (numpy/random/bit_generator.pyx)
INIT_A, MULT_A = U(0x43B0D7E5), U(0x931E8875)
INIT_B, MULT_B = U(0x8B51F9DD), U(0x58F38DED)
MIX_L, MIX_R = U(0xCA01F9DD), U(0x4973F715)
# PCG64's 128-bit multiplier (numpy/random/src/pcg64/pcg64.h)
MULT_HI, MULT_LO = U(2549297995355413924), U(4865540595714422341)
ROW = 6  # uint64 words per generator: state hi, lo, inc hi, lo, has_uint32, uinteger
SCRATCH = 14  # uint64 words ``seed_state`` works in


@njit(cache=True, _nrt=False)
def _hashmix(value, hc):
    value = (value ^ hc) & M32
    hc = (hc * MULT_A) & M32
    value = (value * hc) & M32
    return value ^ (value >> SHIFT16), hc


@njit(cache=True, _nrt=False)
def _mix(x, y):
    r = (MIX_L * x - MIX_R * y) & M32
    return r ^ (r >> SHIFT16)


@njit(cache=True, _nrt=False)
def _mulhi(a, b):
    a0, a1, b0, b1 = a & M32, a >> SHIFT32, b & M32, b >> SHIFT32
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p00 >> SHIFT32) + (p01 & M32) + (p10 & M32)
    return p11 + (p01 >> SHIFT32) + (p10 >> SHIFT32) + (mid >> SHIFT32)


@njit(cache=True, _nrt=False)
def _step(g):
    """state = state * MULT + inc (mod 2**128)."""
    hi, lo = g[0], g[1]
    new_lo = lo * MULT_LO
    new_hi = _mulhi(lo, MULT_LO) + lo * MULT_HI + hi * MULT_LO
    lo2 = new_lo + g[3]
    carry = U(1) if lo2 < new_lo else ZERO
    g[0] = new_hi + g[2] + carry
    g[1] = lo2


@njit(cache=True, _nrt=False)
def seed_state(seed, g, scratch):
    """Row ``g`` := the state of ``numpy.random.default_rng(seed)`` (``seed`` >= 0, < 2**64);
    ``scratch``: at least 14 uint64 to work in (the kernels allocate nothing)."""
    s = U(seed)
    entropy, pool, words = scratch[0:2], scratch[2:6], scratch[6:14]
    entropy[0] = s & M32
    entropy[1] = s >> SHIFT32
    length = 2 if entropy[1] != ZERO else 1
    hc = INIT_A
    for i in range(4):
        pool[i], hc = _hashmix(entropy[i] if i < length else ZERO, hc)
    for i_src in range(4):
        for i_dst in range(4):
            if i_src != i_dst:
                h, hc = _hashmix(pool[i_src], hc)
                pool[i_dst] = _mix(pool[i_dst], h)
    hc = INIT_B  # generate_state(4, uint64) as 8 uint32 words
    for i in range(8):
        v = (pool[i % 4] ^ hc) & M32
        hc = (hc * MULT_B) & M32
        v = (v * hc) & M32
        words[i] = v ^ (v >> SHIFT16)
    seed_hi = words[0] | (words[1] << SHIFT32)
    seed_lo = words[2] | (words[3] << SHIFT32)
    inc_hi = words[4] | (words[5] << SHIFT32)
    inc_lo = words[6] | (words[7] << SHIFT32)
    g[0] = ZERO
    g[1] = ZERO
    g[2] = (inc_hi << ONE) | (inc_lo >> U(63))
    g[3] = (inc_lo << ONE) | ONE
    _step(g)
    lo = g[1] + seed_lo
    carry = U(1) if lo < g[1] else ZERO
    g[0] = g[0] + seed_hi + carry
    g[1] = lo
    _step(g)
    g[4] = ZERO
    g[5] = ZERO


@njit(cache=True, _nrt=False)
def next64(g):
    """PCG64's next 64-bit output (step, then XSL-RR of the new state)."""
    _step(g)
    hi, lo = g[0], g[1]
    v = hi ^ lo
    rot = hi >> SHIFT58
    return (v >> rot) | (v << ((U(64) - rot) & U(63)))


@njit(cache=True, _nrt=False)
def next32(g):
    """numpy's ``next_uint32`` for PCG64: each 64-bit output serves two calls, low half first."""
    if g[4] != ZERO:
        g[4] = ZERO
        return g[5]
    v = next64(g)
    g[4] = ONE
    g[5] = v >> SHIFT32
    return v & M32


@njit(cache=True, _nrt=False)
def interval(g, top):
    """numpy's ``random_interval(top)``: uniform in 0..top by masked rejection."""
    if top == 0:
        return np.int64(0)
    mask = U(top)
    for k in (1, 2, 4, 8, 16, 32):
        mask |= mask >> U(k)
    if top <= 0xFFFFFFFF:
        while True:
            v = next32(g) & mask
            if v <= U(top):
                return np.int64(v)
    while True:
        v = next64(g) & mask
        if v <= U(top):
            return np.int64(v)


@njit(cache=True, _nrt=False)
def permutation(g, out):
    """``out`` := ``Generator.permutation(len(out))`` (numpy's shuffle of an arange)."""
    n = out.shape[0]
    for i in range(n):
        out[i] = i
    for i in range(n - 1, 0, -1):
        j = interval(g, i)
        out[i], out[j] = out[j], out[i]


@njit(cache=True, _nrt=False)
def _seeded_permutation(seed, work, out):
    seed_state(seed, work[:6], work[6:])
    permutation(work[:6], out)


def shuffled(deck: list[int] | tuple[int, ...], rng) -> list[int]:
    """``cards.shuffled(deck, states.generator(rng))``, compiled where ``rng`` is a seed: an
    engine that draws once a game (Blind Auction's prizes) then starts in a tenth of the
    time ``default_rng`` takes."""
    if type(rng) is int and 0 <= rng < 2**63:  # (numba takes an int64)
        order = np.empty(len(deck), np.int64)
        _seeded_permutation(rng, np.empty(20, np.uint64), order)
        return [deck[i] for i in order.tolist()]
    return cards.shuffled(deck, generator(rng))


def from_generator(rng: np.random.Generator, g: np.ndarray) -> None:
    """Row ``g`` := the state of the PCG64 generator ``rng`` (a Python engine's)."""
    st = rng.bit_generator.state
    if st["bit_generator"] != "PCG64":
        raise ValueError(f"a compiled core replays PCG64 only, got {st['bit_generator']!r}")
    state, inc = st["state"]["state"], st["state"]["inc"]
    g[:] = (state >> 64, state & M64, inc >> 64, inc & M64, st["has_uint32"], st["uinteger"])


def to_generator(g: np.ndarray) -> np.random.Generator:
    """A new ``numpy.random.Generator`` in the state of row ``g``."""
    bits = np.random.PCG64()
    hi, lo, inc_hi, inc_lo, has, integer = (int(x) for x in g)
    bits.state = {"bit_generator": "PCG64",
                  "state": {"state": hi << 64 | lo, "inc": inc_hi << 64 | inc_lo},
                  "has_uint32": has, "uinteger": integer}
    return np.random.Generator(bits)
