"""Speed of the Blind Auction engine and PettingZoo envs, beside OpenSpiel's C++ ``goofspiel``.

    python -m benchmarks.bench_blind_auction [--seconds 3] [--only ours|openspiel] [--json PATH]

Every row plays uniformly random legal bids on one pinned core and reports
games and agent steps (bids) per second. OpenSpiel's goofspiel is the same
game family (13 cards, a hidden bid each round, prize cards), run with
``imp_info=True, num_cards=13, points_order=random`` (there the prize is shown
before the bids; here it stays face down until the round resolves).
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
from envs.blind_auction import BlindAuctionState, env, get_rules, parallel_env
from envs.blind_auction.actions import NUM_ACTIONS
from envs.blind_auction.encode import OBS_SIZE, action_mask, encode

SEED_BASE = 1_000_000  # our game i gets the prize order of seed SEED_BASE + i
OS_PARAMS = {"imp_info": True, "num_cards": 13, "points_order": "random"}

NOTES = {
    "env": "the PettingZoo AEC loop as a user writes it: reset(seed), then for agent in "
           "agent_iter(): obs, rew, term, trunc, info = last() - which builds the "
           "float32[{obs}] observation (the env's incremental observer, equal to "
           "encode(state.view(seat)) at every step, returned as a fresh copy) and the "
           "int8[{acts}] mask - then legal = obs['action_mask'].nonzero()[0] and step(random "
           "legal). A game is 13 rounds: 26 bids for 2 players, 39 for 3; the dead steps "
           "(last() + step(None) per agent) after the game are timed but not counted.",
    "parallel": "the Parallel API loop: reset(seed), then while agents: step({{agent: random "
                "legal from its own obs mask}}); every step returns every agent's observation "
                "and mask. Steps counted are bids (agents x rounds), as in the other rows.",
    "engine": "BlindAuctionState alone: BlindAuctionState(rules, seed) shuffles the prizes, then "
              "legal_actions() and apply(random legal) until the game is over. No view, no "
              "observation.",
    "engine_obs": "what the env does per step without the PettingZoo layer: legal_actions(), "
                  "encode(state.view(player to bid)), action_mask(legal), apply(random legal).",
    "bots": "BlindAuctionState with agents.make('blind_auction/mirror') in every seat choosing "
            "each bid from state.view(seat) and legal_actions(): what a rule-bot decision costs.",
    "openspiel": "OpenSpiel's C++ goofspiel through pyspiel, {os_params}, a simultaneous-move "
                 "game: per round one chance event turns the prize up (legal_actions + "
                 "apply_action; timed, not counted), then for each of the 2 players "
                 "legal_actions(player) and its observation, and one apply_actions([bid, bid]): "
                 "2 agent steps. Observation: observation_tensor(player) (a new Python list of "
                 "{os_obs} floats), or the numpy route of open_spiel.python.observation "
                 "(set_from() into one float32 buffer, copied to a new array as our env returns "
                 "one), or none.",
    "openspiel_turns": "the same goofspiel wrapped by OpenSpiel's "
                       "turn_based_simultaneous_game (C++), the AEC analogue: the players bid in "
                       "turn; per step legal_actions(), observation_tensor() of the player to "
                       "bid ({os_turn_obs} floats), apply_action(random legal).",
}
BAR = ("ours env() 2p", "ours env() 3p", "openspiel goofspiel +observation_tensor")


# --------------------------------------------------------------------- ours
def ours_env_episode(players: int, picks: RandomPicks):
    e = env(num_players=players)
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


def ours_parallel_episode(players: int, picks: RandomPicks):
    p = parallel_env(num_players=players)
    pick = picks.pick

    def play(i: int) -> int:
        obs, _ = p.reset(seed=SEED_BASE + i)
        steps = 0
        while p.agents:
            actions = {a: int(pick(obs[a]["action_mask"].nonzero()[0])) for a in p.agents}
            obs, _rew, _term, _trunc, _info = p.step(actions)
            steps += len(actions)
        return steps

    return play


def ours_engine_episode(players: int, picks: RandomPicks, observe: bool):
    rules = get_rules("2p", num_players=players)
    pick = picks.pick

    def play(i: int) -> int:
        state = BlindAuctionState(rules, SEED_BASE + i)
        steps = 0
        if observe:
            while state.current_player is not None:
                legal = state.legal_actions()
                encode(state.view(state.current_player))
                action_mask(legal)
                state.apply(pick(legal))
                steps += 1
        else:
            while state.current_player is not None:
                state.apply(pick(state.legal_actions()))
                steps += 1
        return steps

    return play


def ours_bots_episode(players: int, spec: str):
    rules = get_rules("2p", num_players=players)
    bots = [agents.make(spec, seed=seat) for seat in range(players)]

    def play(i: int) -> int:
        state = BlindAuctionState(rules, SEED_BASE + i)
        steps = 0
        while state.current_player is not None:
            seat = state.current_player
            state.apply(bots[seat].act(state.view(seat), state.legal_actions()))
            steps += 1
        return steps

    return play


def ours_specs() -> list[RowSpec]:
    specs = [RowSpec(f"ours env() {p}p", ours_env_episode(p, RandomPicks(1)), "env")
             for p in (2, 3)]
    specs += [RowSpec(f"ours parallel_env() {p}p", ours_parallel_episode(p, RandomPicks(2)),
                      "parallel") for p in (2, 3)]
    specs += [RowSpec(f"ours engine {p}p", ours_engine_episode(p, RandomPicks(3), False),
                      "engine") for p in (2, 3)]
    specs += [RowSpec(f"ours engine+view+encode+mask {p}p",
                      ours_engine_episode(p, RandomPicks(4), True), "engine_obs") for p in (2, 3)]
    specs.append(RowSpec("ours engine + 2 x blind_auction/mirror",
                         ours_bots_episode(2, "blind_auction/mirror"), "bots"))
    return specs


# ---------------------------------------------------------------- OpenSpiel
OPENSPIEL_ROWS = ("openspiel goofspiel +observation_tensor",
                  "openspiel goofspiel +observation (numpy)",
                  "openspiel goofspiel (no observation)",
                  "openspiel goofspiel turn-based +observation_tensor")


def openspiel_episode(game, picks: RandomPicks, observe: str | None):
    pick = picks.pick
    if observe == "numpy":
        from open_spiel.python.observation import make_observation
        observation = make_observation(game)
    players = range(game.num_players())

    def play(_i: int) -> int:
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(pick(state.legal_actions()))
                continue
            bids = []
            for p in players:
                legal = state.legal_actions(p)
                if observe == "tensor":
                    state.observation_tensor(p)
                elif observe == "numpy":
                    observation.set_from(state, p)
                    observation.tensor.copy()
                bids.append(pick(legal))
            state.apply_actions(bids)
            steps += len(bids)
        return steps

    return play


def openspiel_turns_episode(game, picks: RandomPicks):
    pick = picks.pick

    def play(_i: int) -> int:
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            legal = state.legal_actions()
            if state.is_chance_node():
                state.apply_action(pick(legal))
                continue
            state.observation_tensor()
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
    game = pyspiel.load_game("goofspiel", OS_PARAMS)
    turns = pyspiel.convert_to_turn_based(game)
    info = {"open_spiel_parameters": OS_PARAMS,
            "open_spiel_observation_size": game.observation_tensor_size(),
            "open_spiel_turn_based_observation_size": turns.observation_tensor_size()}
    try:
        from importlib.metadata import version
        info["open_spiel_version"] = version("open_spiel")
    except Exception:  # noqa: BLE001 - the version is informative only
        pass
    specs = [RowSpec(name, openspiel_episode(game, RandomPicks(5 + k), observe), "openspiel")
             for k, (name, observe) in enumerate(zip(OPENSPIEL_ROWS[:3], ("tensor", "numpy", None),
                                                     strict=True))]
    specs.append(RowSpec(OPENSPIEL_ROWS[3], openspiel_turns_episode(turns, RandomPicks(9)),
                         "openspiel_turns"))
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
                        help="time the rates divide by: this process's CPU time (default) or "
                             "wall time")
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
          f"over {'CPU' if args.clock == 'cpu' else 'wall'} time; uniformly random legal bids\n",
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
    print("\nWhat each row measures (a step is one agent action: one bid):")
    fill = {"obs": OBS_SIZE, "acts": NUM_ACTIONS, "os_params": OS_PARAMS,
            "os_obs": os_info.get("open_spiel_observation_size", "?"),
            "os_turn_obs": os_info.get("open_spiel_turn_based_observation_size", "?")}
    for key in dict.fromkeys(r.note for r in rows):
        labels = ", ".join(r.name for r in rows if r.note == key)
        print(textwrap.fill(f"{labels}: {NOTES[key].format(**fill)}", width=100,
                            initial_indent="* ", subsequent_indent="  "))
    print(textwrap.fill(
        "Random choices come from pre-drawn uniform numbers (one multiply and index per choice) "
        "in every row. Every game is 13 rounds (2-player rows: 26 steps a game, 3-player: 39), "
        "so compare steps/s and us/step across rows.", width=100,
        initial_indent="* ", subsequent_indent="  "))
    if os_info:
        print(textwrap.fill(f"OpenSpiel {os_info.get('open_spiel_version', '?')}", width=100,
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
