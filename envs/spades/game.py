"""Spades' declaration (``envs.games``): everything generic code needs."""

from envs.games import Game
from envs.spades.actions import NUM_ACTIONS, action_name
from envs.spades.engine import SpadesState
from envs.spades.features import FEATURES
from envs.spades.infostate import INFOSTATE
from envs.spades.render import render
from envs.spades.rules import PRESETS, get_rules
from envs.spades.scoring import HAND_RATES, hand_metric
from envs.spades.view import SpadesView
from envs.spades.worlds import hand_points, sample_worlds

GAME = Game(
    name="spades",
    env_name="spades_v5",
    presets=tuple(PRESETS),
    get_rules=get_rules,
    state=SpadesState,
    view=SpadesView,
    num_players=lambda rules: 4,
    num_actions=NUM_ACTIONS,
    action_name=action_name,
    render=render,
    encoders={"infostate": INFOSTATE, "features": FEATURES},
    score_scale=lambda rules: 100.0,
    strongest=("spades/expert", "spades/count-bid"),
    hand_metric=hand_metric,
    hand_rates=HAND_RATES,
    sample_worlds=sample_worlds,
    hand_points=hand_points,
)
