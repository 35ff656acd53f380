"""Compiled batched cores: the state of N games as arrays, stepped in numba loops.

``cardrl.envs.batched.BatchedGames`` serves a (game, rules, observation kind) from compiled
code when the game's package has ``envs/<game>/compiled.py`` (found by its place,
``cardrl.envs.games.game_module``) defining ``CORE``, an instance of a ``Core`` subclass whose
``supports(rules, kind)`` returns None; otherwise it steps the Python engines. Both
give exactly the same observations, masks, seats, rewards and done flags on the same
seeds and deals (tests/test_compiled.py checks every game with a core). The Python
engine stays the reference: every episode a core starts itself must equal
``game.state(rules, seed)``, and a given deal is dealt by the engine and loaded.

What a game's ``compiled.py`` provides (the protocol)
-----------------------------------------------------

``CORE``, with these members (``st`` is the game's own tuple of arrays, ``d`` the
``Driver`` below, ``i`` a game's row):

* ``supports(rules, kind) -> str | None``: None when the core plays these rules and
  writes this observation kind exactly; else why not (BatchedGames then uses Python).
* ``arrays(rules, num_games, kind) -> tuple``: a new ``st``, every game's state and the
  rules' numbers as numpy arrays (numba takes a tuple of arrays as one argument).
* ``load(st, i, state)``: row ``i`` := ``state``, an engine state fresh from
  ``game.state(rules, seed, deal)`` (Python; the driver copies ``state.rng``, if the
  state keeps one, into ``d.rng[i]``).
* three kernels, ``@njit(**KERNEL)`` (cached, no reference counting: they allocate
  nothing; per-game helpers ``@njit(**INLINE)``), each one loop over its rows:

  - ``start(st, d, rows) -> flags``: for each row ``i``: ``begin(d, i)`` (the next seed
    and its generator), then the game's own start of an episode from ``d.rng[i]`` exactly
    as the engine's constructor draws it; where it cannot, ``python_start(d, i)`` and
    skip the row (the driver starts it with the engine); else ``write`` the row.
  - ``step(st, d, idx, acts, rewards, dones) -> flags``: for each ``k``, game
    ``i = idx[k]`` if ``d.live[i]``: ``record(d, i, a)``, apply the legal action
    ``a = acts[k]`` (dealing later hands from ``d.rng[i]`` as the engine does), and when
    a hand is scored (its points, totals and winners written into ``d.hand``'s rows)
    ``settle(d, i, k, over, rewards, dones)``, which pays the hand and says what
    follows: ``GOES_ON``, ``RESTART`` (then start the row as in ``start``) or ``STOPPED``
    (the row is cleared; nothing more). Then write.
  - ``write(st, d, rows)``: ``d.obs[i]`` (the seat to act's observation, exactly the
    encoder's vector of its view; ``blank(d, i)`` zeroes the row first), ``d.masks[i]``
    and ``d.seats[i]``; -1, zeros and no legal action for a finished game
    (``clear(d, i)``).

  ``flags`` is the OR of ``python_start``'s and ``record``'s returns (``PYTHON``,
  ``HISTORY``): what the driver must do in Python after the call. At most one hand
  ends per step. Actions reach ``step`` checked (legal, ints); illegal actions are the
  driver's business (``cardrl.envs.rewards.Payout.resolve``, the Python path's code).

Episodes restart with the Python path's seeds (game ``i``'s k-th from
``seed + i + k * num_games``). ``BatchedGames.states[i]`` stays the engine state: the
driver records each episode's actions (``d.hist``) and rebuilds the state on demand by
replaying them on ``game.state(rules, seed, deal)``, incrementally (a cached state only
applies the actions since it was last read), so rule bots in a self-play pool cost what
they cost on the Python path. A state read is brought up to date when it is read again
and when its episode ends (a reference kept across steps without reading ``states[i]``
again is otherwise as of its last read; on the Python path it is the live state).

The numba functions are compiled once per machine and cached on disk (``cache=True``,
in ``__pycache__`` beside the sources); a second process loads them (measured in
docs/design.md). numba checks a cached kernel against its own file's date only, but a
kernel inlines helpers and freezes constants from other modules (this one,
``compiled_rng``, the game's engine); so before a core's first use in a process,
``fresh`` drops the cached code of the core module's functions when any source of
``envs/`` or of the game's package has changed since that code was written (a digest
stored beside it).
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple, overload

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from cardrl.envs import compiled_rng
from cardrl.envs.contracts import CompiledCore, EngineState
from cardrl.envs.games import Game, game_module
from cardrl.envs.rewards import Payout

# how every kernel is compiled: cached on disk, and without numba's reference counting, which
# otherwise increments and decrements every array of a tuple passed to a helper, atomically,
# at each call (measured: ten times the cost of the helper's own work). So a kernel
# allocates nothing: its scratch space is the driver's (``scratch``, ``hand``).
KERNEL = dict(cache=True, _nrt=False)
INLINE = dict(KERNEL, inline="always")  # the small helpers a kernel calls per game
GOES_ON, RESTART, STOPPED = 0, 1, 2  # what ``settle`` says follows a scored hand
POINTS, TOTALS, WINNERS = 0, 1, 2  # the rows of ``Driver.hand``
PYTHON, HISTORY = 1, 2  # flags a kernel returns: a row to start in Python; a history to grow
HISTORY_CAPACITY = 512  # actions per game before the driver grows ``hist``
# ``pay`` holds: score_scale, relative_score, win_reward, episode == "hand", auto_reset,
# max_episode_hands (0: none), hand_reward == "worth" (a core whose game declares a
# ``hand_worth`` writes that worth as the hand's points when this is set)
SCALE, RELATIVE, WIN, BY_HAND, AUTO_RESET, CAP, WORTH = range(7)


class Driver(NamedTuple):
    """The arrays every core shares with the driver; numba reads them by name."""

    obs: np.ndarray  # (N, obs size) float32: the seat to act's observation
    masks: np.ndarray  # (N, num actions) bool
    seats: np.ndarray  # (N,) int64: the seat to act, -1 for a finished game
    seeds: np.ndarray  # (N,) int64: the seed of each game's episode
    episodes: np.ndarray  # (N,) int64: episodes started per game since reset (seeds)
    starts: np.ndarray  # (N,) int64: every (re)start of the row, for the state cache
    live: np.ndarray  # (N,) bool: the game's episode goes on
    rng: np.ndarray  # (N, 6) uint64: each game's generator (``cardrl.envs.compiled_rng``)
    hist: np.ndarray  # (N, capacity) int16: the actions of each episode so far
    hist_len: np.ndarray  # (N,) int64
    python: np.ndarray  # (N,) bool: the episode must be started by the Python engine
    pay: np.ndarray  # (7,) float64: the payout's numbers (SCALE ... WORTH)
    seed_base: np.ndarray  # (2,) int64: reset's seed, num_games
    scratch: np.ndarray  # (64,) uint64: a kernel's working space (a deck's order, seeding)
    hand: np.ndarray  # (3, num_players) float64: a scored hand's points, totals, winners (1/0)
    hands: np.ndarray  # (N,) int64: hands scored in the row's episode (the cap counts them)
    cut: np.ndarray  # (N,) bool: per entry k of a step, its episode was cut at the cap


# ------------------------------------------------------------ kernel helpers
@njit(inline="always")
def low_bit(x):
    """The index of the lowest set bit of ``x`` (a card id of a hand held as a bit set)."""
    return trailing_zeros(x)


@njit(inline="always")
def set_bits(row, base, bits):
    """``row[base + c] = 1`` for each card id ``c`` in the bit set ``bits``."""
    while bits:
        row[base + trailing_zeros(bits)] = 1.0
        bits &= bits - 1


@njit(**INLINE)
def begin(d, i):
    """Row ``i``'s next episode: its seed (the Python path's) and generator, no history."""
    seed = d.seed_base[0] + i + d.episodes[i] * d.seed_base[1]
    d.episodes[i] += 1
    d.seeds[i] = seed
    compiled_rng.seed_state(seed, d.rng[i], d.scratch[:compiled_rng.SCRATCH])
    d.hist_len[i] = 0
    d.hands[i] = 0
    d.starts[i] += 1
    d.live[i] = True
    d.python[i] = False


@njit(**INLINE)
def python_start(d, i):
    """Row ``i`` (after ``begin``) is to be started by the engine; returns ``PYTHON``."""
    d.python[i] = True
    clear(d, i)
    return PYTHON


@njit(**INLINE)
def record(d, i, action):
    """Append ``action`` to row ``i``'s history; ``HISTORY`` when it is getting full."""
    hist, lengths = d.hist, d.hist_len
    n = lengths[i]
    hist[i, n] = action
    lengths[i] = n + 1
    return HISTORY if 4 * (n + 1) >= 3 * hist.shape[1] else 0


