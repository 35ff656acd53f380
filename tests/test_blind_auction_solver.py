"""Exact analysis of 2-player Blind Auction: hand-calculated equilibria, best responses,
exploitability of every bot, and the command that prints it."""

import numpy as np
import pytest

from cardrl import agents
from cardrl.agents.blind_auction.equilibrium import EquilibriumBot, solution
from cardrl.agents.blind_auction.exploit import exploitability, history_value
from cardrl.agents.blind_auction.exploitability import main as exploitability_main
from cardrl.agents.blind_auction.tree import PublicTree, best_response, solve_matrix_game
from cardrl.envs import cards
from cardrl.envs.blind_auction.engine import BlindAuctionState
from cardrl.envs.blind_auction.rules import get_rules
from tests.blind_auction_util import bid_round

RPS = np.array([[0, -0.5, 0.5], [0.5, 0, -0.5], [-0.5, 0.5, 0]])


def bits(*ranks: int) -> int:
    return sum(1 << r for r in ranks)


# ------------------------------------------------------------ matrix games
@pytest.mark.parametrize(("m", "x", "y", "value"), [
    (RPS, [1 / 3] * 3, [1 / 3] * 3, 0.0),
    ([[-2.5, 0], [0, -5]], [2 / 3, 1 / 3], [2 / 3, 1 / 3], -5 / 3),
    ([[3, 1], [4, 2]], [0, 1], [0, 1], 2.0),  # saddle point: row 2, column 2
    ([[1, -1], [-1, 1]], [0.5, 0.5], [0.5, 0.5], 0.0),  # matching pennies
    ([[2, 0, 1], [0, 2, 1]], [0.5, 0.5], None, 1.0),  # the third column is never worse for it
])
def test_exact_matrix_game_solutions(m, x, y, value):
    gx, gy, gv = solve_matrix_game(np.array(m, dtype=float))
    assert gv == pytest.approx(value, abs=1e-12)
    assert gx == pytest.approx(x, abs=1e-12)
    if y is not None:
        assert gy == pytest.approx(y, abs=1e-12)
    m = np.array(m, dtype=float)
    assert (gx @ m).min() == pytest.approx(gv, abs=1e-12)  # x guarantees the value
    assert (m @ gy).max() == pytest.approx(gv, abs=1e-12)  # y holds the row to it


# --------------------------------------------------------- hand calculation
def test_three_card_game_by_hand_discard():
    """With discard the prizes only scale the game: after bids (a, b) with cards
    {2, 3, 4} each, the two-card rest is worth mean(prizes) * (S + C) / 2, S and C
    the round signs of the two pairings. That makes the first round, in units of
    the mean prize 3, the matrix below: rock-paper-scissors, whose only
    equilibrium is uniform, value 0."""
    sol = solution(3, "discard")
    tree = sol.tree
    assert sol.value == pytest.approx(0.0, abs=1e-12)
    root = tree.levels[3]
    assert tree.stage_matrices(3, sol.values[2])[0] == pytest.approx(3 * RPS, abs=1e-12)
    assert sol.row[3][0] == pytest.approx([1 / 3] * 3) and sol.col[3][0] == pytest.approx(
        [1 / 3] * 3)
    assert root.size == 1
    # seat 0 holds 2 and 4 (ranks 0, 2), seat 1 holds 3 and 4 (ranks 1, 2), prizes 2D, 3D:
    # S = sign(2-3) + sign(4-4) = -1, C = sign(2-4) + sign(4-3) = 0: value 2.5 * -1/2
    i = tree.find(2, bits(0, 2), bits(1, 2), bits(0, 1), 0)
    assert sol.values[2][i] == pytest.approx(-1.25)
    assert sol.row[2][i] == pytest.approx([0.5, 0.5]) and sol.col[2][i] == pytest.approx(
        [0.5, 0.5])


def test_three_card_state_by_hand_carry():
    """The same state with carry: bids (2 vs 3, then 4 vs 4): -2.5 (the tie at the end
    goes to nobody); (4 vs 4, then 2 vs 3): the tie carries, seat 1 takes both, -5;
    the crossed pairings 0. The matrix [[-2.5, 0], [0, -5]] has value -5/3 with
    seat 0 bidding its 2 with probability 2/3 and seat 1 its 3 with 2/3."""
    sol = solution(3, "carry")
    tree = sol.tree
    i = tree.find(2, bits(0, 2), bits(1, 2), bits(0, 1), 0)
    assert tree.stage_matrices(2, sol.values[1])[i] == pytest.approx(np.array([[-2.5, 0], [0, -5]]))
    assert sol.values[2][i] == pytest.approx(-5 / 3)
    assert sol.row[2][i] == pytest.approx([2 / 3, 1 / 3])
    assert sol.col[2][i] == pytest.approx([2 / 3, 1 / 3])
    assert sol.value == pytest.approx(0.0, abs=1e-12)  # the game is symmetric


def test_the_equilibrium_bot_plays_the_hand_calculated_mixes():
    bot = EquilibriumBot()
    discard = BlindAuctionState(get_rules("2p", cards_per_suit=3), 0)
    assert bot.action_probs(discard.view(0), [0, 1, 2]) == pytest.approx([1 / 3] * 3)
    discard.apply(1)
    assert bot.action_probs(discard.view(1), [0, 1, 2]) == pytest.approx([1 / 3] * 3)
    rules = get_rules("2p", cards_per_suit=3, tie_rule="carry")
    state = BlindAuctionState(rules, deal=["4D", "2D", "3D"])
    bid_round(state, "3", "2")  # seat 0 takes 4D; seat 0 holds 2, 4 and seat 1 holds 3, 4
    assert bot.action_probs(state.view(0), state.legal_actions()) == pytest.approx([2 / 3, 1 / 3])
    state.apply(0)
    assert bot.action_probs(state.view(1), state.legal_actions()) == pytest.approx([2 / 3, 1 / 3])
    picks = [EquilibriumBot(seed=s).act(state.view(1), [1, 2]) for s in range(300)]
    assert 0.55 < picks.count(1) / 300 < 0.78


