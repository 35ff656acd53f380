"""The PettingZoo AEC env of Gin Rummy (``gin_rummy_v9``): 2 to 4 players, both presets.

    from cardrl.envs.gin_rummy import env
    e = env(preset="standard")          # or "seed" (num_players=3, ...), or rules=...
    e = env(observation="features")     # the meld solver's and tracker's numbers too
    e.reset(seed=1, options={"deal": [[...10 names...], [...10 names...]]})

Observations are ``{"observation": float32[infostate.layout(n).size], "action_mask":
int8[106]}`` from the seat's ``GinRummyView`` only. Hand rewards are scaled by 100
points.
"""

from __future__ import annotations

from cardrl.envs.aec import CardGameEnv
from cardrl.envs.gin_rummy.game import GAME

ENV_NAME = GAME.env_name


class raw_env(CardGameEnv):  # noqa: N801 - PettingZoo naming
    metadata = {**CardGameEnv.metadata, "name": ENV_NAME}
    game = GAME


def env(**kwargs) -> raw_env:
    """The Gin Rummy env, as PettingZoo's ``env()`` constructors give it.

    Not wrapped in PettingZoo's ``OrderEnforcingWrapper``: ``raw_env`` checks the
    call order itself (``cardrl.envs.aec``). ``env().unwrapped`` is the env itself.
    """
    return raw_env(**kwargs)
