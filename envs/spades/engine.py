"""The Spades engine: the whole truth of a game, a pure state machine.

One ``SpadesState`` is one game: hands are dealt, bid, played and scored until
a player wins (docs/rules.md section 1). Actions are ids of ``cardrl.envs.spades.actions``.
Randomness comes only from the ``numpy.random.Generator`` given, and only for
deals, so the same seed replays the same cards whatever the players do.
"""

from __future__ import annotations

import numpy as np

from cardrl.envs import cards
from cardrl.envs.actions import as_action
from cardrl.envs.spades.actions import CARD_OFFSET, NUM_BIDS, action_name
from cardrl.envs.spades.rules import (
    HAND_SIZE,
    KILLER,
    MAX_BID,
    NUM_PLAYERS,
    NUM_TRICKS,
    SpadesRules,
)
from cardrl.envs.spades.scoring import HandResult, score_bid
from cardrl.envs.spades.view import SpadesView
from cardrl.envs.states import clone_state, generator
from cardrl.envs.tricks import follow_suit, trick_winner

SPADES = cards.SPADES
# Suit each card counts as, and its power within it: jokers are spades above the ace.
SUIT_TABLE = tuple(cards.suit_of(c) if c < 52 else SPADES for c in range(cards.NUM_CARDS))
POWER_TABLE = tuple(cards.rank_of(c) for c in range(cards.NUM_CARDS))
_ALL_BIDS = tuple(range(MAX_BID + 1))
_NON_SPADE_SUITS_MASK = 0b0111


class IllegalActionError(ValueError):
    """An action that is not in the legal set; the state is left unchanged."""


