"""The tournament summary: a JSON-ready dict and the aligned text table people read."""

from __future__ import annotations

from collections.abc import Sequence

from cardrl.eval.config import TournamentConfig
from cardrl.eval.stats import bot_stats, head_to_head, seating_balance


def summarize(cfg: TournamentConfig, deals: int, games: Sequence[dict],
              disqualified: Sequence[dict] = ()) -> dict:
    """Summary of finished game records (sorted by deal and rotation for determinism)."""
    games = sorted(games, key=lambda g: (g["deal"], g["rotation"]))
    stats = sorted(bot_stats(games), key=lambda b: (b.rank.mean, -b.score.mean))
    h2h = head_to_head(games)
    extra: dict = {}
    if cfg.seats is not None:
        extra["seat_counts"] = sorted({len(g["seats"]) for g in games})
        extra["balance"] = seating_balance(games)
    if cfg.disqualify:
        extra["disqualified"] = [dict(d) for d in disqualified]
    return {
        "config": cfg.to_dict(),
        "deals": deals,
        "rotations": (cfg.num_seats - len({d["entry"] for d in disqualified})
                      if cfg.seats is None else None),
        **extra,
        "games": len(games),
        "games_at_hand_cap": sum(g["hit_hand_cap"] for g in games),
        "mean_hands_per_game": sum(g["num_hands"] for g in games) / max(1, len(games)),
        "bots": [b.to_dict() for b in stats],
        "head_to_head": [{"bot": a, "vs": b, **h2h[a, b].to_dict()}
                         for a in (s.name for s in stats) for b in (s.name for s in stats)
                         if (a, b) in h2h],
    }


def _pm(est: dict, scale: float, digits: int) -> str:
    mean = f"{est['mean'] * scale:.{digits}f}"
    hw = "-" if est["ci95"] is None else f"{est['ci95'] * scale:.{digits}f}"
    return f"{mean} ± {hw}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], left: int = 2) -> list[str]:
    """Columns padded to their widest cell; the first ``left`` columns left-aligned."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells):
        return "  ".join(c.ljust(w) if i < left else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths, strict=True))).rstrip()

    return [line(header), *(line(r) for r in rows)]


def summary_text(summary: dict) -> str:
    cfg = summary["config"]
    changes = ", ".join(f"{k}={v}" for k, v in cfg["rule_changes"].items())
    if summary["rotations"] is not None:
        format_text = (f"duplicate: {summary['deals']} deals x {summary['rotations']} seat "
                       f"rotations = {summary['games']} games")
    else:
        counts = summary["seat_counts"]
        sizes = "-".join(map(str, (counts[0], counts[-1]))) if len(counts) > 1 and \
            counts == list(range(counts[0], counts[-1] + 1)) else ",".join(map(str, counts))
        format_text = (f"{summary['deals']} deals at tables of {sizes} seats drawn from "
                       f"{len(cfg['bots'])} bots, each deal in every seat rotation = "
                       f"{summary['games']} games")
    lines = [
        f"{cfg['game']} ({cfg['preset']}{', ' + changes if changes else ''}), {format_text}, "
        f"seed {cfg['seed']}",
        f"mean ± 95% interval over per-deal means (n = {summary['deals']} deals); "
        f"{summary['mean_hands_per_game']:.1f} hands per game",
        "",
    ]
    bots = summary["bots"]
    rows = [[str(i + 1), b["bot"], str(b["games"]), _pm(b["score"], 1, 1),
             _pm(b["win"], 100, 1), _pm(b["rank"], 1, 2)] for i, b in enumerate(bots)]
    lines += _table(["#", "bot", "games", "mean score", "win %", "avg rank"], rows)
    balance = summary.get("balance")
    if balance:
        lines += ["", f"seating: games per bot {balance['games'][0]}-{balance['games'][1]}, "
                      f"games shared by each pair {balance['pairs'][0]}-{balance['pairs'][1]}; "
                      "every bot sat in each seat of a table once per deal it played"]
    if summary.get("disqualified"):
        lines += ["", "disqualified (the tournament was rerun without them):"]
        lines += [f"  {d['bot']}: {d['kind']} - {d['reason']}" for d in summary["disqualified"]]
    capped = summary["games_at_hand_cap"]
    if cfg["max_hands"] is not None:
        lines += ["", f"{capped} of {summary['games']} games reached the {cfg['max_hands']}-hand "
                      f"cap" + (" (their scores are where the cap stopped them)" if capped else "")]
    h2h = {(r["bot"], r["vs"]): r for r in summary["head_to_head"]}
    if h2h:
        lines += ["", "head-to-head: % of games the row bot finished above the column bot "
                      "(ties count half)"]
        names = [b["bot"] for b in bots]
        rows = [[str(i + 1), a] + [f"{h2h[a, b]['mean'] * 100:.1f}" if (a, b) in h2h else "-"
                                   for b in names] for i, a in enumerate(names)]
        lines += _table(["#", "bot", *(str(i + 1) for i in range(len(names)))], rows)
    return "\n".join(lines) + "\n"
