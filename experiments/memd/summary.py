"""MeMd claims report: ``results/tables/memd_report.md`` (+ ``memd_claims.json``) from the table artefacts.

Usage: ``.venv/bin/python -m randml_papers.memd.summary [results/tables]`` (``make memd`` runs it after both
tables). Reads the per-split artefacts ``memd_table2_folds.csv`` / ``memd_table3_folds.csv`` (paired: every
model is scored on the same outer folds) and the tables' csv files (published numbers, sources). Each claim
quotes the paper and is decided by :mod:`randml_core.report.claims` on the original datasets only; the
generated stand-ins get their own column and never decide a verdict. Claims about a table ("most of the cases",
"outperforms", "comparable", "quite similar") are decided over the datasets (Wilcoxon signed-rank / TOST on the
per-dataset mean differences, margin ±2 accuracy points), rules fixed 2026-11-27 unless a claim carries an
older date.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from randml_core.artefacts import ArtefactSet
from randml_core.provenance import short_version
from randml_core.report import claims as C
from randml_core.report import registry as R
from randml_core.report.table_stats import report_lines

ROOT = Path(__file__).resolve().parents[2]
#: equivalence / non-inferiority margin in accuracy percentage points (see the rules below)
MARGIN_PP = 2.0
#: "half the time": the JS fit must be significantly more than this factor faster than the J fit
HALF_TIME_FACTOR = 1.5
#: "The number of points is large thereby making parameter estimation time for MeMd-J twice as MeMd-JS" (Section
#: IV-B): the timing claim is tested only where the training folds have at least this many rows (the paper's
#: multi-class 20 Newsgroups problems have thousands of documents; srbct has 74, the gene-like sets < 200)
LARGE_POINTS = 1000
#: "drastic" reduction: chosen K at most this fraction of the features on every outer fold
DRASTIC = 0.10
#: the dates of the rules this round left as they were (the margin itself dates from 2026-11-25)
OLD_DATES = {"t2-prunes": "2026-11-25", "t3-reduces": "2026-11-25"}
MARGINS = [("accuracy (Tables II, III)", f"±{MARGIN_PP:g} pp (accuracy points), fixed 2026-11-25",
            "the paper calls MeMd-J / MeMd-JS 'quite similar' and MeMd / SVM 'comparable' on its own Table III "
            "where they differ by up to about 2 points (see below)"),
           ("'half the time'", f"{HALF_TIME_FACTOR:g}x (log ratio of CPU seconds), fixed 2026-11-25",
            "half way between no gain and the stated 2x")]
DEVIATIONS = [
    "SRBCT is ISLP's `Khan` data (63 training + 20 test rows, 2308 genes), the paper's source is not named; the "
    "other gene sets (colon, lung, gcm, ...) need a download and their OpenML ids are unverified: offline they "
    "are replaced by generated gene-like stand-ins drawn from the independent-Gaussian model 2-moment MeMd "
    "assumes, which favour MeMd by construction.",
    "The 20 Newsgroups problems use scikit-learn's bydate version, whose document counts differ from the paper's "
    "for 3 of the 11 problems; offline they are replaced by generated text-like stand-ins.",
    "'half the time' is decided as the paper states it, on every multi-class set (2026-11-28; the sentence has no "
    f"size condition); the regime reading (only sets with at least {LARGE_POINTS} training rows: 'The number of points "
    "is large', rule of 2026-11-27) is shown beside it: srbct (74 rows, about 0.02 s per fit) and the gene-like "
    "stand-ins are outside that regime (the 20 Newsgroups 4-class problems need a download).",
]

WORDS = {
    "t2-more-successful": ("From Table II, one can observe that the MeMd classifier is more successful in "
                           "distinguishing among the classes for most of the cases.", "Section VI-B, Table II"),
    "t2-prunes": ("the MeMd classifier is able to prune away most of the genes that are not discriminatory",
                  "Section VI-B, Table II"),
    "t3-comparable-svm": ("give good accuracies comparable to SVMs", "Section I (text datasets), Table III"),
    "t3-outperforms-discriminative": ("and outperforms discriminative approaches",
                                      "Section I (text datasets), Table III: DME"),
    "t3-reduces": ("the proposed method is able to do drastic dimensionality reduction", "Section I, Table III"),
    "js-similar": ("However, the performance of both algorithms are quite similar as discussed in the "
                   "experimental results.", "Section IV-B (MeMd-JS vs MeMd-J, multi-class sets)"),
    "js-half-time": ("The algorithm has linear time complexity O(d), and requires half the time as compared to "
                     "Algorithm 2 (one vs. all).", "Section IV-B (MeMd-JS vs MeMd-J fit time, multi-class sets)"),
}


def _blank(s: pd.Series) -> pd.Series:
    """True where a ``stand_in_for`` cell is empty (an original dataset)."""
    return s.isna() | (s.astype(str).str.strip() == "")


def _load(path: Path) -> pd.DataFrame:
    return pd.read_csv(path) if path.is_file() else pd.DataFrame()


def _folds(tables: Path) -> pd.DataFrame:
    """Both tables' split rows, accuracy in %, with ``table`` and ``stand_in`` columns."""
    parts = []
    for t in ("memd_table2", "memd_table3"):
        f = _load(tables / f"{t}_folds.csv")
        if len(f):
            parts.append(f.assign(table=t, accuracy=100.0 * f["accuracy"].astype(float)))
    if not parts:
        return pd.DataFrame(columns=["dataset", "model", "repeat", "fold", "n_train", "n_test", "accuracy",
                                     "fit_seconds", "x_k_frac", "table", "stand_in"])
    out = pd.concat(parts, ignore_index=True)
    out["stand_in"] = ~_blank(out["stand_in_for"]) if "stand_in_for" in out else False
    return out


