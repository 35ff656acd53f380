"""Gin Rummy hand scoring (rules 7-9 and the standard preset's bonuses, docs/rules.md section 2)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cardrl.envs import cards
from cardrl.envs.gin_rummy.melds import best_splits, cards_of, deadwood, layoff_deadwood
from cardrl.envs.gin_rummy.rules import GinRummyRules


@dataclass(frozen=True, slots=True)
class Settlement:
    """How a knock is scored: who wins, the points, and why."""

    winner: int
    points: tuple[int, ...]  # per seat: the winner's points, 0 for the others
    deadwood: tuple[int, ...]  # per seat, after layoffs
    laid_off: tuple[tuple[int, ...], ...]  # per seat, card ids laid off on the knocker's melds
    knocker_melds: tuple[tuple[int, ...], ...]  # the knocker's melds, card ids
    gin: bool
    undercut: bool  # someone other than the knocker won


def settle_knock(rules: GinRummyRules, knocker: int, hands: Sequence[int]) -> Settlement:
    """Score a knock by ``knocker``; ``hands`` are every seat's final masks (10 cards).

    The least deadwood wins (rule 7); a tie goes to the knocker when
    ``knocker_wins_ties`` or on gin, else to the first tied player after the
    knocker (docs/rules.md). The winner scores the others' deadwood less its own
    (rule 8), plus ``gin_bonus`` for gin and ``undercut_bonus`` when it is not
    the knocker. With ``layoff`` (not on gin) the others first lay cards off onto
    the knocker's melds; of the knocker's best splits the one that leaves the
    others the most deadwood is used, as a knocker would choose.
    """
    n = len(hands)
    own = deadwood(hands[knocker])
    gin = own == 0
    splits = best_splits(hands[knocker])
    melds = splits[0]
    laid = [0] * n
    dws = [deadwood(h) for h in hands]
    if rules.layoff and not gin:
        best_total = -1
        for split in splits:
            outcome = [layoff_deadwood(h, split) if s != knocker else (own, 0)
                       for s, h in enumerate(hands)]
            total = sum(d for d, _ in outcome)
            if total > best_total:
                best_total, melds = total, split
                dws = [d for d, _ in outcome]
                laid = [m for _, m in outcome]
    low = min(dws)
    if dws[knocker] == low and (gin or rules.knocker_wins_ties or dws.count(low) == 1):
        winner = knocker
    else:
        winner = next(s for s in ((knocker + k) % n for k in range(1, n)) if dws[s] == low)
    won = sum(dws) - dws[winner] - dws[winner]
    if winner == knocker and gin:
        won += rules.gin_bonus
    if winner != knocker:
        won += rules.undercut_bonus
    points = tuple(won if s == winner else 0 for s in range(n))
    return Settlement(winner, points, tuple(dws), tuple(tuple(cards_of(m)) for m in laid),
                      tuple(tuple(cards_of(m)) for m in melds), gin, winner != knocker)


@dataclass(frozen=True, slots=True)
class HandResult:
    """The end-of-hand summary. A dead hand (stock ran out, rule 6c) has no knocker,
    no winner, no points, and shows nobody's deadwood."""

    hand_number: int
    dealer: int
    knocker: int | None
    winner: int | None
    gin: bool
    undercut: bool
    deadwood: tuple[int, ...]  # per seat after layoffs; () for a dead hand
    laid_off: tuple[tuple[int, ...], ...]
    knocker_melds: tuple[tuple[int, ...], ...]
    points: tuple[int, ...]
    totals: tuple[int, ...]

    @property
    def dead(self) -> bool:
        return self.knocker is None

    def to_dict(self) -> dict:
        return {
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "knocker": self.knocker,
            "winner": self.winner,
            "gin": self.gin,
            "undercut": self.undercut,
            "deadwood": list(self.deadwood),
            "laid_off": [cards.names(c) for c in self.laid_off],
            "knocker_melds": [cards.names(m) for m in self.knocker_melds],
            "points": list(self.points),
            "totals": list(self.totals),
        }

    @classmethod
    def from_dict(cls, d: dict) -> HandResult:
        return cls(d["hand_number"], d["dealer"], d["knocker"], d["winner"], bool(d["gin"]),
                   bool(d["undercut"]), tuple(d["deadwood"]),
                   tuple(tuple(cards.parse_many(c)) for c in d["laid_off"]),
                   tuple(tuple(cards.parse_many(m)) for m in d["knocker_melds"]),
                   tuple(d["points"]), tuple(d["totals"]))


def hand_metric(result: dict, seat: int) -> dict[str, int]:
    """Training's per-hand counts for ``seat`` (a hand result's ``to_dict`` form): hands
    ended by this seat going gin or knocking, knocks undercut, and hands won."""
    mine = result["knocker"] == seat
    return {"hands": 1, "gin": int(mine and result["gin"]),
            "knock": int(mine and not result["gin"]),
            "undercut": int(mine and result["undercut"]),
            "won": int(result["winner"] == seat)}


# rate name -> (numerator count, denominator count) of ``hand_metric``
HAND_RATES = {"gin_rate": ("gin", "hands"), "knock_rate": ("knock", "hands"),
              "undercut_rate": ("undercut", "knock"), "hand_win_rate": ("won", "hands")}
