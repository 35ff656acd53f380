"""Spades' information state: ``SpadesView`` -> float32 vector, kept up to date move by move.

Everything a seat's view holds and nothing a bot estimates: the phase, the own
hand, every bid, the tricks taken, every card played this hand by whom and in
which trick, the trick on the table and its leader, whether spades are broken,
the suits each player has shown void in, scores, bags, the dealer, the hand
number and the rule flags; and, for the seat to act while it plays, which of its
cards would take the trick as it stands and which no unseen card outranks (exact
functions of the other blocks, written out because a network reads them there only
through comparisons of card ranks across blocks). Seats are relative: sub-block 0 of
a per-seat block is always the observer, then the players after it clockwise. The
hand's history can be read back (each trick's cards and players; its leader is the
winner of the one before), so the last trick is not repeated here. Bump ``VERSION``
(and the env name) when the layout changes.

``BLOCKS`` holds every block's width, and the scales below every number's divisor,
once: ``LAYOUT`` and the ``features`` layout (``cardrl.envs.spades.features``) pick
blocks from it by name, and the compiled core writes with the same constants.
``write`` fills the blocks a layout has at its offsets, and ``SpadesObserver``
keeps them current for every seat.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from cardrl.envs import cards, encoding
from cardrl.envs.cards import NUM_CARDS
from cardrl.envs.spades.actions import CARD_OFFSET, NUM_ACTIONS
from cardrl.envs.spades.engine import POWER_TABLE, SUIT_TABLE, SpadesState
from cardrl.envs.spades.play_layout import PLAY_BLOCKS
from cardrl.envs.spades.rules import NUM_PLAYERS, NUM_TRICKS, SpadesRules
from cardrl.envs.spades.tracking import beats, trick_leader_card
from cardrl.envs.spades.view import SpadesView

VERSION = 2
P = NUM_PLAYERS
SUITS = 4  # C D H S (jokers count as spades)
BID_SLOTS = NUM_TRICKS + 2  # not bid yet, or bid 0..13
TRICK_SLOTS = NUM_TRICKS + 1  # tricks taken 0..13
SCORE_CLIP = 4.0  # scores / target, clipped to +-4
TRICK_SCALE = float(NUM_TRICKS)  # trick counts and numbers, / 13
HAND_NUMBER_SCALE = 10.0  # hands played / 10, clipped to 1
RULE_FLAGS = ("spades_must_be_broken", "bids_may_total_tricks", "jokers", "bags")

# every information block a layout may have, by name: (width, what it holds)
BLOCKS = {
    "phase": 2,  # bidding, playing
    "hand": NUM_CARDS,
    "bids": P * BID_SLOTS,  # per relative seat: not bid yet, or bid 0..13
    "tricks": P * TRICK_SLOTS,  # per relative seat: tricks taken 0..13
    "played_by": P * NUM_CARDS,  # every card played this hand, by whom
    "trick_number": NUM_CARDS,  # per card played this hand: its trick 1..13 / TRICK_SCALE
    "trick": P * NUM_CARDS,  # the trick on the table, by whom
    "leader": P,  # of the trick on the table (the last trick's winner, once one is played)
    "last_trick": P * NUM_CARDS,  # the previous trick of this hand, by whom
    "last_trick_winner": P,
    "spades_broken": 1,
    "voids": P * SUITS,  # per relative seat, per suit: shown to hold none
    "scores": P,  # total / target, clipped to +-SCORE_CLIP
    "bags": P,  # bags / bag limit (0 without bags)
    "dealer": P,
    "hand_number": 1,  # hands played / HAND_NUMBER_SCALE, clipped to 1
    "tricks_played": 1,  # / TRICK_SCALE
    "rules": len(RULE_FLAGS),
    # the seat to act while it plays only (zero for every other seat and in the bidding):
    "tops_trick": NUM_CARDS,  # per own card: it would take the trick as it stands (any
    # card on a lead)
    "master": NUM_CARDS,  # per own card: no card of its suit outranks it but own cards and
    # cards played this hand
}


def blocks(*names: str) -> tuple[tuple[str, int], ...]:
    """The layout of the named information blocks, in the order given."""
    return tuple((name, BLOCKS[name]) for name in names)


LAYOUT = blocks("phase", "hand", "bids", "tricks", "played_by", "trick_number", "trick",
                "leader", "spades_broken", "voids", "scores", "bags", "dealer", "hand_number",
                "tricks_played", "rules", "tops_trick", "master")
OFFSETS, OBS_SIZE = encoding.offsets(LAYOUT)
TOPS, MASTER = OFFSETS["tops_trick"], OFFSETS["master"]
# the blocks ``play_kernels.write_play`` reads and writes, in the order of its ``at``, and
# where it finds them in this layout (the rules' jokers flag)
PLAY_AT = np.array([OFFSETS[name] + (RULE_FLAGS.index("jokers") if name == "rules" else 0)
                    for name in PLAY_BLOCKS], dtype=np.int64)
# the compiled play blocks: ``_import_play_kernels`` binds them for an observer that writes
# them, as they load numba, which importing the encoders does not (None until then; an
# observer with ``play_blocks`` calls it only once bound)
if TYPE_CHECKING:
    from cardrl.envs.spades import play_kernels
else:
    play_kernels = None
DECKS = {jokers: tuple(cards.make_deck(jokers)) for jokers in (False, True)}
# blocks laid out per relative seat (``P`` sub-blocks, the observer's first)
PER_SEAT_BLOCKS = ("bids", "tricks", "played_by", "trick", "leader", "last_trick",
                   "last_trick_winner", "voids", "scores", "bags", "dealer")


def rule_flags(rules: SpadesRules) -> tuple[bool, ...]:
    """The ``rules`` block's flags, in ``RULE_FLAGS`` order."""
    return (rules.spades_must_be_broken, rules.bids_may_total_tricks, rules.jokers,
            rules.bag_limit is not None)


