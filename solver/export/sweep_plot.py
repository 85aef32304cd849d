"""The two-hand sweep's plot (`bidou sweep`'s sweep.png): the value to the captain against
the number of faces, one panel per reroll rule and ranking, one line per other rule that
varies in the grid. The rows are the sweep table's (solver/pipeline/bidou_sweep.py)."""

from __future__ import annotations

import io
from typing import Any, Mapping, Sequence

# The sweep plot's series: colour (Okabe-Ito, for colour-blind readers) for the last rule that
# varies, marker and line style for the one before it, so that no two series of a panel
# look alike in colour, in grayscale or in a black-and-white print.
SERIES_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#000000")
SERIES_MARKS = (("o", "-"), ("s", "--"), ("^", ":"), ("D", "-."))
# The table's rules, in its order: the rows are drawn in it.
RULES = ("faces", "throws", "max_level", "reroll", "ranking", "aces_beat_bidou")


def series_style(index: tuple[int, ...]) -> dict[str, Any]:
    """matplotlib keywords of the series at `index` (its position in each varying rule)."""
    colour = SERIES_COLOURS[index[-1] % len(SERIES_COLOURS)] if index else SERIES_COLOURS[0]
    marker, style = SERIES_MARKS[index[0] % len(SERIES_MARKS)] if len(index) > 1 else ("o", "-")
    return {"color": colour, "marker": marker, "linestyle": style}


def plot_png(rows: Sequence[Mapping[str, Any]]) -> bytes:
    """`sweep_figure` as PNG bytes (no software field, so the same rows give the same
    bytes)."""
    buffer = io.BytesIO()
    sweep_figure(rows).savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()


def sweep_figure(rows: Sequence[Mapping[str, Any]]) -> Any:
    """The value against the number of faces: one panel per reroll rule and ranking, one line
    per other rule that varies in the grid (Agg canvas, no global state); `series_style`
    tells the lines apart. Type of 7.5 pt or more, so that a landscape A4 print (the figure
    shrunk by 0.93) keeps it at 6.5 pt or more."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows = sorted(rows, key=lambda r: tuple(r[name] for name in RULES))
    panel_of = lambda r: (r["reroll"], r["ranking"],  # noqa: E731
                          r["aces_beat_bidou"] if r["ranking"] == "french" else None)
    panels = sorted({panel_of(r) for r in rows}, key=str)
    varying = [c for c in ("throws", "max_level") if len({r[c] for r in rows}) > 1]
    values = {c: sorted({r[c] for r in rows}) for c in varying}
    columns = min(len(panels), 3) or 1
    lines = (len(panels) + columns - 1) // columns or 1
    figure = Figure(figsize=(4.2 * columns, 3.4 * lines + 0.5), dpi=110)
    FigureCanvasAgg(figure)
    for i, panel in enumerate(panels):
        axes = figure.add_subplot(lines, columns, i + 1)
        mine = [r for r in rows if panel_of(r) == panel]
        for line in sorted({tuple(r[c] for c in varying) for r in mine}):
            points = sorted((r["faces"], r["value"]) for r in mine
                            if tuple(r[c] for c in varying) == line)
            label = ", ".join(f"{c.replace('_', ' ')} {v}" for c, v in zip(varying, line))
            index = tuple(values[c].index(v) for c, v in zip(varying, line))
            axes.plot([p[0] for p in points], [p[1] for p in points], markersize=3.5,
                      linewidth=1, label=label or None, **series_style(index))
        reroll, ranking, aces = panel
        title = f"reroll {reroll}, {ranking}"
        if aces is not None:
            title += ", aces beat bidou" if aces else ", bidou unbeaten"
        axes.set_title(title, fontsize=9)
        axes.axhline(0, color="0.6", linewidth=0.6)
        axes.set_xticks(sorted({r["faces"] for r in mine}))
        axes.set_xlabel("faces")
        axes.set_ylabel("value to the captain (chips/hand)")
        axes.tick_params(labelsize=7.5)
    if varying:
        handles, labels = figure.axes[0].get_legend_handles_labels()
        figure.legend(handles, labels, loc="lower center", ncol=min(len(labels), 6),
                      fontsize=7.5, frameon=False)
    figure.tight_layout(rect=(0, 0.5 / (3.4 * lines + 0.5) + 0.02, 1, 1))
    return figure
