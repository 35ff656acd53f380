"""``gin_rummy/simple`` is Neller's SimpleGinRummyPlayer: his decisions on recorded
positions, random tie-breaks from the bot's seed, his no-repeat rule, and the old
deterministic bot behind ``ties=highest``.

``tests/data/gin_rummy_neller_simple.json`` was recorded by running Neller's own Java
player (github.com/tneller/gin-rummy-eaai, ``ginrummy/SimpleGinRummyPlayer.java``) on
21 deals in this project's turn order; the file's ``source`` and ``how`` fields say how.
At every decision it holds his take decision, his whole set of equally good discards
(before his random pick), the cards his no-repeat rule blocked, the card he played
and whether he knocked.
"""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from cardrl import agents
from cardrl.agents.gin_rummy.simple import SimpleBot
from cardrl.envs import cards
from cardrl.envs.gin_rummy import GinRummyState
from cardrl.envs.gin_rummy.actions import (
    DRAW_STOCK,
    KNOCK_OFFSET,
    TAKE_DISCARD,
    action_card,
    discard_action,
    knock_action,
)
from cardrl.envs.gin_rummy.melds import CARD_BIT, CARD_VALUE, deadwood, mask_of, meldable, rank_low
from cardrl.envs.gin_rummy.rules import get_rules
from cardrl.eval.config import TournamentConfig
from cardrl.eval.play import play_game
from tests.gin_rummy_util import C, full_deal, hands_of

DATA = json.loads((Path(__file__).parent / "data" / "gin_rummy_neller_simple.json").read_text())
# his game ends a hand with 2 stock cards left, like the standard preset; no move cap
NELLER_RULES = get_rules("standard", max_moves=None)


def ids(text: str) -> list[int]:
    return sorted(cards.parse_many(text.split()))


def replay(record: dict, bots: list[SimpleBot], check) -> GinRummyState:
    """Replay one recorded hand, playing Neller's moves; ``check(bot, view, legal,
    decision)`` is called at each of them."""
    state = GinRummyState(NELLER_RULES, 0, deal=[h.split() for h in record["deal"]])
    for decision in record["decisions"]:
        seat = state.current_player
        assert seat == decision["seat"] and state.hand_number == 1
        view, legal = state.view(seat), state.legal_actions()
        assert list(view.hand) == ids(decision["hand"])  # the replay is in step
        check(bots[seat], view, legal, decision)
        if decision["phase"] == "draw":
            state.apply(TAKE_DISCARD if decision["take"] else DRAW_STOCK)
        else:
            card = C(decision["discard"])
            state.apply(knock_action(card) if decision["knock"] else discard_action(card))
    return state


def agrees_with_neller(bot, view, legal, decision):
    action = bot.act(view, legal)
    if decision["phase"] == "draw":
        assert bot.takes(view) == decision["take"]
        assert action == (TAKE_DISCARD if decision["take"] else DRAW_STOCK)
        return
    candidates = ids(decision["candidates"])
    assert bot.discard_candidates(view, legal) == candidates
    assert action_card(action) in candidates
    assert (action >= KNOCK_OFFSET) == decision["knock"]
    assert bot.drawn_card(view) == C(decision["drawn"])


@pytest.mark.parametrize("record", DATA["hands"], ids=lambda r: f"hand{r['hand']}")
def test_agrees_with_nellers_player_on_recorded_positions(record):
    bots = [agents.make("gin_rummy/simple", seed=s) for s in (11, 12)]
    state = replay(record, bots, agrees_with_neller)
    assert len(state.results) == 1  # the hand ended where his did: a knock or a dead stock
    assert (state.results[0].knocker is not None) == record["decisions"][-1].get("knock", False)


def test_the_recorded_positions_exercise_every_rule():
    discards = [d for r in DATA["hands"] for d in r["decisions"] if d["phase"] == "discard"]
    draws = [d for r in DATA["hands"] for d in r["decisions"] if d["phase"] == "draw"]
    assert len(discards) + len(draws) >= 500
    assert sum(d["take"] for d in draws) >= 30
    assert sum(len(d["candidates"].split()) > 1 for d in discards) >= 100  # ties
    assert sum(d["knock"] for d in discards) >= 15
    # his no-repeat rule removed a least-deadwood card
    assert sum(bool(d["blocked"]) for d in discards) >= 5
    assert any(C(c) not in ids(d["candidates"]) for d in discards for c in d["blocked"].split()
               if d["blocked"] and c != d["drawn"])


