"""Card ids, names, parsing errors, decks, deals."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cardrl.envs import cards


def test_documented_ids():
    assert cards.parse("2C") == 0
    assert cards.parse("AC") == 12
    assert cards.parse("2D") == 13
    assert cards.parse("AS") == 51
    assert cards.parse("LJ") == cards.LITTLE_JOKER == 52
    assert cards.parse("BJ") == cards.BIG_JOKER == 53


@given(st.integers(0, cards.NUM_CARDS - 1))
def test_name_parse_round_trip(card_id):
    assert cards.parse(cards.name(card_id)) == card_id
    assert cards.parse(cards.name(card_id).lower()) == card_id


def test_ten_spellings_and_suit_rank():
    assert cards.parse("10H") == cards.parse("TH") == cards.card(cards.TEN, cards.HEARTS)
    assert cards.suit_of(cards.parse("QD")) == cards.DIAMONDS
    assert cards.rank_of(cards.parse("QD")) == cards.QUEEN


@pytest.mark.parametrize("bad", ["1S", "AX", "", "10", "S", "11H", "JJ"])
def test_parse_errors_name_the_bad_value(bad):
    with pytest.raises(cards.CardError, match=repr(bad).replace("'", ".")):
        cards.parse(bad)


def test_name_rejects_out_of_range_ids():
    for bad in (-1, 54, 3.0):
        with pytest.raises(cards.CardError, match=str(bad)):
            cards.name(bad)


def test_decks():
    assert len(cards.make_deck()) == 52 and len(set(cards.make_deck())) == 52
    jokers = cards.make_deck(jokers=True)
    assert len(jokers) == 52
    assert cards.parse("2C") not in jokers and cards.parse("2D") not in jokers
    assert cards.parse("BJ") in jokers and cards.parse("LJ") in jokers


@given(st.integers(0, 2**32 - 1), st.integers(1, 9))
def test_deal_conserves_cards(seed, players):
    size = 52 // players
    hands, rest = cards.deal(cards.make_deck(), players, size, np.random.default_rng(seed))
    dealt = [c for h in hands for c in h] + rest
    assert sorted(dealt) == list(range(52))
    assert all(len(h) == size for h in hands)


def test_shuffle_is_repeatable_from_the_generator():
    deck = cards.make_deck()
    a = cards.shuffled(deck, np.random.default_rng(7))
    b = cards.shuffled(deck, np.random.default_rng(7))
    c = cards.shuffled(deck, np.random.default_rng(8))
    assert a == b != c and sorted(a) == list(deck)


def test_check_deal_errors():
    deck = cards.make_deck()
    good = [cards.names(range(13 * i, 13 * i + 13)) for i in range(4)]
    assert cards.check_deal(good, deck, 4, 13)[3] == list(range(39, 52))
    short = [good[0][:12]] + good[1:]
    with pytest.raises(cards.CardError, match="misdeal: hand 0 has 12 cards"):
        cards.check_deal(short, deck, 4, 13)
    dup = [good[0], good[1][:12] + ["2C"]] + good[2:]
    with pytest.raises(cards.CardError, match="2C is dealt twice"):
        cards.check_deal(dup, deck, 4, 13)
    with pytest.raises(cards.CardError, match="'ZZ'"):
        cards.check_deal([good[0][:12] + ["ZZ"]] + good[1:], deck, 4, 13)
    with pytest.raises(cards.CardError, match="BJ of hand 2 is not in this game's deck"):
        cards.check_deal(good[:2] + [good[2][:12] + ["BJ"]] + good[3:], deck, 4, 13)
    with pytest.raises(cards.CardError, match="needs 4 hands, got 3"):
        cards.check_deal(good[:3], deck, 4, 13)
