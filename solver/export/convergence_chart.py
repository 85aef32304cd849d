"""The CFR family's convergence chart: exploitability against iterations and against seconds
(PNG, PDF), from the histories a run kept (`solver.pipeline.convergence`)."""

from __future__ import annotations

import io
import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from solver.common.files import publish, staging_folder, write_bytes_atomic  # noqa: E402
from solver.hand.solve import Solution  # noqa: E402

# Okabe-Ito colours, with distinct markers and dashes so grayscale prints still separate.
STYLES = {
    "cfr": ("#000000", "o", "-"),
    "cfr+": ("#E69F00", "s", "--"),
    "dcfr": ("#0072B2", "^", "-."),
    "pcfr+": ("#009E73", "D", ":"),
}


def plot_convergence(runs: dict[str, Solution], lp_value: float | None = None):
    """A figure with two panels: exploitability against iterations, and against seconds."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.4), constrained_layout=True)
    for method, solution in runs.items():
        colour, marker, dash = STYLES.get(method, ("#666666", "x", "-"))
        points = [(i, s, e) for i, s, e in solution.history if e > 0]
        if not points:
            continue
        its, secs, expl = zip(*points)
        label = f"{method} ({solution.iterations} it, {solution.exploitability.exploitability:.1e})"
        for ax, xs in zip(axes, (its, secs)):
            ax.loglog(xs, expl, color=colour, marker=marker, linestyle=dash, markersize=3,
                      linewidth=1.4, label=label)
    axes[0].set_xlabel("iterations")
    axes[1].set_xlabel("seconds")
    for ax in axes:
        ax.set_ylabel("exploitability (chips per hand)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=8)
    params = next(iter(runs.values())).params
    title = f"CFR convergence, {params.describe()}"
    if lp_value is not None:
        title += f"\nLP value {lp_value:+.9f} chips per hand to the captain"
    fig.suptitle(title, fontsize=10)
    return fig


def write_convergence(runs: dict[str, Solution], out_dir: str | os.PathLike,
                      lp_value: float | None = None, stem: str = "convergence") -> list[Path]:
    """PNG and PDF of the curves, written atomically and byte-for-byte reproducibly."""
    fig = plot_convergence(runs, lp_value)
    names = []
    with staging_folder(out_dir) as stage:          # both files or neither
        for fmt, metadata in (("png", {"Software": None}), ("pdf", {"CreationDate": None})):
            buffer = io.BytesIO()
            fig.savefig(buffer, format=fmt, dpi=120, metadata=metadata)
            names.append(f"{stem}.{fmt}")
            write_bytes_atomic(stage / names[-1], buffer.getvalue())
        plt.close(fig)
        publish(stage, out_dir, names)
    return [Path(out_dir) / name for name in names]
