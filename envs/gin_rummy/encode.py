"""Gin Rummy observation encoder: ``GinRummyView`` -> float32 vector, and the action mask.

The one place numeric features are made; the env, trained bots and export all
call it. The layout depends on the number of players (``layout(n)``). Seats are
relative: block 0 of a per-seat block is always the observing seat, then the
players after it in turn order. Bump ``ENCODER_VERSION`` (and the env name) when
the layout changes.

Version 2 adds what the meld solver knows about the decision at hand, which a
network cannot work out from card bits in any reasonable training time: in the
row of the seat to act, the least deadwood left by each possible discard, and
before a draw the least deadwood reachable by taking the pile's top card.
Version 3 marks the discards that are gin. Version 4 adds the one-draw look-ahead
the expert bot weighs each discard by (``tracking.Knowledge``): the mean deadwood
after one more draw, the share of draws that allow a knock, and how much the next
player wants the card; before a draw, the same mean for a stock draw. Version 5
adds, per discard, the share of the next draws that make gin: a player waiting for
gin (the standard expert) ranks its discards by it, and the share that allows a
knock at 10 says little about it. Version 6 adds the ``knock`` block: what the choice
between knocking now and playing on turns on (how low the knock is, what waiting could
bring, how many unseen cards could be laid off on the knock, what the next player has
shown); ``train.knock_head`` learns that choice from it.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from envs import encoding
from envs.aec import mask_function
from envs.gin_rummy.actions import (
    DISCARD_OFFSET,
    DRAW_STOCK,
    KNOCK_OFFSET,
    NUM_ACTIONS,
    TAKE_DISCARD,
)
from envs.gin_rummy.melds import (
    CARD_BIT,
    CARD_VALUE,
    best_split,
    deadwood,
    deadwood_after_discards,
    hand_value,
    knock_discard,
    mask_of,
    meld_partners,
    meldable,
)
from envs.gin_rummy.tracking import Knowledge
from envs.gin_rummy.view import GinRummyView

ENCODER_VERSION = 6
SCORE_CLIP = 4.0
DEADWOOD_SCALE = 100.0
DANGER_SCALE = 3.0  # ``Knowledge.danger`` of a card that completes a meld
CARDS = 52

# blocks whose size is per seat: (name, size per seat)
PER_SEAT = ("known", "discarded", "to_act", "dealer", "scores")


def _blocks(n: int) -> tuple[tuple[str, int], ...]:
    """(name, size) of each block, in order, for ``n`` players."""
    return (
        ("phase", 2),  # drawing, discarding
        ("hand", CARDS),
        ("taken", CARDS),  # the card the player to act took from the pile this turn
        ("pile_top", CARDS),
        ("pile", CARDS),  # every card in the discard pile
        ("known", n * CARDS),  # per relative seat: cards it took from the pile and still holds
        ("discarded", n * CARDS),  # per relative seat: cards it discarded this hand
        ("stock_size", 1),  # / the stock size after the deal
        ("to_act", n),
        ("dealer", n),
        ("scores", n),  # total / target, clipped to SCORE_CLIP
        ("deadwood", 1),  # own least deadwood as held / 100, clipped to 1
        ("hand_number", 1),  # hands played / 10, clipped to 1
        ("rules", 5),  # knock limit / 100 (0 if none), no limit, no discard of the taken
        # card, layoff, gin bonus > 0
        ("discard_deadwood", CARDS),  # seat to act, discarding: deadwood without each card / 100
        ("take_deadwood", 1),  # seat to act, drawing: least deadwood after taking the top / 100
        ("discard_gin", CARDS),  # seat to act, discarding: 1 where discarding the card is gin
        # seat to act, discarding, per card, one more draw looked at (tracking.Knowledge):
        ("discard_outlook", CARDS),  # mean least deadwood after it / 100
        ("discard_ready", CARDS),  # share of the draws after which a knock is allowed
        ("discard_gin_ready", CARDS),  # share of the draws after which the hand is gin
        ("discard_danger", CARDS),  # how much the next player wants the card / 3, clipped to 1
        ("stock_outlook", 1),  # seat to act, drawing: mean least deadwood after a stock draw
        ("knock", len(KNOCK_FEATURES)),  # seat to act, discarding, a knock legal: see below
    )


# The ``knock`` block, filled for the seat to act while it discards with a knock legal
# (all zero otherwise), each scaled to about [0, 1]; "next" is the next player to draw.
KNOCK_FEATURES = (
    "legal",  # 1: a knock is legal
    "deadwood",  # least deadwood a legal knock leaves / 10
    "wait_gin",  # best share of next draws that make gin, over the plain discards
    "wait_ready",  # best share of next draws that allow a knock, over the plain discards
    "layoff_cards",  # unseen cards that would lay off on the knocking hand's melds / 10
    "layoff_points",  # their points / 50
    "own_discards",  # discards made this hand / 10
    "next_discards",  # the next player's discards / 10
    "next_picks",  # cards it took from the pile / 5
    "next_known",  # of those, still held / 5
    "next_known_melded",  # of those, in a meld among themselves / 5
    "next_discard_mean",  # mean points of its discards / 10
    "next_last_discard",  # points of its last discard / 10
    "next_high_discards",  # share of its discards worth 8 or more
)


def _label(name: str, size: int, i: int) -> str:
    if name in ("known", "discarded"):
        return f"{name}[{i // CARDS}][{i % CARDS}]"
    return f"{name}[{i}]"


class Layout:
    """Offsets of every block for ``n`` players (``layout(n)``)."""

    def __init__(self, n: int) -> None:
        self.num_players = n
        self.blocks = _blocks(n)
        self.offsets, self.size = encoding.offsets(self.blocks)

    def __getitem__(self, name: str) -> int:
        return self.offsets[name]

    def describe(self, index: int) -> str:
        """Which feature an observation index holds, e.g. 'known[1][AS]'."""
        return encoding.describe(self.blocks, self.offsets, index, _label)

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        low = np.zeros(self.size, dtype=np.float32)
        high = np.ones(self.size, dtype=np.float32)
        s = self.offsets["scores"]
        high[s:s + self.num_players] = SCORE_CLIP
        return low, high


@cache
def layout(n: int) -> Layout:
    return Layout(n)


def obs_size(n: int) -> int:
    return layout(n).size


def encode(view: GinRummyView, out: np.ndarray | None = None) -> np.ndarray:
    """The observation vector of ``view`` (written into ``out`` if given).

    The definition of every feature: the env's incremental ``GinRummyObserver``
    is tested to equal it at every step.
    """
    n = view.num_players
    lay = layout(n)
    o = lay.offsets
    if out is None:
        out = np.zeros(lay.size, dtype=np.float32)
    else:
        out.fill(0.0)
    me = view.seat
    ones = []
    if view.phase == "draw":
        ones.append(o["phase"])
    elif view.phase == "discard":
        ones.append(o["phase"] + 1)
    hand = o["hand"]
    ones.extend(hand + c for c in view.hand)
    if view.taken is not None:
        ones.append(o["taken"] + view.taken)
    if view.pile:
        ones.append(o["pile_top"] + view.pile[-1])
    pile = o["pile"]
    ones.extend(pile + c for c in view.pile)
    for seat in range(n):
        rel = (seat - me) % n
        base = o["known"] + rel * CARDS
        ones.extend(base + c for c in view.known[seat])
        base = o["discarded"] + rel * CARDS
        ones.extend(base + c for c in view.discarded[seat])
    if view.current_player is not None:
        ones.append(o["to_act"] + (view.current_player - me) % n)
    ones.append(o["dealer"] + (view.dealer - me) % n)
    rules = view.rules
    r = o["rules"]
    if rules.knock_limit is None:
        ones.append(r + 1)
    if rules.no_discard_of_taken:
        ones.append(r + 2)
    if rules.layoff:
        ones.append(r + 3)
    if rules.gin_bonus > 0:
        ones.append(r + 4)
    out[ones] = 1.0
    if rules.knock_limit is not None:
        out[r] = rules.knock_limit / 100.0
    out[o["stock_size"]] = view.stock_size / rules.stock_size
    scores = o["scores"]
    for seat in range(n):
        out[scores + (seat - me) % n] = min(SCORE_CLIP, view.scores[seat] / rules.target)
    out[o["deadwood"]] = min(1.0, deadwood(mask_of(view.hand)) / DEADWOOD_SCALE)
    out[o["hand_number"]] = min(1.0, (view.hand_number - 1) / 10.0)
    if view.current_player == me:
        decision_features(out, o, view)
    return out


def decision_features(row: np.ndarray, o: dict, view: GinRummyView) -> None:
    """What the seat to act (``view``'s) knows about its decision: discarding,
    ``discard_deadwood``, ``discard_gin`` and the look-ahead blocks; drawing,
    ``take_deadwood`` and ``stock_outlook``.

    ``discard_gin`` says apart what ``discard_deadwood`` alone cannot: 0 there is
    both "gin" and "not in hand", and a clone of the standard expert, which then knocked
    only for gin, played on past most of its gins.
    """
    hand = mask_of(view.hand)
    if view.phase == "discard":
        base, gin = o["discard_deadwood"], o["discard_gin"]
        after = deadwood_after_discards(hand)
        for card, dw in after.items():
            row[base + card] = min(1.0, dw / DEADWOOD_SCALE)
            if dw == 0:
                row[gin + card] = 1.0
        know = Knowledge(view)
        limit = view.rules.knock_limit
        limit = 10 if limit is None else limit  # as the expert: knock only when low
        for card in view.hand:
            mean, ready, gin_ready = know.outlook(hand ^ CARD_BIT[card], limit)
            row[o["discard_outlook"] + card] = min(1.0, mean / DEADWOOD_SCALE)
            row[o["discard_ready"] + card] = ready
            row[o["discard_gin_ready"] + card] = gin_ready
            row[o["discard_danger"] + card] = min(1.0, know.danger(card) / DANGER_SCALE)
        knock_features(row, o, view, know, after)
    elif view.phase == "draw" and view.pile:
        top = view.pile[-1]
        after = deadwood_after_discards(hand | mask_of((top,)))
        if view.rules.no_discard_of_taken:
            after.pop(top, None)
        row[o["take_deadwood"]] = min(1.0, min(after.values()) / DEADWOOD_SCALE)
        mean = Knowledge(view).expected_deadwood(hand)  # the mean alone: no shares counted
        row[o["stock_outlook"]] = min(1.0, mean / DEADWOOD_SCALE)


def knock_features(row: np.ndarray, o: dict, view: GinRummyView, know: Knowledge,
                   after: dict[int, int]) -> None:
    """Write the ``knock`` block (``KNOCK_FEATURES``) of ``row`` (offsets ``o``) for the seat
    to act, discarding, whose discards leave ``after`` deadwood; nothing when no knock is
    legal."""
    rules = view.rules
    choices = [c for c in view.hand if not (rules.no_discard_of_taken and c == view.taken)]
    knocks = [c for c in choices if rules.may_knock(after[c])]
    if not knocks:
        return
    card = knock_discard(after, knocks)
    # the plain discards' look-ahead shares, as decision_features wrote them
    gin_ready = max(row[o["discard_gin_ready"] + c] for c in choices)
    ready = max(row[o["discard_ready"] + c] for c in choices)
    lay = 0
    for meld in best_split(know.hand ^ CARD_BIT[card]):
        lay |= meld_partners(meld)
    lay &= know.unseen
    nxt = know.next_seat
    thrown = [CARD_VALUE[c] for c in view.discarded[nxt]]
    known = mask_of(view.known[nxt])
    values = (1.0, after[card] / 10, gin_ready, ready, lay.bit_count() / 10,
              hand_value(lay) / 50, len(view.discarded[view.seat]) / 10, len(thrown) / 10,
              len(view.picked[nxt]) / 5, len(view.known[nxt]) / 5,
              meldable(known).bit_count() / 5, sum(thrown) / len(thrown) / 10 if thrown else 0.0,
              thrown[-1] / 10 if thrown else 0.0,
              sum(v >= 8 for v in thrown) / len(thrown) if thrown else 0.0)
    at = o["knock"]
    row[at:at + len(values)] = np.minimum(1.0, values)


def clear_decision_features(row: np.ndarray, o: dict) -> None:
    """Zero every ``decision_features`` block (they are the layout's last ones)."""
    row[o["discard_deadwood"]:] = 0.0


def action_features(n: int) -> tuple[tuple[int, int, int], ...]:
    """The per-action blocks (``envs.games.Game.action_features``): every per-card
    discard block for both the discard and the knock of that card; before a draw, the
    take and stock outlooks for both draws."""
    o = layout(n).offsets
    per_card = ("discard_deadwood", "discard_gin", "discard_outlook", "discard_ready",
                "discard_gin_ready", "discard_danger")
    blocks = [(o[name], first, CARDS) for name in per_card
              for first in (DISCARD_OFFSET, KNOCK_OFFSET)]
    blocks += [(o[name], draw, 1) for name in ("take_deadwood", "stock_outlook")
               for draw in (DRAW_STOCK, TAKE_DISCARD)]
    return tuple(blocks)


action_mask = mask_function(NUM_ACTIONS)  # legal ids -> int8 mask


# ------------------------------------------------------------------ observer
class _Tables:
    """Flat indices for ``GinRummyObserver`` with ``n`` players: where a feature
    sits in each observer's row of the (n, size) buffer, seat ``me``'s row
    starting at ``me * size``. ``*_ALL`` tuples name one feature in every row."""

    def __init__(self, n: int) -> None:
        lay = layout(n)
        o, size = lay.offsets, lay.size

        def every_row(offset: int) -> tuple[int, ...]:
            return encoding.in_every_row(size, n, offset)

        def relative(offset: int, seat: int, stride: int) -> tuple[int, ...]:
            return encoding.in_every_row(size, n, offset, seat, stride)

        self.size = size
        self.hand = tuple(tuple(s * size + o["hand"] + c for c in range(CARDS)) for s in range(n))
        self.deadwood = tuple(s * size + o["deadwood"] for s in range(n))
        self.draw_phase = every_row(o["phase"])
        self.discard_phase = every_row(o["phase"] + 1)
        self.stock = every_row(o["stock_size"])
        self.taken = tuple(every_row(o["taken"] + c) for c in range(CARDS))
        self.top = tuple(every_row(o["pile_top"] + c) for c in range(CARDS))
        self.pile = tuple(every_row(o["pile"] + c) for c in range(CARDS))
        self.known = tuple(tuple(relative(o["known"] + c, s, CARDS) for c in range(CARDS))
                           for s in range(n))
        self.discarded = tuple(tuple(relative(o["discarded"] + c, s, CARDS)
                                     for c in range(CARDS)) for s in range(n))
        self.to_act = tuple(relative(o["to_act"], s, 1) for s in range(n))


@cache
def _tables(n: int) -> _Tables:
    return _Tables(n)


class GinRummyObserver:
    """Every seat's observation vector, kept equal to ``encode(state.view(seat))``.

    The env's hot path: instead of building a view and encoding it at every
    step, each move flips only the features it changes (a card into or out of a
    hand, the pile's top, the phase, the player to act). A new hand, the end of
    the game, or any move the observer did not see re-encodes every seat with
    ``encode``, so ``encode`` stays the one definition of the features; the
    tests check that the two agree for every seat at every step. One observer
    belongs to one env. The seat-to-act blocks (``decision_features``, a look-ahead
    over every unseen draw) stay zero in the rows: ``observation`` adds them to the
    acting seat's copy, so a seat played by a rule bot, which reads views, costs
    nothing there. Single values are stored through a ``memoryview`` of the
    (n, size) float32 buffer: a scalar store there costs a fraction of numpy's.
    """

    def __init__(self, num_players: int) -> None:
        self.n = num_players
        self.t = _tables(num_players)
        self._obs = np.zeros((num_players, self.t.size), dtype=np.float32)
        self._pile = None  # no state yet: the first call re-encodes
        self._make_views()

    def _make_views(self) -> None:
        """Views of ``_obs`` (not pickled: a memoryview cannot be)."""
        self._rows = list(self._obs)
        self._mv = memoryview(self._obs.reshape(-1))

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        del state["_rows"], state["_mv"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._make_views()

    def reset(self, state) -> None:
        """Encode every seat afresh from ``state``."""
        offsets = layout(self.n).offsets
        for seat, row in enumerate(self._rows):
            encode(state.view(seat), out=row)
            clear_decision_features(row, offsets)  # added per observation (``observation``)
        self._sync(state)

    def _sync(self, state) -> None:
        self._pile = state.pile
        self._moves = state.moves
        self._player = state.current_player
        self._taken = state.taken
        self._top = state.pile[-1] if state.pile else None

    def after_apply(self, state, player: int, action: int) -> None:
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
            mv[t.hand[player][state.drawn]] = 1.0
            if action == 0:
                for i in t.stock:
                    mv[i] = len(state.stock) / state.rules.stock_size
            else:
                card = state.taken
                for i in t.top[card]:
                    mv[i] = 0.0
                if pile:
                    for i in t.top[pile[-1]]:
                        mv[i] = 1.0
                for i in t.pile[card]:
                    mv[i] = 0.0
                for i in t.known[player][card]:
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
            for i in t.to_act[state.current_player]:
                mv[i] = 1.0
        mv[t.deadwood[player]] = min(1.0, deadwood(state.masks[player]) / DEADWOOD_SCALE)
        self._sync(state)

    def observation(self, state, seat: int) -> np.ndarray:
        """A new copy of ``seat``'s vector: ``encode(state.view(seat))``."""
        if (state.pile is not self._pile or state.moves != self._moves
                or state.current_player != self._player):
            self.reset(state)  # moved without after_apply (e.g. state.apply called directly)
        obs = self._rows[seat].copy()
        if seat == state.current_player:  # the rows leave the seat-to-act blocks at zero
            decision_features(obs, layout(self.n).offsets, state.view(seat))
        return obs
