"""The report of an experiment that names no report module: one table per metric and selection rule.

Datasets x model columns; each cell is the mean ± std over the outer folds of the setting selected by
the papers' rule (best mean CV score over the grid) and, when the protocol has inner folds, by nested
CV. Metrics: ``report.metrics`` (default gmean for the classification sets, rmse for the regression sets:
a mixed experiment gets both, then the scikit-learn scorers of ``experiment.metrics``); each metric's table
has the sets it scores; lower-is-better metrics are minimised (a scorer's direction is its sign:
:mod:`randml_core.metrics`). With 2+ datasets and 2+ models, a statistics section compares the models
(``<experiment>_stats.md`` and a CD diagram). Written to ``results/tables/<experiment>*.{md,csv,tex}``.
"""
from __future__ import annotations

import pandas as pd

from ..config import ConfigError
from ..metrics import STORED_METRICS, find_scorer, metric_column, metric_task, not_scored, task_kind, unscored
from ..preprocess import preprocessing_of
from ..stats import higher_is_better
from .comparison import comparison_section, pivot_scores, selected
from .tables import Table, cell_counts, grid_edge_flags

#: reads nothing but the report context (rows, config, data, code): an unchanged report is not rebuilt
CONTEXT_ONLY = True


def dataset_tasks(ctx) -> dict[str, str]:
    """dataset -> 'regression' or 'classification', from the registry (also for sets not loaded here)."""
    from ..data import get_spec
    return {d: task_kind(get_spec(d).task) for d in ctx.spec.datasets}


def metrics_of(ctx) -> list[str]:
    """``report.metrics`` (stored columns), else gmean when the experiment has a classification set and rmse when
    it has a regression set (both, one table each, for a mix), then each scorer of ``experiment.metrics`` that
    scores one of its sets. A listed metric that fits none of the sets is an error."""
    tasks = set(dataset_tasks(ctx).values())
    chosen = list(ctx.spec.engine.report_metrics)
    for metric in chosen:
        if metric_task(metric) not in tasks:
            raise ConfigError(f"report.metrics lists {metric!r}, a {metric_task(metric)} metric, but every dataset "
                              f"of {ctx.spec.name} is {' / '.join(sorted(tasks))}; fix: list "
                              + ("rmse or mae" if tasks == {"regression"} else "gmean, accuracy, balanced_accuracy "
                                 "or log_loss"))
    if chosen:
        return chosen
    scorers = [metric_column(m) for m in ctx.spec.engine.metrics]
    return [m for m, task in (("gmean", "classification"), ("rmse", "regression")) if task in tasks] + [
        m for m in scorers if metric_task(m) in tasks]


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


def _dataset_features(frame, spec, ctx) -> list[str]:
    """Footer lines for the datasets whose features differ from the experiment's description (a card's
    categorical columns and NaN, :func:`randml_core.preprocess.dataset_prep`); also recorded in the sidecar."""
    if not len(frame) or "preprocessing" not in frame.columns:
        return []
    base = preprocessing_of(spec.options)
    lines, found = [], {}
    for d, part in frame.groupby("dataset"):
        preps = part.groupby("preprocessing", sort=True)["model"].unique()  # a model's own categorical: differs
        preps = preps[[isinstance(p, str) and p != base for p in preps.index]]
        if len(preps) == 1 and part["preprocessing"].nunique() == 1:
            found[d] = preps.index[0]
            lines.append(f"Features of {d}: {preps.index[0]}.")
        elif len(preps):
            found[d] = {m: p for p, models in preps.items() for m in sorted(models)}
            lines += [f"Features of {d} (models {', '.join(sorted(models))}): {p}." for p, models in preps.items()]
    if found and ctx.artefacts is not None:
        ctx.artefacts.record("dataset_features", found)
    return lines


def search_picks(pick: pd.DataFrame, frame: pd.DataFrame, metric: str, spec) -> pd.DataFrame:
    """``pick`` with the entries of the models that have a ``search:`` block replaced by their search's own
    selection (:func:`randml_core.report.comparison.search_select`: the best mean over the last rung, inside the
    inner folds with nested CV), in both tables: such a model has no full grid for the other rule to read."""
    from ..search import is_search
    from .comparison import search_select as select
    searched = [v.name for v in spec.variants if is_search(v)]
    if not searched or not len(frame):
        return pick
    own = select(frame[frame["model"].isin(searched)], metric, bool(spec.protocol.inner_splits))
    kept = pick[~pick["model"].isin(searched)]
    return pd.concat([kept, own[kept.columns]], ignore_index=True) if len(own) else kept


