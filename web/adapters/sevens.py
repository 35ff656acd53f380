"""Sevens on the web table: only the hands are secret (docs/rules.md section 3).

A play is public: the card, the value it was played at, the new running total
and the points it earned, so the event says all of it.
"""

from __future__ import annotations

from cardrl.envs import cards
from cardrl.envs.sevens.engine import SevensState
from cardrl.web.adapters import WebAdapter


class SevensAdapter(WebAdapter):
    def spectator_view(self, state: SevensState) -> dict:
        view = state.view(0).to_dict()
        view["seat"] = None
        view["hand"] = []
        return view

    def snapshot(self, state: SevensState, seat: int) -> int:
        return state.scores[seat]

    def public_event(self, before: int, state: SevensState, seat: int, action: int) -> dict:
        _, card, value = state.plays[-1]  # the move just made
        return {"seat": seat, "card": cards.name(card), "value": value, "total": state.total,
                "points": state.scores[seat] - before}


ADAPTER = SevensAdapter()
