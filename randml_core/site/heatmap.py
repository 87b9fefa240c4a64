"""A datasets x models heatmap beside each critical-difference diagram of the site.

A CD diagram ``figures/<stem>_cd.png`` summarises the table ``tables/<stem>.csv`` in average ranks; the
heatmap shows where those ranks come from: one row per dataset, one column per model (ordered by average
rank, best first), the cell coloured by the model's rank on that dataset (1 = best, ties share the mean
rank) and labelled with its score; a model's average rank is in brackets after its name. Scores are
read with the statistics module's own reader (:func:`randml_core.report.table_stats.score_matrix_from_csv`);
whether higher or lower is better is read from the markdown that shows the diagram ("gmean, higher is
better"). Drawn with matplotlib's Agg canvas (no pyplot state), without metadata, so the same table gives
the same bytes.
"""
from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pandas as pd

from .files import quantized_png

#: "(gmean, higher is better; ...", "; lower is better." as the statistics files write it
DIRECTION = re.compile(r"\b(higher|lower) is better")
CD_SUFFIX = "_cd"


def table_of(cd_png: Path, tables: Path) -> Path | None:
    """The table CSV a CD diagram ``<stem>_cd.png`` was drawn from (None for the subsets, e.g.
    ``<stem>_real_cd``, and for a diagram without a table CSV)."""
    if not cd_png.stem.endswith(CD_SUFFIX):
        return None
    csv = tables / f"{cd_png.stem[: -len(CD_SUFFIX)]}.csv"
    return csv if csv.is_file() else None


def higher_is_better(cd_png: Path, tables: Path) -> bool | None:
    """The direction stated beside the diagram in the markdown that shows it (the first "higher / lower
    is better" after the image, else before it); None when no file shows it."""
    for md in sorted(tables.glob("*.md")):
        text = md.read_text(errors="replace")
        at = text.find(f"/{cd_png.name})")
        if at < 0:
            continue
        found = DIRECTION.search(text, at) or next(iter(reversed(list(DIRECTION.finditer(text, 0, at)))), None)
        if found:
            return found.group(1) == "higher"
    return None


def ranks(scores: pd.DataFrame, higher: bool) -> pd.DataFrame:
    """Each dataset's rank of the models with a score (1 = best, ties averaged, NaN where no score)."""
    return scores.rank(axis=1, ascending=not higher, method="average")


def ordered(scores: pd.DataFrame, higher: bool) -> tuple[pd.DataFrame, pd.DataFrame, pd.Series]:
    """(scores, ranks, average rank) with the datasets that have a score and the models ordered by
    average rank over the datasets where they have one (best first)."""
    scores = scores.apply(pd.to_numeric, errors="coerce").dropna(how="all").dropna(axis=1, how="all")
    r = ranks(scores, higher)
    mean = r.mean(axis=0).sort_values(kind="stable")
    return scores[mean.index], r[mean.index], mean


def _label(value: float) -> str:
    return "" if not np.isfinite(value) else f"{value:.3g}" if abs(value) < 1000 else f"{value:.0f}"


def draw(scores: pd.DataFrame, higher: bool, title: str) -> bytes:
    """The heatmap as PNG bytes (ranks as colours, scores as labels, missing cells grey)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    import matplotlib as mpl

    scores, r, mean = ordered(scores, higher)
    n_rows, n_cols = r.shape
    fig = Figure(figsize=(2.0 + 0.55 * n_cols, 1.7 + 0.24 * n_rows), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    cmap = mpl.colormaps["RdYlGn_r"].with_extremes(bad="#d9dde3")
    top = max(n_cols, 2)
    image = ax.imshow(np.ma.masked_invalid(r.to_numpy(float)), cmap=cmap, vmin=1, vmax=top,
                      aspect="auto", interpolation="nearest")
    for i in range(n_rows):
        for j in range(n_cols):
            value, rank = scores.iat[i, j], r.iat[i, j]
            dark = np.isfinite(rank) and not 0.2 <= (rank - 1) / (top - 1) <= 0.8  # the map's dark ends
            ax.text(j, i, _label(value) if np.isfinite(value) else "\u2013", ha="center", va="center",
                    fontsize=7.5, color="white" if dark else "#1d2430")
    ax.set_xticks(range(n_cols), [f"{m} ({v:.2f})" for m, v in mean.items()], rotation=40, ha="right",
                  rotation_mode="anchor", fontsize=8)
    ax.set_yticks(range(n_rows), list(r.index), fontsize=8)
    ax.tick_params(length=0)
    ax.set_title(title, fontsize=8.5, loc="left")
    bar = fig.colorbar(image, ax=ax, fraction=0.035, pad=0.02)
    bar.set_label("rank on the dataset (1 = best)", fontsize=8)
    bar.ax.tick_params(labelsize=7.5)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    return quantized_png(buf.getvalue())


def heatmap_png(cd_png: Path, tables: Path) -> bytes | None:
    """The heatmap of the table behind ``cd_png`` (None when there is no table or no stated direction)."""
    from ..report.table_stats import score_matrix_from_csv

    csv = table_of(cd_png, tables)
    higher = higher_is_better(cd_png, tables) if csv is not None else None
    if csv is None or higher is None:
        return None
    try:
        scores = score_matrix_from_csv(csv)
    except SystemExit:  # a CSV in neither of the table forms: no heatmap, the diagram stays alone
        return None
    if scores.dropna(how="all").dropna(axis=1, how="all").empty:
        return None
    return draw(scores, higher, f"{csv.stem}: colour = rank on the dataset, label = score "
                f"({'higher' if higher else 'lower'} is better)")
