"""Shared pieces of the SLM reports: published numbers, nested selection, cell formatting.

Pure functions of the stored frame (no model is fitted here).

Selection: for every outer split, the hyper-parameters with the best mean inner-fold score (2-fold
inner CV on the training part, ``protocol.inner_splits``) are picked, then that split's outer row
is scored (the same rule as ``randml_core.report.tables.select_nested``; ties go to the first
setting in canonical parameter order). Classification selects on accuracy (Table I's metric),
regression on RMSE (lowest). Without inner folds (``inner_splits=0``) the best mean outer score is
used instead and the footer says so (optimistic).

Verdict of a cell: ``within`` when |ours - paper| <= our standard deviation over the outer splits,
else ``above`` / ``below`` (ours higher / lower than the paper).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from randml_core.report.tables import cell_counts, nested_rows, select_best, selected_rows

PUBLISHED = Path(__file__).with_name("published.csv")

#: FF-MLP / BP-MLP come from Lin et al. (2020) via the SLM paper: quoted, never run here
QUOTED_MODELS = ("FF-MLP", "BP-MLP")


def published() -> pd.DataFrame:
    """``published.csv``: table, dataset, model, metric, value (string for node lists), note."""
    return pd.read_csv(PUBLISHED, dtype={"value": str})


def published_value(pub: pd.DataFrame, table: str, dataset: str, model: str, metric: str):
    hit = pub[(pub["table"] == table) & (pub["dataset"] == dataset) & (pub["model"] == model)
              & (pub["metric"] == metric)]
    if hit.empty:
        return None
    v = hit["value"].iloc[0]
    try:
        return float(v)
    except ValueError:
        return v


def nested_picks(frame: pd.DataFrame, metric: str, higher: bool = True) -> pd.DataFrame:
    """The ok outer rows at the per-split selected hyper-parameters (one row per dataset, model,
    repeat, fold): the nested pick of :func:`~randml_core.report.tables.nested_rows`; without inner
    rows, the setting with the best mean outer score per (dataset, model) (:func:`select_best`) for every split."""
    rows = nested_rows(frame, metric, higher)
    if not len(rows):
        rows = selected_rows(frame, select_best(frame, metric, higher))
    return rows[rows["status"] == "ok"]


def summarise(picks: pd.DataFrame, column: str, scale: float = 1.0) -> pd.DataFrame:
    """Per (dataset, model): mean, std, n of ``column`` (times ``scale``) over the picked splits,
    and the most frequent selected setting."""
    if picks.empty:
        return pd.DataFrame(columns=["dataset", "model", "mean", "std", "n", "params_json"])
    g = picks.assign(_v=picks[column].astype(float) * scale).groupby(["dataset", "model"], sort=False)
    out = g.agg(mean=("_v", "mean"), std=("_v", "std"), n=("_v", "size"),
                params_json=("params_json", lambda s: s.value_counts().index[0])).reset_index()
    out["std"] = out["std"].fillna(0.0)
    return out


def verdict(ours: float, std: float, paper: float) -> str:
    if paper is None or not np.isfinite(ours):
        return ""
    if abs(ours - paper) <= std + 1e-12:
        return "within"
    return "above" if ours > paper else "below"


def fmt(x, digits: int) -> str:
    if x is None or (isinstance(x, float) and not np.isfinite(x)):
        return ""
    return f"{x:.{digits}f}"


def comparison_rows(summary: pd.DataFrame, pub: pd.DataFrame, table: str, metric: str, datasets, models,
                    substitutes: dict, unavailable: dict) -> pd.DataFrame:
    """Long frame: one row per (dataset, model) with ours, std, n, paper, delta, verdict, note."""
    lk = {(r.dataset, r.model): r for r in summary.itertuples()}
    recs = []
    for d in datasets:
        paper_d = substitutes.get(d, d)
        for m in models:
            p = published_value(pub, table, d, m, metric)
            r = lk.get((d, m))
            note = ""
            if m in QUOTED_MODELS:
                note = "quoted (Lin et al. 2020 via the SLM paper), not run"
            elif d in unavailable:
                note = "not run: needs download (`make data`)"
            elif d in substitutes:
                note = f"offline substitute for {paper_d}: not comparable with the paper"
            elif r is None:
                note = "missing"
            ours = None if r is None else float(r.mean)
            std = None if r is None else float(r.std)
            delta = None if (ours is None or p is None or d in substitutes) else ours - p
            recs.append({"dataset": d, "model": m, "ours": ours, "std": std, "n_splits": None if r is None else int(r.n),
                         "paper": p if d not in substitutes else None, "delta": delta,
                         "verdict": "" if delta is None else verdict(ours, std, p),
                         "selected": None if r is None else r.params_json, "note": note})
    return pd.DataFrame(recs)


def wide_text(long: pd.DataFrame, datasets, models, digits: int) -> pd.DataFrame:
    """Dataset x model grid of 'ours ± std / paper (Δ, verdict)' strings."""
    lk = {(r.dataset, r.model): r for r in long.itertuples()}
    rows = []
    for d in datasets:
        rec = {"dataset": d}
        for m in models:
            r = lk.get((d, m))
            if r is None:
                rec[m] = ""
                continue
            if m in QUOTED_MODELS:
                rec[m] = f"quoted {fmt(r.paper, digits)}" if r.paper is not None and pd.notna(r.paper) else ""
                continue
            if r.ours is None or pd.isna(r.ours):
                paper = f" / paper {fmt(r.paper, digits)}" if r.paper is not None and pd.notna(r.paper) else ""
                rec[m] = ("needs download" if "download" in r.note else "missing") + paper
                continue
            text = f"{fmt(r.ours, digits)} ± {fmt(r.std, digits)}"
            if r.paper is not None and pd.notna(r.paper):
                text += f" / {fmt(r.paper, digits)} ({r.delta:+.{digits}f}, {r.verdict})"
            rec[m] = text
        rows.append(rec)
    return pd.DataFrame(rows)


def selection_lines(ctx, picks: pd.DataFrame) -> list[str]:
    """Footer lines on the tuning: the paper's protocol against ours, and every per-split pick on a grid edge."""
    from randml_core.report.tables import grid_edge_counts

    flags = grid_edge_counts(picks, ctx.spec.variants)
    return [
        "Tuning: the paper reports one 60/40 split and says the SLM hyper-parameters \"are searched to achieve the "
        "performance as shown in [Table] I\" (on that split, so its numbers are tuned on the test part); ours are "
        "chosen on each training part only (nested), which is why ours can be lower without contradicting it.",
        "Selected values on a grid edge of an axis of 3 or more values (the search may have stopped short there): "
        + ("; ".join(flags) if flags else "none") + ".",
    ]


