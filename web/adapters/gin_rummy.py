"""Gin Rummy on the web table: hands and the stock are secret, the rest is open.

Everyone sees a discard (which card), a draw from the discard pile (which card:
it was face up) and a draw from the stock (not which card). A knock or the
stock running out ends the hand; the event then says so, and the hand's summary
(the knocker's melds, every player's layoffs and deadwood) is public in every
view's ``last_hand``. Nobody's final hand beyond that is shown: the engine's
views do not show it either (RULES.md section 2).
"""

from __future__ import annotations

from envs import cards
from envs.gin_rummy.actions import DRAW_STOCK, TAKE_DISCARD, action_card, is_knock
from envs.gin_rummy.engine import GinRummyState
from web.adapters import WebAdapter


class GinRummyAdapter(WebAdapter):
    def spectator_view(self, state: GinRummyState) -> dict:
        view = state.view(0).to_dict()
        view["seat"] = None
        view["hand"] = []
        return view

    def snapshot(self, state: GinRummyState, seat: int) -> tuple[int | None, int]:
        """The pile's top card and the hand number: what a move's event is built from."""
        return (state.pile[-1] if state.pile else None), state.hand_number

    def public_event(self, before: tuple[int | None, int], state: GinRummyState, seat: int,
                     action: int) -> dict:
        top, hand_number = before
        if action == DRAW_STOCK:
            return {"seat": seat, "kind": "draw", "source": "stock"}
        if action == TAKE_DISCARD:
            return {"seat": seat, "kind": "draw", "source": "pile", "card": cards.name(top)}
        event = {"seat": seat, "kind": "knock" if is_knock(action) else "discard",
                 "card": cards.name(action_card(action))}
        if state.hand_number != hand_number or state.is_over:
            event["hand_over"] = True  # the summary is the views' last_hand
        return event


ADAPTER = GinRummyAdapter()
