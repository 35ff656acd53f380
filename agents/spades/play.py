"""Play policies: which card a seat plays, given what it wants from the hand.

The goal, by priority: keep our own nil (take nothing); set an opponent's
nil, as the ``nil=`` option says (P4.1-P4.4); take exactly the tricks the
bid still needs (P1.1), with ``prefer=`` breaking the tie between risking
undertricks and overtricks (P1.2); duck once the bid is made.

``BasicPlay`` judges a card's chance to win the trick by its seat in the
trick alone. ``ExpertPlay`` judges it by the unseen cards and shown voids
(``Knowledge.p_win``), and throws and dumps cards by how likely they are to
win later.
"""

from __future__ import annotations

from collections.abc import Collection

from cardrl.agents.spades.leads import LEAD_STRATEGIES
from cardrl.envs.spades.engine import POWER_TABLE as POWER
from cardrl.envs.spades.engine import SUIT_TABLE as SUIT
from cardrl.envs.spades.tracking import SPADES, Knowledge, beats, cost
from cardrl.envs.spades.view import SpadesView

NIL_RESPONSES = ("ignore", "set-safe", "set-always", "ignore-if-winning")
PREFERENCES = ("avoid-under", "avoid-over")
# Take a trick our counted winners do not need only while the shortfall
# (tricks needed minus tricks expected) is above this (P1.2).
BONUS_SHORTFALL = {"avoid-under": -0.75, "avoid-over": 0.25}
SURE = 0.95  # a card this likely to win is played as a winner


def cheapest(cs: Collection[int]) -> int:
    """Lowest card, side suits before spades: the cheapest way to win or throw."""
    return min(cs, key=cost)


def bid_wins_game(view: SpadesView, seat: int | None = None) -> bool:
    """P4.4: ``seat`` (default: us) making its bid puts it past the target, above what
    any other seat can reach this hand."""
    rules = view.rules
    seat = view.seat if seat is None else seat

    def best_case(s: int) -> int:
        bid = view.bids[s] or 0
        if bid == 0:
            gain = rules.nil_points if view.tricks[s] == 0 else -rules.nil_points
        else:
            gain = rules.points_per_bid_trick * bid
        return view.scores[s] + gain

    ours = best_case(seat)
    return rules.reached_target(ours) and all(best_case(s) < ours for s in range(4) if s != seat)


