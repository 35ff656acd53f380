"""The AEC env's observer for Blind Auction: every seat's vector, kept by compiled code.

The env asks for an observation at every step, and a round's end changes a few
dozen features in every seat's row; in Python those scalar stores cost more than
the engine's move. Here one compiled call per bid replays it on one game of the
compiled core (``cardrl.envs.blind_auction.compiled``: the same ``_apply`` and the same row
writer the batched games use, tested equal to the engine) and rewrites every seat's
row and mask. Anything but the next bid from where the last call left off (another
state, moves applied behind the env's back) loads the core from the engine state,
so the engine stays the one truth; the tests check the rows equal
``infostate.encode`` of every seat's view at every step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from cardrl.envs import compiled
from cardrl.envs.blind_auction import compiled as core
from cardrl.envs.blind_auction.infostate import OBS_SIZE
from cardrl.envs.blind_auction.rules import BlindAuctionRules

if TYPE_CHECKING:
    from cardrl.envs.blind_auction.engine import BlindAuctionState

P, R = core.P, core.R
G, RP = core.GAME_COLUMNS, core.RULE_ENTRIES
HAND_ROWS = max(compiled.POINTS, compiled.TOTALS, compiled.WINNERS) + 1
# one game's core arrays as slices of two flat buffers: where each starts in ``ints``
_HANDS, _PENDING, _PRIZES, _WON, _LAST_BIDS, _GAME, _RULES, _INTS = (
    0, P, 2 * P, 2 * P + R, 3 * P + R, 4 * P + R, 4 * P + R + G, 4 * P + R + G + RP)
_FLOATS = P + HAND_ROWS * P  # scores, then the hand record ``_apply`` fills at the end


@njit(**compiled.INLINE)
def _views(ints, floats):
    """The core's ``st`` for one game (row 0), and its hand record, over the buffers."""
    st = (ints[_HANDS:_PENDING].reshape((1, P)), ints[_PENDING:_PRIZES].reshape((1, P)),
          ints[_PRIZES:_WON].reshape((1, R)), ints[_WON:_LAST_BIDS].reshape((1, P)),
          ints[_LAST_BIDS:_GAME].reshape((1, P)), floats[0:P].reshape((1, P)),
          ints[_GAME:_RULES].reshape((1, G)), ints[_RULES:_INTS])
    return st, floats[P:_FLOATS].reshape((HAND_ROWS, P))


@njit(**compiled.INLINE)
def _parts(buf, n):
    """``buf``'s parts: the ints, the floats, every seat's vector and mask."""
    a = 8 * _INTS
    b = a + 8 * _FLOATS
    c = b + 4 * n * OBS_SIZE
    return (buf[:a].view(np.int64), buf[a:b].view(np.float64),
            buf[b:c].view(np.float32).reshape((n, OBS_SIZE)),
            buf[c:c + n * R].view(np.int8).reshape((n, R)))


@njit(**compiled.KERNEL)
def observe(buf, n, action):
    """Bid ``action`` (a rank; -1: none) for the seat to act, then update every seat's
    vector and mask: the bid's three features, or at a round's end all of them anew."""
    ints, floats, rows, masks = _parts(buf, n)
    st, hand = _views(ints, floats)
    n = rows.shape[0]
    if action >= 0:
        game = st[core.GAME]
        seat, rounds = game[0, core.CURRENT], game[0, core.ROUNDS]
        core._apply(st, hand, 0, action)
        if game[0, core.ROUNDS] == rounds:  # a bid, the round goes on: three features
            rows[seat, core.HAND + action] = 0.0
            rows[seat, core.CHOSEN + action] = 1.0
            masks[seat, action] = 0
            for me in range(n):
                rows[me, core.ACTED + (seat - me) % n] = 1.0
            return
    for me in range(n):
        row, mask = rows[me], masks[me]
        for j in range(row.shape[0]):
            row[j] = 0.0
        for j in range(mask.shape[0]):
            mask[j] = 0
        core._write_seat(st, row, mask, 0, me)


