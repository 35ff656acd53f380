"""Gin Rummy on the web table: hands and the stock are secret, the rest is open.

Everyone sees a discard (which card), a draw from the discard pile (which card:
it was face up) and a draw from the stock (not which card). A knock or the
stock running out ends the hand; the event then says so, and the hand's summary
(the knocker's melds, every player's layoffs and deadwood) is public in every
view's ``last_hand``. A knocker lays the whole hand down, as at a real table,
so the knock's event also names the knocker's deadwood cards; the other
players' final hands are not shown (the engine's views do not show them
either, docs/rules.md section 2).
"""

from __future__ import annotations

from cardrl.envs import cards
from cardrl.envs.gin_rummy.actions import DRAW_STOCK, TAKE_DISCARD, action_card, is_knock
from cardrl.envs.gin_rummy.engine import GinRummyState
from cardrl.web.adapters import WebAdapter


class GinRummyAdapter(WebAdapter):
    def spectator_view(self, state: GinRummyState) -> dict:
        view = state.view(0).to_dict()
        view["seat"] = None
        view["hand"] = []
        return view

    def snapshot(self, state: GinRummyState, seat: int) -> tuple:
        """The pile's top card, the hand number and the mover's hand: what a move's event
        is built from."""
        return (state.pile[-1] if state.pile else None), state.hand_number, \
            tuple(state.hands[seat])

    def public_event(self, before: tuple, state: GinRummyState, seat: int,
                     action: int) -> dict:
        top, hand_number, hand = before
        if action == DRAW_STOCK:
            return {"seat": seat, "kind": "draw", "source": "stock"}
        if action == TAKE_DISCARD:
            return {"seat": seat, "kind": "draw", "source": "pile", "card": cards.name(top)}
        event = {"seat": seat, "kind": "knock" if is_knock(action) else "discard",
                 "card": cards.name(action_card(action))}
        if state.hand_number != hand_number or state.is_over:
            event["hand_over"] = True  # the summary is the views' last_hand
            event["hold"] = True  # shown until the players go on
            result = state.results[-1]
            if is_knock(action) and result.knocker == seat:
                melded = {c for meld in result.knocker_melds for c in meld}
                kept = [c for c in hand if c != action_card(action) and c not in melded]
                event["knocker_deadwood"] = cards.names(sorted(kept))
        return event


ADAPTER = GinRummyAdapter()
