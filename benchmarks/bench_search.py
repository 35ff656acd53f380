"""Cost of a search decision (``cardrl.agents.search``) beside the bot it searches around.

    python -m benchmarks.bench_search [--seconds 20] [--game spades|gin_rummy] [--json PATH]

An episode is the first hand of a game with the timed bot in seat 0 and its
policy (without search) in the other seats; agent steps are seat 0's decisions,
forced ones included, so us/step is what one of its decisions costs on average
in a hand (the other seats' moves are timed too: a small share). Every row runs
on one pinned core, interleaved with the others.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from benchmarks.common import SEED_BASE
from benchmarks.timing import (
    RowSpec,
    format_machine,
    format_table,
    machine_info,
    pin_to_one_core,
    run_rows,
    write_json,
)
from cardrl import agents
from cardrl.agents.search import SearchBot
from cardrl.envs.games import get_game

GAMES = {"spades": ("killer", "cardrl/spades-killer", "spades/expert"),
         "gin_rummy": ("seed", "cardrl/gin_rummy-seed", "gin_rummy/expert")}


def first_hand(game: str, preset: str, bot, others) -> Callable[[int], int]:
    g = get_game(game)
    rules = g.get_rules(preset)

    def play(i: int) -> int:
        state = g.new_state(rules, SEED_BASE + i)
        bot.reset(SEED_BASE + i)  # warm-up episodes come as negative i
        decisions = 0
        while not state.results and not state.is_over:
            seat = state.current_player
            player = bot if seat == 0 else others
            state.apply(player.act(state.view(seat), state.legal_actions()))
            decisions += seat == 0
        return decisions

    return play


def rows_for(game: str) -> list[RowSpec]:
    preset, file, rule_bot = GAMES[game]
    net = agents.load(file, worlds=0)
    expert = agents.make(rule_bot)
    specs = [RowSpec(f"{game} network alone", first_hand(game, preset, net, net))]
    for worlds in (8, 16, 32):
        searcher = SearchBot(net, game, worlds=worlds, top_k=3, seed=0)
        specs.append(RowSpec(f"{game} network + search, {worlds} worlds, top 3",
                             first_hand(game, preset, searcher, net)))
    if get_game(game).past_moves is not None:  # worlds weighed by the others' moves
        searcher = SearchBot(net, game, worlds=32, top_k=3, belief=0.2, seed=0)
        specs.append(RowSpec(f"{game} network + search, 32 worlds, top 3, belief 0.2",
                             first_hand(game, preset, searcher, net)))
    specs.append(RowSpec(f"{game} {rule_bot} alone", first_hand(game, preset, expert, expert)))
    searcher = SearchBot(expert, game, worlds=16, top_k=13, seed=0)
    specs.append(RowSpec(f"{game} {rule_bot} + search, 16 worlds, every move",
                         first_hand(game, preset, searcher, expert)))
    return specs


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_search",
                                description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=20.0, help="wall time per row")
    p.add_argument("--game", action="append", choices=sorted(GAMES),
                   help="repeatable; default: every game with a sampler and a shipped bot")
    p.add_argument("--json", help="also write the rows as JSON here")
    args = p.parse_args(argv)
    cpu = pin_to_one_core()
    specs = [s for game in (args.game or sorted(GAMES)) for s in rows_for(game)]
    rows = run_rows(specs, args.seconds, rounds=2, clock="cpu", warmup_episodes=1)
    print(format_machine(machine_info(cpu)))
    print("episode = the first hand of a game; agent steps = seat 0's decisions (the timed bot)")
    print(format_table(rows))
    if args.json:
        write_json(args.json, rows, machine_info(cpu))
    return 0


if __name__ == "__main__":
    sys.exit(main())
