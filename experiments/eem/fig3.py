"""EEM paper Figure 3: EEM (rbf) GMean versus hidden layer size, mean ± std over CV folds."""
from __future__ import annotations

import pandas as pd

from randml_core.report.figures import curve_panels, save
from randml_core.report.tables import outer_rows, split_scores


def curves(frame: pd.DataFrame) -> pd.DataFrame:
    rows = outer_rows(frame)
    rows = rows[(rows["model"] == "EEM-rbf") & (rows["status"] == "ok")]
    return (rows.groupby(["dataset", "p_n_hidden"], sort=False)["gmean"].agg(["mean", "std", "size"])
            .reset_index().rename(columns={"p_n_hidden": "h"}))


def folds_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """``eem_fig3_folds.csv``: EEM-rbf GMean per outer split at every h, model ``EEM-rbf h=<h>`` (one row per
    dataset, model, repeat, fold, as :func:`split_scores` keeps them) and ``h``: the paired splits of the
    stability claim."""
    rows = outer_rows(frame) if len(frame) else frame
    rows = rows[rows["model"] == "EEM-rbf"] if len(rows) else rows
    if len(rows):
        rows = rows.assign(h=rows["p_n_hidden"].astype(int))
        rows = rows.assign(model="EEM-rbf h=" + rows["h"].astype(str))
    return split_scores(rows, "gmean", ["h"])


def build(ctx) -> list:
    c = curves(ctx.frame)
    order = [d for d in ctx.spec.datasets if d in set(c["dataset"])]
    c["dataset"] = pd.Categorical(c["dataset"], order, ordered=True)
    c = c.sort_values(["dataset", "h"])
    c["dataset"] = c["dataset"].astype(str)
    stable = c[c["h"] >= 100].groupby("dataset")["mean"].agg(lambda s: s.max() - s.min())
    lines = [f"{d}: GMean range over h >= 100 = {v:.3f}" for d, v in stable.items()]
    summary_path = ctx.artefacts.write_text(
        ctx.results_dir / "tables" / "eem_fig3_stability.md",
        "# EEM Figure 3: stability of GMean in h (EEM-rbf)\n\n"
        "The paper claims GMean is stable once h is around 100; max - min of the mean GMean "
        "over h = 100..500:\n\n" + "\n".join(f"- {l}" for l in lines) + f"\n\n{ctx.spec.protocol.describe()}.\n")
    fig = curve_panels(c, "dataset", "h", "mean", "std", title="EEM (rbf) GMean vs hidden layer size h",
                       xlabel="h", ylabel="GMean (mean ± std over folds)", footer=ctx.spec.protocol.describe())
    print("\n".join(lines))
    folds = ctx.artefacts.write_csv(ctx.results_dir / "tables" / "eem_fig3_folds.csv", folds_frame(ctx.frame))
    return save(fig, ctx.results_dir / "figures" / "eem_fig3", ctx.artefacts) + [summary_path, folds]
