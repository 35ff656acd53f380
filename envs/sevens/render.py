"""A readable text table of a Sevens view (``render_mode="ansi"``)."""

from __future__ import annotations

from cardrl.envs import cards
from cardrl.envs.sevens.rules import SYMBOLS
from cardrl.envs.sevens.view import SevensView


def card_text(card_id: int) -> str:
    return cards.RANKS[cards.rank_of(card_id)] + cards.SUIT_SYMBOLS[cards.suit_of(card_id)]


def render(view: SevensView) -> str:
    p = view.params
    vals = " ".join(f"{s}={'/'.join(map(str, v))}" for s, v in zip(SYMBOLS, p.values, strict=True))
    lines = [f"Sevens ({view.rules.preset}, {view.num_players} players) - total {view.total}, "
             f"last card {card_text(view.last_card)}"
             + (f", player_{view.current_player} to play" if view.current_player is not None
                else ", game over"),
             f"values: {vals}",
             f"points: divisible by 7 {p.points[0]:+d}, contains 7 {p.points[1]:+d}, "
             f"both {p.points[2]:+d}",
             "table: " + " ".join(card_text(c) for c in view.table)]
    recent = view.plays[-view.num_players:]
    if recent:
        lines.append("recent: " + "  ".join(f"p{s} {card_text(c)}({v:+d})" for s, c, v in recent))
    lines.append(f"{'seat':<11}{'points':>7}{'cards':>7}")
    for seat in range(view.num_players):
        mark = "*" if seat == view.seat else " "
        lines.append(f"{mark}player_{seat:<3}{view.scores[seat]:>7}{view.hand_sizes[seat]:>7}")
    lines.append(f"player_{view.seat} hand: "
                 + (" ".join(card_text(c) for c in view.hand) or "(empty)"))
    if view.winners:
        lines.append("winner: " + ", ".join(f"player_{w}" for w in view.winners))
    return "\n".join(lines)
