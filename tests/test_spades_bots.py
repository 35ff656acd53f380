"""Spades rule bots: bid strategies, lead order, nil responses, P1.2 knob, legality, no peeking."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from cardrl import agents
from cardrl.agents.spades.bidding import bid_contract, count_points, legal_bid
from cardrl.envs import cards
from cardrl.envs.spades.actions import CARD_OFFSET, action_card, card_action
from cardrl.envs.spades.engine import SpadesState
from cardrl.envs.spades.rules import CUTTHROAT, KILLER
from cardrl.envs.spades.strength import estimate_tricks, nil_chance
from cardrl.envs.spades.tracking import Knowledge

# the search bot plays out every candidate move: kept to two worlds and two moves here
SPADES_BOTS = [f"{n}:worlds=2,top_k=2" if n == "spades/search" else n
               for n in agents.names("spades") if n.startswith("spades/")]


def words(text: str) -> list[str]:
    """Card names from one string: 'AS KH 2C' -> ['AS', 'KH', '2C']."""
    return text.split()


# A hand no one can do much with: nil-worthy under any sane test.
WEAK = words("2C 3C 4C 5C 2D 3D 4D 2H 3H 4H 5H 6H 2S")


def deal_with(fixed: dict[int, list[str]], rules=KILLER) -> list[list[int]]:
    """A full deal where the seats in ``fixed`` hold exactly those cards; the rest of
    the deck goes to the other seats in order."""
    used = {cards.parse(c) for hand in fixed.values() for c in hand}
    rest = [c for c in cards.make_deck(rules.jokers) if c not in used]
    hands = []
    for seat in range(4):
        if seat in fixed:
            hands.append(cards.parse_many(fixed[seat]))
        else:
            hands.append(rest[:13])
            rest = rest[13:]
    return hands


def state_after(fixed, bids=(), plays=(), rules=KILLER) -> SpadesState:
    """A state (dealer 0, so seat 1 bids and leads first) after the bids, in bidding
    order from seat 1, and the plays (card names, in turn order)."""
    st = SpadesState(rules, 0, deal=deal_with(fixed, rules))
    for b in bids:
        st.apply(b)
    for name in plays:
        st.apply(card_action(cards.parse(name)))
    return st


def bid_of(spec: str, hand: list[str], rules=KILLER) -> int:
    st = state_after({1: hand}, rules=rules)
    return agents.make(spec).act(st.view(1), st.legal_actions())


def play_of(spec: str, st: SpadesState) -> str:
    seat = st.current_player
    return cards.name(action_card(agents.make(spec).act(st.view(seat), st.legal_actions())))


# ------------------------------------------------------------------ bidding
@pytest.mark.parametrize("hand, spades", [
    ("AS KS 9S 5S 2S AH KH QH AD KD AC KC QC", 5),
    ("3S 2S AH KH QH JH AD KD QD AC KC QC JC", 2),
    ("AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S", 13),
])
def test_spade_count_bids_the_spades_held(hand, spades):
    assert bid_of("spades/spade-count", hand.split()) == spades


def test_spade_count_with_jokers_counts_them_as_spades():
    rules = KILLER.replace(jokers=True)
    hand = words("BJ LJ AS 4C 5C 6C 7C 3D 4D 5D 6D 2H 3H")
    assert bid_of("spades/spade-count", hand, rules) == 3


@pytest.mark.parametrize("hand, points", [
    # AS 1 + KS 1/2 + QS 1/4 + 5th spade 1 + KH 1/2 + QD 1/4
    ("AS KS QS 10S 9S KH QD 2C 3C 4C 2D 3D 2H", 3.5),
    # four aces, nothing else: 4
    ("AS AH AD AC 2C 3C 4C 2D 3D 4D 2H 3H 4H", 4.0),
    # seven low spades: 3 beyond the fourth; KC 1/2, QC 1/4
    ("8S 7S 6S 5S 4S 3S 2S KC QC 2D 3D 2H 3H", 3.75),
    # three kings and three queens: 1.5 + 0.75
    ("KC QC KD QD KH QH 2C 3C 2D 3D 2H 3H 4H", 2.25),
])
def test_count_points_and_count_bid_round_down(hand, points):
    assert count_points(cards.parse_many(hand.split())) == points
    assert bid_of("spades/count-bid", hand.split()) == int(points)  # B2.2 rounds down


def test_count_with_jokers_counts_each_joker_like_an_ace():
    rules = KILLER.replace(jokers=True)
    hand = words("BJ LJ AS 4C 5C 6C 7C 3D 4D 5D 6D 2H 3H")
    assert count_points(cards.parse_many(hand)) == 3.0
    assert bid_of("spades/count-bid", hand, rules) == 3


def test_a_computed_zero_is_nil_only_for_a_nil_worthy_hand():
    # count 0.75 (KC, QD) rounds to 0, but an unguarded KC is a trick risk: bid 1
    risky = words("KC QD JH 10H 9H 8H 7H 6H 5H 4H 3H 2H 2D")
    assert count_points(cards.parse_many(risky)) == 0.75
    assert bid_of("spades/count-bid", risky) == 1
    assert bid_of("spades/count-bid", WEAK) == 0
    # no spades at all: spade-count computes 0 and applies the same rule
    no_spades = words("AC KC QC AD KD QD AH KH QH 2C 2D 2H 3H")
    assert bid_of("spades/spade-count", no_spades) == 1
    assert nil_chance(cards.parse_many(WEAK)) > 0.6 > nil_chance(cards.parse_many(risky))


def test_modified_count_values_short_side_suits_with_spades():
    # no honours: the same four small spades, once with a heart void, once 3-3-3
    short = cards.parse_many(words("9C 5C 4C 3C 2C 9D 5D 4D 3D 6S 5S 4S 3S"))
    flat = cards.parse_many(words("9C 5C 4C 9D 5D 4D 9H 5H 4H 6S 5S 4S 3S"))
    assert estimate_tricks(short, False) >= estimate_tricks(flat, False) + 1.0
    # without trumps to ruff with, shortness is worth nothing
    no_trumps = cards.parse_many(words("9C 5C 4C 3C 2C 9D 5D 4D 3D 6H 5H 4H 3H"))
    no_trumps_flat = cards.parse_many(words("9C 5C 4C 9D 5D 4D 9H 7H 6H 5H 4H 3H 2H"))
    assert estimate_tricks(no_trumps, False) == estimate_tricks(no_trumps_flat, False)
    # the B2.2 count sees no difference at all
    assert count_points(short) == count_points(flat) == 0


def test_modified_count_bids_nil_for_weak_hands_and_counts_strong_ones():
    assert bid_of("spades/modified-count", WEAK) == 0
    strong = words("AS KS QS JS 10S AH KH AD KD AC KC QC 2C")
    assert bid_of("spades/modified-count", strong) >= 9
    # nil is bid when nil_points x (2p - 1) beats 6 points a trick bid: with p near
    # 0.53 and a count of 1, that is +7 in killer (nil +/-100) but +3 in cutthroat (+/-50)
    borderline = words("3C 10C JC 2D 3D 4D 5D 2H 5H 6H 9H 7S 9S")
    chance = nil_chance(cards.parse_many(borderline))
    assert 100 * (2 * chance - 1) > 6 > 50 * (2 * chance - 1)
    assert bid_of("spades/modified-count", borderline) == 0
    assert bid_of("spades/modified-count", borderline, CUTTHROAT) == 1


def test_contract_bid_answers_the_bids_already_made():
    hand = words("AS 9S 7S 5S AH 8H 4H KD 9D 3D QC 7C 2C")
    low = state_after({0: hand}, bids=[1, 1, 1]).view(0)
    high = state_after({0: hand}, bids=[5, 4, 4]).view(0)
    assert bid_contract(low) > bid_contract(high) >= 1


def test_cutthroat_last_bidder_is_refused_the_bid_that_makes_13():
    # seat 0 bids last and holds 4 spades; 3 + 3 + 3 + 4 = 13 is refused
    hand = words("AS KS 3S 2S 2C 3C 4C 5C 2D 3D 4D 2H 3H")
    st = state_after({0: hand}, bids=[3, 3, 3], rules=CUTTHROAT)
    legal = st.legal_actions()
    assert 4 not in legal
    under = agents.make("spades/spade-count").act(st.view(0), legal)
    over = agents.make("spades/spade-count:prefer=avoid-over").act(st.view(0), legal)
    assert (under, over) == (3, 5)
    # the same spot in killer allows the wanted bid
    st = state_after({0: hand}, bids=[3, 3, 3], rules=KILLER)
    assert agents.make("spades/spade-count").act(st.view(0), st.legal_actions()) == 4


def test_legal_bid_never_turns_a_refused_bid_into_nil_or_a_nil_into_nothing():
    no_four = [b for b in range(14) if b != 4]
    assert legal_bid(4, no_four, "avoid-under") == 3
    assert legal_bid(4, no_four, "avoid-over") == 5
    no_one = [b for b in range(14) if b != 1]
    assert legal_bid(1, no_one, "avoid-under") == 2  # not nil
    no_nil = list(range(1, 14))
    assert legal_bid(0, no_nil, "avoid-under") == 1
    assert legal_bid(13, list(range(13)), "avoid-over") == 12


@pytest.mark.parametrize("bot", SPADES_BOTS)
def test_every_bot_respects_the_cutthroat_refusal(bot):
    # whatever each strategy wants, the last bidder's bid is legal
    rng = np.random.default_rng(3)
    for _ in range(40):
        st = SpadesState(CUTTHROAT, int(rng.integers(1 << 30)))
        player = agents.make(bot)
        while st.phase == "bid":
            seat = st.current_player
            action = player.act(st.view(seat), st.legal_actions())
            assert action in st.legal_actions()
            st.apply(action)


# -------------------------------------------------------------- P2.2 leads
@pytest.mark.parametrize("hand, lead", [
    # 1) a suit with no A, K or Q: clubs
    ("9C 5C AD KD 4D KH QH 3H AS 5S 4S 3S 2S", "5C"),
    # 2) no such suit: an ace
    ("AC 4C KD 5D QH 3H 9S 8S 7S 6S 4S 3S 2S", "AC"),
    # 3) no ace: underlead the queen-headed suit
    ("KC 7C KD 5D QH 3H 9S 8S 7S 6S 4S 3S 2S", "3H"),
    # 4) only king-headed suits: underlead a king (the lowest such card)
    ("KC 7C KD 5D KH 8H 9S 8S 7S 6S 4S 3S 2S", "5D"),
])
def test_p22_lead_order(hand, lead):
    st = state_after({1: hand.split()}, bids=[3, 3, 3, 3])
    assert st.current_player == 1 and not st.view(1).trick
    assert play_of("spades/count-bid", st) == lead  # count-bid leads by P2.2


def test_lead_strategies_differ_on_the_same_hand():
    st = state_after({1: words("AC 4C KD 5D QH 3H 9S 8S 7S 6S 4S 3S 2S")}, bids=[3, 3, 3, 3])
    assert play_of("spades/rule:lead=p2.2", st) == "AC"
    assert play_of("spades/rule:lead=default", st) == "AC"  # a master: cash it
    st = state_after({1: words("9C 5C AD KD 4D KH QH 3H AS 5S 4S 3S 2S")}, bids=[3, 3, 3, 3])
    assert play_of("spades/rule:lead=p2.2", st) == "5C"
    assert play_of("spades/rule:lead=default", st) == "AD"


# -------------------------------------------------------- nil responses
# Seat 1 leads 9H, seats 2 and 3 follow low, seat 0 plays last and may win with 10H
# or duck with a low heart. Seat 0's six top spades are its only sure tricks (10H is
# no master: JH..AH are unseen), so it expects exactly 6.
SPOT = {
    1: words("9H JH 2C 3C 4C 5C 6C 2D 3D 4D 5D 6D 7D"),
    2: words("8H QH 8C 9C 10C JC QC 8D 9D 10D JD 2S 3S"),
    3: words("7H KH AH KC AC KD AD QD 4S 5S 6S 7S 8S"),
    0: words("10H 2H 3H 4H 5H 6H 7C AS KS QS JS 10S 9S"),
}
LOW_HEARTS = ("2H", "3H", "4H", "5H", "6H")


def spot(bids, scores=None):
    """Seat 0's view (and legal actions) in SPOT after ``bids`` (seats 1, 2, 3, 0)."""
    st = state_after(SPOT, bids=bids, plays=["9H", "8H", "7H"])
    view = st.view(0)
    assert Knowledge(view).expected_tricks == 6
    if scores is not None:
        view = dataclasses.replace(view, scores=tuple(scores))
    return view, st.legal_actions()


