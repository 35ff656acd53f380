"""What every observation encoder shares: the ``Encoder`` record, layouts, masks, observers.

A game has two encoder kinds (docs/design.md, "Encoders"):

* ``infostate`` (the env's default): everything the seat's view holds, as planes
  and numbers, and nothing a bot estimates; its version changes only when what
  a seat may know, or the rules, change;
* ``features``: the vectors the shipped bots read, the information a seat holds
  plus what the expert bots reckon with (win chances, look-ahead, ...), still
  computed from the view only; a training choice with a version of its own.

An encoder lays its vector out as named blocks, ``((name, size), ...)``;
``offsets`` places them and ``describe`` names the feature at an index. An
env keeps its vectors with an *observer* (``ViewObserver`` encodes the view
afresh; a game's incremental observer flips only what a move changes, in an
``(n, size)`` buffer with one row per seat; ``in_every_row`` says where).
Nothing here imports PettingZoo or gymnasium: engines and encoders stay light.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cardrl.envs.contracts import EngineState, Observer

Layout = Sequence[tuple[str, int]]
KINDS = ("infostate", "features")
DEFAULT_OBSERVATION = "infostate"  # the kind an env observes unless told otherwise


def offsets(layout: Layout) -> tuple[dict[str, int], int]:
    """``({block name: first index}, vector size)`` of ``layout``'s blocks, in order."""
    out: dict[str, int] = {}
    o = 0
    for name, size in layout:
        out[name] = o
        o += size
    return out, o


def describe(layout: Layout, offsets: dict[str, int], index: int,
             label: Callable[[str, int, int], str] | None = None) -> str:
    """Which feature ``index`` holds: 'name[i]', or ``label(name, size, i)`` when given."""
    total = sum(size for _, size in layout)
    if isinstance(index, bool) or not isinstance(index, int | np.integer) \
            or not 0 <= index < total:
        raise IndexError(f"observation index {index!r} out of range 0..{total - 1}")
    for name, size in layout:
        off = offsets[name]
        if off <= index < off + size:
            return label(name, size, index - off) if label else f"{name}[{index - off}]"
    raise AssertionError("unreachable: the layout covers 0..total - 1")


def in_every_row(row_size: int, n: int, offset: int, seat: int = 0,
                 stride: int = 0) -> tuple[int, ...]:
    """Flat indices, one per row of an ``(n, row_size)`` buffer (row ``me`` belongs to seat
    ``me``), of ``offset + rel * stride`` where ``rel`` is ``seat`` relative to that row."""
    return tuple(me * row_size + offset + ((seat - me) % n) * stride for me in range(n))


def unit_bounds(size: int) -> tuple[np.ndarray, np.ndarray]:
    """Every feature in [0, 1]."""
    return np.zeros(size, np.float32), np.ones(size, np.float32)


def float_view(array: np.ndarray) -> memoryview[float]:
    """A ``memoryview`` of a float array, for an observer's single-value stores: one costs a
    fraction of numpy's item assignment (a memoryview is not pickled: rebuild it)."""
    # numpy's stubs give an ndarray the buffer protocol (``__buffer__``) on Python 3.12+ only
    return memoryview(array)  # type: ignore[arg-type]


def mask_function(num_actions: int) -> Callable[[Sequence[int]], np.ndarray]:
    """``action_mask(legal)`` for a table of ``num_actions``: a new int8 array, 1 at each id.

    Sets bytes one by one and wraps them in a (writable) array: half the cost of
    ``np.zeros`` + ``mask[legal] = 1``, which first turns the list into an index array
    (and cheaper than looking legal sets up in a cache, as most are new).
    """
    frombuffer, int8 = np.frombuffer, np.dtype(np.int8)  # a dtype object: no lookup per call

    def action_mask(legal_actions: Sequence[int]) -> np.ndarray:
        mask = bytearray(num_actions)
        for a in legal_actions:
            mask[a] = 1
        return frombuffer(mask, int8)

    return action_mask


class ViewObserver:
    """The plain observer: encodes the seat's view afresh at every observation.

    An observer turns engine states into observation vectors for one env. The
    env calls ``reset(state)`` after a reset, ``after_apply(state, player,
    action)`` after every applied action, and ``observation(state, seat)`` in
    ``observe``, which must return a new array equal to ``encode(state.view(seat))``.
    A game whose encoding is costly keeps vectors up to date in ``after_apply``
    instead; the tests check every observer against its ``encode``.
    """

    def __init__(self, encode: Callable[[Any], np.ndarray]) -> None:
        self._encode = encode

    def reset(self, state: EngineState) -> None:
        pass

    def after_apply(self, state: EngineState, player: int, action: int) -> None:
        pass

    def observation(self, state: EngineState, seat: int) -> np.ndarray:
        return self._encode(state.view(seat))


