"""Shared code of the MeMd Table II / III reports: summaries, verdicts, md / csv / tex writers.

Pure functions of the stored frame (plus ``published.csv``); nothing here fits a model.

Cell rule: accuracy in %, mean ± std over the outer folds (each family has one setting; K or C
is chosen inside its ``fit`` on the training part). Verdict of a published value P against our
mean m and fold std s: ``within spread`` if |m - P| <= s, ``above`` if m - P > s, ``not reached``
if P - m > s. Published numbers do not apply to the generated stand-ins (``n/a (stand-in)``).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from randml_core.report.tables import (cell_counts, frame_latex, frame_markdown, outer_rows, split_scores,
                                      with_stand_ins)

PUBLISHED = Path(__file__).with_name("published.csv")
NEEDS_DOWNLOAD = "needs download: make data"


def published(table: str) -> pd.DataFrame:
    """Rows of ``published.csv`` for Table ``"II"`` or ``"III"``."""
    df = pd.read_csv(PUBLISHED, dtype={"table": str})
    return df[df["table"] == table].reset_index(drop=True)


def verdict(mean: float, std: float, pub: float) -> str:
    if pd.isna(mean) or pd.isna(pub):
        return ""
    s = 0.0 if pd.isna(std) else float(std)
    delta = mean - pub
    if abs(delta) <= s:
        return "within spread"
    return "above" if delta > 0 else "not reached"


def summarise(frame: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, model): accuracy % mean / std / folds, failures, K statistics, fit seconds."""
    cols = ["dataset", "model", "mean", "std", "n_folds", "n_failed", "k_median", "k_min", "k_max",
            "k_frac_median", "d", "fit_seconds", "C_median"]
    rows = outer_rows(frame) if len(frame) else frame
    if rows is None or len(rows) == 0:
        return pd.DataFrame(columns=cols)
    out = []
    for (ds, model), g in rows.groupby(["dataset", "model"], sort=False):
        ok = g[g["status"] == "ok"]
        acc = 100.0 * ok["accuracy"].astype(float)
        rec = {"dataset": ds, "model": model, "mean": acc.mean() if len(ok) else np.nan,
               "std": acc.std(ddof=1) if len(ok) > 1 else np.nan, "n_folds": len(ok),
               "n_failed": int((g["status"] != "ok").sum()), "fit_seconds": ok["fit_seconds"].mean()}
        if "x_k" in ok.columns and ok["x_k"].notna().any():
            k = ok["x_k"].dropna().astype(float)
            rec.update(k_median=k.median(), k_min=k.min(), k_max=k.max(),
                       k_frac_median=ok["x_k_frac"].dropna().astype(float).median(), d=ok["x_d"].dropna().iloc[0])
        if "x_C" in ok.columns and ok["x_C"].notna().any():
            rec["C_median"] = ok["x_C"].dropna().astype(float).median()
        out.append(rec)
    return pd.DataFrame(out).reindex(columns=cols)


def k_text(r) -> str:
    if r is None or pd.isna(r.get("k_median", np.nan)):
        return ""
    return (f"{r['k_median']:g} [{r['k_min']:g}-{r['k_max']:g}] of {int(r['d'])} "
            f"({100 * r['k_frac_median']:.2g} %)")


