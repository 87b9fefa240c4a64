"""Critical-difference diagram (Demsar 2006, Figure 1 style): the models on an average-rank axis
(1 = best, on the left), the Nemenyi CD as a bar, and thick lines joining groups of models whose
average ranks differ by less than CD. Drawn with matplotlib's Agg canvas (no pyplot state) and
written as PNG + PDF atomically (:func:`randml_core.artefacts.atomic_file`: a temp file in the target
directory, then os.replace), so a reader never sees a half-written figure."""
from __future__ import annotations

from pathlib import Path

from .refusal import StatsRefusal


def nemenyi_groups(ranks, cd: float) -> list[tuple[int, int]]:
    """Maximal runs (i, j), i < j, of the models sorted by average rank whose ranks span less than
    ``cd`` (so no pair inside differs significantly); runs inside a longer run are left out."""
    r = sorted(float(v) for v in ranks)
    groups = []
    for i in range(len(r)):
        j = i
        while j + 1 < len(r) and r[j + 1] - r[i] < cd:
            j += 1
        if j > i and not any(a <= i and j <= b for a, b in groups):
            groups.append((i, j))
    return groups


def _figure(comparison):
    from matplotlib.figure import Figure

    ranks = comparison.ranks.sort_values(kind="stable")
    names, values = [str(m) for m in ranks.index], ranks.to_numpy(float)
    k, cd = len(values), comparison.cd.value
    groups = nemenyi_groups(values, cd)
    n_left = (k + 1) // 2
    gap = 0.12                       # vertical step between clique bars
    first_row = -0.35 - gap * len(groups)
    row_step = 0.32
    bottom = first_row - row_step * (max(n_left, k - n_left) - 1) - 0.3
    span = max(k - 1, 1)
    axis_in = 4.0                                   # inches for the rank axis
    label_in = 0.075 * max(len(f"{nm} ({r:.2f})") for nm, r in zip(names, values)) + 0.2  # 9 pt text
    margin = 0.1 * span + label_in * span / axis_in  # room for the leader lines and the labels
    width = axis_in * (span + 2 * margin) / span
    fig = Figure(figsize=(width, 1.6 + 0.32 * max(n_left, k - n_left) + 0.12 * len(groups)))
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_axis_off()
    ax.set_xlim(1 - margin, k + margin)
    ax.set_ylim(bottom, 1.05)
    # rank axis
    ax.plot([1, k], [0, 0], color="black", lw=1)
    for t in range(1, k + 1):
        ax.plot([t, t], [0, 0.07], color="black", lw=1)
        ax.text(t, 0.12, str(t), ha="center", va="bottom", fontsize=9)
    ax.text((1 + k) / 2, 0.38, "average rank (1 = best)", ha="center", va="bottom", fontsize=8, color="0.3")
    # CD bar
    ax.plot([1, 1 + cd], [0.78, 0.78], color="black", lw=1.5)
    for x in (1, 1 + cd):
        ax.plot([x, x], [0.72, 0.84], color="black", lw=1)
    ax.text(1 + cd / 2, 0.86, f"CD = {cd:.3f}", ha="center", va="bottom", fontsize=9)
    # models
    for idx, (name, r) in enumerate(zip(names, values)):
        left = idx < n_left
        row = idx if left else k - 1 - idx
        y = first_row - row_step * row
        x_end = 1 - 0.1 * span if left else k + 0.1 * span
        ax.plot([r, r, x_end], [0, y, y], color="black", lw=0.9)
        ax.text(x_end - 0.02 * span if left else x_end + 0.02 * span, y, f"{name} ({r:.2f})",
                ha="right" if left else "left", va="center", fontsize=9)
    # cliques: thick bars under the axis
    for g, (i, j) in enumerate(groups):
        y = -0.2 - gap * g
        ax.plot([values[i] - 0.03, values[j] + 0.03], [y, y], color="black", lw=3.5, solid_capstyle="round")
    title = (f"Nemenyi test, alpha = {comparison.alpha:g}: {comparison.metric} on "
             f"{comparison.n_datasets} datasets")
    ax.text(k + margin - 0.02 * span, 1.0, title, ha="right", va="top", fontsize=8, color="0.3")
    return fig


def _write_atomic(fig, path: Path, **kwargs) -> None:
    """``fig.savefig`` straight into :func:`~randml_core.artefacts.atomic_file` (umask's permissions)."""
    from ..artefacts import atomic_file

    with atomic_file(path) as fh:
        fig.savefig(fh, **kwargs)


def cd_diagram(comparison, path_stem, out=None) -> list[Path]:
    """Draw the CD diagram of a :class:`~randml_core.stats.compare.Comparison` and write
    ``<path_stem>.png`` and ``<path_stem>.pdf`` (fixed metadata, so reruns give the same bytes), each
    atomically, or staged in ``out`` (a report's :class:`~randml_core.artefacts.ArtefactSet`).
    Raises :class:`StatsRefusal` when the comparison has no Nemenyi CD (fewer than 3 models or 2 datasets), or when
    the CD exceeds k - 1, the largest possible difference of average ranks: the diagram could only join every model
    in one bar, so it says nothing (the statistics text says how many datasets are needed)."""
    if not comparison.cd.applicable:
        raise StatsRefusal(f"no CD diagram: {comparison.cd.reason}")
    cd, k = comparison.cd, comparison.cd.k
    if cd.value > k - 1:
        raise StatsRefusal(f"no CD diagram: with {cd.n} datasets the Nemenyi CD ({cd.value:.3f}) exceeds k - 1 = "
                           f"{k - 1}, the largest possible difference of average ranks, so no pair can differ")
    stem = Path(path_stem)
    fig = _figure(comparison)
    png, pdf = stem.with_name(stem.name + ".png"), stem.with_name(stem.name + ".pdf")
    meta_png, meta_pdf = {"Software": None}, {"CreationDate": None, "ModDate": None, "Producer": None}
    if out is not None:
        out.save_figure(fig, png, dpi=150, metadata=meta_png)
        out.save_figure(fig, pdf, metadata=meta_pdf)
    else:
        stem.parent.mkdir(parents=True, exist_ok=True)
        _write_atomic(fig, png, format="png", dpi=150, metadata=meta_png)
        _write_atomic(fig, pdf, format="pdf", metadata=meta_pdf)
    import matplotlib.pyplot as plt
    plt.close(fig)
    return [png, pdf]
