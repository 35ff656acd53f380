"""PettingZoo AEC env for Spades (``spades_v0``), both presets of one engine.

    from envs.spades import env
    e = env(preset="killer")            # or "cutthroat", or rules=SpadesRules(...)
    e.reset(seed=1, options={"deal": [[...13 names...]] * 4})

Observations are ``{"observation": float32[OBS_SIZE], "action_mask": int8[68]}``
from the seat's ``SpadesView`` only (kept up to date move by move by
``encode.SpadesObserver``, equal to ``encode(state.view(seat))``). Hand rewards
are scaled by 100 points.
"""

from __future__ import annotations

from envs.aec import CardGameEnv, split_env_options
from envs.spades import encode
from envs.spades.actions import NUM_ACTIONS, action_name
from envs.spades.engine import SpadesState
from envs.spades.render import render
from envs.spades.rules import SpadesRules, get_rules

ENV_NAME = "spades_v0"


class raw_env(CardGameEnv):  # noqa: N801 - PettingZoo naming
    metadata = {**CardGameEnv.metadata, "name": ENV_NAME}
    num_players = 4
    obs_size = encode.OBS_SIZE
    num_actions = NUM_ACTIONS
    default_score_scale = 100.0

    def __init__(
        self,
        preset: str = "killer",
        rules: SpadesRules | None = None,
        render_mode: str | None = None,
        **options,
    ) -> None:
        env_options, rule_changes = split_env_options(options)
        self.rules = get_rules(rules if rules is not None else preset, **rule_changes)
        super().__init__(render_mode=render_mode, **env_options)

    def _new_state(self, seed, options):
        return SpadesState(self.rules, seed, deal=options.get("deal"))

    def _encode(self, view):
        return encode.encode(view)

    def _make_observer(self):
        # keeps each seat's vector current move by move: no view + encode per step
        return encode.SpadesObserver()

    _mask = staticmethod(encode.action_mask)  # one call less per observe than a method

    def _observation_bounds(self):
        return encode.observation_bounds()

    def _render_view(self, view):
        return render(view)

    def _action_name(self, action):
        return action_name(action)


def env(**kwargs) -> raw_env:
    """The Spades env, as PettingZoo's ``env()`` constructors give it.

    Not wrapped in PettingZoo's ``OrderEnforcingWrapper``: ``raw_env`` checks
    the call order itself (``envs.aec``) at no cost per step, where the wrapper's
    attribute forwarding cost as much per step as the rest of the env.
    ``env().unwrapped`` is the env itself.
    """
    return raw_env(**kwargs)
