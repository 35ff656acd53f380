"""Spades hand scoring (S1-S4.1 and the cutthroat table of docs/rules.md section 1)."""

from __future__ import annotations

from dataclasses import dataclass

from cardrl.envs.spades.rules import SpadesRules


def score_bid(rules: SpadesRules, bid: int, tricks: int, bags: int) -> tuple[int, int, int]:
    """Points one player scores for a hand, its bags after, and bag penalties paid.

    Nil (bid 0): +/- ``nil_points``; a failed nil's tricks make no bags.
    Otherwise made exactly: +10 x bid; under: -10 x bid; over: +10 x bid plus
    ``overtrick_points`` per overtrick, and with bags each overtrick is a bag;
    each time the bag count reaches ``bag_limit`` it costs ``bag_penalty`` and
    drops by ``bag_limit``.
    """
    if bid == 0:
        return (rules.nil_points if tricks == 0 else -rules.nil_points), bags, 0
    base = rules.points_per_bid_trick * bid
    if tricks < bid:
        return -base, bags, 0
    over = tricks - bid
    points = base + rules.overtrick_points * over
    penalties = 0
    if rules.bag_limit is not None:
        bags += over
        penalties, bags = divmod(bags, rules.bag_limit)
        points -= penalties * rules.bag_penalty
    return points, bags, penalties


def score_parts(rules: SpadesRules, bid: int, tricks: int, penalties: int) -> list[tuple[str, int]]:
    """A hand's points of one player in parts that add up to ``score_bid``'s points:
    ``("nil", +-nil_points)``, ``("set", -10 x bid)``, or ``("bid made", 10 x bid)`` then
    ``("overtricks", ...)`` and ``("bags", -penalty x times)``; ``penalties`` is the
    hand result's ``bag_penalties`` of the player. For a table's hand summary."""
    if bid == 0:
        return [("nil", rules.nil_points if tricks == 0 else -rules.nil_points)]
    base = rules.points_per_bid_trick * bid
    if tricks < bid:
        return [("set", -base)]
    parts = [("bid made", base)]
    if tricks > bid:
        parts.append(("overtricks", rules.overtrick_points * (tricks - bid)))
    if penalties:
        parts.append(("bags", -rules.bag_penalty * penalties))
    return parts


def hand_worth(rules: SpadesRules, result: HandResult) -> tuple[float, ...]:
    """Each seat's points for the hand ``result`` summarises, with every bag it made
    charged at its share of the penalty (``bag_penalty / bag_limit``) and a penalty
    paid handed back (``Game.hand_worth``).

    Bags cost nothing until the count reaches the limit, so a hand's points alone
    pay an overtrick +1 in cutthroat; over a game each bag costs 10. This is what a
    search weighs a hand by, and what an env pays with ``hand_reward="worth"``. The
    count's change is the bags made less the limit per penalty (a made bid's
    overtricks; a nil or a set makes none), the same integer the compiled core takes
    from its counts before and after.
    """
    if rules.bag_limit is None:
        return tuple(float(p) for p in result.points)
    per_bag = rules.bag_penalty / rules.bag_limit
    return tuple(p - per_bag * ((tricks - bid if 0 < bid <= tricks else 0)
                                - rules.bag_limit * paid)
                 for p, bid, tricks, paid in zip(result.points, result.bids, result.tricks,
                                                 result.bag_penalties, strict=True))


@dataclass(frozen=True, slots=True)
class HandResult:
    """The end-of-hand summary (A3.6): per seat bid, tricks, points, bags."""

    hand_number: int
    dealer: int
    bids: tuple[int, ...]
    tricks: tuple[int, ...]
    points: tuple[int, ...]
    bag_penalties: tuple[int, ...]
    bags: tuple[int, ...]
    totals: tuple[int, ...]

    def to_dict(self) -> dict:
        return {
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "bids": list(self.bids),
            "tricks": list(self.tricks),
            "points": list(self.points),
            "bag_penalties": list(self.bag_penalties),
            "bags": list(self.bags),
            "totals": list(self.totals),
        }

    @classmethod
    def from_dict(cls, d: dict) -> HandResult:
        return cls(d["hand_number"], d["dealer"], *(tuple(d[k]) for k in (
            "bids", "tricks", "points", "bag_penalties", "bags", "totals")))


def hand_metric(result: dict, seat: int) -> dict[str, int]:
    """Training's per-hand counts for ``seat`` (a hand result's ``to_dict`` form): bids made
    exactly (non-nil bids whose tricks equal the bid) and nils made (0 tricks)."""
    bid, tricks = result["bids"][seat], result["tricks"][seat]
    if bid == 0:
        return {"hands": 1, "nil_bids": 1, "nil_made": int(tricks == 0)}
    return {"hands": 1, "bids": 1, "bid_exact": int(tricks == bid), "bid_made": int(tricks >= bid)}


# rate name -> (numerator count, denominator count) of ``hand_metric``
HAND_RATES = {"bid_accuracy": ("bid_exact", "bids"), "bid_made_rate": ("bid_made", "bids"),
              "nil_success": ("nil_made", "nil_bids"), "nil_rate": ("nil_bids", "hands")}
