"""The SLM paper's claims, decided with their uncertainty: ``results/tables/slm_report.md`` and ``slm_claims.json``.

Reads only artefacts the table reports wrote (run ``make slm`` first): the per-split scores at each split's
selected setting, ``slm_table1_folds.csv`` / ``slm_table3_folds.csv`` (paired: every model is scored on the
same 10 random 60/40 splits), and the tables ``slm_table1.csv`` / ``slm_table2.csv`` / ``slm_table3.csv``
for the paper's own numbers. Each claim quotes the paper (arXiv 2205.05296), and is decided by the rules of
:mod:`randml_core.report.claims`: per dataset the corrected resampled t-test (Nadeau & Bengio 2003; n_test /
n_train = 40/60) with Holm's correction over the datasets; "in all the datasets" needs a significant win on
every real dataset, "outperform" one win and no loss, "generally" / "overall" wins on more than half.
Substitutes (banknote-synthetic, california-friedman1-substitute) get their own column; datasets that need
a download are not run. The paper's own table is read with the same rule on its means (no splits published).

    python -m experiments.slm.summary [results_dir]
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd

from randml_core.artefacts import ArtefactSet
from randml_core.provenance import short_version
from randml_core.report import claims as C
from randml_core.report.table_stats import report_lines
from randml_core.stats import corrected_ttest, holm

SUBSTITUTES = {"banknote-synthetic", "california-friedman1-substitute"}
ALPHA = C.ALPHA

#: (id, the paper's words, where, metric, A, B, need, higher is better)
BEATS = [
    ("t1-baseline-dt", "With outperforming the DTs in all the datasets, the SLM model sizes are generally smaller "
     "than the DTs as well", "Section IV-A, Table I (accuracy): SLM Baseline vs DT", "accuracy", "SLM Baseline", "DT", "all"),
    ("t1-forest-rf", "The ensembles of SLM are generally more powerful than those of DT.",
     "Section IV-A, Table I (accuracy): SLM Forest vs RF", "accuracy", "SLM Forest", "RF", "majority"),
    ("t1-boost-xgb", "The ensembles of SLM are generally more powerful than those of DT.",
     "Section IV-A, Table I (accuracy): SLM Boost vs XGBoost", "accuracy", "SLM Boost", "XGBoost", "majority"),
    ("t2-depth", "The depth of SLM trees are overall smaller than the DT models",
     "Section IV-A, Table II (depth): SLM Baseline vs DT", "depth", "SLM Baseline", "DT", "majority"),
    ("t2-size", "the SLM model sizes are generally smaller than the DTs as well",
     "Section IV-A, Table II (#parameters): SLM Baseline vs DT", "n_parameters", "SLM Baseline", "DT", "majority"),
    ("t3-baseline-dt", "As shown in Table III, SLR Baseline outperforms DT in all datasets.",
     "Section V-B, Table III (RMSE): SLR Baseline vs DT", "rmse", "SLR Baseline", "DT", "all"),
    ("t3-forest-rf", "Also, SLR Forest and SLR Boosting outperform RF and XGBoost, respectively.",
     "Section V-B, Table III (RMSE): SLR Forest vs RF", "rmse", "SLR Forest", "RF", "any"),
    ("t3-boost-xgb", "Also, SLR Forest and SLR Boosting outperform RF and XGBoost, respectively.",
     "Section V-B, Table III (RMSE): SLR Boost vs XGBoost", "rmse", "SLR Boost", "XGBoost", "any"),
]
BEST_WORDS = ("For Make Friedman1, Make Friedman3, california-housing, Boston, and diabetes, SLR Boost achieves the "
              "best performance.")
BEST_DATASETS = ["friedman1", "friedman3", "california-housing", "boston", "diabetes-regression"]
#: Table II quantities in the fold artefact (stored extras of Table I's selected SLM / DT fits) -> table label
SIZE_COLUMNS = {"depth": ("x_depth", "SLM depth", "DT depth"),
                "n_parameters": ("x_n_parameters", "SLM #params", "DT #params")}
HIGHER = {"accuracy": True, "rmse": False, "depth": False, "n_parameters": False}
NEED_WORDS = {"all": "a significant win on every real dataset (and no loss)",
              "any": "a significant win on at least one real dataset and no significant loss",
              "majority": "significant wins on more than half of the real datasets (not held if losses on half or more)"}
TABLE_OF = {"accuracy": "slm_table1", "depth": "slm_table1", "n_parameters": "slm_table1", "rmse": "slm_table3"}


def _read(path: Path) -> pd.DataFrame | None:
    return pd.read_csv(path) if path.is_file() else None


def _pivot(long: pd.DataFrame | None, key: str, value: str) -> pd.DataFrame | None:
    if long is None:
        return None
    return long.pivot_table(index="dataset", columns=key, values=value, aggfunc="first", sort=False)


def _folds_for(metric: str, folds: dict) -> pd.DataFrame | None:
    """The fold frame with ``metric`` as a column (Table II quantities from Table I's fold artefact)."""
    f = folds.get(TABLE_OF[metric])
    if f is None:
        return None
    if metric in SIZE_COLUMNS:
        col = SIZE_COLUMNS[metric][0]
        return f.assign(**{metric: f[col]}) if col in f.columns else None
    return f if metric in f.columns else None


def _published(metric: str, tables: dict) -> pd.DataFrame | None:
    if metric in SIZE_COLUMNS:
        t = _pivot(tables.get("slm_table2"), "quantity", "paper")
        if t is None:
            return None
        _, slm, dt = SIZE_COLUMNS[metric]
        return t.rename(columns={slm: "SLM Baseline", dt: "DT"}) if {slm, dt} <= set(t.columns) else None
    return _pivot(tables.get(TABLE_OF[metric]), "model", "paper")


def _datasets(metric: str, folds: dict, tables: dict) -> tuple[list[str], list[str]]:
    """(real, substitute) datasets with results for ``metric``'s table."""
    f = _folds_for(metric, folds)
    names = list(dict.fromkeys(f["dataset"])) if f is not None else []
    return [d for d in names if d not in SUBSTITUTES], [d for d in names if d in SUBSTITUTES]


def _best_on(folds: pd.DataFrame | None, model: str, datasets: list[str]) -> C.Decision:
    """"``model`` is the best on each of ``datasets``": on each, no rival significantly better (corrected
    t-test, Holm over the rivals of that dataset); held when that is so on every dataset run, not held when a
    rival is significantly better on one."""
    if folds is None:
        return C.not_tested("no per-split artefact slm_table3_folds.csv")
    run = [d for d in datasets if d in set(folds["dataset"])]
    if not run:
        return C.not_tested("none of the named datasets was run here (" + ", ".join(datasets) + ")")
    details, lost = [], []
    for d in run:
        part = folds[folds["dataset"] == d]
        rivals = [m for m in part["model"].unique() if m != model]
        tests = []
        for r in rivals:
            t = corrected_ttest(part, model, r, "rmse")
            tests.append((r, float(t["mean_diff"].iloc[0]), float(t["p"].iloc[0])))
        adj = holm([p for _, _, p in tests])
        beaten = [r for (r, diff, _), q in zip(tests, adj) if q < ALPHA and diff > 0]
        details.append(f"{d}: " + ("; ".join(f"{r} {'better' if diff > 0 else 'worse'} by {abs(diff):.3f} (Holm p = {q:.3g})"
                                             for (r, diff, _), q in zip(tests, adj))))
        if beaten:
            lost.append(f"{d} ({', '.join(beaten)})")
    ev = (f"{len(run)} of {len(datasets)} named datasets run; a rival significantly better on "
          + (", ".join(lost) if lost else "none"))
    return C.Decision(C.NOT_HELD if lost else C.HELD, ev, details)


def decide(results_dir: Path) -> list[C.Claim]:
    tdir = results_dir / "tables"
    tables = {n: _read(tdir / f"{n}.csv") for n in ("slm_table1", "slm_table2", "slm_table3")}
    folds = {n: _read(tdir / f"{n}_folds.csv") for n in ("slm_table1", "slm_table3")}
    out = []
    for cid, words, where, metric, a, b, need in BEATS:
        hib = HIGHER[metric]
        f = _folds_for(metric, folds)
        real, subs = _datasets(metric, folds, tables)
        rule = (f"{'higher' if hib else 'lower'} {metric} is better; per dataset the corrected resampled t-test on the "
                f"paired splits, alpha = {ALPHA}, Holm over the datasets; held on {NEED_WORDS[need]}")
        if f is None:
            miss = f"no per-split artefact {TABLE_OF[metric]}_folds.csv" + (
                f" with column {SIZE_COLUMNS[metric][0]}" if metric in SIZE_COLUMNS else "")
            real_d, sub_d = C.not_tested(miss), None
        else:
            real_d = C.beats(f, a, b, metric, real, need=need, higher_is_better=hib)
            sub_d = C.beats(f, a, b, metric, subs, need=need, higher_is_better=hib) if subs else None
        pub = _published(metric, tables)
        pub_d = C.beats_on_means(pub, a, b, hib, [d for d in (pub.index if pub is not None else [])
                                                  if d not in SUBSTITUTES], need=need)
        out.append(C.Claim(cid, words, where, rule, real_d, sub_d, pub_d))
    f3 = folds["slm_table3"]
    real3 = [d for d in BEST_DATASETS if d not in SUBSTITUTES]
    best = _best_on(f3, "SLR Boost", real3)
    subs_best = _best_on(f3, "SLR Boost", sorted(SUBSTITUTES & set(f3["dataset"]))) if f3 is not None and \
        SUBSTITUTES & set(f3["dataset"]) else None
    pub3 = _pivot(tables.get("slm_table3"), "model", "paper")
    pub_best = C.not_tested("no published Table III")
    if pub3 is not None:
        rows = pub3.loc[[d for d in real3 if d in pub3.index]].drop(columns=[c for c in pub3 if pub3[c].isna().all()])
        wins = [d for d, r in rows.iterrows() if r.dropna().idxmin() == "SLR Boost"]
        pub_best = C.Decision(C.HELD if len(wins) == len(rows) else C.NOT_HELD,
                              f"means only: lowest RMSE on {len(wins)} of {len(rows)} named datasets")
    out.append(C.Claim("t3-boost-best", BEST_WORDS, "Section V-B, Table III (RMSE): SLR Boost best on five sets",
                       f"on each named dataset run, no other regressor has a significantly lower RMSE (corrected "
                       f"resampled t-test, alpha = {ALPHA}, Holm over the rivals)", best, subs_best, pub_best))
    return out


def build(results_dir: Path) -> Path:
    tdir = results_dir / "tables"
    claims = decide(results_dir)
    json_path = tdir / "slm_claims.json"
    previous = C.load_previous(json_path)
    out = ["# SLM paper — claims decided with their uncertainty", "",
           f"Counts on the real datasets: {C.counts_line(claims)}.", "",
           *C.markdown_table(claims), "",
           "Protocol: 10 random 60/40 splits per dataset (\"Samples in all datasets are randomly split into training "
           "and test sets with 60% and 40%, respectively.\"), hyper-parameters selected per split by 2-fold inner CV "
           "on the training part. The paper reports one number per cell and says its hyper-parameters \"are searched "
           "to achieve the performance as shown in I\": a single split, tuned with the test part in view, as far as "
           "the text tells. Ours: every number is a mean over 10 splits, selected without the test part, so our "
           "means are lower and our verdicts can say when a difference is within the split-to-split noise "
           "(inconclusive) rather than counting every difference of means as a win or a loss.",
           "The synthetic 2-D sets are our generators (the paper's are not recoverable). Substitutes are decided apart, "
           "never pooled with the real datasets.", "",
           "Generated from results/tables/slm_table{1,3}_folds.csv and slm_table{1,2,3}.csv (time and code version: "
           "`slm_report.meta.json`).", "",
           *C.changes(claims, previous),
           "## Statistics over datasets (beside the paper's per-dataset comparisons)", "",
           *report_lines("slm_table1", results_dir), *report_lines("slm_table3", results_dir), "",
           "## Claims in detail", "", *C.details(claims)]
    path = tdir / "slm_report.md"
    with ArtefactSet(results_dir, "slm_report", code_version=short_version()) as artefacts:
        artefacts.write_text(path, "\n".join(out))
        artefacts.write_text(json_path, json.dumps(C.records(claims), indent=1) + "\n")
    return path


if __name__ == "__main__":
    print(build(Path(sys.argv[1] if len(sys.argv) > 1 else "results")))