def card_of(spec, view, legal):
    return cards.name(action_card(agents.make(spec).act(view, legal)))


def test_nil_responses_ignore_versus_set():
    # seat 1 bid nil and its 9H is winning; seat 0 bid 6, which its spades make anyway
    view, legal = spot([0, 3, 3, 6])
    assert card_of("spades/rule:nil=ignore", view, legal) == "10H"  # plays its own game
    assert card_of("spades/rule:nil=set-safe", view, legal) in LOW_HEARTS  # leaves it
    assert card_of("spades/rule:nil=set-always", view, legal) in LOW_HEARTS


def test_set_safe_spares_its_own_bid_but_set_always_does_not():
    # bid 7: the trick is needed for the bid, so only set-always lets the nil have it
    view, legal = spot([0, 3, 3, 7])
    assert card_of("spades/rule:nil=set-safe", view, legal) == "10H"
    assert card_of("spades/rule:nil=set-always", view, legal) in LOW_HEARTS


def test_ignore_if_winning_ignores_the_nil_only_when_our_bid_wins_the_game():
    spec = "spades/rule:nil=ignore-if-winning"
    winning, legal = spot([0, 3, 3, 6], scores=[200, 50, 60, 70])  # 200 + 60 > 250
    assert card_of(spec, winning, legal) == "10H"
    behind, legal = spot([0, 3, 3, 6], scores=[100, 50, 60, 70])
    assert card_of(spec, behind, legal) in LOW_HEARTS
    # the nil bidder making its nil would top us: it must still be set
    rival, legal = spot([0, 3, 3, 6], scores=[200, 170, 60, 70])  # 170 + 100 > 260
    assert card_of(spec, rival, legal) in LOW_HEARTS


