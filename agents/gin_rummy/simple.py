"""The simple baseline player of the Gin Rummy AI challenges: a port of the decisions of
Todd Neller's ``SimpleGinRummyPlayer`` (github.com/tneller/gin-rummy-eaai,
``ginrummy/SimpleGinRummyPlayer.java``; EAAI undergraduate research challenge).

* Draw: take the up card only if it is in some meld of the hand plus it.
* Discard: the candidates are the cards whose discard leaves the least deadwood,
  among all the cards held (melded or not) except the card just taken from the
  pile and, his rule against repeating a draw and discard, except a card ``c``
  where the pair {card drawn this turn, ``c``} was already a turn's {drawn,
  discarded} pair earlier in the hand (a pair is unordered, as his bitstrings are;
  the draw may have been from the stock). He plays a uniformly random candidate
  (a tie in about 39% of his discards); so does this bot, from its own generator,
  which the tournament seeds at every ``reset``, so a duplicate match replays.
* Knock as soon as the rules allow after that discard (his game: deadwood 10 or
  less; gin at 0). The knocker's melds are the engine's, not the bot's.

``ties=highest`` is the bot this project had before (issue 35): the highest of
the candidates (point value, then rank) and no rule against repeats (turn it on
with ``no_repeat=true``).

To follow its draws from the stock the bot remembers, per seat and hand, its
hand at each draw decision and the card each turn drew; the pairs of the rule are
those cards with the discards its view shows. Where it was not asked to draw (a
position given alone), a stock draw is unknown and forms no pair.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from cardrl.agents.base import Bot
from cardrl.envs.gin_rummy.actions import (
    DISCARD_OFFSET,
    DRAW_STOCK,
    KNOCK_OFFSET,
    TAKE_DISCARD,
    discard_action,
    knock_action,
)
from cardrl.envs.gin_rummy.melds import CARD_BIT, CARD_VALUE, deadwood, mask_of, meldable, rank_low
from cardrl.envs.gin_rummy.view import GinRummyView

TIES = ("random", "highest")


def discard_choices(legal: Sequence[int]) -> list[int]:
    """The cards the legal plain discards would put on the pile."""
    return [a - DISCARD_OFFSET for a in legal if DISCARD_OFFSET <= a < KNOCK_OFFSET]


def makes_meld(mask: int, card: int) -> bool:
    """Whether ``card`` would be in some meld of the hand ``mask`` plus it."""
    bit = CARD_BIT[card]
    return bool(meldable(mask | bit) & bit)


def highest(card: int) -> tuple[int, int, int]:
    """Sort key, highest first: point value, then rank, then the lowest id."""
    return (-CARD_VALUE[card], -rank_low(card), card)


def least_deadwood_discard(mask: int, choices: Sequence[int]) -> tuple[int, int]:
    """(card, deadwood left) of the discard leaving least deadwood; ties go to the
    highest card (value, then rank)."""
    return min(((c, deadwood(mask ^ CARD_BIT[c])) for c in choices),
               key=lambda cd: (cd[1], *highest(cd[0])))


def least_deadwood_candidates(mask: int, choices: Sequence[int]) -> list[int]:
    """Every card of ``choices`` whose discard leaves the least deadwood, ascending ids."""
    left = {c: deadwood(mask ^ CARD_BIT[c]) for c in choices}
    least = min(left.values())
    return sorted(c for c, d in left.items() if d == least)


@dataclass
class _HandMemory:
    """One seat's own turns of one hand: what each turn drew."""

    hand_number: int
    drawn: dict[int, int] = field(default_factory=dict)  # turn (own discards before) -> card
    before: tuple[int, tuple[int, ...]] | None = None  # (turn, hand) at the last draw decision


