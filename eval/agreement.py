"""Where a bot parts from another, move by move.

    python -m eval.agreement gin_rummy checkpoints/gin_rummy-standard.onnx gin_rummy/expert \\
        --preset standard --games 100

A clone (``train.imitate``) that agrees with its teacher on nine moves in ten
can still lose every game when the tenth is the move that matters: a Gin clone
played on past most of its teacher's gins. This plays BOT in one seat (rotating
game by game) against copies of TEACHER and, at each of BOT's decisions, asks a
shadow TEACHER what it would have played there: the disagreement per phase and
the commonest (teacher's move, bot's move) pairs. The shadow sees only the view,
as every rule bot here plays.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence

import agents
from envs.games import get_game


def compare(game: str, preset: str | None, bot: str, teacher: str, games: int,
            seed: int = 0) -> dict:
    """``{"phases": {phase: {"decisions", "disagree"}}, "pairs": Counter((phase, teacher's
    move, bot's move))}`` over ``games`` games with BOT in seat ``game % n``."""
    if not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be a positive int, got {games!r}")
    g = get_game(game)
    rules = g.get_rules(preset or g.presets[0])
    n = g.num_players(rules)
    player, shadow = agents.make(bot), agents.make(teacher)
    for spec, b in ((bot, player), (teacher, shadow)):
        if b.game not in (None, game):
            raise ValueError(f"bot {spec!r} plays {b.game}, not {game}")
    phases: dict[str, dict[str, int]] = {}
    pairs: Counter = Counter()
    for i in range(games):
        state = g.new_state(rules, seed + i)
        others = [agents.make(teacher, seed=seed + i * n + s) for s in range(n)]
        me = i % n
        while not state.is_over:
            seat = state.current_player
            view, legal = state.view(seat), state.legal_actions()
            if seat != me:
                state.apply(others[seat].act(view, legal))
                continue
            action, wanted = player.act(view, legal), shadow.act(view, legal)
            phase = str(getattr(view, "phase", None) or "play")
            count = phases.setdefault(phase, {"decisions": 0, "disagree": 0})
            count["decisions"] += 1
            if action != wanted:
                count["disagree"] += 1
                pairs[(phase, g.action_name(wanted), g.action_name(action))] += 1
            state.apply(action)
    return {"phases": phases, "pairs": pairs}


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m eval.agreement",
                                description=__doc__.splitlines()[0])
    p.add_argument("game")
    p.add_argument("bot", help="a bot spec or an exported .onnx")
    p.add_argument("teacher", help="the bot it is compared with")
    p.add_argument("--preset", default=None)
    p.add_argument("--games", type=int, default=50)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--top", type=int, default=10, help="how many move pairs to list")
    args = p.parse_args(argv)
    try:
        result = compare(args.game, args.preset, args.bot, args.teacher, args.games, args.seed)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"{args.bot} against {args.teacher}'s choice in its seat, {args.games} games")
    print(f"{'phase':12} {'decisions':>9} {'disagree':>9}")
    for phase, c in result["phases"].items():
        print(f"{phase:12} {c['decisions']:9} {c['disagree'] / c['decisions']:9.1%}")
    print("commonest disagreements (phase: teacher -> bot):")
    for (phase, wanted, played), k in result["pairs"].most_common(args.top):
        print(f"{k:6}  {phase}: {wanted} -> {played}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
