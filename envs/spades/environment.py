"""The PettingZoo AEC env of Spades (``spades_v6``), both presets of one engine.

    from cardrl.envs.spades import env
    e = env(preset="killer")            # or "cutthroat", or rules=SpadesRules(...)
    e = env(observation="features")     # the expert's numbers too (envs.spades.features)
    e.reset(seed=1, options={"deal": [[...13 names...]] * 4})

Observations are ``{"observation": float32[INFOSTATE.size(4)], "action_mask":
int8[68]}`` (``FEATURES.size(4)`` floats with ``observation="features"``; the sizes are on
docs/envs/spades.md, which a test holds to the encoders) from the seat's ``SpadesView``
only. Hand rewards are scaled by 100 points.
"""

from __future__ import annotations

from cardrl.envs.aec import CardGameEnv
from cardrl.envs.spades.game import GAME

ENV_NAME = GAME.env_name


class raw_env(CardGameEnv):  # noqa: N801 - PettingZoo naming
    metadata = {**CardGameEnv.metadata, "name": ENV_NAME}
    game = GAME


def env(**kwargs) -> raw_env:
    """The Spades env, as PettingZoo's ``env()`` constructors give it.

    Not wrapped in PettingZoo's ``OrderEnforcingWrapper``: ``raw_env`` checks
    the call order itself (``cardrl.envs.aec``) at no cost per step, where the wrapper's
    attribute forwarding cost as much per step as the rest of the env.
    ``env().unwrapped`` is the env itself.
    """
    return raw_env(**kwargs)