@njit(**INLINE)
def blank(d, i):
    """Row ``i``'s observation and mask all zeros: a write starts here. (Index loops, which
    LLVM turns into memset; a slice assignment compiles to a loop several times slower.)"""
    obs, masks = d.obs, d.masks
    for j in range(obs.shape[1]):
        obs[i, j] = 0.0
    for j in range(masks.shape[1]):
        masks[i, j] = False


@njit(**INLINE)
def clear(d, i):
    """Row ``i`` of a finished game: no seat, a zero observation, no legal action."""
    d.seats[i] = -1
    blank(d, i)


@njit(**INLINE)
def settle(d, i, k, over, rewards, dones):
    """Pay row ``i``'s scored hand into ``rewards[k]`` as ``cardrl.envs.rewards.Payout.settle`` does
    (the same float operations): each seat's points (``d.hand[0]``) over the scale (or,
    relative, less the others' mean), then, when the episode ends (``over``: the game's
    winners, ``d.hand[2]`` 1 or 0; by hand: the leaders on the totals, ``d.hand[1]``), the
    win bonus; or, at the hand cap (``CAP``) before the game ends, nothing more and the
    entry marked cut (``d.cut[k]``). Returns GOES_ON, RESTART or STOPPED."""
    pay = d.pay
    d.hands[i] += 1
    points, totals, winners = d.hand[POINTS], d.hand[TOTALS], d.hand[WINNERS]
    n = points.shape[0]
    scale = pay[SCALE]
    if scale != 0.0:
        total = 0.0
        for s in range(n):
            total += points[s]
        for s in range(n):
            p = points[s]
            if pay[RELATIVE] != 0.0:
                p = p - (total - p) / (n - 1)
            rewards[k, s] = np.float32(np.float64(rewards[k, s]) + p / scale)
    if not over and pay[BY_HAND] == 0.0:
        if pay[CAP] == 0.0 or d.hands[i] < pay[CAP]:
            return GOES_ON
        d.cut[k] = True  # truncated: nobody won
    else:
        if not over:
            top = totals[0]
            for s in range(1, n):
                top = max(top, totals[s])
            for s in range(n):
                winners[s] = 1.0 if totals[s] == top else 0.0
        count = 0
        for s in range(n):
            count += winners[s] != 0.0
        if count < n:  # a draw (every seat a winner) pays no bonus
            win = pay[WIN]
            for s in range(n):
                bonus = win / count if winners[s] != 0.0 else -win / (n - count)
                rewards[k, s] = np.float32(np.float64(rewards[k, s]) + bonus)
    dones[k] = True
    if pay[AUTO_RESET] != 0.0:
        return RESTART
    d.live[i] = False
    clear(d, i)
    return STOPPED


