"""EEM paper Table 4 (GMean, UCI part) from the stored frame.

Two tables: the paper's rule (hyper-parameters with the best mean CV GMean over the grid, which
is optimistic) and nested CV (selected on inner folds of each outer training part), when the
protocol has inner folds.
"""
from __future__ import annotations

import pandas as pd

from randml_core.report.tables import (Table, cell_counts, features_line, grid_edge_counts, grid_edge_flags,
                                      nested_rows, select_best, select_nested, selected_rows, split_scores,
                                      with_stand_ins)

#: reads nothing but the report context (rows, config, data, code): an unchanged report is not rebuilt
CONTEXT_ONLY = True

TITLE = "EEM Table 4 — GMean on the UCI datasets"


def _size_limits(options: dict) -> str:
    limits = {f: options[f"{f}_max_train"] for f in ("lssvm", "svm") if options.get(f"{f}_max_train")}
    if not limits:
        return ""
    return ("Not run above a training size (an N x N kernel): " +
            ", ".join(f"{f} > {n} rows" for f, n in limits.items()) + ". ")


#: Section 7's grids, per axis; a config whose every column searches exactly these gets the paper's line
SECTION7_AXES = {"n_hidden": {50, 100, 250, 500, 1000}, "gamma": {10.0 ** k for k in range(-10, 1)},
                 "C": {10.0 ** k for k in range(-1, 11)}}
SECTION7_LINE = "Grids (Section 7): h in {50,100,250,500,1000}; gamma in 1e-10..1e0; C in 1e-1..1e10"


def grids_line(variants) -> str:
    """Footer line naming the searched grids: Section 7's line when every column searches exactly Section 7's
    values on each of its axes, else the config's own grids, columns with equal grids named together."""
    def same(p, vals):
        return p in SECTION7_AXES and {float(v) for v in vals} == {float(v) for v in SECTION7_AXES[p]}
    if all(same(p, vals) for v in variants for p, vals in v.grid.items()):
        return SECTION7_LINE
    groups: dict[str, list[str]] = {}
    for v in variants:
        axes = ", ".join(f"{p} in {{{', '.join(f'{x:g}' if isinstance(x, (int, float)) else str(x) for x in vals)}}}"
                         for p, vals in sorted(v.grid.items())) or "no grid"
        groups.setdefault(axes, []).append(v.name)
    return "Grids (this config, not Section 7's): " + "; ".join(f"{', '.join(names)}: {axes}"
                                                                 for axes, names in groups.items())


def task_minutes(frame: pd.DataFrame) -> str:
    """Footer line: compute per dataset from the store, the sum over its tasks (one split each, all
    models and settings, one BLAS thread) of the task's wall seconds (``task_seconds``)."""
    if not len(frame) or "task_seconds" not in frame or frame["task_seconds"].isna().all():
        return "Compute per dataset: not stored (rows written before task_seconds was recorded)."
    tasks = frame.dropna(subset=["task_seconds"]).drop_duplicates(["dataset", "repeat", "fold", "inner_fold"])
    secs = tasks.groupby("dataset")["task_seconds"].sum()
    missing = set(frame.loc[frame["task_seconds"].isna(), "dataset"])
    partial = sorted(missing & set(secs.index))
    absent = sorted(missing - set(secs.index))
    parts = [f"{d} {s / 60:.1f} min" if s >= 60 else f"{d} {s:.1f} s" for d, s in secs.items()]
    return ("Compute per dataset (sum over its splits of the task's wall seconds, all models, one thread each; "
            "with n_jobs=2 the run takes about half): " + ", ".join(parts)
            + (f"; partial (some rows without a task time): {', '.join(partial)}" if partial else "")
            + (f"; not recorded (rows stored before task_seconds existed; README lists measured wall times): "
               f"{', '.join(absent)}" if absent else "") + ".")


def row_versions(frame: pd.DataFrame) -> list[str]:
    """The code versions (commit[:10], +dirty) that computed the stored rows."""
    if not len(frame):
        return []
    return sorted(set(frame["code_version"].astype(str).str[:10] + frame["code_dirty"].map({True: "+dirty", False: ""})))


