"""The Gin Rummy engine: the whole truth of a game, a pure state machine.

One ``GinRummyState`` is one game of 2 to 4 players: hands are dealt, played
turn by turn (draw from the stock or take the discard, then discard, perhaps
knocking) and scored, until a total reaches the target (docs/rules.md section 2).
Actions are ids of ``cardrl.envs.gin_rummy.actions``. Randomness comes only from the
``numpy.random.Generator`` given, and only for deals, so the same seed deals
the same cards whatever the players do.
"""

from __future__ import annotations

from bisect import insort

import numpy as np

from cardrl.envs import cards
from cardrl.envs.gin_rummy.actions import (
    DISCARD_OFFSET,
    DRAW_STOCK,
    KNOCK_OFFSET,
    TAKE_DISCARD,
    action_name,
)
from cardrl.envs.gin_rummy.melds import CARD_BIT, deadwood_after_discards, mask_of
from cardrl.envs.gin_rummy.rules import HAND_SIZE, SEED, GinRummyRules
from cardrl.envs.gin_rummy.scoring import HandResult, settle_knock
from cardrl.envs.gin_rummy.view import GinRummyView
from cardrl.envs.states import clone_state, generator

DECK = cards.STANDARD_DECK
_DRAW_ACTIONS = (DRAW_STOCK, TAKE_DISCARD)


class IllegalActionError(ValueError):
    """An action that is not in the legal set; the state is left unchanged."""


def check_deal(deal, num_players: int) -> tuple[list[list[int]], list[int] | None]:
    """Parse a given deal: ``num_players`` hands of 10, optionally followed by the
    other cards in order (the up card first, then the stock from the top down).

    Returns the hands (sorted ids) and the rest (or None: shuffle it).
    """
    if isinstance(deal, (str, bytes)) or not hasattr(deal, "__len__"):
        raise cards.CardError(f"a deal is a list of {num_players} hands (and optionally the "
                              f"stock), got {deal!r}")
    if len(deal) not in (num_players, num_players + 1):
        raise cards.CardError(f"a deal needs {num_players} hands, optionally followed by the "
                              f"other cards in order; got {len(deal)} lists")
    hands = cards.check_deal(deal[:num_players], DECK, num_players, HAND_SIZE)
    if len(deal) == num_players:
        return hands, None
    rest = cards.parse_many(deal[num_players])
    dealt = {c for h in hands for c in h}
    missing = set(DECK) - dealt - set(rest)
    extra = [c for c in rest if c in dealt or c not in DECK]
    if extra or missing or len(rest) != len(set(rest)):
        raise cards.CardError(
            f"the cards after the hands must be the other {52 - len(dealt)} cards once each; "
            f"extra or repeated: {' '.join(cards.names(extra)) or 'none'}, missing: "
            f"{' '.join(cards.names(sorted(missing))) or 'none'}, got {len(rest)}")
    return hands, rest


