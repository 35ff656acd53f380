"""Spades on the web table: everything but the four hands is public.

A card played, a bid, the trick on the table and its winner are seen by all
(docs/rules.md section 1). The event of the card that ends a trick carries the four
cards and the winner, because the view after it may already belong to the
next hand, and the table keeps a finished trick in sight until the player
asks for the next one (A3.3): the event says ``hold``. The event of the card
that ends a hand also carries each player's points in parts (bid made,
overtricks, bags, nil: ``cardrl.envs.spades.scoring.score_parts``) for the summary.
The table's marks: who leads the trick, and whether spades are broken where
the rules forbid leading them before.
"""

from __future__ import annotations

from typing import NamedTuple

from cardrl.envs import cards
from cardrl.envs.spades.actions import action_card, action_name, is_bid
from cardrl.envs.spades.engine import SpadesState
from cardrl.envs.spades.rules import NUM_PLAYERS
from cardrl.envs.spades.scoring import score_parts
from cardrl.web.adapters import WebAdapter


class Before(NamedTuple):
    """What a move's event needs of the table before it (cheaper than a whole view)."""

    trick: tuple  # (seat, card) of the cards on the table
    hand_number: int
    tricks: tuple  # tricks taken per seat


class SpadesAdapter(WebAdapter):
    def spectator_view(self, state: SpadesState) -> dict:
        view = state.view(0).to_dict()
        view["seat"] = None
        view["hand"] = []
        return view

    def snapshot(self, state: SpadesState, seat: int) -> Before:
        plays, trick = state.plays, state.trick
        return Before(tuple(plays[len(plays) - len(trick):]) if trick else (),
                      state.hand_number, tuple(state.tricks))

    def public_event(self, before: Before, state: SpadesState, seat: int,
                     action: int) -> dict:
        event = {"seat": seat, "action": action, "name": action_name(action)}
        if is_bid(action) or len(before.trick) < NUM_PLAYERS - 1:
            return event
        plays = [*before.trick, (seat, action_card(action))]
        if state.hand_number == before.hand_number:
            winner = state.last_trick_winner
        else:  # the trick ended the hand: its winner is the seat whose count went up
            taken = state.results[-1].tricks
            winner = next(s for s in range(NUM_PLAYERS) if taken[s] > before.tricks[s])
        event["trick"] = [[s, cards.name(c)] for s, c in plays]
        event["winner"] = winner
        event["hand_over"] = state.hand_number != before.hand_number or state.is_over
        event["hold"] = True
        if event["hand_over"]:
            result = state.results[-1]
            event["breakdown"] = [
                [[what, points] for what, points in score_parts(
                    state.rules, result.bids[s], result.tricks[s], result.bag_penalties[s])]
                for s in range(NUM_PLAYERS)]
        return event

    def marks(self, state: SpadesState) -> dict:
        playing = state.phase == "play"
        notes = []
        if state.rules.spades_must_be_broken and playing:
            notes.append("spades broken" if state.spades_broken else "spades not broken yet")
        return {"leader": state.leader if playing else None, "notes": notes}


ADAPTER = SpadesAdapter()
