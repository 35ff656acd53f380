"""Gin Rummy's ``features`` observation: the information a seat holds plus the expert's numbers.

The vectors the shipped Gin Rummy bots read (``observation="features"``): the
information blocks of ``cardrl.envs.gin_rummy.infostate`` (without ``picked``, with the
own hand's least deadwood), then, for the seat to act only, what the meld
solver and the expert's tracker work out about its decision, all from its view:
per discard the look-ahead the expert weighs it by and how much the next player wants
the card, and the ``knock`` block, what the choice between knocking now and playing on
turns on (``cardrl.train.plugins.gin_rummy`` learns that choice from it).
The layout depends on the number of players (``layout(n)``). Bump ``VERSION``
when the layout changes.

Each layout version's changes are in docs/envs/gin_rummy.md (version history).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from cardrl.envs import encoding
from cardrl.envs.gin_rummy import infostate
from cardrl.envs.gin_rummy.actions import (
    DISCARD_OFFSET,
    DRAW_STOCK,
    KNOCK_OFFSET,
    TAKE_DISCARD,
)
from cardrl.envs.gin_rummy.infostate import CARDS, DEADWOOD_SCALE, Layout
from cardrl.envs.gin_rummy.melds import (
    CARD_BIT,
    CARD_VALUE,
    best_split,
    hand_value,
    knock_discard,
    mask_of,
    meld_partners,
    meldable,
)
from cardrl.envs.gin_rummy.tracking import Knowledge
from cardrl.envs.gin_rummy.view import GinRummyView

VERSION = 6
DANGER_SCALE = 3.0  # ``Knowledge.danger`` of a card that completes a meld

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
    "next_high_discards",  # share of its discards worth HIGH_CARD or more
)
POINTS_SCALE = 10  # a knock's deadwood and a discard's points / 10
COUNT_SCALE = 10  # counts of cards laid off and of discards / 10
LAYOFF_POINTS_SCALE = 50  # the points of the cards laid off / 50
PICKS_SCALE = 5  # counts of cards taken from the pile / 5
HIGH_CARD = 8  # a discard worth this many points or more is high


def _blocks(n: int) -> tuple[tuple[str, int], ...]:
    """(name, size) of each block, in order, for ``n`` players: the information blocks
    (``infostate.block_widths``) and the features' own."""
    return (
        *infostate.blocks(n, "phase", "hand", "taken", "pile_top", "pile", "known",
                          "discarded", "stock_size", "to_act", "dealer", "scores", "deadwood",
                          "hand_number", "rules", "discard_deadwood", "take_deadwood",
                          "discard_gin", "discard_outlook", "discard_ready",
                          "discard_gin_ready"),
        # the seat to act, discarding, per card: how much the next player wants it
        # / DANGER_SCALE, clipped to 1
        ("discard_danger", CARDS),
        *infostate.blocks(n, "stock_outlook"),
        ("knock", len(KNOCK_FEATURES)),  # the seat to act, discarding, a knock legal
    )


@cache
def layout(n: int) -> Layout:
    return Layout(_blocks(n), n)


def obs_size(n: int) -> int:
    return layout(n).size


def encode(view: GinRummyView, out: np.ndarray | None = None) -> np.ndarray:
    """The ``features`` vector of ``view`` (written into ``out`` if given).

    The definition of every feature: the env's incremental observer is tested
    to equal it at every step.
    """
    lay = layout(view.num_players)
    if out is None:
        out = np.zeros(lay.size, dtype=np.float32)
    else:
        out.fill(0.0)
    infostate.write(view, out, lay.offsets)
    if view.current_player == view.seat:
        decision_features(out, lay.offsets, view)
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
    after = infostate.write_decision(row, o, view)  # the exact blocks, as the infostate's
    if view.phase == "discard":
        know = Knowledge(view)
        limit = infostate.ready_limit(view.rules)  # as the expert: knock only when low
        for card in view.hand:
            mean, ready, gin_ready = know.outlook(hand ^ CARD_BIT[card], limit)
            row[o["discard_outlook"] + card] = min(1.0, mean / DEADWOOD_SCALE)
            row[o["discard_ready"] + card] = ready
            row[o["discard_gin_ready"] + card] = gin_ready
            row[o["discard_danger"] + card] = min(1.0, know.danger(card) / DANGER_SCALE)
        assert after is not None  # discarding: the deadwood after each discard
        knock_features(row, o, view, know, after)
    elif view.phase == "draw" and view.pile:
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
    values = (1.0, after[card] / POINTS_SCALE, gin_ready, ready, lay.bit_count() / COUNT_SCALE,
              hand_value(lay) / LAYOFF_POINTS_SCALE,
              len(view.discarded[view.seat]) / COUNT_SCALE, len(thrown) / COUNT_SCALE,
              len(view.picked[nxt]) / PICKS_SCALE, len(view.known[nxt]) / PICKS_SCALE,
              meldable(known).bit_count() / PICKS_SCALE,
              sum(thrown) / len(thrown) / POINTS_SCALE if thrown else 0.0,
              thrown[-1] / POINTS_SCALE if thrown else 0.0,
              sum(v >= HIGH_CARD for v in thrown) / len(thrown) if thrown else 0.0)
    at = o["knock"]
    row[at:at + len(values)] = np.minimum(1.0, values)


def action_features(n: int) -> tuple[tuple[int, int, int], ...]:
    """The per-action blocks (``cardrl.envs.games.Game.action_features``): every per-card
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


@cache
def _tables(n: int) -> infostate.Tables:
    return infostate.Tables(layout(n))


def _observer(n: int) -> infostate.GinRummyObserver:
    return infostate.GinRummyObserver(_tables(n), encode, decision_features,
                                      layout(n)["discard_deadwood"])


FEATURES = encoding.Encoder(
    kind="features", version=VERSION, size=obs_size, encode=encode,
    bounds=lambda n: layout(n).bounds(), describe=lambda n, i: layout(n).describe(i),
    observer=_observer, action_features=action_features)
