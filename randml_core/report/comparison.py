"""Statistics over datasets from stored rows: the score matrix of the selected settings, and the
comparison section (ranks, Friedman / Iman-Davenport, Nemenyi CD diagram, Wilcoxon-Holm, Bayesian
signed-rank) that ``randml compare``, the generic report and the paper reports show.

Pure functions of a frame (no model is fitted); the tests themselves are in :mod:`randml_core.stats`.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..stats import StatsRefusal, cd_diagram, compare, higher_is_better
from .tables import select_best, select_nested


def selected(frame: pd.DataFrame, metric: str, rule: str = "best_mean") -> pd.DataFrame:
    """Per (dataset, model): the selected setting's mean / std of ``metric`` (``rule``: ``best_mean``,
    the papers' best mean CV score, or ``nested``), lower-is-better metrics (RMSE) minimised."""
    sign = 1.0 if higher_is_better(metric) else -1.0
    rows = frame.assign(**{metric: sign * frame[metric]}) if sign < 0 else frame
    pick = select_nested(rows, metric) if rule == "nested" else select_best(rows, metric)
    if sign < 0 and len(pick):
        pick = pick.assign(mean=-pick["mean"])
    return pick


def score_matrix(frame: pd.DataFrame, metric: str, rule: str = "best_mean",
                 models: list[str] | None = None, pick: pd.DataFrame | None = None) -> pd.DataFrame:
    """Datasets x models of the selected settings' mean ``metric`` (NaN where a cell is missing); ``pick``:
    ``selected(frame, metric, rule)`` when the caller has it already (the selection is not repeated)."""
    return pivot_scores(selected(frame, metric, rule) if pick is None else pick, models)


def pivot_scores(pick: pd.DataFrame, models: list[str] | None = None) -> pd.DataFrame:
    """Datasets x models of the ``mean`` column of selected settings (``pick``, as :func:`selected` returns),
    columns in the order of ``models`` when given (only those models), else as found."""
    if models:
        pick = pick[pick["model"].isin(models)]
    if pick.empty:
        return pd.DataFrame()
    matrix = pick.pivot(index="dataset", columns="model", values="mean")
    return matrix[[m for m in (models or matrix.columns) if m in matrix.columns]]


def comparison_section(frame: pd.DataFrame, metric: str, stem: Path, title: str, rule: str = "best_mean",
                       models: list[str] | None = None, out=None, pick: pd.DataFrame | None = None
                       ) -> tuple[str, list[Path]]:
    """Markdown for one comparison over datasets and the CD diagram files (``stem``.png/.pdf, staged in the
    artefact set ``out`` when given), or the reason it does not apply (``pick`` as in :func:`score_matrix`)."""
    matrix = score_matrix(frame, metric, rule, models, pick)
    by = "nested CV" if rule == "nested" else "the best mean CV score over the grid (the papers' rule)"
    head = f"## {title}\n\nScores: mean outer-fold {metric} at the setting selected by {by}; " \
           f"{'higher' if higher_is_better(metric) else 'lower'} is better.\n"
    if matrix.shape[0] < 2 or matrix.shape[1] < 2:
        return head + f"\nNot applicable: {matrix.shape[0]} dataset(s) x {matrix.shape[1]} model(s) with " \
                      "scores; a comparison over datasets needs at least 2 of each.\n", []
    try:
        comp = compare(matrix, metric)
    except StatsRefusal as exc:
        return head + f"\nNot applicable: {exc}\n", []
    paths = []
    try:
        paths = cd_diagram(comp, stem, out)
    except StatsRefusal as exc:
        head += f"\n{str(exc)[:1].upper()}{str(exc)[1:]}\n"  # "no CD diagram: <why>"
    figure = f"\n![critical difference diagram]({Path('..') / 'figures' / Path(stem).name}.png)\n" if paths else ""
    return head + figure + "\n" + comp.to_markdown() + "\n", paths


#: what each selection rule means for the tests, said above ``randml compare``'s output and its paired test
RULE_WORDS = {
    "best_mean": ("Settings: rule=best_mean, each model's setting with the best mean over the outer folds (the "
                  "papers' rule). The setting is picked on the very outer folds the tests then score it on, so "
                  "differences and p-values are optimistic; rule=nested picks on inner folds only."),
    "nested": ("Settings: rule=nested, each outer fold at its own pick (the setting with the best mean over that "
               "fold's inner folds), so mean_diff is the difference of the nested means."),
}


def paired_folds(frame: pd.DataFrame, metric: str, models, rule: str = "best_mean") -> pd.DataFrame:
    """The outer rows (status ok) that the paired test compares: per (dataset, model, repeat, fold) the row at
    the model's selected setting: ``best_mean``, the one setting of :func:`selected`; ``nested``, each outer
    fold's own pick (:func:`~randml_core.report.tables.nested_rows`, the rows ``select_nested`` averages)."""
    from .tables import nested_rows, outer_rows
    if rule == "nested":
        folds = nested_rows(frame[frame["model"].isin(models)], metric, higher=higher_is_better(metric))
    else:
        pick = selected(frame, metric, rule)
        pick = pick[pick["model"].isin(models) & pick["params_json"].notna()]
        folds = outer_rows(frame).merge(pick[["dataset", "model", "params_json"]],
                                        on=["dataset", "model", "params_json"])
    return folds[folds["status"] == "ok"]


def paired_section(frame: pd.DataFrame, metric: str, model_a: str, model_b: str, rule: str = "best_mean",
                   alpha: float = 0.05) -> str:
    """Per dataset, the corrected resampled t-test (Nadeau & Bengio 2003; Bouckaert & Frank 2004) of two
    models on the outer folds at their selected settings (:func:`paired_folds`; the same folds for both:
    paired). ``p_holm``: Holm's adjustment over the datasets; ``significant``: p_holm < ``alpha``."""
    from ..stats import corrected_ttest, holm
    from .tables import frame_markdown
    folds = paired_folds(frame, metric, [model_a, model_b], rule)
    head = f"\n## {model_a} vs {model_b} per dataset: corrected resampled t-test\n\n{RULE_WORDS[rule]}\n"
    if folds.empty:
        return head + "\nNo paired folds stored.\n"
    t = corrected_ttest(folds, model_a, model_b, metric, alpha=alpha)
    t["p_holm"] = holm(t["p"].to_numpy(float))
    t["significant"] = pd.array([pd.NA if pd.isna(v) else bool(v < alpha) for v in t["p_holm"]], dtype="boolean")
    cols = [c for c in ("dataset", "mean_diff", "t", "df", "p", "p_holm", "significant", "better", "k", "r", "note")
            if c in t.columns]
    shown = t[cols].round(4).assign(significant=[("n/a" if pd.isna(v) else "yes" if v else "no")
                                                 for v in t["significant"]])
    adjusted = (f"Holm-adjusted over the {t['p'].notna().sum()} datasets" if t["p"].notna().sum() > 1
                else "one dataset, no adjustment")
    return (head + f"\nmean_diff = {model_a} - {model_b} ({metric}); better = the sign of mean_diff only; "
            f"significant: p_holm < alpha = {alpha:g} ({adjusted}).\n\n" + frame_markdown(shown) + "\n")


def search_select(frame, metric: str, nested: bool):
    """Per (dataset, model) of search models: the search's selection (:data:`randml_core.search.RULE`: the best
    mean over the last rung) as the report tables' summary rows; ``metric`` lower-is-better aware."""
    from ..search import last_rung_rows
    return selected(last_rung_rows(frame, nested), metric, "nested" if nested else "best_mean")
