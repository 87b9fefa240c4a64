"""The report of an experiment that names no report module: one table per metric and selection rule.

Datasets x model columns; each cell is the mean ± std over the outer folds of the setting selected by
the papers' rule (best mean CV score over the grid) and, when the protocol has inner folds, by nested
CV. Metrics: ``report.metrics`` (default gmean for classification, rmse for regression); lower-is-better
metrics are minimised. With 2+ datasets and 2+ models, a statistics section compares the models
(``<experiment>_stats.md`` and a CD diagram). Written to ``results/tables/<experiment>*.{md,csv,tex}``.
"""
from __future__ import annotations

import pandas as pd

from ..config import ConfigError
from ..metrics import STORED_METRICS
from ..preprocess import preprocessing_of
from ..stats import higher_is_better
from .comparison import comparison_section, pivot_scores, selected
from .tables import Table, cell_counts, grid_edge_flags


def metrics_of(ctx) -> list[str]:
    chosen = (ctx.spec.options.get("report_metrics") or [])
    if chosen:
        return list(chosen)
    tasks = set(ctx.frame["rmse"].notna().map({True: "regression", False: "classification"})) \
        if "rmse" in ctx.frame.columns and len(ctx.frame) else {"classification"}
    return ["rmse"] if tasks == {"regression"} else ["gmean"]


def complete_models(pick: pd.DataFrame, columns: list[str]) -> list[str]:
    """The models with a score on every dataset that has one, when some model lacks one (e.g. a binary-only
    model on multiclass sets): the comparison over all models drops those datasets, this one keeps them.
    [] when no dataset is dropped or fewer than 2 models are complete. ``pick``: the selected settings
    (:func:`~randml_core.report.comparison.selected`)."""
    matrix = pivot_scores(pick, columns).dropna(how="all")
    if matrix.empty or not matrix.isna().any().any():
        return []
    complete = [m for m in matrix.columns if matrix[m].notna().all()]
    return complete if len(complete) >= 2 else []


def build(ctx) -> list:
    spec, frame = ctx.spec, ctx.frame
    rows, columns = list(spec.datasets), spec.columns or [v.name for v in spec.variants]
    notes = {d: "needs download: `make data`" for d in ctx.unavailable}
    rules = [("best_mean", "best mean CV score over the grid (the papers' rule; optimistic)", "")]
    if spec.protocol.inner_splits:
        rules.append(("nested", f"nested CV, {spec.protocol.inner_splits} inner folds per outer fold", "_nested"))
    paths, stats = [], [f"# {spec.name}: comparison over datasets\n"]
    metrics = metrics_of(ctx)
    for metric in metrics:
        if len(frame) and metric not in frame.columns:
            raise ConfigError(f"report.metrics lists {metric!r}, which the stored rows do not have "
                             f"(they have: {', '.join(c for c in STORED_METRICS if c in frame.columns)})")
        for rule, words, suffix in rules:
            pick = selected(frame, metric, rule) if len(frame) else pd.DataFrame(
                columns=["dataset", "model", "mean", "std", "n_folds", "n_failed", "n_bounded", "params_json"])
            footer = [f"Protocol: {spec.protocol.describe()}; profile = {spec.profile}.",
                      f"Cell: mean ± std of per-fold {metric} over the outer folds at the selected setting "
                      f"({'higher' if higher_is_better(metric) else 'lower'} is better; bold = best of the row). "
                      f"Selection: {words}.",
                      f"Features: {preprocessing_of(spec.options)}.",
                      cell_counts(frame, ctx.n_planned),
                      "Data sources: " + "; ".join(f"{d}: {s}" + (f" (substitute for {ctx.substitutes[d]})"
                                                                 if d in ctx.substitutes else "")
                                                   for d, s in ctx.sources.items()) + "."]
            edges = grid_edge_flags(pick, spec.variants)
            footer.append("Selected settings on a grid edge (the best value may lie outside the grid): "
                          + ("; ".join(edges) if edges else "none") + ".")
            reasons = sorted(set(frame.loc[frame["status"] == "skipped", "error"].dropna())) if len(frame) else []
            footer += [f"Skipped by rule: {r.removeprefix('skipped: ')}" for r in reasons]
            table = Table(f"{spec.name}: {metric}" + (" (nested CV selection)" if rule == "nested" else ""),
                          rows, columns, pick, notes, footer, higher_is_better=higher_is_better(metric),
                          skipped_text="not run (skipped by rule, see below)")
            stem = spec.name + ("" if metric == metrics[0] else f"_{metric}") + suffix
            paths += table.write(ctx.results_dir / "tables" / stem, ctx.artefacts)
            print(table.to_markdown())
            text, figs = comparison_section(frame, metric, ctx.results_dir / "figures" / f"{stem}_cd",
                                            f"{metric}, {words}", rule, columns, ctx.artefacts,
                                            pick) if len(frame) else ("", [])
            stats.append(text)
            paths += figs
            complete = complete_models(pick, columns) if len(frame) else []
            if complete:
                text, figs = comparison_section(
                    frame, metric, ctx.results_dir / "figures" / f"{stem}_complete_cd",
                    f"{metric}, {words}: the {len(complete)} models scored on every dataset", rule, complete,
                    ctx.artefacts, pick)
                stats.append(text)
                paths += figs
    if any(stats[1:]):
        paths.append(ctx.artefacts.write_text(ctx.results_dir / "tables" / f"{spec.name}_stats.md", "\n".join(stats)))
    return paths
