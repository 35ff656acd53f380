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
    try:
        ones, block = _features(view)
        out[ones] = 1.0
        out[_SCORES:_SCORES + _BLOCK_SIZE] = block
    except Exception:  # noqa: BLE001 - any surprise goes to the general path
        # a value outside the precomputed tables, an odd ``out``...: the general
        # path gives the same vector, or raises the same error, for any input
        out.fill(0.0)
        return _encode_general(view, out)
    return out


# Precomputed tables for ``_features``, per observing seat ``me`` (the hot path
# of every env step).
_ORDER = tuple(tuple((me + rel) % P for rel in range(P)) for me in range(P))
_VOID_INDICES = tuple(  # [rel][mask]: the indices of the suits set in a void mask
    tuple(tuple(_VOIDS + rel * 4 + s for s in range(4) if v >> s & 1) for v in range(16))
    for rel in range(P))
_SEAT_ROWS = tuple(  # [me]: per relative seat (seat, bids block, tricks block, void indices)
    tuple((seat, _BIDS + rel * 15, _TRICKS + rel * 14, _VOID_INDICES[rel])
          for rel, seat in enumerate(_ORDER[me]))
    for me in range(P))
_PLAY_ROWS = tuple(  # [me]: per block, the first index of each seat's sub-block
    tuple(tuple(base + ((seat - me) % P) * NUM_CARDS for seat in range(P))
          for base in (_PLAYED, _TRICK, _LAST))
    for me in range(P))
_REL = tuple(tuple((seat - me) % P for seat in range(P)) for me in range(P))
_DEALER_ONE_HOT = tuple(tuple(1.0 if r == rel else 0.0 for r in range(P)) for rel in range(P))
_NO_BAGS = [0.0] * P


def _clip(x: float) -> float:
    """min(SCORE_CLIP, max(-SCORE_CLIP, x)) (for x outside the range, or NaN)."""
    return min(SCORE_CLIP, max(-SCORE_CLIP, x))


# scores, bags, dealer, hand_number and tricks_played are adjacent: one block
assert _BAGS == _SCORES + P and _DEALER == _BAGS + P and _HANDNO == _DEALER + P
assert _TPLAYED == _HANDNO + 1
_BLOCK_SIZE = 3 * P + 2


def _features(view: SpadesView) -> tuple[list[int], list[float]]:
    """Indices of the ones, and the values of the scores..tricks_played block.

    Raises (e.g. IndexError) for a seat or void mask outside the tables, and
    then ``encode`` falls back to ``_encode_general``; otherwise it gives
    exactly the vector of ``_encode_general``: the same indices (in another
    order) and the same float expressions.
    """
    me = view.seat % P
    hand = _HAND
    ones = [hand + c for c in view.hand]
    phase = view.phase
    if phase == "play":
        ones.append(_PHASE + 1)
    elif phase == "bid":
        ones.append(_PHASE)
    bids, tricks, voids = view.bids, view.tricks, view.voids
    for seat, bid_base, trick_base, void_indices in _SEAT_ROWS[me]:
        bid = bids[seat]
        ones.append(bid_base if bid is None else bid_base + (bid + 1))
        ones.append(trick_base + tricks[seat])
        ones += void_indices[voids[seat] & 15]
    played_row, trick_row, last_row = _PLAY_ROWS[me]
    plays = view.plays
    ones += [played_row[s] + c for s, c in plays]
    ones += [trick_row[s] + c for s, c in view.trick]
    ones += [last_row[s] + c for s, c in view.last_trick]
    rel = _REL[me]
    ones.append(_LEADER + rel[view.leader])
    if view.last_trick_winner is not None:
        ones.append(_LAST_WIN + rel[view.last_trick_winner])
    if view.spades_broken:
        ones.append(_BROKEN)
    rules = view.rules
    if rules.spades_must_be_broken:
        ones.append(_RULES)
    if rules.bids_may_total_tricks:
        ones.append(_RULES + 1)
    if rules.jokers:
        ones.append(_RULES + 2)
    # the block: scores / target clipped to +-SCORE_CLIP (as min(c, max(-c, x)) would),
    # bags / bag limit, dealer one-hot, hand number, tricks played
    order = _ORDER[me]
    target = rules.target
    scores = view.scores
    block = [x if -SCORE_CLIP <= x <= SCORE_CLIP else _clip(x)
             for x in [scores[seat] / target for seat in order]]
    bag_limit = rules.bag_limit
    if bag_limit is not None:
        ones.append(_RULES + 3)
        bags = view.bags
        block += [bags[seat] / bag_limit for seat in order]
    else:
        block += _NO_BAGS
    block += _DEALER_ONE_HOT[rel[view.dealer]]
    block.append(min(1.0, (view.hand_number - 1) / 10.0))
    block.append((len(plays) // P) / 13.0)
    return ones, block


def _encode_general(view: SpadesView, out: np.ndarray) -> np.ndarray:
    """The reference encoder, for any view; ``out`` is already zero."""
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
