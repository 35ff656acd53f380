"""Blind Auction as seen by the game registry (``envs.games``)."""

from envs.blind_auction.actions import action_name
from envs.blind_auction.encode import encode
from envs.blind_auction.engine import BlindAuctionState
from envs.blind_auction.env import ENV_NAME, env
from envs.blind_auction.rules import PRESETS, get_rules
from envs.blind_auction.view import BlindAuctionView
from envs.games import Game

GAME = Game(
    name="blind_auction",
    presets=tuple(PRESETS),
    get_rules=get_rules,
    new_state=lambda rules, seed=None, deal=None: BlindAuctionState(rules, seed, deal=deal),
    env=env,
    num_players=lambda rules: rules.num_players,
    action_name=action_name,
    view_from_dict=BlindAuctionView.from_dict,
    env_name=ENV_NAME,
    encode=encode,
)
