"""The learning curve: win rate against the best rule bot over training steps, as a PNG."""

from __future__ import annotations

from pathlib import Path

from train.evaluate import hardest


def learning_curve(evals: list[dict], out: str | Path, opponent: str | None = None,
                   title: str = "") -> Path:
    """Plot the learner's win rate (95% interval bars) against ``opponent`` (default: the
    rule bot it beats least at the last evaluation) and the no-edge line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not evals:
        raise ValueError("no evaluations to plot (was eval_every 0?)")
    opponent = opponent or hardest(evals[-1]["results"])
    points = [(e["step"], e["results"][opponent]) for e in evals if opponent in e["results"]]
    steps = [s for s, _ in points]
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4), dpi=100)
    ax.errorbar(steps, [100 * r["win"] for _, r in points],
                yerr=[100 * (r["win_ci95"] or 0.0) for _, r in points], marker="o", capsize=3,
                label=f"learner vs {opponent}")
    ax.axhline(100 * points[0][1]["no_edge_win"], color="grey", linestyle="--",
               label="no edge")
    ax.set_ylabel("win rate % (95% interval)")
    ax.set_ylim(0, 100)
    ax.legend(loc="upper left")
    # the mean score moves long before games are won: the second panel shows progress early
    ax2.errorbar(steps, [r["score"] for _, r in points],
                 yerr=[r["score_ci95"] or 0.0 for _, r in points], marker="o", capsize=3,
                 color="tab:green")
    ax2.set_ylabel(f"learner's mean game score vs {opponent}")
    for a in (ax, ax2):
        a.set_xlabel("training steps")
        a.grid(alpha=0.3)
    fig.suptitle(title or f"learning curve vs {opponent}")
    fig.tight_layout()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)
    plt.close(fig)
    return out
