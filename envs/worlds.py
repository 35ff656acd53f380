"""Sampling what a view hides: deals of the unseen cards that agree with what a seat saw.

A search bot (``cardrl.agents.search``) plays out many such *worlds* to judge a move;
each game's ``worlds.py`` turns a view plus a sampled deal into a full engine
state. Here lives the piece they share: dealing the unseen cards to the other
seats, each seat getting exactly as many as it holds and none of a suit it has
shown to lack, every fitting deal equally likely.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from math import comb, factorial

import numpy as np

ANY_SUIT = 0b1111


class ImpossibleDealError(ValueError):
    """No deal of the unseen cards fits the seats' counts and voids."""


def _splits(n: int, caps: Sequence[int]) -> Iterator[tuple[tuple[int, ...], int]]:
    """Every split of ``n`` distinguishable cards over bins of ``caps``, with its count."""
    if not caps:
        if n == 0:
            yield (), 1
        return
    for k in range(min(n, caps[0]) + 1):
        for split, ways in _splits(n - k, caps[1:]):
            yield (k, *split), ways * comb(n, k)


def _fill(room: tuple[int, ...], suit: int, counts: Sequence[int],
          allowed: Sequence[int]) -> Iterator[tuple[tuple[int, ...], int]]:
    """The rooms left after dealing suit ``suit`` every possible way, with each way's count."""
    seats = [i for i in range(len(room)) if allowed[i] >> suit & 1]
    for split, ways in _splits(counts[suit], [room[i] for i in seats]):
        left = list(room)
        for i, k in zip(seats, split, strict=True):
            left[i] -= k
        yield tuple(left), ways


def _completions(room: tuple[int, ...], at: int, suits: Sequence[int], counts: Sequence[int],
                 allowed: Sequence[int], memo: dict) -> int:
    """Ways to deal the constrained ``suits[at:]`` into ``room`` and the free cards after them
    (cards told apart): a small dynamic programme over suits and rooms."""
    if at == len(suits):  # the free cards fill what is left, any seat any card
        ways = factorial(sum(room))
        for r in room:
            ways //= factorial(r)
        return ways
    key = (room, at)
    if key not in memo:
        memo[key] = sum(ways * _completions(left, at + 1, suits, counts, allowed, memo)
                        for left, ways in _fill(room, suits[at], counts, allowed))
    return memo[key]


def deal_unseen(unseen: Sequence[int], room: Sequence[int], allowed: Sequence[int],
                suit_of: Sequence[int], rng: np.random.Generator,
                n: int = 1) -> list[list[list[int]]]:
    """``n`` deals of ``unseen`` where seat i gets ``room[i]`` cards, all of suits whose bit
    is set in ``allowed[i]``; each uniform over every deal that fits.

    A suit some seat lacks is dealt first: the number of its cards each seat
    gets is drawn in proportion to the deals that complete it; then the cards
    of the other suits fill the places left, shuffled. Raises
    ``ImpossibleDealError`` when nothing fits (a view that contradicts itself).
    """
    if sum(room) != len(unseen) or min(room, default=0) < 0:
        raise ImpossibleDealError(f"{len(unseen)} unseen cards for places {list(room)}")
    counts = [0, 0, 0, 0]
    for c in unseen:
        counts[suit_of[c]] += 1
    suits = [s for s in range(4) if counts[s] and any(not a >> s & 1 for a in allowed)]
    memo: dict = {}
    if _completions(tuple(room), 0, suits, counts, allowed, memo) == 0:
        raise ImpossibleDealError(f"no deal of the unseen cards fits places {list(room)} and "
                                  f"voids {[format(a, '04b') for a in allowed]}")
    deals = []
    for _ in range(n):
        order = [unseen[i] for i in rng.permutation(len(unseen))]
        by_suit: list[list[int]] = [[], [], [], [], []]  # the constrained suits, then the rest
        for c in order:
            by_suit[suit_of[c] if suit_of[c] in suits else 4].append(c)
        hands: list[list[int]] = [[] for _ in room]
        left = tuple(room)
        for at, suit in enumerate(suits):
            options = [(after, ways * _completions(after, at + 1, suits, counts, allowed, memo))
                       for after, ways in _fill(left, suit, counts, allowed)]
            weights = np.cumsum([float(w) for _, w in options])
            after = options[int(np.searchsorted(weights, rng.random() * weights[-1],
                                                side="right"))][0]
            cs = iter(by_suit[suit])
            for i, (before, now) in enumerate(zip(left, after, strict=True)):
                hands[i].extend(next(cs) for _ in range(before - now))
            left = after
        free = iter(by_suit[4])
        for i, r in enumerate(left):
            hands[i].extend(next(free) for _ in range(r))
        deals.append([sorted(h) for h in hands])
    return deals
