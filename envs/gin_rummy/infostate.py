"""Gin Rummy's information state: ``GinRummyView`` -> float32 vector, kept up to date per move.

Everything a seat's view holds and nothing a bot estimates: the phase, the own
hand, the card the player to act took from the pile this turn, the discard
pile (as a set) and its top, per seat the cards it took from the pile and still
holds (known to all), every card it took from the pile this hand and every card
it discarded, the stock size, whose turn it is, the dealer, the scores, the
hand number and the rule flags; the own hand's least deadwood, and for the seat
to act what its meld solver says of the decision: the least deadwood each discard
leaves (and which discards are gin), before a draw the least a taken top card
leaves, and one draw further: over the unseen cards (neither in its hand, nor in the
pile, nor known in another hand), each equally, per discard the mean least deadwood
after one more draw, the share of draws that allow a knock (at most the knock limit,
``READY_LIMIT`` where the rules set none) and the share that make gin; before a draw,
the mean. The deadwood blocks add no information, only a form a network can read: it
sees them in the card bits only through the meld search (docs/results.md). The order
of the pile below its top is not encoded. Per-seat blocks are relative (the observer
first, then the players after it in turn order), and the layout depends on the number
of players (``layout(n)``). Bump ``VERSION`` (and the env name) when the layout changes;
each version's changes are in docs/envs/gin_rummy.md (version history).

``block_widths(n)`` holds every block's width, and the scales below every number's
divisor, once: ``layout`` and the ``features`` layout (``cardrl.envs.gin_rummy.features``)
pick blocks from it by name (``blocks``), and the compiled core writes with the same
constants. ``write`` fills the blocks a layout has at its offsets (``write_decision``
and ``write_outlook`` the seat to act's), and ``GinRummyObserver`` keeps them current
for every seat.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from cardrl.envs import encoding
from cardrl.envs.gin_rummy.actions import (
    DISCARD_OFFSET,
    DRAW_STOCK,
    KNOCK_OFFSET,
    NUM_ACTIONS,
    TAKE_DISCARD,
)
from cardrl.envs.gin_rummy.melds import ALL_CARDS, deadwood, deadwood_after_discards, mask_of
from cardrl.envs.gin_rummy.view import GinRummyView

if TYPE_CHECKING:
    from cardrl.envs.gin_rummy.engine import GinRummyState
    from cardrl.envs.gin_rummy.rules import GinRummyRules

VERSION = 3
CARDS = 52
PHASES = ("draw", "discard")  # the ``phase`` block's entries
SCORE_CLIP = 4.0  # scores / target, clipped to 4
DEADWOOD_SCALE = 100.0  # deadwood counts / 100, clipped to 1
KNOCK_LIMIT_SCALE = 100.0  # the rules' knock limit / 100
HAND_NUMBER_SCALE = 10.0  # hands played / 10, clipped to 1
READY_LIMIT = 10  # the look-ahead's knock limit where the rules set none
# the ``rules`` block's entries: the knock limit / KNOCK_LIMIT_SCALE (0 if none), then flags
RULE_ENTRIES = ("knock_limit", "no_knock_limit", "no_discard_of_taken", "layoff", "gin_bonus")
# the per-card blocks of the seat to act's discard
PER_DISCARD = ("discard_deadwood", "discard_gin", "discard_outlook", "discard_ready",
               "discard_gin_ready")


def block_widths(n: int) -> dict[str, int]:
    """Every information block a layout may have, by name, for ``n`` players: its width
    (and, in the comments, what it holds)."""
    return {
        "phase": len(PHASES),  # drawing, discarding
        "hand": CARDS,
        "taken": CARDS,  # the card the player to act took from the pile this turn
        "pile_top": CARDS,
        "pile": CARDS,  # every card in the discard pile
        "known": n * CARDS,  # per relative seat: cards it took from the pile and still holds
        "picked": n * CARDS,  # per relative seat: every card it took from the pile this hand
        "discarded": n * CARDS,  # per relative seat: cards it discarded this hand
        "stock_size": 1,  # / the stock size after the deal
        "to_act": n,
        "dealer": n,
        "scores": n,  # total / target, clipped to SCORE_CLIP
        "hand_number": 1,  # hands played / HAND_NUMBER_SCALE, clipped to 1
        "rules": len(RULE_ENTRIES),  # knock limit / 100 (0 if none), no limit, no discard of
        # the taken card, layoff, gin bonus > 0
        "deadwood": 1,  # own least deadwood as held / DEADWOOD_SCALE, clipped to 1
        # the seat to act only (zero for every other seat):
        "discard_deadwood": CARDS,  # discarding: least deadwood without each card / 100
        "discard_gin": CARDS,  # discarding: 1 where discarding the card is gin
        "take_deadwood": 1,  # drawing: least deadwood after taking the top / 100
        # discarding, per card, one more draw of each unseen card to the hand kept:
        "discard_outlook": CARDS,  # mean least deadwood after it / 100
        "discard_ready": CARDS,  # share of the draws after which a knock is allowed
        "discard_gin_ready": CARDS,  # share of the draws that make gin
        "stock_outlook": 1,  # drawing: mean least deadwood after one draw / 100
    }


def blocks(n: int, *names: str) -> tuple[tuple[str, int], ...]:
    """The layout of the named information blocks for ``n`` players, in the order given."""
    widths = block_widths(n)
    return tuple((name, widths[name]) for name in names)


# the information state's blocks, in order
NAMES = ("phase", "hand", "taken", "pile_top", "pile", "known", "picked", "discarded",
         "stock_size", "to_act", "dealer", "scores", "hand_number", "rules", "deadwood",
         "discard_deadwood", "discard_gin", "take_deadwood", "discard_outlook", "discard_ready",
         "discard_gin_ready", "stock_outlook")


def rule_values(rules: GinRummyRules) -> tuple[float, ...]:
    """The ``rules`` block, in ``RULE_ENTRIES`` order (fixed for a game)."""
    limit = rules.knock_limit
    return (0.0 if limit is None else limit / KNOCK_LIMIT_SCALE, float(limit is None),
            float(rules.no_discard_of_taken), float(rules.layoff), float(rules.gin_bonus > 0))


def label(name: str, size: int, i: int) -> str:
    if size > CARDS and size % CARDS == 0:
        return f"{name}[{i // CARDS}][{i % CARDS}]"
    return f"{name}[{i}]"


class Layout:
    """Offsets of every block of ``blocks`` for ``n`` players."""

    def __init__(self, blocks: tuple[tuple[str, int], ...], n: int) -> None:
        self.num_players = n
        self.blocks = blocks
        self.offsets, self.size = encoding.offsets(blocks)

    def __getitem__(self, name: str) -> int:
        return self.offsets[name]

    def describe(self, index: int) -> str:
        """Which feature an observation index holds, e.g. 'known[1][51]'."""
        return encoding.describe(self.blocks, self.offsets, index, label)

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        low, high = encoding.unit_bounds(self.size)
        s = self.offsets["scores"]
        high[s:s + self.num_players] = SCORE_CLIP
        return low, high


@cache
def layout(n: int) -> Layout:
    return Layout(blocks(n, *NAMES), n)


def write(view: GinRummyView, out: np.ndarray, o: dict[str, int]) -> None:
    """Write ``view``'s information blocks into the zeroed ``out`` at the offsets ``o``
    (of the blocks ``o`` names: ``picked`` and ``deadwood`` are optional)."""
    n = view.num_players
    me = view.seat
    ones = []
    if view.phase in PHASES:
        ones.append(o["phase"] + PHASES.index(view.phase))
    hand = o["hand"]
    ones.extend(hand + c for c in view.hand)
    if view.taken is not None:
        ones.append(o["taken"] + view.taken)
    if view.pile:
        ones.append(o["pile_top"] + view.pile[-1])
    pile = o["pile"]
    ones.extend(pile + c for c in view.pile)
    picked = o.get("picked")
    for seat in range(n):
        rel = (seat - me) % n
        base = o["known"] + rel * CARDS
        ones.extend(base + c for c in view.known[seat])
        base = o["discarded"] + rel * CARDS
        ones.extend(base + c for c in view.discarded[seat])
        if picked is not None:
            base = picked + rel * CARDS
            ones.extend(base + c for c in view.picked[seat])
    if view.current_player is not None:
        ones.append(o["to_act"] + (view.current_player - me) % n)
    ones.append(o["dealer"] + (view.dealer - me) % n)
    out[ones] = 1.0
    rules = view.rules
    r = o["rules"]
    out[r:r + len(RULE_ENTRIES)] = rule_values(rules)
    out[o["stock_size"]] = view.stock_size / rules.stock_size
    scores = o["scores"]
    for seat in range(n):
        out[scores + (seat - me) % n] = min(SCORE_CLIP, view.scores[seat] / rules.target)
    if "deadwood" in o:
        out[o["deadwood"]] = min(1.0, deadwood(mask_of(view.hand)) / DEADWOOD_SCALE)
    out[o["hand_number"]] = min(1.0, (view.hand_number - 1) / HAND_NUMBER_SCALE)


def encode(view: GinRummyView, out: np.ndarray | None = None) -> np.ndarray:
    """The information-state vector of ``view`` (written into ``out`` if given): the
    definition the incremental ``GinRummyObserver`` is tested against at every step."""
    lay = layout(view.num_players)
    if out is None:
        out = np.zeros(lay.size, dtype=np.float32)
    else:
        out.fill(0.0)
    write(view, out, lay.offsets)
    if view.current_player == view.seat:
        write_decision(out, lay.offsets, view)
        write_outlook(out, lay.offsets, view)
    return out


# the compiled meld search, bound at its first use (``_import_meld_kernels``): it loads
# numba, which importing the encoders does not
meld_kernels = None


def _import_meld_kernels():
    global meld_kernels
    from cardrl.envs.gin_rummy import meld_kernels
    return meld_kernels


def encode_public(view: GinRummyView, out: np.ndarray) -> np.ndarray:
    """``encode`` without the seat to act's blocks: what the observer keeps per seat."""
    out.fill(0.0)
    write(view, out, layout(view.num_players).offsets)
    return out