# ------------------------------------------------------------ P1.2 knob
def test_prefer_knob_decides_a_bonus_trick():
    # no nil now; seat 0 bid 6, exactly what its spades make: winning with 10H would
    # likely be an overtrick, ducking risks an undertrick if a spade fails
    view, legal = spot([3, 3, 3, 6])
    assert card_of("spades/rule:prefer=avoid-under", view, legal) == "10H"
    assert card_of("spades/rule:prefer=avoid-over", view, legal) in LOW_HEARTS
    # short of tricks (bid 8), both take it
    view, legal = spot([3, 3, 3, 8])
    assert card_of("spades/rule:prefer=avoid-over", view, legal) == "10H"


# ------------------------------------------------------- expert tactics
def test_expert_keeps_its_nil_with_the_highest_card_below_the_winner():
    fixed = {1: words("10H 2C 3C 4C 5C 6C 7C 2D 3D 4D 5D 6D 7D"),
             2: words("9H 4H KH 8C 9C 2S 3S 4S 5S 6S 7S 8S 9S")}
    st = state_after(fixed, bids=[3, 0, 3, 3], plays=["10H"])
    assert play_of("spades/expert", st) == "9H"


def test_expert_nil_sheds_a_dangerous_card_when_void():
    fixed = {1: words("10H 2C 3C 4C 5C 6C 7C 2D 3D 4D 5D 6D 7D"),
             2: words("AC KC QC JC 10C 9C 8C AD JD 10D 9D 8D 2S")}
    st = state_after(fixed, bids=[3, 0, 3, 3], plays=["10H"])
    # void in hearts: never ruff; throw the ace, the card likeliest to win later
    # (AD less so: KD and QD are still out)
    assert play_of("spades/expert", st) == "AC"


