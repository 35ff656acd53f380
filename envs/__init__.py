"""cardrl games: each a PettingZoo AEC env over a pure engine (see docs/design.md).

Importing ``envs`` registers every game with PettingZoo (``envs.registry``):
``pettingzoo.make("aec", "cardrl/spades-v5", preset="killer")``.
"""

from envs.registry import after_import, register_games

after_import("pettingzoo", register_games)