def unseen(hand: int, pile, known, seat: int) -> int:
    """The hand mask of the cards ``seat`` has not seen: neither in its ``hand`` (a mask),
    nor in the ``pile``, nor known held by another seat (``known[s]``: the cards of
    seat ``s``)."""
    seen = hand | mask_of(pile)
    for s, cards in enumerate(known):
        if s != seat:
            seen |= mask_of(cards)
    return ALL_CARDS & ~seen


def ready_limit(rules) -> int:
    return READY_LIMIT if rules.knock_limit is None else rules.knock_limit


def write_outlook(row: np.ndarray, o: dict[str, int], view: GinRummyView) -> None:
    """The seat to act's look-ahead blocks: discarding, per card, over every unseen card
    drawn to the hand kept and the best discard after it, the mean least deadwood
    (``discard_outlook``), the share at most the knock limit (``discard_ready``) and at 0
    (``discard_gin_ready``); drawing, the mean (``stock_outlook``). With no unseen card,
    the kept hand's own deadwood. Counted by the compiled meld search (bots encode views
    at every decision); the tests hold it to a search of every draw."""
    hand = mask_of(view.hand)
    _write_outlook(row, o, view.phase, hand, unseen(hand, view.pile, view.known, view.seat),
                   view.rules)


def _write_outlook(row: np.ndarray, o: dict[str, int], phase: str, hand: int, draws: int,
                   rules) -> None:
    if phase == "discard":
        (meld_kernels or _import_meld_kernels()).write_outlook(
            row, o["discard_outlook"], o["discard_ready"], o["discard_gin_ready"], hand, draws,
            ready_limit(rules), DEADWOOD_SCALE)
    elif phase == "draw":
        mean = (meld_kernels or _import_meld_kernels()).stock_outlook(hand, draws)
        row[o["stock_outlook"]] = min(1.0, mean / DEADWOOD_SCALE)


