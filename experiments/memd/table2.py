"""MeMd Table II (gene expression, 10-fold CV accuracy) from the stored frame.

Writes ``results/tables/<stem>.{md,csv,tex}`` (stem = ``experiment.table_stem``, default the
experiment name ``memd_table2``). ``experiment.extra_store`` names the store of
``memd_table2_lung`` (lung needs 6 stratified folds): its rows of the latest config are added under
``<store_dir>/<extra_store>`` (the same store root), with the fold count in the note.
"""
from __future__ import annotations

import pandas as pd

from randml_core.report.tables import features_line
from randml_core.store import Store

from .common import build_table, footer, write

TITLE = "MeMd Table II — 10-fold CV accuracy (%) on gene-expression data"


#: experiment options this report reads (the config checks refuse any other unknown key)
OPTIONS = {"extra_store": "another experiment's store whose rows join this table (lung)",
           "table_stem": "file name of the table (default: the experiment name)"}

def _extra_rows(ctx) -> tuple[pd.DataFrame | None, dict]:
    name = ctx.spec.options.get("extra_store")
    notes = {}
    if not name:
        return None, notes
    store = Store(ctx.store_dir, name)
    try:
        frame = store.read() if store.has_rows() else pd.DataFrame()
    except Exception:  # pragma: no cover - unreadable store: shown as missing
        frame = pd.DataFrame()
    if frame.empty:
        notes["lung"] = "needs download: make data (then make memd-table2 runs memd_table2_lung, 6-fold)"
        return None, notes
    latest = frame.sort_values("timestamp")["config_hash"].iloc[-1]
    frame = frame[frame["config_hash"] == latest]
    n_folds = int(frame[frame["inner_fold"] == -1]["fold"].nunique())
    for d in frame["dataset"].unique():
        notes[d] = f"{n_folds}-fold stratified CV (experiment {name}; a class has < 10 samples)"
    return frame, notes


def build(ctx) -> list:
    spec = ctx.spec
    extra, notes = _extra_rows(ctx)
    frame = ctx.frame if extra is None else pd.concat([ctx.frame, extra], ignore_index=True)
    if extra is not None:
        ctx.sources.update({d: s for d, s in zip(extra["dataset"], extra.get("data_source", extra["dataset"]))})
    shown, csv = build_table(ctx, "II", spec.options.get("title", TITLE), frame, notes)
    foot = footer(ctx, frame, [
        "MeMd: 2-moment (Gaussian) ME marginals; K chosen per outer fold by 5-fold CV inside the training part "
        "(smallest K of best inner accuracy); K column = median [min-max] over outer folds of the chosen K, of d "
        "genes (median K/d in %). SVM: LIBLINEAR LinearSVC, C from 0.01..100 by 3-fold CV on the training part "
        "(the paper: LIBSVM linear kernel, C not stated). "
        + features_line(spec.options, "Features standardised on the training fold.", default="standard"),
    ])
    stem = ctx.results_dir / "tables" / spec.options.get("table_stem", spec.name)
    return write(ctx.artefacts, stem, spec.options.get("title", TITLE), shown, csv, foot, frame)
