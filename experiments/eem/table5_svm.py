"""EEM paper Table 5, the SVM-related models: CPU seconds of a standalone fit of SVM-rbf, LS-SVM-rbf and EEM-rbf
at the setting each one's Table 4 run selected on that set.

"In the same time, EEM and EEKM were trained significantly faster, as Table 5 shows, it was order of magnitude
faster than SVM-related models" (Section 7.3). The grid run of Table 4 shares work between cells (one kernel per
gamma, one hidden layer per h), so its per-cell wall seconds are not a fit's time (issue 42: EEM-rbf 6.2 s on
hiva there, 0.80 s standalone). Experiment ``eem_table5_svm`` fits the three models one plain fit per cell at
the setting :func:`selected_settings` reads from ``eem_table4_unbalanced_folds.csv`` (the experiment's
``per_dataset:`` blocks; a test keeps the config equal to it) on the Section 7.3 sets where all three ran, and
stores each fit's CPU seconds. The t5-faster-svm / -lssvm verdicts are decided from ``eem_table5_svm_folds.csv``
in ``eem_report.md`` (``python -m randml_papers.eem.summary``).
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from randml_core.report.tables import frame_latex, frame_markdown, with_stand_ins

from .table5 import timed_rows

MODELS = ["SVM-rbf", "LS-SVM-rbf", "EEM-rbf"]
#: the model config key of each column in experiment eem_table5_svm
CONFIG_KEYS = {"SVM-rbf": "svm", "LS-SVM-rbf": "lssvm", "EEM-rbf": "eem"}
FOLD_COLUMNS = ["dataset", "model", "repeat", "fold", "n_train", "n_test", "params_json", "cpu_seconds",
                "fit_seconds", "gmean", "stand_in_for"]


def selected_settings(folds: pd.DataFrame, datasets) -> dict:
    """``{config key: {dataset: {param: [value]}}}``: the setting ``eem_table4_unbalanced_folds.csv`` (``folds``)
    holds for each model of :data:`MODELS` on each of ``datasets`` where every one of them has one setting
    (the table selects one per dataset); a set where one of them was skipped (an N x N kernel above the row cap)
    is left out."""
    out = {key: {} for key in CONFIG_KEYS.values()}
    for d in datasets:
        rows = folds[(folds["dataset"] == d) & folds["model"].isin(MODELS)]
        chosen = {m: sorted(set(rows.loc[rows["model"] == m, "params_json"])) for m in MODELS}
        if not all(len(v) == 1 for v in chosen.values()):
            continue
        for m, (pj,) in chosen.items():
            params = {k: v for k, v in json.loads(pj).items() if k != "activation"}
            out[CONFIG_KEYS[m]][d] = {k: [params[k]] for k in sorted(params)}
    return out


def fold_times(frame: pd.DataFrame) -> pd.DataFrame:
    """``eem_table5_svm_folds.csv``: one row per (dataset, model, repeat, outer fold) of the ok cells with the fit's
    CPU seconds, wall seconds and GMean; sorted, so the same rows give the same file."""
    out = timed_rows(frame, MODELS)
    if out is None:
        return pd.DataFrame(columns=FOLD_COLUMNS)
    out = out.sort_values(["dataset", "model", "repeat", "fold"], kind="stable").reset_index(drop=True)
    return with_stand_ins(out)[FOLD_COLUMNS]


def build(ctx) -> list:
    folds = fold_times(ctx.frame)
    rows = []
    for d in ctx.spec.datasets:
        g = folds[folds["dataset"] == d]
        if g.empty:
            rows.append({"dataset": d, "n_train": "", **{m: "not run" for m in MODELS}, "SVM / EEM": "",
                         "LS-SVM / EEM": ""})
            continue
        sub = f" (for {ctx.substitutes[d]})" if d in ctx.substitutes else ""
        w = g.pivot_table(index=["repeat", "fold"], columns="model", values="cpu_seconds", aggfunc="first")
        ratio = {f"{s.split('-rbf')[0]} / EEM": (f"{np.exp(np.log(w[s] / w['EEM-rbf']).mean()):.1f}x"
                                                 if {s, "EEM-rbf"} <= set(w.columns) else "")
                 for s in ("SVM-rbf", "LS-SVM-rbf")}
        rows.append({"dataset": d + sub, "n_train": int(g["n_train"].iloc[0]),
                     **{m: (f"{w[m].mean():.3f}" if m in w.columns else "") for m in MODELS}, **ratio})
    table = pd.DataFrame(rows)
    settings = (folds.drop_duplicates(["dataset", "model"])[["dataset", "model", "params_json"]]
                if len(folds) else pd.DataFrame(columns=["dataset", "model", "params_json"]))
    lines = ["# EEM Table 5 — CPU seconds of a standalone fit, SVM-rbf, LS-SVM-rbf and EEM-rbf at their selected "
             "settings", "",
             "Mean CPU seconds of one fit over the outer folds, each model at the setting its Table 4 run selected on "
             "the set; the ratios are geometric means of the paired folds' ratios (above 1: EEM-rbf is faster); "
             "'(for X)': a named substitute for the original X.", "", frame_markdown(table), "",
             "The settings (from `eem_table4_unbalanced_folds.csv`):", "",
             frame_markdown(settings) if len(settings) else "- none", "",
             "Verdicts: t5-faster-svm and t5-faster-lssvm of `eem_report.md` are decided from "
             "`eem_table5_svm_folds.csv` (`python -m randml_papers.eem.summary`); this table states none.", "",
             __doc__.split("\n\n", 1)[1].strip(), "",
             f"{ctx.spec.protocol.describe()}. Published values: the text copy lost Table 5's body."]
    out, tables = ctx.artefacts, ctx.results_dir / "tables"
    paths = [out.write_text(tables / "eem_table5_svm.md", "\n".join(lines) + "\n"),
             out.write_text(tables / "eem_table5_svm.tex", frame_latex(table)),
             out.write_csv(tables / "eem_table5_svm_folds.csv", folds)]
    print("\n".join(lines))
    return paths

