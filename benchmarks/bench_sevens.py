"""Speed of the Sevens engine, PettingZoo env and batched API (no other library plays Sevens).

    python -m benchmarks.bench_sevens [--seconds 3] [--json PATH]

Every row plays uniformly random legal actions on one pinned core; an episode is
one game (one hand). The bar: ``BatchedGames`` at 256 games at least 10x our own
AEC env per agent step, at the same rules. Run it from the repository root;
``make bench`` runs it.
"""

from __future__ import annotations

import sys

from benchmarks.common import bar_line, bar_lines, batched_ticks, engine_episode, env_episode
from benchmarks.common import main as bench_main
from benchmarks.timing import RandomPicks, Row, RowSpec
from cardrl.envs.batched import BatchedGames
from cardrl.envs.sevens import SevensState, get_rules
from cardrl.envs.sevens.environment import env
from cardrl.envs.sevens.infostate import OBS_SIZE

CONFIGS = (("random", 4), ("classic", 4), ("random", 2), ("random", 9))  # (preset, players)
BATCHED = 256
GOAL = 10.0  # BatchedGames per agent step at least this many times the AEC env's speed

NOTES = {
    "env": "the PettingZoo AEC loop as a user writes it: reset(seed), then for agent in "
           "agent_iter(): obs, rew, term, trunc, info = last() (the float32[{obs}] "
           "information state from the env's observer, a fresh copy, and the mask), then "
           "step(random legal from the mask); the dead steps after the game are timed but "
           "not counted.",
    "batched": "BatchedGames('sevens', {batch}, preset, num_players) served by its compiled "
               "core (envs/sevens/compiled.py): per tick one step_games(all {batch} games, "
               "actions) with each game's action uniformly random among the legal ones in "
               "games.masks (a compiled pick, pre-drawn numbers); the float32[{obs}] "
               "information states, masks, seats, rewards and dones of all {batch} games "
               "written in place, a finished game restarted from its next seed (its "
               "parameters drawn and its cards dealt from it). An 'episode' here is 32 ticks.",
    "batched_python": "the same loop with compiled=False: the Python engines and their "
                      "incremental observers, game by game.",
    "engine": "SevensState alone: SevensState(rules, seed) draws the parameters and deals, "
              "then legal_actions() and apply(random legal) to the end. No observation.",
}


def _name(kind: str, preset: str, n: int) -> str:
    return f"ours {kind} {preset} {n}p"


def ours_specs() -> list[RowSpec]:
    specs = [RowSpec(_name("env()", p, n), env_episode(env(preset=p, num_players=n),
                                                       RandomPicks(1)), "env")
             for p, n in CONFIGS]
    specs += [RowSpec(_name(f"BatchedGames x{BATCHED}", p, n),
                      batched_ticks(BatchedGames("sevens", BATCHED, preset=p, num_players=n), 5),
                      "batched") for p, n in CONFIGS]
    specs.append(RowSpec(_name(f"BatchedGames x{BATCHED}", "random", 4) + " compiled=False",
                         batched_ticks(BatchedGames("sevens", BATCHED, preset="random",
                                                    compiled=False), 6, ticks=2),
                         "batched_python"))
    rules = get_rules("random")
    specs.append(RowSpec(_name("engine", "random", 4),
                         engine_episode(lambda seed: SevensState(rules, seed), RandomPicks(2)),
                         "engine"))
    return specs


def bars(rows: list[Row]) -> str | None:
    """Each compiled batched row per step against the AEC env at the same rules."""
    return bar_lines(*(bar_line(rows, [_name(f"BatchedGames x{BATCHED}", p, n)],
                                _name("env()", p, n), faster=GOAL) for p, n in CONFIGS))


def main(argv: list[str] | None = None) -> int:
    return bench_main(
        argv, doc=__doc__, ours=ours_specs, peers=[], notes=NOTES,
        fill=lambda facts: {"batch": BATCHED, "obs": OBS_SIZE},
        bar=bars, footer=lambda facts: [])


if __name__ == "__main__":
    sys.exit(main())