def write(view: SpadesView, out: np.ndarray, o: dict[str, int]) -> None:
    """Write ``view``'s information blocks into the zeroed ``out`` at the offsets ``o``
    (of the blocks ``o`` names: ``trick_number`` and ``last_trick`` are optional)."""
    me = view.seat
    ones = []
    if view.phase == "bid":
        ones.append(o["phase"])
    elif view.phase == "play":
        ones.append(o["phase"] + 1)
    hand = o["hand"]
    ones.extend(hand + c for c in view.hand)
    bids, tricks, voids = o["bids"], o["tricks"], o["voids"]
    for seat in range(P):
        rel = (seat - me) % P
        bid = view.bids[seat]
        ones.append(bids + rel * BID_SLOTS + (0 if bid is None else bid + 1))
        ones.append(tricks + rel * TRICK_SLOTS + view.tricks[seat])
        v = view.voids[seat]
        for s in range(SUITS):
            if v >> s & 1:
                ones.append(voids + rel * SUITS + s)
    played = o["played_by"]
    for seat, c in view.plays:
        ones.append(played + ((seat - me) % P) * NUM_CARDS + c)
    trick = o["trick"]
    for seat, c in view.trick:
        ones.append(trick + ((seat - me) % P) * NUM_CARDS + c)
    ones.append(o["leader"] + (view.leader - me) % P)
    last = o.get("last_trick")
    if last is not None:
        for seat, c in view.last_trick:
            ones.append(last + ((seat - me) % P) * NUM_CARDS + c)
        if view.last_trick_winner is not None:
            ones.append(o["last_trick_winner"] + (view.last_trick_winner - me) % P)
    if view.spades_broken:
        ones.append(o["spades_broken"])
    ones.append(o["dealer"] + (view.dealer - me) % P)
    rules = view.rules
    flags = o["rules"]
    ones.extend(flags + k for k, on in enumerate(rule_flags(rules)) if on)
    out[ones] = 1.0
    numbers = o.get("trick_number")
    if numbers is not None:
        for i, (_, c) in enumerate(view.plays):
            out[numbers + c] = (i // P + 1) / TRICK_SCALE
    scores, bags = o["scores"], o["bags"]
    for seat in range(P):
        rel = (seat - me) % P
        out[scores + rel] = min(SCORE_CLIP, max(-SCORE_CLIP, view.scores[seat] / rules.target))
        if rules.bag_limit is not None:
            out[bags + rel] = view.bags[seat] / rules.bag_limit
    out[o["hand_number"]] = min(1.0, (view.hand_number - 1) / HAND_NUMBER_SCALE)
    out[o["tricks_played"]] = (len(view.plays) // P) / TRICK_SCALE


def encode(view: SpadesView, out: np.ndarray | None = None) -> np.ndarray:
    """The information-state vector of ``view`` (written into ``out`` if given): the
    definition the incremental ``SpadesObserver`` is tested against at every step."""
    if out is None:
        out = np.zeros(OBS_SIZE, dtype=np.float32)
    else:
        out.fill(0.0)
    write(view, out, OFFSETS)
    write_play(view, out)
    return out


def write_play(view: SpadesView, out: np.ndarray) -> None:
    """``tops_trick`` and ``master`` of ``view``'s cards, when its seat is to play: the
    definition (the observer and the compiled core write them with ``play_kernels``)."""
    if view.phase != "play" or view.current_player != view.seat:
        return
    top = [-1, -1, -1, -1]  # per suit: the highest power no seat has shown
    seen = set(view.hand)
    seen.update(c for _, c in view.plays)
    for c in DECKS[view.rules.jokers]:
        if c not in seen and POWER_TABLE[c] > top[SUIT_TABLE[c]]:
            top[SUIT_TABLE[c]] = POWER_TABLE[c]
    trick = view.trick
    led = SUIT_TABLE[trick[0][1]] if trick else -1
    best = trick_leader_card(trick)[1]
    for c in view.hand:
        if best is None or beats(c, best, led):  # None: no trick on the table
            out[TOPS + c] = 1.0
        if POWER_TABLE[c] > top[SUIT_TABLE[c]]:
            out[MASTER + c] = 1.0


def bounds(o: dict[str, int], size: int) -> tuple[np.ndarray, np.ndarray]:
    """[0, 1] but the scores, +-``SCORE_CLIP``."""
    low, high = encoding.unit_bounds(size)
    low[o["scores"]:o["scores"] + P] = -SCORE_CLIP
    high[o["scores"]:o["scores"] + P] = SCORE_CLIP
    return low, high


def describe(index: int) -> str:
    """Which feature an observation index holds, e.g. 'played_by[164]'."""
    return encoding.describe(LAYOUT, OFFSETS, index)


# ------------------------------------------------------------------ observer
class Tables:
    """Flat positions of the information blocks in an observer's ``(P, size)`` buffer
    (seat ``me``'s vector starts at ``me * size``), for a layout's offsets ``o``.

    Most name a feature in every observer's vector at once, as one numpy
    assignment through an index array costs less than a Python loop of stores.
    """

    def __init__(self, layout: encoding.Layout) -> None:
        o, size = encoding.offsets(layout)
        self.offsets, self.size = o, size

        def per_observer(offset: int, seat: int, stride: int = 0) -> tuple[int, ...]:
            return encoding.in_every_row(size, P, offset, seat, stride)

        def array(indices: tuple[int, ...]) -> np.ndarray:
            return np.array(indices, dtype=np.intp)

        played, trick = o["played_by"], o["trick"]
        self.hand = tuple(tuple(s * size + o["hand"] + c for c in range(NUM_CARDS))
                          for s in range(P))
        self.play = tuple(  # [seat][card]: the card's played_by and trick indices
            tuple(array(per_observer(played + c, s, NUM_CARDS)
                        + per_observer(trick + c, s, NUM_CARDS)) for c in range(NUM_CARDS))
            for s in range(P))
        numbers = o.get("trick_number")
        self.trick_number = None if numbers is None else tuple(
            per_observer(numbers + c, 0) for c in range(NUM_CARDS))
        self.bid = tuple(tuple(array(per_observer(o["bids"] + b, s, BID_SLOTS))
                               for b in range(BID_SLOTS))
                         for s in range(P))
        tricks_at = tuple(tuple(per_observer(o["tricks"] + t, s, TRICK_SLOTS)
                                for t in range(TRICK_SLOTS))
                          for s in range(P))
        self.tricks = tuple(tuple(array(t) for t in row) for row in tricks_at)
        leader_at = tuple(per_observer(o["leader"], s, 1) for s in range(P))
        last_win = o.get("last_trick_winner")
        last_win_at = tuple(() if last_win is None else per_observer(last_win, s, 1)
                            for s in range(P))
        self.void = tuple(  # [seat][bits]: the void indices of the suits set in ``bits``
            tuple(array(sum((per_observer(o["voids"] + suit, s, SUITS) for suit in range(SUITS)
                             if bits >> suit & 1), ())) for bits in range(16))
            for s in range(P))
        self.leader_clears = tuple(  # [leader][last trick's winner, None]: what a trick clears
            # (the winner's block only where the layout has one)
            {w: array(leader_at[lead] + (() if w is None else last_win_at[w]))
             for w in (*range(P), None)}
            for lead in range(P))
        self.winner_sets = tuple(  # [winner][tricks taken]: what the trick's end sets
            tuple(array(leader_at[w] + last_win_at[w] + tricks_at[w][t])
                  for t in range(TRICK_SLOTS))
            for w in range(P))
        self.bid_phase = array(per_observer(o["phase"], 0))
        self.play_phase = array(per_observer(o["phase"] + 1, 0))
        self.broken = array(per_observer(o["spades_broken"], 0))
        self.tricks_played = array(per_observer(o["tricks_played"], 0))
        self.trick_slice = slice(trick, trick + P * NUM_CARDS)
        last = o.get("last_trick")
        self.last_slice = None if last is None else slice(last, last + P * NUM_CARDS)
        self.rotations = tuple(self._rotation(layout, me) for me in range(P))

    def _rotation(self, layout: encoding.Layout, me: int) -> np.ndarray:
        """Indices into seat 0's vector followed by ``NUM_CARDS`` zeros that give seat
        ``me``'s vector with an empty hand: seat 0's per-seat sub-blocks rotated, the
        hand block taken from the zeros."""
        o, size = self.offsets, self.size
        index = np.arange(size, dtype=np.intp)
        for name, block in layout:
            if name in PER_SEAT_BLOCKS:
                k, off = block // P, o[name]
                for rel in range(P):
                    seat = (me + rel) % P  # seat 0 sees it at relative position ``seat``
                    index[off + rel * k:off + (rel + 1) * k] = np.arange(off + seat * k,
                                                                         off + (seat + 1) * k)
        index[o["hand"]:o["hand"] + NUM_CARDS] = np.arange(size, size + NUM_CARDS)
        return index


def _import_play_kernels() -> None:
    global play_kernels
    from cardrl.envs.spades import play_kernels


class SpadesObserver:
    """Every seat's vector of a layout's information blocks, kept equal to its encoder.

    The env's hot path: instead of building a view and encoding it at every
    step, each move flips only the features it changes (a bid; a card leaving a
    hand for the table; a trick moving to ``last_trick``, its winner scoring and
    leading). A new hand, the end of the game, or moves the observer did not see
    re-encode: ``encode`` of seat 0's view, rotated for the other seats (only the
    hand differs), so the encoder stays the one definition of the features; the
    tests check that the two agree for every seat at every step. One observer
    belongs to one env.

    The vectors are the rows of one (4, size) float32 array. A move sets a
    feature in all four at once through a precomputed index array; single
    values go through a ``memoryview``, where a scalar store costs a fraction of
    numpy's item assignment. ``decide(view, vector)``, when given, adds what only
    the seat to act sees to its copy (the ``features`` kind), so it is computed
    only for a vector someone asks for; ``private_from`` is where those blocks
    start (the rows keep them at zero). With ``play_blocks`` the seat to play's copy
    gets ``tops_trick`` and ``master`` (``write_play``) from its own blocks, through
    the compiled kernel: no view is built.
    """

    def __init__(self, tables: Tables, encode: Callable[..., np.ndarray],
                 decide: Callable[[SpadesView, np.ndarray], None] | None = None,
                 private_from: int | None = None, play_blocks: bool = False) -> None:
        self.t = tables
        self._encode, self._decide = encode, decide
        self._play_blocks = play_blocks
        if play_blocks:
            _import_play_kernels()
        self._private = tables.size if private_from is None else private_from
        self._obs = np.zeros((P, tables.size), dtype=np.float32)
        self._seat0 = np.zeros(tables.size + NUM_CARDS, dtype=np.float32)  # see _rotation
        self._plays: list[tuple[int, int]] | None = None  # no state yet: the first call re-encodes
        self._starts: dict = {}  # rows before a hand's first bid, but the hands (``reset``)
        self._make_views()

    def _make_views(self) -> None:
        """Views of ``_obs`` (not pickled: a memoryview cannot be, and copies of
        views would no longer share the buffer)."""
        self._rows = list(self._obs)
        self._flat = self._obs.reshape(-1)
        self._mv = encoding.float_view(self._flat)
        self._trick_block = self._obs[:, self.t.trick_slice]
        last = self.t.last_slice
        self._last_block = None if last is None else self._obs[:, last]

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        for name in ("_rows", "_flat", "_mv", "_trick_block", "_last_block"):
            del state[name]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._make_views()
        if self._play_blocks:
            _import_play_kernels()

    def reset(self, state: SpadesState) -> None:
        """Encode every seat afresh from ``state``: seat 0's view, rotated for the others.

        A hand before its first bid looks the same to every game with the same rules,
        dealer, scores and bags but for the hands, so those rows are kept (a few) and
        only the hand bits are set: a new game costs a copy instead of an encode.
        """
        t, rows, mv = self.t, self._rows, self._mv
        key = None
        if state.phase == "bid" and not state.plays and state.bids.count(None) == P:
            key = (state.rules, state.dealer, state.hand_number, tuple(state.scores),
                   tuple(state.bags))
        start = self._starts.get(key) if key is not None else None
        if start is not None:
            self._obs[...] = start
            for me in range(P):
                hand_at = t.hand[me]
                for c in state.hands[me]:
                    mv[hand_at[c]] = 1.0
        else:
            seat0, size = self._seat0, t.size
            self._encode(state.view(0), out=seat0[:size])  # seat0[size:] stays zero
            seat0[self._private:size] = 0.0  # added per observation (``observation``)
            rows[0][...] = seat0[:size]
            for me in range(1, P):
                seat0.take(t.rotations[me], out=rows[me], mode="clip")  # all but the hand
                hand_at = t.hand[me]
                for c in state.hands[me]:
                    mv[hand_at[c]] = 1.0
            if key is not None:
                start = self._obs.copy()
                hand = t.offsets["hand"]
                start[:, hand:hand + NUM_CARDS] = 0.0
                if len(self._starts) >= 16:
                    self._starts.clear()
                self._starts[key] = start
        self._voids = list(state.voids)
        self._broken = state.spades_broken
        self._leader = state.leader
        self._last_winner = state.last_trick_winner
        self._plays = state.plays
        self._num_plays = len(state.plays)
        self._player = state.current_player
        self._phase = state.phase

    def after_apply(self, state: SpadesState, player: int, action: int) -> None:
        """Update the vectors after ``player``'s ``action`` was applied to ``state``.

        Anything but the next move from where the last call left off (a new
        hand, the end of the game, moves applied to the state directly, another
        state) re-encodes every seat.
        """
        plays = state.plays
        if plays is not self._plays or player != self._player:
            self.reset(state)  # a new hand (a new plays list), another state, missed moves
            return
        t, flat = self.t, self._flat
        if action < CARD_OFFSET:  # a bid
            if self._phase != "bid":
                self.reset(state)
                return
            flat[t.bid[player][0]] = 0.0
            flat[t.bid[player][action + 1]] = 1.0
            if state.phase == "play":  # the last bid: play begins
                flat[t.bid_phase] = 0.0
                flat[t.play_phase] = 1.0
                self._phase = "play"
            self._player = state.current_player
            return
        num_plays = len(plays)
        if num_plays != self._num_plays + 1 or self._phase != "play" or state.phase != "play":
            self.reset(state)  # the game is over, or moves we did not see
            return
        card = action - CARD_OFFSET
        mv = self._mv
        mv[t.hand[player][card]] = 0.0
        flat[t.play[player][card]] = 1.0
        if t.trick_number is not None:
            number = ((num_plays - 1) // P + 1) / TRICK_SCALE
            for i in t.trick_number[card]:
                mv[i] = number
        voids = state.voids[player]
        if voids != self._voids[player]:  # voids only grow within a hand
            flat[t.void[player][voids & ~self._voids[player]]] = 1.0
            self._voids[player] = voids
        if state.spades_broken and not self._broken:
            flat[t.broken] = 1.0
            self._broken = True
        if not state.trick:  # the card completed a trick
            self._trick_done(state, num_plays)
        self._num_plays = num_plays
        self._player = state.current_player

    def _trick_done(self, state: SpadesState, num_plays: int) -> None:
        """The trick leaves the table for ``last_trick``; its winner takes it and leads."""
        t = self.t
        if self._last_block is not None:
            self._last_block[...] = self._trick_block  # same layout: the trick is the last
        self._trick_block.fill(0.0)
        flat = self._flat
        winner = state.last_trick_winner
        assert winner is not None  # a trick was just won
        taken = state.tricks[winner]
        flat[t.leader_clears[self._leader][self._last_winner]] = 0.0
        flat[t.tricks[winner][taken - 1]] = 0.0
        flat[t.winner_sets[winner][taken]] = 1.0
        flat[t.tricks_played] = (num_plays // P) / TRICK_SCALE
        self._leader = self._last_winner = winner

    def observation(self, state: SpadesState, seat: int) -> np.ndarray:
        """A new copy of ``seat``'s vector, equal to its encoder's vector of the view."""
        if (state.plays is not self._plays or len(state.plays) != self._num_plays
                or state.current_player != self._player or state.phase != self._phase):
            self.reset(state)  # moved without after_apply (e.g. state.apply called directly)
        obs = self._rows[seat].copy()
        if seat != state.current_player:
            return obs
        if self._decide is not None:
            self._decide(state.view(seat), obs)
        if self._play_blocks and self._phase == "play":
            play_kernels.write_play(obs, PLAY_AT)
        return obs


def card_table(n: int = P) -> encoding.CardTable:
    """Each card: in the hand, played by each seat and in which trick, on the table by each
    seat, whether it tops the trick and is its suit's master, and whether each seat has
    shown void in its suit (jokers count as spades)."""
    o = OFFSETS
    planes = encoding.card_planes(
        [o["hand"], *(o["played_by"] + s * NUM_CARDS for s in range(P)), o["trick_number"],
         *(o["trick"] + s * NUM_CARDS for s in range(P)), TOPS, MASTER], NUM_CARDS)
    suit = np.array(SUIT_TABLE)
    voids = o["voids"] + SUITS * np.arange(P)[None, :] + suit[:, None]
    action_card = np.full(NUM_ACTIONS, -1)
    action_card[CARD_OFFSET:] = np.arange(NUM_CARDS)
    return encoding.CardTable(np.concatenate([planes, voids], axis=1), action_card,
                              np.where(action_card >= 0, 0, -1))


def action_features(num_players: int = P) -> tuple[tuple[int, int, int], ...]:
    """The per-action blocks (``cardrl.envs.encoding.Encoder.action_features``): each own card's
    ``tops_trick`` and ``master``, for the action that plays it."""
    return ((TOPS, CARD_OFFSET, NUM_CARDS), (MASTER, CARD_OFFSET, NUM_CARDS))


TABLES = Tables(LAYOUT)
INFOSTATE = encoding.Encoder(
    kind="infostate", version=VERSION, size=lambda n: OBS_SIZE, encode=encode,
    bounds=lambda n: bounds(OFFSETS, OBS_SIZE), describe=lambda n, i: describe(i),
    observer=lambda n: SpadesObserver(TABLES, encode, private_from=TOPS, play_blocks=True),
    cards=card_table,
    action_features=action_features)
