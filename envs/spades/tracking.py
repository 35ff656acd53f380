"""What one seat can know about the cards, derived from its ``SpadesView`` only (A4.2).

``Knowledge`` answers the questions every play decision asks: which cards are
still unseen, who has shown a void, who is winning the trick on the table, who
plays after us, and - under a simple model where each unseen card lies with
any other seat not known void in its suit, in proportion to the cards that
seat still holds - how likely a card is to win the trick.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from functools import cached_property

from cardrl.envs import cards
from cardrl.envs.spades.engine import POWER_TABLE as POWER
from cardrl.envs.spades.engine import SUIT_TABLE as SUIT
from cardrl.envs.spades.rules import HAND_SIZE, NUM_PLAYERS
from cardrl.envs.spades.view import SpadesView

SPADES = cards.SPADES
SIDE_SUITS = (cards.CLUBS, cards.DIAMONDS, cards.HEARTS)
# How readily a seat overtakes when it could duck: one that still needs tricks
# always does; one that has made its bid seldom; a live nil never.
EAGER, SATED, NIL = 1.0, 0.1, 0.0


def split_by_suit(hand) -> list[list[int]]:
    """Cards per effective suit (jokers are spades), each list in ascending power."""
    suits: list[list[int]] = [[], [], [], []]
    for c in sorted(hand, key=POWER.__getitem__):
        suits[SUIT[c]].append(c)
    return suits


def cost(card: int) -> tuple[bool, int]:
    """Sort key from the cheapest card to the dearest: side suits before spades, then power."""
    return SUIT[card] == SPADES, POWER[card]


def beats(card: int, best: int, led: int | None) -> bool:
    """Whether ``card`` would take over from ``best`` on a trick led in ``led`` (which the
    answer does not need: ``best`` is of the led suit or a spade)."""
    if SUIT[card] == SUIT[best]:
        return POWER[card] > POWER[best]
    return SUIT[card] == SPADES  # a ruff over a non-spade best (best is then of the led suit)


def trick_leader_card(trick) -> tuple[int, int] | tuple[None, None]:
    """(seat, card) currently winning the trick on the table."""
    if not trick:
        return None, None
    led = SUIT[trick[0][1]]
    best_seat, best = trick[0]
    for seat, c in trick[1:]:
        if beats(c, best, led):
            best_seat, best = seat, c
    return best_seat, best


class Knowledge:
    """The card knowledge of the seat to move; build one per decision."""

    def __init__(self, view: SpadesView) -> None:
        self.view = view
        self.seat = view.seat
        self.hand = view.hand
        played = {c for _, c in view.plays}
        mine = set(view.hand)
        self.unseen = [c for c in cards.make_deck(view.rules.jokers)
                       if c not in played and c not in mine]
        self.unseen_suits = split_by_suit(self.unseen)
        self.my_suits = split_by_suit(view.hand)
        self.left = [HAND_SIZE] * NUM_PLAYERS  # cards each seat still holds
        for s, _ in view.plays:
            self.left[s] -= 1
        self.trick = view.trick
        self.led = SUIT[self.trick[0][1]] if self.trick else None
        # (seat, card) winning the trick; both None, as ``led``, while no trick is on the table
        self.best_seat: int | None
        self.best: int | None
        self.best_seat, self.best = trick_leader_card(self.trick)
        self.after = tuple((self.seat + k) % NUM_PLAYERS
                           for k in range(1, NUM_PLAYERS - len(self.trick)))
        self.others = tuple(s for s in range(NUM_PLAYERS) if s != self.seat)
        self._powers = [[POWER[c] for c in cs] for cs in self.unseen_suits]
        self._share: dict[tuple[int, int], float] = {}
        self._ruffed: dict[int, float] = {}

    # ------------------------------------------------------------ bids and goals
    def need(self, seat: int | None = None) -> int:
        """Tricks ``seat`` still needs to make its bid (0 or less once made; nil: 0)."""
        seat = self.seat if seat is None else seat
        bid = self.view.bids[seat]
        return (bid or 0) - self.view.tricks[seat]

    def nil_alive(self, seat: int) -> bool:
        """``seat`` bid nil and has not taken a trick yet."""
        return self.view.bids[seat] == 0 and self.view.tricks[seat] == 0

    # ------------------------------------------------------------- card odds
    def void(self, seat: int, suit: int) -> bool:
        """Known to hold no card of ``suit``: shown void, or no such card unseen."""
        return self.view.shown_void(seat, suit) or not self.unseen_suits[suit] \
            or self.left[seat] == 0

    def share(self, seat: int, suit: int) -> float:
        """Chance another seat holds a given unseen card of ``suit``: its share of the
        cards held by the seats not known void there."""
        key = (seat, suit)
        if key not in self._share:
            room = sum(self.left[t] for t in self.others if not self.void(t, suit))
            self._share[key] = 0.0 if self.void(seat, suit) or not room \
                else min(1.0, self.left[seat] / room)
        return self._share[key]

    def p_holds(self, seat: int, card: int) -> float:
        """Chance another seat holds the unseen ``card``."""
        return self.share(seat, SUIT[card])

    def p_holds_some(self, seat: int, suit: int, n: int) -> float:
        """Chance another seat holds at least one of ``n`` unseen cards of ``suit``."""
        return 1.0 - (1.0 - self.share(seat, suit)) ** n if n else 0.0

    def p_void(self, seat: int, suit: int) -> float:
        return 1.0 - self.p_holds_some(seat, suit, len(self.unseen_suits[suit]))

    def n_higher(self, card: int) -> int:
        """Unseen cards of its suit that outrank ``card``."""
        powers = self._powers[SUIT[card]]
        return len(powers) - bisect_right(powers, POWER[card])

    def n_lower(self, card: int) -> int:
        return bisect_left(self._powers[SUIT[card]], POWER[card])

    def danger(self, card: int) -> float:
        """How likely ``card`` is to take a trick later, about 0..18: few unseen cards
        outrank it; spades most, as they cannot be shed (ducking dumps the most dangerous)."""
        return (4 if SUIT[card] == SPADES else 0) + 13 - self.n_higher(card) + POWER[card] / 20

    def is_master(self, card: int) -> bool:
        """No unseen card of its suit outranks it."""
        return self.n_higher(card) == 0

    def willing(self, seat: int) -> float:
        """How readily ``seat`` overtakes when it could duck, from what it still needs."""
        if self.view.bids[seat] == 0:
            return NIL if self.view.tricks[seat] == 0 else EAGER  # a failed nil: nothing to lose
        return EAGER if self.need(seat) > 0 else SATED

    def _overtakes(self, seat: int, card: int) -> float:
        """Weight of ``seat`` holding a higher card of ``card``'s suit: it plays it when
        willing, or when forced, holding no lower card of the suit to duck with."""
        w = self.willing(seat)
        if w == EAGER:
            return 1.0
        return w + (1.0 - w) * (1.0 - self.p_holds_some(seat, SUIT[card], self.n_lower(card)))

    def p_ruffs(self, seat: int, led: int, trumps: int) -> float:
        """Chance ``seat`` plays one of ``trumps`` unseen spades (the lowest ones excluded)
        on a side-suit trick led in ``led``: void there, and willing, or holding nothing
        but spades."""
        p = self.p_void(seat, led) * self.p_holds_some(seat, SPADES, trumps)
        w = self.willing(seat)
        if p and w != EAGER:
            only_spades = 1.0
            for suit in SIDE_SUITS:
                if suit != led:
                    only_spades *= self.p_void(seat, suit)
            p *= w + (1.0 - w) * only_spades
        return p

    def p_win(self, card: int) -> float:
        """Chance that playing ``card`` now wins this trick.

        It must beat the card on top; then no seat still to play may overtake it
        with a higher card of its suit (each unseen card lies with one seat only),
        nor, on a side-suit trick, ruff (over-ruff, if ours is a ruff). Seats
        that have made their bid, or bid nil, overtake mainly when forced.
        """
        if self.best is not None and not beats(card, self.best, self.led):  # a trick is on
            return 0.0
        suit = SUIT[card]
        led = self.led if self.led is not None else suit  # None: no trick, we lead
        p = 1.0
        if suit == led:
            taken = sum(self.share(s, suit) * self._overtakes(s, card) for s in self.after)
            p = (1.0 - min(1.0, taken)) ** self.n_higher(card)
        if led != SPADES:
            trumps = len(self.unseen_suits[SPADES]) if suit == led else self.n_higher(card)
            for s in self.after:
                p *= 1.0 - self.p_ruffs(s, led, trumps)
        return p

    def p_ruffed(self, suit: int) -> float:
        """Chance that a lead of side ``suit`` is ruffed by someone (memoised: the hand's
        sure tricks, the expert's leads and the encoder all ask)."""
        if suit not in self._ruffed:
            safe = 1.0
            trumps = len(self.unseen_suits[SPADES])
            for seat in self.others:
                safe *= 1.0 - self.p_ruffs(seat, suit, trumps)
            self._ruffed[suit] = 1.0 - safe
        return self._ruffed[suit]

    # --------------------------------------------------------- hand strength
    @cached_property
    def spade_winners(self) -> tuple[int, ...]:
        """Own spades that must win: the i-th highest wins if at most i unseen spades outrank it."""
        mine = self.my_suits[SPADES][::-1]
        return tuple(c for i, c in enumerate(mine) if self.n_higher(c) <= i)

    @cached_property
    def side_masters(self) -> tuple[tuple[int, float], ...]:
        """Own side-suit cards that are top of their suit, with the chance each cashes.

        The k-th master of a suit is played on the k-th round, when ruffs are likelier.
        """
        out = []
        for suit in SIDE_SUITS:
            mine = self.my_suits[suit][::-1]
            if not mine or not self.is_master(mine[0]):
                continue
            unseen = self._powers[suit]
            top = unseen[-1] if unseen else -1
            safe = 1.0 - self.p_ruffed(suit)
            for k, c in enumerate(mine):
                if POWER[c] < top:
                    break
                out.append((c, safe ** (k + 1)))
        return tuple(out)

    @cached_property
    def expected_tricks(self) -> float:
        """Tricks our hand should still take by force: spade winners plus cashable masters."""
        return len(self.spade_winners) + sum(p for _, p in self.side_masters)

    @cached_property
    def counted(self) -> frozenset[int]:
        """Cards ``expected_tricks`` counts as winners (a win with one is no bonus)."""
        return frozenset(self.spade_winners) | {c for c, p in self.side_masters if p >= 0.5}
