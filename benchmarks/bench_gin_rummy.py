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

import argparse
import sys
import textwrap

import agents
from benchmarks.timing import (
    CLOCKS,
    RandomPicks,
    Row,
    RowSpec,
    format_machine,
    format_table,
    machine_info,
    pin_to_one_core,
    run_rows,
    skipped_row,
    write_json,
)
from envs.gin_rummy import GinRummyState, get_rules
from envs.gin_rummy.actions import NUM_ACTIONS
from envs.gin_rummy.encode import action_mask, encode, obs_size
from envs.gin_rummy.env import env

SEED_BASE = 1_000_000  # our episode i is dealt from seed SEED_BASE + i

NOTES = {
    "env": "the PettingZoo AEC loop as a user writes it: reset(seed), then for agent in "
           "agent_iter(): obs, rew, term, trunc, info = last() - which builds the "
           "float32[{obs}] observation (2 players; the env's incremental observer, equal to "
           "encode(state.view(seat)) at every step, returned as a fresh copy) and the "
           "int8[{acts}] mask, whose knock actions need the meld solver - then legal = "
           "obs['action_mask'].nonzero()[0] and step(random legal). Episode = one hand "
           "(episode='hand'); the dead steps after it are timed but not counted.",
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
BAR_OS = "openspiel gin_rummy +observation_tensor"
BAR_RL = "rlcard gin-rummy env"


# --------------------------------------------------------------------- ours
def ours_env_episode(preset: str, n: int, picks: RandomPicks):
    e = env(preset=preset, num_players=n, episode="hand")
    pick = picks.pick

    def play(i: int) -> int:
        e.reset(seed=SEED_BASE + i)
        steps = 0
        for _agent in e.agent_iter():
            obs, _rew, term, trunc, _info = e.last()
            if term or trunc:
                e.step(None)
                continue
            e.step(int(pick(obs["action_mask"].nonzero()[0])))
            steps += 1
        return steps

    return play


def ours_engine_episode(preset: str, picks: RandomPicks, observe: bool):
    rules = get_rules(preset)
    pick = picks.pick

    def play(i: int) -> int:
        state = GinRummyState(rules, SEED_BASE + i)
        results = state.results
        steps = 0
        if observe:
            while not results:
                legal = state.legal_actions()
                encode(state.view(state.current_player))
                action_mask(legal)
                state.apply(pick(legal))
                steps += 1
        else:
            while not results:
                state.apply(pick(state.legal_actions()))
                steps += 1
        return steps

    return play


def ours_bots_episode(preset: str, spec: str):
    rules = get_rules(preset)
    bots = [agents.make(spec, seed=seat) for seat in range(2)]

    def play(i: int) -> int:
        state = GinRummyState(rules, SEED_BASE + i)
        results = state.results
        steps = 0
        while not results:
            seat = state.current_player
            state.apply(bots[seat].act(state.view(seat), state.legal_actions()))
            steps += 1
        return steps

    return play


def ours_specs() -> list[RowSpec]:
    specs = [RowSpec(f"ours env() {p} 2p", ours_env_episode(p, 2, RandomPicks(1)), "env")
             for p in ("seed", "standard")]
    specs += [RowSpec(f"ours env() seed {n}p", ours_env_episode("seed", n, RandomPicks(1)), "env")
              for n in (3, 4)]
    specs += [RowSpec(f"ours engine {p}", ours_engine_episode(p, RandomPicks(2), False),
                      "engine") for p in ("seed", "standard")]
    specs += [RowSpec(f"ours engine+view+encode+mask {p}",
                      ours_engine_episode(p, RandomPicks(3), True), "engine_obs")
              for p in ("seed", "standard")]
    specs += [RowSpec(f"ours engine + 2 x {b} standard", ours_bots_episode("standard", b),
                      "bots") for b in ("gin_rummy/simple", "gin_rummy/expert")]
    return specs


# ---------------------------------------------------------------- OpenSpiel
OPENSPIEL_ROWS = (BAR_OS, "openspiel gin_rummy +observation (numpy)",
                  "openspiel gin_rummy (no observation)")


def openspiel_episode(game, picks: RandomPicks, observe: str | None):
    pick = picks.pick
    if observe == "numpy":
        from open_spiel.python.observation import make_observation
        observation = make_observation(game)

    def play(_i: int) -> int:
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            legal = state.legal_actions()
            if state.is_chance_node():
                state.apply_action(pick(legal))
                continue
            if observe == "tensor":
                state.observation_tensor()
            elif observe == "numpy":
                observation.set_from(state, state.current_player())
                observation.tensor.copy()
            state.apply_action(pick(legal))
            steps += 1
        return steps

    return play


def openspiel_specs() -> tuple[list[RowSpec], dict, str | None]:
    try:
        import pyspiel
    except ImportError as err:
        return [], {}, f"not installed ({err}); `pip install -e '.[bench]'` or `make bench`"
    game = pyspiel.load_game("gin_rummy")
    info = {"open_spiel_parameters": dict(game.get_type().parameter_specification),
            "open_spiel_observation_size": game.observation_tensor_size()}
    try:
        from importlib.metadata import version
        info["open_spiel_version"] = version("open_spiel")
    except Exception:  # noqa: BLE001 - the version is informative only
        pass
    specs = [RowSpec(name, openspiel_episode(game, RandomPicks(4 + k), observe), "openspiel")
             for k, (name, observe) in enumerate(zip(OPENSPIEL_ROWS, ("tensor", "numpy", None),
                                                     strict=True))]
    return specs, info, None


# ------------------------------------------------------------------- RLCard
RLCARD_ROWS = (BAR_RL, "rlcard gin-rummy game (no observation)")


def rlcard_specs() -> tuple[list[RowSpec], dict, str | None]:
    try:
        import rlcard
    except ImportError as err:
        return [], {}, f"not installed ({err}); `pip install -e '.[bench]'` or `make bench`"
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

    info = {}
    try:
        from importlib.metadata import version
        info["rlcard_version"] = version("rlcard")
    except Exception:  # noqa: BLE001 - the version is informative only
        pass
    return [RowSpec(RLCARD_ROWS[0], play_env, "rlcard"),
            RowSpec(RLCARD_ROWS[1], play_game, "rlcard")], info, None


# --------------------------------------------------------------------- main
def bar_line(rows: list[Row]) -> str | None:
    """The bar: our AEC env per step vs OpenSpiel with observation_tensor, and vs 3x RLCard."""
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
    return "Bar: " + "; ".join(parts) if parts else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="wall-clock budget per row (default 3)")
    parser.add_argument("--only", choices=("ours", "openspiel", "rlcard"),
                        help="run only these rows")
    parser.add_argument("--json", metavar="PATH", help="also write the rows and machine as JSON")
    parser.add_argument("--rounds", type=int, default=3,
                        help="split each row's budget into this many interleaved rounds "
                             "(default 3)")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu",
                        help="time the rates divide by: this process's CPU time (default) "
                             "or wall time")
    parser.add_argument("--cpu", type=int, default=None,
                        help="core to pin to (default: the first this process may use)")
    args = parser.parse_args(argv)
    if args.seconds <= 0:
        parser.error(f"--seconds must be positive, got {args.seconds}")
    if args.rounds < 1:
        parser.error(f"--rounds must be at least 1, got {args.rounds}")

    cpu = pin_to_one_core(args.cpu)
    info = machine_info(cpu)
    print(format_machine(info))
    print(f"{args.seconds:g} s of wall time per row in {args.rounds} interleaved rounds; rates "
          f"over {'CPU' if args.clock == 'cpu' else 'wall'} time; uniformly random legal play\n",
          flush=True)

    specs: list[RowSpec] = []
    extra: dict = {}
    skipped: list[Row] = []
    if args.only in (None, "ours"):
        specs += ours_specs()
    for lib, make, names in (("openspiel", openspiel_specs, OPENSPIEL_ROWS),
                             ("rlcard", rlcard_specs, RLCARD_ROWS)):
        if args.only in (None, lib):
            lib_specs, lib_info, missing = make()
            specs += lib_specs
            extra.update(lib_info)
            if missing:
                skipped += [skipped_row(name, missing, note=lib) for name in names]
    rows = run_rows(specs, args.seconds, rounds=args.rounds, clock=args.clock) + skipped

    print(format_table(rows))
    print("\nWhat each row measures (a step is one agent action):")
    fill = {"obs": obs_size(2), "acts": NUM_ACTIONS,
            "os_obs": extra.get("open_spiel_observation_size", "?")}
    for key in dict.fromkeys(r.note for r in rows):
        labels = ", ".join(r.name for r in rows if r.note == key)
        print(textwrap.fill(f"{labels}: {NOTES[key].format(**fill)}", width=100,
                            initial_indent="* ", subsequent_indent="  "))
    print(textwrap.fill(
        "Rules differ: ours (seed) is the course game (no bonuses, no layoffs, dead hand when "
        "the stock is empty); ours (standard) has gin/undercut bonuses 25, layoffs and a dead "
        "hand at 2 stock cards, but no first-up-card offer and no meld-laying actions: our "
        "engine scores a knock at once. Random play seldom knocks, so most hands run until "
        "the stock is dead in every library; episodes are of similar length (see steps per "
        "episode), and steps/s and us/step compare anyway.", width=100,
        initial_indent="* ", subsequent_indent="  "))
    if "open_spiel_parameters" in extra:
        print(textwrap.fill(f"OpenSpiel {extra.get('open_spiel_version', '?')}, gin_rummy "
                            f"parameters {extra['open_spiel_parameters']}; RLCard "
                            f"{extra.get('rlcard_version', '?')}", width=100,
                            initial_indent="* ", subsequent_indent="  "))
    bar = bar_line(rows)
    if bar:
        print("\n" + textwrap.fill(bar, width=100))
    if args.json:
        write_json(args.json, rows, info, seconds_per_row=args.seconds, rounds=args.rounds,
                   clock=args.clock, bar=bar, **extra)
        print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
