"""Spades' ``features`` observation: the information a seat holds plus the expert's numbers.

The vectors the shipped Spades bots read (``observation="features"``): the
information blocks of ``cardrl.envs.spades.infostate`` (without ``trick_number``, with the
last trick and its winner), then, for the seat to act only, what the expert bot reckons
with. Every number is worked out from the seat's view. Bump ``VERSION`` when the layout changes.

Each layout version's changes are in docs/envs/spades.md (version history).
"""

from __future__ import annotations

import numpy as np

from cardrl.envs import encoding
from cardrl.envs.cards import NUM_CARDS
from cardrl.envs.spades import infostate
from cardrl.envs.spades.actions import CARD_OFFSET, NUM_BIDS
from cardrl.envs.spades.engine import SUIT_TABLE
from cardrl.envs.spades.infostate import TRICK_SCALE, P
from cardrl.envs.spades.strength import contract_tricks, estimate_tricks, nil_chance, nil_value
from cardrl.envs.spades.tracking import SPADES, Knowledge, beats, cost
from cardrl.envs.spades.view import SpadesView

VERSION = 4

# the information blocks (``infostate.BLOCKS``: the infostate's, without ``trick_number``,
# with the last trick and its winner), then the seat to act's
LAYOUT = infostate.blocks(
    "phase", "hand", "bids", "tricks", "played_by", "trick", "leader", "last_trick",
    "last_trick_winner", "spades_broken", "voids", "scores", "bags", "dealer", "hand_number",
    "tricks_played", "rules") + (
    # the seat to act only (zero for every other seat):
    ("hand_estimate", 1),  # bidding: the modified count (strength.estimate_tricks) / 13
    ("nil_chance", 1),  # bidding: strength.nil_chance
    ("expected_tricks", 1),  # playing: tricks the hand still takes by force / 13
    ("p_win", NUM_CARDS),  # playing, per own card: chance it wins this trick (Knowledge.p_win)
    ("master", NUM_CARDS),  # playing, per own card: no unseen card of its suit outranks it
    ("contract_tricks", 1),  # bidding: strength.contract_tricks / 13, clipped to 0..1
    ("bid_distance", NUM_BIDS),  # bidding, per bid 1..13: -|bid - contract_tricks| / 6, to -1;
    # nil (no trick bid) -1
    ("bid_excess", NUM_BIDS),  # bidding, per bid 1..13: (bid - contract_tricks) / 6, +-1
    ("nil_value", 1),  # bidding: strength.nil_value / 100, clipped to +-1 (for the nil bid)
    ("need", 1),  # playing: tricks the bid still needs / 13, +-1 (overtricks negative)
    ("shortfall", 1),  # playing: need - expected_tricks, / 13, +-1
    ("nil_alive", P),  # playing, per relative seat: bid nil and has taken no trick yet
    ("tops_trick", NUM_CARDS),  # playing, per own card: it would take the trick as it stands
    ("danger", NUM_CARDS),  # playing, per own card: how likely it is to win a later trick
    ("counted", NUM_CARDS),  # playing, per own card: one of the winners expected_tricks counts
    ("cheap", NUM_CARDS),  # playing, per own card: 1 for the cheapest (side suits first), to 0
    ("suit_length", NUM_CARDS),  # playing, per own card: own cards of its suit / 13
    ("ruff_risk", NUM_CARDS),  # playing, per own side-suit card: chance a lead of it is ruffed
)
BID_SCALE, NIL_SCALE, DANGER_SCALE = 6.0, 100.0, 18.0
SUIT_SIZE = 13.0  # suit lengths / 13
OFFSETS, OBS_SIZE = encoding.offsets(LAYOUT)

_DECISION = OFFSETS["hand_estimate"]  # the seat-to-act blocks run from here to the end
_P_WIN = OFFSETS["p_win"]
_MASTER = OFFSETS["master"]
_CONTRACT = OFFSETS["contract_tricks"]
_BID_DISTANCE = OFFSETS["bid_distance"]
_BID_EXCESS = OFFSETS["bid_excess"]
_NIL_VALUE = OFFSETS["nil_value"]
_NEED = OFFSETS["need"]
_SHORTFALL = OFFSETS["shortfall"]
_NIL_ALIVE = OFFSETS["nil_alive"]
_PER_CARD = tuple(OFFSETS[name] for name in ("tops_trick", "danger", "counted", "cheap",
                                             "suit_length", "ruff_risk"))
_SIGNED = np.r_[_BID_DISTANCE:_BID_DISTANCE + NUM_BIDS, _BID_EXCESS:_BID_EXCESS + NUM_BIDS,
                _NIL_VALUE, _NEED, _SHORTFALL]


