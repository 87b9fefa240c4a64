"""Figures from stored frames (matplotlib, non-interactive backend). Nothing here fits a model."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402


def curve_panels(summary: pd.DataFrame, panel: str, x: str, y: str, err: str | None, *, title: str,
                 xlabel: str, ylabel: str, footer: str = "", series: str | None = None,
                 ncols: int = 3, logx: bool = False, logy: bool = False) -> plt.Figure:
    """One panel per value of ``panel``; a line per ``series`` value (or one line) with a +-err band."""
    panels = list(dict.fromkeys(summary[panel]))
    nrows = int(np.ceil(len(panels) / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, 3.0 * nrows), squeeze=False, sharex=True)
    for ax, name in zip(axes.flat, panels):
        sub = summary[summary[panel] == name]
        for label, g in (sub.groupby(series, sort=False) if series else [(None, sub)]):
            g = g.sort_values(x)
            line, = ax.plot(g[x], g[y], lw=1.4, label=label)
            if err is not None:
                ax.fill_between(g[x], g[y] - g[err], g[y] + g[err], color=line.get_color(), alpha=0.2, lw=0)
        ax.set_title(str(name), fontsize=10)
        ax.grid(alpha=0.3)
        if logx:
            ax.set_xscale("log")
        if logy:
            ax.set_yscale("log")
        if series:
            ax.legend(fontsize=7)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel(xlabel)
    for ax in axes[:, 0]:
        ax.set_ylabel(ylabel)
    fig.suptitle(title)
    if footer:
        fig.text(0.01, 0.005, footer, fontsize=6, va="bottom")
    fig.tight_layout(rect=(0, 0.03, 1, 0.97))
    return fig


def save(fig: plt.Figure, stem: str | Path, out=None) -> list[Path]:
    """Stage PNG and PDF in the artefact set ``out`` (fixed metadata dates, so reruns give the same
    bytes); without one they are committed together at once. The figure is closed."""
    from ..artefacts import ArtefactSet
    stem = Path(stem)
    try:
        if out is None:
            with ArtefactSet(stem.parent, stem.name, sidecar=False) as own:
                return save(fig, stem, own)
        return [out.save_figure(fig, stem.with_suffix(".png"), dpi=130, metadata={"Software": None}),
                out.save_figure(fig, stem.with_suffix(".pdf"),
                                metadata={"CreationDate": None, "ModDate": None, "Producer": None})]
    finally:
        plt.close(fig)


def plot_search_trace(trace, stem, out=None, title: str = "") -> list:
    """Best-so-far (mean over scopes) against the cells a scope spent, one line per search model; PNG and PDF
    through :func:`save`. [] without a trace (:func:`randml_core.search.trace_frame`)."""
    if not len(trace):
        return []
    fig, ax = plt.subplots(figsize=(6.0, 3.6))
    for model, g in trace.groupby("model", sort=False):
        curve = g.groupby("trial").agg(cells=("cells_so_far", "mean"), best=("best_so_far", "mean"))
        ax.plot(curve["cells"], curve["best"], marker=".", lw=1.2, label=f"{model} ({g['kind'].iloc[0]})")
    ax.set_xlabel("cells spent per search scope (mean over scopes)")
    ax.set_ylabel(f"best {trace['metric'].iloc[0]} so far (mean over scopes)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    ax.set_title(title or "search: best so far vs budget", fontsize=10)
    fig.tight_layout()
    return save(fig, stem, out)