def write_decision(row: np.ndarray, o: dict[str, int], view: GinRummyView
                   ) -> dict[int, int] | None:
    """The seat to act's deadwood blocks (the definition): discarding, ``discard_deadwood``
    and ``discard_gin`` (0 deadwood there is both "gin" and "not in hand"); drawing from a
    pile, ``take_deadwood``. Returns the deadwood after each discard, when discarding."""
    hand = mask_of(view.hand)
    if view.phase == "discard":
        base, gin = o["discard_deadwood"], o["discard_gin"]
        after = deadwood_after_discards(hand)
        for card, dw in after.items():
            row[base + card] = min(1.0, dw / DEADWOOD_SCALE)
            if dw == 0:
                row[gin + card] = 1.0
        return after
    if view.phase == "draw" and view.pile:
        top = view.pile[-1]
        after = deadwood_after_discards(hand | mask_of((top,)))
        if view.rules.no_discard_of_taken:
            after.pop(top, None)
        row[o["take_deadwood"]] = min(1.0, min(after.values()) / DEADWOOD_SCALE)
    return None


def write_decision_state(row: np.ndarray, o: dict[str, int], state: GinRummyState) -> None:
    """``write_decision`` and ``write_outlook`` for the seat to act of an engine state,
    through the compiled meld search and the state's hand masks (no view built): the
    observer's, held equal to the definitions at every step by its tests."""
    me = state.current_player
    assert me is not None  # a seat to act
    hand = state.masks[me]
    if state.phase == "discard":
        (meld_kernels or _import_meld_kernels()).write_discards(
            row, o["discard_deadwood"], o["discard_gin"], hand, DEADWOOD_SCALE)
    elif state.phase == "draw" and state.pile:
        best = (meld_kernels or _import_meld_kernels()).take_deadwood(
            hand, state.pile[-1], not state.rules.no_discard_of_taken)
        row[o["take_deadwood"]] = min(1.0, best / DEADWOOD_SCALE)
    _write_outlook(row, o, state.phase, hand, unseen(hand, state.pile, state.known, me),
                   state.rules)


