"""Worlds a Spades seat cannot tell apart: the other hands dealt from the unseen cards.

Each other seat gets as many cards as it still holds, none of a suit it has
shown void in, every such deal equally likely (``cardrl.envs.worlds.deal_unseen``).
``past_moves`` replays the hand's bids in a world, so that a search can weigh the
world by how likely the other seats' bids were with those cards.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from cardrl.envs import cards
from cardrl.envs.spades.engine import SUIT_TABLE, SpadesState
from cardrl.envs.spades.rules import HAND_SIZE, NUM_PLAYERS
from cardrl.envs.spades.view import SpadesView
from cardrl.envs.worlds import ANY_SUIT, deal_unseen


def sample_hands(view: SpadesView, rng: np.random.Generator, n: int = 1) -> list[list[list[int]]]:
    """``n`` samples of every seat's cards now: the view's own hand and a fitting deal of
    the unseen cards."""
    played = {c for _, c in view.plays}
    mine = set(view.hand)
    unseen = [c for c in cards.make_deck(view.rules.jokers) if c not in played and c not in mine]
    held = [HAND_SIZE] * NUM_PLAYERS
    for seat, _ in view.plays:
        held[seat] -= 1
    others = [s for s in range(NUM_PLAYERS) if s != view.seat]
    samples = []
    for dealt in deal_unseen(unseen, [held[s] for s in others],
                             [ANY_SUIT & ~view.voids[s] for s in others], SUIT_TABLE, rng, n):
        hands = [list(view.hand) if s == view.seat else [] for s in range(NUM_PLAYERS)]
        for s, h in zip(others, dealt, strict=True):
            hands[s] = h
        samples.append(hands)
    return samples


def sample_worlds(view: SpadesView, n: int, rng: np.random.Generator) -> list[SpadesState]:
    """``n`` full states that show ``view`` to its seat, hidden cards drawn from ``rng``."""
    return [SpadesState.from_view(view, hands, rng) for hands in sample_hands(view, rng, n)]


def past_moves(view: SpadesView, world: SpadesState
               ) -> list[tuple[SpadesView, list[int], int]]:
    """The other seats' bids this hand in ``world`` (a state showing ``view`` to its seat),
    in order: each the view its seat had, its legal bids and the bid. A bid says how many
    tricks a hand expects to take; the plays are left out: a network's values of the
    cards it may play differ by hundredths, so they hardly move a world's weight, and
    encoding them would double a search's time."""
    hands = [list(h) for h in world.hands]
    for seat, card in view.plays:  # the hand as dealt
        hands[seat].append(card)
    leader = (view.dealer + 1) % NUM_PLAYERS
    start = replace(view, phase="bid", current_player=leader, bids=(None,) * NUM_PLAYERS,
                    tricks=(0,) * NUM_PLAYERS, plays=(), trick=(), leader=leader,
                    spades_broken=False, voids=(0,) * NUM_PLAYERS, last_trick=(),
                    last_trick_winner=None)
    state = SpadesState.from_view(start, hands, 0)
    moves = []
    for seat in [(leader + i) % NUM_PLAYERS for i in range(NUM_PLAYERS)]:
        bid = view.bids[seat]
        if bid is None:
            break
        if seat != view.seat:
            moves.append((state.view(seat), state.legal_actions(), bid))
        state.apply(bid)
    return moves