class SimpleBot(Bot):
    """Take a melding up card, discard a random least-deadwood card, knock at once."""

    game = "gin_rummy"

    def __init__(self, ties: str = "random", no_repeat: bool | None = None,
                 seed: int | None = None) -> None:
        super().__init__(seed)
        if ties not in TIES:
            raise ValueError(f"ties must be one of {'|'.join(TIES)}, got {ties!r}")
        if no_repeat is not None and not isinstance(no_repeat, bool):
            raise ValueError(f"no_repeat must be true or false, got {no_repeat!r}")
        self.ties = ties
        self.no_repeat = ties == "random" if no_repeat is None else no_repeat
        self._memory: dict[int, _HandMemory] = {}

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._memory.clear()

    # ------------------------------------------------------------ memory
    def _hand_memory(self, view: GinRummyView) -> _HandMemory:
        mem = self._memory.get(view.seat)
        if mem is None or mem.hand_number != view.hand_number:
            mem = self._memory[view.seat] = _HandMemory(view.hand_number)
        return mem

    def drawn_card(self, view: GinRummyView) -> int | None:
        """The card this turn drew: the one taken from the pile, or the stock card the
        hand gained since this bot's draw decision; None if unknown."""
        if view.taken is not None:
            return view.taken
        mem = self._memory.get(view.seat)
        if mem is None or mem.hand_number != view.hand_number or mem.before is None:
            return None
        turn, before = mem.before
        new = set(view.hand).difference(before)
        if turn != len(view.discarded[view.seat]) or len(new) != 1 \
                or len(view.hand) != len(before) + 1:
            return None
        return new.pop()

    def used_pairs(self, view: GinRummyView) -> set[frozenset[int]]:
        """The {drawn, discarded} pairs of this seat's earlier turns of the hand."""
        mem = self._memory.get(view.seat)
        if mem is None or mem.hand_number != view.hand_number:
            return set()
        mine = view.discarded[view.seat]
        held = set(view.hand)
        return {frozenset((card, mine[turn])) for turn, card in mem.drawn.items()
                if turn < len(mine) and (card in held or card in mine)}

    # ---------------------------------------------------------- decisions
    def takes(self, view: GinRummyView) -> bool:
        """Neller's draw: the up card only if it is in some meld of the hand plus it."""
        return view.top is not None and makes_meld(mask_of(view.hand), view.top)

    def discard_candidates(self, view: GinRummyView, legal_actions: Sequence[int]) -> list[int]:
        """The cards the bot picks its discard among (ascending ids): least deadwood left,
        never the card just taken, and (``no_repeat``) no repeat of an earlier turn's
        {drawn, discarded} pair."""
        choices = discard_choices(legal_actions)
        if view.taken is not None and len(choices) > 1:
            choices = [c for c in choices if c != view.taken]
        if self.no_repeat:
            drawn = self.drawn_card(view)
            used = self.used_pairs(view) if drawn is not None else ()
            fresh = [c for c in choices if frozenset((drawn, c)) not in used]
            choices = fresh or choices  # all blocked (his player would fail): allow repeats
        return least_deadwood_candidates(mask_of(view.hand), choices)

    def _play(self, card: int, legal_actions: Sequence[int]) -> int:
        knock = knock_action(card)
        return knock if knock in legal_actions else discard_action(card)

    def act(self, view: GinRummyView, legal_actions: Sequence[int]) -> int:
        mem = self._hand_memory(view)
        turn = len(view.discarded[view.seat])
        if view.phase == "draw":
            mem.before = (turn, view.hand)
            if TAKE_DISCARD in legal_actions and self.takes(view):
                return TAKE_DISCARD
            return DRAW_STOCK
        candidates = self.discard_candidates(view, legal_actions)
        drawn = self.drawn_card(view)
        if drawn is not None:
            mem.drawn[turn] = drawn
        if self.ties == "highest" or len(candidates) == 1:
            card = min(candidates, key=highest)
        else:
            card = candidates[int(self.rng.integers(len(candidates)))]
        return self._play(card, legal_actions)

    def probabilities(self, view: GinRummyView, legal_actions: Sequence[int]
                      ) -> dict[int, float]:
        """The draw is certain; a random tie-break spreads evenly over the candidates.
        Reads the view and memory only: the generator is not drawn from."""
        if view.phase != "discard" or self.ties == "highest":
            return super().probabilities(view, legal_actions)
        probs = {int(a): 0.0 for a in legal_actions}
        candidates = self.discard_candidates(view, legal_actions)
        for card in candidates:
            probs[self._play(card, legal_actions)] = 1.0 / len(candidates)
        return probs
