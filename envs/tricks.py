"""Trick-taking mechanics shared by every trick game: following suit and who wins.

A game describes its cards by two tables indexed by card id: the suit a card
counts as (jokers in Spades count as spades) and its power within that suit.
"""

from __future__ import annotations

from collections.abc import Sequence


def follow_suit(hand: Sequence[int], led_suit: int, suit_table: Sequence[int]) -> list[int]:
    """Cards of ``hand`` that may be played to a trick led in ``led_suit``.

    A player must follow suit if it can (renege is refused); otherwise any card.
    """
    same = [c for c in hand if suit_table[c] == led_suit]
    return same if same else list(hand)


def trick_winner(
    cards: Sequence[int],
    suit_table: Sequence[int],
    power_table: Sequence[int],
    trump: int | None,
) -> int:
    """Index into ``cards`` (in play order, leader first) of the card that wins.

    The highest trump wins if any was played, else the highest card of the led suit.
    """
    led = suit_table[cards[0]]
    best = 0
    best_suit = led
    for i in range(1, len(cards)):
        c = cards[i]
        s = suit_table[c]
        if s == best_suit:
            if power_table[c] > power_table[cards[best]]:
                best = i
        elif s == trump:
            best, best_suit = i, s
    return best
