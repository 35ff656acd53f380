"""Spades as seen by the game registry (``envs.games``)."""

from envs.games import Game
from envs.spades.actions import action_name
from envs.spades.encode import action_features, encode
from envs.spades.engine import SpadesState
from envs.spades.env import ENV_NAME, env
from envs.spades.rules import PRESETS, get_rules
from envs.spades.view import SpadesView
from envs.spades.worlds import hand_points, sample_worlds

GAME = Game(
    name="spades",
    presets=tuple(PRESETS),
    get_rules=get_rules,
    new_state=lambda rules, seed=None, deal=None: SpadesState(rules, seed, deal=deal),
    env=env,
    num_players=lambda rules: 4,
    action_name=action_name,
    view_from_dict=SpadesView.from_dict,
    env_name=ENV_NAME,
    encode=encode,
    action_features=action_features,
    sample_worlds=sample_worlds,
    hand_points=hand_points,
)
