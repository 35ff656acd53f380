"""Shared helpers for the Gin Rummy tests: deals, random play, and oracles written
from docs/rules.md section 2 apart from the engine (brute-force deadwood, legal set)."""

from __future__ import annotations

from itertools import combinations

import numpy as np

from cardrl.envs import cards
from cardrl.envs.gin_rummy.actions import DISCARD_OFFSET, DRAW_STOCK, KNOCK_OFFSET, TAKE_DISCARD

C = cards.parse
ACE_LOW = {r: i for i, r in enumerate(["A", "2", "3", "4", "5", "6", "7", "8", "9", "10",
                                       "J", "Q", "K"])}


_RANK = [ACE_LOW[cards.name(c)[:-1]] for c in range(52)]  # from the names, not melds.py
_SUIT = [cards.name(c)[-1] for c in range(52)]


def rank(card: int) -> int:
    """Rank with the ace low, from the card's name: A = 0 .. K = 12."""
    return _RANK[card]


def points(card: int) -> int:
    """Rule 9: A = 1, J Q K = 10, others face value."""
    return min(_RANK[card] + 1, 10)


def all_melds(hand) -> list[frozenset[int]]:
    """Every meld within ``hand``: sets of 3 or 4 of a rank, runs of 3+ in a suit, ace low."""
    hand = list(hand)
    melds = []
    for r in range(13):
        same = [c for c in hand if rank(c) == r]
        for size in (3, 4):
            melds += [frozenset(m) for m in combinations(same, size)]
    for suit in "CDHS":
        by_rank = {rank(c): c for c in hand if _SUIT[c] == suit}
        for lo in by_rank:
            run = [by_rank[lo]]
            while lo + len(run) in by_rank:
                run.append(by_rank[lo + len(run)])
                if len(run) >= 3:
                    melds.append(frozenset(run))
    return melds


def brute_force_deadwood(hand) -> int:
    """Least deadwood by trying every collection of pairwise disjoint melds."""
    melds = all_melds(hand)
    values = [sum(points(c) for c in m) for m in melds]
    total = sum(points(c) for c in hand)
    best = 0

    def extend(start: int, used: frozenset[int], value: int) -> None:
        nonlocal best
        best = max(best, value)
        for j in range(start, len(melds)):
            if not used & melds[j]:
                extend(j + 1, used | melds[j], value + values[j])

    extend(0, frozenset(), 0)
    return total - best


def oracle_legal(state) -> list[int]:
    """The legal set from the acting seat's view and docs/rules.md section 2 alone."""
    if state.current_player is None:
        return []
    view = state.view(state.current_player)
    if view.phase == "draw":
        return [DRAW_STOCK, TAKE_DISCARD]
    rules = view.rules
    may_go = [c for c in view.hand if not (rules.no_discard_of_taken and c == view.taken)]
    legal = [DISCARD_OFFSET + c for c in may_go]
    for c in may_go:
        left = [x for x in view.hand if x != c]
        if rules.knock_limit is None or brute_force_deadwood(left) <= rules.knock_limit:
            legal.append(KNOCK_OFFSET + c)
    return sorted(legal)


def hands_of(*hands: str) -> list[list[str]]:
    return [h.split() for h in hands]


def full_deal(hands: list[list[str]], upcard: str | None = None,
              stock_top: str = "") -> list[list[str]]:
    """A deal fixing every card: the hands, then the up card and the stock from the
    top (``stock_top`` first, then the remaining cards in card-id order)."""
    used = {C(c) for h in hands for c in h}
    first = ([upcard] if upcard else []) + stock_top.split()
    used |= {C(c) for c in first}
    rest = first + [cards.name(c) for c in range(52) if c not in used]
    return [list(h) for h in hands] + [rest]


def play_random(state, rng: np.random.Generator, until_hand_ends: bool = True) -> list[int]:
    """Random legal actions until the hand (or game) ends; return them."""
    hand = state.hand_number
    actions = []
    while not state.is_over and (state.hand_number == hand or not until_hand_ends):
        legal = state.legal_actions()
        a = legal[int(rng.integers(len(legal)))]
        state.apply(a)
        actions.append(a)
    return actions


def look_ahead_by_search(view, limit: int) -> dict[str, np.ndarray]:
    """The information state's look-ahead blocks for the seat to act, by searching every
    draw with the solver: per held card (discarding) the mean least deadwood / 100 after
    one more draw of each unseen card to the hand kept and its best discard, the shares at
    most ``limit`` and at 0; drawing, the mean over the hand as held."""
    from cardrl.envs.gin_rummy.melds import deadwood, least_deadwood_after_discard, mask_of

    others = {c for s, k in enumerate(view.known) if s != view.seat for c in k}
    draws = [c for c in range(52) if c not in view.hand and c not in view.pile
             and c not in others]
    out = {name: np.zeros(52) for name in ("discard_outlook", "discard_ready",
                                           "discard_gin_ready")}
    out["stock_outlook"] = np.zeros(1)

    def after(kept: set[int]) -> list[int]:
        found = [least_deadwood_after_discard(mask_of(kept | {c})) for c in draws]
        return found or [deadwood(mask_of(kept))]

    if view.phase == "discard":
        for card in view.hand:
            got = after(set(view.hand) - {card})
            out["discard_outlook"][card] = min(1.0, np.mean(got) / 100)
            out["discard_ready"][card] = np.mean([d <= limit for d in got])
            out["discard_gin_ready"][card] = np.mean([d == 0 for d in got])
    elif view.phase == "draw":
        out["stock_outlook"][0] = min(1.0, np.mean(after(set(view.hand))) / 100)
    return out
