"""The learning curve: win rate against the best rule bot over training steps, as a PNG."""

from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure

from train.evaluate import hardest


def learning_curve(evals: list[dict], out: str | Path, opponent: str | None = None,
                   title: str = "") -> Path:
    """Plot the learner's win rate (95% interval bars) against ``opponent`` (default: the
    rule bot it beats least at the last evaluation) and the no-edge line."""
    if not evals:
        raise ValueError("no evaluations to plot (was eval_every 0?)")
    opponent = opponent or hardest(evals[-1]["results"])
    points = [(e["step"], e["results"][opponent]) for e in evals if opponent in e["results"]]
    steps = [s for s, _ in points]
    fig = Figure(figsize=(11, 4), dpi=100)  # no pyplot: no GUI backend, no global figure
    ax, ax2 = fig.subplots(1, 2)
    ax.errorbar(steps, [100 * r["win"] for _, r in points],
                yerr=[100 * (r["win_ci95"] or 0.0) for _, r in points], marker="o", capsize=3,
                label=f"learner vs {opponent}")
    ax.axhline(100 * points[0][1]["no_edge_win"], color="grey", linestyle="--",
               label="no edge")
    ax.set_ylabel("win rate % (95% interval)")
    ax.set_ylim(0, 100)
    ax.legend(loc="upper left")
    label, values, errors, no_edge = second_panel([r for _, r in points], opponent)
    ax2.errorbar(steps, values, yerr=errors, marker="o", capsize=3, color="tab:green")
    ax2.set_ylabel(label)
    if no_edge is not None:
        ax2.axhline(no_edge, color="grey", linestyle="--")
        ax2.invert_yaxis()  # rank 1 is best: up is better in both panels
    for a in (ax, ax2):
        a.set_xlabel("training steps")
        a.grid(alpha=0.3)
    fig.suptitle(title or f"learning curve vs {opponent}")
    fig.tight_layout()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)
    return out


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
