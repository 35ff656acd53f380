"""Spades observation encoder: ``SpadesView`` -> float32 vector, and the action mask.

The one place numeric features are made; the env, trained bots and export all
call it. Seats are relative: block 0 is always the observing seat, then the
players after it in clockwise order. Bump ``ENCODER_VERSION`` (and the env
name) when the layout changes.
"""

from __future__ import annotations

import numpy as np

from envs.cards import NUM_CARDS
from envs.spades.actions import CARD_OFFSET, NUM_ACTIONS
from envs.spades.engine import SUIT_TABLE
from envs.spades.view import SpadesView

ENCODER_VERSION = 1
P = 4  # players
SCORE_CLIP = 4.0

# (name, size) of each block, in order
LAYOUT = (
    ("phase", 2),  # bidding, playing
    ("hand", NUM_CARDS),
    ("bids", P * 15),  # per relative seat: not bid yet, or bid 0..13
    ("tricks", P * 14),  # per relative seat: tricks taken 0..13
    ("played_by", P * NUM_CARDS),  # every card played this hand, by whom
    ("trick", P * NUM_CARDS),  # the trick on the table, by whom
    ("leader", P),
    ("last_trick", P * NUM_CARDS),
    ("last_trick_winner", P),
    ("spades_broken", 1),
    ("voids", P * 4),
    ("scores", P),  # total / target, clipped to +-4
    ("bags", P),  # bags / bag limit
    ("dealer", P),
    ("hand_number", 1),  # hands played / 10, clipped to 1
    ("tricks_played", 1),  # / 13
    ("rules", 4),  # spades must be broken, bids may total 13, jokers, bags counted
)
OFFSETS: dict[str, int] = {}
_o = 0
for _name, _size in LAYOUT:
    OFFSETS[_name] = _o
    _o += _size
OBS_SIZE = _o
del _o, _name, _size

_PHASE = OFFSETS["phase"]
_HAND = OFFSETS["hand"]
_BIDS = OFFSETS["bids"]
_TRICKS = OFFSETS["tricks"]
_PLAYED = OFFSETS["played_by"]
_TRICK = OFFSETS["trick"]
_LEADER = OFFSETS["leader"]
_LAST = OFFSETS["last_trick"]
_LAST_WIN = OFFSETS["last_trick_winner"]
_BROKEN = OFFSETS["spades_broken"]
_VOIDS = OFFSETS["voids"]
_SCORES = OFFSETS["scores"]
_BAGS = OFFSETS["bags"]
_DEALER = OFFSETS["dealer"]
_HANDNO = OFFSETS["hand_number"]
_TPLAYED = OFFSETS["tricks_played"]
_RULES = OFFSETS["rules"]


def encode(view: SpadesView, out: np.ndarray | None = None) -> np.ndarray:
    """The observation vector of ``view`` (written into ``out`` if given)."""
    if out is None:
        out = np.zeros(OBS_SIZE, dtype=np.float32)
    else:
        out.fill(0.0)
    me = view.seat
    ones = []
    if view.phase == "bid":
        ones.append(_PHASE)
    elif view.phase == "play":
        ones.append(_PHASE + 1)
    ones.extend(_HAND + c for c in view.hand)
    for seat in range(P):
        rel = (seat - me) % P
        bid = view.bids[seat]
        ones.append(_BIDS + rel * 15 + (0 if bid is None else bid + 1))
        ones.append(_TRICKS + rel * 14 + view.tricks[seat])
        v = view.voids[seat]
        for s in range(4):
            if v >> s & 1:
                ones.append(_VOIDS + rel * 4 + s)
    for seat, c in view.plays:
        ones.append(_PLAYED + ((seat - me) % P) * NUM_CARDS + c)
    for seat, c in view.trick:
        ones.append(_TRICK + ((seat - me) % P) * NUM_CARDS + c)
    ones.append(_LEADER + (view.leader - me) % P)
    for seat, c in view.last_trick:
        ones.append(_LAST + ((seat - me) % P) * NUM_CARDS + c)
    if view.last_trick_winner is not None:
        ones.append(_LAST_WIN + (view.last_trick_winner - me) % P)
    if view.spades_broken:
        ones.append(_BROKEN)
    ones.append(_DEALER + (view.dealer - me) % P)
    rules = view.rules
    if rules.spades_must_be_broken:
        ones.append(_RULES)
    if rules.bids_may_total_tricks:
        ones.append(_RULES + 1)
    if rules.jokers:
        ones.append(_RULES + 2)
    if rules.bag_limit is not None:
        ones.append(_RULES + 3)
    out[ones] = 1.0
    for seat in range(P):
        rel = (seat - me) % P
        out[_SCORES + rel] = min(SCORE_CLIP, max(-SCORE_CLIP, view.scores[seat] / rules.target))
        if rules.bag_limit is not None:
            out[_BAGS + rel] = view.bags[seat] / rules.bag_limit
    out[_HANDNO] = min(1.0, (view.hand_number - 1) / 10.0)
    out[_TPLAYED] = (len(view.plays) // P) / 13.0
    return out


def action_mask(legal_actions: list[int], out: np.ndarray | None = None) -> np.ndarray:
    """int8 mask over the action table, 1 for each legal action."""
    if out is None:
        out = np.zeros(NUM_ACTIONS, dtype=np.int8)
    else:
        out.fill(0)
    if legal_actions:
        out[legal_actions] = 1
    return out


def observation_bounds() -> tuple[np.ndarray, np.ndarray]:
    low = np.zeros(OBS_SIZE, dtype=np.float32)
    high = np.ones(OBS_SIZE, dtype=np.float32)
    low[_SCORES:_SCORES + P] = -SCORE_CLIP
    high[_SCORES:_SCORES + P] = SCORE_CLIP
    return low, high


def describe(index: int) -> str:
    """Which feature an observation index holds, e.g. 'played_by[1][AS]'."""
    for name, size in LAYOUT:
        off = OFFSETS[name]
        if off <= index < off + size:
            return f"{name}[{index - off}]"
    raise IndexError(f"observation index {index} out of range 0..{OBS_SIZE - 1}")


__all__ = ["encode", "action_mask", "OBS_SIZE", "NUM_ACTIONS", "ENCODER_VERSION", "LAYOUT",
           "CARD_OFFSET", "SUIT_TABLE"]