def test_without_the_no_repeat_rule_the_recorded_positions_disagree():
    """The recorded positions catch a bot that lacks the rule (or breaks ties by rank)."""
    def candidates_only(bot, view, legal, decision):
        if decision["phase"] == "discard":
            bot.act(view, legal)
            got.append(bot.discard_candidates(view, legal) == ids(decision["candidates"]))
        else:
            bot.act(view, legal)

    blocking = [r for r in DATA["hands"]
                if any(d.get("blocked") for d in r["decisions"])]
    for spec in ("gin_rummy/simple:no_repeat=false", "gin_rummy/simple:ties=highest"):
        got: list[bool] = []
        for record in blocking:
            replay(record, [agents.make(spec), agents.make(spec)], candidates_only)
        assert not all(got), spec


# ------------------------------------------------------------- random tie-breaks
SEAT0 = "AC 2C 3C 4D 4H 4S 9S 10S JS 5H"
SEAT1 = "5C 6C 7C 8H 8S 8D KH QS 3H 2D"  # [567C] [888], KH QS 3H 2D dead: 25


def tie_position():
    """Seat 1 draws 9H: KH, QS (and nothing else) leave the least deadwood, 24."""
    state = GinRummyState(get_rules("seed"), 0,
                          deal=full_deal(hands_of(SEAT0, SEAT1), "AS", "9H"))
    state.apply(DRAW_STOCK)
    return state.view(1), state.legal_actions()


def test_random_ties_come_from_the_seed_and_vary():
    view, legal = tie_position()
    assert SimpleBot().discard_candidates(view, legal) == sorted([C("KH"), C("QS")])
    picks = {seed: SimpleBot(seed=seed).act(view, legal) for seed in range(40)}
    assert set(picks.values()) == {discard_action(C("KH")), discard_action(C("QS"))}
    assert all(SimpleBot(seed=seed).act(view, legal) == pick for seed, pick in picks.items())
    bot = SimpleBot()
    for seed, pick in picks.items():
        bot.reset(seed)  # what a tournament does before every game
        assert bot.act(view, legal) == pick
    probs = SimpleBot(seed=0).probabilities(view, legal)
    assert probs[discard_action(C("KH"))] == probs[discard_action(C("QS"))] == 0.5
    assert sum(probs.values()) == 1.0


def play(bots, rules, seed: int) -> list[int]:
    state = GinRummyState(rules, seed)
    actions = []
    while not state.is_over:
        seat = state.current_player
        action = bots[seat].act(state.view(seat), state.legal_actions())
        state.apply(action)
        actions.append(action)
    return actions


def test_whole_games_replay_from_the_seeds_and_differ_across_them():
    rules = get_rules("standard", max_hands=3)
    games = {s: play([SimpleBot(seed=s), SimpleBot(seed=s + 100)], rules, 5) for s in range(4)}
    assert len(set(map(tuple, games.values()))) == 4  # other seeds, other games
    bots = [SimpleBot(), SimpleBot()]
    for s, actions in games.items():
        bots[0].reset(s)
        bots[1].reset(s + 100)
        assert play(bots, rules, 5) == actions  # reset with the seeds: the same game again


def test_a_tournament_game_replays():
    cfg = TournamentConfig(game="gin_rummy", preset="standard", max_hands=2,
                           bots=("gin_rummy/simple", "gin_rummy/simple"))
    first, again = play_game(cfg, 3, 1), play_game(cfg, 3, 1)
    assert first["actions"] == again["actions"] and len(first["actions"]) > 20


# ------------------------------------------------------------------ no repeats
def forced_hand(first_draw: int):
    """Seat 1 draws KH (stock, or the up card) and throws QS; seat 0 takes QS and later
    throws it back; seat 1 takes it. KH is then the one card leaving least deadwood,
    but {KH, QS} was seat 1's pair: its candidates are 3H alone.

    Yields (bot, view, legal) at seat 1's last discard, the bot having been asked
    (and overruled) at each of its decisions."""
    seat1 = "5C 6C 7C 8H 8S 8D QS 2D AS 3H"
    up, stock = ("KH", "JD 9C 10D") if first_draw == TAKE_DISCARD else ("9D", "KH JD 9C 10D")
    state = GinRummyState(get_rules("seed"), 0,
                          deal=full_deal(hands_of(SEAT0, seat1), up, stock))
    bot = SimpleBot(seed=1)
    script = [(1, first_draw), (1, discard_action(C("QS"))),
              (0, TAKE_DISCARD), (0, discard_action(C("5H"))),
              (1, DRAW_STOCK), (1, discard_action(C("JD"))),
              (0, DRAW_STOCK), (0, discard_action(C("QS"))),
              (1, TAKE_DISCARD)]
    for seat, action in script:
        assert state.current_player == seat
        if seat == 1:
            bot.act(state.view(1), state.legal_actions())
        state.apply(action)
    view = state.view(1)
    assert view.taken == C("QS") and C("KH") in view.hand
    return bot, view, state.legal_actions()