def _footer(ctx, rule: str, summary: pd.DataFrame, edges: list[str] | None = None) -> list[str]:
    """What the table's numbers depend on. Volatile facts (the code versions, the wall time per
    dataset) go to the sidecar ``<name>.meta.json`` instead, so a rerun gives the same bytes. ``edges``: the
    selected settings on a grid edge (see :func:`randml_core.report.tables.grid_edge_flags`)."""
    spec, frame = ctx.spec, ctx.frame
    lines = [
        f"Protocol: {spec.protocol.describe()}; repeats = {spec.protocol.repeats}; seed = {spec.protocol.seed}; "
        f"profile = {spec.profile}.",
        f"Cell: mean ± std of per-fold GMean over all outer folds at the selected hyper-parameters; "
        f"bold = best of the row (at 3 decimals). Selection: {rule}.",
        features_line(spec.options, "Features min-max scaled to [0, 1] per feature, scaler fitted on the training "
                                    "fold only."),
        grids_line(spec.variants) + (f" (profile {spec.profile!r})" if spec.profile != "paper" else ""),
        _size_limits(spec.options) +
        f"libsvm fits bounded at {spec.options.get('svm_max_iter')} iterations; bounded (not converged) cells "
        f"in the whole grid: {int((~frame['converged'].astype(bool)).sum()) if len(frame) else 0}; at the selected "
        f"settings: {int(summary['n_bounded'].sum()) if len(summary) else 0}.",
        cell_counts(frame, ctx.n_planned),
        "Selected values on a grid edge of an axis of 3 or more values (the search may have stopped short there): "
        + ("; ".join(edges) if edges else "none") + ".",
        "Published values: the text copy of the paper lost Table 4's body, so none are shown.",
        "Data sources: " + "; ".join(f"{d}: {s}" + (f" (substitute for {ctx.substitutes[d]})" if d in ctx.substitutes else "")
                                     for d, s in ctx.sources.items()) + ".",
    ]
    return lines


def folds_frame(rows: pd.DataFrame) -> pd.DataFrame:
    """``<stem>_folds.csv``: GMean and fit seconds per outer split at the selection the table shows (``rows``:
    one outer row per dataset, model, repeat, fold), with ``stand_in_for`` (the original a named substitute
    stands in for; empty for the real sets): the paired splits the claims report tests on."""
    return with_stand_ins(split_scores(rows, "gmean"))


def build(ctx) -> list:
    spec = ctx.spec
    rows = list(spec.datasets)
    columns = spec.columns or [v.name for v in spec.variants]
    notes = {d: "needs download: `make data`" for d in ctx.unavailable}
    present = set(ctx.frame["dataset"]) if len(ctx.frame) else set()
    notes.update({d: f"not run for this snapshot (`randml run experiment={spec.name}`)" for d in rows
                  if d not in notes and d not in present})
    ctx.artefacts.record("row_code_versions", row_versions(ctx.frame))
    ctx.artefacts.record("compute_per_dataset", task_minutes(ctx.frame))
    paths = []
    best = select_best(ctx.frame) if len(ctx.frame) else pd.DataFrame(
        columns=["dataset", "model", "mean", "std", "n_folds", "n_failed", "n_bounded", "params_json"])
    title = spec.options.get("title", TITLE)
    table = Table(title, rows, columns, best, notes,
                  _footer(ctx, "best mean CV GMean over the grid (the paper's rule; optimistic)", best,
                          grid_edge_flags(best, spec.variants)))
    paths += table.write(ctx.results_dir / "tables" / spec.name, ctx.artefacts)
    paths.append(ctx.artefacts.write_csv(ctx.results_dir / "tables" / f"{spec.name}_folds.csv",
                                         folds_frame(selected_rows(ctx.frame, best))))  # the claims' paired splits
    print(table.to_markdown())
    if spec.protocol.inner_splits:
        nested = select_nested(ctx.frame)
        picks = nested_rows(ctx.frame)
        ntable = Table(title + " (nested CV selection)", rows, columns, nested, notes,
                       _footer(ctx, f"nested CV, {spec.protocol.inner_splits} inner folds per outer fold", nested,
                               grid_edge_counts(picks, spec.variants)))
        paths += ntable.write(ctx.results_dir / "tables" / f"{spec.name}_nested", ctx.artefacts)
        paths.append(ctx.artefacts.write_csv(ctx.results_dir / "tables" / f"{spec.name}_nested_folds.csv",
                                             folds_frame(picks)))
        print(ntable.to_markdown())
    return paths
