"""PettingZoo AEC env for Gin Rummy (``gin_rummy_v5``): 2 to 4 players, both presets.

    from envs.gin_rummy import env
    e = env(preset="standard")          # or "seed" (num_players=3, ...), or rules=...
    e.reset(seed=1, options={"deal": [[...10 names...], [...10 names...]]})

Observations are ``{"observation": float32[obs_size(n)], "action_mask": int8[106]}``
from the seat's ``GinRummyView`` only (kept up to date move by move by
``encode.GinRummyObserver``, equal to ``encode(state.view(seat))``). Hand rewards
are scaled by 100 points.
"""

from __future__ import annotations

from envs.aec import CardGameEnv, GameEnv
from envs.gin_rummy import encode
from envs.gin_rummy.actions import NUM_ACTIONS, action_name
from envs.gin_rummy.engine import GinRummyState
from envs.gin_rummy.render import render
from envs.gin_rummy.rules import GinRummyRules, get_rules

ENV_NAME = "gin_rummy_v5"


class raw_env(GameEnv):  # noqa: N801 - PettingZoo naming
    metadata = {**CardGameEnv.metadata, "name": ENV_NAME}
    num_actions = NUM_ACTIONS
    default_score_scale = 100.0
    default_preset = "seed"
    get_rules = staticmethod(get_rules)
    state_class = GinRummyState
    rules: GinRummyRules

    _encode = staticmethod(encode.encode)
    _mask = staticmethod(encode.action_mask)  # one call less per observe than a method
    _render_view = staticmethod(render)
    _action_name = staticmethod(action_name)

    def _configure(self) -> None:
        self.num_players = self.rules.num_players
        self.layout = encode.layout(self.num_players)
        self.obs_size = self.layout.size

    def _make_observer(self):
        # keeps each seat's vector current move by move: no view + encode per step
        return encode.GinRummyObserver(self.num_players)

    def _observation_bounds(self):
        return self.layout.bounds()


def env(**kwargs) -> raw_env:
    """The Gin Rummy env, as PettingZoo's ``env()`` constructors give it.

    Not wrapped in PettingZoo's ``OrderEnforcingWrapper``: ``raw_env`` checks the
    call order itself (``envs.aec``). ``env().unwrapped`` is the env itself.
    """
    return raw_env(**kwargs)
