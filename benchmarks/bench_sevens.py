"""Speed of the Sevens engine, PettingZoo env and batched API (no other library plays Sevens).

    python -m benchmarks.bench_sevens [--seconds 3] [--json PATH]

Every row plays uniformly random legal actions on one pinned core; an episode is
one game (one hand). The bar: ``BatchedGames`` at 256 games at least 10x our own
AEC env per agent step, at the same rules. Run it from the repository root;
``make bench`` runs it.
"""

from __future__ import annotations

import sys

from benchmarks.common import BATCH, BATCH_TICKS, batched_episode, engine_episode, env_episode
from benchmarks.common import main as bench_main
from benchmarks.timing import RandomPicks, Row, RowSpec
from envs.batched import BatchedGames
from envs.sevens import SevensState, get_rules
from envs.sevens.environment import env
from envs.sevens.infostate import OBS_SIZE

CONFIGS = (("random", 4), ("classic", 4), ("random", 2), ("random", 9))  # (preset, players)
GOAL = 10  # BatchedGames per agent step at least this many times the AEC env's speed

NOTES = {
    "env": "the PettingZoo AEC loop as a user writes it: reset(seed), then for agent in "
           "agent_iter(): obs, rew, term, trunc, info = last() (the float32[{obs}] "
           "information state from the env's observer, a fresh copy, and the mask), then "
           "step(random legal from the mask); the dead steps after the game are timed but "
           "not counted.",
    "batched": "envs.batched.BatchedGames('sevens', {batch}) as a trainer drives it: "
               "step(actions) of all {batch} games at once, {ticks} times per timed episode, "
               "the actions drawn from the returned masks (a compiled random legal pick); "
               "each call returns the {batch} observations of the seats to act, their masks, "
               "seats, rewards and done flags (copies), and a finished game restarts with its "
               "next seed (its parameters drawn and its cards dealt from it). Served by the "
               "compiled core (envs/sevens/compiled.py) or, with compiled=False, by the Python "
               "engines and observers. Episodes are chunks of ticks; steps = agent steps.",
    "engine": "SevensState alone: SevensState(rules, seed) draws the parameters and deals, "
              "then legal_actions() and apply(random legal) to the end. No observation.",
}


def _name(kind: str, preset: str, n: int) -> str:
    return f"ours {kind} {preset} {n}p"


def ours_specs() -> list[RowSpec]:
    specs = [RowSpec(_name("env()", p, n), env_episode(env(preset=p, num_players=n),
                                                       RandomPicks(1)), "env")
             for p, n in CONFIGS]
    specs += [RowSpec(_name(f"BatchedGames x{BATCH}", p, n),
                      batched_episode(BatchedGames("sevens", BATCH, preset=p, num_players=n)),
                      "batched") for p, n in CONFIGS]
    specs.append(RowSpec(_name(f"BatchedGames x{BATCH}", "random", 4) + " compiled=False",
                         batched_episode(BatchedGames("sevens", BATCH, preset="random",
                                                      compiled=False)), "batched"))
    rules = get_rules("random")
    specs.append(RowSpec(_name("engine", "random", 4),
                         engine_episode(lambda seed: SevensState(rules, seed), RandomPicks(2)),
                         "engine"))
    return specs


def bar_line(rows: list[Row]) -> str | None:
    """Each compiled batched row per step against the AEC env at the same rules."""
    by_name = {r.name: r for r in rows if not r.skipped}
    parts = []
    for p, n in CONFIGS:
        ours, theirs = by_name.get(_name(f"BatchedGames x{BATCH}", p, n)), \
            by_name.get(_name("env()", p, n))
        if ours is None or theirs is None:
            continue
        ratio = theirs.us_per_step / ours.us_per_step
        parts.append(f"{ours.name} {ours.us_per_step:.2f} us/step = {ratio:.1f}x as fast as "
                     f"env() ({theirs.us_per_step:.2f}), "
                     f"{'meets' if ratio >= GOAL else 'misses'} the {GOAL}x bar")
    return "Bar: " + "; ".join(parts) if parts else None


def main(argv: list[str] | None = None) -> int:
    return bench_main(
        argv, doc=__doc__, ours=ours_specs, peers=[], notes=NOTES,
        fill=lambda facts: {"batch": BATCH, "ticks": BATCH_TICKS, "obs": OBS_SIZE},
        bar=bar_line, footer=lambda facts: [])


if __name__ == "__main__":
    sys.exit(main())