def encode(view: SpadesView, out: np.ndarray | None = None) -> np.ndarray:
    """The ``features`` vector of ``view`` (written into ``out`` if given).

    The definition of every feature: the env's incremental observer is tested
    to equal it at every step.
    """
    if out is None:
        out = np.zeros(OBS_SIZE, dtype=np.float32)
    else:
        out.fill(0.0)
    infostate.write(view, out, OFFSETS)
    if view.current_player == view.seat:
        decision_features(view, out)
    return out


def decision_features(view: SpadesView, out: np.ndarray) -> None:
    """The blocks only the seat to act sees, from its own view: the hand's worth
    before a bid, each card's odds before a play."""
    if view.phase == "bid":
        hand, rules = view.hand, view.rules
        out[_DECISION] = min(1.0, estimate_tricks(hand, rules.jokers) / TRICK_SCALE)
        out[_DECISION + 1] = nil_chance(hand)
        tricks = contract_tricks(hand, rules.jokers, view.bids, view.seat)
        out[_CONTRACT] = min(1.0, max(0.0, tricks / TRICK_SCALE))
        excess = np.clip((np.arange(1, NUM_BIDS) - tricks) / BID_SCALE, -1.0, 1.0)
        out[_BID_DISTANCE] = -1.0  # nil: weighed by nil_value instead
        out[_BID_DISTANCE + 1:_BID_DISTANCE + NUM_BIDS] = -np.abs(excess)
        out[_BID_EXCESS + 1:_BID_EXCESS + NUM_BIDS] = excess
        out[_NIL_VALUE] = min(1.0, max(-1.0, nil_value(hand, rules.nil_points) / NIL_SCALE))
    elif view.phase == "play":
        kn = Knowledge(view)
        out[_DECISION + 2] = min(1.0, kn.expected_tricks / TRICK_SCALE)
        for c in view.hand:
            out[_P_WIN + c] = kn.p_win(c)
            if kn.is_master(c):
                out[_MASTER + c] = 1.0
        play_features(kn, out)


def play_features(kn: Knowledge, out: np.ndarray) -> None:
    """What the expert's card choice turns on (``cardrl.agents.spades.play``): whether a card
    takes the trick, how dangerous it is to keep, whether the hand counts on it, how
    cheap it is, its suit's length and the ruff risk of leading it."""
    view, me = kn.view, kn.seat
    need = kn.need()
    out[_NEED] = max(-1.0, min(1.0, need / TRICK_SCALE))
    out[_SHORTFALL] = max(-1.0, min(1.0, (need - kn.expected_tricks) / TRICK_SCALE))
    for seat in range(P):
        if kn.nil_alive(seat):
            out[_NIL_ALIVE + (seat - me) % P] = 1.0
    tops, danger, counted, cheap, length, ruff = _PER_CARD
    hand = sorted(view.hand, key=cost)
    last = max(1, len(hand) - 1)
    for i, c in enumerate(hand):
        suit = SUIT_TABLE[c]
        if kn.best is None or beats(c, kn.best, kn.led):  # None: no trick on the table
            out[tops + c] = 1.0
        out[danger + c] = kn.danger(c) / DANGER_SCALE
        if c in kn.counted:
            out[counted + c] = 1.0
        out[cheap + c] = 1.0 - i / last
        out[length + c] = len(kn.my_suits[suit]) / SUIT_SIZE
        if suit != SPADES:
            out[ruff + c] = kn.p_ruffed(suit)


def action_features(num_players: int = P) -> tuple[tuple[int, int, int], ...]:
    """The per-action blocks (``cardrl.envs.games.Game.action_features``): each bid's distance
    from the contract and nil's value, for the bid actions; each own card's trick
    odds, master flag and version 4's per-card blocks, for the action that plays it."""
    return ((_BID_DISTANCE, 0, NUM_BIDS), (_BID_EXCESS, 0, NUM_BIDS), (_NIL_VALUE, 0, 1),
            (_P_WIN, CARD_OFFSET, NUM_CARDS), (_MASTER, CARD_OFFSET, NUM_CARDS),
            *((offset, CARD_OFFSET, NUM_CARDS) for offset in _PER_CARD))


def observation_bounds() -> tuple[np.ndarray, np.ndarray]:
    low, high = infostate.bounds(OFFSETS, OBS_SIZE)
    low[_SIGNED] = -1.0
    return low, high


def describe(index: int) -> str:
    """Which feature an observation index holds, e.g. 'played_by[1][AS]'."""
    return encoding.describe(LAYOUT, OFFSETS, index)


TABLES = infostate.Tables(LAYOUT)
FEATURES = encoding.Encoder(
    kind="features", version=VERSION, size=lambda n: OBS_SIZE, encode=encode,
    bounds=lambda n: observation_bounds(), describe=lambda n, i: describe(i),
    observer=lambda n: infostate.SpadesObserver(TABLES, encode, decision_features, _DECISION),
    action_features=lambda n: action_features())
