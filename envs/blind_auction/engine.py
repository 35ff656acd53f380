"""The Blind Auction engine: the whole truth of a game, a pure state machine.

One ``BlindAuctionState`` is one game (one hand): ``cards_per_suit`` rounds; in
each, every seat bids a card in seat order, and once all have bid the round
resolves (``scoring.resolve``) and its prize is turned face up. Actions are
rank indices (``cardrl.envs.blind_auction.actions``). Randomness comes only from the
generator given, and only for the prize order.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import add

import numpy as np

from cardrl.envs import cards
from cardrl.envs.actions import as_action
from cardrl.envs.blind_auction.actions import action_name
from cardrl.envs.blind_auction.rules import BID_SUITS, PRIZE_SUIT, TWO_PLAYERS, BlindAuctionRules
from cardrl.envs.blind_auction.scoring import HandResult, RoundResult, resolve
from cardrl.envs.blind_auction.view import BlindAuctionView
from cardrl.envs.states import clone_state

_PRIZE_BASE = 13 * PRIZE_SUIT  # prize card id - this = its rank


def _shuffled(deck: Sequence[int], rng) -> list[int]:
    """``compiled_rng.shuffled``, imported at the first deal (and bound to this name from
    then on): it loads numba, which importing the engine does not."""
    global _shuffled
    from cardrl.envs.compiled_rng import shuffled as _shuffled
    return _shuffled(deck, rng)


class IllegalActionError(ValueError):
    """An action that is not in the legal set; the state is left unchanged."""


def check_prize_order(order: Sequence[str | int], rules: BlindAuctionRules) -> list[int]:
    """Parse a given prize order (top card first); raise a clear error if it is not one."""
    if isinstance(order, (str, bytes)) or not isinstance(order, Sequence):
        raise cards.CardError(f"a Blind Auction deal is the prize order, a list of "
                              f"{rules.cards_per_suit} diamonds, got {order!r}")
    ids = cards.parse_many(order)
    prizes = set(rules.prize_cards)
    seen = set()
    for c in ids:
        if c not in prizes:
            raise cards.CardError(f"card {cards.name(c)} is not a prize card of this game "
                                  f"(the prizes are {' '.join(cards.names(rules.prize_cards))})")
        if c in seen:
            raise cards.CardError(f"prize {cards.name(c)} appears twice in the prize order")
        seen.add(c)
    if len(ids) != rules.cards_per_suit:
        raise cards.CardError(f"the prize order needs {rules.cards_per_suit} cards, got {len(ids)}")
    return ids


class BlindAuctionState:
    """A game of Blind Auction. Build with a rules object and a seed or generator;
    ``deal`` gives the prize order instead (card names or ids, top first)."""

    def __init__(
        self,
        rules: BlindAuctionRules = TWO_PLAYERS,
        rng: np.random.Generator | int | None = None,
        deal: Sequence[str | int] | None = None,
    ) -> None:
        if not isinstance(rules, BlindAuctionRules):
            raise TypeError(f"rules must be BlindAuctionRules, got {rules!r}")
        self.rules = rules
        self.num_players = rules.num_players
        self.num_rounds = rules.cards_per_suit
        self._tie_rule = rules.tie_rule
        if deal is None:
            self.prizes = _shuffled(rules._prize_cards, rng)
        else:
            self.prizes = check_prize_order(deal, rules)
        ranks = list(range(self.num_rounds))
        self.hands = [ranks.copy() for _ in range(self.num_players)]  # ranks still in hand
        self._offsets = tuple(13 * BID_SUITS[s] for s in range(self.num_players))  # rank -> id
        self.pending: list[int | None] = [None] * self.num_players  # bids this round (ranks)
        self.hand_number = 1
        self.round = 0  # rounds resolved
        self.carried: list[int] = []
        self.scores: list[float] = [0] * self.num_players
        self.rounds: list[RoundResult] = []
        self.results: list[HandResult] = []
        self.winners: tuple[int, ...] = ()
        self.current_player: int | None = 0

    @property
    def is_over(self) -> bool:
        return self.current_player is None

    # ---------------------------------------------------------- legal moves
    def legal_actions(self) -> list[int]:
        """Legal action ids (ranks) for the current player, ascending; empty when over."""
        seat = self.current_player
        return [] if seat is None else list(self.hands[seat])

    def legal_for(self, seat: int) -> list[int]:
        """What ``seat`` may bid this round if it has not bid yet (every seat at the
        round's start may: the parallel API asks them all at once)."""
        if self.current_player is None or self.pending[seat] is not None:
            return []
        return list(self.hands[seat])

    # ---------------------------------------------------------------- apply
    def apply(self, action: object) -> None:
        """Bid ``action`` for the current player; raise and change nothing if illegal."""
        seat = self.current_player
        hand = self.hands[seat] if seat is not None else []
        if type(action) is not int:
            action = as_action(action)
        if seat is None or action not in hand:
            raise IllegalActionError(
                f"illegal action {action!r} ({action_name(action)}) for player_{seat}"
                + ("; the game is over" if seat is None else f"; legal: {list(hand)}"))
        hand.remove(action)
        self.pending[seat] = action
        if seat + 1 < self.num_players:
            self.current_player = seat + 1
        else:
            self._resolve()

    def _resolve(self) -> None:
        pending = self.pending
        prize = self.prizes[self.round]
        carried = self.carried
        carried_value = sum(c - _PRIZE_BASE + 2 for c in carried) if carried else 0
        # every seat has bid: no None is pending (narrowing the list would cost on the hot path)
        scorers, points, carry = resolve(self._tie_rule, pending,  # type: ignore[arg-type]
                                         prize - _PRIZE_BASE + 2, carried_value)
        taken = (*carried, prize) if scorers else ()
        for seat in scorers:
            self.scores[seat] += points[seat]
        self.round += 1
        self.rounds.append(RoundResult(self.round, prize, tuple(map(add, self._offsets, pending)),
                                       scorers, taken, tuple(points), carry))
        if carry:
            carried.append(prize)
        elif carried:
            self.carried = []
        self.pending = [None] * self.num_players
        if self.round < self.num_rounds:
            self.current_player = 0
            return
        self._end()

    def _end(self) -> None:
        taken = {c for r in self.rounds for c in r.taken}
        scores = tuple(self.scores)
        self.results.append(HandResult(self.hand_number, tuple(self.prizes), scores, scores,
                                       tuple(c for c in self.prizes if c not in taken)))
        top = max(scores)
        self.winners = tuple(s for s, x in enumerate(scores) if x == top)
        self.current_player = None

    # ------------------------------------------------------------- analysis
    def arrange_next_prize(self, prize: int) -> None:
        """Put the unrevealed prize ``prize`` (a card id) on top of the prize deck.

        For exact analysis, which walks every chance outcome: it only reorders
        cards nobody has seen, so no view changes.
        """
        top = self.round
        if prize not in self.prizes[top:]:
            raise ValueError(f"{cards.name(prize)} is not an unrevealed prize; unrevealed: "
                             f"{cards.names(self.prizes[top:])}")
        i = self.prizes.index(prize)
        self.prizes[top], self.prizes[i] = self.prizes[i], self.prizes[top]

    # ----------------------------------------------------------------- views
    def view(self, seat: int) -> BlindAuctionView:
        """Everything ``seat`` may know, and nothing more."""
        if not isinstance(seat, int) or not 0 <= seat < self.num_players:
            raise ValueError(f"no seat {seat!r} in a {self.num_players}-player game")
        pending = self.pending
        offsets = self._offsets
        remaining = tuple(
            tuple(sorted(o + r for r in (h if p is None else [*h, p])))
            for o, h, p in zip(offsets, self.hands, pending, strict=True))
        mine = pending[seat]
        return BlindAuctionView(
            rules=self.rules,
            seat=seat,
            current_player=self.current_player,
            hand=tuple(offsets[seat] + r for r in self.hands[seat]),
            chosen=None if mine is None else offsets[seat] + mine,
            remaining=remaining,
            acted=tuple(p is not None for p in pending),
            rounds=tuple(self.rounds),
            carried=tuple(self.carried),
            prizes_left=tuple(sorted(self.prizes[self.round:])),
            scores=tuple(self.scores),
            winners=self.winners,
        )

    def clone(self) -> BlindAuctionState:
        return clone_state(self, ("pending", "prizes", "carried", "scores", "rounds", "results"),
                           ("hands",))

    def __repr__(self) -> str:
        return (f"BlindAuctionState({self.rules.preset}, {self.num_players} players, round "
                f"{self.round + 1}/{self.num_rounds}, player_{self.current_player}, "
                f"scores {self.scores})")


__all__ = ["BlindAuctionState", "IllegalActionError", "check_prize_order"]
