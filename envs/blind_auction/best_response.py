"""Exact exploitability of policies that read Blind Auction's observation (2 players, small decks).

A trained network does not act on the public state alone (``cardrl.agents.blind_auction.tree``):
its observation also holds who won what, the last round and the scores. So the
best response here walks the game's histories: every prize order and every pair of
bids, round by round, asking the policies once per round start and seat for their
mix (seat 1 asked from a view where seat 0 has bid, but not what). With two players
every past bid and prize is public, so a history is the responder's whole
information, and its best reply at each one is exact.

* One policy: histories whose observations are equal (same cards left, prizes won,
  last round, scores) have the same future, so they are merged: a few thousand
  nodes for ``cards_per_suit`` 5.
* Several policies with weights (the average of past policies, as fictitious play
  draws one per game): the mix at a history weighs each policy by the chance that it
  made the bids seen so far, so histories are not merged; up to 4 cards per suit.

Exploitability, as ``cardrl.agents.blind_auction.exploit`` reports it: the mean over the
policy's two seats of the expected score margin an exact best response wins
against it (0 for an equilibrium; the game's value is 0 by symmetry). This is the
``Game.exploitability`` hook that generic training code calls (``cardrl.train.exploit``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from cardrl.envs.blind_auction.actions import NUM_ACTIONS
from cardrl.envs.blind_auction.engine import BlindAuctionState
from cardrl.envs.blind_auction.rules import BlindAuctionRules
from cardrl.envs.encoding import Encoder

# (observations (N, D) float32, legal masks (N, A) bool) -> probabilities (N, A)
Probs = Callable[[np.ndarray, np.ndarray], np.ndarray]
MAX_CARDS = {"one": 5, "mix": 4}  # merged histories / every history (they grow as (k!)^3)


def check_rules(rules: BlindAuctionRules, policies: int = 1) -> None:
    """Raise ValueError, naming the value, unless these rules are covered here."""
    kind = "one" if policies <= 1 else "mix"
    if rules.num_players != 2 or rules.cards_per_suit > MAX_CARDS[kind]:
        raise ValueError(
            f"exact exploitability covers 2 players with cards_per_suit up to "
            f"{MAX_CARDS[kind]} for {'one policy' if kind == 'one' else 'a mix of policies'}; "
            f"got {rules.num_players} players, cards_per_suit {rules.cards_per_suit}")


class _Level:
    """The round starts with ``k`` cards left per seat: states, then what their round leads
    to (``build_levels`` fills it in)."""

    def __init__(self, states: list[BlindAuctionState], k: int) -> None:
        self.states = states
        shape = (len(states), k, k, k)
        self.margin = np.empty(shape)  # (S, k, k, k): seat 0 minus seat 1, (a, b, prize)
        self.child = np.full(shape, -1, dtype=np.int64)  # (S, k, k, k): index into the next


def build_levels(rules: BlindAuctionRules, encoder: Encoder, merge: bool) -> list[_Level]:
    """Every history (merged by observation when ``merge``), level by level from the root."""
    levels = [_Level([BlindAuctionState(rules, 0)], rules.cards_per_suit)]
    for k in range(rules.cards_per_suit, 0, -1):
        level = levels[-1]
        below: list[BlindAuctionState] = []
        index: dict[bytes, int] = {}
        for s, state in enumerate(level.states):
            prizes = sorted(state.prizes[state.round:])
            for i, a in enumerate(state.hands[0]):
                for j, b in enumerate(state.hands[1]):
                    for q, prize in enumerate(prizes):
                        child = state.clone()
                        child.arrange_next_prize(prize)
                        child.apply(a)
                        child.apply(b)
                        points = child.rounds[-1].points
                        level.margin[s, i, j, q] = points[0] - points[1]
                        if k == 1:
                            continue
                        if merge:
                            key = encoder.encode(child.view(0)).tobytes()
                            at = index.get(key)
                            if at is None:
                                at = index[key] = len(below)
                                below.append(child)
                        else:
                            at = len(below)
                            below.append(child)
                        level.child[s, i, j, q] = at
        if k > 1:
            levels.append(_Level(below, k - 1))
    return levels


def level_inputs(level: _Level, encoder: Encoder, num_actions: int, seat: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(observations, masks, own ranks (S, k)) of ``seat`` at each state's round start."""
    states = level.states
    size = len(encoder.encode(states[0].view(seat)))
    obs = np.empty((len(states), size), np.float32)
    masks = np.zeros((len(states), num_actions), bool)
    ranks = np.array([st.hands[seat] for st in states], dtype=np.int64)
    for s, state in enumerate(states):
        if seat == 1:  # seat 1 bids second: it sees that seat 0 bid, not what
            state = state.clone()
            state.apply(state.hands[0][0])
        encoder.encode(state.view(seat), out=obs[s])
        masks[s, state.hands[seat]] = True
    return obs, masks, ranks


