"""Gin Rummy as seen by the game registry (``envs.games``)."""

from envs.games import Game
from envs.gin_rummy.actions import action_name
from envs.gin_rummy.encode import action_features, encode
from envs.gin_rummy.engine import GinRummyState
from envs.gin_rummy.env import ENV_NAME, env
from envs.gin_rummy.rules import PRESETS, get_rules
from envs.gin_rummy.view import GinRummyView
from envs.gin_rummy.worlds import sample_worlds

GAME = Game(
    name="gin_rummy",
    presets=tuple(PRESETS),
    get_rules=get_rules,
    new_state=lambda rules, seed=None, deal=None: GinRummyState(rules, seed, deal=deal),
    env=env,
    num_players=lambda rules: rules.num_players,
    action_name=action_name,
    view_from_dict=GinRummyView.from_dict,
    env_name=ENV_NAME,
    encode=encode,
    action_features=action_features,
    sample_worlds=sample_worlds,
    redeal_unseen=GinRummyState.shuffle_stock,
)
