"""The SLM paper's claims, decided with their uncertainty: ``results/tables/slm_report.md`` and ``slm_claims.json``.

Reads only artefacts the table reports wrote (run ``make slm`` first): the per-split scores at each split's
selected setting, ``slm_table1_folds.csv`` / ``slm_table3_folds.csv`` (paired: every model is scored on the
same 10 random 60/40 splits), and the tables ``slm_table1.csv`` / ``slm_table2.csv`` / ``slm_table3.csv``
for the paper's own numbers. Each claim quotes the paper (arXiv 2205.05296), and is decided by the rules of
:mod:`randml_core.report.claims` (fixed 2026-11-27 unless a claim carries an older date): claims about a table
("generally", "overall", "outperform") by the Wilcoxon signed-rank test over the per-dataset mean differences
(accuracy in percentage points, RMSE relative to each dataset's target standard deviation, depth in levels,
size relative to the DT's); "in all the datasets" per dataset by the corrected resampled t-test (Nadeau &
Bengio 2003; n_test / n_train = 40/60) with Holm over the datasets, a significant win needed on every real
dataset. Real datasets, regenerated ones (our versions of the paper's generators: the 2-D sets, Friedman 1-3)
and substitutes (banknote-synthetic, california-friedman1-substitute) are decided apart; counts use the real
ones only. The paper's own table is read with the per-dataset rule on its means (no splits published).

    python -m randml_papers.slm.summary [results_dir]
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pandas as pd

from randml_core.artefacts import ArtefactSet
from randml_core.provenance import short_version
from randml_core.report import claims as C
from randml_core.report import registry as R
from randml_core.report.table_stats import report_lines

ALPHA = C.ALPHA
#: the margins / ROPEs of this paper's claims, in each quantity's units (fixed 2026-11-27)
ROPE = {"accuracy": 1.0, "rmse": 0.01, "depth": 1.0, "n_parameters": 0.1}
UNIT = {"accuracy": "pp", "rmse": "target sd", "depth": "levels", "n_parameters": "x DT's size"}
MARGINS = [
    ("accuracy (Table I)", "±1 pp (percentage points)", "a difference below one point of accuracy is not one a "
     "reader of a 2-D or UCI table would call 'more powerful'; the paper prints two decimals of %"),
    ("RMSE (Table III)", "±0.01 target sd (RMSE difference / the dataset's target standard deviation)",
     "RMSE spans 0.05 to 143 across the datasets; relative to the target's spread the differences are comparable"),
    ("depth (Table II)", "±1 level", "depth is an integer"),
    ("#parameters (Table II)", "±0.1 x DT's size (difference / the DT's mean parameter count)",
     "sizes span two orders of magnitude across datasets; 10 % of the DT's size"),
]
#: the rule dates of the claims whose rule this round left as it was
OLD_DATES = {"t1-baseline-dt": "2026-11-24", "t3-baseline-dt": "2026-11-24"}
#: Table II quantities (depth, #parameters) decided per dataset (2026-11-28): a two-sided Wilcoxon over 5 real sets
#: cannot go below p = 0.0625, so the over-datasets rule (2026-11-25) could never say held; the quantities are measured
#: on each of the 10 paired splits, so the per-set corrected t-test, Holm over the sets, decides "overall" / "generally"
#: as a majority of the sets. The earlier rule's verdict stays in slm_verdicts.jsonl.
PER_SET = {"depth", "n_parameters"}
NEW_DATES = {"t2-depth": "2026-11-28", "t2-size": "2026-11-28"}
DEVIATIONS = [
    "Protocol: 10 random 60/40 splits per dataset, hyper-parameters selected per split by 2-fold inner CV on the "
    "training part; the paper reports one split tuned with its test part in view (\"searched to achieve the "
    "performance as shown\"), so our means are lower and carry a split-to-split spread.",
    "The 2-D sets (2-new-moons, 4-new-moons, circle-and-ring) and Friedman 1-3 are our generators: the paper's "
    "are not recoverable (its Friedman parameters, D and noise, are not given); they are decided in the "
    "'regenerated' column, never as real data. Our SVR on friedman1 scores RMSE 0.63 where the paper prints "
    "1.17: the sets differ.",
    "california-housing needs a download: california-friedman1-substitute (make_friedman1 on 8 features) stands "
    "in for it offline; banknote needs a download: banknote-synthetic stands in.",
]
#: the paper's claims that are not tested here, with the reason
EXCLUDED = [
    ("the SLM model sizes are generally smaller than the DTs as well (Table II, #parameters: as t2-size)",
     "Section IV-A", "tested as t2-size"),
    ("FF-MLP / BP-MLP results on the 2-D sets (Table I)", "Table I",
     "quoted from Lin et al. 2020 via the SLM paper, not run: no code or settings for those MLPs"),
    ("SLM Forest achieves better performance and faster converge than RF (Section III-A) / SLM Boost achieves "
     "better performance and faster convergence than XGBoost (Section III-B)", "Sections III-A, III-B",
     "the same statements as the Section IV-A sentences on Table I and Figure 5: tested as t1-forest-rf, "
     "t1-boost-xgb, fig5-forest-rf, fig5-boost-xgb"),
]

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
HIGHER = {"accuracy": True, "rmse": False, "depth": False, "n_parameters": False, "gap": False}
ENSEMBLES = ("SLM Forest", "SLM Boost")
ENSEMBLES_BEST_WORDS = "The ensembles of SLM are generally more powerful than those of DT. They give the best performance " \
                       "among all benchmarking methods."
#: Figure 5's claims (registered 2026-11-28): (id, the paper's words, where, the curve's metric, SLM ensemble, DT ensemble)
CONVERGE = [
    ("fig5-forest-rf", "We see that SLM Forest converges faster than RF.",
     "Section IV-A, Fig. 5(a)-(c) (accuracy vs number of trees): SLM Forest vs RF", "accuracy", "SLM Forest", "RF"),
    ("fig5-boost-xgb", "Again, we see that SLM Boost converges faster than XGBoost.",
     "Section IV-A, Fig. 5(a)-(c) (log loss vs number of trees): SLM Boost vs XGBoost", "log_loss", "SLM Boost",
     "XGBoost"),
]
CONVERGE_UNIT = {"accuracy": "pp of accuracy", "log_loss": "nats of log loss"}
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
    if metric == "accuracy" and metric in f.columns:
        return f.assign(accuracy=100.0 * f["accuracy"].astype(float))  # percentage points, as the paper prints
    return f if metric in f.columns else None


def _published(metric: str, tables: dict) -> pd.DataFrame | None:
    if metric in SIZE_COLUMNS:
        t = _pivot(tables.get("slm_table2"), "quantity", "paper")
        if t is None:
            return None
        _, slm, dt = SIZE_COLUMNS[metric]
        return t.rename(columns={slm: "SLM Baseline", dt: "DT"}) if {slm, dt} <= set(t.columns) else None
    return _pivot(tables.get(TABLE_OF[metric]), "model", "paper")


def _datasets(metric: str, folds: dict) -> dict[str, list[str]]:
    """The datasets with results for ``metric``'s table by kind (real / regenerated / substitute)."""
    f = _folds_for(metric, folds)
    return C.by_kind(list(dict.fromkeys(f["dataset"])) if f is not None else [])


