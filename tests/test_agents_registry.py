"""The bot registry's per-game facts: every game names its strongest rule bots."""

import pytest

from cardrl import agents
from cardrl.envs.games import game_names


@pytest.mark.parametrize("game", game_names())
def test_strongest_bots_are_registered_bots_of_their_game(game):
    strongest = agents.strongest(game)
    assert strongest, f"{game} names no strongest bot"
    for spec in strongest:
        assert spec in agents.names(game)
        assert agents.make(spec).game == game


def test_strongest_of_an_unknown_game_names_it():
    with pytest.raises(ValueError, match="'chess'"):
        agents.strongest("chess")
