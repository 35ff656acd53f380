"""Per-game metrics of a learned bot, from the hand results of tournament game logs.

Win rate, mean score and average rank come from the tournament summary for
every game. A game adds its own numbers in its declaration (``cardrl.envs.games.Game``):
``hand_metric`` takes one hand result (the ``to_dict`` form in a game log) and the
seat and returns counts, and ``hand_rates`` names rates of those counts
(numerator, denominator); e.g. Gin Rummy counts ``hands``, ``gin`` and ``knock``
wins and rates ``gin/hands``. Nothing here names a game.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from cardrl.envs.games import get_game


def hand_counts(game: str, logs: Iterable[dict], bot: str) -> Counter:
    """Summed counts of ``game``'s hand metric over every seat where ``bot`` sat."""
    fn = get_game(game).hand_metric
    total: Counter = Counter()
    for log in logs:
        for seat, name in enumerate(log["seats"]):
            if name == bot:
                for result in log.get("hand_results") or []:
                    total.update(fn(result, seat))
    return total


def rates(game: str, counts: Counter) -> dict[str, float]:
    """The game's rates from counts (a rate whose denominator is 0 is left out)."""
    return {name: counts[num] / counts[den]
            for name, (num, den) in get_game(game).hand_rates.items() if counts[den]}