def build_table(ctx, table: str, title: str, rows_frame: pd.DataFrame | None = None,
                extra_notes: dict | None = None):
    """(markdown text, csv frame, latex text) of one paper table from the context's stored rows."""
    spec = ctx.spec
    frame = ctx.frame if rows_frame is None else rows_frame
    summ = summarise(frame)
    lk = {(r["dataset"], r["model"]): r for r in summ.to_dict("records")}
    pub = published(table)
    pub_lk = {(r.dataset, r.method): r.accuracy for r in pub.itertuples()}
    methods = spec.columns or [v.name for v in spec.variants]
    from randml_core.data import get_spec

    datasets = list(spec.datasets)
    extra = [d for d in (extra_notes or {}) if d not in datasets]
    first_standin = next((i for i, d in enumerate(datasets) if get_spec(d).substitute_of), len(datasets))
    datasets[first_standin:first_standin] = extra  # extra originals (lung) before the stand-ins

    recs, md_rows = [], []
    for d in datasets:
        dspec = get_spec(d)
        standin = dspec.substitute_of
        loaded = d not in ctx.unavailable and any(k[0] == d for k in lk)
        note = (extra_notes or {}).get(d) or ""
        if d in ctx.unavailable and not note:
            note = NEEDS_DOWNLOAD
        rec = {"dataset": d, "stand_in_for": standin or "", "source": ctx.sources.get(d, ""), "note": note}
        cells = [d + (f" (stand-in for {standin})" if standin else "")]
        for m in methods:
            r = lk.get((d, m))
            p = pub_lk.get((d, m), np.nan)
            mean = np.nan if r is None else r["mean"]
            std = np.nan if r is None else r["std"]
            v = "n/a (stand-in)" if standin else verdict(mean, std, p)
            rec.update({f"{m} mean": mean, f"{m} std": std, f"{m} folds": None if r is None else r["n_folds"],
                        f"{m} failed": None if r is None else r["n_failed"], f"{m} paper": p,
                        f"{m} delta": mean - p if not standin else np.nan, f"{m} verdict": v,
                        f"{m} fit_s": None if r is None else r["fit_seconds"]})
            if m.startswith("MeMd"):
                rec.update({f"{m} K median": None if r is None else r.get("k_median"),
                            f"{m} K min": None if r is None else r.get("k_min"),
                            f"{m} K max": None if r is None else r.get("k_max"),
                            f"{m} K/d median": None if r is None else r.get("k_frac_median")})
            if not loaded and r is None:
                ours = note or "missing"
            elif r is None or pd.isna(mean):
                ours = f"failed ({0 if r is None else r['n_failed']})"
            else:
                ours = f"{mean:.2f} ± {0 if pd.isna(std) else std:.2f}" + (f" ({r['n_failed']} failed)" if r["n_failed"] else "")
            paper = "" if pd.isna(p) else f"{p:.2f}"
            delta = "" if standin or pd.isna(p) or pd.isna(mean) else f"{mean - p:+.2f}"
            cells += [ours, paper, delta, v if loaded else ""]
        for m in methods:
            if m.startswith("MeMd"):
                cells.append(k_text(lk.get((d, m))))
        recs.append(rec)
        md_rows.append(cells)
    heads = ["dataset"]
    for m in methods:
        heads += [f"{m} (ours)", f"{m} paper", "Δ", "verdict"]
    heads += [f"K {m}: median [range] of d" for m in methods if m.startswith("MeMd")]
    shown = pd.DataFrame(md_rows, columns=heads)
    return shown, pd.DataFrame(recs)


def footer(ctx, frame: pd.DataFrame, extra: list[str]) -> list[str]:
    """The table's footer; the code versions of the rows go to the sidecar (volatile)."""
    spec = ctx.spec
    versions = sorted(set(frame["code_version"].astype(str).str[:10] + frame["code_dirty"].map({True: "+dirty", False: ""})))\
        if len(frame) else []
    ctx.artefacts.record("row_code_versions", versions)
    src = "; ".join(f"{d}: {s}" + (f" (STAND-IN for {ctx.substitutes[d]})" if d in ctx.substitutes else "")
                    for d, s in ctx.sources.items())
    return [
        f"Protocol: {spec.protocol.describe()}; profile = {spec.profile}; preprocessing = "
        f"{spec.options.get('preprocessing') or 'minmax'}.",
        "Cell: accuracy in %, mean ± std over the outer folds. Paper = published value (experiments/memd/"
        "published.csv); Δ = ours - paper; verdict against our fold std: within spread (|Δ| <= std), above, "
        "not reached. Binary problems: the paper gives one MeMd value for J and JS (they coincide).",
        *extra,
        cell_counts(frame, ctx.n_planned),
        f"Data sources used: {src or 'none'}.",
        "Not loaded here: " + (", ".join(sorted(ctx.unavailable)) or "none") +
        (" (online originals: `make data`, then rerun)" if ctx.unavailable else "") + ".",
    ]


def folds_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """``<stem>_folds.csv``: accuracy, fit time and chosen K per outer fold (each family has one setting), with
    the dataset's ``stand_in_for`` (empty for originals): the paired splits the claims report tests on."""
    return with_stand_ins(split_scores(frame, "accuracy", ["x_k", "x_k_frac", "x_d", "x_fit_cpu_seconds"]))


def write(out, stem: Path, title: str, shown: pd.DataFrame, csv: pd.DataFrame, foot: list[str],
          frame: pd.DataFrame | None = None) -> list[Path]:
    """Stage ``stem``.md / .csv / .tex (and ``stem``_folds.csv from the stored ``frame``) in the artefact set
    ``out`` (the report's ``ctx.artefacts``)."""
    md = "\n".join([f"# {title}", "", frame_markdown(shown), "", *[f"- {f}" for f in foot], ""])
    tex = (f"% {title}\n" + frame_latex(shown) + "".join(f"% {f}\n" for f in foot)).replace("Δ", "$\\Delta$")
    paths = [out.write_text(stem.with_suffix(".md"), md), out.write_csv(stem.with_suffix(".csv"), csv),
             out.write_text(stem.with_suffix(".tex"), tex)]
    if frame is not None:
        paths.append(out.write_csv(stem.with_name(stem.name + "_folds.csv"), folds_frame(frame)))
    print(md)
    return paths