def _scale(metric: str, f: pd.DataFrame, datasets) -> dict | None:
    """The per-dataset scale of ``metric``'s differences: the target's sd (RMSE), the DT's mean size (#params)."""
    if metric == "rmse":
        return C.target_spread(datasets)
    if metric == "n_parameters":
        return f[f["model"] == "DT"].groupby("dataset")["n_parameters"].mean().to_dict()
    return None


def _paper_effect(pub: pd.DataFrame | None, a: str, b: str, hib: bool, datasets, scale: dict | None) -> float | None:
    """The paper's own mean difference over ``datasets`` (oriented: > 0 = a better; scaled as ours)."""
    if pub is None or a not in pub or b not in pub:
        return None
    rows = pub.loc[[d for d in datasets if d in pub.index]]
    diff = ((rows[a] - rows[b]) * (1 if hib else -1)).dropna()
    if scale is not None:
        diff = pd.Series({d: v / scale[d] for d, v in diff.items() if scale.get(d, 0) > 0})
    return float(diff.mean()) if len(diff) else None


def _best_on(folds: pd.DataFrame | None, model, datasets: list[str], metric: str = "rmse",
             missing: str = "no per-split artefact slm_table3_folds.csv") -> C.Decision:
    """"``model`` (or the better of a group) is the best on each of ``datasets``": the shared rule
    :func:`randml_core.report.claims.best_among` with ``need="all"``."""
    return C.best_among(folds, model, datasets, metric, need="all", higher_is_better=HIGHER[metric], missing=missing)


