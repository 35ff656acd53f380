"""Per-game metrics of a learned bot, from the hand results of tournament game logs.

Win rate, mean score and average rank come from the tournament summary for
every game. A game adds its own numbers by putting a function in
``HAND_METRICS``: it takes one hand result (the ``to_dict`` form in a game log)
and the seat, and returns counts; ``summarize`` turns the summed counts into
rates by the ``RATES`` entries of the game (numerator, denominator). E.g. Gin
Rummy would count ``hands``, ``gin`` and ``knock`` wins and rate ``gin/hands``;
nothing else in the training code needs to change. Average rank (what Sevens is
judged by) is in every game's tournament summary already.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable

HandMetric = Callable[[dict, int], dict[str, int]]


def spades_hand(result: dict, seat: int) -> dict[str, int]:
    """Bids made exactly (non-nil bids whose tricks equal the bid) and nils made (0 tricks)."""
    bid, tricks = result["bids"][seat], result["tricks"][seat]
    if bid == 0:
        return {"hands": 1, "nil_bids": 1, "nil_made": int(tricks == 0)}
    return {"hands": 1, "bids": 1, "bid_exact": int(tricks == bid), "bid_made": int(tricks >= bid)}


def gin_rummy_hand(result: dict, seat: int) -> dict[str, int]:
    """Hands ended by this seat going gin or knocking, knocks undercut, and hands won."""
    mine = result["knocker"] == seat
    return {"hands": 1, "gin": int(mine and result["gin"]),
            "knock": int(mine and not result["gin"]),
            "undercut": int(mine and result["undercut"]),
            "won": int(result["winner"] == seat)}


HAND_METRICS: dict[str, HandMetric] = {"spades": spades_hand, "gin_rummy": gin_rummy_hand}
# rate name -> (numerator count, denominator count), per game
RATES: dict[str, dict[str, tuple[str, str]]] = {
    "spades": {"bid_accuracy": ("bid_exact", "bids"), "bid_made_rate": ("bid_made", "bids"),
               "nil_success": ("nil_made", "nil_bids"), "nil_rate": ("nil_bids", "hands")},
    "gin_rummy": {"gin_rate": ("gin", "hands"), "knock_rate": ("knock", "hands"),
                  "undercut_rate": ("undercut", "knock"), "hand_win_rate": ("won", "hands")},
}


def hand_counts(game: str, logs: Iterable[dict], bot: str) -> Counter:
    """Summed counts of ``game``'s hand metric over every seat where ``bot`` sat."""
    fn = HAND_METRICS.get(game)
    total: Counter = Counter()
    if fn is None:
        return total
    for log in logs:
        for seat, name in enumerate(log["seats"]):
            if name == bot:
                for result in log.get("hand_results") or []:
                    total.update(fn(result, seat))
    return total


def rates(game: str, counts: Counter) -> dict[str, float]:
    """The game's rates from counts (a rate whose denominator is 0 is left out)."""
    return {name: counts[num] / counts[den]
            for name, (num, den) in RATES.get(game, {}).items() if counts[den]}