class BasicPlay:
    """Position-only judgement: second hand low, third hand wins cheaply, last hand exactly."""

    def __init__(self, lead: str, nil: str, prefer: str) -> None:
        self.lead = LEAD_STRATEGIES[lead]
        self.nil = nil
        self.prefer = prefer

    # ------------------------------------------------------------ judgement
    def p_win(self, kn: Knowledge, card: int) -> float:
        if kn.best is not None and not beats(card, kn.best, kn.led):  # a trick is on the table
            return 0.0
        if not kn.after:
            return 1.0
        if kn.trick and SUIT[card] == SPADES != kn.led:
            return 0.8  # a ruff usually holds
        if kn.is_master(card):
            return 0.9
        return 0.5 if len(kn.after) == 1 else 0.3

    def danger(self, kn: Knowledge, card: int) -> float:
        """How likely a card is to take a trick later: ducking dumps the most dangerous."""
        return POWER[card] + (13 if SUIT[card] == SPADES else 0)

    def throw(self, kn: Knowledge, legal: list[int]) -> int:
        """The card to give up when we cannot or will not win: the cheapest."""
        return cheapest(legal)

    # ------------------------------------------------------------- decision
    def choose(self, kn: Knowledge, legal: list[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        if kn.view.bids[kn.seat] == 0:
            if kn.nil_alive(kn.seat):
                return self.keep_nil(kn, legal)
            return self.take(kn, legal, greedy=True)  # failed nil: its tricks cost nothing
        card = self.set_nil(kn, legal)
        if card is not None:
            return card
        if self.must_stop_rival(kn):
            return self.take(kn, legal, greedy=True)
        if kn.need() > 0:
            return self.take(kn, legal)
        return self.lose(kn, legal)

    def must_stop_rival(self, kn: Knowledge) -> bool:
        """Whether to take every trick we can, to set a bidder whose made bid ends the game."""
        return False

    def keep_nil(self, kn: Knowledge, legal: list[int]) -> int:
        """Our nil: the most dangerous card that cannot win; if all can, the lowest (others
        set on breaking us will not overtake it), unless we are last and win anyway."""
        if kn.best is None:  # no trick on the table
            return self.nil_lead(kn, legal)
        losers = [c for c in legal if not beats(c, kn.best, kn.led)]
        if losers or not kn.after:
            return max(losers or legal, key=lambda c: self.danger(kn, c))
        return cheapest(legal)

    def nil_lead(self, kn: Knowledge, legal: list[int]) -> int:
        """Lead for our nil: the lowest card, a side card if we can."""
        return cheapest(legal)

    def lose(self, kn: Knowledge, legal: list[int], keep: Collection[int] = ()) -> int:
        """Duck: the most dangerous card that cannot win, else the least likely winner.

        ``keep`` holds cards to spare (our counted winners) when others will do.
        """
        if kn.best is not None:  # a trick is on the table
            losers = [c for c in legal if not beats(c, kn.best, kn.led)]
        else:
            losers = []
        if not losers:
            odds = {c: self.p_win(kn, c) for c in legal}
            low = min(odds.values())
            losers = [c for c in legal if odds[c] <= low + 0.02]
        pool = [c for c in losers if c not in keep] or losers
        return max(pool, key=lambda c: self.danger(kn, c))

    def take(self, kn: Knowledge, legal: list[int], greedy: bool = False) -> int:
        """Win a needed trick when its odds allow (P1.1); when the winners we count on
        already cover the bid, duck instead, keeping them (P1.2 sets how far)."""
        if kn.best is None:  # no trick on the table
            if greedy:
                return max(legal, key=lambda c: (self.p_win(kn, c), -POWER[c]))
            return self.lead(kn, legal, self)
        winners = [c for c in legal if beats(c, kn.best, kn.led)]
        if not winners:
            return self.throw(kn, legal)
        shortfall = 13.0 if greedy else kn.need() - kn.expected_tricks
        if shortfall <= BONUS_SHORTFALL[self.prefer]:
            return self.lose(kn, legal, keep=kn.counted)
        odds = {c: self.p_win(kn, c) for c in winners}
        bar = 0.3 if shortfall >= 1 else 0.5
        pool = [c for c in winners if odds[c] >= SURE] or [c for c in winners if odds[c] >= bar]
        return self.pick_winner(kn, pool, shortfall) if pool else self.throw(kn, legal)

    def pick_winner(self, kn: Knowledge, pool: list[int], shortfall: float) -> int:
        """Which of the cards likely to win to win with: the cheapest."""
        return cheapest(pool)

    # ------------------------------------------------------ nil opponents
    def nil_targets(self, kn: Knowledge) -> list[int]:
        """Opponents' live nils this seat plays against now, per ``nil=``."""
        if self.nil == "ignore":
            return []
        targets = [s for s in kn.others if kn.nil_alive(s)]
        if not targets:
            return []
        if self.nil == "ignore-if-winning" and bid_wins_game(kn.view):
            return []
        if self.nil != "set-always" and kn.need() > 0 and kn.expected_tricks < kn.need():
            return []  # set-safe: never at the cost of our own bid
        return targets

    def set_nil(self, kn: Knowledge, legal: list[int]) -> int | None:
        """A card that helps set a nil, or None where the nil makes no difference."""
        targets = self.nil_targets(kn)
        if not targets:
            return None
        if kn.best is None:  # no trick on the table: lead low in a suit the nil bidder may hold
            target = max(targets, key=lambda s: kn.view.scores[s])
            pool = [c for c in legal if not kn.void(target, SUIT[c])]
            return cheapest(pool) if pool else None
        losers = [c for c in legal if not beats(c, kn.best, kn.led)]
        if kn.best_seat in targets:  # the nil is winning: do not cover it
            return self.lose(kn, losers, keep=kn.counted) if losers else None
        if any(s in kn.after for s in targets) and not kn.is_master(kn.best):
            return cheapest(losers or legal)  # keep the card to beat low
        return None


class ExpertPlay(BasicPlay):
    """Card-counting judgement: odds from unseen cards and voids; smart throws and dumps."""

    def p_win(self, kn: Knowledge, card: int) -> float:
        return kn.p_win(card)

    def must_stop_rival(self, kn: Knowledge) -> bool:
        """An opponent who still needs tricks would win the game by making its bid, and
        we would not: its set is worth more than any overtricks of ours."""
        view = kn.view
        return not bid_wins_game(view) and any(
            view.bids[s] and kn.need(s) > 0 and bid_wins_game(view, s) for s in kn.others)

    def danger(self, kn: Knowledge, card: int) -> float:
        """Card-counting danger (``Knowledge.danger``): few unseen cards outrank it."""
        return kn.danger(card)

    def pick_winner(self, kn: Knowledge, pool: list[int], shortfall: float) -> int:
        """Short of tricks, the cheapest winner, saving the rest; otherwise the most
        dangerous one, so that the cards left are easier to duck with later."""
        if shortfall >= 1:
            return cheapest(pool)
        return max(pool, key=lambda c: self.danger(kn, c))

    def nil_lead(self, kn: Knowledge, legal: list[int]) -> int:
        """Lead for our nil the card fewest unseen cards can duck under, from a suit
        the others still hold cards above it in."""
        def exposure(c: int) -> tuple:
            suit, over = SUIT[c], kn.n_higher(c)
            holders = sum(1 for s in kn.others if not kn.view.shown_void(s, suit))
            return (over == 0 or holders == 0, suit == SPADES, kn.n_lower(c), -over)
        return min(legal, key=exposure)

    def throw(self, kn: Knowledge, legal: list[int]) -> int:
        """Follow low; when void, shed a side card we do not count on, from the shortest
        suit so that it can be ruffed sooner; a spade only when nothing else is left."""
        if SUIT[legal[0]] == kn.led:
            return cheapest(legal)
        side = [c for c in legal if SUIT[c] != SPADES]
        if not side:
            return cheapest(legal)
        counted = kn.counted
        pool = [c for c in side if c not in counted] or side
        return min(pool, key=lambda c: (len(kn.my_suits[SUIT[c]]), POWER[c]))


PLAY_POLICIES = {"basic": BasicPlay, "expert": ExpertPlay}
