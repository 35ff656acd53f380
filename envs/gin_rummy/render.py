"""A readable text table of a Gin Rummy view (``render_mode="ansi"``)."""

from __future__ import annotations

from cardrl.envs import cards
from cardrl.envs.gin_rummy.melds import best_split, cards_of, deadwood, mask_of, rank_low
from cardrl.envs.gin_rummy.view import GinRummyView


def _names(ids) -> str:
    return " ".join(cards.names(ids)) or "-"


def hand_text(hand) -> str:
    """A hand by suit, ace low, low to high: runs read left to right."""
    groups = []
    for suit in range(4):
        ranks = [cards.RANKS[cards.rank_of(c)]
                 for c in sorted((c for c in hand if cards.suit_of(c) == suit), key=rank_low)]
        if ranks:
            groups.append(cards.SUIT_SYMBOLS[suit] + " " + " ".join(ranks))
    return "  ".join(groups) or "(empty)"


def render(view: GinRummyView) -> str:
    r = view.rules
    n = view.num_players
    lines = [f"Gin Rummy ({r.preset}, {n} players) - hand {view.hand_number}, dealer "
             f"player_{view.dealer}, {view.phase}"
             + (f", player_{view.current_player} to act" if view.current_player is not None
                else "")]
    lines.append(f"stock {view.stock_size}  pile ({len(view.pile)}) top: "
                 f"{cards.name(view.top) if view.top is not None else '-'}"
                 + (f"  taken this turn: {cards.name(view.taken)}" if view.taken is not None
                    else ""))
    lines.append(f"{'seat':<10}{'score':>7}  known in hand / discarded")
    for seat in range(n):
        mark = "*" if seat == view.seat else " "
        lines.append(f"{mark}player_{seat:<2}{view.scores[seat]:>7}  "
                     f"{_names(view.known[seat])} / {_names(view.discarded[seat])}")
    mask = mask_of(view.hand)
    melds = "  ".join("[" + _names(cards_of(m)) + "]" for m in best_split(mask))
    lines.append(f"player_{view.seat} hand: {hand_text(view.hand)}")
    lines.append(f"melds: {melds or '-'}  deadwood {deadwood(mask)}")
    last = view.last_hand
    if last is not None:
        if last.dead:
            lines.append(f"last hand ({last.hand_number}): dead, the stock ran out")
        else:
            how = "gin" if last.gin else ("undercut" if last.undercut else "knock")
            winner = last.winner
            assert winner is not None  # a knock has a winner
            lines.append(f"last hand ({last.hand_number}): player_{last.knocker} knocked, "
                         f"{how}; player_{winner} scored {last.points[winner]}; "
                         f"deadwood {list(last.deadwood)}")
    if view.winners:
        lines.append("winner: " + ", ".join(f"player_{w}" for w in view.winners))
    return "\n".join(lines)
