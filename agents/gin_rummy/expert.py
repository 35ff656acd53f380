"""A stronger Gin Rummy rule player: card tracking, look-ahead discards, rule-aware knocks.

* Discard: each legal discard is scored by the deadwood the kept hand is
  expected to have after one more draw of an unseen card and the best discard
  (``Knowledge.expected_deadwood``), less ``ready`` for each such draw that would
  let this player knock by its own threshold (``ready`` plus the gin bonus for a
  draw that makes gin when it waits for gin), plus ``danger`` x how
  much the next player (the only one who can take it) wants the card: it
  completes a meld with cards that player took from the pile; it lies near them;
  less for cards near what it threw away; nothing for a card no meld is left for.
* Draw: take the up card when the hand after the best discard beats the
  expected result of a stock draw by ``take_margin`` points (taking shows the
  card to everyone).
* Knock (``knock=``): ``early`` knocks as soon as the rules allow; ``gin`` waits
  for gin; ``patient`` knocks at the rules' limit for ``patience`` turns and then
  at one point less per turn; ``auto`` (default) picks ``gin`` when the rules
  reward the defender (an undercut bonus, or ties going to the defender: the
  standard preset), where a knocker with deadwood is often undercut after
  layoffs, and ``early`` otherwise (the seed rules: the knocker wins ties, so
  the first to knock nearly always wins the hand). Knocking discards the card
  that leaves the least deadwood.
* Opening (``opening=``): waiting for gin, it still knocks at the rules' limit
  during its first ``opening`` discards, while the other hand is rarely formed
  (mid-hand a hand waiting for gin is low, and a knock there is undercut). How the
  settings were chosen: docs/results.md, "What was tried".
"""

from __future__ import annotations

from collections.abc import Sequence

from cardrl.agents.base import Bot
from cardrl.agents.gin_rummy.simple import discard_choices
from cardrl.envs.gin_rummy.actions import (
    DRAW_STOCK,
    KNOCK_OFFSET,
    TAKE_DISCARD,
    discard_action,
    knock_action,
)
from cardrl.envs.gin_rummy.melds import CARD_BIT, deadwood, knock_discard, mask_of
from cardrl.envs.gin_rummy.rules import GinRummyRules
from cardrl.envs.gin_rummy.tracking import Knowledge
from cardrl.envs.gin_rummy.view import GinRummyView

KNOCK_STYLES = ("auto", "early", "gin", "patient")


def defender_favoured(rules: GinRummyRules) -> bool:
    """Whether the rules reward the defender of a knock (undercut bonus or ties)."""
    return rules.undercut_bonus > 0 or not rules.knocker_wins_ties


class ExpertBot(Bot):
    """Tracks what the others take and throw; deterministic, reads only its view."""

    game = "gin_rummy"

    def __init__(self, seed: int | None = None, knock: str = "auto", patience: int = 6,
                 danger: float = 1.0, ready: float = 10.0, take_margin: float = 0.5,
                 opening: int = 5) -> None:
        super().__init__(seed)
        if knock not in KNOCK_STYLES:
            raise ValueError(f"bad value {knock!r} for gin_rummy/expert option 'knock'; "
                             f"choose from {', '.join(KNOCK_STYLES)}")
        if isinstance(opening, bool) or not isinstance(opening, int) or opening < 0:
            raise ValueError(f"gin_rummy/expert option opening must be an integer >= 0, "
                             f"got {opening!r}")
        for name, value in (("patience", patience), ("danger", danger), ("ready", ready),
                            ("take_margin", take_margin)):
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise ValueError(f"gin_rummy/expert option {name} must be a number >= 0, "
                                 f"got {value!r}")
        self.style, self.patience, self.opening = knock, patience, opening
        self.w_danger, self.w_ready, self.take_margin = float(danger), float(ready), take_margin

    # ------------------------------------------------------------------ draw
    def wants_up_card(self, know: Knowledge) -> bool:
        top = know.view.top
        assert top is not None  # the up card, or the last discard, to take
        taken = know.value_of_taking(top)
        return taken < know.expected_deadwood(know.hand) - self.take_margin

    # --------------------------------------------------------------- discard
    def discard_score(self, know: Knowledge, card: int) -> float:
        rules = know.view.rules
        aim = self.knock_threshold(know.view)
        # a draw counts as ready when it lets this player knock by its own threshold;
        # one that makes gin also ends the hand with the gin bonus
        weight = self.w_ready + (rules.gin_bonus if aim == 0 else 0)
        kept = know.hand ^ CARD_BIT[card]
        return (know.expected_deadwood(kept, aim, weight)
                + self.w_danger * know.danger(card))

    # ----------------------------------------------------------------- knock
    def knock_threshold(self, view: GinRummyView, knocking: bool = False) -> int:
        """The most deadwood this player aims for, or (``knocking``) knocks with, now."""
        limit = view.rules.knock_limit
        limit = 10 if limit is None else limit  # "any deadwood": still knock only when low
        style = self.style
        if style == "auto":
            style = "gin" if defender_favoured(view.rules) else "early"
        if style == "gin":
            return limit if knocking and len(view.discarded[view.seat]) < self.opening else 0
        if style == "early":
            return limit
        return limit - max(0, len(view.discarded[view.seat]) - self.patience)

    def act(self, view: GinRummyView, legal_actions: Sequence[int]) -> int:
        if view.phase == "draw":
            if TAKE_DISCARD in legal_actions and self.wants_up_card(Knowledge(view)):
                return TAKE_DISCARD
            return DRAW_STOCK
        mask = mask_of(view.hand)
        knocks = [a - KNOCK_OFFSET for a in legal_actions if a >= KNOCK_OFFSET]
        if knocks:
            after = {c: deadwood(mask ^ CARD_BIT[c]) for c in knocks}
            card = knock_discard(after, knocks)
            if after[card] <= self.knock_threshold(view, knocking=True):
                return knock_action(card)
        know = Knowledge(view)
        card = min(discard_choices(legal_actions), key=lambda c: (self.discard_score(know, c), c))
        return discard_action(card)