def no_action_features(num_players: int) -> tuple[tuple[int, int, int], ...]:
    return ()


@dataclass(frozen=True)
class CardTable:
    """An observation read card by card, for card-structured networks (``cardrl.train.cardnet``).

    Most of a card game's information state is sets of cards (the hand, each seat's
    plays, the pile); a network that reads every card through one shared embedding
    learns about all cards at once. ``index[c]`` lists the observation indices that
    describe card ``c`` (its planes, and per-rank numbers such as a symbol's values),
    the own hand first, -1 where a card has fewer; every index not in the table is a
    scalar input.
    ``action_card[a]`` is the card action ``a`` is about (-1: none, e.g. a bid) and
    ``action_kind[a]`` which kind of card action it is (play, knock with, ...), so
    each kind scores the cards with weights of its own.
    """

    index: np.ndarray  # (num_cards, features per card) int64, -1 = none
    action_card: np.ndarray  # (num_actions,) int64, -1 = not a card action
    action_kind: np.ndarray  # (num_actions,) int64, 0.. for card actions, -1 otherwise

    def __post_init__(self) -> None:
        for name in ("index", "action_card", "action_kind"):
            object.__setattr__(self, name, np.asarray(getattr(self, name), np.int64))
        if self.index.ndim != 2 or self.index.shape[0] < 1 or self.index.shape[1] < 1:
            raise ValueError(f"card index must be (cards, features), got {self.index.shape}")
        if self.action_card.shape != self.action_kind.shape or self.action_card.ndim != 1:
            raise ValueError("action_card and action_kind must be equal-length vectors")
        if ((self.action_card < 0) != (self.action_kind < 0)).any():
            raise ValueError("an action has a card exactly when it has a kind")
        if self.action_card.max() >= self.index.shape[0]:
            raise ValueError(f"action card {int(self.action_card.max())} out of range "
                             f"0..{self.index.shape[0] - 1}")

    @property
    def num_cards(self) -> int:
        return int(self.index.shape[0])

    @property
    def num_kinds(self) -> int:
        return int(self.action_kind.max()) + 1 if (self.action_kind >= 0).any() else 0

    def scalar_index(self, obs_size: int) -> np.ndarray:
        """The observation indices outside the card table, in order."""
        used = np.zeros(obs_size, bool)
        used[self.index[self.index >= 0]] = True
        return np.flatnonzero(~used)


def card_planes(offsets: Sequence[int], num_cards: int) -> np.ndarray:
    """``(num_cards, len(offsets))`` indices: card ``c``'s entry of the plane at each offset."""
    return np.asarray(offsets, np.int64)[None, :] + np.arange(num_cards, dtype=np.int64)[:, None]


@dataclass(frozen=True)
class Encoder:
    """One observation kind of one game: a view -> float32 vector, with its layout.

    ``observer(n)`` makes the env's per-env observer for ``n`` players (its
    vectors equal ``encode`` of the view at every step); ``action_features(n)``
    lists the ``(observation offset, first action, length)`` blocks that
    describe one action each (``cardrl.train.policy`` scores them directly), and
    ``cards(n)`` how the vector reads card by card (``CardTable``), where it does.
    """

    kind: str  # "infostate" or "features"
    version: int
    size: Callable[[int], int]  # number of players -> vector length
    encode: Callable[..., np.ndarray]  # (view, out=None) -> float32 vector
    bounds: Callable[[int], tuple[np.ndarray, np.ndarray]]  # players -> (low, high)
    describe: Callable[[int, int], str]  # (players, index) -> 'block[i]'
    observer: Callable[[int], Observer] | None = None  # players -> observer; None: ViewObserver
    action_features: Callable[[int], tuple] = no_action_features
    cards: Callable[[int], CardTable] | None = None  # players -> card table (train.cardnet)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"encoder kind must be one of {KINDS}, got {self.kind!r}")

    def make_observer(self, num_players: int) -> Observer:
        if self.observer is None:
            return ViewObserver(self.encode)
        return self.observer(num_players)

    @property
    def name(self) -> str:
        """'infostate/1': what a bot card records."""
        return f"{self.kind}/{self.version}"