def test_expert_leads_a_loser_once_its_bid_is_made():
    fixed = {
        1: words("2C 3H 4H 5H 6H 7H 8H 2D 3D 4D 5D 6D 7D"),
        2: words("3C 9H 10H JH QH 8D 9D 10D JD QD 2S 3S 4S"),
        3: words("4C KH 5S 6S 7S 8S 9S 10S JS QS KS AS KD"),
        0: words("AC 2H AH 5C 6C 7C 8C 9C 10C JC QC KC AD"),
    }
    # seat 0 bid 1 and makes it with AC; it leads next, with three masters in hand
    st = state_after(fixed, bids=[3, 3, 3, 1], plays=["2C", "3C", "4C", "AC"])
    assert st.view(0).tricks[0] == 1 and st.current_player == 0
    lead = play_of("spades/expert", st)
    assert lead not in ("AH", "AD")  # its masters would win
    assert Knowledge(st.view(0)).p_win(cards.parse(lead)) < 0.05
    # with the bid still to make (bid 2), it cashes a winner instead
    st = state_after(fixed, bids=[3, 3, 3, 2], plays=["2C", "3C", "4C", "AC"])
    assert play_of("spades/expert", st) in ("AH", "AD")


RUFF_DEAL = {
    1: words("AC 5C 6C 7C 8C 9C 10C JC QC KC 2D 3D 4D"),
    2: words("2C 3C 4C 2H 3H 4H 5H 6H 7H 8H 9H 10H JH"),
    3: words("3S QH KH AH 5D 6D 7D 8D 9D 5S 6S 7S 8S"),  # void in clubs
    0: words("10D JD QD KD AD 2S 4S 9S 10S JS QS KS AS"),  # void in clubs
}


