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
    wins = [100 * r["win"] for _, r in points]
    errs = [100 * (r["win_ci95"] or 0.0) for _, r in points]
    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    ax.errorbar(steps, wins, yerr=errs, marker="o", capsize=3, label=f"learner vs {opponent}")
    ax.axhline(100 * points[0][1]["no_edge_win"], color="grey", linestyle="--",
               label="no edge")
    ax.set_xlabel("training steps")
    ax.set_ylabel("win rate % (95% interval)")
    ax.set_ylim(0, 100)
    ax.set_title(title or f"learning curve vs {opponent}")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left")
    fig.tight_layout()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)
    plt.close(fig)
    return out
