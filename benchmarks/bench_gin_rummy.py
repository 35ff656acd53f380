"""Speed of the Gin Rummy engine and PettingZoo env, beside OpenSpiel's C++
``gin_rummy`` and RLCard's ``gin-rummy`` measured in the same run.

    python -m benchmarks.bench_gin_rummy [--seconds 3] [--only ours|openspiel|rlcard]
                                         [--json PATH]

Every row plays uniformly random legal actions on one pinned core; an episode
is one hand (the three libraries' rules differ slightly: see the notes printed
under the table), so compare per agent step as well as per episode. Run it from
the repository root; ``make bench`` installs the ``bench`` extra and runs it.
"""

from __future__ import annotations

import sys

from benchmarks.common import (
    NOT_INSTALLED,
    Peer,
    bar_line,
    bar_lines,
    batched_ticks,
    bots_episode,
    engine_episode,
    env_episode,
    openspiel_specs,
    package_version,
)
from benchmarks.common import main as bench_main
from benchmarks.timing import RandomPicks, Row, RowSpec
from cardrl import agents
from cardrl.envs.batched import BatchedGames
from cardrl.envs.encoding import mask_function
from cardrl.envs.gin_rummy import GinRummyState, get_rules
from cardrl.envs.gin_rummy.actions import NUM_ACTIONS
from cardrl.envs.gin_rummy.environment import env
from cardrl.envs.gin_rummy.features import obs_size as features_size
from cardrl.envs.gin_rummy.infostate import encode, layout

action_mask = mask_function(NUM_ACTIONS)

NOTES = {
    "env": "the PettingZoo AEC loop as a user writes it: reset(seed), then for agent in "
           "agent_iter(): obs, rew, term, trunc, info = last() - which builds the "
           "float32[{obs}] information state (2 players; the env's incremental observer, "
           "equal to "
           "encode(state.view(seat)) at every step, returned as a fresh copy) and the "
           "int8[{acts}] mask, whose knock actions need the meld solver - then legal = "
           "obs['action_mask'].nonzero()[0] and step(random legal). Episode = one hand "
           "(episode='hand'); the dead steps after it are timed but not counted.",
    "batched": "BatchedGames('gin_rummy', {batch}, preset, episode='hand') served by its "
               "compiled core (envs/gin_rummy/compiled.py, the meld solver in numba): per "
               "tick one step_games(all {batch} games, actions) with each game's action "
               "uniformly random among the legal ones in games.masks (a compiled pick, "
               "pre-drawn numbers); the float32[{obs}] information states, bool[{acts}] "
               "masks, seats, rewards and dones of all {batch} games written in place, "
               "finished hands restarted from their next seeds. An 'episode' here is 32 "
               "ticks.",
    "batched_python": "the same loop with compiled=False: the Python engines and their "
                      "incremental observers, game by game.",
    "features": "the same loop with env(observation='features'): the float32[{feat}] vector "
                "the shipped bots read (2 players), the information plus, for the seat to "
                "act, the meld solver's deadwood per discard and the expert tracker's "
                "one-draw look-ahead, worked out from its view at every step.",
    "engine": "GinRummyState alone: GinRummyState(rules, seed) deals, then legal_actions() "
              "(with the meld solver deciding every knock) and apply(random legal) until "
              "the first hand is scored. No view, no observation.",
    "engine_obs": "what the env would do per step with no incremental observer: "
                  "legal_actions(), encode(state.view(player to act)), action_mask(legal), "
                  "apply(random legal).",
    "bots": "GinRummyState with the named rule bot in both seats choosing each action from "
            "state.view(seat) and legal_actions(): what a rule-bot decision costs.",
    "openspiel": "OpenSpiel's C++ gin_rummy through pyspiel, default parameters (2 players, "
                 "knock at 10, gin and undercut bonuses 25, layoffs; the first up card is "
                 "offered to both players before anyone draws, a knocker then lays its melds "
                 "down and the defender lays off card by card as agent actions; the hand is "
                 "dead with 2 stock cards left). One hand per episode; chance events (the "
                 "deal, stock draws) are timed but not counted as agent steps. Per step: "
                 "legal_actions(), the observation for the player to act "
                 "(observation_tensor(), a new list of {os_obs} floats; or the numpy route "
                 "of open_spiel.python.observation, copied as our env returns a new array; or "
                 "none), apply_action(random legal).",
    "rlcard": "RLCard's pure-Python gin-rummy (2 players, knock at 10, gin bonus 25, "
              "undercut bonus 25, layoffs scored automatically, dead hand with 2 stock cards "
              "left; a hand ends with two score_player actions, counted as steps). env: "
              "reset() then step(random legal action id) until is_over(); every step "
              "builds its (5, 52) observation and legal-action dict. game: its game object "
              "alone (init_game, get_legal_actions, step), no observation.",
}
BAR_OURS = ("ours env() seed 2p", "ours env() standard 2p")
BATCHED = 256
BAR_BATCHED = tuple(f"ours BatchedGames x{BATCHED} {p} 2p" for p in ("seed", "standard"))
BATCHED_GOAL = 10.0  # times faster per agent step than OpenSpiel (issue 42)
BAR_OS = "openspiel gin_rummy +observation_tensor"
BAR_RL = "rlcard gin-rummy env"


# --------------------------------------------------------------------- ours
def _new_state(preset: str):
    rules = get_rules(preset)
    return lambda seed: GinRummyState(rules, seed)


def _env_row(preset: str, n: int) -> RowSpec:
    return RowSpec(f"ours env() {preset} {n}p",
                   env_episode(env(preset=preset, num_players=n, episode="hand"), RandomPicks(1)),
                   "env")