def _published(tables: Path, table: str) -> pd.DataFrame | None:
    """Dataset x model table of the paper's numbers (originals only)."""
    df = _load(tables / f"{table}.csv")
    if df.empty:
        return None
    df = df[_blank(df["stand_in_for"])].set_index("dataset")
    cols = {c[:-len(" paper")]: df[c] for c in df.columns if c.endswith(" paper")}
    return pd.DataFrame(cols) if cols else None


def _multiclass(f: pd.DataFrame) -> list[str]:
    """Datasets where J and JS differ as algorithms (more than two classes): the J and JS rows are not identical."""
    out = []
    for d, g in f.groupby("dataset", sort=True):
        w = g.pivot_table(index=["repeat", "fold"], columns="model", values="accuracy", aggfunc="first")
        k = g.pivot_table(index=["repeat", "fold"], columns="model", values="x_k", aggfunc="first") \
            if "x_k" in g else None
        if {"MeMd-J", "MeMd-JS"} <= set(w.columns):
            same = w["MeMd-J"].equals(w["MeMd-JS"]) and (k is None or k["MeMd-J"].equals(k["MeMd-JS"]))
            if not same:
                out.append(d)
    return out


def _split(f: pd.DataFrame, table: str) -> dict[str, list[str]]:
    """The table's datasets by kind (real / regenerated / substitute)."""
    g = f[f["table"] == table]
    stand = dict(zip(g["dataset"], g["stand_in_for"])) if "stand_in_for" in g else {}
    return C.by_kind(sorted(g["dataset"].unique()), {d: v if isinstance(v, str) else "" for d, v in stand.items()})


def _k_rule(f: pd.DataFrame, datasets: list[str], limit: float, what: str) -> C.Decision:
    """Held if the chosen K is at most ``limit`` x d on every outer fold of every dataset (MeMd-J and -JS)."""
    if not datasets:
        return C.not_tested("no dataset loaded (originals need `make data`)")
    rows = f[f["dataset"].isin(datasets) & f["model"].str.startswith("MeMd")].dropna(subset=["x_k_frac"])
    if rows.empty:
        return C.not_tested("no chosen K stored")
    details, worst = [], []
    for d, g in rows.groupby("dataset", sort=True):
        frac = g["x_k_frac"].astype(float)
        details.append(f"{d}: K/d median {100 * frac.median():.2g} %, largest {100 * frac.max():.2g} % over "
                       f"{len(frac)} model-folds")
        worst.append(frac.max())
    ok = max(worst) <= limit
    return C.Decision(C.HELD if ok else C.NOT_HELD,
                      f"largest K/d over {len(worst)} dataset(s): {100 * max(worst):.2g} % ({what} <= "
                      f"{100 * limit:g} %)", details)


def _comparable_on_means(pub: pd.DataFrame | None, a: str, b: str, datasets, margin: float) -> C.Decision:
    if pub is None or a not in pub or b not in pub:
        return C.not_tested("no published numbers for both")
    diff = (pub.loc[[d for d in datasets if d in pub.index], a] - pub.loc[[d for d in datasets if d in pub.index], b]).dropna()
    if diff.empty:
        return C.not_tested("no published numbers for both")
    inside = int((diff.abs() < margin).sum())
    return C.Decision(C.HELD if inside == len(diff) else C.NOT_HELD,
                      f"means only, {len(diff)} datasets: |{a} - {b}| < {margin:g} on {inside} (largest "
                      f"{diff.abs().max():.2f})")


