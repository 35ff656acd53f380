"""Our Gin Rummy bots inside OpenSpiel's gin_rummy (``agents/gin_rummy/openspiel_match.py``):
the mirror in our engine agrees with OpenSpiel at every decision and on the score, and the
duplicate harness is fair to OpenSpiel's simple bot against itself."""

from __future__ import annotations

import pyspiel  # the openspiel extra, which `make test` installs: no skip
import pytest

from cardrl.agents.gin_rummy import openspiel_match as om
from cardrl.envs import cards

GAME = pyspiel.load_game("gin_rummy")
PARAMS = GAME.get_parameters()


def test_cards_and_melds_map_onto_openspiels():
    assert sorted(om.OUR_CARD) == list(range(52))
    assert [om.OS_CARD[om.OUR_CARD[c]] for c in range(52)] == list(range(52))
    state = GAME.new_initial_state()
    for c in range(52):  # OpenSpiel names cards like 'Ts', 'Ac'
        os_name = state.action_to_string(0, c).split("Action: ")[1]
        assert cards.name(om.OUR_CARD[c]) == cards.name(cards.parse(os_name))
    assert len(om.os_melds()) == om.OS_NUM_MELDS
    run6 = cards.parse_many(["2H", "3H", "4H", "5H", "6H", "7H"])
    assert [om.os_melds_by_id()[a - om.OS_MELD_BASE] for a in om.meld_actions([run6])] == \
        [frozenset(run6[:3]), frozenset(run6[3:])]


def _hands(a_spec: str, b_spec: str, deals: int, seed: int):
    """Hands of ``deals`` deals with every decision checked: (tables, decisions checked)."""
    a, b = om.make_player(a_spec, PARAMS), om.make_player(b_spec, PARAMS)
    tables = []
    for i in range(deals):
        for players in ((a, b), (b, a)):
            for p, pl in enumerate(players):
                pl.start_hand(p, i)
            table = om.Table(GAME, om.deal_for(seed, i, 0), (0, 0), 1, check=True)
            table.play(players)
            tables.append(table)
    return tables, sum(t.checked for t in tables)


@pytest.mark.parametrize("a, b", [("gin_rummy/expert", "gin_rummy/simple"),
                                  ("cardrl/gin_rummy-standard", "gin_rummy/expert")])
def test_our_bots_on_both_seats_score_as_our_engine(a, b):
    # every decision: the legal actions agree (up to discarding the card just taken, which
    # only OpenSpiel allows); our bots lay our engine's melds and layoffs, so OpenSpiel's
    # returns are our engine's points, except a tied knock (ours: an undercut; its: 0)
    tables, checked = _hands(a, b, 8, seed=3)
    assert checked > 16 * 20
    compared = 0
    for t in tables:
        ret = [int(x) for x in t.returns()]
        assert t.mirror is not None and t.mirror.over
        knocked = t.state.knocked()
        if t.wall_knocks or (any(knocked) and len(set(t.state.deadwood())) == 1):
            continue
        assert t.mirror.returns() == ret, str(t.state)
        compared += 1
    assert compared >= 12


def test_the_mirror_follows_openspiels_simple_bot():
    tables, checked = _hands("gin_rummy/expert", om.SIMPLE, 8, seed=5)
    assert checked > 16 * 10
    assert all(t.state.is_terminal() for t in tables)


def test_a_mirror_that_disagrees_fails_loudly():
    table = om.Table(GAME, om.deal_for(0, 0, 0), (0, 0), 1, check=True)
    for _ in range(21):  # OpenSpiel deals these ...
        table.state.apply_action(table.deal.order[table.chance])
        table.chance += 1
    order = list(table.deal.order)  # ... and the mirror is told another deal
    order[0], order[10] = order[10], order[0]
    table.deal = om.Deal(tuple(order))
    players = [om.make_player("gin_rummy/expert", PARAMS) for _ in range(2)]
    for p, pl in enumerate(players):
        pl.start_hand(p, 0)
    with pytest.raises(om.MirrorError, match="hand differs"):
        table.play(players)


def test_openspiels_simple_bot_against_itself_is_level():
    summary, matches = om.run(om.SIMPLE, om.SIMPLE, deals=3, seed=1)
    assert summary.matches == 6 and all(m.winner for m in matches)
    assert summary.match_win.mean == 0.5 and summary.points.mean == 0.0
    assert summary.hand_win.mean == summary.hand_loss.mean
