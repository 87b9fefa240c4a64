"""MeMd claims report: ``results/tables/memd_report.md`` from the Table II and III CSVs.

Usage: ``.venv/bin/python -m experiments.memd.summary`` (``make memd`` runs it after both tables).
Reads only ``results/tables/memd_table2.csv`` (+ ``memd_table2_lung.csv`` rows already merged into
it by the Table II report) and ``memd_table3.csv``. A claim is *held* / *not held* on the original
datasets we have results for, *not tested* when none is loaded; stand-in results are listed as
indicative only, never as evidence.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from randml_core.artefacts import ArtefactSet
from randml_core.report.table_stats import report_lines
from randml_core.provenance import short_version

ROOT = Path(__file__).resolve().parents[2]


def _load(path: Path) -> pd.DataFrame:
    return pd.read_csv(path) if path.is_file() else pd.DataFrame()


def _has(df, d, m):
    return f"{m} mean" in df.columns and pd.notna(df.loc[d, f"{m} mean"])


def _split(df: pd.DataFrame):
    """(originals with results, stand-ins with results) of a table CSV, indexed by dataset."""
    if df.empty:
        return df, df
    df = df.set_index("dataset")
    have = df[[c for c in df.columns if c.endswith(" mean")]].notna().any(axis=1)
    standin = df["stand_in_for"].fillna("").astype(str) != ""
    return df[have & ~standin], df[have & standin]


def _fmt(df, d, m):
    return f"{df.loc[d, f'{m} mean']:.2f} ± {0 if pd.isna(df.loc[d, f'{m} std']) else df.loc[d, f'{m} std']:.2f}"


def claim_competitive(orig, stand, a="MeMd-J", b="SVM"):
    """MeMd within SVM's fold spread or better on every original gene set."""
    lines, ok = [], []
    for df, tag in ((orig, ""), (stand, " (stand-in, indicative only)")):
        for d in df.index:
            if not (_has(df, d, a) and _has(df, d, b)):
                continue
            best = max(df.loc[d, f"{a} mean"], df.loc[d, "MeMd-JS mean"]) if _has(df, d, "MeMd-JS") else df.loc[d, f"{a} mean"]
            good = best >= df.loc[d, f"{b} mean"] - (df.loc[d, f"{b} std"] if pd.notna(df.loc[d, f"{b} std"]) else 0)
            if not tag:
                ok.append(good)
            lines.append(f"{d}{tag}: MeMd-J {_fmt(df, d, a)}, MeMd-JS {_fmt(df, d, 'MeMd-JS')}, SVM {_fmt(df, d, b)} "
                         f"-> {'competitive' if good else 'behind'}")
    return _verdict(ok), lines


def claim_reduction(orig, stand, limit=0.10):
    lines, ok = [], []
    for df, tag in ((orig, ""), (stand, " (stand-in)")):
        for d in df.index:
            col = "MeMd-J K/d median"
            if col not in df.columns or pd.isna(df.loc[d, col]):
                continue
            frac = df.loc[d, col]
            if not tag:
                ok.append(frac <= limit)
            lines.append(f"{d}{tag}: median K = {df.loc[d, 'MeMd-J K median']:g} [{df.loc[d, 'MeMd-J K min']:g}-"
                         f"{df.loc[d, 'MeMd-J K max']:g}], {100 * frac:.2g} % of the features")
    return _verdict(ok), lines


def claim_beats(orig, stand, rivals, need="most"):
    """MeMd (best of J, JS) above every rival on most (> half) / all-but-one of the problems."""
    lines, wins = [], []
    for df, tag in ((orig, ""), (stand, " (stand-in, indicative only)")):
        for d in df.index:
            if not all(_has(df, d, m) for m in ("MeMd-J", *rivals)):
                continue
            memd = max(df.loc[d, "MeMd-J mean"], df.loc[d, "MeMd-JS mean"])
            win = all(memd > df.loc[d, f"{r} mean"] for r in rivals)
            if not tag:
                wins.append(win)
            lines.append(f"{d}{tag}: MeMd {memd:.2f} vs " + ", ".join(f"{r} {df.loc[d, f'{r} mean']:.2f}" for r in rivals)
                         + f" -> {'MeMd ahead' if win else 'MeMd not ahead'}")
    if not wins:
        return "not tested (no original loaded: `make data`)", lines
    held = sum(wins) > len(wins) / 2 if need == "most" else sum(wins) >= len(wins) - 1
    return f"{'held' if held else 'not held'} ({sum(wins)} of {len(wins)} problems)", lines


