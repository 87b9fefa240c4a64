"""EEM paper Table 5 at matched settings: CPU seconds of a standalone fit of WELM-x and EEM-x at every h.

The paper times each model at the hyper-parameters it selected ("Highly unbalanced datasets times in
seconds", Section 7.2). Our Table 4 selections put EEM at h = 1000 and WELM at h = 50-100 on several sets
(100-400x the work), so the two are compared here at the same h instead (issue 31): experiment
``eem_table5`` fits both standalone (no hidden layer shared between cells) at every h of the paper's grid
and stores the CPU seconds of each fit (``x_fit_cpu_seconds``; a wall clock grows when other processes share
the cores). This module writes the table and ``eem_table5_folds.csv``; the verdicts are decided from that
file in ``eem_report.md`` (``python -m randml_papers.eem.summary``) and nowhere else.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from randml_core.report.tables import frame_latex, frame_markdown, outer_rows, with_stand_ins

MODELS = ["WELM-sig", "WELM-nsig", "WELM-rbf", "EEM-sig", "EEM-nsig", "EEM-rbf"]
ACTS = ("sig", "nsig", "rbf")
#: the h of the headline table: the largest of the paper's grid, where the solves dominate a fit
H_TABLE = 1000
FOLD_COLUMNS = ["dataset", "model", "repeat", "fold", "n_train", "n_test", "n_hidden", "cpu_seconds", "fit_seconds",
                "stand_in_for"]


def timed_rows(frame: pd.DataFrame, models) -> pd.DataFrame | None:
    """The ok outer cells of ``models`` with their CPU seconds (``cpu_seconds``), wall seconds and the columns the
    timing tables share (dataset, model, repeat, fold, n_train, n_test, params_json, gmean); None when the frame
    stores no CPU seconds (``experiment.cpu_time``)."""
    if not len(frame) or "x_fit_cpu_seconds" not in frame:
        return None
    rows = outer_rows(frame)
    rows = rows[(rows["status"] == "ok") & rows["model"].isin(list(models))]
    return pd.DataFrame({"dataset": rows["dataset"], "model": rows["model"], "repeat": rows["repeat"],
                         "fold": rows["fold"], "n_train": rows["n_train"], "n_test": rows["n_test"],
                         "params_json": rows["params_json"], "cpu_seconds": rows["x_fit_cpu_seconds"].astype(float),
                         "fit_seconds": rows["fit_seconds"].astype(float),
                         "gmean": rows["gmean"].astype(float) if "gmean" in rows else float("nan")})


def fold_times(frame: pd.DataFrame) -> pd.DataFrame:
    """``eem_table5_folds.csv``: one row per (dataset, model, repeat, outer fold, h) of the ok cells, with the
    fit's CPU seconds (``cpu_seconds``), its wall seconds and ``stand_in_for``; sorted, so the same rows give
    the same file."""
    out = timed_rows(frame, MODELS)
    if out is None:
        return pd.DataFrame(columns=FOLD_COLUMNS)
    out["n_hidden"] = [int(json.loads(p)["n_hidden"]) for p in out["params_json"]]
    out = out.sort_values(["dataset", "model", "n_hidden", "repeat", "fold"], kind="stable").reset_index(drop=True)
    return with_stand_ins(out)[FOLD_COLUMNS]


def ratios(folds: pd.DataFrame) -> pd.DataFrame:
    """dataset x activation x h: EEM-x / WELM-x CPU seconds, the geometric mean of the paired folds' ratios."""
    out = []
    for (d, h), g in folds.groupby(["dataset", "n_hidden"], sort=True):
        w = g.pivot_table(index=["repeat", "fold"], columns="model", values="cpu_seconds", aggfunc="first")
        for a in ACTS:
            e, m = f"EEM-{a}", f"WELM-{a}"
            if {e, m} <= set(w.columns):
                p = w[[e, m]].dropna()
                p = p[(p[e] > 0) & (p[m] > 0)]
                if len(p):
                    out.append({"dataset": d, "activation": a, "n_hidden": int(h),
                                "eem_over_welm": float(np.exp(np.log(p[e] / p[m]).mean())), "n_folds": len(p)})
    return pd.DataFrame(out, columns=["dataset", "activation", "n_hidden", "eem_over_welm", "n_folds"])


def build(ctx) -> list:
    folds = fold_times(ctx.frame)
    means = (folds.groupby(["dataset", "model", "n_hidden"], sort=True)
             .agg(cpu_seconds=("cpu_seconds", "mean"), fit_seconds=("fit_seconds", "mean"),
                  n_train=("n_train", "first"), n_folds=("fold", "size")).reset_index())
    r = ratios(folds)
    rows, ratio_rows = [], []
    for d in ctx.spec.datasets:
        t = means[(means.dataset == d) & (means.n_hidden == H_TABLE)].set_index("model")
        if t.empty:
            why = "needs download" if ctx.unavailable.get(d) else "not run"
            rows.append({"dataset": d, "n_train": "", **{m: why for m in MODELS}})
            continue
        sub = f" (for {ctx.substitutes[d]})" if d in ctx.substitutes else ""
        rows.append({"dataset": d + sub, "n_train": int(t["n_train"].iloc[0]),
                     **{m: (f"{t.loc[m, 'cpu_seconds']:.3f}" if m in t.index else "") for m in MODELS}})
        rd = r[r.dataset == d]
        ratio_rows.append({"dataset": d + sub, **{f"h={h}": " / ".join(
            f"{v:.2f}" for v in rd[rd.n_hidden == h].set_index("activation").reindex(list(ACTS))["eem_over_welm"])
            for h in sorted(r["n_hidden"].unique())}})
    table = pd.DataFrame(rows)
    lines = ["# EEM Table 5 — CPU seconds of a standalone fit, WELM-x and EEM-x at the same h", "",
             f"Mean CPU seconds of one fit over the outer folds at h = {H_TABLE} (the largest h of the paper's grid); "
             "'(for X)': a named substitute for the original X.", "", frame_markdown(table), "",
             "EEM-x / WELM-x CPU seconds at each h (geometric mean of the paired folds' ratios; sig / nsig / rbf; "
             "below 1: EEM is faster):", "",
             frame_markdown(pd.DataFrame(ratio_rows)) if ratio_rows else "- no data", "",
             "Verdicts: the t5-* claims of `eem_report.md` are decided from `eem_table5_folds.csv` "
             "(`python -m randml_papers.eem.summary`); this table states none.", "",
             __doc__.split("\n\n", 1)[1].strip(), "",
             f"{ctx.spec.protocol.describe()}. Published values: the text copy lost Table 5's body."]
    out, tables = ctx.artefacts, ctx.results_dir / "tables"
    paths = [out.write_text(tables / "eem_table5.md", "\n".join(lines) + "\n"),
             out.write_csv(tables / "eem_table5.csv", means),
             out.write_text(tables / "eem_table5.tex", frame_latex(table)),
             out.write_csv(tables / "eem_table5_folds.csv", folds)]
    print("\n".join(lines))
    return paths