_WALKS: dict[tuple, tuple] = {}  # the last few walks, kept: a run measures one game many times


def _walk(rules: BlindAuctionRules, encoder: Encoder, merge: bool
          ) -> tuple[list[_Level], list[list[tuple]]]:
    """The levels and every level's inputs for both seats, built once per process."""
    key = (rules, encoder.kind, encoder.version, merge)
    if key not in _WALKS:
        levels = build_levels(rules, encoder, merge)
        inputs = [[level_inputs(lv, encoder, NUM_ACTIONS, seat) for seat in (0, 1)]
                  for lv in levels]
        while len(_WALKS) >= 4:
            del _WALKS[next(iter(_WALKS))]
        _WALKS[key] = levels, inputs
    return _WALKS[key]


def exploitability(rules: BlindAuctionRules, encoder: Encoder, policies: Sequence[Probs],
                   weights: Sequence[float] | None = None) -> dict:
    """The exploitability of ``policies`` mixed by ``weights`` (uniform when None): one is
    drawn per game and plays it all (module docstring). No policy: only check the rules
    (ValueError naming the value) and return {}."""
    check_rules(rules, len(policies))
    if not policies:
        return {}
    w = np.full(len(policies), 1.0 / len(policies)) if weights is None \
        else np.asarray(weights, float)
    if w.shape != (len(policies),) or (w < 0).any() or not w.sum() > 0:
        raise ValueError(f"weights must be {len(policies)} non-negative numbers, not all 0; "
                         f"got {weights!r}")
    w = w / w.sum()
    levels, inputs = _walk(rules, encoder, len(policies) == 1)
    # per level and seat: each policy's mix over the seat's ranks, (P, S, k)
    mixes = []
    for per_level in inputs:
        per_seat = []
        for obs, masks, ranks in per_level:
            if ranks.shape[1] == 1:  # the last round: one card left, nothing to ask
                per_seat.append(np.ones((len(policies), *ranks.shape)))
                continue
            probs = np.stack([np.asarray(p(obs, masks), float) for p in policies])
            mix = np.take_along_axis(probs, np.broadcast_to(ranks, probs.shape[:1] + ranks.shape),
                                     axis=2)
            per_seat.append(mix / mix.sum(axis=2, keepdims=True))
        mixes.append(per_seat)
    # the mix each seat's policy plays at every node: the weights times the chance that each
    # policy made that seat's bids so far (the reach), then its mix
    behaviour: list[list[np.ndarray]] = []  # [level][seat]
    reach = [np.ones((1, len(policies))), np.ones((1, len(policies)))]
    for d, level in enumerate(levels):
        behaviour.append([])
        for seat in (0, 1):
            r = reach[seat] * w  # (S, P)
            total = r.sum(axis=1, keepdims=True)
            prior = np.where(total > 0, r / np.where(total > 0, total, 1.0), w)
            behaviour[d].append(np.einsum("sp,psk->sk", prior, mixes[d][seat]))
        if d + 1 < len(levels):
            nxt = [np.empty((len(levels[d + 1].states), len(policies))) for _ in (0, 1)]
            child = level.child
            for seat in (0, 1):
                own = mixes[d][seat].transpose(1, 2, 0)  # (S, k, P)
                bid = own[:, :, None, None, :] if seat == 0 else own[:, None, :, None, :]
                r = reach[seat][:, None, None, None, :] * bid
                r = np.broadcast_to(r, child.shape + (len(policies),))
                nxt[seat][child.reshape(-1)] = r.reshape(-1, len(policies))
            reach = nxt
    # backward: the responder's best reply against each seat of the policy
    # seat 0's margin from each node on, with the policy in seat 0 / seat 1
    v0: np.ndarray | None = None
    v1: np.ndarray | None = None
    for d in range(len(levels) - 1, -1, -1):
        level = levels[d]
        m0 = level.margin if v0 is None else level.margin + v0[level.child]
        m1 = level.margin if v1 is None else level.margin + v1[level.child]
        m0, m1 = m0.mean(axis=3), m1.mean(axis=3)  # (S, k, k): the prize is uniform
        v0 = np.einsum("si,sij->sj", behaviour[d][0], m0).min(axis=1)
        v1 = np.einsum("sij,sj->si", m1, behaviour[d][1]).max(axis=1)
    assert v0 is not None and v1 is not None  # a level per card
    seat0, seat1 = -float(v0[0]), float(v1[0])
    value = (seat0 + seat1) / 2
    return {"exploitability": value, "fraction": value / rules.prize_total,
            "vs_seat0": seat0, "vs_seat1": seat1}
