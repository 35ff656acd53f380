"""Blind Auction's information state: ``BlindAuctionView`` -> float32 vector.

The one place numeric features are made. Cards are by rank (13 slots per
block, whatever ``cards_per_suit``); seats are relative, block 0 is the
observer, then the seats after it; blocks are laid out for 3 seats, so 2- and
3-player games share one layout (a 2-player game leaves seat block 2 empty).
Nothing here depends on the order of the unrevealed prizes or on another
seat's bid before its round resolves. Bump ``VERSION`` (and the env name) when
the layout changes.

The vector holds what the view records in the form play depends on: the cards
each seat has still to show, the prizes left and carried, who won what, the
last round and the scores. The order in which earlier bids met earlier prizes
is left out: with the cards left known, it changes no outcome still to come.
The rule bots reckon with nothing beyond this (the mean of the prizes left),
so the ``features`` kind of this game is the same vector.
"""

from __future__ import annotations

import numpy as np

from cardrl.envs import cards, encoding
from cardrl.envs.blind_auction.rules import MAX_PLAYERS, MIN_PLAYERS, TIE_RULES
from cardrl.envs.blind_auction.view import BlindAuctionView

VERSION = 1
P = MAX_PLAYERS  # seat blocks
R = len(cards.RANKS)  # rank slots (a card's rank is its id % R)
DECK_SCALE = float(R)  # cards_per_suit / 13

# (name, size) of each block, in order
LAYOUT = (
    ("hand", R),  # own cards that may still be bid
    ("chosen", R),  # own bid this round, until it resolves
    ("remaining", P * R),  # per relative seat: cards not yet shown
    ("acted", P),  # per relative seat: has bid this round
    ("prizes_left", R),  # prizes not yet turned up
    ("carried", R),  # prizes carried into this round
    ("won", P * R),  # per relative seat: prizes it scored (both tied seats on a split)
    ("last_bids", P * R),  # per relative seat: its bid in the last resolved round
    ("last_prize", R),
    ("scores", P),  # score / prize total
    ("round", 1),  # rounds resolved / cards_per_suit
    ("players", MAX_PLAYERS - MIN_PLAYERS + 1),  # 2 players, 3 players
    ("tie_rule", len(TIE_RULES)),  # discard, carry, split
    ("deck", 1),  # cards_per_suit / DECK_SCALE
)
OFFSETS, OBS_SIZE = encoding.offsets(LAYOUT)

_HAND, _CHOSEN, _REMAINING = OFFSETS["hand"], OFFSETS["chosen"], OFFSETS["remaining"]
_ACTED, _LEFT, _CARRIED = OFFSETS["acted"], OFFSETS["prizes_left"], OFFSETS["carried"]
_WON, _LAST_BIDS, _LAST_PRIZE = OFFSETS["won"], OFFSETS["last_bids"], OFFSETS["last_prize"]
_SCORES, _ROUND, _PLAYERS = OFFSETS["scores"], OFFSETS["round"], OFFSETS["players"]
_TIE, _DECK = OFFSETS["tie_rule"], OFFSETS["deck"]


def _rank(card_id: int) -> int:
    return card_id % R


def encode(view: BlindAuctionView, out: np.ndarray | None = None) -> np.ndarray:
    """The observation vector of ``view`` (written into ``out`` if given).

    The definition of every feature: the env's observer (``cardrl.envs.blind_auction.observer``,
    compiled) and the compiled core are tested to equal it at every step.
    """
    if out is None:
        out = np.zeros(OBS_SIZE, dtype=np.float32)
    else:
        out.fill(0.0)
    rules = view.rules
    n = rules.num_players
    me = view.seat
    ones = [_HAND + _rank(c) for c in view.hand]
    if view.chosen is not None:
        ones.append(_CHOSEN + _rank(view.chosen))
    for seat in range(n):
        rel = (seat - me) % n
        ones.extend(_REMAINING + rel * R + _rank(c) for c in view.remaining[seat])
        if view.acted[seat]:
            ones.append(_ACTED + rel)
    ones.extend(_LEFT + _rank(c) for c in view.prizes_left)
    ones.extend(_CARRIED + _rank(c) for c in view.carried)
    for rnd in view.rounds:
        for seat in rnd.scorers:
            rel = (seat - me) % n
            ones.extend(_WON + rel * R + _rank(c) for c in (rnd.taken or (rnd.prize,)))
    if view.rounds:
        last = view.rounds[-1]
        ones.extend(_LAST_BIDS + ((seat - me) % n) * R + _rank(c)
                    for seat, c in enumerate(last.bids))
        ones.append(_LAST_PRIZE + _rank(last.prize))
    ones.append(_PLAYERS + n - MIN_PLAYERS)
    ones.append(_TIE + TIE_RULES.index(rules.tie_rule))
    out[ones] = 1.0
    total = rules.prize_total
    for seat in range(n):
        out[_SCORES + (seat - me) % n] = view.scores[seat] / total
    out[_ROUND] = len(view.rounds) / rules.cards_per_suit
    out[_DECK] = rules.cards_per_suit / DECK_SCALE
    return out


def _label(name: str, size: int, i: int) -> str:
    if size == R:
        return f"{name}[{cards.RANKS[i]}]"
    if size == P * R:
        return f"{name}[{i // R}][{cards.RANKS[i % R]}]"
    return f"{name}[{i}]"


def describe(index: int) -> str:
    """Which feature an observation index holds, e.g. 'remaining[1][Q]'."""
    return encoding.describe(LAYOUT, OFFSETS, index, _label)


def card_table(n: int = P) -> encoding.CardTable:
    """Each rank: in the own hand, bid this round, still held by each seat, a prize left or
    carried, won by each seat, bid by each seat last round, the last prize; a bid is a rank."""
    o = OFFSETS
    planes = [o["hand"], o["chosen"], *(o["remaining"] + s * R for s in range(P)),
              o["prizes_left"], o["carried"], *(o["won"] + s * R for s in range(P)),
              *(o["last_bids"] + s * R for s in range(P)), o["last_prize"]]
    return encoding.CardTable(encoding.card_planes(planes, R), np.arange(R), np.zeros(R))


# the env's observer is ``cardrl.envs.blind_auction.observer`` (game.py adds it: it is compiled
# code over the core, which reads this module's layout)
INFOSTATE = encoding.Encoder(
    kind="infostate", version=VERSION, size=lambda n: OBS_SIZE,
    encode=encode, bounds=lambda n: encoding.unit_bounds(OBS_SIZE),
    describe=lambda n, i: describe(i), cards=card_table)
