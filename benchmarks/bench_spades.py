"""Speed of the Spades engine and PettingZoo env, beside OpenSpiel's C++ ``spades``.

    python -m benchmarks.bench_spades [--seconds 3] [--only ours|openspiel] [--json PATH]

Every row plays uniformly random legal actions on one pinned core and reports
episodes (one hand each, see the notes printed under the table) and agent steps
per second. Run it from the repository root; ``make bench`` installs the
``bench`` extra (OpenSpiel) and runs it.
"""

from __future__ import annotations

import sys

from benchmarks.common import (
    Peer,
    bar_line,
    bar_lines,
    batched_ticks,
    bots_episode,
    engine_episode,
    env_episode,
    openspiel_specs,
)
from benchmarks.common import main as bench_main
from benchmarks.timing import RandomPicks, RowSpec
from cardrl import agents
from cardrl.envs.batched import BatchedGames
from cardrl.envs.encoding import mask_function
from cardrl.envs.spades import PRESETS, SpadesState, env
from cardrl.envs.spades.actions import NUM_ACTIONS
from cardrl.envs.spades.features import OBS_SIZE as FEATURES_SIZE
from cardrl.envs.spades.infostate import OBS_SIZE, encode

action_mask = mask_function(NUM_ACTIONS)

NOTES = {
    "env": "the PettingZoo AEC loop as a user writes it: reset(seed), then for agent in "
           "agent_iter(): obs, rew, term, trunc, info = last() - which builds the "
           "float32[{obs}] information state (the env's incremental observer, equal to "
           "encode(state.view(seat)) at every step, returned as a fresh copy) and the "
           "int8[{acts}] mask - then legal = obs['action_mask'].nonzero()[0] and step(random "
           "legal). env() checks call order itself (no PettingZoo OrderEnforcingWrapper) and is "
           "raw_env itself. Episode = one hand "
           "(episode='hand'): the deal, 4 bids, 52 cards; the 4 dead steps (last() + "
           "step(None) per agent) after the hand are timed but not counted as agent steps.",
    "features": "the same loop with env(observation='features'): the float32[{feat}] vector "
                "the shipped bots read, the information plus the expert's numbers for the "
                "seat to act (trick-win chances, danger, contract distances), worked out "
                "from its view at every step.",
    "bots": "SpadesState with agents.make('spades/expert') in every seat choosing each action "
            "from state.view(seat) and legal_actions(): what a rule-bot decision costs.",
    "engine": "SpadesState alone: SpadesState(rules, seed) deals, then legal_actions() and "
              "apply(random legal) until the first hand is scored. No view, no observation.",
    "engine_obs": "what the env does per step without the PettingZoo layer: legal_actions(), "
                  "encode(state.view(player to act)), action_mask(legal), apply(random legal).",
    "batched": "BatchedGames('spades', 256, preset, episode='hand') served by its compiled core "
               "(envs/spades/compiled.py): per tick one step_games(all 256 games, actions) "
               "with each game's action uniformly random among the legal ones in "
               "games.masks (a compiled pick, pre-drawn numbers); the float32[{obs}] "
               "information states, bool[{acts}] masks, seats, rewards and dones of all 256 "
               "games written in place, finished hands restarted from their next seeds. An "
               "'episode' here is 32 ticks (8,192 agent steps).",
    "batched_python": "the same loop with compiled=False: the Python engines and their "
                      "incremental observers, game by game.",
    "openspiel": "OpenSpiel's C++ partnership spades through pyspiel, default parameters. Its "
                 "episode is one hand too: 52 chance events deal, then 4 bids and 52 cards, "
                 "and the state is terminal after the last trick (win_threshold and "
                 "mercy_threshold only add a bonus to the returns; there is no multi-hand loop "
                 "inside). Per step: state.legal_actions(), the observation for the player to "
                 "act, state.apply_action(random legal). Observation: observation_tensor() (a "
                 "new Python list of {os_obs} floats), or the numpy route of open_spiel.python."
                 "observation (set_from() writes into one float32 buffer, copied to a new array "
                 "as our env returns one), or none. The 52 chance events (legal_actions + "
                 "apply_action each) are timed but not counted as agent steps.",
}
BAR = ("ours env() killer", "ours env() cutthroat", "openspiel spades +observation_tensor")
BATCHED = 256
BATCHED_BAR = tuple(f"ours BatchedGames x{BATCHED} {p}" for p in ("killer", "cutthroat"))
BATCHED_GOAL = 10.0  # times faster per agent step than OpenSpiel (issue 42)


