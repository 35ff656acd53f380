"""Spades' declaration (``cardrl.envs.games``): everything generic code needs."""

from cardrl.envs.games import Game
from cardrl.envs.spades.actions import NUM_ACTIONS, action_name
from cardrl.envs.spades.engine import SpadesState
from cardrl.envs.spades.features import FEATURES
from cardrl.envs.spades.infostate import INFOSTATE
from cardrl.envs.spades.render import render
from cardrl.envs.spades.rules import PRESETS, get_rules
from cardrl.envs.spades.scoring import HAND_RATES, hand_metric, hand_worth
from cardrl.envs.spades.view import SpadesView
from cardrl.envs.spades.worlds import past_moves, sample_worlds

GAME = Game(
    name="spades",
    env_name="spades_v6",
    bots_carry_over_from=("spades_v5",),  # only the rewards and the hand cap changed
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
    past_moves=past_moves,
    hand_worth=hand_worth,
)