def _decide_beats(f, a, b, metric, need, kinds, pub):
    """(real, regenerated, substitute) decisions of one "beats" claim: over datasets for a table-level claim,
    per dataset for "in all the datasets"."""
    hib = HIGHER[metric]
    out = []
    for k in C.KINDS:
        ds = kinds[k]
        if not ds:
            out.append(None if k != "real" else C.not_tested("no real dataset run here"))
        elif need == "all" or metric in PER_SET:
            out.append(C.beats(f, a, b, metric, ds, need=need, higher_is_better=hib))
        else:
            scale = _scale(metric, f, ds)
            out.append(C.beats_over_datasets(f, a, b, metric, ds, unit=UNIT[metric], rope=ROPE[metric],
                                             higher_is_better=hib, scale=scale,
                                             paper_effect=_paper_effect(pub, a, b, hib, ds, scale)))
    return out


def decide(results_dir: Path) -> list[C.Claim]:
    tdir = results_dir / "tables"
    tables = {n: _read(tdir / f"{n}.csv") for n in ("slm_table1", "slm_table2", "slm_table3")}
    folds = {n: _read(tdir / f"{n}_folds.csv") for n in ("slm_table1", "slm_table3")}
    out = []
    for cid, words, where, metric, a, b, need in BEATS:
        hib = HIGHER[metric]
        f = _folds_for(metric, folds)
        kinds = _datasets(metric, folds)
        if need == "all" or metric in PER_SET:
            rule = (f"{'higher' if hib else 'lower'} {metric} is better; per dataset the corrected resampled t-test on "
                    f"the paired splits, alpha = {ALPHA}, Holm over the datasets; held on {NEED_WORDS[need]}"
                    + (" (per set since 2026-11-28: the Wilcoxon over 5 real sets could not reach p < 0.05 whatever "
                       "the data; the earlier rule's verdict is in the verdict history)" if metric in PER_SET else ""))
        else:
            rule = (f"a claim about the table: the per-dataset mean differences ({'higher' if hib else 'lower'} "
                    f"{metric} is better; in {UNIT[metric]}), two-sided Wilcoxon signed-rank test over the datasets, "
                    f"alpha = {ALPHA}: held if significant for {a}, not held if significant for {b}, else "
                    "inconclusive (no evidence); sign test and Bayesian signed-rank beside it")
        pub = _published(metric, tables)
        if f is None:
            miss = f"no per-split artefact {TABLE_OF[metric]}_folds.csv" + (
                f" with column {SIZE_COLUMNS[metric][0]}" if metric in SIZE_COLUMNS else "")
            real_d, regen_d, sub_d = C.not_tested(miss), None, None
        else:
            real_d, regen_d, sub_d = _decide_beats(f, a, b, metric, need, kinds, pub)
        subs = {d for d in (pub.index if pub is not None else []) if C.data_kind(d) == "substitute"}
        pub_d = C.beats_on_means(pub, a, b, hib, [d for d in (pub.index if pub is not None else []) if d not in subs],
                                 need=need)
        margin = ("-" if need == "all" or metric in PER_SET
                  else f"ROPE ±{ROPE[metric]:g} {UNIT[metric]} (Bayesian signed-rank, beside)")
        out.append(C.Claim(cid, words, where, rule, real_d, sub_d, pub_d, regenerated=regen_d, margin=margin,
                           date=NEW_DATES.get(cid, OLD_DATES.get(cid, C.RULES_DATE))))
    f3 = folds["slm_table3"]
    kinds3 = C.by_kind(BEST_DATASETS)
    run3 = C.by_kind(list(dict.fromkeys(f3["dataset"]))) if f3 is not None else {k: [] for k in C.KINDS}
    best = _best_on(f3, "SLR Boost", kinds3["real"])
    regen_best = _best_on(f3, "SLR Boost", kinds3["regenerated"]) if kinds3["regenerated"] else None
    subs_best = _best_on(f3, "SLR Boost", run3["substitute"]) if run3["substitute"] else None
    pub3 = _pivot(tables.get("slm_table3"), "model", "paper")
    pub_best = C.not_tested("no published Table III")
    if pub3 is not None:
        named = [d for d in BEST_DATASETS if C.data_kind(d) != "substitute"]
        rows = pub3.loc[[d for d in named if d in pub3.index]].drop(columns=[c for c in pub3 if pub3[c].isna().all()])
        wins = [d for d, r in rows.iterrows() if r.dropna().idxmin() == "SLR Boost"]
        pub_best = C.Decision(C.HELD if len(wins) == len(rows) else C.NOT_HELD,
                              f"means only: lowest RMSE on {len(wins)} of {len(rows)} named datasets")
    out.append(C.Claim("t3-boost-best", BEST_WORDS, "Section V-B, Table III (RMSE): SLR Boost best on five sets",
                       f"a per-dataset claim: on each named dataset run, a lower RMSE than every other regressor "
                       f"(corrected resampled t-test, alpha = {ALPHA}, Holm over the rivals): held if shown against "
                       "every rival on every dataset, not held if a rival is significantly lower on one, else "
                       "inconclusive (no evidence)", best, subs_best,
                       pub_best, regenerated=regen_best, margin="-", date=C.RULES_DATE))
    out.append(_ensembles_best(folds["slm_table1"], tables.get("slm_table1")))
    out += _convergence_claims(_read(tdir / "slm_fig5_convergence.csv"))
    return out


