"""Gin Rummy rule bots (``gin_rummy/...``; ``BOTS`` is the table the registry reads).

    gin_rummy/simple   the simple baseline of the Gin Rummy AI challenges (Neller's
                       SimpleGinRummyPlayer: random ties, no repeated draw/discard)
    gin_rummy/expert   tracks the others' picks and discards, looks one draw ahead,
                       discards safely, knocks early or waits for gin by the rules
"""

from cardrl.agents.gin_rummy.expert import ExpertBot
from cardrl.agents.gin_rummy.simple import SimpleBot

# bot name -> (factory, help): what ``cardrl.agents.registry`` offers
BOTS = {
    "gin_rummy/simple": (
        SimpleBot,
        "simple baseline (Neller's SimpleGinRummyPlayer): take the up card only to meld, "
        "discard a random card of those leaving least deadwood (never the card just taken, "
        "never repeating a {drawn, discarded} pair of the hand), knock at once; options "
        "ties=random|highest (highest: the old deterministic bot, highest card, repeats "
        "allowed), no_repeat=true|false"),
    "gin_rummy/expert": (
        ExpertBot,
        "card tracking, one-draw look-ahead discards avoiding cards the next player wants, "
        "knocks by the rules (early, or waits for gin where undercuts pay); options "
        "knock=auto|early|gin|patient, patience=, danger=, ready=, take_margin=, opening="),
}

__all__ = ["BOTS", "SimpleBot", "ExpertBot"]