@njit(**KERNEL)
def all_legal(masks, live, idx, acts):
    """1 if every live game's action is legal (the driver's check before a step), else 0;
    -1 for a game index out of range (the kernels do not check bounds)."""
    num_actions, num_games = masks.shape[1], masks.shape[0]
    for k in range(idx.shape[0]):
        if idx[k] < 0 or idx[k] >= num_games:
            return -1
    for k in range(idx.shape[0]):
        i = idx[k]
        a = acts[k]
        if live[i] and (a < 0 or a >= num_actions or not masks[i, a]):
            return 0
    return 1


# ----------------------------------------------------------------- protocol
class Core:
    """A game's compiled core (see the module docstring); ``envs/<game>/compiled.py``
    defines ``CORE``, an instance of a subclass with the three kernels as attributes."""

    start: Any  # njit (st, d, rows) -> flags
    step: Any  # njit (st, d, idx, acts, rewards, dones) -> flags
    write: Any  # njit (st, d, rows) -> None

    def supports(self, rules: Any, kind: str) -> str | None:
        raise NotImplementedError

    def arrays(self, rules: Any, num_games: int, kind: str) -> tuple:
        raise NotImplementedError

    def load(self, st: tuple, i: int, state: Any) -> None:
        raise NotImplementedError


_FRESH: set[str] = set()  # kernel sets whose caches were checked in this process
_ENVS = Path(__file__).resolve().parent


