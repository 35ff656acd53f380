"""PettingZoo AEC env for Spades (``spades_v3``), both presets of one engine.

    from envs.spades import env
    e = env(preset="killer")            # or "cutthroat", or rules=SpadesRules(...)
    e.reset(seed=1, options={"deal": [[...13 names...]] * 4})

Observations are ``{"observation": float32[OBS_SIZE], "action_mask": int8[68]}``
from the seat's ``SpadesView`` only (kept up to date move by move by
``encode.SpadesObserver``, equal to ``encode(state.view(seat))``). Hand rewards
are scaled by 100 points.
"""

from __future__ import annotations

from envs.aec import CardGameEnv, GameEnv
from envs.spades import encode
from envs.spades.actions import NUM_ACTIONS, action_name
from envs.spades.engine import SpadesState
from envs.spades.render import render
from envs.spades.rules import SpadesRules, get_rules

ENV_NAME = "spades_v3"


class raw_env(GameEnv):  # noqa: N801 - PettingZoo naming
    metadata = {**CardGameEnv.metadata, "name": ENV_NAME}
    num_players = 4
    obs_size = encode.OBS_SIZE
    num_actions = NUM_ACTIONS
    default_score_scale = 100.0
    default_preset = "killer"
    get_rules = staticmethod(get_rules)
    state_class = SpadesState
    rules: SpadesRules

    _encode = staticmethod(encode.encode)
    _mask = staticmethod(encode.action_mask)  # one call less per observe than a method
    _observation_bounds = staticmethod(encode.observation_bounds)
    _render_view = staticmethod(render)
    _action_name = staticmethod(action_name)

    def _make_observer(self):
        # keeps each seat's vector current move by move: no view + encode per step
        return encode.SpadesObserver()


def env(**kwargs) -> raw_env:
    """The Spades env, as PettingZoo's ``env()`` constructors give it.

    Not wrapped in PettingZoo's ``OrderEnforcingWrapper``: ``raw_env`` checks
    the call order itself (``envs.aec``) at no cost per step, where the wrapper's
    attribute forwarding cost as much per step as the rest of the env.
    ``env().unwrapped`` is the env itself.
    """
    return raw_env(**kwargs)
