"""Blind Auction: 2 or 3 players bid cards of their suit for hidden diamond prizes."""

from envs.blind_auction.engine import BlindAuctionState, IllegalActionError
from envs.blind_auction.env import ENV_NAME, env, parallel_env, parallel_raw_env, raw_env
from envs.blind_auction.rules import (
    PRESETS,
    THREE_PLAYERS,
    TWO_PLAYERS,
    BlindAuctionRules,
    get_rules,
)
from envs.blind_auction.view import BlindAuctionView

__all__ = ["BlindAuctionState", "BlindAuctionView", "BlindAuctionRules", "IllegalActionError",
           "TWO_PLAYERS", "THREE_PLAYERS", "PRESETS", "get_rules", "env", "raw_env",
           "parallel_env", "parallel_raw_env", "ENV_NAME"]
