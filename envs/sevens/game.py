"""Sevens as seen by the game registry (``envs.games``)."""

from envs.games import Game
from envs.sevens.actions import action_name
from envs.sevens.encode import action_features, encode
from envs.sevens.engine import SevensState
from envs.sevens.env import ENV_NAME, env
from envs.sevens.rules import PRESETS, get_rules
from envs.sevens.view import SevensView

GAME = Game(
    name="sevens",
    presets=tuple(PRESETS),
    get_rules=get_rules,
    new_state=lambda rules, seed=None, deal=None: SevensState(rules, seed, deal=deal),
    env=env,
    num_players=lambda rules: rules.num_players,
    action_name=action_name,
    view_from_dict=SevensView.from_dict,
    env_name=ENV_NAME,
    encode=encode,
    action_features=action_features,
)
