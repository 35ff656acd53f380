"""The compiled draws give numpy's ``default_rng(seed)`` numbers, call for call."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from cardrl.envs import compiled_draws, compiled_rng


@njit(cache=True)
def _script(seed, calls, out):
    """Seed a row, then per call: 0 integers(lo, hi), 1 random(), 2 a permutation of 52."""
    g = np.zeros(compiled_rng.ROW, np.uint64)
    compiled_rng.seed_state(seed, g, np.zeros(compiled_rng.SCRATCH, np.uint64))
    perm = np.zeros(52, np.int64)
    k = 0
    for c in range(calls.shape[0]):
        kind, lo, hi = calls[c, 0], calls[c, 1], calls[c, 2]
        if kind == 0:
            out[k] = compiled_draws.integers(g, lo, hi)
            k += 1
        elif kind == 1:
            out[k] = compiled_draws.random(g)
            k += 1
        else:
            compiled_rng.permutation(g, perm)
            out[k:k + 52] = perm
            k += 52
    return g


def _numpy(rng, calls) -> list[float]:
    out: list[float] = []
    for kind, lo, hi in calls:
        if kind == 0:
            out.append(float(rng.integers(lo, hi)))
        elif kind == 1:
            out.append(rng.random())
        else:
            out.extend(float(x) for x in rng.permutation(52))
    return out


CALL = st.one_of(
    st.tuples(st.just(0), st.integers(-1000, 1000), st.integers(1, 3000)).map(
        lambda t: (0, t[1], t[1] + t[2])),
    st.tuples(st.just(0), st.just(0), st.integers(1, 2**32)),
    st.just((1, 0, 0)), st.just((2, 0, 0)))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), calls=st.lists(CALL, max_size=12))
def test_every_call_gives_numpys_number(seed, calls):
    table = np.array(calls or [(1, 0, 0)], dtype=np.int64).reshape(-1, 3)
    out = np.zeros(52 * len(table), dtype=np.float64)
    row = _script(seed, table, out)
    rng = np.random.default_rng(seed)
    expected = _numpy(rng, table.tolist())
    assert out[:len(expected)].tolist() == expected
    # the row's state is the generator's: the next numbers agree too
    assert compiled_rng.to_generator(row).random() == rng.random()
