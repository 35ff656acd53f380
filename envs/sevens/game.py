"""Sevens' declaration (``cardrl.envs.games``): everything generic code needs."""

from cardrl.envs.games import Game
from cardrl.envs.sevens.actions import NUM_ACTIONS, action_name
from cardrl.envs.sevens.engine import SevensState
from cardrl.envs.sevens.features import FEATURES
from cardrl.envs.sevens.infostate import INFOSTATE
from cardrl.envs.sevens.render import render
from cardrl.envs.sevens.rules import PRESETS, get_rules
from cardrl.envs.sevens.view import SevensView
from cardrl.envs.sevens.worlds import sample_worlds

GAME = Game(
    name="sevens",
    env_name="sevens_v5",
    bots_carry_over_from=("sevens_v4",),  # only the rewards and the hand cap changed
    presets=tuple(PRESETS),
    get_rules=get_rules,
    state=SevensState,
    view=SevensView,
    num_players=lambda rules: rules.num_players,
    num_actions=NUM_ACTIONS,
    action_name=action_name,
    render=render,
    encoders={"infostate": INFOSTATE, "features": FEATURES},
    score_scale=lambda rules: 10.0,
    strongest=("sevens/lookahead", "sevens/greedy"),
    public_parameters=SevensState.public_parameters,
    disqualify_failing_bots=True,  # docs/rules.md section 3: the bot tournament
    sample_worlds=sample_worlds,
)
