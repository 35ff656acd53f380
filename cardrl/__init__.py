"""cardrl: card games for reinforcement learning.

Importing ``cardrl`` (or any of its modules: a package's ``__init__`` runs first)
registers every game with PettingZoo (``pettingzoo.make("aec", "cardrl/spades-v6")``,
and ``"parallel"`` where a game has one) and its single-seat env with Gymnasium
(``gymnasium.make("cardrl/Spades-v6")``), as Gymnasium's add-ons do;
``gymnasium.register_envs(cardrl)`` names the import for linters. Registering reads the
games' declarations and imports no env, bot, numba or torch module.

The layers are subpackages, each a folder of the repository: ``cardrl.envs`` (games
and envs), ``cardrl.agents`` (bots), ``cardrl.train``, ``cardrl.eval`` (tournaments),
``cardrl.web`` (the web table) and ``cardrl.checkpoints`` (the shipped bots, package
data). The command line is ``cardrl`` (``cardrl.cli``).
"""

from importlib.metadata import PackageNotFoundError, version

from cardrl.envs.games import GAMES
from cardrl.envs.registry import gym_id
from cardrl.envs.registry import register_games as register_pettingzoo

try:
    __version__ = version("cardrl")
except PackageNotFoundError:  # imported from a checkout that was never installed
    __version__ = "0+unknown"

# the single-seat env plays bots, so it lives in cardrl.agents, which the env layer never
# imports: Gymnasium imports it when an env is made
SINGLE_SEAT = "cardrl.agents.single_seat:SingleSeatEnv"


def register_gymnasium() -> list[str]:
    """Register every game's single-seat env with Gymnasium; the ids. Idempotent."""
    import gymnasium

    ids = []
    for game in GAMES:
        ident = gym_id(game)
        known = gymnasium.registry.get(ident)
        if known is None or known.entry_point != SINGLE_SEAT or known.kwargs != {"game": game}:
            gymnasium.register(ident, entry_point=SINGLE_SEAT, kwargs={"game": game})
        ids.append(ident)
    return ids


register_pettingzoo()
register_gymnasium()
