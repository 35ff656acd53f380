"""The PettingZoo AEC env of Sevens (``sevens_v5``), 2 to 9 players.

    from cardrl.envs.sevens import env
    e = env(num_players=5)               # parameters drawn per game from the reset seed
    e = env(preset="classic")            # or fixed parameters
    e = env(observation="features")      # the next player's expected reply too
    e.reset(seed=1, options={"deal": [[...hand...]] * n + [[...table...]]})

Observations are ``{"observation": float32[INFOSTATE.size(n)], "action_mask":
int8[104]}`` (``FEATURES.size(n)`` with ``observation="features"``; docs/envs/sevens.md
gives the sizes, held to the encoders by a test) from the seat's ``SevensView`` only;
the layout is the same for every player count. A game is one hand: its points less the
others' mean, over ``score_scale`` (default 10), are the reward when it ends, plus the
win bonus.
"""

from __future__ import annotations

from cardrl.envs.aec import CardGameEnv
from cardrl.envs.sevens.game import GAME

ENV_NAME = GAME.env_name


class raw_env(CardGameEnv):  # noqa: N801 - PettingZoo naming
    metadata = {**CardGameEnv.metadata, "name": ENV_NAME}
    game = GAME


def env(**kwargs) -> raw_env:
    """The Sevens env, unwrapped as ``cardrl.envs.spades.env`` explains (order checks built in)."""
    return raw_env(**kwargs)