def provenance_lines(ctx) -> list[str]:
    """Footer lines on where the numbers come from; the code versions of the rows (volatile) go to
    the report's sidecar."""
    frame = ctx.frame
    versions = sorted(set(frame["code_version"].str[:10] + frame["code_dirty"].map({True: "+dirty", False: ""}))) \
        if len(frame) else []
    ctx.artefacts.record("row_code_versions", versions)
    return [
        f"Protocol: {ctx.spec.protocol.describe()}; profile {ctx.spec.profile}.",
        cell_counts(frame, ctx.n_planned),
        "Data sources: " + "; ".join(f"{d}: {s}" + (f" (SUBSTITUTE for {ctx.substitutes[d]})" if d in ctx.substitutes else "")
                                     for d, s in ctx.sources.items()) + ".",
    ] + [f"Not available here: {d} ({reason.split(';')[0][:120]})." for d, reason in ctx.unavailable.items()]


def write_artefacts(out, stem: Path, title: str, wide: pd.DataFrame, long: pd.DataFrame,
                    footer: list[str]) -> list[Path]:
    """Stage ``stem``.md (wide grid + footer), .csv (the long frame, every number), .tex (wide grid)
    in the artefact set ``out`` (the report's ``ctx.artefacts``)."""
    from randml_core.report.tables import frame_latex, frame_markdown

    md = "\n".join([f"# {title}", "", frame_markdown(wide), "", *[f"- {f}" for f in footer], ""])
    return [out.write_text(stem.with_suffix(".md"), md), out.write_csv(stem.with_suffix(".csv"), long),
            out.write_text(stem.with_suffix(".tex"), f"% {title}\n" + frame_latex(wide)
                           + "".join(f"% {f}\n" for f in footer))]
