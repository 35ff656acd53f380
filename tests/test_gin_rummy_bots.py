"""Gin Rummy rule bots: the simple baseline's three rules, the expert's choices, legality."""

from dataclasses import replace

import numpy as np
import pytest

from cardrl import agents
from cardrl.agents.gin_rummy.expert import ExpertBot, defender_favoured
from cardrl.envs.gin_rummy import SEED, STANDARD, GinRummyState, GinRummyView
from cardrl.envs.gin_rummy.actions import (
    DRAW_STOCK,
    KNOCK_OFFSET,
    TAKE_DISCARD,
    discard_action,
    knock_action,
)
from cardrl.envs.gin_rummy.melds import CARD_BIT
from cardrl.envs.gin_rummy.rules import get_rules
from cardrl.envs.gin_rummy.tracking import Knowledge
from tests.gin_rummy_util import C, brute_force_deadwood, full_deal, hands_of

SEAT1 = "5C 6C 7C 8H 8S 8D KH QS 3H 2D"  # [567C] [888], KH QS 3H 2D dead: 25
SEAT0 = "AC 2C 3C 4D 4H 4S 9S 10S JS 5H"


def state_with(upcard: str, draw: str = "", rules=SEED, seat1: str = SEAT1) -> GinRummyState:
    """Dealer 0; seat 1 to draw, with ``upcard`` on the pile and ``draw`` on the stock."""
    return GinRummyState(rules, 0, deal=full_deal(hands_of(SEAT0, seat1), upcard, draw))


@pytest.mark.parametrize(("upcard", "takes"), [
    ("8C", True),  # makes a set of four eights
    ("4C", True),  # extends 5-7C
    ("9H", False),  # 8H 9H is no meld yet
    ("AS", False),  # lowers deadwood but melds nothing: the simple bot draws
])
def test_simple_takes_the_up_card_only_to_meld(upcard, takes):
    state = state_with(upcard)
    bot = agents.make("gin_rummy/simple")
    action = bot.act(state.view(1), state.legal_actions())
    assert action == (TAKE_DISCARD if takes else DRAW_STOCK)


def test_simple_discards_a_card_leaving_least_deadwood_ties_highest_the_highest():
    state = state_with("AS", "9H")
    state.apply(DRAW_STOCK)  # + 9H: KH and QS both leave 24; KH is higher
    view, legal = state.view(1), state.legal_actions()
    assert agents.make("gin_rummy/simple:ties=highest").act(view, legal) == discard_action(C("KH"))
    picks = {agents.make("gin_rummy/simple", seed=s).act(view, legal) for s in range(20)}
    assert picks == {discard_action(C("KH")), discard_action(C("QS"))}  # a random one of them


def test_simple_knocks_as_soon_as_it_may():
    seat1 = "5C 6C 7C 8H 8S 8D KH KS KD 3H"  # 3 deadwood
    state = state_with("QD", "9C", seat1=seat1)
    state.apply(DRAW_STOCK)
    bot = agents.make("gin_rummy/simple")
    assert bot.act(state.view(1), state.legal_actions()) == knock_action(C("9C"))


def test_expert_knock_style_follows_the_rules():
    seat1 = "5C 6C 7C 8H 8S 8D KH KS KD 3H"  # knocks with 3, or waits for gin
    for rules, knocks in [(SEED, True), (STANDARD, False)]:  # past the opening (below)
        state = state_with("QD", "9C", rules=rules, seat1=seat1)
        state.apply(DRAW_STOCK)
        action = ExpertBot(opening=0).act(state.view(1), state.legal_actions())
        assert (action == knock_action(C("9C"))) == knocks
        assert defender_favoured(rules) != knocks
    state = state_with("QD", "9C", rules=STANDARD, seat1=seat1)
    state.apply(DRAW_STOCK)
    assert agents.make("gin_rummy/expert:knock=early").act(
        state.view(1), state.legal_actions()) == knock_action(C("9C"))
    low = state_with("QD", "2H", rules=STANDARD, seat1="5C 6C 7C 8H 8S 8D KH KS KD AH")
    low.apply(DRAW_STOCK)  # + 2H: 1 deadwood at best, no gin: it waits
    assert ExpertBot(opening=0).act(low.view(1), low.legal_actions()) < 54
    gin = state_with("QD", "4C", rules=STANDARD, seat1="5C 6C 7C 8H 8S 8D KH KS KD AH")
    gin.apply(DRAW_STOCK)  # + 4C: 4-7C, 888, KKK: gin by throwing the AH
    assert ExpertBot(opening=0).act(gin.view(1), gin.legal_actions()) == knock_action(C("AH"))


def test_waiting_for_gin_the_expert_knocks_only_in_its_opening():
    """Standard rules: with 3 deadwood it knocks during its first ``opening`` (5)
    discards, while the other hand is rarely formed, and waits for gin after them."""
    state = state_with("QD", "9C", rules=STANDARD, seat1="5C 6C 7C 8H 8S 8D KH KS KD 3H")
    state.apply(DRAW_STOCK)
    view, legal = state.view(1), state.legal_actions()

    def after(n: int) -> GinRummyView:  # the same hand after n earlier discards
        earlier = tuple(C(c) for c in ("2S", "3S", "5S", "6S", "7S", "9D"))
        return replace(view, discarded=(view.discarded[0], earlier[:n]))

    knock = knock_action(C("9C"))
    assert [ExpertBot().act(after(n), legal) == knock for n in range(7)] \
        == [True] * 5 + [False] * 2
    assert ExpertBot(opening=6).act(after(5), legal) == knock
    assert ExpertBot(opening=0).act(after(0), legal) < KNOCK_OFFSET  # a plain discard
    seed_view = replace(after(6), rules=SEED)  # knocking early: no opening to wait out
    assert ExpertBot().act(seed_view, legal) == knock


