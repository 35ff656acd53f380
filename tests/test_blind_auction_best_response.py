"""Exact exploitability of policies over Blind Auction's observation (``Game.exploitability``):
checked against the public-state solver (the LP equilibrium and the bots' exact values), and
its mix of policies against what a mix must satisfy."""

from __future__ import annotations

import numpy as np
import pytest

from cardrl import agents
from cardrl.agents.blind_auction.equilibrium import solution
from cardrl.agents.blind_auction.exploit import exploitability as bot_exploitability
from cardrl.agents.blind_auction.exploit import history_value
from cardrl.envs.blind_auction import best_response
from cardrl.envs.blind_auction.engine import BlindAuctionState
from cardrl.envs.blind_auction.infostate import INFOSTATE, OFFSETS, R
from cardrl.envs.blind_auction.rules import get_rules
from cardrl.envs.games import get_game


def _mask(row: np.ndarray, offset: int) -> int:
    return sum(1 << r for r in range(R) if row[offset + r] > 0.5)


def public_policy(mixes_of):
    """A policy over observations that plays ``mixes_of(seat, k, a, b, p, c)`` (over the
    seat's ranks ascending), decoding the public state from the observation: the observer
    is seat 1 exactly when the seat after it (seat 0) has bid this round."""
    def probs(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        out = np.zeros(masks.shape)
        for n, row in enumerate(obs):
            seat = 1 if row[OFFSETS["acted"] + 1] > 0.5 else 0
            own, other = _mask(row, OFFSETS["hand"]), _mask(row, OFFSETS["remaining"] + R)
            a, b = (own, other) if seat == 0 else (other, own)
            p, c = _mask(row, OFFSETS["prizes_left"]), _mask(row, OFFSETS["carried"])
            ranks = np.flatnonzero(masks[n])
            out[n, ranks] = mixes_of(seat, len(ranks), a, b, p, c)
        return out
    return probs


def equilibrium_policy(n: int, tie_rule: str):
    sol = solution(n, tie_rule)

    def mixes_of(seat, k, a, b, p, c):
        i = sol.tree.find(k, a, b, p, c)
        return (sol.row if seat == 0 else sol.col)[k][i]
    return public_policy(mixes_of)


def uniform(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    return masks / masks.sum(axis=1, keepdims=True)


def highest(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """high-early: its highest card (one-hot)."""
    out = np.zeros(masks.shape)
    out[np.arange(len(masks)), masks.shape[1] - 1 - masks[:, ::-1].argmax(axis=1)] = 1.0
    return out


def lowest(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    out = np.zeros(masks.shape)
    out[np.arange(len(masks)), masks.argmax(axis=1)] = 1.0
    return out


@pytest.mark.parametrize("tie_rule", ["carry", "discard"])
def test_the_equilibrium_is_unexploitable_and_bots_match_the_public_state_solver(tie_rule):
    """The LP's equilibrium, played from the observation, leaves a best response nothing; the
    random and high-early bidders give up exactly what the public-state calculator says."""
    rules = get_rules("2p", cards_per_suit=4, tie_rule=tie_rule)
    eq = best_response.exploitability(rules, INFOSTATE, [equilibrium_policy(4, tie_rule)])
    assert eq["exploitability"] == pytest.approx(0.0, abs=1e-9)
    for policy, bot in ((uniform, "random"), (highest, "blind_auction/high-early")):
        e = best_response.exploitability(rules, INFOSTATE, [policy])
        ref = bot_exploitability(agents.make(bot), rules)
        assert (e["vs_seat0"], e["vs_seat1"]) == pytest.approx((ref.seat0, ref.seat1), abs=1e-9)
    assert best_response.exploitability(rules, INFOSTATE, [highest])["exploitability"] > 1


def mixture_probs(components, weights):
    """(view, legal) -> the mix of one of ``components`` ((view, legal) -> probs) drawn per
    game by ``weights``, computed from the view alone: each weighed by the chance that it made
    the seat's bids so far, replayed round by round (an independent reading of the walk)."""
    def probs(view, legal):
        seat = view.seat
        state = BlindAuctionState(view.rules, 0)
        post = np.array(weights, float)
        for rnd in view.rounds:
            state.arrange_next_prize(rnd.prize)
            bids = [c % 13 for c in rnd.bids]
            if seat == 1:
                state.apply(bids[0])
            mine = state.view(seat), state.legal_actions()
            post *= [f(*mine)[mine[1].index(bids[seat])] for f in components]
            if seat == 0:
                state.apply(bids[0])
            state.apply(bids[1])
        post /= post.sum()
        return sum(p * np.asarray(f(view, legal)) for p, f in zip(post, components, strict=True))
    return probs


def test_a_mix_of_policies_is_exact():
    """A mix drawn per game: each policy weighed by the chance that it made the bids so far.
    The walk agrees with an exact best response over every history (``history_value``) to a
    bot that works the mix out from its view; a mix of a policy with itself, or with weight 0
    on the other, is that policy."""
    rules = get_rules("2p", cards_per_suit=3, tie_rule="carry")
    high = agents.make("blind_auction/high-early")
    bots = [lambda view, legal: np.full(len(legal), 1.0 / len(legal)), high.action_probs]
    mix = best_response.exploitability(rules, INFOSTATE, [uniform, highest], [0.3, 0.7])
    slow = mixture_probs(bots, [0.3, 0.7])
    root = BlindAuctionState(rules, 0)
    assert (mix["vs_seat0"], mix["vs_seat1"]) == pytest.approx(
        (-history_value(root, slow, 0), history_value(root, slow, 1)), abs=1e-9)
    rules = get_rules("2p", cards_per_suit=4, tie_rule="carry")
    one = best_response.exploitability(rules, INFOSTATE, [highest])["exploitability"]
    assert best_response.exploitability(rules, INFOSTATE, [highest, highest])[
        "exploitability"] == pytest.approx(one, abs=1e-9)
    assert best_response.exploitability(rules, INFOSTATE, [highest, lowest], [1, 0])[
        "exploitability"] == pytest.approx(one, abs=1e-9)


def test_the_hook_is_declared_and_names_what_it_does_not_cover():
    game = get_game("blind_auction")
    assert game.exploitability is best_response.exploitability
    assert all(get_game(g).exploitability is None for g in ("spades", "gin_rummy", "sevens"))
    assert game.exploitability(get_rules("2p", cards_per_suit=5), INFOSTATE, []) == {}
    with pytest.raises(ValueError, match="cards_per_suit 13"):
        game.exploitability(get_rules("2p"), INFOSTATE, [])
    with pytest.raises(ValueError, match="3 players"):
        game.exploitability(get_rules("3p", cards_per_suit=3), INFOSTATE, [])
    with pytest.raises(ValueError, match="a mix of policies"):
        game.exploitability(get_rules("2p", cards_per_suit=5), INFOSTATE, [uniform, uniform])
    with pytest.raises(ValueError, match="weights"):
        game.exploitability(get_rules("2p", cards_per_suit=3), INFOSTATE, [uniform], [-1])