def _ensembles_best(f1: pd.DataFrame | None, pub_long: pd.DataFrame | None) -> C.Claim:
    """Table I: "[the SLM ensembles] give the best performance among all benchmarking methods" (registered 2026-11-28)."""
    kinds = C.by_kind(list(dict.fromkeys(f1["dataset"]))) if f1 is not None else {k: [] for k in C.KINDS}
    parts = {k: (_best_on(f1, ENSEMBLES, kinds[k], "accuracy", "no per-split artefact slm_table1_folds.csv")
                 if kinds[k] else None) for k in C.KINDS}
    pub = _pivot(pub_long, "model", "paper")
    pub_d = C.not_tested("no published Table I")
    if pub is not None and set(ENSEMBLES) <= set(pub.columns):
        rows = pub.loc[[d for d in pub.index if C.data_kind(d) != "substitute"]]
        wins = [d for d, r in rows.iterrows() if r.dropna().idxmax() in ENSEMBLES]
        pub_d = C.Decision(C.HELD if len(wins) == len(rows) else C.NOT_HELD,
                           f"means only: an SLM ensemble has the highest accuracy on {len(wins)} of {len(rows)} datasets")
    rule = ("a per-dataset claim: on each real Table I dataset, the SLM ensemble (SLM Forest or SLM Boost) with the "
            "higher mean accuracy there against every other classifier run (LSVM, SVM/RBF, DT, SLM Baseline, RF, "
            f"XGBoost; the MLPs are not run), corrected resampled t-test on the paired splits, alpha = {ALPHA}, Holm "
            "over the rivals of the dataset: held if significantly better than every rival on every dataset, not held "
            "if a rival is significantly better on one, else inconclusive (no evidence); picking the better ensemble "
            "per dataset on the same splits favours the claim, which the rule accepts")
    return C.Claim("t1-ensembles-best", ENSEMBLES_BEST_WORDS, "Section IV-A, Table I (accuracy): the SLM ensembles vs "
                   "every other classifier", rule, parts["real"] or C.not_tested("no real dataset run here"),
                   parts["substitute"], pub_d, regenerated=parts["regenerated"], margin="-", date="2026-11-28")


