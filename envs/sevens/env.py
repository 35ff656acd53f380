"""PettingZoo AEC env for Sevens (``sevens_v2``), 2 to 9 players.

    from envs.sevens import env
    e = env(num_players=5)               # parameters drawn per game from the reset seed
    e = env(preset="classic")            # or fixed parameters
    e.reset(seed=1, options={"deal": [[...hand...]] * n + [[...table...]]})

Observations are ``{"observation": float32[OBS_SIZE], "action_mask": int8[104]}``
from the seat's ``SevensView`` only; the layout is the same for every player
count. A game is one hand: its points / ``score_scale`` (default 10) are the
reward when it ends, plus the win bonus.
"""

from __future__ import annotations

from envs.aec import CardGameEnv, GameEnv
from envs.sevens import encode
from envs.sevens.actions import NUM_ACTIONS, action_name
from envs.sevens.engine import SevensState
from envs.sevens.render import render
from envs.sevens.rules import SevensRules, get_rules

ENV_NAME = "sevens_v2"


class raw_env(GameEnv):  # noqa: N801 - PettingZoo naming
    metadata = {**CardGameEnv.metadata, "name": ENV_NAME}
    obs_size = encode.OBS_SIZE
    num_actions = NUM_ACTIONS
    default_score_scale = 10.0
    default_preset = "random"
    get_rules = staticmethod(get_rules)
    state_class = SevensState
    rules: SevensRules

    _encode = staticmethod(encode.encode)
    _mask = staticmethod(encode.action_mask)
    _observation_bounds = staticmethod(encode.observation_bounds)
    _render_view = staticmethod(render)
    _action_name = staticmethod(action_name)


def env(**kwargs) -> raw_env:
    """The Sevens env, unwrapped as ``envs.spades.env`` explains (order checks built in)."""
    return raw_env(**kwargs)