def _new_state(preset: str):
    rules = PRESETS[preset]
    return lambda seed: SpadesState(rules, seed)


def ours_specs() -> list[RowSpec]:
    specs = []
    for preset in ("killer", "cutthroat"):
        specs.append(RowSpec(f"ours env() {preset}",
                             env_episode(env(preset=preset, episode="hand"), RandomPicks(1)),
                             "env"))
    for preset in ("killer", "cutthroat"):
        specs.append(RowSpec(f"ours env(observation='features') {preset}",
                             env_episode(env(preset=preset, episode="hand",
                                             observation="features"), RandomPicks(1)),
                             "features"))
    for preset in ("killer", "cutthroat"):
        specs.append(RowSpec(f"ours engine {preset}",
                             engine_episode(_new_state(preset), RandomPicks(2)), "engine"))
    for preset in ("killer", "cutthroat"):
        specs.append(RowSpec(f"ours engine+view+encode+mask {preset}",
                             engine_episode(_new_state(preset), RandomPicks(3),
                                            observe=(encode, action_mask)),
                             "engine_obs"))
    for k, preset in enumerate(("killer", "cutthroat")):
        specs.append(RowSpec(BATCHED_BAR[k], batched_ticks(
            BatchedGames("spades", BATCHED, preset=preset, episode="hand"), 5), "batched"))
    specs.append(RowSpec(f"ours BatchedGames x{BATCHED} killer compiled=False", batched_ticks(
        BatchedGames("spades", BATCHED, episode="hand", compiled=False), 6, ticks=2),
        "batched_python"))
    for preset in ("killer", "cutthroat"):
        bots = [agents.make("spades/expert", seed=seat) for seat in range(4)]
        specs.append(RowSpec(f"ours engine + 4 x spades/expert {preset}",
                             bots_episode(_new_state(preset), bots), "bots"))
    return specs


OPENSPIEL_ROWS = ("openspiel spades +observation_tensor",
                  "openspiel spades +observation (numpy)",
                  "openspiel spades (no observation)")


def footer(facts: dict) -> list[str]:
    out = ["Random choices come from pre-drawn uniform numbers (one multiply and index per "
           "choice) in every row. Every row's episode is one hand of 56 agent steps, so "
           "episodes/s compare across rows (but the BatchedGames rows, whose 'episode' is a "
           "slice of ticks); steps/s and us/step compare anyway."]
    if facts:
        out.append(f"OpenSpiel {facts.get('open_spiel_version', '?')}, spades parameters "
                   f"{facts['open_spiel_parameters']}")
    return out


def main(argv: list[str] | None = None) -> int:
    return bench_main(
        argv, doc=__doc__, ours=ours_specs,
        peers=[Peer("openspiel", lambda: openspiel_specs("spades", OPENSPIEL_ROWS),
                    OPENSPIEL_ROWS)],
        notes=NOTES,
        fill=lambda facts: {"obs": OBS_SIZE, "feat": FEATURES_SIZE, "acts": NUM_ACTIONS,
                            "os_obs": facts.get("open_spiel_observation_size", "?")},
        bar=lambda rows: bar_lines(bar_line(rows, BAR[:2], BAR[2]),
                                   bar_line(rows, BATCHED_BAR, BAR[2], faster=BATCHED_GOAL)),
        footer=footer, step=": a bid or a card")


if __name__ == "__main__":
    sys.exit(main())