class SpadesState:
    """A game of Spades. Build with a rules object and a seed or generator."""

    _legal: tuple[int, ...] | None = None  # the legal actions, until the next move

    def __init__(
        self,
        rules: SpadesRules = KILLER,
        rng: np.random.Generator | int | None = None,
        deal: list[list[str | int]] | None = None,
    ) -> None:
        self.rules = rules
        self.rng = generator(rng)
        self.deck = cards.make_deck(rules.jokers)
        first = self.rng.integers(NUM_PLAYERS) if rules.first_dealer is None else rules.first_dealer
        self.dealer = int(first)
        self.hand_number = 0
        self.scores = [0] * NUM_PLAYERS
        self.bags = [0] * NUM_PLAYERS
        self.results: list[HandResult] = []
        self.winners: tuple[int, ...] = ()
        first_deal = None if deal is None else cards.check_deal(deal, self.deck, NUM_PLAYERS,
                                                                HAND_SIZE)
        self._start_hand(first_deal)

    @classmethod
    def from_view(cls, view: SpadesView, hands: list[list[int]],
                  rng: np.random.Generator | int | None = None) -> SpadesState:
        """The state a view shows, with ``hands`` (every seat's cards now) filling in what
        it hides: a *world* for search (``cardrl.envs.spades.worlds``). Hands dealt later
        come from ``rng``; the results of hands before the last are not kept.
        """
        state = cls.__new__(cls)
        state.rules = view.rules
        state.rng = generator(rng)
        state.deck = cards.make_deck(view.rules.jokers)
        state.dealer, state.hand_number = view.dealer, view.hand_number
        state.scores, state.bags = list(view.scores), list(view.bags)
        state.results = [view.last_hand] if view.last_hand else []
        state.winners = view.winners
        state.hands = [sorted(h) for h in hands]
        state.bids, state.tricks = list(view.bids), list(view.tricks)
        state.plays = list(view.plays)
        state.trick = [c for _, c in view.trick]
        state.leader, state.current_player, state.phase = (view.leader, view.current_player,
                                                           view.phase)
        state.spades_broken, state.voids = view.spades_broken, list(view.voids)
        state.last_trick, state.last_trick_winner = view.last_trick, view.last_trick_winner
        return state

    # ----------------------------------------------------------------- hands
    def _start_hand(self, hands: list[list[int]] | None = None) -> None:
        if hands is None:
            hands, _ = cards.deal(self.deck, NUM_PLAYERS, HAND_SIZE, self.rng)
        self.hand_number += 1
        self.hands = hands
        self.bids: list[int | None] = [None] * NUM_PLAYERS
        self.tricks = [0] * NUM_PLAYERS
        self.plays: list[tuple[int, int]] = []
        self.trick: list[int] = []
        self.leader = (self.dealer + 1) % NUM_PLAYERS
        self.current_player: int | None = self.leader
        self.phase = "bid"
        self.spades_broken = False
        self.voids = [0] * NUM_PLAYERS
        self.last_trick: tuple[tuple[int, int], ...] = ()
        self.last_trick_winner: int | None = None

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    @property
    def num_bids_made(self) -> int:
        return sum(b is not None for b in self.bids)

    # ---------------------------------------------------------- legal moves
    def legal_bids(self) -> list[int]:
        if self.rules.bids_may_total_tricks or self.num_bids_made < NUM_PLAYERS - 1:
            return list(_ALL_BIDS)
        refused = NUM_TRICKS - sum(b for b in self.bids if b is not None)
        return [b for b in _ALL_BIDS if b != refused]

    def legal_cards(self) -> list[int]:
        seat = self.current_player
        assert seat is not None, "the game is over"
        hand = self.hands[seat]
        if self.trick:
            return follow_suit(hand, SUIT_TABLE[self.trick[0]], SUIT_TABLE)
        if self.rules.spades_must_be_broken and not self.spades_broken:
            others = [c for c in hand if SUIT_TABLE[c] != SPADES]
            if others:
                return others
        return list(hand)

    def legal_actions(self) -> list[int]:
        """Legal action ids for the current player, ascending; empty when over."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._find_legal()
        return list(legal)

    def _find_legal(self) -> tuple[int, ...]:
        if self.phase == "play":  # legal_cards as action ids, inlined: the env's hot path
            seat = self.current_player
            assert seat is not None  # playing
            hand = self.hands[seat]
            if self.trick:
                led = SUIT_TABLE[self.trick[0]]
                legal = [c + CARD_OFFSET for c in hand if SUIT_TABLE[c] == led]
                if legal:
                    return tuple(legal)
            elif self.rules.spades_must_be_broken and not self.spades_broken:
                legal = [c + CARD_OFFSET for c in hand if SUIT_TABLE[c] != SPADES]
                if legal:
                    return tuple(legal)
            return tuple([c + CARD_OFFSET for c in hand])
        if self.phase == "bid":
            return tuple(self.legal_bids())
        return ()

    # ---------------------------------------------------------------- apply
    def apply(self, action: object) -> None:
        """Play ``action`` for the current player; raise and change nothing if illegal."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._find_legal()
        if type(action) is not int:
            action = as_action(action)
        if action not in legal:
            raise IllegalActionError(
                f"illegal action {action!r} ({action_name(action)}) for "
                f"player_{self.current_player} in phase {self.phase!r}; legal: {list(legal)}"
            )
        self._legal = None
        if action < CARD_OFFSET:
            self._bid(action)
        else:
            self._play(action - CARD_OFFSET)

    def _bid(self, bid: int) -> None:
        seat = self.current_player
        assert seat is not None  # bidding
        self.bids[seat] = bid
        if self.num_bids_made == NUM_PLAYERS:
            self.phase = "play"
            self.current_player = self.leader
        else:
            self.current_player = (seat + 1) % NUM_PLAYERS

    def _play(self, card: int) -> None:
        seat = self.current_player
        assert seat is not None  # playing
        hand = self.hands[seat]
        suit = SUIT_TABLE[card]
        if self.trick:
            if suit != SUIT_TABLE[self.trick[0]]:
                self.voids[seat] |= 1 << SUIT_TABLE[self.trick[0]]
        elif suit == SPADES and self.rules.spades_must_be_broken and not self.spades_broken:
            self.voids[seat] |= _NON_SPADE_SUITS_MASK  # led spades unbroken: holds only spades
        hand.remove(card)
        self.plays.append((seat, card))
        self.trick.append(card)
        if suit == SPADES:
            self.spades_broken = True
        if len(self.trick) < NUM_PLAYERS:
            self.current_player = (seat + 1) % NUM_PLAYERS
            return
        winner = (self.leader + trick_winner(self.trick, SUIT_TABLE, POWER_TABLE, SPADES)) \
            % NUM_PLAYERS
        self.tricks[winner] += 1
        self.last_trick = tuple(self.plays[-NUM_PLAYERS:])
        self.last_trick_winner = winner
        self.trick = []
        self.leader = self.current_player = winner
        if len(self.plays) == NUM_PLAYERS * NUM_TRICKS:
            self._end_hand()

    def _end_hand(self) -> None:
        points, penalties = [], []
        bids = [b for b in self.bids if b is not None]
        assert len(bids) == NUM_PLAYERS  # every seat bid before the play
        for seat in range(NUM_PLAYERS):
            p, self.bags[seat], pen = score_bid(
                self.rules, bids[seat], self.tricks[seat], self.bags[seat])
            self.scores[seat] += p
            points.append(p)
            penalties.append(pen)
        self.results.append(HandResult(
            self.hand_number, self.dealer, tuple(bids), tuple(self.tricks), tuple(points),
            tuple(penalties), tuple(self.bags), tuple(self.scores)))
        top = max(self.scores)
        leaders = tuple(s for s in range(NUM_PLAYERS) if self.scores[s] == top)
        capped = self.rules.max_hands is not None and self.hand_number >= self.rules.max_hands
        if (len(leaders) == 1 and self.rules.reached_target(top)) or capped:
            self.winners = leaders
            self.phase = "over"
            self.current_player = None
            return
        self.dealer = (self.dealer + 1) % NUM_PLAYERS
        self._start_hand()

    # ----------------------------------------------------------------- views
    def view(self, seat: int) -> SpadesView:
        """Everything ``seat`` may know, and nothing more."""
        plays = self.plays
        trick = self.trick
        return SpadesView(
            rules=self.rules,
            seat=seat,
            phase=self.phase,
            current_player=self.current_player,
            dealer=self.dealer,
            hand_number=self.hand_number,
            hand=tuple(self.hands[seat]),
            bids=tuple(self.bids),
            tricks=tuple(self.tricks),
            plays=tuple(plays),
            trick=tuple(plays[len(plays) - len(trick):]) if trick else (),
            leader=self.leader,
            spades_broken=self.spades_broken,
            voids=tuple(self.voids),
            scores=tuple(self.scores),
            bags=tuple(self.bags),
            last_trick=self.last_trick,
            last_trick_winner=self.last_trick_winner,
            last_hand=self.results[-1] if self.results else None,
            winners=self.winners,
        )

    def clone(self) -> SpadesState:
        return clone_state(self, ("scores", "bags", "results", "bids", "tricks", "plays", "trick",
                                  "voids"), ("hands",))

    def __repr__(self) -> str:
        return (f"SpadesState({self.rules.preset}, hand {self.hand_number}, {self.phase}, "
                f"player_{self.current_player}, scores {self.scores})")



__all__ = ["SpadesState", "IllegalActionError", "SUIT_TABLE", "POWER_TABLE", "NUM_BIDS"]