def test_expert_avoids_discarding_what_the_next_player_picked_up_to_meld():
    # seat 0 took 9D from the pile earlier: it holds 9D (known); 9C would meld with 9s
    view = state_with("AS").view(1)
    base = view.to_dict()
    base["known"] = [["9D", "9H"], []]
    base["picked"] = [["9D", "9H"], []]
    know = Knowledge(GinRummyView.from_dict(base))
    assert know.danger(C("9C")) > know.danger(C("KC")) > 0  # 9C completes 9D 9H 9?
    dead = dict(base, pile=["QC", "JC", "KD", "KS", "KH"])  # every K out: no meld for KC
    assert Knowledge(GinRummyView.from_dict(dead)).danger(C("KC")) == 0.0


def test_expected_deadwood_is_the_mean_over_unseen_draws():
    view = state_with("AS").view(1)
    know = Knowledge(view)
    kept = know.hand  # the ten cards
    unseen = [c for c in range(52) if c not in view.hand and c not in view.pile]
    direct = np.mean([min(brute_force_deadwood([x for x in list(view.hand) + [u] if x != d])
                          for d in list(view.hand) + [u]) for u in unseen])
    assert know.expected_deadwood(kept) == pytest.approx(direct)


@pytest.mark.parametrize("limit", [10, 5, 0])
def test_outlook_counts_the_draws_that_allow_a_knock_and_gin(limit):
    view = state_with("AS").view(1)
    know = Knowledge(view)
    unseen = [c for c in range(52) if c not in view.hand and c not in view.pile]
    best = [min(brute_force_deadwood([x for x in list(view.hand) + [u] if x != d])
                for d in list(view.hand) + [u]) for u in unseen]
    mean, ready, gin = know.outlook(know.hand, limit)
    assert mean == pytest.approx(np.mean(best))
    assert ready == pytest.approx(np.mean([b <= limit for b in best]))
    assert gin == pytest.approx(np.mean([b == 0 for b in best]))


def test_waiting_for_gin_the_expert_keeps_the_hand_with_gin_draws():
    """Melds JC JD JH JS and 3D 3H 3S; spare 5C 6C 4H 2S after drawing JS. Throwing 6C
    leaves the least deadwood (11) and no gin draw; throwing 4H keeps 5C 6C, where
    4C or 7C then 2S out is gin. Knocking early the expert throws 6C; waiting for gin
    (the standard rules' choice) it throws 4H."""
    hands = hands_of("KH KS KD QD 10C 10H 2D 2H AD AH", "5C 6C JC 3D JD 3H 4H JH 2S 3S")
    state = GinRummyState(STANDARD, 0, deal=full_deal(hands, "KC", "JS"))
    state.apply(DRAW_STOCK)
    view, legal = state.view(1), state.legal_actions()
    know = Knowledge(view)
    early = agents.make("gin_rummy/expert:knock=early").act(view, legal)
    waits = agents.make("gin_rummy/expert").act(view, legal)
    assert (early, waits) == (discard_action(C("6C")), discard_action(C("4H")))
    kept = {card: know.outlook(know.hand ^ CARD_BIT[card])
            for card in (C("6C"), C("4H"))}
    assert kept[C("4H")][2] > kept[C("6C")][2] == 0 and kept[C("6C")][0] < kept[C("4H")][0]


@pytest.mark.parametrize("spec", ["gin_rummy/simple", "gin_rummy/expert",
                                  "gin_rummy/expert:knock=patient,patience=2"])
@pytest.mark.parametrize(("preset", "n"), [("seed", 2), ("seed", 3), ("seed", 4),
                                           ("standard", 2)])
def test_bots_play_legal_moves_and_only_read_the_view(spec, preset, n):
    rules = get_rules(preset, num_players=n, max_hands=2)
    bots = [agents.make(spec, seed=s) for s in range(n)]
    twins = [agents.make(spec, seed=s) for s in range(n)]
    state = GinRummyState(rules, 3)
    while not state.is_over:
        seat = state.current_player
        legal = state.legal_actions()
        view = state.view(seat)
        action = bots[seat].act(view, legal)
        assert action in legal
        # the same decision from the view sent as JSON: nothing but the view is read
        assert twins[seat].act(GinRummyView.from_dict(view.to_dict()), legal) == action
        state.apply(action)


def test_bots_are_registered_and_options_are_checked():
    assert {"gin_rummy/simple", "gin_rummy/expert"} <= set(agents.names("gin_rummy"))
    with pytest.raises(ValueError, match="knock"):
        agents.make("gin_rummy/expert:knock=sometimes")
    with pytest.raises(ValueError, match="danger"):
        agents.make("gin_rummy/expert:danger=-1")
    for bad, said in (("-1", "-1"), ("1.5", "1.5"), ("true", "True")):
        with pytest.raises(ValueError, match=f"opening must be an integer >= 0, got {said}"):
            agents.make(f"gin_rummy/expert:opening={bad}")
