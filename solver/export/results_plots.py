"""docs/results.md's plots (docs/img/results_*.png), drawn from the results document."""

from __future__ import annotations

import io
from typing import Any, Mapping


def plots(doc: Mapping[str, Any]) -> dict[str, bytes]:
    """results_value.png and results_levels.png (Agg canvas, no global state), and Le
    Bidou's results_le_bidou_stakes.png when the document has its part."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    s = doc["sweep"]
    out = {}
    for name, key, xs, xlabel, series in (
            ("results_value.png", "faces_throws", range(2, 7), "faces",
             [(f"{t} throw{'s' * (t > 1)}", lambda x, t=t: f"{x},{t}") for t in range(1, 4)]),
            ("results_levels.png", "levels", range(1, 5), "max level",
             [(f"{t} throw{'s' * (t > 1)}", lambda x, t=t: f"{t},{x}") for t in range(1, 4)])):
        figure = Figure(figsize=(12, 3.6), dpi=100)
        FigureCanvasAgg(figure)
        variants = ("all, encyclopedia", "keep, encyclopedia", "all, french, aces beat bidou")
        for i, variant in enumerate(variants):
            axes = figure.add_subplot(1, 3, i + 1)
            for label, cell in series:
                axes.plot(list(xs), [s[key][variant][cell(x)]["value"] for x in xs],
                          marker="o", markersize=3, label=label)
            axes.axhline(0, color="0.6", linewidth=0.6)
            axes.set_xticks(list(xs))
            axes.set_title(f"reroll {variant}" + (", 6 faces" if key == "levels" else
                                                   ", max level 4"), fontsize=9)
            axes.set_xlabel(xlabel)
            axes.set_ylabel("value to the captain (chips/hand)")
            axes.legend(fontsize=7)
        figure.tight_layout()
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", metadata={"Software": None})
        out[name] = buffer.getvalue()
    if "le_bidou" in doc:
        from solver.export import le_bidou_section

        out[le_bidou_section.PLOT] = le_bidou_section.plot(doc["le_bidou"])
    return out