def ours_specs() -> list[RowSpec]:
    specs = [_env_row(p, 2) for p in ("seed", "standard")]
    specs += [RowSpec(name, batched_ticks(BatchedGames("gin_rummy", BATCHED, preset=p,
                                                       episode="hand"), 5), "batched")
              for name, p in zip(BAR_BATCHED, ("seed", "standard"), strict=True)]
    specs.append(RowSpec(f"ours BatchedGames x{BATCHED} standard 2p compiled=False",
                         batched_ticks(BatchedGames("gin_rummy", BATCHED, preset="standard",
                                                    episode="hand", compiled=False), 6,
                                       ticks=2), "batched_python"))
    specs += [_env_row("seed", n) for n in (3, 4)]
    specs += [RowSpec(f"ours env(observation='features') {p} 2p",
                      env_episode(env(preset=p, episode="hand", observation="features"),
                                  RandomPicks(1)), "features") for p in ("seed", "standard")]
    specs += [RowSpec(f"ours engine {p}", engine_episode(_new_state(p), RandomPicks(2)),
                      "engine") for p in ("seed", "standard")]
    specs += [RowSpec(f"ours engine+view+encode+mask {p}",
                      engine_episode(_new_state(p), RandomPicks(3), observe=(encode, action_mask)),
                      "engine_obs")
              for p in ("seed", "standard")]
    specs += [RowSpec(f"ours engine + 2 x {b} standard",
                      bots_episode(_new_state("standard"),
                                   [agents.make(b, seed=seat) for seat in range(2)]),
                      "bots") for b in ("gin_rummy/simple", "gin_rummy/expert")]
    return specs


OPENSPIEL_ROWS = (BAR_OS, "openspiel gin_rummy +observation (numpy)",
                  "openspiel gin_rummy (no observation)")


# ------------------------------------------------------------------- RLCard
RLCARD_ROWS = (BAR_RL, "rlcard gin-rummy game (no observation)")


def rlcard_specs() -> tuple[list[RowSpec], dict, str | None]:
    try:
        import rlcard
    except ImportError as err:
        return [], {}, NOT_INSTALLED.format(err)
    rl_env = rlcard.make("gin-rummy", config={"seed": 0})
    picks_env, picks_game = RandomPicks(7), RandomPicks(8)

    def play_env(_i: int) -> int:
        state, _ = rl_env.reset()
        steps = 0
        while not rl_env.is_over():
            state, _ = rl_env.step(picks_env.pick(list(state["legal_actions"])))
            steps += 1
        return steps

    game = rl_env.game

    def play_game(_i: int) -> int:
        game.init_game()
        steps = 0
        while not game.is_over():
            game.step(picks_game.pick(game.judge.get_legal_actions()))
            steps += 1
        return steps

    info = package_version("rlcard")
    return [RowSpec(RLCARD_ROWS[0], play_env, "rlcard"),
            RowSpec(RLCARD_ROWS[1], play_game, "rlcard")], info, None


# --------------------------------------------------------------------- main
def bars(rows: list[Row]) -> str | None:
    """The bars: our AEC env per step vs OpenSpiel with observation_tensor and vs 3x RLCard;
    BatchedGames vs 10x OpenSpiel."""
    by_name = {r.name: r for r in rows if not r.skipped}
    parts = []
    for name in BAR_OURS:
        if name not in by_name:
            continue
        ours = by_name[name].us_per_step
        if BAR_OS in by_name:
            theirs = by_name[BAR_OS].us_per_step
            parts.append(f"{name} {ours:.2f} us/step = {ours / theirs:.2f}x {BAR_OS} "
                         f"({theirs:.2f}), {'meets it' if ours <= theirs else 'misses it'}")
        if BAR_RL in by_name:
            theirs = by_name[BAR_RL].us_per_step
            parts.append(f"{theirs / ours:.1f}x as fast as {BAR_RL} ({theirs:.2f}), "
                         f"{'meets' if theirs >= 3 * ours else 'misses'} the 3x bar")
    return bar_lines("Bar: " + "; ".join(parts) if parts else None,
                     bar_line(rows, BAR_BATCHED, BAR_OS, faster=BATCHED_GOAL))


def footer(facts: dict) -> list[str]:
    out = ["Rules differ: ours (seed) is the course game (no bonuses, no layoffs, dead hand when "
           "the stock is empty); ours (standard) has gin/undercut bonuses 25, layoffs and a dead "
           "hand at 2 stock cards, but no first-up-card offer and no meld-laying actions: our "
           "engine scores a knock at once. Random play seldom knocks, so most hands run until "
           "the stock is dead in every library; episodes are of similar length (see steps per "
           "episode), and steps/s and us/step compare anyway."]
    if "open_spiel_parameters" in facts:
        out.append(f"OpenSpiel {facts.get('open_spiel_version', '?')}, gin_rummy parameters "
                   f"{facts['open_spiel_parameters']}; RLCard {facts.get('rlcard_version', '?')}")
    return out


def main(argv: list[str] | None = None) -> int:
    return bench_main(
        argv, doc=__doc__, ours=ours_specs,
        peers=[Peer("openspiel", lambda: openspiel_specs("gin_rummy", OPENSPIEL_ROWS),
                    OPENSPIEL_ROWS),
               Peer("rlcard", rlcard_specs, RLCARD_ROWS)],
        notes=NOTES,
        fill=lambda facts: {"batch": BATCHED, "obs": layout(2).size,
                            "feat": features_size(2), "acts": NUM_ACTIONS,
                            "os_obs": facts.get("open_spiel_observation_size", "?")},
        bar=bars, footer=footer)


if __name__ == "__main__":
    sys.exit(main())