class GinRummyState:
    """A game of Gin Rummy. Build with a rules object and a seed or generator."""

    def __init__(
        self,
        rules: GinRummyRules = SEED,
        rng: np.random.Generator | int | None = None,
        deal: list | None = None,
    ) -> None:
        self.rules = rules
        self.num_players = n = rules.num_players
        self.rng = generator(rng)
        first = self.rng.integers(n) if rules.first_dealer is None else rules.first_dealer
        self.dealer = int(first)
        self.hand_number = 0
        self.scores = [0] * n
        self.results: list[HandResult] = []
        self.winners: tuple[int, ...] = ()
        self._start_hand(None if deal is None else check_deal(deal, n))

    @classmethod
    def from_view(cls, view: GinRummyView, hands: list[list[int]], stock: list[int],
                  rng: np.random.Generator | int | None = None) -> GinRummyState:
        """The state a view shows, with ``hands`` (every seat's cards now) and ``stock``
        (top last) filling in what it hides: a *world* for search
        (``cardrl.envs.gin_rummy.worlds``). Later hands are dealt from ``rng``; the results
        of hands before the last are not kept.
        """
        state = cls.__new__(cls)
        state.rules, state.num_players = view.rules, view.num_players
        state.rng = generator(rng)
        state.dealer, state.hand_number = view.dealer, view.hand_number
        state.scores = list(view.scores)
        state.results = [view.last_hand] if view.last_hand else []
        state.winners = view.winners
        state.hands = [sorted(h) for h in hands]
        state.masks = [mask_of(h) for h in hands]
        state.pile, state.stock = list(view.pile), list(stock)
        state.picked = [list(x) for x in view.picked]
        state.discarded = [list(x) for x in view.discarded]
        state.known = [list(x) for x in view.known]
        state.current_player, state.phase = view.current_player, view.phase
        state.taken = state.drawn = view.taken
        # every turn so far was a draw and a discard; a player about to discard has drawn
        state.moves = 2 * sum(map(len, view.discarded)) + (view.phase == "discard")
        state._legal = None
        return state

    # ----------------------------------------------------------------- hands
    def _start_hand(self, deal: tuple[list[list[int]], list[int] | None] | None = None) -> None:
        n = self.num_players
        if deal is None:
            hands, rest = cards.deal(DECK, n, HAND_SIZE, self.rng)
        else:
            hands, given = deal
            if given is None:
                dealt = {c for h in hands for c in h}
                rest = cards.shuffled([c for c in DECK if c not in dealt], self.rng)
            else:
                rest = given
        self.hand_number += 1
        self.hands = [list(h) for h in hands]  # sorted
        self.masks = [mask_of(h) for h in hands]
        self.pile = [rest[0]]  # the up card (rule 3)
        self.stock = list(reversed(rest[1:]))  # top last
        self.picked: list[list[int]] = [[] for _ in range(n)]
        self.discarded: list[list[int]] = [[] for _ in range(n)]
        self.known: list[list[int]] = [[] for _ in range(n)]
        self.current_player: int | None = (self.dealer + 1) % n  # left of dealer (rule 3)
        self.phase = "draw"
        self.taken: int | None = None
        self.drawn: int | None = None  # the card the player to act drew or took (private)
        self.moves = 0  # actions applied this hand
        self._legal: tuple[int, ...] | None = None

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    # ---------------------------------------------------------- legal moves
    def legal_actions(self) -> list[int]:
        """Legal action ids for the current player, ascending; empty when over."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._find_legal()
        return list(legal)

    def _find_legal(self) -> tuple[int, ...]:
        if self.phase == "draw":
            return _DRAW_ACTIONS  # the stock is never empty here: see _discard
        if self.phase == "over":
            return ()
        seat = self.current_player
        assert seat is not None  # discarding
        hand = self.hands[seat]
        if self.taken is not None and self.rules.no_discard_of_taken:
            hand = [c for c in hand if c != self.taken]
        limit = self.rules.knock_limit
        legal = [DISCARD_OFFSET + c for c in hand]
        if limit is None:
            legal += [KNOCK_OFFSET + c for c in hand]
        else:
            may = deadwood_after_discards(self.masks[seat], limit)
            legal += [KNOCK_OFFSET + c for c in hand if c in may]
        return tuple(legal)

    # ---------------------------------------------------------------- apply
    def apply(self, action: int) -> None:
        """Play ``action`` for the current player; raise and change nothing if illegal."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._find_legal()
        if action not in legal or isinstance(action, bool):
            raise IllegalActionError(
                f"illegal action {action!r} ({action_name(action)}) for "
                f"player_{self.current_player} in phase {self.phase!r}; legal: {list(legal)}")
        action = int(action)
        seat = self.current_player
        assert seat is not None  # a legal action: the game is on
        self._legal = None
        self.moves += 1
        if action == DRAW_STOCK:
            card = self.stock.pop()
            self.taken = None
        elif action == TAKE_DISCARD:
            card = self.pile.pop()
            self.picked[seat].append(card)
            self.known[seat].append(card)
            self.taken = card
        else:
            self._discard(seat, action)
            return
        self.drawn = card
        insort(self.hands[seat], card)
        self.masks[seat] |= CARD_BIT[card]
        self.phase = "discard"

    def _discard(self, seat: int, action: int) -> None:
        knock = action >= KNOCK_OFFSET
        card = action - (KNOCK_OFFSET if knock else DISCARD_OFFSET)
        self.hands[seat].remove(card)
        self.masks[seat] ^= CARD_BIT[card]
        self.pile.append(card)
        self.discarded[seat].append(card)
        if card in self.known[seat]:
            self.known[seat].remove(card)
        self.taken = self.drawn = None
        if knock:
            self._end_hand(seat)
        elif len(self.stock) <= self.rules.dead_stock:
            self._end_hand(None)  # the stock ran out: a dead hand (rule 6c)
        elif self.rules.max_moves is not None and self.moves >= self.rules.max_moves:
            self._end_hand(None)  # an endless pile cycle: dead too (rules.max_moves)
        else:
            self.current_player = (seat + 1) % self.num_players
            self.phase = "draw"

    def _end_hand(self, knocker: int | None) -> None:
        n = self.num_players
        if knocker is None:
            result = HandResult(self.hand_number, self.dealer, None, None, False, False, (), (),
                                (), (0,) * n, tuple(self.scores))
        else:
            s = settle_knock(self.rules, knocker, self.masks)
            for seat in range(n):
                self.scores[seat] += s.points[seat]
            result = HandResult(self.hand_number, self.dealer, knocker, s.winner, s.gin,
                                s.undercut, s.deadwood, s.laid_off, s.knocker_melds, s.points,
                                tuple(self.scores))
        self.results.append(result)
        top = max(self.scores)
        capped = self.rules.max_hands is not None and self.hand_number >= self.rules.max_hands
        if top >= self.rules.target or capped:
            # the first to the target wins; two past it in one hand: the higher total
            self.winners = tuple(s for s in range(n) if self.scores[s] == top)
            self.phase = "over"
            self.current_player = None
            return
        self.dealer = (self.dealer + 1) % n  # the deal passes left (rule 3)
        self._start_hand()

    # ----------------------------------------------------------------- views
    def view(self, seat: int) -> GinRummyView:
        """Everything ``seat`` may know, and nothing more."""
        return GinRummyView(
            rules=self.rules,
            seat=seat,
            phase=self.phase,
            current_player=self.current_player,
            dealer=self.dealer,
            hand_number=self.hand_number,
            hand=tuple(self.hands[seat]),
            pile=tuple(self.pile),
            stock_size=len(self.stock),
            taken=self.taken,
            picked=tuple(map(tuple, self.picked)),
            discarded=tuple(map(tuple, self.discarded)),
            known=tuple(map(tuple, self.known)),
            scores=tuple(self.scores),
            last_hand=self.results[-1] if self.results else None,
            winners=self.winners,
        )

    def shuffle_stock(self, rng: np.random.Generator) -> None:
        """Put the stock in a new random order: nobody has seen it, so every order is
        as likely as the dealt one (play-outs that average over the draws to come)."""
        rng.shuffle(self.stock)

    def clone(self) -> GinRummyState:
        return clone_state(self, ("masks", "pile", "stock", "scores", "results"),
                           ("hands", "picked", "discarded", "known"))

    def __repr__(self) -> str:
        return (f"GinRummyState({self.rules.preset}, {self.num_players} players, hand "
                f"{self.hand_number}, {self.phase}, player_{self.current_player}, "
                f"scores {self.scores})")


__all__ = ["GinRummyState", "IllegalActionError", "check_deal"]