# ------------------------------------------------------------------ observer
class Tables:
    """Flat positions of the information blocks in an observer's ``(n, size)`` buffer for
    a layout (seat ``me``'s row starting at ``me * size``); ``*_ALL``-style tuples name
    one feature in every row."""

    def __init__(self, lay: Layout) -> None:
        n, o, size = lay.num_players, lay.offsets, lay.size

        def every_row(offset: int) -> tuple[int, ...]:
            return encoding.in_every_row(size, n, offset)

        def relative(offset: int, seat: int, stride: int) -> tuple[int, ...]:
            return encoding.in_every_row(size, n, offset, seat, stride)

        def per_card(block: str) -> tuple[tuple[tuple[int, ...], ...], ...]:
            return tuple(tuple(relative(o[block] + c, s, CARDS) for c in range(CARDS))
                         for s in range(n))

        self.layout, self.size = lay, size
        self.hand = tuple(tuple(s * size + o["hand"] + c for c in range(CARDS)) for s in range(n))
        self.deadwood = (tuple(s * size + o["deadwood"] for s in range(n))
                         if "deadwood" in o else None)
        self.draw_phase = every_row(o["phase"] + PHASES.index("draw"))
        self.discard_phase = every_row(o["phase"] + PHASES.index("discard"))
        self.stock = every_row(o["stock_size"])
        self.taken = tuple(every_row(o["taken"] + c) for c in range(CARDS))
        self.top = tuple(every_row(o["pile_top"] + c) for c in range(CARDS))
        self.pile = tuple(every_row(o["pile"] + c) for c in range(CARDS))
        self.known = per_card("known")
        self.picked = per_card("picked") if "picked" in o else None  # the infostate's only
        self.discarded = per_card("discarded")
        self.to_act = tuple(relative(o["to_act"], s, 1) for s in range(n))