@pytest.mark.parametrize("first_draw", [DRAW_STOCK, TAKE_DISCARD])
def test_no_repeat_of_a_drawn_and_discarded_pair(first_draw):
    bot, view, legal = forced_hand(first_draw)
    assert SimpleBot(no_repeat=False).discard_candidates(view, legal) == [C("KH")]
    assert bot.used_pairs(view) == {frozenset((C("KH"), C("QS"))), frozenset((C("JD"),))}
    assert bot.discard_candidates(view, legal) == [C("3H")]
    assert bot.act(view, legal) == discard_action(C("3H"))
    # the memory is the hand's: a new game or hand forgets it
    assert bot.discard_candidates(replace(view, hand_number=2), legal) == [C("KH")]
    bot.reset(1)
    assert bot.discard_candidates(view, legal) == [C("KH")]


def test_a_stock_draw_is_known_only_to_a_bot_asked_to_draw():
    bot, view, legal = forced_hand(DRAW_STOCK)
    fresh = SimpleBot()  # shown the discard alone: the taken card is all it knows
    assert fresh.drawn_card(view) == C("QS") and fresh.used_pairs(view) == set()
    state = GinRummyState(get_rules("seed"), 0,
                          deal=full_deal(hands_of(SEAT0, SEAT1), "AS", "9H"))
    asked = SimpleBot()
    asked.act(state.view(1), state.legal_actions())
    state.apply(DRAW_STOCK)
    assert asked.drawn_card(state.view(1)) == C("9H")
    assert SimpleBot().drawn_card(state.view(1)) is None


# ---------------------------------------------------------------- ties=highest
def old_simple(view, legal) -> int:
    """The bot before issue 35, written out: take to meld, then the highest card
    (value, rank, lowest id) of those leaving least deadwood, knocking if allowed."""
    mask = mask_of(view.hand)
    if view.phase == "draw":
        bit = CARD_BIT[view.top]
        return TAKE_DISCARD if meldable(mask | bit) & bit else DRAW_STOCK
    choices = [a - 2 for a in legal if 2 <= a < KNOCK_OFFSET]
    card = min(choices, key=lambda c: (deadwood(mask ^ CARD_BIT[c]), -CARD_VALUE[c],
                                       -rank_low(c), c))
    return knock_action(card) if knock_action(card) in legal else discard_action(card)


@pytest.mark.parametrize(("preset", "n"), [("seed", 2), ("seed", 4), ("standard", 2),
                                           ("standard", 3)])
def test_ties_highest_is_the_old_deterministic_bot(preset, n):
    rules = get_rules(preset, num_players=n, max_hands=2)
    bots = [agents.make("gin_rummy/simple:ties=highest", seed=s) for s in range(n)]
    state = GinRummyState(rules, 8)
    ties = 0
    while not state.is_over:
        seat = state.current_player
        view, legal = state.view(seat), state.legal_actions()
        action = bots[seat].act(view, legal)
        assert action == old_simple(view, legal)
        ties += view.phase == "discard" and len(SimpleBot().discard_candidates(view, legal)) > 1
        state.apply(action)
    assert ties > 0


def test_options_are_checked():
    assert agents.make("gin_rummy/simple").ties == "random"
    assert agents.make("gin_rummy/simple").no_repeat is True
    assert agents.make("gin_rummy/simple:ties=highest").no_repeat is False
    assert agents.make("gin_rummy/simple:ties=highest,no_repeat=true").no_repeat is True
    with pytest.raises(ValueError, match="ties must be one of random|highest"):
        agents.make("gin_rummy/simple:ties=lowest")
    with pytest.raises(ValueError, match="no_repeat"):
        agents.make("gin_rummy/simple:no_repeat=2")
    assert "Neller" in agents.describe("gin_rummy/simple")