def test_the_equilibrium_bot_refuses_games_it_has_not_solved():
    bot = EquilibriumBot()
    state = BlindAuctionState(get_rules("3p", cards_per_suit=3), 0)
    with pytest.raises(ValueError, match="covers 2 players"):
        bot.act(state.view(0), state.legal_actions())
    state = BlindAuctionState(get_rules("2p"), 0)
    with pytest.raises(ValueError, match="cards_per_suit up to 8 for tie_rule 'discard'"):
        bot.act(state.view(0), state.legal_actions())


# ------------------------------------------------------------ best responses
def test_best_response_to_bidding_high_by_hand():
    """high-early bids 4, 3, 2 in order: a best response loses the first round with its
    2 and wins the next two with 4 and 3, a margin of one round = 3 points (the mean
    prize); no reply wins the round of the 4. Same in both seats and tie rules."""
    for tie_rule in ("discard", "carry"):
        e = exploitability(agents.make("blind_auction/high-early"),
                           get_rules("2p", cards_per_suit=3, tie_rule=tie_rule))
        assert (e.seat0, e.seat1) == pytest.approx((3.0, 3.0))
        assert e.fraction == pytest.approx(1 / 3)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_any_deterministic_bot_loses_all_but_one_round_to_its_best_response(n):
    """Knowing every bid in advance, a best response beats all the bot's bids but its
    highest, which it answers with its lowest: (n - 2) rounds of the mean prize."""
    rules = get_rules("2p", cards_per_suit=n)
    mean = rules.prize_total / n
    for name in ("match", "high-early", "save-high", "mirror"):
        e = exploitability(agents.make(f"blind_auction/{name}"), rules)
        assert e.value == pytest.approx((n - 2) * mean), name


@pytest.mark.parametrize("n", [3, 4])
@pytest.mark.parametrize("tie_rule", ["discard", "carry", "split"])
def test_the_public_state_best_response_equals_the_one_over_every_history(n, tie_rule):
    rules = get_rules("2p", cards_per_suit=n, tie_rule=tie_rule)
    for name in ("random", "blind_auction/equilibrium", "blind_auction/match"):
        bot = agents.make(name)
        fast = exploitability(bot, rules, method="public_state")
        full = exploitability(bot, rules, method="histories")
        assert (fast.seat0, fast.seat1) == pytest.approx((full.seat0, full.seat1), abs=1e-9)


def test_a_bot_that_reads_the_history_is_handled_by_the_history_method():
    class Spiteful(agents.base.Bot):
        """Bids its highest card after losing a round, else its lowest: not Markov."""

        def act(self, view, legal):
            lost = view.rounds and view.seat not in view.rounds[-1].scorers
            return max(legal) if lost else min(legal)

    rules = get_rules("2p", cards_per_suit=3)
    e = exploitability(Spiteful(), rules)
    assert e.method == "histories" and not e.exact  # its mix was sampled from act()
    assert e.value == pytest.approx(3.0)  # deterministic: (n - 2) rounds of the mean prize
    with pytest.raises(ValueError, match="does not act on the public state only"):
        exploitability(Spiteful(), rules, method="public_state")


@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("tie_rule", ["discard", "carry", "split"])
def test_equilibrium_is_unexploitable_and_random_only_with_discard(n, tie_rule):
    """Against uniformly random bids every reply earns exactly 0 when ties are discarded
    (or split, the same margin): the round's expected sign is D/k - E[D'/(k-1)], D the
    sum of signs over all pairs of cards left, so the total telescopes to D = 0 at the
    start. With carry a best response gains by tying on purpose, so random is exploitable."""
    rules = get_rules("2p", cards_per_suit=n, tie_rule=tie_rule)
    eq = exploitability(agents.make("blind_auction/equilibrium"), rules)
    rnd = exploitability(agents.make("random"), rules)
    assert abs(eq.seat0) < 1e-9 * rules.prize_total and abs(eq.seat1) < 1e-9 * rules.prize_total
    if tie_rule == "carry":
        assert rnd.fraction > 0.1
    else:
        assert rnd.value == pytest.approx(0.0, abs=1e-9)


def test_best_response_needs_one_seat_and_the_history_walk_scores_seat_0():
    tree = PublicTree(3)
    with pytest.raises(ValueError, match="exactly one seat"):
        best_response(tree)
    rules = get_rules("2p", cards_per_suit=3)
    state = BlindAuctionState(rules, deal=["4D", "2D", "3D"])
    bid_round(state, "4", "2")
    bid_round(state, "3", "3")  # one card left each: the rest is forced
    uniform = lambda view, legal: np.full(len(legal), 1 / len(legal))  # noqa: E731
    assert cards.names(state.prizes[2:]) == ["3D"]
    assert history_value(state, uniform, 1) == -3.0  # seat 0's 2 against 4: 3D to seat 1


def test_the_command_prints_every_bot(capsys):
    assert exploitability_main(["--cards-per-suit", "4", "--tie-rule", "carry"]) == 0
    out = capsys.readouterr().out
    for name in agents.names("blind_auction"):
        assert name in out
    assert "prize total 14" in out
    line = next(x for x in out.splitlines() if x.startswith("blind_auction/high-early"))
    assert "7.000000" in line and "5.00e-01" in line  # (4 - 2) rounds of the mean 3.5
    assert exploitability_main(["--cards-per-suit", "9"]) == 2
    assert "beyond the exact analysis" in capsys.readouterr().err