def test_expert_ruffs_low_and_over_ruffs_when_needed():
    # seat 0 bid 13, so it wants every trick; it plays last to AC
    st = state_after(RUFF_DEAL, bids=[3, 1, 3, 13], plays=["AC", "2C", "QH"])
    assert play_of("spades/expert", st) == "2S"  # ruff with the lowest spade
    st = state_after(RUFF_DEAL, bids=[3, 1, 3, 13], plays=["AC", "2C", "3S"])
    assert play_of("spades/expert", st) == "4S"  # the lowest spade that over-ruffs


def test_knowledge_tracks_masters_and_voids():
    st = state_after(RUFF_DEAL, bids=[3, 1, 3, 13], plays=["AC", "2C", "3S", "4S"])
    kn = Knowledge(st.view(0))
    assert kn.is_master(cards.parse("10D"))  # JD..AD are all its own
    assert not kn.is_master(cards.parse("2S"))  # 5S..8S are still out
    assert kn.view.shown_void(3, cards.CLUBS) and kn.view.shown_void(0, cards.CLUBS)
    assert kn.p_holds(3, cards.parse("KC")) == 0.0  # a shown void holds none
    assert kn.p_holds(1, cards.parse("KC")) > 0.0
    kn1 = Knowledge(st.view(1))
    assert kn1.is_master(cards.parse("KC"))  # AC is gone: seat 1's KC is top
    # yet not counted as a trick: seats 3 and 0, short of tricks, showed no clubs
    assert cards.parse("KC") not in kn1.counted
    assert kn1.p_ruffed(cards.CLUBS) > 0.9


