"""What every game's speed benchmark shares: its episode loops and its ``main``.

A game's ``bench_<game>.py`` lists its rows (``RowSpec``s made with the loops
below), the peers' rows (``Peer``), what each row measures and its bar; ``main``
parses the common command line, runs every row interleaved on one pinned core
(``benchmarks.timing``) and prints the table, the notes and the bar.
"""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

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

SEED_BASE = 1_000_000  # our episode i is dealt from seed SEED_BASE + i
NOT_INSTALLED = "not installed ({}); `pip install -e '.[bench]'` or `make bench`"


# --------------------------------------------------------------------- ours
def env_episode(e, picks: RandomPicks) -> Callable[[int], int]:
    """The PettingZoo AEC loop as a user writes it, random legal actions from the mask;
    dead steps are played but not counted."""
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


def engine_episode(new_state: Callable[[int], Any], picks: RandomPicks,
                   observe: tuple[Callable, Callable] | None = None) -> Callable[[int], int]:
    """The engine alone until its first hand is scored: ``new_state(seed)``, then
    ``legal_actions()`` and ``apply(random legal)``; with ``observe = (encode,
    action_mask)`` also the view, observation and mask of the player to act."""
    pick = picks.pick

    def play(i: int) -> int:
        state = new_state(SEED_BASE + i)
        results = state.results
        steps = 0
        if observe:
            encode, action_mask = observe
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


def bots_episode(new_state: Callable[[int], Any], bots: Sequence) -> Callable[[int], int]:
    """The engine with a bot per seat deciding every step from its view, to the first score."""

    def play(i: int) -> int:
        state = new_state(SEED_BASE + i)
        results = state.results
        steps = 0
        while not results:
            seat = state.current_player
            state.apply(bots[seat].act(state.view(seat), state.legal_actions()))
            steps += 1
        return steps

    return play


@njit(cache=True)
def _pick_legal(masks: np.ndarray, u: np.ndarray, out: np.ndarray) -> None:
    """``out[i]`` := the ``int(u[i] * count)``-th legal action of row ``i`` of ``masks``."""
    for i in range(masks.shape[0]):
        count = 0
        for a in range(masks.shape[1]):
            count += masks[i, a]
        k = int(u[i] * count)
        for a in range(masks.shape[1]):
            if masks[i, a]:
                if k == 0:
                    out[i] = a
                    break
                k -= 1


def batched_ticks(games, seed: int, ticks: int = 32) -> Callable[[int], int]:
    """``ticks`` calls of ``games.step_games`` (every game, auto-reset, in place, as the
    self-play collector steps them), each game's action uniformly random among the legal
    ones in ``games.masks`` (a compiled pick from pre-drawn numbers, about 0.03 us a
    game); one agent step per game per tick."""
    n = games.num_games
    games.reset(seed=SEED_BASE)
    u = np.random.default_rng(seed).random((1024, n))
    actions = np.zeros(n, np.int64)
    everyone = np.arange(n, dtype=np.int64)
    tick = [0]

    def play(_i: int) -> int:
        for _ in range(ticks):
            _pick_legal(games.masks, u[tick[0] & 1023], actions)
            games.step_games(everyone, actions)
            tick[0] += 1
        return ticks * n

    return play


# ---------------------------------------------------------------- OpenSpiel
OPENSPIEL_OBSERVATIONS = ("tensor", "numpy", None)  # the three rows of a sequential game


def openspiel_episode(game, picks: RandomPicks, observe: str | None) -> Callable[[int], int]:
    """One episode of a sequential pyspiel game: chance events played but not counted; per
    agent step the observation (``observe``: "tensor", "numpy" or None) and an action."""
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


def package_version(dist: str) -> dict[str, str]:
    """``{"<dist>_version": version}``, or nothing when it cannot be read."""
    try:
        from importlib.metadata import version
        return {f"{dist}_version": version(dist)}
    except Exception:  # noqa: BLE001 - the version is informative only
        return {}


def openspiel_specs(game_name: str, row_names: Sequence[str], params: dict | None = None,
                    first_pick_seed: int = 4) -> tuple[list[RowSpec], dict, str | None]:
    """The rows of a sequential OpenSpiel game (observation_tensor, numpy observation,
    none), facts about it, and why not when OpenSpiel is not installed."""
    try:
        import pyspiel
    except ImportError as err:
        return [], {}, NOT_INSTALLED.format(err)
    game = pyspiel.load_game(game_name, params) if params else pyspiel.load_game(game_name)
    info = {"open_spiel_parameters": dict(game.get_type().parameter_specification),
            "open_spiel_observation_size": game.observation_tensor_size(),
            **package_version("open_spiel")}
    specs = [RowSpec(name, openspiel_episode(game, RandomPicks(first_pick_seed + k), observe),
                     "openspiel")
             for k, (name, observe) in enumerate(zip(row_names, OPENSPIEL_OBSERVATIONS,
                                                     strict=True))]
    return specs, info, None


