"""cardrl games: each a PettingZoo AEC env over a pure engine (see docs/design.md).

``import cardrl`` registers every game with PettingZoo (``cardrl.envs.registry``):
``pettingzoo.make("aec", "cardrl/spades-v6", preset="killer")``.
"""
