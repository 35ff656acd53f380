"""eval.agreement: a bot's moves against a shadow teacher's, per phase."""

from __future__ import annotations

import pytest

from eval import agreement


def test_a_bot_agrees_with_itself_and_not_with_random():
    same = agreement.compare("blind_auction", "2p", "blind_auction/high-early",
                             "blind_auction/high-early", games=6)
    assert same["phases"] == {"play": {"decisions": 6 * 13, "disagree": 0}}
    assert not same["pairs"]
    rand = agreement.compare("blind_auction", "2p", "random", "blind_auction/high-early", games=6)
    bid = rand["phases"]["play"]  # a view without a phase: one phase, play
    assert 0 < bid["disagree"] < bid["decisions"]
    assert sum(rand["pairs"].values()) == bid["disagree"]
    assert all(wanted != played for _, wanted, played in rand["pairs"])


def test_phases_are_the_views_phases():
    result = agreement.compare("spades", "killer", "spades/count-bid", "spades/expert", games=1)
    assert set(result["phases"]) == {"bid", "play"}
    assert result["phases"]["play"]["decisions"] >= 13


@pytest.mark.parametrize("args, message", [
    (["chess", "random", "random"], "unknown game 'chess'"),
    (["spades", "gin_rummy/expert", "spades/expert"], "plays gin_rummy, not spades"),
    (["spades", "random", "random", "--games", "0"], "games must be a positive int, got 0"),
])
def test_command_line_names_bad_input(args, message, capsys):
    assert agreement.main(args) == 2
    assert message in capsys.readouterr().err
