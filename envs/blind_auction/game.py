"""Blind Auction's declaration (``cardrl.envs.games``): everything generic code needs."""

import dataclasses

from cardrl.envs.blind_auction import best_response
from cardrl.envs.blind_auction.actions import NUM_ACTIONS, action_name
from cardrl.envs.blind_auction.engine import BlindAuctionState
from cardrl.envs.blind_auction.infostate import INFOSTATE
from cardrl.envs.blind_auction.render import render
from cardrl.envs.blind_auction.rules import PRESETS, get_rules
from cardrl.envs.blind_auction.view import BlindAuctionView
from cardrl.envs.blind_auction.worlds import sample_worlds
from cardrl.envs.games import Game


def _observer(num_players: int):
    """The env's compiled observer, imported when an env first makes one: it loads numba,
    which importing the declaration does not."""
    from cardrl.envs.blind_auction.observer import BlindAuctionObserver
    return BlindAuctionObserver(num_players)


_INFOSTATE = dataclasses.replace(INFOSTATE, observer=_observer)
# the rule bots reckon with nothing beyond the information state: the features are the same
_FEATURES = dataclasses.replace(_INFOSTATE, kind="features")

GAME = Game(
    name="blind_auction",
    env_name="blind_auction_v1",
    bots_carry_over_from=("blind_auction_v0",),  # only the rewards and the hand cap changed
    presets=tuple(PRESETS),
    get_rules=get_rules,
    state=BlindAuctionState,
    view=BlindAuctionView,
    num_players=lambda rules: rules.num_players,
    num_actions=NUM_ACTIONS,
    action_name=action_name,
    render=render,
    encoders={"infostate": _INFOSTATE, "features": _FEATURES},
    score_scale=lambda rules: float(rules.prize_total),  # a share of the prizes
    strongest=("blind_auction/high-early", "blind_auction/save-high"),
    exploitability=best_response.exploitability,  # 2 players, small decks
    parallel=True,  # environment.parallel_env: every seat bids at once
    simultaneous=True,
    sample_worlds=sample_worlds,
)
