"""The Sevens engine: the whole truth of a game, a pure state machine.

One ``SevensState`` is one game (docs/rules.md section 3): the parameters are fixed
or drawn, the deck is dealt (k = floor(51 / n) cards each, the rest face up
onto the table), then each player in turn from seat 0 places a card and scores
from the new running total, until every hand is empty. Actions are ids of
``cardrl.envs.sevens.actions``. Randomness comes only from the generator given: first
the parameters, then the deal, so a seed fixes both whatever the players do.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from cardrl.envs import cards
from cardrl.envs.actions import as_action
from cardrl.envs.sevens.actions import action_name
from cardrl.envs.sevens.rules import RANDOM, Parameters, SevensRules
from cardrl.envs.sevens.scoring import HandResult, points_for_total
from cardrl.envs.sevens.view import SevensView
from cardrl.envs.states import clone_state, generator

DECK = cards.STANDARD_DECK
SUIT = tuple(cards.suit_of(c) for c in DECK)
RANK = tuple(cards.rank_of(c) for c in DECK)
RED = tuple(s in (cards.DIAMONDS, cards.HEARTS) for s in SUIT)  # colour: red or black


class IllegalActionError(ValueError):
    """An action that is not in the legal set; the state is left unchanged."""


def playable_cards(hand: Sequence[int], last_card: int) -> list[int]:
    """Cards of ``hand`` that may be placed on ``last_card``.

    A card of the other colour if the player has one; else one of another suit
    if it has one; else any card.
    """
    red, suit = RED[last_card], SUIT[last_card]
    other_colour = [c for c in hand if RED[c] != red]
    if other_colour:
        return other_colour
    other_suit = [c for c in hand if SUIT[c] != suit]
    return other_suit if other_suit else list(hand)


def card_actions(playable: Sequence[int], values: Sequence[Sequence[int]]) -> list[int]:
    """The action ids for ``playable`` cards: each card at each permitted value, ascending."""
    out = []
    for c in playable:
        out.append(2 * c)
        if len(values[RANK[c]]) == 2:
            out.append(2 * c + 1)
    return out


class SevensState:
    """A game of Sevens. Build with a rules object and a seed or generator.

    ``deal`` replays given cards: a list of ``num_players`` hands of
    ``hand_size`` cards each, optionally followed by the table cards in deal
    order (by default the remaining cards, ascending).
    """

    def __init__(
        self,
        rules: SevensRules = RANDOM,
        rng: np.random.Generator | int | None = None,
        deal: Sequence[Sequence[str | int]] | None = None,
    ) -> None:
        self.rules = rules
        self.rng = generator(rng)
        n, k = rules.num_players, rules.hand_size
        self.num_players = n
        self.params: Parameters = rules.draw_parameters(self.rng)
        if deal is None:
            hands, table = cards.deal(DECK, n, k, self.rng)
        else:
            hands, table = self._check_deal(deal)
        self.hands: list[list[int]] = hands
        self.table: tuple[int, ...] = tuple(table)
        values = self.params.values
        self.total = sum(values[RANK[c]][0] for c in table)  # table cards: first value
        self.last_card = table[-1]
        self.plays: list[tuple[int, int, int]] = []
        self.scores = [0] * n
        self.results: list[HandResult] = []
        self.winners: tuple[int, ...] = ()
        self.current_player: int | None = 0
        self._legal: list[int] | None = None  # legal actions of this turn, once computed

    @classmethod
    def from_view(cls, view: SevensView, hands: list[list[int]],
                  rng: np.random.Generator | int | None = None) -> SevensState:
        """The state a view shows, with ``hands`` (every seat's cards now) filling in what
        it hides: a *world* for search (``cardrl.envs.sevens.worlds``)."""
        state = cls.__new__(cls)
        state.rules, state.rng, state.num_players = view.rules, generator(rng), view.num_players
        state.params, state.table = view.params, view.table
        state.hands = [sorted(h) for h in hands]
        state.total, state.last_card = view.total, view.last_card
        state.plays, state.scores = list(view.plays), list(view.scores)
        state.results = [] if view.current_player is not None else [
            HandResult(1, view.scores, view.scores, view.total)]
        state.winners, state.current_player = view.winners, view.current_player
        state._legal = None
        return state

    def _check_deal(self, deal) -> tuple[list[list[int]], list[int]]:
        n, k = self.num_players, self.rules.hand_size
        if isinstance(deal, str | bytes) or not isinstance(deal, Sequence) \
                or len(deal) not in (n, n + 1):
            raise cards.CardError(f"a Sevens deal is {n} hands of {k} cards, optionally followed "
                                  f"by the table cards; got {deal!r}")
        hands = cards.check_deal(deal[:n], DECK, n, k)
        held = {c for h in hands for c in h}
        rest = [c for c in DECK if c not in held]
        if len(deal) == n:
            return hands, rest
        table = cards.parse_many(deal[n])
        if sorted(table) != rest:
            missing = cards.names(sorted(set(rest) - set(table)))
            extra = cards.names(sorted(set(table) - set(rest)))
            raise cards.CardError(f"the table cards must be exactly the {len(rest)} cards no "
                                  f"hand holds, once each; missing {missing}, not expected "
                                  f"{extra}" + (" (a card twice)" if len(table) != len(set(table))
                                                else ""))
        return hands, table

    # ---------------------------------------------------------- properties
    @property
    def is_over(self) -> bool:
        return self.current_player is None

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        return tuple(len(h) for h in self.hands)

    # --------------------------------------------------------- legal moves
    def legal_actions(self) -> list[int]:
        """Legal action ids for the current player, ascending; empty when over."""
        if self._legal is None:
            if self.current_player is None:
                return []
            self._legal = card_actions(
                playable_cards(self.hands[self.current_player], self.last_card),
                self.params.values)
        return list(self._legal)

    # --------------------------------------------------------------- apply
    def apply(self, action: object) -> None:
        """Play ``action`` for the current player; raise and change nothing if illegal."""
        legal = self._legal if self._legal is not None else self.legal_actions()
        if type(action) is not int:
            action = as_action(action)
        if action not in legal:
            raise IllegalActionError(
                f"illegal action {action!r} ({action_name(action)}) for "
                f"player_{self.current_player}; legal: {list(legal)}")
        seat = self.current_player
        assert seat is not None  # a legal action: the game is on
        card = action >> 1
        value = self.params.values[RANK[card]][action & 1]
        self.total += value
        self.scores[seat] += points_for_total(self.total, self.params.points)
        self.hands[seat].remove(card)
        self.plays.append((seat, card, value))
        self.last_card = card
        self._legal = None
        if len(self.plays) == self.num_players * self.rules.hand_size:
            self._end()
        else:
            self.current_player = (seat + 1) % self.num_players

    def _end(self) -> None:
        scores = tuple(self.scores)
        self.results.append(HandResult(1, scores, scores, self.total))
        top = max(scores)
        self.winners = tuple(s for s in range(self.num_players) if scores[s] == top)
        self.current_player = None

    # --------------------------------------------------------------- views
    def view(self, seat: int) -> SevensView:
        """Everything ``seat`` may know, and nothing more."""
        if not isinstance(seat, int | np.integer) or not 0 <= seat < self.num_players:
            raise ValueError(f"no seat {seat!r} in a {self.num_players}-player game")
        return SevensView(
            rules=self.rules,
            seat=int(seat),
            num_players=self.num_players,
            params=self.params,
            table=self.table,
            plays=tuple(self.plays),
            total=self.total,
            last_card=self.last_card,
            hand=tuple(self.hands[seat]),
            hand_sizes=self.hand_sizes,
            scores=tuple(self.scores),
            current_player=self.current_player,
            winners=self.winners,
        )

    def public_parameters(self) -> dict:
        """What the dealer announces before play (the tournament passes it to bots' hooks)."""
        return {**self.params.to_dict(), "num_players": self.num_players,
                "table": cards.names(self.table), "total": sum(
                    self.params.values[RANK[c]][0] for c in self.table),
                "first_player": 0}

    def clone(self) -> SevensState:
        return clone_state(self, ("plays", "scores", "results"), ("hands",))

    def __repr__(self) -> str:
        return (f"SevensState({self.num_players} players, total {self.total}, "
                f"player_{self.current_player}, scores {self.scores})")


__all__ = ["SevensState", "IllegalActionError", "playable_cards", "card_actions", "RED", "SUIT",
           "RANK"]
