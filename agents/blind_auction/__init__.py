"""Bots for blind_auction (``BOTS``, the registry's table): rule heuristics and the
exact equilibrium.

    blind_auction/match, high-early, save-high, mirror    rule bots (heuristics.py)
    blind_auction/equilibrium                             exact Nash equilibrium (2 players,
                                                          small decks; equilibrium.py)

``exploit.py`` computes any bot's exploitability exactly, ``exploitability.py`` prints it
(``python -m cardrl.agents.blind_auction.exploitability``).
"""

from cardrl.agents.blind_auction.equilibrium import MAX_CARDS, EquilibriumBot
from cardrl.agents.blind_auction.heuristics import HEURISTICS

# bot name -> (factory, help): what ``cardrl.agents.registry`` offers
BOTS = {
    **HEURISTICS,
    "blind_auction/equilibrium": (
        EquilibriumBot, "exact Nash equilibrium of the score difference (2 players, "
                        f"cards_per_suit up to {max(MAX_CARDS.values())})"),
}

# the strongest rule bots first, for the full 13-card game (the equilibrium bot
# only solves small decks; the ranking: docs/results.md, "What was tried")