def _timings(f: pd.DataFrame, datasets: list[str]) -> tuple[np.ndarray, np.ndarray, str]:
    """Paired (MeMd-J, MeMd-JS) fit times per outer fold, and which clock: the fits' CPU seconds
    (``x_fit_cpu_seconds``) when every pair has them, else the wall ``fit_seconds`` (rows stored before
    the CPU time was recorded). Wall time is not a fair clock here: the fits take ~0.02 s, and on srbct
    a ``make memd`` with JOBS=1 and one with JOBS=2 gave wall ratios of 0.96x and 1.36x (intervals
    0.80-1.14x and 1.15-1.62x), so the verdict changed with the machine's load."""
    rows = f[f["dataset"].isin(datasets) & f["model"].isin(["MeMd-J", "MeMd-JS"])]
    for column, clock in (("x_fit_cpu_seconds", "CPU"), ("fit_seconds", "wall")):
        if column not in rows.columns:
            continue
        w = rows.pivot_table(index=["dataset", "repeat", "fold"], columns="model", values=column,
                             aggfunc="first", dropna=False)
        if not {"MeMd-J", "MeMd-JS"} <= set(w.columns):
            return np.array([]), np.array([]), clock
        if clock == "CPU" and w[["MeMd-J", "MeMd-JS"]].isna().any(axis=None):
            continue
        w = w.dropna()
        return w["MeMd-J"].to_numpy(float), w["MeMd-JS"].to_numpy(float), clock
    return np.array([]), np.array([]), "wall"


def _half_time(f: pd.DataFrame, datasets: list[str], label: str) -> C.Decision:
    if not datasets:
        return C.not_tested(f"no multi-class {label} dataset")
    n = f[f["dataset"].isin(datasets)].groupby("dataset")["n_train"].min()
    small = {d: int(v) for d, v in n.items() if v < LARGE_POINTS}
    large = [d for d in datasets if d not in small]
    slow, fast, clock = _timings(f, datasets)
    stated = C.faster(slow, fast, HALF_TIME_FACTOR,
                      what=f"MeMd-J / MeMd-JS fits on {', '.join(datasets)} ({clock} seconds)")
    # the paper's sentence has no size condition: decided on every multi-class set; the regime reading beside it
    if large:
        s2, f2, c2 = _timings(f, large)
        regime = C.faster(s2, f2, HALF_TIME_FACTOR, what=f"{', '.join(large)} ({c2} seconds)").cell()
    else:
        regime = ("not tested: " + ", ".join(f"{d} has {v} training rows" for d, v in small.items())
                  + f" (< {LARGE_POINTS})")
    stated.evidence += f"; regime reading (>= {LARGE_POINTS} training rows, 'The number of points is large'): {regime}"
    return stated


