"""EEM paper Table 5: training time at the selected hyper-parameters, and the paper's speed claims.

Times come from the store: ``fit_seconds`` of the outer-fold cells at the hyper-parameters Table 4
selects (mean over folds). In the grid run a cell's fit time is its own solve plus the shared work it
used (hidden layer or kernel), with one BLAS thread: an estimate of a standalone fit (for LS-SVM it
includes the eigendecomposition that serves all C, so it over-states a single-C solve). Absolute
seconds depend on the machine, so each is also shown as a ratio to WELM-sig of the same run.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from randml_core.report.tables import frame_latex, frame_markdown, outer_rows, select_best

MODELS = ["WELM-sig", "WELM-nsig", "WELM-rbf", "EEM-sig", "EEM-nsig", "EEM-rbf", "LS-SVM-rbf", "EEKM-rbf", "SVM-rbf"]


def selected_times(frame: pd.DataFrame) -> pd.DataFrame:
    """dataset x model mean fit seconds at the Table 4 selection, plus n_train."""
    best = select_best(frame)
    rows = outer_rows(frame)
    out = []
    for r in best.itertuples():
        if r.params_json is None:
            continue
        g = rows[(rows.dataset == r.dataset) & (rows.model == r.model) & (rows.params_json == r.params_json)]
        out.append({"dataset": r.dataset, "model": r.model, "seconds": float(g["fit_seconds"].mean()),
                    "n_train": int(g["n_train"].mean())})
    return pd.DataFrame(out, columns=["dataset", "model", "seconds", "n_train"])


def claims(times: pd.DataFrame, large: int = 2000) -> list[dict]:
    """The paper's Table 5 statements, checked on ``times`` (dataset, model, seconds, n_train)."""
    if times.empty:
        return []
    w = times.pivot(index="dataset", columns="model", values="seconds")
    n = times.groupby("dataset")["n_train"].first()
    out = []

    def pair(a, b):
        return [(d, w.loc[d, a] / w.loc[d, b]) for d in w.index
                if a in w and b in w and np.isfinite(w.loc[d, a]) and np.isfinite(w.loc[d, b])]

    acts = ["sig", "nsig", "rbf"]
    ratios = [r for a in acts for _, r in pair(f"EEM-{a}", f"WELM-{a}")]
    if ratios:
        held = bool(np.all((np.array(ratios) > 0.5) & (np.array(ratios) < 2.0)))
        out.append({"claim": "EEM trains in time comparable to ELM (EEM-x / WELM-x within 0.5-2 on every set)",
                    "held": held, "evidence": f"EEM/WELM ratios {min(ratios):.2f}-{max(ratios):.2f}"})
    big = [d for d in w.index if n[d] >= large]
    for kernel in ("SVM-rbf", "LS-SVM-rbf"):
        rs = [r for d, r in pair(kernel, "EEM-rbf") if d in big]
        if rs:
            out.append({"claim": f"EEM much faster than {kernel} on the larger sets (n_train >= {large}): "
                                 f"{kernel} / EEM-rbf >= 5",
                        "held": bool(min(rs) >= 5), "evidence": f"ratios {min(rs):.1f}-{max(rs):.1f} on {len(rs)} set(s)"})
    largest = n.idxmax()
    rs = [w.loc[largest, f"WELM-{a}"] / w.loc[largest, f"EEM-{a}"] for a in acts
          if f"WELM-{a}" in w and f"EEM-{a}" in w]
    if rs:
        out.append({"claim": f"EEM 1.5-2x faster than ELM on the largest set ({largest}): WELM-x / EEM-x >= 1.5",
                    "held": bool(min(rs) >= 1.5), "evidence": ", ".join(f"{a}: {r:.2f}" for a, r in zip(acts, rs))})
    return out


def build(ctx) -> list:
    times = selected_times(ctx.frame) if len(ctx.frame) else selected_times(pd.DataFrame(columns=[
        "dataset", "model", "params_json", "gmean", "status", "converged", "inner_fold", "fit_seconds", "n_train"]))
    rows = []
    for d in ctx.spec.datasets:
        t = times[times.dataset == d].set_index("model")
        if t.empty:
            rows.append({"dataset": d, "n_train": "", **{m: ctx.unavailable.get(d) and "needs download" or ""
                                                           for m in MODELS}})
            continue
        ref = t["seconds"].get("WELM-sig", np.nan)
        rows.append({"dataset": d, "n_train": int(t["n_train"].iloc[0]),
                     **{m: (f"{t.loc[m, 'seconds']:.3f} s ({t.loc[m, 'seconds'] / ref:.2f}x)" if m in t.index else "")
                        for m in MODELS}})
    table = pd.DataFrame(rows)
    real = times[~times["dataset"].isin(list(ctx.substitutes))]  # the paper's claims are about its datasets
    checks = claims(real)
    subs = sorted(set(times["dataset"]) & set(ctx.substitutes))
    lines = ["# EEM Table 5 — training time at the selected hyper-parameters", "",
             frame_markdown(table), "",
             "Cell: mean fit seconds over the outer folds (ratio to WELM-sig of the same dataset and run).", "",
             "## The paper's claims on our run", "",
             f"Checked on the real datasets only ({', '.join(sorted(set(real['dataset']))) or 'none'}); the substitutes "
             f"({', '.join(subs) or 'none'}) are in the table above and are not counted. The paired verdicts with "
             "their margins are in `eem_claims.md` (`python -m randml_papers.eem.summary`).", ""]
    lines += [f"- {'HELD' if c['held'] else 'NOT HELD'}: {c['claim']} — {c['evidence']}" for c in checks] or ["- no data"]
    lines += ["", __doc__.split("\n\n", 1)[1].strip(), "",
              f"{ctx.spec.protocol.describe()}. Published values: the text copy lost Table 5's body."]
    out, tables = ctx.artefacts, ctx.results_dir / "tables"
    paths = [out.write_text(tables / "eem_table5.md", "\n".join(lines) + "\n"),
             out.write_csv(tables / "eem_table5.csv", times),
             out.write_text(tables / "eem_table5.tex", frame_latex(table)),
             out.write_json(tables / "eem_table5_claims.json", checks, indent=1)]
    print("\n".join(lines))
    return paths
