"""Speed of the Spades engine and PettingZoo env, beside OpenSpiel's C++ ``spades``.

    python -m benchmarks.bench_spades [--seconds 3] [--only ours|openspiel] [--json PATH]

Every row plays uniformly random legal actions on one pinned core and reports
episodes (one hand each, see the notes printed under the table) and agent steps
per second. Run it from the repository root; ``make bench`` installs the
``bench`` extra (OpenSpiel) and runs it.
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
from envs.spades import PRESETS, SpadesState, env
from envs.spades.actions import NUM_ACTIONS
from envs.spades.encode import OBS_SIZE, action_mask, encode

SEED_BASE = 1_000_000  # our episode i is dealt from seed SEED_BASE + i

NOTES = {
    "env": "the PettingZoo AEC loop as a user writes it: reset(seed), then for agent in "
           "agent_iter(): obs, rew, term, trunc, info = last() - which builds the "
           "float32[{obs}] observation (the env's incremental observer, equal to "
           "encode(state.view(seat)) at every step, returned as a fresh copy) and the "
           "int8[{acts}] mask - then legal = obs['action_mask'].nonzero()[0] and step(random "
           "legal). env() checks call order itself (no PettingZoo OrderEnforcingWrapper) and is "
           "raw_env itself. Episode = one hand "
           "(episode='hand'): the deal, 4 bids, 52 cards; the 4 dead steps (last() + "
           "step(None) per agent) after the hand are timed but not counted as agent steps.",
    "bots": "SpadesState with agents.make('spades/expert') in every seat choosing each action "
            "from state.view(seat) and legal_actions(): what a rule-bot decision costs.",
    "engine": "SpadesState alone: SpadesState(rules, seed) deals, then legal_actions() and "
              "apply(random legal) until the first hand is scored. No view, no observation.",
    "engine_obs": "what the env does per step without the PettingZoo layer: legal_actions(), "
                  "encode(state.view(player to act)), action_mask(legal), apply(random legal).",
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


# --------------------------------------------------------------------- ours
def ours_env_episode(factory, preset: str, picks: RandomPicks):
    e = factory(preset=preset, episode="hand")
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
    rules = PRESETS[preset]
    pick = picks.pick

    def play(i: int) -> int:
        state = SpadesState(rules, SEED_BASE + i)
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


def ours_specs() -> list[RowSpec]:
    specs = []
    for preset in ("killer", "cutthroat"):
        specs.append(RowSpec(f"ours env() {preset}",
                             ours_env_episode(env, preset, RandomPicks(1)), "env"))
    for preset in ("killer", "cutthroat"):
        specs.append(RowSpec(f"ours engine {preset}",
                             ours_engine_episode(preset, RandomPicks(2), observe=False), "engine"))
    for preset in ("killer", "cutthroat"):
        specs.append(RowSpec(f"ours engine+view+encode+mask {preset}",
                             ours_engine_episode(preset, RandomPicks(3), observe=True),
                             "engine_obs"))
    for preset in ("killer", "cutthroat"):
        specs.append(RowSpec(f"ours engine + 4 x spades/expert {preset}",
                             ours_bots_episode(preset, "spades/expert"), "bots"))
    return specs


def ours_bots_episode(preset: str, spec: str):
    """One hand with a rule bot deciding every step from its view: the cost of a bot."""
    rules = PRESETS[preset]
    bots = [agents.make(spec, seed=seat) for seat in range(4)]

    def play(i: int) -> int:
        state = SpadesState(rules, SEED_BASE + i)
        results = state.results
        steps = 0
        while not results:
            seat = state.current_player
            state.apply(bots[seat].act(state.view(seat), state.legal_actions()))
            steps += 1
        return steps

    return play


# ---------------------------------------------------------------- OpenSpiel
OPENSPIEL_ROWS = ("openspiel spades +observation_tensor",
                  "openspiel spades +observation (numpy)",
                  "openspiel spades (no observation)")


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
    """The OpenSpiel rows, facts about its game, and why not when it is not installed."""
    try:
        import pyspiel
    except ImportError as err:
        return [], {}, f"not installed ({err}); `pip install -e '.[bench]'` or `make bench`"
    game = pyspiel.load_game("spades")
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


# --------------------------------------------------------------------- main
def bar_line(rows: list[Row]) -> str | None:
    """The bar: our AEC env per step vs OpenSpiel with observation_tensor every step."""
    by_name = {r.name: r for r in rows if not r.skipped}
    if not all(name in by_name for name in BAR):
        return None
    theirs = by_name[BAR[2]].us_per_step
    parts = []
    for name in BAR[:2]:
        ours = by_name[name].us_per_step
        verdict = "meets it" if ours <= theirs else "misses it"
        parts.append(f"{name} {ours:.2f} us/step = {ours / theirs:.2f}x, {verdict}")
    return f"Bar: {BAR[2]} {theirs:.2f} us/step; " + "; ".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="wall-clock budget per row (default 3)")
    parser.add_argument("--only", choices=("ours", "openspiel"), help="run only these rows")
    parser.add_argument("--json", metavar="PATH", help="also write the rows and machine as JSON")
    parser.add_argument("--rounds", type=int, default=3,
                        help="split each row's budget into this many interleaved rounds "
                             "(default 3)")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu",
                        help="time the rates divide by: this process's CPU time (default; "
                             "other load on the machine does not count) or wall time")
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
    os_info: dict = {}
    missing = None
    if args.only in (None, "ours"):
        specs += ours_specs()
    if args.only in (None, "openspiel"):
        os_specs, os_info, missing = openspiel_specs()
        specs += os_specs
    rows = run_rows(specs, args.seconds, rounds=args.rounds, clock=args.clock)
    if missing:
        rows += [skipped_row(name, missing, note="openspiel") for name in OPENSPIEL_ROWS]

    print(format_table(rows))
    print("\nWhat each row measures (a step is one agent action: a bid or a card):")
    fill = {"obs": OBS_SIZE, "acts": NUM_ACTIONS,
            "os_obs": os_info.get("open_spiel_observation_size", "?")}
    for key in dict.fromkeys(r.note for r in rows):
        labels = ", ".join(r.name for r in rows if r.note == key)
        print(textwrap.fill(f"{labels}: {NOTES[key].format(**fill)}", width=100,
                            initial_indent="* ", subsequent_indent="  "))
    print(textwrap.fill(
        "Random choices come from pre-drawn uniform numbers (one multiply and index per choice) "
        "in every row. Every row's episode is one hand of 56 agent steps, so episodes/s compare "
        "across rows; steps/s and us/step compare anyway.", width=100,
        initial_indent="* ", subsequent_indent="  "))
    if os_info:
        print(textwrap.fill(f"OpenSpiel {os_info.get('open_spiel_version', '?')}, spades "
                            f"parameters {os_info['open_spiel_parameters']}", width=100,
                            initial_indent="* ", subsequent_indent="  "))
    bar = bar_line(rows)
    if bar:
        print("\n" + textwrap.fill(bar, width=100))
    if args.json:
        write_json(args.json, rows, info, seconds_per_row=args.seconds, rounds=args.rounds,
                   clock=args.clock, bar=bar, **os_info)
        print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
