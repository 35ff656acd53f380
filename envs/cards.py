"""Cards: the one place card ids, names, decks and deals are defined.

Card ids are the same in every game:

    id = 13 * suit + rank      suit: 0 clubs, 1 diamonds, 2 hearts, 3 spades
                               rank: 0 for the two .. 12 for the ace
    52 = LJ (little joker), 53 = BJ (big joker)

So ``2C`` is 0, ``AC`` 12, ``2D`` 13, ``AS`` 51. Text names are rank then
suit: ``AS``, ``10H``, ``2C``, ``QD``; ``T`` is accepted for ten when parsing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

SUITS = "CDHS"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
SUIT_SYMBOLS = ("♣", "♦", "♥", "♠")
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
TWO, TEN, JACK, QUEEN, KING, ACE = 0, 8, 9, 10, 11, 12

LITTLE_JOKER = 52
BIG_JOKER = 53
NUM_CARDS = 54  # size of every per-card feature block (52 + two jokers)

STANDARD_DECK: tuple[int, ...] = tuple(range(52))

_NAMES: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS) + ("LJ", "BJ")
_IDS: dict[str, int] = {name: i for i, name in enumerate(_NAMES)}
_IDS.update({name.replace("10", "T"): i for i, name in enumerate(_NAMES) if "10" in name})


class CardError(ValueError):
    """A card name, id, hand or deal that is not valid."""


def card(rank: int, suit: int) -> int:
    """The id of a plain card from its rank (0 = two .. 12 = ace) and suit."""
    if not 0 <= rank <= 12 or not 0 <= suit <= 3:
        raise CardError(f"no card with rank index {rank!r} and suit index {suit!r}")
    return 13 * suit + rank


def suit_of(card_id: int) -> int:
    """Printed suit of a plain card (jokers have none and give 4)."""
    return card_id // 13


def rank_of(card_id: int) -> int:
    """Rank index of a plain card: 0 for the two .. 12 for the ace (jokers 13, 14)."""
    return card_id - 13 * (card_id // 13) if card_id < 52 else 13 + card_id - 52


def is_joker(card_id: int) -> bool:
    return card_id >= 52


def name(card_id: int) -> str:
    """Text name of a card id: 0 -> '2C', 51 -> 'AS', 53 -> 'BJ'."""
    if not isinstance(card_id, (int, np.integer)) or not 0 <= card_id < NUM_CARDS:
        raise CardError(f"no card with id {card_id!r}; ids run 0..{NUM_CARDS - 1}")
    return _NAMES[card_id]


def names(card_ids: Iterable[int]) -> list[str]:
    return [name(c) for c in card_ids]


def parse(text: object) -> int:
    """Card id from a name such as 'AS', '10h', 'TD' or 'BJ' (case-insensitive)."""
    if not isinstance(text, str):
        raise CardError(f"a card name must be a string like 'AS' or '10H', got {text!r}")
    key = text.strip().upper()
    if key not in _IDS:
        raise CardError(
            f"unknown card {text!r}: expected rank (2-10, J, Q, K, A) then suit "
            f"(C, D, H, S), e.g. 'AS' or '10H', or a joker 'BJ'/'LJ'"
        )
    return _IDS[key]


def parse_many(cards: Iterable[str | int]) -> list[int]:
    """Card ids from names (ids pass through after a range check)."""
    if isinstance(cards, str | bytes):
        raise CardError(f"expected a list of card names, got the string {cards!r}")
    if isinstance(cards, dict) or not isinstance(cards, Iterable):
        raise CardError(f"expected a list of card names like ['AS', '10H'], got {cards!r}")
    ids = []
    for c in cards:
        if isinstance(c, (int, np.integer)) and not isinstance(c, bool):
            name(c)  # range check
            ids.append(int(c))
        else:
            ids.append(parse(c))
    return ids


def make_deck(jokers: bool = False) -> tuple[int, ...]:
    """The 52-card deck; with jokers, 2C and 2D leave and LJ, BJ come in."""
    if not jokers:
        return STANDARD_DECK
    return tuple(c for c in STANDARD_DECK if c not in (0, 13)) + (LITTLE_JOKER, BIG_JOKER)


def shuffled(deck: Sequence[int], rng: np.random.Generator) -> list[int]:
    """A new list with the deck in a random order drawn from ``rng``."""
    order = rng.permutation(len(deck)).tolist()
    return [deck[i] for i in order]


def deal(
    deck: Sequence[int], num_players: int, hand_size: int, rng: np.random.Generator
) -> tuple[list[list[int]], list[int]]:
    """Shuffle and deal ``hand_size`` cards to each player; return hands and the rest."""
    if num_players * hand_size > len(deck):
        raise CardError(
            f"cannot deal {hand_size} cards to {num_players} players from {len(deck)} cards"
        )
    cards = shuffled(deck, rng)
    hands = [sorted(cards[i * hand_size : (i + 1) * hand_size]) for i in range(num_players)]
    return hands, cards[num_players * hand_size :]


def check_deal(
    hands: Sequence[Iterable[str | int]],
    deck: Sequence[int],
    num_players: int,
    hand_size: int,
) -> list[list[int]]:
    """Parse and check a given deal; raise a clear error for a misdeal.

    Each hand must hold exactly ``hand_size`` cards of ``deck`` and no card may
    appear twice. Returns the hands as sorted lists of ids.
    """
    if isinstance(hands, (str, bytes)) or not isinstance(hands, Sequence):
        raise CardError(f"a deal is a list of {num_players} hands, got {hands!r}")
    if len(hands) != num_players:
        raise CardError(f"a deal needs {num_players} hands, got {len(hands)}")
    in_deck = set(deck)
    seen: dict[int, int] = {}
    parsed = []
    for seat, hand in enumerate(hands):
        if isinstance(hand, str | bytes | dict) or not isinstance(hand, Iterable):
            raise CardError(f"hand {seat} of the deal must be a list of {hand_size} card names, "
                            f"got {hand!r}")
        ids = parse_many(hand)
        if len(ids) != hand_size:
            raise CardError(
                f"misdeal: hand {seat} has {len(ids)} cards, every hand needs {hand_size}"
            )
        for c in ids:
            if c not in in_deck:
                raise CardError(f"card {name(c)} of hand {seat} is not in this game's deck")
            if c in seen:
                raise CardError(f"card {name(c)} is dealt twice (hands {seen[c]} and {seat})")
            seen[c] = seat
        parsed.append(sorted(ids))
    return parsed
