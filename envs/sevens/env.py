"""PettingZoo AEC env for Sevens (``sevens_v0``), 2 to 9 players.

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

from envs.aec import CardGameEnv, split_env_options
from envs.sevens import encode
from envs.sevens.actions import NUM_ACTIONS, action_name
from envs.sevens.engine import SevensState
from envs.sevens.render import render
from envs.sevens.rules import SevensRules, get_rules

ENV_NAME = "sevens_v0"


class raw_env(CardGameEnv):  # noqa: N801 - PettingZoo naming
    metadata = {**CardGameEnv.metadata, "name": ENV_NAME}
    obs_size = encode.OBS_SIZE
    num_actions = NUM_ACTIONS
    default_score_scale = 10.0

    def __init__(
        self,
        preset: str = "random",
        rules: SevensRules | None = None,
        render_mode: str | None = None,
        **options,
    ) -> None:
        env_options, rule_changes = split_env_options(options)
        self.rules = get_rules(rules if rules is not None else preset, **rule_changes)
        self.num_players = self.rules.num_players
        super().__init__(render_mode=render_mode, **env_options)

    def _new_state(self, seed, options):
        return SevensState(self.rules, seed, deal=options.get("deal"))

    def _encode(self, view):
        return encode.encode(view)

    _mask = staticmethod(encode.action_mask)

    def _observation_bounds(self):
        return encode.observation_bounds()

    def _render_view(self, view):
        return render(view)

    def _action_name(self, action):
        return action_name(action)


def env(**kwargs) -> raw_env:
    """The Sevens env, unwrapped as ``envs.spades.env`` explains (order checks built in)."""
    return raw_env(**kwargs)