# --------------------------------------------------------------------- main
@dataclass
class Peer:
    """Another library's rows: ``specs()`` gives (rows, facts, why not when not installed);
    ``rows`` names them all, for the skipped rows when it is not installed."""

    name: str  # the --only choice, and the rows' note key when skipped
    specs: Callable[[], tuple[list[RowSpec], dict, str | None]]
    rows: Sequence[str]


def bar_line(rows: Sequence[Row], ours: Sequence[str], theirs: str,
             faster: float = 1.0) -> str | None:
    """The bar: each of our ``ours`` rows per step against the ``theirs`` row; with
    ``faster``, the goal is that many times fewer us per step than theirs."""
    by_name = {r.name: r for r in rows if not r.skipped}
    if not all(name in by_name for name in (*ours, theirs)):
        return None
    their_us = by_name[theirs].us_per_step
    parts = []
    for name in ours:
        us = by_name[name].us_per_step
        if faster == 1.0:
            verdict = "meets it" if us <= their_us else "misses it"
            parts.append(f"{name} {us:.2f} us/step = {us / their_us:.2f}x, {verdict}")
        else:
            verdict = "met" if us * faster <= their_us else "missed"
            parts.append(f"{name} {us:.3f} us/step, {their_us / us:.1f}x faster: goal "
                         f"{faster:g}x {verdict}")
    return f"Bar: {theirs} {their_us:.2f} us/step; " + "; ".join(parts)


def bar_lines(*lines: str | None) -> str | None:
    """Several bars, one paragraph each (``main`` prints them apart)."""
    kept = [line for line in lines if line]
    return "\n".join(kept) if kept else None


def _paragraph(text: str) -> str:
    return textwrap.fill(text, width=100, initial_indent="* ", subsequent_indent="  ")


def main(
    argv: list[str] | None,
    *,
    doc: str,
    ours: Callable[[], list[RowSpec]],
    peers: Sequence[Peer],
    notes: dict[str, str],
    fill: Callable[[dict], dict],
    bar: Callable[[list[Row]], str | None],
    footer: Callable[[dict], list[str]],
    play: str = "play",
    step: str = "",
) -> int:
    """A benchmark's command line: ``doc`` (the module docstring) describes it; ``ours()``
    and each peer's ``specs()`` make the rows; ``notes[row.note]`` says what a row
    measures (formatted with ``fill(facts)``); ``footer(facts)`` adds paragraphs;
    ``play`` and ``step`` word the header ('uniformly random legal <play>') and what a
    step is ('a step is one agent action<step>')."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="wall-clock budget per row (default 3)")
    parser.add_argument("--only", choices=("ours", *(p.name for p in peers)),
                        help="run only these rows")
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
          f"over {'CPU' if args.clock == 'cpu' else 'wall'} time; uniformly random legal "
          f"{play}\n", flush=True)

    specs: list[RowSpec] = []
    facts: dict = {}
    skipped: list[Row] = []
    if args.only in (None, "ours"):
        specs += ours()
    for peer in peers:
        if args.only in (None, peer.name):
            peer_specs, peer_facts, missing = peer.specs()
            specs += peer_specs
            facts.update(peer_facts)
            if missing:
                skipped += [skipped_row(name, missing, note=peer.name) for name in peer.rows]
    rows = run_rows(specs, args.seconds, rounds=args.rounds, clock=args.clock) + skipped

    print(format_table(rows))
    print(f"\nWhat each row measures (a step is one agent action{step}):")
    values = fill(facts)
    for key in dict.fromkeys(r.note for r in rows):
        labels = ", ".join(r.name for r in rows if r.note == key)
        print(_paragraph(f"{labels}: {notes[key].format(**values)}"))
    for text in footer(facts):
        print(_paragraph(text))
    bar_text = bar(rows)
    if bar_text:
        for line in bar_text.split("\n"):
            print("\n" + textwrap.fill(line, width=100))
    if args.json:
        write_json(args.json, rows, info, seconds_per_row=args.seconds, rounds=args.rounds,
                   clock=args.clock, bar=bar_text, **facts)
        print(f"\nwrote {args.json}")
    return 0
