"""Gin Rummy's declaration (``cardrl.envs.games``): everything generic code needs."""

from cardrl.envs.games import Game
from cardrl.envs.gin_rummy.actions import NUM_ACTIONS, action_name
from cardrl.envs.gin_rummy.engine import GinRummyState
from cardrl.envs.gin_rummy.features import FEATURES
from cardrl.envs.gin_rummy.infostate import INFOSTATE
from cardrl.envs.gin_rummy.render import render
from cardrl.envs.gin_rummy.rules import PRESETS, get_rules
from cardrl.envs.gin_rummy.scoring import HAND_RATES, hand_metric
from cardrl.envs.gin_rummy.view import GinRummyView
from cardrl.envs.gin_rummy.worlds import sample_worlds

GAME = Game(
    name="gin_rummy",
    env_name="gin_rummy_v9",
    bots_carry_over_from=("gin_rummy_v8",),  # only the rewards and the hand cap changed
    presets=tuple(PRESETS),
    get_rules=get_rules,
    state=GinRummyState,
    view=GinRummyView,
    num_players=lambda rules: rules.num_players,
    num_actions=NUM_ACTIONS,
    action_name=action_name,
    render=render,
    encoders={"infostate": INFOSTATE, "features": FEATURES},
    score_scale=lambda rules: 100.0,
    strongest=("gin_rummy/expert", "gin_rummy/simple"),
    hand_metric=hand_metric,
    hand_rates=HAND_RATES,
    sample_worlds=sample_worlds,
)
