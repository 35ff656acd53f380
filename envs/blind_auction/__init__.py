"""Blind Auction: 2 or 3 players bid cards of their suit for hidden diamond prizes.

``env``, ``raw_env``, ``parallel_env`` and ``parallel_raw_env`` (from
``cardrl.envs.blind_auction.environment``) load PettingZoo on first use, so importing the
engine alone (``cardrl.envs.blind_auction.engine``) does not.
"""

import importlib

from cardrl.envs.blind_auction.engine import BlindAuctionState, IllegalActionError
from cardrl.envs.blind_auction.rules import (
    PRESETS,
    THREE_PLAYERS,
    TWO_PLAYERS,
    BlindAuctionRules,
    get_rules,
)
from cardrl.envs.blind_auction.view import BlindAuctionView

_ENV = ("env", "raw_env", "parallel_env", "parallel_raw_env", "ENV_NAME")


def __getattr__(name: str):
    if name in _ENV:
        value = getattr(importlib.import_module("cardrl.envs.blind_auction.environment"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["BlindAuctionState", "BlindAuctionView", "BlindAuctionRules", "IllegalActionError",
           "TWO_PLAYERS", "THREE_PLAYERS", "PRESETS", "get_rules", *_ENV]