def decide(tables: Path) -> list[C.Claim]:
    f = _folds(tables)
    k2, k3 = _split(f, "memd_table2"), _split(f, "memd_table3")
    multi = set(_multiclass(f))
    pub2, pub3 = _published(tables, "memd_table2"), _published(tables, "memd_table3")
    acc = dict(metric="accuracy", higher_is_better=True)
    unit = dict(unit="pp")

    def three(fn, kinds, only=None):
        """(real, regenerated, substitute) decisions of ``fn`` on the datasets of each kind."""
        out = []
        for k in C.KINDS:
            ds = [d for d in kinds[k] if only is None or d in only]
            out.append(fn(ds) if ds else (C.not_tested("no original loaded here (`make data`)") if k == "real" else None))
        return out

    def merged(*kinds):
        return {k: sum((x[k] for x in kinds), []) for k in C.KINDS}

    out = []

    def add(cid, rule, decisions, published=None, margin="-"):
        words, where = WORDS[cid]
        real, regen, sub = decisions
        out.append(C.Claim(cid, words, where, rule, real, sub, published, regenerated=regen, margin=margin,
                           date=OLD_DATES.get(cid, C.RULES_DATE)))

    beats_rule = ("a claim about the table: MeMd-J vs the linear SVM, the per-dataset mean accuracy differences (pp) "
                  "tested over the datasets by the two-sided Wilcoxon signed-rank test (alpha 0.05): held if "
                  "significant for MeMd-J, not held if significant for the SVM, else inconclusive (no evidence); "
                  "sign test and Bayesian signed-rank beside it")
    rope = f"ROPE ±{MARGIN_PP:g} pp (Bayesian signed-rank, beside)"
    add("t2-more-successful", beats_rule,
        three(lambda ds: C.beats_over_datasets(f, "MeMd-J", "SVM", datasets=ds, rope=MARGIN_PP, **unit, **acc), k2),
        C.beats_on_means(pub2, "MeMd-J", "SVM", True, list(pub2.index) if pub2 is not None else [], need="majority"),
        rope)
    add("t2-prunes", "chosen K below half of the genes (most pruned) on every outer fold of every dataset",
        three(lambda ds: _k_rule(f, ds, 0.5, "most genes pruned: K/d"), k2))
    add("t3-comparable-svm", f"a claim about the table: MeMd-J vs the linear SVM, two one-sided tests of the mean "
        f"per-dataset accuracy difference against ±{MARGIN_PP:g} pp over the datasets (90 % interval inside the "
        "margin); not held if significantly outside; Bayesian P(rope) beside it",
        three(lambda ds: C.equivalent_over_datasets(f, "MeMd-J", "SVM", datasets=ds, margin=MARGIN_PP, **unit, **acc),
              k3),
        _comparable_on_means(pub3, "MeMd-J", "SVM", list(pub3.index) if pub3 is not None else [], MARGIN_PP),
        f"±{MARGIN_PP:g} pp (equivalence)")
    add("t3-outperforms-discriminative", beats_rule.replace("the linear SVM", "DME (the discriminative maximum "
        "entropy model)").replace("for the SVM", "for DME"),
        three(lambda ds: C.beats_over_datasets(f, "MeMd-J", "DME", datasets=ds, rope=MARGIN_PP, **unit, **acc), k3),
        C.beats_on_means(pub3, "MeMd-J", "DME", True, list(pub3.index) if pub3 is not None else [], need="majority"),
        rope)
    add("t3-reduces", f"'drastic': chosen K at most {100 * DRASTIC:g} % of the vocabulary on every outer fold",
        three(lambda ds: _k_rule(f, ds, DRASTIC, "drastic: K/d"), k3))
    add("js-similar", f"a claim about the multi-class sets (binary: the same algorithm): MeMd-JS vs MeMd-J, two "
        f"one-sided tests of the mean per-dataset accuracy difference against ±{MARGIN_PP:g} pp over the datasets; "
        "not held if significantly outside",
        three(lambda ds: C.equivalent_over_datasets(f, "MeMd-JS", "MeMd-J", datasets=ds, margin=MARGIN_PP, **unit,
                                                    **acc), merged(k2, k3), multi),
        margin=f"±{MARGIN_PP:g} pp (equivalence)")
    half = three(lambda ds: _half_time(f, ds, "original"), merged(k2, k3), multi)
    add("js-half-time", f"paired CPU seconds of the MeMd-J and MeMd-JS fits on the same folds, every multi-class set "
        f"(as the paper states it; 2026-11-28; the reading restricted to sets with >= {LARGE_POINTS} training rows, "
        f"'The number of points is large', rule of 2026-11-27, is shown beside the verdict; wall seconds moved the "
        f"verdict with the machine's load), one-sided "
        f"t-test of log(J / JS) against log({HALF_TIME_FACTOR:g}): held if JS is significantly more than "
        f"{HALF_TIME_FACTOR:g}x faster (closer to the paper's 2x than to 1x), not held if significantly less",
        half, margin=f"{HALF_TIME_FACTOR:g}x")
    return out


#: this paper's claim registry (rules registered before their verdicts) and the functions its rules run
REGISTRY = Path(__file__).with_name("claims_registry.jsonl")
RULE_CODE = (decide, _k_rule, _comparable_on_means, _timings, _half_time, _multiclass, _split)


def claims_for(results_dir: Path) -> list[C.Claim]:
    """The claims decided on ``results_dir/tables`` (the registry's ``register`` command; it prints no verdict)."""
    return decide(Path(results_dir) / "tables")


def _margin_context(tables: Path) -> str:
    """What the margin means on the paper's own Table III (the problems it calls comparable / similar)."""
    pub = _published(tables, "memd_table3")
    if pub is None or not {"MeMd-J", "MeMd-JS", "SVM"} <= set(pub.columns):
        return "the paper's Table III is not loaded here"
    js = (pub["MeMd-J"] - pub["MeMd-JS"]).abs().dropna()
    js = js[js > 0]  # binary problems: one published value for both
    svm = (pub["MeMd-J"] - pub["SVM"]).abs().dropna()
    return (f"on the paper's own Table III, |MeMd-J - MeMd-JS| is at most {js.max():.2f} points on its "
            f"{len(js)} multi-class problems and |MeMd-J - SVM| is below {MARGIN_PP:g} on {int((svm < MARGIN_PP).sum())} "
            f"of {len(svm)} problems (largest {svm.max():.2f}), which it calls similar / comparable")


