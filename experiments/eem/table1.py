"""EEM paper Table 1: Spearman's rho between D_CS and the optimised term (from the store)."""
from __future__ import annotations

import pandas as pd

from randml_core.report.tables import Table


def build(ctx) -> list:
    f = ctx.frame
    f = f[f["status"] == "ok"] if len(f) else f
    summary = pd.DataFrame({
        "dataset": f["dataset"], "model": f["model"] + " h=" + f["p_n_hidden"].astype(int).astype(str),
        "mean": f["x_spearman"], "std": f["x_spearman_layer_std"], "n_folds": 1, "n_failed": 0,
        "n_bounded": 0, "params_json": f["params_json"]}) if len(f) else pd.DataFrame(
        columns=["dataset", "model", "mean", "std", "n_folds", "n_failed", "n_bounded", "params_json"])
    hs = sorted({int(h) for v in ctx.spec.variants for h in v.grid.get("n_hidden", [])})
    columns = [f"{v.name} h={h}" for v in ctx.spec.variants for h in hs]
    footer = [
        "Cell: Spearman's rho over all 100 x 100 (hidden layer, beta) pairs ± the std of the per-layer rho "
        "(100 betas each). beta ~ N(0, I_h) (the paper does not say how beta is drawn); covariances Ledoit-Wolf; "
        "D_CS by Eq. (3) as corrected in ERRATA. Whole dataset, features min-max scaled.",
        "Paper's claim: high correlation on small sets with exceptions (sonar, splice, liver disorders, "
        "diabetes), nearly 1.0 on sets with thousands of examples.",
        "Published values: the text copy of the paper lost Table 1's body, so none are shown.",
        "Data sources: " + "; ".join(f"{d}: {s}" for d, s in ctx.sources.items()) + ".",
    ]
    notes = {d: "needs download: `make data`" for d in ctx.unavailable}
    table = Table("EEM Table 1 — Spearman rank correlation between D_CS and (m+ - m-)^2 / (S+ + S-)",
                  list(ctx.spec.datasets), columns, summary, notes, footer,
                  mark_best=False)  # no "best" in a correlation table
    print(table.to_markdown())
    return table.write(ctx.results_dir / "tables" / "eem_table1", ctx.artefacts)
