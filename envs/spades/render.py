"""A readable text table of a Spades view (``render_mode="ansi"``)."""

from __future__ import annotations

from cardrl.envs import cards
from cardrl.envs.spades.view import SpadesView


def hand_text(hand: tuple[int, ...]) -> str:
    """Own hand by suit, alternating colours, high to low (A3.4, A3.5)."""
    groups = []
    for suit in (cards.SPADES, cards.HEARTS, cards.CLUBS, cards.DIAMONDS):
        ranks = [cards.RANKS[cards.rank_of(c)] for c in sorted(hand, reverse=True)
                 if c < 52 and cards.suit_of(c) == suit]
        if ranks:
            groups.append(cards.SUIT_SYMBOLS[suit] + " " + " ".join(ranks))
    jokers = [cards.name(c) for c in sorted(hand, reverse=True) if c >= 52]
    return "  ".join(([" ".join(jokers)] if jokers else []) + groups) or "(empty)"


def render(view: SpadesView) -> str:
    r = view.rules
    lines = [f"Spades ({r.preset}) - hand {view.hand_number}, dealer player_{view.dealer}, "
             f"{view.phase}" + (f", player_{view.current_player} to act"
                                if view.current_player is not None else "")]
    lines.append(f"{'seat':<10}{'score':>7}{'bags':>6}{'bid':>5}{'tricks':>8}  on table")
    on_table = dict(view.trick)
    for seat in range(4):
        bid = view.bids[seat]
        bid_text = "-" if bid is None else ("nil" if bid == 0 else str(bid))
        mark = "*" if seat == view.seat else " "
        lines.append(f"{mark}player_{seat:<2}{view.scores[seat]:>7}{view.bags[seat]:>6}"
                     f"{bid_text:>5}{view.tricks[seat]:>8}  "
                     f"{cards.name(on_table[seat]) if seat in on_table else ''}")
    if view.last_trick:
        last = " ".join(f"{cards.name(c)}(p{s})" for s, c in view.last_trick)
        lines.append(f"last trick: {last} -> player_{view.last_trick_winner}")
    lines.append(f"spades broken: {'yes' if view.spades_broken else 'no'}")
    lines.append(f"player_{view.seat} hand: {hand_text(view.hand)}")
    if view.winners:
        lines.append("winner: " + ", ".join(f"player_{w}" for w in view.winners))
    return "\n".join(lines)
