"""Blind Auction rules (docs/rules.md section 4): one frozen dataclass, two named presets.

Seat 0 bids with hearts, seat 1 with clubs, seat 2 (3 players) with spades; the
diamonds are the prize deck, shuffled face down. ``cards_per_suit`` keeps the
``n`` lowest ranks of every suit (2 .. n+1), so that small games can be solved
exactly; the default 13 is the game of the seed. A card's value is its face
value (J 11, Q 12, K 13, A 14).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from cardrl.envs import cards
from cardrl.envs.rules_base import GameRules, editable, lookup

MIN_PLAYERS, MAX_PLAYERS = 2, 3
MIN_CARDS, MAX_CARDS = 3, 13
TIE_RULES = ("discard", "carry", "split")
BID_SUITS = (cards.HEARTS, cards.CLUBS, cards.SPADES)  # seat -> the suit it bids with
PRIZE_SUIT = cards.DIAMONDS


class RulesError(ValueError):
    """A rules field with a value the engine cannot play."""


def value(rank: int) -> int:
    """Points of a card of rank index ``rank`` (0 = two .. 12 = ace): 2 .. 14."""
    return rank + 2


@dataclass(frozen=True)
class BlindAuctionRules(GameRules):
    """All options of Blind Auction. Presets: ``TWO_PLAYERS`` ("2p") and ``THREE_PLAYERS`` ("3p").

    ``tie_rule`` decides a tie for the highest bid: ``discard`` (the prize goes
    to nobody), ``carry`` (it goes with the next round's prize to that round's
    winner; carried prizes left after the last round go to nobody) or ``split``
    (each tied player scores half of its value; docs/rules.md says half, also when
    three tie). ``max_hands`` is accepted for the tournament's safety cap: a
    game is one hand, so it never binds.
    """

    title = "Blind Auction"  # not fields: no annotations (see envs.rules_base)
    error = RulesError

    preset: str = "custom"
    num_players: int = editable(2, low=MIN_PLAYERS, high=MAX_PLAYERS)
    tie_rule: str = editable("discard", choices=TIE_RULES)
    cards_per_suit: int = editable(13, low=MIN_CARDS, high=MAX_CARDS)
    max_hands: int | None = None  # the tournaments' cap (see above), not a table's choice

    def __post_init__(self) -> None:
        if (not isinstance(self.num_players, int) or isinstance(self.num_players, bool)
                or not MIN_PLAYERS <= self.num_players <= MAX_PLAYERS):
            raise RulesError(f"num_players must be 2 or 3, got {self.num_players!r}")
        if self.tie_rule not in TIE_RULES:
            raise RulesError(f"tie_rule must be one of {', '.join(TIE_RULES)}, "
                             f"got {self.tie_rule!r}")
        if (not isinstance(self.cards_per_suit, int) or isinstance(self.cards_per_suit, bool)
                or not MIN_CARDS <= self.cards_per_suit <= MAX_CARDS):
            raise RulesError(f"cards_per_suit must be an int {MIN_CARDS}..{MAX_CARDS}, "
                             f"got {self.cards_per_suit!r}")
        if self.max_hands is not None and (not isinstance(self.max_hands, int)
                                           or self.max_hands < 1):
            raise RulesError(f"max_hands must be None or at least 1, got {self.max_hands!r}")

    # ------------------------------------------------------------ derived
    @property
    def ranks(self) -> range:
        """Rank indices in play: 0 .. cards_per_suit - 1."""
        return range(self.cards_per_suit)

    def hand_of(self, seat: int) -> list[int]:
        """Card ids seat ``seat`` starts with (its whole bidding suit), ascending."""
        return [cards.card(r, BID_SUITS[seat]) for r in self.ranks]

    @property
    def prize_cards(self) -> list[int]:
        """The prize ids in rank order (a new list)."""
        return list(self._prize_cards)

    @functools.cached_property
    def _prize_cards(self) -> tuple[int, ...]:
        return tuple(cards.card(r, PRIZE_SUIT) for r in self.ranks)

    @functools.cached_property
    def prize_total(self) -> int:
        """Sum of all prize values: 104 for 13 cards, 9 for 3."""
        return sum(value(r) for r in self.ranks)


TWO_PLAYERS = BlindAuctionRules(preset="2p")
THREE_PLAYERS = BlindAuctionRules(preset="3p", num_players=3)
PRESETS = {"2p": TWO_PLAYERS, "3p": THREE_PLAYERS}


def get_rules(preset: str | BlindAuctionRules = "2p", **changes) -> BlindAuctionRules:
    """Rules from a preset name (or rules object), with optional field changes."""
    return lookup(BlindAuctionRules, PRESETS, preset, changes)
