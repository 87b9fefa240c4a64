"""Corrected resampled t-test for two models on one dataset from paired per-fold scores
(Nadeau & Bengio 2003, "Inference for the generalization error", Machine Learning 52; the repeated
k-fold form of Bouckaert & Frank 2004, "Evaluating the replicability of significance tests for
comparing learning algorithms", PAKDD):

    t = mean(d) / sqrt((1 / (k r) + n_test / n_train) * var(d)),   df = k r - 1,

with d the per-fold differences (model a - model b) over r repeats of k folds and var the unbiased
variance. Written here because no kept library has it (baycomp's CorrelatedTTest is the Bayesian
counterpart, not this frequentist test).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

from .direction import higher_is_better as _direction
from .refusal import StatsRefusal

FOLD_COLUMNS = ("dataset", "model", "repeat", "fold", "n_train", "n_test")
TTEST_COLUMNS = ["dataset", "model_a", "model_b", "metric", "mean_a", "mean_b", "mean_diff", "t", "df", "p",
                 "significant", "better", "k", "r", "n_folds", "test_train_ratio", "note"]


def corrected_resampled_t(d, test_train_ratio: float) -> tuple[float, int, float]:
    """(t, df, two-sided p) of the corrected resampled t-test for the paired differences ``d``
    (n = k r of them) with n_test / n_train = ``test_train_ratio``. Raises :class:`StatsRefusal`
    for fewer than 2 differences. Zero variance gives t = 0, p = 1 when the mean is 0, else |t| = inf, p = 0."""
    d = np.asarray(d, dtype=float)
    n = d.size
    if n < 2:
        raise StatsRefusal(f"the corrected resampled t-test needs >= 2 paired folds, got {n}")
    if not (test_train_ratio >= 0 and math.isfinite(test_train_ratio)):
        raise ValueError(f"n_test / n_train = {test_train_ratio!r}: needs a finite ratio >= 0")
    mean, var = float(d.mean()), float(d.var(ddof=1))
    df = n - 1
    if var <= 0.0:
        if mean == 0.0:
            return 0.0, df, 1.0
        return math.copysign(math.inf, mean), df, 0.0
    t = mean / math.sqrt((1.0 / n + test_train_ratio) * var)
    return t, df, float(2.0 * stats.t.sf(abs(t), df))


def _paired_folds(rows: pd.DataFrame, model_a: str, model_b: str, metric: str) -> pd.DataFrame:
    keys = ["repeat", "fold"]
    a = rows[rows["model"] == model_a].set_index(keys)
    b = rows[rows["model"] == model_b].set_index(keys)
    for name, part in ((model_a, a), (model_b, b)):
        if part.index.duplicated().any():
            dup = part.index[part.index.duplicated()][0]
            raise ValueError(f"dataset {rows['dataset'].iloc[0]!r}, model {name!r}: more than one row for "
                             f"(repeat, fold) = {dup}; filter the frame to one setting per model "
                             "(e.g. the selected parameters, outer folds only) first")
    cols = [metric, "n_train", "n_test"]
    return a[cols].add_suffix("_a").join(b[cols].add_suffix("_b"), how="inner")


def corrected_ttest(folds: pd.DataFrame, model_a: str, model_b: str, metric: str, *, alpha: float = 0.05,
                    higher_is_better: bool | None = None) -> pd.DataFrame:
    """Per dataset, the corrected resampled t-test of ``model_a`` against ``model_b`` on ``metric``.

    ``folds``: one row per outer fold and model with columns dataset, model, repeat, fold, <metric>,
    n_train, n_test (as the store holds them). Folds where either model is missing or NaN are dropped
    (counted in ``note``); a dataset with < 2 paired folds gets NaN t / p and the reason in ``note``.
    mean_diff = mean(a - b) in metric units; ``better`` names the model with the better mean by the
    metric's direction ("tie" when equal); k, r count the folds and repeats seen; n_test / n_train is
    the ratio of their means over the paired folds.
    """
    hib = _direction(metric, higher_is_better)
    missing = [c for c in (*FOLD_COLUMNS, metric) if c not in folds.columns]
    if missing:
        raise ValueError(f"fold frame lacks column(s) {missing}; it needs {list(FOLD_COLUMNS) + [metric]}")
    models = set(folds["model"].unique())
    for m in (model_a, model_b):
        if m not in models:
            raise ValueError(f"model {m!r} not in the fold frame; models there: {sorted(map(str, models))}")
    if model_a == model_b:
        raise ValueError(f"model_a and model_b are both {model_a!r}; pass two different models")
    recs = []
    for dataset, rows in folds[folds["model"].isin([model_a, model_b])].groupby("dataset", sort=True):
        pair = _paired_folds(rows, model_a, model_b, metric)
        n_all = len(pair)
        pair = pair.dropna(subset=[f"{metric}_a", f"{metric}_b"])
        notes = []
        n_unpaired = len(rows.drop_duplicates(["repeat", "fold"])) - len(pair)
        if n_unpaired:
            notes.append(f"{n_unpaired} fold(s) dropped: missing or NaN for a model"
                         + (f" ({n_all - len(pair)} NaN)" if n_all - len(pair) else ""))
        rec = {"dataset": dataset, "model_a": model_a, "model_b": model_b, "metric": metric,
               "mean_a": math.nan, "mean_b": math.nan, "mean_diff": math.nan, "t": math.nan, "df": math.nan,
               "p": math.nan, "significant": pd.NA, "better": None,
               "k": int(pair.index.get_level_values("fold").nunique()),
               "r": int(pair.index.get_level_values("repeat").nunique()),
               "n_folds": len(pair), "test_train_ratio": math.nan}
        same_split = ((pair["n_train_a"] == pair["n_train_b"]) & (pair["n_test_a"] == pair["n_test_b"])).all()
        if not same_split:
            notes.append(f"refused: {model_a!r} and {model_b!r} have different n_train / n_test on the same "
                         "(repeat, fold), so they were not scored on the same splits")
        elif len(pair):
            ratio = float(pair["n_test_a"].mean() / pair["n_train_a"].mean())
            d = (pair[f"{metric}_a"] - pair[f"{metric}_b"]).to_numpy(float)
            rec.update(mean_a=float(pair[f"{metric}_a"].mean()), mean_b=float(pair[f"{metric}_b"].mean()),
                       mean_diff=float(d.mean()), test_train_ratio=ratio)
            better_sign = np.sign(d.mean()) * (1 if hib else -1)
            rec["better"] = model_a if better_sign > 0 else model_b if better_sign < 0 else "tie"
            if rec["k"] * rec["r"] != len(pair):
                notes.append(f"{len(pair)} paired folds, not k*r = {rec['k'] * rec['r']}: 1/(k r) uses {len(pair)}")
            try:
                t, df, p = corrected_resampled_t(d, ratio)
                rec.update(t=t, df=df, p=p, significant=bool(p < alpha))
            except StatsRefusal as exc:
                notes.append(f"refused: {exc}")
        else:
            notes.append("refused: the corrected resampled t-test needs >= 2 paired folds, got 0")
        rec["note"] = "; ".join(notes) or None
        recs.append(rec)
    out = pd.DataFrame(recs, columns=TTEST_COLUMNS)
    out["significant"] = out["significant"].astype("boolean")
    return out