def _paper_numbers(tables: Path) -> list[str]:
    """Per table, how our means sit against the published ones (verdicts against our fold spread)."""
    out = []
    for t, name in (("memd_table2", "Table II"), ("memd_table3", "Table III")):
        df = _load(tables / f"{t}.csv")
        if df.empty:
            out.append(f"- {name}: no table yet")
            continue
        v = pd.Series([x for c in df.columns if c.endswith(" verdict") for x in df[c]
                       if isinstance(x, str) and x and not x.startswith("n/a")])
        out.append(f"- {name}: " + (", ".join(f"{k} {n}" for k, n in v.value_counts().sort_index().items())
                                    if len(v) else "no original loaded (`make data`)"))
    return out


def _sources(tables: Path) -> list[str]:
    out = []
    for name, t in (("Table II", "memd_table2"), ("Table III", "memd_table3")):
        df = _load(tables / f"{t}.csv")
        if df.empty:
            out.append(f"- {name}: no table yet")
            continue
        for r in df.itertuples():
            src = r.source if isinstance(r.source, str) and r.source else (r.note if isinstance(r.note, str) else "")
            st = f" — STAND-IN for {r.stand_in_for}" if isinstance(r.stand_in_for, str) and r.stand_in_for else ""
            out.append(f"- {name} {r.dataset}: {src or 'not loaded'}{st}")
    return out


def _names(tables: Path) -> list[str]:
    f = _folds(tables)
    return list(dict.fromkeys(f["dataset"])) if len(f) else []


def build(tables: Path) -> Path:
    tables = Path(tables)
    claims = decide(tables)
    previous = C.load_previous(tables / "memd_claims.json")
    out = ["# MeMd paper — claims held / not held", "",
           f"Generated by `python -m randml_papers.memd.summary` from `{tables.name}/memd_table{{2,3}}_folds.csv` (the "
           "outer folds, paired across models) and `memd_table{2,3}.csv` (time and code version: "
           "`memd_report.meta.json`). Accuracies in %.", "",
           f"Claims on the original datasets: {C.counts_line(claims)}. Verdicts are decided on the originals "
           "only; the generated stand-ins have their own column. The gene-like stand-ins are drawn from the "
           "independent-Gaussian model that 2-moment MeMd assumes (a few shifted genes), so they favour MeMd "
           "over the SVM by construction. The paper's own numbers are judged by the same rule on its means "
           "(no splits are published).", "",
           *C.markdown_table(claims), "",
           f"Margins: ±{MARGIN_PP:g} accuracy points for 'comparable' / 'quite similar' ({_margin_context(tables)}); "
           f"'half the time' is tested against {HALF_TIME_FACTOR:g}x, half way between no gain and the stated 2x. "
           "alpha = 0.05.", "",
           "## Margins (in the metric's units)", "", *C.margins_lines(MARGINS), "",
           "## Data", "", *[f"- {name}: {C.kinds_line(_split(_folds(tables), t))}" for name, t in
                            (("Table II", "memd_table2"), ("Table III", "memd_table3"))], "",
           "## Deviations from the paper", "", *C.deviations_lines(_names(tables), DEVIATIONS), "",
           "## Claim inventory", "", *C.inventory_lines(claims), "",
           *R.section(claims, REGISTRY, RULE_CODE, "randml_papers.memd.summary"),
           *C.history(claims, previous, tables / "memd_verdicts.jsonl", tables / "memd_report.md"),
           "## Our accuracies beside the published ones (verdict per cell against our fold std)", "",
           *_paper_numbers(tables), "",
           "## Details", "", *C.details(claims),
           "## Statistics over datasets (beside the claims above)", "",
           *report_lines("memd_table2", tables.parent), "",
           "## Dataset sources actually used", "", *_sources(tables), "",
           "Notes: the gene originals' OpenML ids are unverified (randml_core/data/sets_memd.py); the 20 Newsgroups "
           "corpus is scikit-learn's bydate version, whose document counts differ from the paper's for 3 of the 11 "
           "problems (randml_core/data/text_memd.py).", ""]
    path = tables / "memd_report.md"
    with ArtefactSet(tables.parent, "memd_report", code_version=short_version()) as artefacts:
        artefacts.write_text(path, "\n".join(out))
        artefacts.write_json(tables / "memd_claims.json", C.records(claims))
    print("\n".join(out))
    return path


def main(argv=None) -> int:
    tables = Path(argv[0]) if argv else ROOT / "results" / "tables"
    print("wrote", build(tables))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