def claim_js_close(frames):
    """On multi-class sets: |J - JS| within the larger fold std, and JS fits faster."""
    lines, close, cheaper = [], [], []
    for df_all in frames:
        if df_all.empty:
            continue
        df = df_all.set_index("dataset")
        for d in df.index:
            if not (_has(df, d, "MeMd-J") and _has(df, d, "MeMd-JS")):
                continue
            if df.loc[d, "MeMd-J K median"] == df.loc[d, "MeMd-JS K median"] and \
                    df.loc[d, "MeMd-J mean"] == df.loc[d, "MeMd-JS mean"] and str(d).endswith("2c"):
                continue
            j, js = df.loc[d, "MeMd-J mean"], df.loc[d, "MeMd-JS mean"]
            spread = np.nanmax([df.loc[d, "MeMd-J std"], df.loc[d, "MeMd-JS std"], 0])
            tj, tjs = df.loc[d, "MeMd-J fit_s"], df.loc[d, "MeMd-JS fit_s"]
            tag = " (stand-in)" if str(df.loc[d, "stand_in_for"]) not in ("", "nan") else ""
            if not tag:
                close.append(abs(j - js) <= spread)
                cheaper.append(tjs < tj)
            lines.append(f"{d}{tag}: J {j:.2f}, JS {js:.2f} (|diff| {abs(j - js):.2f}, spread {spread:.2f}); "
                         f"fit s J {tj:.3f}, JS {tjs:.3f}")
    if not close:
        return "not tested on originals (only stand-ins / binary sets, where J = JS)", lines
    return (f"accuracy close on {sum(close)} of {len(close)}: {'held' if all(close) else 'not held'}; "
            f"JS faster on {sum(cheaper)} of {len(cheaper)}: {'held' if all(cheaper) else 'not held'}"), lines


def claim_paper_numbers(orig):
    counts = {}
    for d in orig.index:
        for c in orig.columns:
            if c.endswith(" verdict") and isinstance(orig.loc[d, c], str) and orig.loc[d, c]:
                counts[orig.loc[d, c]] = counts.get(orig.loc[d, c], 0) + 1
    if not counts:
        return "not tested (no original loaded)", []
    return ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())), []


def _verdict(oks):
    if not oks:
        return "not tested (no original loaded: `make data`)"
    return f"{'held' if all(oks) else 'not held'} ({sum(oks)} of {len(oks)} datasets)"


def build(tables: Path) -> Path:
    t2, t3 = _load(tables / "memd_table2.csv"), _load(tables / "memd_table3.csv")
    o2, s2 = _split(t2)
    o3, s3 = _split(t3)
    claims = [
        ("Table II: MeMd is competitive with the linear SVM on gene-expression data (Sec. VI-B)",
         *claim_competitive(o2, s2)),
        ("Table II: MeMd prunes most genes (chosen K <= 10 % of d)", *claim_reduction(o2, s2)),
        ("Table II: our accuracies match the published ones (verdicts against our fold spread)",
         *claim_paper_numbers(o2)),
        ("Table III: MeMd outperforms the linear SVM on all but one text problem", *claim_beats(o3, s3, ["SVM"], "all-but-one")),
        ("Table III: MeMd beats both DME and SVM on most text problems (issue wording; the paper says DME is "
         "best in a considerable number of cases)", *claim_beats(o3, s3, ["SVM", "DME"])),
        ("Table III: MeMd reduces the vocabulary drastically (chosen K <= 10 % of d)", *claim_reduction(o3, s3)),
        ("Table III: our accuracies match the published ones", *claim_paper_numbers(o3)),
        ("MeMd-JS is close to MeMd-J in accuracy at a lower cost (Sec. IV-B, VI-A), multi-class sets",
         *claim_js_close([t2, t3])),
    ]
    out = ["# MeMd paper — claims held / not held", "",
           f"Generated by `python -m experiments.memd.summary` from `{tables.name}/memd_table2.csv` and "
           "`memd_table3.csv` (time and code version: `memd_report.meta.json`). Accuracies in %, "
           "mean ± std over outer folds. Stand-in (generated) datasets are listed as indicative only; "
           "they never decide a verdict. The gene-like stand-ins are drawn from the independent-Gaussian model "
           "that 2-moment MeMd assumes (a few shifted genes), so they favour MeMd over the SVM by construction.", ""]
    for title, verdict, lines in claims:
        out += [f"## {title}", "", f"**Verdict: {verdict}**", ""] + [f"- {ln}" for ln in lines] + [""]
    out += ["## Statistics over datasets (beside the claims above)", "",
            *report_lines("memd_table2", tables.parent), ""]
    out += ["## Dataset sources actually used", ""]
    for name, df in (("Table II", t2), ("Table III", t3)):
        if df.empty:
            out.append(f"- {name}: no table yet")
            continue
        for r in df.itertuples():
            src = r.source if isinstance(r.source, str) and r.source else (r.note if isinstance(r.note, str) else "")
            st = f" — STAND-IN for {r.stand_in_for}" if isinstance(r.stand_in_for, str) and r.stand_in_for else ""
            out.append(f"- {name} {r.dataset}: {src or 'not loaded'}{st}")
    out += ["", "Notes: the gene originals' OpenML ids are unverified (randml_core/data/sets_memd.py); the "
            "20 Newsgroups corpus is scikit-learn's bydate version, whose document counts differ from the paper's "
            "for 3 of the 11 problems (randml_core/data/text_memd.py).", ""]
    path = tables / "memd_report.md"
    with ArtefactSet(tables.parent, "memd_report", code_version=short_version()) as artefacts:
        artefacts.write_text(path, "\n".join(out))
    print("\n".join(out))
    return path


def main(argv=None) -> int:
    tables = Path(argv[0]) if argv else ROOT / "results" / "tables"
    print("wrote", build(tables))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