def sources_digest(game: str) -> str:
    """A digest of every source a game's kernels may read: ``envs/*.py`` and its package."""
    digest = hashlib.sha256()
    for path in sorted(_ENVS.glob("*.py")) + sorted((_ENVS / game).glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def fresh(game: str, core: CompiledCore) -> None:
    """Drop the cached code of ``core``'s kernels, and of every other numba function of
    their module (the helpers they call rather than inline), if it was compiled from
    other sources (the module docstring); once per game and process."""
    kernels = [getattr(core, name) for name in ("start", "step", "write")]
    module = getattr(getattr(kernels[0], "py_func", None), "__module__", None)
    if module in sys.modules:
        kernels += [f for f in vars(sys.modules[module]).values()
                    if getattr(getattr(f, "py_func", None), "__module__", None) == module
                    and all(f is not k for k in kernels)]
    fresh_kernels(game, game, kernels)


def fresh_kernels(name: str, game: str, kernels: list) -> None:
    """Drop the cached code of ``kernels`` (``name``: what the stamp beside the cache is
    called) if it was compiled from other sources than ``game``'s today; once per name
    and process. Where the cache cannot be read or written, numba compiles anyway and
    nothing is kept."""
    if name in _FRESH:
        return
    _FRESH.add(name)
    caches = [k._cache for k in kernels if getattr(k, "_cache", None) is not None]
    if not caches:
        return
    stamp = Path(caches[0].cache_path) / f"{name}.sources"
    digest = sources_digest(game)
    try:
        if stamp.is_file() and stamp.read_text() == digest:
            return
        for cache in caches:
            cache.flush()  # an empty index: the next call compiles and saves anew
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(digest)
    except OSError:
        pass


def find_core(game: Game, rules: Any, kind: str) -> tuple[CompiledCore | None, str]:
    """The game's ``CORE`` if it serves ``rules`` and ``kind``, and why not otherwise."""
    module = game_module("cardrl.envs", game.name, "compiled")
    core = getattr(module, "CORE", None)
    if core is None:
        return None, f"{game.name} has no compiled core (envs/{game.name}/compiled.py)"
    fresh(game.name, core)
    why = core.supports(rules, kind)
    return (None, why) if why else (core, "")


class States(Sequence[EngineState]):
    """``BatchedGames.states`` from a core: game ``i``'s engine state, rebuilt on demand by
    replaying its episode's recorded actions (see the module docstring)."""

    def __init__(self, games: CompiledGames) -> None:
        self._games = games
        self._cache: list[tuple[int, EngineState, int] | None] = [None] * games.num_games

    def __len__(self) -> int:
        return self._games.num_games

    @overload
    def __getitem__(self, i: int) -> EngineState: ...

    @overload
    def __getitem__(self, i: slice) -> list[EngineState]: ...

    def __getitem__(self, i: int | slice) -> EngineState | list[EngineState]:
        g = self._games
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if not -len(self) <= i < len(self):
            raise IndexError(f"game {i} out of range 0..{len(self) - 1}")
        i %= len(self)
        d = g.d
        start = int(d.starts[i])
        cached = self._cache[i]
        if cached is None or cached[0] != start:
            deal_start, deal = g.deals[i]
            state = g.game.state(g.rules, int(d.seeds[i]), deal=deal if deal_start == start
                                 else None)
            cached = (start, state, 0)
        self._cache[i] = self._played(i, cached, int(d.hist_len[i]))
        return cached[1]

    def _played(self, i: int, cached: tuple[int, EngineState, int], n: int
                ) -> tuple[int, EngineState, int]:
        """``cached`` with the episode's actions up to ``n`` applied to its state."""
        start, state, done = cached
        for a in self._games.d.hist[i, done:n].tolist():
            state.apply(a)
        return start, state, n

    def snapshot(self) -> tuple[np.ndarray, np.ndarray] | None:
        """What ``finish`` needs to know from before a step; None while no state was read."""
        if not any(self._cache):
            return None
        d = self._games.d
        return d.starts.copy(), d.hist_len.copy()

    def finish(self, games: np.ndarray, before: tuple[np.ndarray, np.ndarray]) -> None:
        """Bring the states read of the episodes that ended on this step to their end, as the
        Python path's states are (a caller may hold one): their last action was recorded at
        the history's length before the step, and a new episode has not overwritten it."""
        starts, lengths = before
        for i in games.tolist():
            cached = self._cache[i]
            if cached is not None and cached[0] == starts[i]:
                self._cache[i] = self._played(i, cached, int(lengths[i]) + 1)


class CompiledGames:
    """The Python side of a core for ``BatchedGames``: arrays, checks, restarts, states."""

    def __init__(self, game: Game, core: CompiledCore, rules: Any, kind: str, num_games: int,
                 payout: Payout, auto_reset: bool, obs: np.ndarray, masks: np.ndarray,
                 seats: np.ndarray, seeds: np.ndarray) -> None:
        self.game, self.core, self.rules, self.payout = game, core, rules, payout
        self.num_games = num_games
        n = num_games
        pay = np.array([payout.score_scale, payout.relative_score, payout.win_reward,
                        payout.episode == "hand", auto_reset, payout.max_episode_hands or 0,
                        payout.hand_reward == "worth"],
                       dtype=np.float64)
        self.d = Driver(obs, masks, seats, seeds, np.zeros(n, np.int64), np.zeros(n, np.int64),
                        np.zeros(n, bool), np.zeros((n, compiled_rng.ROW), np.uint64),
                        np.zeros((n, HISTORY_CAPACITY), np.int16), np.zeros(n, np.int64),
                        np.zeros(n, bool), pay, np.array([0, n], np.int64),
                        np.zeros(64, np.uint64),
                        np.zeros((3, game.num_players(rules)), np.float64),
                        np.zeros(n, np.int64), np.zeros(n, bool))
        self.st = core.arrays(rules, n, kind)
        self.deals: list[tuple[int, Any]] = [(-1, None)] * n  # (start, deal) of given deals
        self.states = States(self)
        self.everyone = np.arange(n, dtype=np.int64)
        self.started = False  # reset or restart has dealt

    @property
    def live(self) -> list[bool]:
        return self.d.live.tolist()

    def reset(self, seed: int, deals: Sequence | None) -> None:
        """Every game afresh from ``seed`` (the Python path's seeds), dealt ``deals[i]``."""
        d = self.d
        self.started = True
        d.seed_base[0] = seed
        d.episodes[:] = 0
        given = []
        if deals is not None:
            given = [i for i in range(self.num_games) if deals[i] is not None]
            for i in given:
                self.restart(i, seed + i, deals[i])
                d.episodes[i] = 1
        rows = np.setdiff1d(self.everyone, np.array(given, np.int64)) if given else self.everyone
        self._after(self.core.start(self.st, d, rows))

    def restart(self, i: int, seed: int, deal: Any = None) -> None:
        """Game ``i`` afresh from ``seed`` and ``deal`` by the engine (which checks the deal)."""
        state = self.game.state(self.rules, int(seed), deal=deal)
        d = self.d
        self.started = True
        self.core.load(self.st, i, state)
        rng = getattr(state, "rng", None)
        if rng is not None:
            compiled_rng.from_generator(rng, d.rng[i])
        d.seeds[i] = seed
        d.hist_len[i] = 0
        d.hands[i] = len(state.results)
        d.starts[i] += 1
        d.live[i] = True
        d.python[i] = False
        self.deals[i] = (int(d.starts[i]), deal)
        self.core.write(self.st, d, np.array([i], np.int64))

    def _after(self, flags: int) -> None:
        """What a kernel left to Python: episodes to start with the engine, a full history."""
        d = self.d
        if flags & PYTHON:
            for i in np.flatnonzero(d.python).tolist():
                self.restart(i, int(d.seeds[i]))
        if flags & HISTORY:
            grown = np.zeros((self.num_games, 2 * d.hist.shape[1]), np.int16)
            grown[:, :d.hist.shape[1]] = d.hist
            self.d = d._replace(hist=grown)

    def step(self, games: Sequence[int] | np.ndarray, actions: Any, draw: Callable[[int], int],
             truncated: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``BatchedGames.step_games`` (same checks, same order of errors and penalties);
        ``truncated[i]`` := whether game ``i``'s episode that ended was cut at the cap."""
        d = self.d
        idx = np.ascontiguousarray(games, dtype=np.int64)
        if len(actions) != len(idx):
            raise ValueError(f"{len(idx)} games but {len(actions)} actions")
        rewards = np.zeros((len(idx), self.game.num_players(self.rules)), dtype=np.float32)
        dones = np.zeros(len(idx), dtype=bool)
        acts = self._checked(idx, actions, rewards, draw)
        before = self.states.snapshot()
        cut = d.cut[:len(idx)]
        cut[:] = False
        self._after(self.core.step(self.st, d, idx, acts, rewards, dones))
        if dones.any():
            truncated[idx[dones]] = cut[dones]
            if before is not None:
                self.states.finish(idx[dones], before)
        return rewards, dones

    def _checked(self, idx: np.ndarray, actions: Any, rewards: np.ndarray,
                 draw: Callable[[int], int]) -> np.ndarray:
        """The actions as int64, each legal: an illegal one raises before anything changes
        or is replaced and charged, by ``Payout.resolve`` as on the Python path."""
        d = self.d
        if isinstance(actions, np.ndarray):
            acts = actions
        else:  # a bool among ints would pass as 0 or 1: not an action (``as_action``)
            acts = np.asarray(actions)
            if acts.dtype.kind in "iu" and any(isinstance(x, bool | np.bool_) for x in actions):
                acts = acts.astype(object)
        if acts.ndim == 1 and acts.dtype.kind in "iu":
            # one compiled signature (a uint64 past int64's range turns negative: refused)
            acts = np.ascontiguousarray(acts, dtype=np.int64)
            verdict = all_legal(d.masks, d.live, idx, acts)
            if verdict == 1:
                return acts
            if verdict == -1:
                _out_of_range(idx, len(d.live))
            num_actions = d.masks.shape[1]
            ok = (acts >= 0) & (acts < num_actions)
            acts = np.where(ok, acts, 0)
            ok &= d.masks[idx, acts]
            check = np.flatnonzero(~ok & d.live[idx])
        else:
            _out_of_range(idx, len(d.live))
            acts = np.zeros(len(idx), np.int64)
            check = np.flatnonzero(d.live[idx])
        live = d.live
        for k in check.tolist():  # the Python path's resolve, game by game in order
            i = int(idx[k])
            if not live[i]:
                continue
            seat = int(d.seats[i])
            act, penalty = self.payout.resolve(np.flatnonzero(d.masks[i]).tolist(), actions[k],
                                               f"player_{seat} in game {i}",
                                               self.game.action_name, draw)
            if penalty:
                rewards[k, seat] += penalty
            acts[k] = act
        return acts


def _out_of_range(idx: np.ndarray, n: int) -> None:
    """Raise naming a game index outside 0..n-1 (the Python path's list would wrap -1)."""
    bad = idx[(idx < 0) | (idx >= n)]
    if len(bad):
        raise IndexError(f"game {int(bad[0])} out of range 0..{n - 1}")
