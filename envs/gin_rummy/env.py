"""PettingZoo AEC env for Gin Rummy (``gin_rummy_v0``): 2 to 4 players, both presets.

    from envs.gin_rummy import env
    e = env(preset="standard")          # or "seed" (num_players=3, ...), or rules=...
    e.reset(seed=1, options={"deal": [[...10 names...], [...10 names...]]})

Observations are ``{"observation": float32[obs_size(n)], "action_mask": int8[106]}``
from the seat's ``GinRummyView`` only (kept up to date move by move by
``encode.GinRummyObserver``, equal to ``encode(state.view(seat))``). Hand rewards
are scaled by 100 points.
"""

from __future__ import annotations

from envs.aec import CardGameEnv, split_env_options
from envs.gin_rummy import encode
from envs.gin_rummy.actions import NUM_ACTIONS, action_name
from envs.gin_rummy.engine import GinRummyState
from envs.gin_rummy.render import render
from envs.gin_rummy.rules import GinRummyRules, get_rules

ENV_NAME = "gin_rummy_v0"


class raw_env(CardGameEnv):  # noqa: N801 - PettingZoo naming
    metadata = {**CardGameEnv.metadata, "name": ENV_NAME}
    num_actions = NUM_ACTIONS
    default_score_scale = 100.0

    def __init__(
        self,
        preset: str = "seed",
        rules: GinRummyRules | None = None,
        render_mode: str | None = None,
        **options,
    ) -> None:
        env_options, rule_changes = split_env_options(options)
        self.rules = get_rules(rules if rules is not None else preset, **rule_changes)
        self.num_players = self.rules.num_players
        self.layout = encode.layout(self.num_players)
        self.obs_size = self.layout.size
        super().__init__(render_mode=render_mode, **env_options)

    def _new_state(self, seed, options):
        return GinRummyState(self.rules, seed, deal=options.get("deal"))

    def _encode(self, view):
        return encode.encode(view)

    def _make_observer(self):
        # keeps each seat's vector current move by move: no view + encode per step
        return encode.GinRummyObserver(self.num_players)

    _mask = staticmethod(encode.action_mask)  # one call less per observe than a method

    def _observation_bounds(self):
        return self.layout.bounds()

    def _render_view(self, view):
        return render(view)

    def _action_name(self, action):
        return action_name(action)


def env(**kwargs) -> raw_env:
    """The Gin Rummy env, as PettingZoo's ``env()`` constructors give it.

    Not wrapped in PettingZoo's ``OrderEnforcingWrapper``: ``raw_env`` checks the
    call order itself (``envs.aec``). ``env().unwrapped`` is the env itself.
    """
    return raw_env(**kwargs)