# ------------------------------------------------------ options and names
def test_presets_are_registered_with_options():
    for name in ("spades/spade-count", "spades/count-bid", "spades/modified-count",
                 "spades/expert"):
        assert name in SPADES_BOTS
    bot = agents.make("spades/count-bid:nil=set-safe,prefer=avoid-over")
    assert bot.options["nil"] == "set-safe" and bot.options["prefer"] == "avoid-over"
    assert bot.options["bid"] == "count"


@pytest.mark.parametrize("spec, word", [
    ("spades/expert:nil=sometimes", "sometimes"),
    ("spades/count-bid:bid=guess", "guess"),
    ("spades/rule:lead=trumps", "trumps"),
    ("spades/rule:prefer=both", "both"),
    ("spades/rule:play=psychic", "psychic"),
    ("spades/rule:colour=red", "colour"),
])
def test_bad_options_are_refused_by_name(spec, word):
    with pytest.raises(ValueError, match=word):
        agents.make(spec)


# ---------------------------------------------------------- whole games
def play_game(rules, lineup, seed, max_hands=30):
    st = SpadesState(rules.replace(max_hands=max_hands), seed)
    bots = [agents.make(spec, seed=seed + i) for i, spec in enumerate(lineup)]
    moves = 0
    while not st.is_over:
        seat = st.current_player
        legal = st.legal_actions()
        action = bots[seat].act(st.view(seat), legal)
        assert type(action) is int and action in legal, (lineup[seat], action, legal)
        st.apply(action)
        moves += 1
    return st, moves


@pytest.mark.parametrize("rules", [KILLER, CUTTHROAT, KILLER.replace(jokers=True),
                                   CUTTHROAT.replace(jokers=True)],
                         ids=["killer", "cutthroat", "killer+jokers", "cutthroat+jokers"])
def test_every_bot_plays_only_legal_actions_over_whole_games(rules):
    """Whole games (to the target or 12 hands, whichever comes first: both ends are
    reached) with every bot in every seat: one game per rotation of the lineup (the rule
    tables and properties cover the rest)."""
    lineups = [SPADES_BOTS[i:] + SPADES_BOTS[:i] for i in range(len(SPADES_BOTS))]
    for g, lineup in enumerate(lineups):
        st, moves = play_game(rules, (lineup + ["random"])[:4], seed=100 * g, max_hands=12)
        assert st.winners and moves == 56 * len(st.results)  # 4 bids + 52 cards a hand


@pytest.mark.parametrize("bot", SPADES_BOTS)
def test_bots_read_only_their_view(bot):
    """Swap two same-suit cards between two other seats: until either is played, every
    choice of the observed seat is the same."""
    seat = 0
    base = SpadesState(KILLER.replace(max_hands=1), 11)
    hands = [list(h) for h in base.hands]
    drivers = [agents.make("spades/expert", seed=i) for i in range(4)]
    actions, st = [], base
    while not st.is_over:
        p = st.current_player
        a = drivers[p].act(st.view(p), st.legal_actions())
        actions.append((p, a))
        st.apply(a)
    played_at = {action_card(a): i for i, (p, a) in enumerate(actions) if a >= CARD_OFFSET}
    # the same-suit pair between seats 1 and 2 whose first play comes latest
    x, y = max(((x, y) for x in hands[1] for y in hands[2] if x // 13 == y // 13),
               key=lambda xy: min(played_at[xy[0]], played_at[xy[1]]))
    cutoff = min(played_at[x], played_at[y])
    assert cutoff > 20  # a long stretch of the hand to compare
    swapped = [list(h) for h in hands]
    swapped[1][swapped[1].index(x)] = y
    swapped[2][swapped[2].index(y)] = x
    observed = {}
    for deal in (hands, swapped):
        st = SpadesState(KILLER.replace(max_hands=1), 11, deal=deal)
        player = agents.make(bot, seed=7)
        chosen = []
        for p, a in actions[:cutoff]:
            if p == seat:
                chosen.append(player.act(st.view(seat), st.legal_actions()))
            st.apply(a)
        observed[id(deal)] = chosen
    first, second = observed.values()
    assert len(first) >= 5 and first == second