class GinRummyObserver:
    """Every seat's vector of a layout's information blocks, kept equal to its encoder.

    The env's hot path: instead of building a view and encoding it at every
    step, each move flips only the features it changes (a card into or out of a
    hand, the pile's top, the phase, the player to act). A new hand, the end of
    the game, or any move the observer did not see re-encodes every seat with
    the encoder, so it stays the one definition of the features; the tests check
    that the two agree for every seat at every step. One observer belongs to one
    env. ``decide(row, offsets, view)``, when given, adds what only the seat to
    act sees to its copy (the ``features`` kind's look-ahead over every unseen
    draw), so a seat played by a rule bot, which reads views, costs nothing
    there; ``private_from`` is where those blocks start (the rows keep them at
    zero). ``decide_state(row, offsets, state)`` does the same from the engine state,
    where no view is needed (the information state's deadwood blocks). Single values
    are stored through a ``memoryview`` of the (n, size) float32 buffer: a scalar store
    there costs a fraction of numpy's.
    """

    def __init__(self, tables: Tables, encode: Callable[..., np.ndarray],
                 decide: Callable | None = None, private_from: int | None = None,
                 decide_state: Callable | None = None) -> None:
        self.t = tables
        self.n = tables.layout.num_players
        self._encode, self._decide, self._decide_state = encode, decide, decide_state
        self._private = tables.size if private_from is None else private_from
        self._obs = np.zeros((self.n, tables.size), dtype=np.float32)
        self._pile: list[int] | None = None  # no state yet: the first call re-encodes
        self._make_views()

    def _make_views(self) -> None:
        """Views of ``_obs`` (not pickled: a memoryview cannot be)."""
        self._rows = list(self._obs)
        self._mv = encoding.float_view(self._obs.reshape(-1))

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        del state["_rows"], state["_mv"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._make_views()

    def reset(self, state: GinRummyState) -> None:
        """Encode every seat afresh from ``state``."""
        for seat, row in enumerate(self._rows):
            self._encode(state.view(seat), out=row)
            row[self._private:] = 0.0  # added per observation (``observation``)
        self._sync(state)

    def _sync(self, state: GinRummyState) -> None:
        self._pile = state.pile
        self._moves = state.moves
        self._player = state.current_player
        self._taken = state.taken
        self._top = state.pile[-1] if state.pile else None

    def after_apply(self, state: GinRummyState, player: int, action: int) -> None:
        """Update the vectors after ``player``'s ``action`` was applied to ``state``.

        Anything but the next move of this hand from where the last call left off
        (a new hand, the end of the game, moves applied to the state directly,
        another state) re-encodes every seat.
        """
        pile = state.pile
        if (pile is not self._pile or state.moves != self._moves + 1 or player != self._player
                or state.phase == "over"):
            self.reset(state)  # a new hand, the end, missed moves or another state
            return
        t, mv = self.t, self._mv
        if action < 2:  # a draw: now the player discards
            drawn = state.drawn
            assert drawn is not None  # just drawn
            mv[t.hand[player][drawn]] = 1.0
            if action == 0:
                stock = len(state.stock) / state.rules.stock_size
                for i in t.stock:
                    mv[i] = stock
            else:
                card = state.taken
                assert card is not None  # just taken
                for i in t.top[card]:
                    mv[i] = 0.0
                if pile:
                    for i in t.top[pile[-1]]:
                        mv[i] = 1.0
                for i in t.pile[card]:
                    mv[i] = 0.0
                for i in t.known[player][card]:
                    mv[i] = 1.0
                if t.picked is not None:
                    for i in t.picked[player][card]:
                        mv[i] = 1.0
                for i in t.taken[card]:
                    mv[i] = 1.0
            for i in t.draw_phase:
                mv[i] = 0.0
            for i in t.discard_phase:
                mv[i] = 1.0
        else:  # a plain discard (a knock ends the hand: re-encoded above)
            card = pile[-1]
            mv[t.hand[player][card]] = 0.0
            if self._top is not None:
                for i in t.top[self._top]:
                    mv[i] = 0.0
            for i in t.top[card]:
                mv[i] = 1.0
            for i in t.pile[card]:
                mv[i] = 1.0
            for i in t.discarded[player][card]:
                mv[i] = 1.0
            for i in t.known[player][card]:
                mv[i] = 0.0
            if self._taken is not None:
                for i in t.taken[self._taken]:
                    mv[i] = 0.0
            for i in t.discard_phase:
                mv[i] = 0.0
            for i in t.draw_phase:
                mv[i] = 1.0
            for i in t.to_act[player]:
                mv[i] = 0.0
            nxt = state.current_player
            assert nxt is not None  # the hand goes on: the next seat draws
            for i in t.to_act[nxt]:
                mv[i] = 1.0
        if t.deadwood is not None:  # the compiled search: a memo would miss on most hands
            dw = (meld_kernels or _import_meld_kernels()).deadwood(state.masks[player])
            mv[t.deadwood[player]] = min(1.0, dw / DEADWOOD_SCALE)
        self._sync(state)

    def observation(self, state: GinRummyState, seat: int) -> np.ndarray:
        """A new copy of ``seat``'s vector, equal to its encoder's vector of the view."""
        if (state.pile is not self._pile or state.moves != self._moves
                or state.current_player != self._player):
            self.reset(state)  # moved without after_apply (e.g. state.apply called directly)
        obs = self._rows[seat].copy()
        if seat == state.current_player:
            if self._decide is not None:
                self._decide(obs, self.t.layout.offsets, state.view(seat))
            if self._decide_state is not None:
                self._decide_state(obs, self.t.layout.offsets, state)
        return obs


@cache
def tables(n: int) -> Tables:
    return Tables(layout(n))


@cache
def card_table(n: int) -> encoding.CardTable:
    """Each card: in the hand, just taken, on top of the pile, in the pile, the deadwood its
    discard leaves, whether that is gin, and the look-ahead after it, and per seat known
    held, picked up and discarded; discard and knock-with actions score cards."""
    lay = layout(n)
    planes = [lay["hand"], lay["taken"], lay["pile_top"], lay["pile"],
              *(lay[name] for name in PER_DISCARD)]
    for name in ("known", "picked", "discarded"):
        planes.extend(lay[name] + s * CARDS for s in range(n))
    action_card = np.full(NUM_ACTIONS, -1)
    action_kind = np.full(NUM_ACTIONS, -1)
    for kind, first in enumerate((DISCARD_OFFSET, KNOCK_OFFSET)):
        action_card[first:first + CARDS] = np.arange(CARDS)
        action_kind[first:first + CARDS] = kind
    return encoding.CardTable(encoding.card_planes(planes, CARDS), action_card, action_kind)


def action_features(n: int) -> tuple[tuple[int, int, int], ...]:
    """The per-action blocks (``cardrl.envs.encoding.Encoder.action_features``): each card's
    deadwood, gin flag and look-ahead for both its discard and its knock;
    ``take_deadwood`` for taking the pile's top, ``stock_outlook`` for drawing."""
    o = layout(n).offsets
    return (*((o[name], first, CARDS) for name in PER_DISCARD
              for first in (DISCARD_OFFSET, KNOCK_OFFSET)),
            (o["take_deadwood"], TAKE_DISCARD, 1), (o["stock_outlook"], DRAW_STOCK, 1))


INFOSTATE = encoding.Encoder(
    kind="infostate", version=VERSION, size=lambda n: layout(n).size, encode=encode,
    bounds=lambda n: layout(n).bounds(), describe=lambda n, i: layout(n).describe(i),
    observer=lambda n: GinRummyObserver(tables(n), encode_public,
                                        private_from=layout(n)["discard_deadwood"],
                                        decide_state=write_decision_state),
    cards=card_table, action_features=action_features)
