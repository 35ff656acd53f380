"""The learning curve: win rate against every evaluated bot over training steps, as a PNG."""

from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure


def learning_curve(evals: list[dict], out: str | Path, opponent: str | None = None,
                   title: str = "") -> Path:
    """Plot the learner's win rate (95% interval bars) against every evaluated bot (or only
    ``opponent``), the no-edge line, and beside it the rank or score against each."""
    series = curve_series(evals, opponent)
    fig = Figure(figsize=(11, 4), dpi=100)  # no pyplot: no GUI backend, no global figure
    ax, ax2 = fig.subplots(1, 2)
    no_edge = None
    for name, points in series.items():
        steps, results = [s for s, _ in points], [r for _, r in points]
        table = f"vs {name}" + (f" + {results[-1]['fill']}" if "fill" in results[-1] else "")
        ax.errorbar(steps, [100 * r["win"] for r in results],
                    yerr=[100 * (r["win_ci95"] or 0.0) for r in results], marker="o",
                    capsize=3, label=table)
        label, values, errors, no_edge = second_panel(results, name)
        ax2.errorbar(steps, values, yerr=errors, marker="o", capsize=3, label=table)
    ax.axhline(100 * results[-1]["no_edge_win"], color="grey",
               linestyle="--", label="no edge")
    ax.set_ylabel("learner's win rate % (95% interval)")
    ax.set_ylim(0, 100)
    ax.legend(loc="upper left", fontsize=8)
    ax2.set_ylabel(label.split(" vs ")[0])
    if no_edge is not None:
        ax2.axhline(no_edge, color="grey", linestyle="--", label="no edge")
        ax2.invert_yaxis()  # rank 1 is best: up is better in both panels
    ax2.legend(loc="upper left", fontsize=8)
    for a in (ax, ax2):
        a.set_xlabel("training steps")
        a.grid(alpha=0.3)
    fig.suptitle(title or "learning curve")
    fig.tight_layout()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)
    return out


def curve_series(evals: list[dict], opponent: str | None = None) -> dict[str, list]:
    """{bot: [(step, its result), ...]} of every bot of the last evaluation (or ``opponent``)."""
    if not evals:
        raise ValueError("no evaluations to plot (was eval_every 0?)")
    names = [opponent] if opponent else list(evals[-1]["results"])
    series = {name: [(e["step"], e["results"][name]) for e in evals if name in e["results"]]
              for name in names}
    for name, points in series.items():
        if not points:
            raise ValueError(f"no evaluation against {name!r} to plot")
    return series


def second_panel(results: list[dict], opponent: str) -> tuple[str, list, list, float | None]:
    """(label, values, 95% half-widths, no-edge line) of the right-hand panel.

    With more than two players the average rank is what the game is judged on
    (Sevens); with two, the mean score, which moves long before games are won.
    """
    players = round(1 / results[0]["no_edge_win"])
    if players > 2:
        return (f"average rank vs {opponent} (1 = best)",
                [r["rank"] for r in results], [r["rank_ci95"] or 0.0 for r in results],
                (players + 1) / 2)
    return (f"learner's mean game score vs {opponent}", [r["score"] for r in results],
            [r["score_ci95"] or 0.0 for r in results], None)
