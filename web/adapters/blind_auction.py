"""Blind Auction on the web table: sealed bids stay sealed until the round resolves.

A bid is announced only as "seat N has bid" (the event carries no action and no
card) until the last bid of the round; that move's event reveals the round:
every bid, the prize turned up and who took what. A watcher sees what every
seat sees in common: the cards each seat has not shown (a pending bid is still
among them), who has bid, the resolved rounds, the prizes still face down as a
set (their order stays hidden), scores; never a seat's own pending bid.
"""

from __future__ import annotations

from cardrl.envs.blind_auction.engine import BlindAuctionState
from cardrl.web.adapters import WebAdapter


class BlindAuctionAdapter(WebAdapter):
    def spectator_view(self, state: BlindAuctionState) -> dict:
        view = state.view(0).to_dict()
        view["seat"] = None
        view["hand"] = []
        view["chosen"] = None
        return view

    def snapshot(self, state: BlindAuctionState, seat: int) -> int:
        return len(state.rounds)

    def public_event(self, before: int, state: BlindAuctionState, seat: int,
                     action: int) -> dict:
        if len(state.rounds) == before:
            return {"seat": seat, "kind": "bid"}
        return {"seat": seat, "kind": "bid", "resolved": state.rounds[-1].to_dict(),
                "hold": True}  # the revealed round stays on screen until the players go on


ADAPTER = BlindAuctionAdapter()
