"""A readable text table of a Blind Auction view (``render_mode="ansi"``)."""

from __future__ import annotations

from cardrl.envs import cards
from cardrl.envs.blind_auction.view import BlindAuctionView


def _ranks(ids) -> str:
    return " ".join(cards.RANKS[c % 13] for c in sorted(ids)) or "-"


def render(view: BlindAuctionView) -> str:
    r = view.rules
    turn = ("game over" if view.is_over
            else f"round {view.round_number}/{r.cards_per_suit}, player_{view.current_player} "
                 "to bid")
    lines = [f"Blind Auction ({r.num_players} players, ties {r.tie_rule}, "
             f"{r.cards_per_suit} cards a suit) - {turn}"]
    lines.append(f"{'seat':<10}{'score':>7}  {'bid':<4} cards not yet shown")
    for seat in range(r.num_players):
        mark = "*" if seat == view.seat else " "
        bid = "?" if view.acted[seat] else ""
        if seat == view.seat and view.chosen is not None:
            bid = cards.name(view.chosen)
        lines.append(f"{mark}player_{seat:<2}{view.scores[seat]:>7g}  {bid:<4} "
                     f"{_ranks(view.remaining[seat])}")
    if view.rounds:
        last = view.rounds[-1]
        to = ", ".join(f"player_{s}" for s in last.scorers) or (
            "carried" if last.carried else "nobody")
        lines.append(f"last round: prize {cards.name(last.prize)}, bids "
                     f"{' '.join(cards.names(last.bids))} -> {to}")
    if view.carried:
        lines.append(f"carried prizes: {' '.join(cards.names(view.carried))}")
    lines.append(f"prizes still face down: {_ranks(view.prizes_left)}")
    if view.winners:
        lines.append("winner: " + ", ".join(f"player_{w}" for w in view.winners))
    return "\n".join(lines)
