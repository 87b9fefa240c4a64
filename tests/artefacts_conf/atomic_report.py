"""tests/test_artefacts.py's report module: the kinds of files a benchmark's report writes, all through the
report's artefact set (``ctx.artefacts``), as a benchmark's own report module writes them.

Eight files and the set's sidecar ``tables/<experiment>.meta.json``:

- the score table ``tables/<experiment>.{md,csv,tex}`` (:class:`randml_core.report.tables.Table`, best mean CV
  GMean over the grid) and its paired splits ``tables/<experiment>_folds.csv``;
- kNN's GMean versus its number of neighbours: the summary ``tables/<experiment>_knn.md``, the splits
  ``tables/<experiment>_knn_folds.csv`` and the figure ``figures/<experiment>_knn.{png,pdf}``.

The volatile facts (the code versions of the rows, the compute per dataset) are recorded in the sidecar, never
written into a file, so a rerun from the same store gives the same bytes. It does not declare ``CONTEXT_ONLY``:
like a report that reads more than its context, it is rebuilt every time, and the set itself keeps the files whose
bytes did not change.
"""
from __future__ import annotations

import pandas as pd

from randml_core.report.figures import curve_panels, save
from randml_core.report.tables import Table, cell_counts, outer_rows, select_best, selected_rows, split_scores

KNN = "kNN"


def knn_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """kNN's outer rows that were computed, with ``k`` (its number of neighbours)."""
    rows = outer_rows(frame)
    rows = rows[(rows["model"] == KNN) & (rows["status"] == "ok")]
    return rows.assign(k=rows["p_n_neighbors"].astype(int))


def compute_per_dataset(frame: pd.DataFrame) -> str:
    tasks = frame.dropna(subset=["task_seconds"]).drop_duplicates(["dataset", "repeat", "fold", "inner_fold"])
    secs = tasks.groupby("dataset")["task_seconds"].sum()
    return "Compute per dataset: " + ", ".join(f"{d} {s:.1f} s" for d, s in secs.items()) + "."


def build(ctx) -> list:
    spec, frame = ctx.spec, ctx.frame
    tables, figures = ctx.results_dir / "tables", ctx.results_dir / "figures"
    ctx.artefacts.record("row_code_versions", sorted(set(frame["code_version"].astype(str).str[:10])))
    ctx.artefacts.record("compute_per_dataset", compute_per_dataset(frame))
    best = select_best(frame)
    footer = [f"Protocol: {spec.protocol.describe()}; profile = {spec.profile}.",
              "Cell: mean ± std of per-fold GMean at the best mean CV GMean over the grid.",
              cell_counts(frame, ctx.n_planned)]
    table = Table(f"{spec.name}: GMean", list(spec.datasets), [v.name for v in spec.variants], best, {}, footer,
                  skipped_text="not run (skipped by rule)")
    paths = table.write(tables / spec.name, ctx.artefacts)
    paths.append(ctx.artefacts.write_csv(tables / f"{spec.name}_folds.csv",
                                         split_scores(selected_rows(frame, best), "gmean")))
    knn = knn_rows(frame)
    curve = knn.groupby(["dataset", "k"], sort=True)["gmean"].agg(["mean", "std"]).reset_index()
    lines = [f"- {r.dataset}, k = {r.k}: {r.mean:.3f} ± {r.std:.3f}" for r in curve.itertuples()]
    paths.append(ctx.artefacts.write_text(tables / f"{spec.name}_knn.md",
                                          f"# {spec.name}: kNN GMean versus k\n\n" + "\n".join(lines)
                                          + f"\n\n{spec.protocol.describe()}.\n"))
    paths.append(ctx.artefacts.write_csv(tables / f"{spec.name}_knn_folds.csv",
                                         split_scores(knn.assign(model=KNN + " k=" + knn["k"].astype(str)),
                                                      "gmean", ["k"])))
    fig = curve_panels(curve, "dataset", "k", "mean", "std", title=f"{spec.name}: kNN GMean versus k", xlabel="k",
                       ylabel="GMean (mean ± std over folds)", footer=spec.protocol.describe())
    return paths + save(fig, figures / f"{spec.name}_knn", ctx.artefacts)