class BlindAuctionObserver:
    """Every seat's observation vector and mask, kept equal to ``encode(state.view(seat))``
    (the module docstring). One observer belongs to one env."""

    def __init__(self, num_players: int) -> None:
        # the kernel inlines the core's code, whose changes numba's own check does not see
        compiled.fresh_kernels("blind_auction.observer", "blind_auction", [observe])
        self._n = n = num_players
        self._buf = np.zeros(8 * (_INTS + _FLOATS) + n * (4 * OBS_SIZE + R), np.uint8)
        self._no_mask = np.zeros(R, dtype=np.int8)
        self._rules: BlindAuctionRules | None = None  # the rules of the start template below
        self._state: BlindAuctionState | None = None
        self._rebind()
        self._start = self._ints.copy()

    def _rebind(self) -> None:
        """The buffer's parts as numpy views: ``_parts`` run in Python (numpy slices the
        same)."""
        self._ints, self._floats, self._obs, self._masks = _parts.py_func(self._buf, self._n)
        self._rows = list(self._obs)
        self._prizes = self._ints[_PRIZES:_WON]

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        for name in ("_rows", "_prizes", "_ints", "_floats", "_obs", "_masks"):
            del state[name]  # views of ``_buf``: rebuilt on unpickling
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._rebind()

    def _arrays(self) -> tuple:
        """The core's ``st`` for the one game, as ``_views`` cuts it in the kernel."""
        return _views.py_func(self._ints, self._floats)[0]

    def reset(self, state: BlindAuctionState) -> None:
        """Load the compiled game from ``state`` and write every seat's vector."""
        rules = state.rules
        if rules is not self._rules:
            self._ints[:] = 0
            self._ints[_RULES:_INTS] = core.rule_numbers(rules)
            core.CORE.load(self._arrays(), 0, type(state)(rules, 0))  # a game's start
            self._start, self._rules = self._ints.copy(), rules
        if state.round == 0 and state.current_player == 0:  # a game's start: only the prizes
            self._ints[:] = self._start
            self._prizes[:len(state.prizes)] = [c % R for c in state.prizes]
            self._floats[:] = 0.0
        else:
            core.CORE.load(self._arrays(), 0, state)
        observe(self._buf, self._n, -1)
        self._state, self._round, self._player = state, state.round, state.current_player

    def after_apply(self, state: BlindAuctionState, player: int, action: int) -> None:
        """Update the vectors after ``player`` bid ``action`` (a rank) in ``state``."""
        if state is not self._state or player != self._player:
            self.reset(state)
            return
        observe(self._buf, self._n, action)
        self._round, self._player = state.round, state.current_player

    def observation(self, state: BlindAuctionState, seat: int) -> np.ndarray:
        """A new copy of ``seat``'s vector: ``encode(state.view(seat))``."""
        if (state is not self._state or state.round != self._round
                or state.current_player != self._player):
            self.reset(state)  # moved without after_apply (e.g. state.apply called directly)
        return self._rows[seat].copy()

    def observe(self, state: BlindAuctionState, seat: int) -> dict[str, np.ndarray]:
        """``seat``'s observation dict: new copies of its vector and its mask."""
        if (state is not self._state or state.round != self._round
                or state.current_player != self._player):
            self.reset(state)
        return {"observation": self._rows[seat].copy(),
                "action_mask": (self._masks[seat] if seat == state.current_player
                                else self._no_mask).copy()}

    def action_mask(self, state: BlindAuctionState, seat: int) -> np.ndarray:
        """A new copy of ``seat``'s mask: the ranks it holds if it is to bid, else none."""
        if (state is not self._state or state.round != self._round
                or state.current_player != self._player):
            self.reset(state)
        return (self._masks[seat] if seat == state.current_player else self._no_mask).copy()
