"""SLM paper Figure 5: convergence versus the number of trees on Wine, B.C.W. and Pima.

Top row: test accuracy of RF and SLM Forest after k = 1..T trees; bottom row: test log loss of
XGBoost and SLM Boost after k rounds. Every curve comes from the staged predictions stored with
the one fit of each outer cell (no refit per k), at the hyper-parameters picked per split by the
nested selection of Table I; mean over the outer splits with a ± std band. ``slm_fig5_convergence.csv``: per split, how
far each curve stays from where it ends (:func:`convergence`), the paired values the "converges faster" claims of
``slm_report.md`` are decided on.

Difference from the paper: the paper fixes "the same maximum depth and learning rate" for each
pair; here each model keeps its own selected setting (the selected values are printed in the footer).
"""
from __future__ import annotations

import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from randml_core.report.figures import save  # noqa: E402
from randml_core.results import staged  # noqa: E402

from .common import nested_picks  # noqa: E402

DATASETS = [("wine", "Wine"), ("breast-cancer-wdbc", "B.C.W."), ("pima-392", "Pima")]
PANELS = [("accuracy", ["RF", "SLM Forest"], "test accuracy"), ("log_loss", ["XGBoost", "SLM Boost"], "test log loss")]


def curves(frame: pd.DataFrame) -> pd.DataFrame:
    """Long frame: dataset, model, stage, metric mean and std over the picked outer splits."""
    models = [m for _, ms, _ in PANELS for m in ms]
    picks = nested_picks(frame, "accuracy", higher=True)
    picks = picks[picks["model"].isin(models) & picks["dataset"].isin([d for d, _ in DATASETS])]
    if picks.empty or "staged" not in picks.columns:
        return pd.DataFrame(columns=["dataset", "model", "stage", "metric", "mean", "std", "n"])
    long = staged(picks)
    out = []
    for metric in ("accuracy", "log_loss"):
        if metric not in long.columns:
            continue
        g = long.groupby(["dataset", "model", "stage"])[metric].agg(["mean", "std", "size"]).reset_index()
        out.append(g.rename(columns={"size": "n"}).assign(metric=metric))
    return pd.concat(out, ignore_index=True) if out else pd.DataFrame()


#: the pairs whose convergence the paper compares (Section IV-A, Fig. 5): (metric, SLM ensemble, DT ensemble)
CONVERGENCE = [("accuracy", "SLM Forest", "RF"), ("log_loss", "SLM Boost", "XGBoost")]


def convergence(frame: pd.DataFrame) -> pd.DataFrame:
    """Per outer split and model of :data:`CONVERGENCE`, how far the staged curve stays from where it ends: ``gap`` =
    the mean over k = 1..K of |m(k) - m(K)| (accuracy in percentage points, log loss in nats; lower: converged
    sooner), K the pair's common horizon (the smaller largest number of trees of the two models, so both are read
    over the same trees), and ``k_within`` (descriptive) the first k after which the curve stays within 1 pp / 0.01
    nats of m(K). Columns: dataset, model, metric, repeat, fold, n_train, n_test, horizon, gap, k_within."""
    cols = ["dataset", "model", "metric", "repeat", "fold", "n_train", "n_test", "horizon", "gap", "k_within"]
    picks = nested_picks(frame, "accuracy", higher=True)
    models = [m for _, a, b in CONVERGENCE for m in (a, b)]
    picks = picks[picks["model"].isin(models) & picks["dataset"].isin([d for d, _ in DATASETS])]
    if picks.empty or "staged" not in picks.columns:
        return pd.DataFrame(columns=cols)
    long = staged(picks)
    sizes = picks.drop_duplicates(["dataset", "repeat", "fold"]).set_index(["dataset", "repeat", "fold"])
    out = []
    for metric, a, b in CONVERGENCE:
        pair = long[long["model"].isin([a, b])]
        if metric not in pair.columns or pair.empty:
            continue
        horizon = int(pair.groupby("model")["stage"].max().min())
        scale, tol = (100.0, 1.0) if metric == "accuracy" else (1.0, 0.01)
        for (d, m, r, f), g in pair[pair["stage"] <= horizon].groupby(["dataset", "model", "repeat", "fold"], sort=True):
            curve = g.sort_values("stage")[metric].to_numpy(float) * scale
            dist = abs(curve - curve[-1])
            outside = [i for i, x in enumerate(dist) if x > tol]
            n_train, n_test = (int(sizes.loc[(d, r, f), c]) for c in ("n_train", "n_test"))
            out.append({"dataset": d, "model": m, "metric": metric, "repeat": int(r), "fold": int(f),
                        "n_train": n_train, "n_test": n_test, "horizon": horizon, "gap": float(dist.mean()),
                        "k_within": (outside[-1] + 2) if outside else 1})
    return pd.DataFrame(out, columns=cols)


def build(ctx) -> list:
    data = curves(ctx.frame) if len(ctx.frame) else pd.DataFrame()
    fig, axes = plt.subplots(2, 3, figsize=(12, 6.5), squeeze=False)
    selected = []
    picks = nested_picks(ctx.frame, "accuracy", higher=True) if len(ctx.frame) else pd.DataFrame()
    for col, (d, title) in enumerate(DATASETS):
        for row, (metric, models, ylabel) in enumerate(PANELS):
            ax = axes[row, col]
            for m in models:
                sub = data[(data["dataset"] == d) & (data["model"] == m) & (data["metric"] == metric)] \
                    if len(data) else data
                if sub.empty:
                    continue
                sub = sub.sort_values("stage")
                line, = ax.plot(sub["stage"], sub["mean"], lw=1.5, label=f"{m} (n={int(sub['n'].max())})")
                ax.fill_between(sub["stage"], sub["mean"] - sub["std"].fillna(0), sub["mean"] + sub["std"].fillna(0),
                                color=line.get_color(), alpha=0.2, lw=0)
                if len(picks):
                    ps = picks[(picks["dataset"] == d) & (picks["model"] == m)]["params_json"]
                    if len(ps):
                        p = json.loads(ps.value_counts().index[0])
                        short = ", ".join(f"{k}={p[k]}" for k in ("max_depth", "learning_rate") if k in p)
                        selected.append(f"{title}/{m}: {short}")
            ax.set_title(f"{title}: {ylabel}", fontsize=10)
            ax.set_xlabel("number of trees")
            ax.set_ylabel(ylabel)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7)
    fig.suptitle("SLM Figure 5 — convergence vs number of trees (mean ± std over the outer 60/40 splits)")
    foot = "Most frequent selected setting per curve: " + "; ".join(selected)
    fig.text(0.01, 0.005, foot, fontsize=6, va="bottom", wrap=True)
    fig.tight_layout(rect=(0, 0.04, 1, 0.96))
    paths = save(fig, ctx.results_dir / "figures" / "slm_fig5", ctx.artefacts)
    conv = convergence(ctx.frame) if len(ctx.frame) else pd.DataFrame()
    return paths + [ctx.artefacts.write_csv(ctx.results_dir / "tables" / "slm_fig5_curves.csv", data),
                    ctx.artefacts.write_csv(ctx.results_dir / "tables" / "slm_fig5_convergence.csv", conv)]