def search_footer(spec) -> list[str]:
    """One footer line per searched model: its search and the rule that selected its setting."""
    from ..search import RULE, describe, is_search
    where = ("inside each outer fold's inner folds, then scored on the outer fold" if spec.protocol.inner_splits
             else "on the outer folds (optimistic, as the papers' rule)")
    return [f"Search: {v.name}: {describe(v)}; selected by the search's rule, {RULE}, {where} (trace: "
            "randml_core.results.trace)." for v in spec.variants if is_search(v)]


def search_trace_figure(ctx) -> list:
    """``figures/<experiment>_search.{png,pdf}``: best so far vs cells spent per scope, for the searched models."""
    from ..rows import search_trace as trace_of
    from ..search import is_search
    from .figures import plot_search_trace as plot_trace
    if not any(is_search(v) for v in ctx.spec.variants) or not len(ctx.frame):
        return []
    trace = trace_of(ctx.spec, ctx.store_dir)
    return plot_trace(trace, ctx.results_dir / "figures" / f"{ctx.spec.name}_search", ctx.artefacts,
                      f"{ctx.spec.name}: search, best so far vs budget")


def build(ctx) -> list:
    from ..search import is_search
    spec, whole = ctx.spec, ctx.frame
    columns = spec.columns or [v.name for v in spec.variants]
    tasks = dataset_tasks(ctx)
    notes = {d: "needs download: `make data`" for d in ctx.unavailable}
    rules = [("best_mean", "best mean CV score over the grid (the papers' rule; optimistic)", "")]
    if spec.protocol.inner_splits:
        rules.append(("nested", f"nested CV, {spec.protocol.inner_splits} inner folds per outer fold", "_nested"))
        if all(is_search(v) for v in spec.variants):  # every pick is its search's, inside the inner folds: one table
            rules = [("nested", f"each model's search inside the {spec.protocol.inner_splits} inner folds of each "
                      "outer fold (nested CV)", "")]
    paths, stats = [], [f"# {spec.name}: comparison over datasets\n"]
    metrics = metrics_of(ctx)
    for metric in metrics:
        if len(whole) and metric not in whole.columns:
            have = [c for c in [*STORED_METRICS, *(c for c in whole.columns if find_scorer(c))] if c in whole.columns]
            raise ConfigError(f"report.metrics lists {metric!r}, which the stored rows do not have (they have: "
                              f"{', '.join(have)})" + ("; fix: `randml run` with this config computes it for the "
                                                       "stored cells" if find_scorer(metric) is not None else ""))
        # a metric's table has the datasets it scores (gmean: classification sets; rmse: regression sets)
        rows = [d for d in spec.datasets if tasks[d] == metric_task(metric)]
        frame = whole[whole["dataset"].isin(rows)] if len(whole) else whole
        missing = unscored(frame, metric)
        if missing:  # a mean over the folds scored so far is not the table's number
            raise ConfigError(f"{missing} stored cell(s) of {spec.name} were computed before {metric!r} was listed in "
                              "experiment.metrics and lack it; fix: `randml run` with this config scores them (it "
                              "computes those cells again)")
        for rule, words, suffix in rules:
            pick = selected(frame, metric, rule) if len(frame) else pd.DataFrame(
                columns=["dataset", "model", "mean", "std", "n_folds", "n_failed", "n_bounded", "params_json"])
            pick = search_picks(pick, frame, metric, spec)
            footer = [f"Protocol: {spec.protocol.describe()}; profile = {spec.profile}.",
                      f"Cell: mean ± std of per-fold {metric} over the outer folds at the selected setting "
                      f"({'higher' if higher_is_better(metric) else 'lower'} is better; bold = best of the row). "
                      f"Selection: {words}.",
                      f"Features: {preprocessing_of(spec.options)}.", *_dataset_features(frame, spec, ctx),
                      cell_counts(whole, ctx.n_planned),
                      "Data sources: " + "; ".join(f"{d}: {s}" + (f" (substitute for {ctx.substitutes[d]})"
                                                                 if d in ctx.substitutes else "")
                                                   for d, s in ctx.sources.items() if d in rows) + "."]
            edges = grid_edge_flags(pick, spec.variants)
            footer.append("Selected settings on a grid edge (the best value may lie outside the grid): "
                          + ("; ".join(edges) if edges else "none") + ".")
            footer += search_footer(spec)
            reasons = sorted(set(frame.loc[frame["status"] == "skipped", "error"].dropna())) if len(frame) else []
            footer += [f"Skipped by rule: {r.removeprefix('skipped: ')}" for r in reasons]
            footer += [f"Not scored by {metric} (NaN): {line}" for line in not_scored(frame, metric)]
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
    paths += search_trace_figure(ctx)
    if any(stats[1:]):
        paths.append(ctx.artefacts.write_text(ctx.results_dir / "tables" / f"{spec.name}_stats.md", "\n".join(stats)))
    return paths