def _convergence_claims(conv: pd.DataFrame | None) -> list[C.Claim]:
    """Figure 5: "SLM Forest converges faster than RF", "SLM Boost converges faster than XGBoost" (registered
    2026-11-28), on the per-split distances of ``slm_fig5_convergence.csv`` (:func:`randml_papers.slm.fig5.convergence`)."""
    out = []
    for cid, words, where, metric, a, b in CONVERGE:
        part = conv[conv["metric"] == metric] if conv is not None else None
        rule = (f"per outer split, how far each curve stays from where it ends: gap = mean over k = 1..K trees of "
                f"|m(k) - m(K)| ({metric}, in {CONVERGE_UNIT[metric]}; K = the pair's common largest number of trees: "
                f"both curves read over the same trees), lower = converges sooner; per dataset of the figure (Wine, "
                f"B.C.W., Pima) the corrected resampled t-test on the paired splits, alpha = {ALPHA}, Holm over the "
                f"datasets: held on a significantly smaller gap for {a} on every real dataset (and no loss), not held "
                f"if {b}'s is significantly smaller on one, else inconclusive; the first k after which a curve stays "
                "within 1 pp / 0.01 nats of m(K) is printed beside it")
        if part is None or part.empty:
            real = C.not_tested("no per-split artefact slm_fig5_convergence.csv (make slm-fig5)")
            regen = subs = None
        else:
            kinds = C.by_kind(list(dict.fromkeys(part["dataset"])))
            got = {}
            for k in C.KINDS:
                if not kinds[k]:
                    got[k] = C.not_tested("no real dataset run here") if k == "real" else None
                    continue
                got[k] = C.beats(part, a, b, "gap", kinds[k], need="all", higher_is_better=False)
                got[k].details += [f"{ds}: first k within tolerance of m(K), mean over splits: " + ", ".join(
                    f"{m} {g[g['model'] == m]['k_within'].mean():.1f}" for m in (a, b))
                    + f" (K = {int(g['horizon'].iloc[0])})"
                    for ds, g in part[part["dataset"].isin(kinds[k])].groupby("dataset", sort=True)]
            real, regen, subs = got["real"], got["regenerated"], got["substitute"]
        out.append(C.Claim(cid, words, where, rule, real, subs, C.not_tested("a figure: no numbers published"),
                           regenerated=regen, margin="-", date="2026-11-28"))
    return out


#: this paper's claim registry (rules registered before their verdicts) and the functions its rules run
REGISTRY = Path(__file__).with_name("claims_registry.jsonl")
RULE_CODE = (decide, _decide_beats, _best_on, _scale, _paper_effect, _folds_for, _datasets, _ensembles_best,
             _convergence_claims)


def claims_for(results_dir: Path) -> list[C.Claim]:
    """The claims decided on ``results_dir`` (the registry's ``register`` command calls it; it prints no verdict)."""
    return decide(Path(results_dir))


def _kinds_of(results_dir: Path, table: str) -> dict[str, list[str]]:
    f = _read(results_dir / "tables" / f"{table}_folds.csv")
    return C.by_kind(list(dict.fromkeys(f["dataset"])) if f is not None else [])


def _all_datasets(results_dir: Path) -> list[str]:
    return [d for t in ("slm_table1", "slm_table3") for ks in _kinds_of(results_dir, t).values() for d in ks]


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
           "Real datasets, regenerated ones (our versions of the paper's generators, not recoverable from the paper) "
           "and substitutes are decided apart, never pooled; the counts above use the real datasets only.", "",
           "Generated from results/tables/slm_table{1,3}_folds.csv and slm_table{1,2,3}.csv (time and code version: "
           "`slm_report.meta.json`).", "",
           "## Margins and ROPEs (fixed 2026-11-27)", "", *C.margins_lines(MARGINS), "",
           "Power: each claim prints the minimal detectable effect of its test at its sample size (alpha 0.05, power "
           f"0.8; `randml_core.stats.power`). Real datasets run here: {len(_kinds_of(results_dir, 'slm_table1')['real'])} "
           f"in Table I, {len(_kinds_of(results_dir, 'slm_table3')['real'])} in Table III; a test over datasets "
           "needs >= 6 for p < 0.05 (Wilcoxon and sign test), so with fewer the table-level claims are "
           "inconclusive (underpowered) on real data whatever the differences.", "",
           "## Data", "", *[f"- Table {t}: {C.kinds_line(_kinds_of(results_dir, n))}" for t, n in
                            (("I", "slm_table1"), ("III", "slm_table3"))], "",
           "## Deviations from the paper", "",
           *C.deviations_lines(_all_datasets(results_dir), DEVIATIONS), "",
           "## Claim inventory", "", *C.inventory_lines(claims, EXCLUDED), "",
           *R.section(claims, REGISTRY, RULE_CODE, __name__ if __name__ != "__main__" else "randml_papers.slm.summary"),
           *C.history(claims, previous, tdir / "slm_verdicts.jsonl", tdir / "slm_report.md"),
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
