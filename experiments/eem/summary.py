"""The EEM paper's claims, decided with their uncertainty: ``results/tables/eem_report.md`` and ``eem_claims.json``.

Usage: ``python -m randml_papers.eem.summary [--keep-store-parts] [results/tables]`` (the last step of ``make eem``;
``--keep-store-parts`` regenerates the report without the stores, carrying Table 6 / Table 1 / sources over from
the committed report). The Table 4 / 5
and Figure 3 claims are decided by :mod:`randml_core.report.claims` on the per-split artefacts the table
modules write (paired: every model is scored on the same outer folds at the setting the table shows):
``eem_table4_folds.csv`` (UCI part), ``eem_table4_unbalanced_folds.csv`` (unbalanced part, GMean and fit
seconds), ``eem_table5_folds.csv`` (CPU seconds of standalone WELM-x / EEM-x fits at every h),
``eem_fig3_folds.csv`` (EEM-rbf at every h); ``eem_table4_nested_folds.csv`` /
``eem_table4_r10_folds.csv`` give the selection-sensitivity rows. Verdicts use the real datasets only; the
named substitutes (``stand_in_for``) get their own column. Table 6, Table 1 and the data sources are read from
the stores (``RANDML_STORE``), as before. Each claim quotes the paper (Czarnecki, Podolak 2015, Section 7).
"""
from __future__ import annotations

import math
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from randml_core.artefacts import ArtefactSet
from randml_core.provenance import REPO_ROOT, short_version
from randml_core.report import claims as C
from randml_core.report import registry as R
from randml_core.report.table_stats import report_lines
from randml_core.report.tables import select_best, select_by_criterion
from randml_core.stats import holm
from randml_core.stats.margins import margin_test
from randml_core.stats.power import mde_wilcoxon, sign_test, tost_min_margin

STORE = os.environ.get("RANDML_STORE", str(REPO_ROOT / "results" / "store"))
OUT = REPO_ROOT / "results" / "tables"
ALPHA = C.ALPHA

#: Section 7.2's nine highly unbalanced sets and Section 7.3's five extremely unbalanced ones (Table 3)
HIGHLY = ["abalone7", "arrhythmia", "car-evaluation", "ecoli", "libras-move", "oil-spill", "sick-euthyroid",
          "solar-flare", "spectrometer"]
EXTREMELY = ["forest-cover", "isolet", "mammography", "protein-homology", "webpages"]
ACTS = ("sig", "nsig", "rbf")
#: "about half": the share of experiments EEM_x wins nearer to 1/2 than to 0 or to 1
HALF_BAND = (1 / 4, 3 / 4)
#: the GMean margin / ROPE of every EEM claim that needs one ("comparable", "minor effect"), fixed 2026-11-27
GMEAN_MARGIN = 0.01
#: Figure 3 "minor effect": equivalence margin in GMean between h = 100 and every larger h, over the datasets; the
#: sensitivity table adds half, double and the previous rule's 0.05
STABLE_MARGIN = GMEAN_MARGIN
STABLE_MARGINS = (0.005, 0.01, 0.02, 0.05)
STABLE_FROM = 100
#: the rule dates of the claims whose rules issue 31 left as they were
OLD_DATES = {"t4-uci-sig": "2026-11-25", "t4-unb-half": "2026-11-25", "t5-faster-svm": "2026-11-25",
             "t5-faster-lssvm": "2026-11-25"}
MARGINS = [
    ("GMean (Table 4, Figure 3)", f"±{GMEAN_MARGIN:g} GMean (fixed 2026-11-27)",
     "one point of GMean on a 0..1 scale; the paper's 'comparable' and 'minor effect' give no number"),
    ("CPU seconds of a fit (Table 5, 'comparable')", "±0.2 s (fixed 2026-11-25; CPU seconds at the same h since "
     "2026-11-27)", "the paper's own 'differences on the level of 0.1-0.2 are not significant'; our machine's seconds, "
     "not the paper's Xeon's"),
    ("fit-time ratio", "10x ('order of magnitude'), 1.5x ('1.5-2x') (fixed 2026-11-25)", "the paper's words"),
]
DEVIATIONS = [
    "Hyper-parameters: the headline Table 4 uses the paper's rule (the setting with the best mean outer-fold GMean, "
    "optimistic for every model); `eem_table4_nested` selects on inner folds and `eem_table4_r10` repeats the "
    "paper's rule 10 times; the Section 7.1 verdicts under both are in the sensitivity table.",
    "The text copy of the paper lost the bodies of Tables 1 and 3-6: no published numbers are judged.",
    "The Section 7.3 sets (forest-cover, isolet, mammography, protein-homology, webpages) and three Section 7.2 "
    "sets need a download: offline they are replaced by named substitutes, decided apart.",
    "Timing (Table 5): the paper times each model at its selected setting; our selections put EEM at h = 1000 and "
    "WELM at h = 50-100 on several sets (100-400x the work), so EEM-x and WELM-x are compared at the same h, on the "
    "CPU seconds of standalone fits (`eem_table5`, every h of the paper's grid). SVM-rbf and LS-SVM-rbf share no "
    "axis with EEM: they stay compared at each model's selected setting, on the wall seconds of the grid run "
    "(`eem_table4_unbalanced_folds.csv`); those two claims rest on substitutes only (the Section 7.3 sets need a "
    "download).",
]
EXCLUDED = [
    ("As one can see in Table 1, in small datasets (first part of the table) the correlation is generally high, "
     "with some exceptions (like sonar, splice, liver disorders and diabetes).", "Section 7, Table 1",
     "reported descriptively (Table 1 section below, from the store); 'generally high' has no threshold to test"),
    ("isolet: every sigmoid unit saturates (Section 7.3)", "Section 7.3",
     "reported descriptively from Table 1's store; isolet needs a download"),
    ("Table 3: the datasets' shapes and imbalance ratios", "Table 3", "a data description, checked by the registry"),
    ("For larger datasets (like abalone7 or sick euthyroid) proposed methods not only outperform SVM and LS-SVM in "
     "terms of robustness but there is also noticeable difference between their training times and ELMs.",
     "Section 7.2, Table 5", "the exemption of these two sets from 't5-comparable-elm' (they are left out of it); "
     "'noticeable' gives no margin to test; their CPU seconds at every h are in `eem_table5.md`"),
]
#: Table 5 "differences on the level of 0.1-0.2 [s] are not significant": equivalence margin in fit seconds
TIME_MARGIN_S = 0.2
#: Section 7.3 "order of magnitude faster than SVM-related models" and "even 1.5-2x faster than ELM"
SVM_FACTOR, ELM_FACTOR = 10.0, 1.5
#: Section 7.2 exempts these from "comparable": "For larger datasets (like abalone7 or sick euthyroid) ... there is
#: also noticeable difference between their training times and ELMs"
TIME_EXEMPT = ("abalone7", "sick-euthyroid")
#: the h at which "1.5-2x faster than ELM" is decided: the largest of the paper's grid, where the solves dominate a
#: fit (the ratio at every h is in eem_table5.md)
H_FASTER = 1000

TARGETS = {"eem_table4": "make table4", "eem_table4_nested": "make table4",
           "eem_table4_r10": "make table4-r10", "eem_table4_unbalanced": "make table4-unbalanced (~2.7 h)",
           "eem_fig3": "make fig3", "eem_table5": "make table5 (~8 min)",
           "eem_table5_svm": "make table5-svm (~2 min)"}

WORDS = {
    "t4-uci-rbf": ("On such data, EEM seems to perform noticeably better than ELM when using RBF activation function "
                   "(see Table 4)", "Section 7.1, Table 4 (UCI part): EEM-rbf vs WELM-rbf"),
    "t4-uci-sig": ("and rather similar when using sigmoid one—in such a scenario, for some datasets, ELM achieves "
                   "better results while for other EEM wins.",
                   "Section 7.1, Table 4 (UCI part): EEM-sig vs WELM-sig and EEM-nsig vs WELM-nsig"),
    "t4-uci-eekm-lssvm": ("Results obtained for EEKM are comparable with those obtained by LS-SVM and SVM, in both "
                          "cases proposed method achieves better results on about third of problems, on the third it "
                          "draws and on a third it loses.", "Section 7.1, Table 4 (UCI part): EEKM-rbf vs LS-SVM-rbf"),
    "t4-uci-eekm-svm": ("Results obtained for EEKM are comparable with those obtained by LS-SVM and SVM, in both "
                        "cases proposed method achieves better results on about third of problems, on the third it "
                        "draws and on a third it loses.", "Section 7.1, Table 4 (UCI part): EEKM-rbf vs SVM-rbf"),
    "t4-unb-half": ("We can see better results in about half of experiments if we fix a particular activation "
                    "function/kernel (so we compare ELM_x with EEM_x and LS-SVM_x with EEKM_x).",
                    "Section 7.2, Table 4 (highly unbalanced part): EEM-x vs WELM-x (sig, nsig, rbf), EEKM-rbf vs "
                    "LS-SVM-rbf"),
    "t6-dcs-gauss": ("First, one can notice on Table 6 that such entropic criterion works well for EEM, EEKM and "
                     "Support Vector Machines. On the other hand, it is not very well suited for ELM models.",
                     "Section 7.4, Table 6 (a): D_CS of Gaussians"),
    "t6-dcs-kde": ("First, one can notice on Table 6 that such entropic criterion works well for EEM, EEKM and "
                   "Support Vector Machines. On the other hand, it is not very well suited for ELM models.",
                   "Section 7.4, Table 6 (b): D_CS of KDEs"),
    "fig3-stable": ("Once machine gets enough neurons (around 100 in case of tested datasets), further increasing of "
                    "the feature space dimension has minor effect on the generalization capabilities of the model.",
                    "Section 7.5, Figure 3: EEM-rbf, h = 100..500"),
    "t5-comparable-elm": ("Table 5 shows that training time of Extreme Entropy Machines is comparable with the ones "
                          "obtained by Extreme Learning Machines (differences on the level of 0.1–0.2 are not "
                          "significant on such datasets' sizes).",
                          "Section 7.2, Table 5 (highly unbalanced sets): EEM-x vs WELM-x CPU seconds at the same h"),
    "t5-faster-svm": ("In the same time, EEM and EEKM were trained significantly faster, as Table 5 shows, it was "
                      "order of magnitude faster than SVM-related models",
                      "Section 7.3, Table 5 (extremely unbalanced sets): SVM-rbf vs EEM-rbf fit seconds"),
    "t5-faster-lssvm": ("In the same time, EEM and EEKM were trained significantly faster, as Table 5 shows, it was "
                        "order of magnitude faster than SVM-related models",
                        "Section 7.3, Table 5 (extremely unbalanced sets): LS-SVM-rbf vs EEM-rbf fit seconds"),
    "t5-faster-elm-largest": ("and even 1.5-2x faster than ELM.",
                              "Section 7.3, Table 5 (extremely unbalanced sets): WELM-x vs EEM-x CPU seconds at "
                              "the same h"),
    # registered 2026-11-28 (issue 42: claims missing from the inventory), before any test of them was run
    "t4-uci-best-some": ("It appears that contrary to ELM, proposed methods (EEM and EEKM) achieve best scores across "
                         "all considered models in some of the datasets regardless of the used activation "
                         "function/kernel (only Support Vector Machines and their least squares counterpart are "
                         "competitive in this sense).",
                         "Section 7.1, Table 4 (UCI part): the EEM family vs every other model"),
    "t73-eem-slightly-worse": ("For other activation functions, we see that EEM achieves slightly worse results than "
                               "ELM.", "Section 7.3, Table 4 (extremely unbalanced part): EEM-x vs WELM-x, x = nsig, "
                               "rbf"),
    "t73-eekm-elm": ("On the other hand, scores of EEKM generally outperform the ones obtained by ELM",
                     "Section 7.3, Table 4 (extremely unbalanced part): EEKM-rbf vs WELM-x (sig, nsig, rbf)"),
    "t73-eekm-close-svm": ("and are very close to the ones obtained by well-tuned SVM and LS-SVM.",
                           "Section 7.3, Table 4 (extremely unbalanced part): EEKM-rbf vs SVM-rbf"),
    "t73-eekm-close-lssvm": ("and are very close to the ones obtained by well-tuned SVM and LS-SVM.",
                             "Section 7.3, Table 4 (extremely unbalanced part): EEKM-rbf vs LS-SVM-rbf"),
    "t5-scales-better": ("This suggests that even though ELM and EEM are quite similar and on small datasets are "
                         "equally fast, EEM can better scale up to truly big datasets. [Conclusions:] we showed that "
                         "our method scales better to truly big datasets (consisting of hundreds of thousands of "
                         "examples) without sacrificing results quality.",
                         "Section 7.2 and Conclusions, Table 5: WELM-x / EEM-x CPU seconds against the training size"),
}
#: the claims registered 2026-11-28 (issue 42)
NEW_DATES = {c: "2026-11-28" for c in ("t4-uci-best-some", "t73-eem-slightly-worse", "t73-eekm-elm", "t73-eekm-close-svm",
                                       "t73-eekm-close-lssvm", "t5-scales-better")}
#: t5-faster-svm / -lssvm decided on standalone CPU seconds at the selected settings (issue 42; the 2026-11-25 rule
#: used the grid run's wall seconds, which include work shared between cells)
NEW_DATES.update({"t5-faster-svm": "2026-11-28", "t5-faster-lssvm": "2026-11-28"})
#: the EEM family ("proposed methods (EEM and EEKM)") and "slightly" worse: a GMean band (registered 2026-11-28)
EEM_FAMILY = ("EEM-sig", "EEM-nsig", "EEM-rbf", "EEKM-rbf")
SLIGHT_MARGIN = 0.05
#: Section 7.3's "other activation functions" than the sigmoid whose saturation on isolet the sentence before explains
OTHER_ACTS = ("nsig", "rbf")


# --- the fold artefacts ----------------------------------------------------------------------------------

def _blank(s: pd.Series) -> pd.Series:
    """True where a ``stand_in_for`` cell is empty (a real dataset)."""
    return s.isna() | (s.astype(str).str.strip() == "")


def read_folds(tables: Path, stem: str) -> pd.DataFrame | None:
    """``<stem>_folds.csv`` with a boolean ``stand_in`` column, or None when the file is missing."""
    path = Path(tables) / f"{stem}_folds.csv"
    if not path.is_file():
        return None
    f = pd.read_csv(path)
    if "stand_in_for" not in f:
        f["stand_in_for"] = ""
    f["stand_in_for"] = f["stand_in_for"].where(~_blank(f["stand_in_for"]), "")
    return f.assign(stand_in=f["stand_in_for"] != "")


def _missing(stem: str) -> C.Decision:
    return C.not_tested(f"`{stem}_folds.csv` missing: run `{TARGETS[stem]}`")


def _sets(f: pd.DataFrame, originals=None) -> tuple[list[str], list[str]]:
    """(real datasets, substitutes) in ``f``; with ``originals``, the real ones among them and the substitutes
    that stand in for one of them."""
    real = sorted(f.loc[~f["stand_in"], "dataset"].unique())
    sub = f.loc[f["stand_in"], ["dataset", "stand_in_for"]].drop_duplicates()
    if originals is not None:
        real = [d for d in real if d in originals]
        sub = sub[sub["stand_in_for"].isin(originals)]
    return real, sorted(sub["dataset"].unique())


def _kinds(f: pd.DataFrame) -> dict[str, list[str]]:
    """The datasets of ``f`` by kind (real / regenerated / substitute; :func:`claims.data_kind`)."""
    stand = dict(zip(f["dataset"], f["stand_in_for"]))
    return C.by_kind(sorted(f["dataset"].unique()), stand)


def experiments(f: pd.DataFrame, pairs, datasets) -> pd.DataFrame:
    """One frame of several model pairs: each (dataset, pair) becomes an experiment ``"<dataset>: <a> vs <b>"``
    with the models renamed ``A`` / ``B``, so one :func:`claims.paired_tests` call tests (and Holm-adjusts
    over) every experiment of a claim."""
    parts = []
    for a, b in pairs:
        rows = f[f["dataset"].isin(list(datasets)) & f["model"].isin([a, b])]
        if rows.empty:
            continue
        parts.append(rows.assign(dataset=rows["dataset"] + f": {a} vs {b}",
                                 model=rows["model"].map({a: "A", b: "B"})))
    return pd.concat(parts, ignore_index=True) if parts else f.iloc[0:0]


def _outcomes(f: pd.DataFrame, pairs, datasets, metric: str = "gmean") -> pd.DataFrame:
    return C.paired_tests(experiments(f, pairs, datasets), "A", "B", metric, higher_is_better=True)


def _p(p: float) -> str:
    return "p < 0.0001" if p < 1e-4 else f"p = {p:.4f}"


def _detail(t: pd.DataFrame) -> list[str]:
    word = {"a": "EEM side better", "b": "EEM side WORSE", "none": "no significant difference"}
    return [f"{r.dataset}: {r.mean_a:.3f} vs {r.mean_b:.3f} (diff {r.mean_diff:+.3f}, corrected t-test {_p(r.p)}, "
            f"Holm {_p(r.p_holm)}, {r.n_folds} splits): {word[r.outcome]}" for r in t.itertuples()]


def _tally(t: pd.DataFrame) -> tuple[int, int, int, int]:
    n, b, w = len(t), int((t["outcome"] == "a").sum()), int((t["outcome"] == "b").sum())
    return n, b, n - b - w, w


def _tested(f: pd.DataFrame, pairs, datasets, missing: str = "no paired splits stored"):
    """The paired tests of ``pairs`` on ``datasets`` and their tally (n, better, draw, worse), or the
    not-tested Decision when there is nothing to test."""
    datasets = list(datasets)
    if not datasets:
        return C.not_tested("no real dataset in the folds")
    t = _outcomes(f, pairs, datasets)
    if t.empty:
        return C.not_tested(missing)
    return t, _tally(t)


# --- the rules ---------------------------------------------------------------------------------------------

def comparable_thirds(f: pd.DataFrame, a: str, b: str, datasets, margin: float = GMEAN_MARGIN) -> C.Decision:
    """"comparable ... better on about a third, draws on a third, loses on a third": 'comparable' decided over the
    datasets (:func:`claims.equivalent_over_datasets`, TOST of the mean GMean difference against ±``margin``); the
    per-dataset outcomes (corrected t-test, Holm) printed beside it and not counted: a non-significant test is
    no evidence of a draw, and those tests' MDE is far above the differences."""
    d = C.equivalent_over_datasets(f, a, b, "gmean", datasets, margin, unit="GMean", higher_is_better=True)
    got = _tested(f, [(a, b)], datasets, f"no paired splits of {a} and {b} stored")
    if isinstance(got, C.Decision) or d.verdict == C.NOT_TESTED:
        return d
    t, (n, better, draw, worse) = got
    d.evidence += (f"; per dataset (not counted): {a} significantly better on {better}, no significant difference "
                   f"on {draw}, worse on {worse}")
    mde = C.per_dataset_power(f, a, b, "gmean", datasets)
    d.power = d.power + (f"; {mde}" if mde else "")
    d.details += _detail(t)
    return d


def about_half(f: pd.DataFrame, pairs, datasets) -> C.Decision:
    """"better results in about half of experiments": an experiment is a (dataset, fixed activation / kernel)
    pair, tested on its paired splits (Holm over the experiments). The share EEM_x truly wins lies between
    better / n (only the significant wins) and (n - worse) / n (every experiment not significantly lost). Held if
    that whole interval is inside :data:`HALF_BAND`; not held if it lies wholly above or below it; else
    inconclusive."""
    got = _tested(f, pairs, datasets)
    if isinstance(got, C.Decision):
        return got
    t, (n, better, draw, worse) = got
    low, high = better / n, (n - worse) / n
    lo, hi = HALF_BAND
    verdict = (C.HELD if low >= lo and high <= hi else
               C.NOT_HELD if low > hi or high < lo else C.INCONCLUSIVE)
    ev = (f"{n} experiments ({len(set(d.split(':')[0] for d in t['dataset']))} dataset(s) x fixed activation/kernel): "
          f"EEM side significantly better on {better}, no significant difference on {draw}, worse on {worse}: "
          f"share won between {low:.2f} and {high:.2f}")
    # held is within reach when some split of n experiments into wins and losses puts the interval in the band
    # (n >= 2: a corrected t-test on the paired splits can reach any p)
    return C.Decision(verdict, ev, _detail(t), _experiment_power(f, pairs, datasets), "no margin decides this rule",
                      best_p=0.0 if n >= 2 else 1.0)


def _experiment_power(f: pd.DataFrame, pairs, datasets) -> str:
    e = experiments(f, pairs, datasets)
    return C.per_dataset_power(e, "A", "B", "gmean", sorted(e["dataset"].unique()), unit="GMean") if len(e) else ""


def both_ways(f: pd.DataFrame, pairs, datasets) -> C.Decision:
    """"for some datasets ELM achieves better results while for other EEM wins": held if each side is
    significantly better on at least one experiment (Holm over the experiments); not held if one side is
    significantly better on more than half and the other on none (one-sided); else inconclusive."""
    got = _tested(f, pairs, datasets)
    if isinstance(got, C.Decision):
        return got
    t, (n, better, draw, worse) = got
    verdict = (C.HELD if better and worse else
               C.NOT_HELD if (2 * better > n and not worse) or (2 * worse > n and not better) else C.INCONCLUSIVE)
    return C.Decision(verdict, f"{n} experiments: EEM side significantly better on {better}, worse on {worse}, no "
                               f"significant difference on {draw}", _detail(t), _experiment_power(f, pairs, datasets),
                      "no margin decides this rule", best_p=0.0 if n >= 2 else 1.0)  # held: a win and a loss


def stability(f: pd.DataFrame, datasets, margin: float = STABLE_MARGIN, start: int = STABLE_FROM, *,
              _sensitivity: bool = True) -> C.Decision:
    """"further increasing [h beyond about 100] has minor effect", a claim about the tested datasets: for every
    h > ``start`` the per-dataset mean GMean(h) - GMean(``start``) (over the outer splits), two one-sided tests
    over the datasets against ±``margin`` (datasets as replicates). Held if equivalence is shown at every h (an
    intersection-union test: no multiplicity correction); not held if at some h the mean difference is
    significantly outside the margin (Holm over the h); else inconclusive."""
    datasets = list(datasets)
    if not datasets:
        return C.not_tested("no dataset in the folds")
    m = f[f["dataset"].isin(datasets)].groupby(["dataset", "h"])["gmean"].mean().unstack()
    if start not in m.columns:
        return C.not_tested(f"no paired splits at h = {start} and above")
    d = m.sub(m[start], axis=0).loc[:, [h for h in m.columns if h > start]].dropna(how="all")
    if d.empty or d.shape[1] == 0:
        return C.not_tested(f"no paired splits at h = {start} and above")
    details = [f"{ds}: largest |GMean(h) - GMean({start})| {abs(r).max():.3f} at h = {int(r.abs().idxmax())}, mean "
               f"over h {r.mean():+.3f}" for ds, r in d.iterrows()]
    n = len(d)
    if n < 2:
        return C.Decision(C.INCONCLUSIVE, "1 dataset: a test over datasets needs >= 2", details,
                          "underpowered: no test over 1 dataset", best_p=1.0)
    rows = []
    for h in d.columns:
        x = d[h].dropna().to_numpy(float)
        if x.size < 2:
            continue
        iv = margin_test(x, -margin, margin)
        below = margin_test(x, -math.inf, -margin).p_below
        above = margin_test(x, margin, math.inf).p_above
        rows.append({"h": int(h), "mean": iv.mean, "high": max(abs(iv.low), abs(iv.high)), "sd": float(x.std(ddof=1)),
                     "p_equiv": max(iv.p_above, iv.p_below), "p_out": min(1.0, 2 * min(below, above))})
    t = pd.DataFrame(rows)
    t["out"] = holm(t["p_out"].to_numpy(float)) < ALPHA
    t["equiv"] = t["p_equiv"] < ALPHA
    worst = t.loc[t["mean"].abs().idxmax()]
    ev = (f"mean over {n} datasets of GMean(h) - GMean({start}): equivalent within ±{margin:g} GMean (TOST) at "
          f"{int(t['equiv'].sum())} of {len(t)} values of h > {start}; largest mean difference {worst['mean']:+.4f} at "
          f"h = {int(worst['h'])}" + (f"; significantly outside at h = {', '.join(str(h) for h in t.loc[t['out'], 'h'])}"
                                      if t["out"].any() else ""))
    verdict = C.NOT_HELD if t["out"].any() else C.HELD if t["equiv"].all() else C.INCONCLUSIVE
    smallest = [tost_min_margin(n, sd) for sd in t["sd"]]
    power = (f"smallest margin TOST establishes over {n} datasets at a true difference 0 (alpha 0.05, power 0.8): "
             f"median over h {np.median(smallest):.3g} GMean, largest {max(smallest):.3g}"
             + ("; underpowered at this margin" if np.median(smallest) > margin else ""))
    sens = ""
    if _sensitivity:
        sens = "; ".join(f"at ±{x:g} GMean: {stability(f, datasets, x, start, _sensitivity=False).verdict}"
                         for x in (margin / 2, 2 * margin))
    return C.Decision(verdict, ev, details, power, sens, best_p=0.0)  # TOST over >= 2 datasets reaches any p


def range_rule(f: pd.DataFrame, threshold: float, start: int = STABLE_FROM) -> tuple[str, float]:
    """The previous rule (no uncertainty): max - min of the mean GMean over h >= ``start`` below ``threshold`` on
    every dataset. Returns (verdict, the largest range)."""
    m = f[f["h"] >= start].groupby(["dataset", "h"])["gmean"].mean()
    if m.empty:
        return C.NOT_TESTED, float("nan")
    rng = m.groupby(level="dataset").agg(lambda s: s.max() - s.min())
    return (C.HELD if rng.max() < threshold else C.NOT_HELD), float(rng.max())


def _times(f: pd.DataFrame, pairs, datasets, value: str = "fit_seconds") -> tuple[np.ndarray, np.ndarray]:
    """Paired seconds (``value``; slow model, fast model) over the splits of ``datasets`` for each (slow, fast) pair."""
    slow, fast = [], []
    for s, q in pairs:
        rows = f[f["dataset"].isin(list(datasets)) & f["model"].isin([s, q])]
        w = rows.pivot_table(index=["dataset", "repeat", "fold"], columns="model", values=value, aggfunc="first")
        if {s, q} <= set(w.columns):
            w = w[[s, q]].dropna()
            w = w[(w[s] > 0) & (w[q] > 0)]
            slow.append(w[s].to_numpy(float))
            fast.append(w[q].to_numpy(float))
    return (np.concatenate(slow), np.concatenate(fast)) if slow else (np.array([]), np.array([]))


def _has_times(f: pd.DataFrame, value: str = "fit_seconds") -> bool:
    return value in f and f[value].notna().any()


def time_comparable(f: pd.DataFrame, datasets) -> C.Decision:
    """EEM-x and WELM-x CPU seconds (``eem_table5_folds.csv``) equivalent within ±:data:`TIME_MARGIN_S` per
    (dataset, activation, h) on the paired splits (:func:`claims.comparable`: TOST, corrected variance)."""
    datasets = list(datasets)
    if not datasets:
        return C.not_tested("no dataset of this part in the folds")
    if not _has_times(f, "cpu_seconds"):
        return C.not_tested("CPU seconds not stored per split in the folds file")
    g = f[f["dataset"].isin(datasets)]
    g = g.assign(dataset=g["dataset"] + " h=" + g["n_hidden"].astype(int).astype(str))
    e = experiments(g, [(f"EEM-{a}", f"WELM-{a}") for a in ACTS], g["dataset"].unique())
    return C.comparable(e, "A", "B", "cpu_seconds", sorted(e["dataset"].unique()), TIME_MARGIN_S,
                        higher_is_better=False, unit="experiments (dataset, activation, h)")


def time_faster(f: pd.DataFrame, pairs, datasets, factor: float, what: str, value: str = "fit_seconds") -> C.Decision:
    datasets = list(datasets)
    if not datasets:
        return C.not_tested("no dataset of this part in the folds")
    if not _has_times(f, value):
        return C.not_tested(f"{value.replace('_', ' ')} not stored per split in the folds file")
    slow, fast = _times(f, pairs, datasets, value)
    return C.faster(slow, fast, factor, what=f"{what} on {', '.join(datasets)}")


def svm_faster(svm5: pd.DataFrame, unb: pd.DataFrame | None, model: str, datasets) -> C.Decision:
    """t5-faster-svm / -lssvm: :func:`time_faster` of ``model`` over EEM-rbf on the CPU seconds of
    ``eem_table5_svm_folds.csv``, the evidence naming the sets it pools; a line per Section 7.3 set of the Table 4
    run (``unb``) without ``model`` timings says why (skipped by rule there: no setting selected)."""
    timed = sorted(set(svm5.loc[svm5["model"] == model, "dataset"]) & set(datasets))
    d = time_faster(svm5, [(model, "EEM-rbf")], timed, SVM_FACTOR, f"{model} / EEM-rbf", "cpu_seconds")
    if unb is not None:
        substitutes = bool(svm5.loc[svm5["dataset"].isin(list(datasets)), "stand_in"].all())
        ran = set(unb.loc[unb["model"] == model, "dataset"])
        why = {True: "not in eem_table5_svm", False: "skipped by rule in Table 4 (above 6,000 training rows): no "
               "setting selected"}
        d.details = list(d.details) + [f"{s}: no {model} timing, {why[s in ran]}"
                                       for s in _sets(unb, EXTREMELY)[1 if substitutes else 0] if s not in timed]
    return d


def slightly_worse(f: pd.DataFrame, pairs, datasets, margin: float = SLIGHT_MARGIN) -> C.Decision:
    """"A achieves slightly worse results than B": each (dataset, pair) an experiment, its mean GMean difference
    A - B over the outer splits; over the experiments (replicates): held if the mean is significantly below 0 and
    significantly above -``margin`` (both one-sided t-tests), not held if significantly above 0 (A better) or
    significantly below -``margin`` (much worse), else inconclusive. Rule p: the larger of the two one-sided p."""
    e = experiments(f, pairs, datasets)
    if e.empty:
        return C.not_tested("no paired splits stored")
    t = C.dataset_diffs(e, "A", "B", "gmean", sorted(e["dataset"].unique()), higher_is_better=True)
    diff = t["better"].to_numpy(float)
    details = [f"{r.dataset}: A - B = {r.better:+.4f} GMean" for r in t.itertuples()]
    if diff.size < 2:
        return C.Decision(C.INCONCLUSIVE, f"{diff.size} experiment: a test over experiments needs >= 2", details,
                          best_p=1.0)
    below0 = margin_test(diff, -math.inf, 0.0, alpha=ALPHA).p_below
    above_m = margin_test(diff, -margin, math.inf, alpha=ALPHA).p_above
    better = margin_test(diff, 0.0, math.inf, alpha=ALPHA).p_above
    much = margin_test(diff, -math.inf, -margin, alpha=ALPHA).p_below
    verdict = (C.HELD if below0 < ALPHA and above_m < ALPHA else
               C.NOT_HELD if better < ALPHA or much < ALPHA else C.INCONCLUSIVE)
    iv = margin_test(diff, -margin, 0.0, alpha=ALPHA)
    ev = (f"{diff.size} experiments: mean A - B {iv.mean:+.4f} GMean (90% interval [{iv.low:+.4f}, {iv.high:+.4f}]) "
          f"vs the band (-{margin:g}, 0): below 0 one-sided {_p(below0)}, above -{margin:g} one-sided {_p(above_m)}")
    sd = float(diff.std(ddof=1))
    return C.Decision(verdict, ev, details, f"the two one-sided tests over {diff.size} experiments (sd {sd:.3g}) "
                      f"establish a band of {2 * tost_min_margin(diff.size, sd, alpha=ALPHA):.3g} GMean at power 0.8",
                      "", p=float(max(below0, above_m)), best_p=0.0)


def scales_better(t5: pd.DataFrame, datasets, h: int = H_FASTER) -> C.Decision:
    """"EEM can better scale up to truly big datasets": per dataset the mean over outer splits and activations of
    log(WELM-x CPU s / EEM-x CPU s) at the same h; over the datasets the least-squares slope of that log ratio on
    log(n_train): held if significantly above 0 (EEM's advantage grows with the data; one-sided t-test on the slope,
    n - 2 df), not held if significantly below 0, else inconclusive."""
    from scipy import stats as st
    rows = t5[(t5["n_hidden"] == h) & t5["dataset"].isin(list(datasets))]
    pts = []
    for d, part in rows.groupby("dataset", sort=True):
        slow, fast = _times(part, [(f"WELM-{a}", f"EEM-{a}") for a in ACTS], [d], "cpu_seconds")
        if slow.size:
            pts.append((d, float(part["n_train"].mean()), float(np.mean(np.log(slow / fast)))))
    details = [f"{d}: n_train {n:.0f}, WELM / EEM CPU time {math.exp(r):.2f}x (geometric mean)" for d, n, r in pts]
    if len(pts) < 3:
        return C.Decision(C.INCONCLUSIVE, f"{len(pts)} dataset(s): a slope test needs >= 3", details, best_p=1.0)
    x, y = np.log([n for _, n, _ in pts]), np.array([r for _, _, r in pts])
    if np.ptp(x) == 0:
        return C.Decision(C.INCONCLUSIVE, f"{len(pts)} datasets of one size: no slope to test", details, best_p=1.0)
    fit = st.linregress(x, y)
    tval = fit.slope / fit.stderr if fit.stderr > 0 else math.copysign(math.inf, fit.slope)
    p_up, p_down = float(st.t.sf(tval, len(pts) - 2)), float(st.t.cdf(tval, len(pts) - 2))
    verdict = C.HELD if p_up < ALPHA else C.NOT_HELD if p_down < ALPHA else C.INCONCLUSIVE
    ns = [n for _, n, _ in pts]
    ev = (f"{len(pts)} datasets, n_train {min(ns):.0f}..{max(ns):.0f} (none of 'hundreds of thousands' here): slope "
          f"of log(WELM / EEM CPU s) on log(n_train) at h = {h} {fit.slope:+.3f} (se {fit.stderr:.3f}): one-sided "
          f"{_p(p_up)} for a ratio growing with n")
    return C.Decision(verdict, ev, details, f"a slope over {len(pts)} datasets ({len(pts) - 2} df)", "",
                      p=p_up, best_p=0.0)


# --- the stores (Table 6, Table 1, sources) ----------------------------------------------------------------

def load_store(store: str, store_dir: str = STORE) -> pd.DataFrame:
    """The cells of experiment ``store``'s own config (not every row of its store directory: eem_table4_r10 adds
    nine more repeats to eem_table4's store, which must not move Table 6's verdict)."""
    from randml_core.results import load
    try:
        return load(store, store_dir=store_dir, include_inner=True, include_failed=True)
    except Exception:  # noqa: BLE001 - an artefact that was not run is reported as such
        return pd.DataFrame()


def table6(frame: pd.DataFrame, crit: str) -> C.Decision:
    """'works well for EEM, EEKM and SVM ... not very well suited for ELM models', a claim about the table decided
    over the datasets: per dataset the GMean lost against CV selection when ``crit`` selects the setting (EEM and
    WELM averaged over their activations); for each of EEM, EEKM and SVM the two-sided Wilcoxon signed-rank test
    over the datasets of (WELM's loss - its loss): held if all three lose significantly less than WELM, not held
    if one loses significantly more, else inconclusive (no evidence); the sign test beside. An average over the
    datasets hid a collapse on one (the rule before 2026-11-27 compared the mean losses)."""
    if frame.empty or crit not in frame:
        return C.not_tested("store eem_table4 not here or without criteria (`make table4`)")
    cv = select_best(frame).set_index(["dataset", "model"])["mean"]
    sel = select_by_criterion(frame, crit).set_index(["dataset", "model"])["mean"]
    gap = (cv - sel).dropna().unstack("model")
    fams = pd.DataFrame({"EEM": gap.filter(like="EEM-").mean(axis=1), "EEKM": gap.get("EEKM-rbf"),
                         "WELM": gap.filter(like="WELM-").mean(axis=1), "SVM": gap.get("SVM-rbf")}).dropna()
    if len(fams) < 6:
        return C.not_tested(f"{len(fams)} dataset(s) with every family scored: a test over datasets needs >= 6")
    parts, outcomes, mdes = [], [], []
    for x in ("EEM", "EEKM", "SVM"):
        d = (fams["WELM"] - fams[x]).to_numpy(float)
        outcome, _, _, p, _ = C.signed_rank_verdict(d)
        pos, neg, p_sign = sign_test(d)
        outcomes.append(outcome)
        worst = fams[x].idxmax()
        parts.append(f"{x} loses less than WELM on {pos} of {len(d)} (mean {d.mean():+.3f} GMean; Wilcoxon p = "
                     f"{p:.3g}, sign test p = {p_sign:.3g}; its largest loss {fams[x].max():.3f} on {worst})")
        mdes.append(mde_wilcoxon(len(d), float(d.std(ddof=1))))
    verdict = (C.HELD if all(o == C.HELD for o in outcomes) else C.NOT_HELD if C.NOT_HELD in outcomes
               else C.INCONCLUSIVE)
    dec = C.Decision(verdict, f"{len(fams)} datasets, GMean lost against CV selection (mean): "
                     + ", ".join(f"{k} {v:.3f}" for k, v in fams.mean().items()) + "; " + "; ".join(parts),
                     [f"{dname}: " + ", ".join(f"{k} {v:.3f}" for k, v in row.items())
                      for dname, row in fams.iterrows()])
    dec.best_p = 2.0 / 2 ** len(fams)  # the smallest two-sided exact Wilcoxon p over these datasets
    dec.power = ("Wilcoxon MDE of the loss difference (alpha 0.05, power 0.8): "
                 + ", ".join(f"{x} {m:.3g} GMean" for x, m in zip(("EEM", "EEKM", "SVM"), mdes)))
    dec.sensitivity = "no margin decides this rule (a direction)"
    return dec


def table1_lines(frame: pd.DataFrame) -> list[str]:
    if frame.empty:
        return ["- Table 1: store not here (`make table1`)."]
    f = frame[frame.status == "ok"]
    rho = f.groupby("dataset")["x_spearman"].min()
    out = ["- Spearman rho (min over activations and h) per dataset: " +
           ", ".join(f"{d} {v:.3f}" for d, v in rho.items()),
           f"  - Lowest here: {rho.idxmin()} ({rho.min():.3f}); {int((rho > 0.9).sum())} of {len(rho)} sets above 0.9."]
    if "x_near_one_fraction" in f:
        sig = f[f["model"] == "sig"].groupby("dataset")
        sat, near = sig["x_saturated_fraction"].max(), sig["x_near_one_fraction"].mean()
        srho = f[f["model"] == "sig"].groupby("dataset")["x_spearman"].mean()
        out.append("- Sigmoid saturation (Section 7.3: on isolet every unit is 1 on every row, so no classifier can "
                   "separate the data). Share of sigmoid units constant on the whole dataset: " +
                   ", ".join(f"{d} {v:.2f}" for d, v in sat.items()) + ". Share of sigmoid activations above 0.999: " +
                   ", ".join(f"{d} {v:.2f}" for d, v in near.items()) + ".")
        worst = near.idxmax()
        verdict = "effectively reproduced" if near[worst] > 0.99 else "partly reproduced"
        out.append(f"  - Saturation is {verdict} on {worst}: {near[worst]:.0%} of the sigmoid activations are within "
                   f"1e-3 of 1 (units are not exactly constant, share {sat[worst]:.2f}; sigmoid Spearman rho "
                   f"{srho[worst]:.2f}). The mechanism is the one the paper gives: with U[0, 1] weights and features "
                   "in [0, 1], <w, x> grows like d/4, so d = 617 (isolet) saturates every unit; isolet itself needs a "
                   "download (`make data`).")
    return out


# --- decide and write ----------------------------------------------------------------------------------------

UCI_RULES = {
    "t4-uci-rbf": ("a claim about the table: EEM-rbf vs WELM-rbf, the per-dataset mean GMean differences tested over "
                   "the datasets by the two-sided Wilcoxon signed-rank test (alpha 0.05): held if significant for "
                   "EEM-rbf, not held if significant for WELM-rbf, else inconclusive (no evidence); sign test and "
                   f"Bayesian signed-rank (ROPE ±{GMEAN_MARGIN:g} GMean) beside it"),
    "t4-uci-sig": ("a per-dataset claim ('for some datasets'): EEM-x vs WELM-x for both sigmoids (sig, nsig), each "
                   "(dataset, activation) an experiment, corrected t-test, Holm over the 2 x datasets experiments: held "
                   "if each side is significantly better somewhere; not held if one side is significantly better on "
                   "more than half and the other nowhere (one-sided); else inconclusive"),
    "comparable": ("'comparable' decided over the datasets: two one-sided tests of the mean per-dataset GMean "
                   f"difference against ±{GMEAN_MARGIN:g} GMean (held if inside, not held if significantly outside, "
                   "else inconclusive), Bayesian P(rope) beside it; the 'third better / draws / loses' split is "
                   "printed from the per-dataset tests but not counted (a non-significant test is no evidence of a "
                   "draw)"),
}
UCI_PAIRS = {"t4-uci-rbf": ("EEM-rbf", "WELM-rbf"), "t4-uci-eekm-lssvm": ("EEKM-rbf", "LS-SVM-rbf"),
             "t4-uci-eekm-svm": ("EEKM-rbf", "SVM-rbf")}


def _uci_rule(cid: str) -> str:
    return UCI_RULES.get(cid, UCI_RULES["comparable"])


def _uci_decide(f: pd.DataFrame, cid: str, datasets) -> C.Decision:
    if cid == "t4-uci-sig":
        return both_ways(f, [("EEM-sig", "WELM-sig"), ("EEM-nsig", "WELM-nsig")], datasets)
    a, b = UCI_PAIRS[cid]
    if cid == "t4-uci-rbf":
        return C.beats_over_datasets(f, a, b, "gmean", datasets, unit="GMean", rope=GMEAN_MARGIN, higher_is_better=True)
    return comparable_thirds(f, a, b, datasets)


def uci_claims(f: pd.DataFrame | None, stem: str = "eem_table4") -> dict[str, tuple[str, C.Decision]]:
    """The Section 7.1 claims on one UCI folds file: id -> (rule, decision on the real datasets)."""
    return {cid: (rule, kinds[0]) for cid, (rule, kinds) in uci_claims_by_kind(f, stem).items()}


def uci_claims_by_kind(f: pd.DataFrame | None, stem: str = "eem_table4"):
    """id -> (rule, (real, regenerated, substitute) decisions) of the Section 7.1 claims on one UCI folds file."""
    ids = ("t4-uci-rbf", "t4-uci-sig", "t4-uci-eekm-lssvm", "t4-uci-eekm-svm")
    if f is None:
        return {cid: (_uci_rule(cid), (_missing(stem), None, None)) for cid in ids}
    kinds = _kinds(f)
    out = {}
    for cid in ids:
        got = [_uci_decide(f, cid, kinds[k]) if kinds[k] else None for k in C.KINDS]
        got[0] = got[0] or C.not_tested("no real dataset in the folds")
        out[cid] = (_uci_rule(cid), tuple(got))
    return out


def decide(tables: Path, t4_store: pd.DataFrame | None = None, carried: dict | None = None) -> list[C.Claim]:
    """The claims; ``carried``: id -> Decision taken over from the committed claims file (store-only claims)."""
    tables = Path(tables)
    claims: list[C.Claim] = []

    def add(cid, rule, real, sub=None, regen=None, margin="-"):
        words, where = WORDS[cid]
        claims.append(C.Claim(cid, words, where, rule, real, sub, regenerated=regen, margin=margin,
                              date=NEW_DATES.get(cid, OLD_DATES.get(cid, C.RULES_DATE))))

    uci_margin = {"t4-uci-rbf": f"ROPE ±{GMEAN_MARGIN:g} GMean (Bayesian signed-rank, beside)", "t4-uci-sig": "-"}
    for cid, (rule, (real, regen, sub)) in uci_claims_by_kind(read_folds(tables, "eem_table4")).items():
        add(cid, rule, real, sub, regen, uci_margin.get(cid, f"±{GMEAN_MARGIN:g} GMean (equivalence)"))

    unb = read_folds(tables, "eem_table4_unbalanced")
    pairs72 = [(f"EEM-{a}", f"WELM-{a}") for a in ACTS] + [("EEKM-rbf", "LS-SVM-rbf")]
    half_rule = ("each (dataset, fixed activation/kernel) an experiment: EEM-x vs WELM-x (sig, nsig, rbf) and EEKM-rbf "
                 "vs LS-SVM-rbf, corrected t-test on the paired outer folds, Holm over the experiments; the share EEM "
                 "wins lies between (significant wins)/n and (n - significant losses)/n: held if that interval is "
                 f"inside {HALF_BAND[0]:g}..{HALF_BAND[1]:g} (nearer to 1/2 than to 0 or 1), not held if wholly "
                 "outside, else inconclusive; the nine Section 7.2 sets only (real), their substitutes apart")
    tc_rule = (f"per (dataset, activation, h) the paired CPU seconds of standalone EEM-x and WELM-x fits at the same "
               f"h (every h of the paper's grid, `eem_table5_folds.csv`), equivalence within ±{TIME_MARGIN_S:g} s "
               "(the paper's own 0.1-0.2 s; TOST with the corrected resampled variance, conservative for timings): "
               "held if shown on every experiment, not held if some difference is significantly outside; the "
               f"Section 7.2 sets except {' and '.join(TIME_EXEMPT)}, which the paper exempts ('For larger datasets "
               "(like abalone7 or sick euthyroid) ... noticeable difference')")

    def svm_rule(model):
        return (f"paired CPU seconds of standalone {model} and EEM-rbf fits, each at the setting its Table 4 run "
                "selected on the set (`eem_table5_svm_folds.csv`), on the same outer folds, pooled over the Section "
                "7.3 sets where both ran (the N x N kernel models are skipped above 6,000 training rows): one-sided "
                f"t-test of log({model} / EEM-rbf) against log({SVM_FACTOR:g}) ('order of magnitude'); held if "
                "significantly above, not held if significantly below")
    elm_rule = (f"paired CPU seconds of standalone WELM-x and EEM-x fits (sig, nsig, rbf) at the same h = {H_FASTER} "
                "(the largest of the paper's grid; every h in `eem_table5.md`) on the same outer folds, pooled over "
                f"the Section 7.3 sets: one-sided t-test of log(WELM / EEM) against log({ELM_FACTOR:g}) (the lower "
                "end of '1.5-2x'); held if significantly above, not held if significantly below")
    none72 = C.not_tested("no original of the Section 7.2 sets in the folds (`make data`)")
    none73 = C.not_tested("no original of the Section 7.3 sets loaded here: all five need a download (`make data`)")

    def both(fn, real, sub, none):
        return (fn(real) if real else none), (fn(sub) if sub else None)

    if unb is None:
        add("t4-unb-half", half_rule, _missing("eem_table4_unbalanced"), _missing("eem_table4_unbalanced"))
    else:
        real72, sub72 = _sets(unb, HIGHLY)
        add("t4-unb-half", half_rule, *both(lambda ds: about_half(unb, pairs72, ds), real72, sub72, none72))
    svm5 = read_folds(tables, "eem_table5_svm")
    for cid, model in (("t5-faster-svm", "SVM-rbf"), ("t5-faster-lssvm", "LS-SVM-rbf")):
        if svm5 is None:
            add(cid, svm_rule(model), _missing("eem_table5_svm"), _missing("eem_table5_svm"))
            continue
        real73, sub73 = _sets(svm5, EXTREMELY)
        add(cid, svm_rule(model), *both(lambda ds, m=model: svm_faster(svm5, unb, m, ds), real73, sub73, none73))
    t5 = read_folds(tables, "eem_table5")
    if t5 is None:
        add("t5-comparable-elm", tc_rule, _missing("eem_table5"), _missing("eem_table5"), margin=f"±{TIME_MARGIN_S:g} CPU s")
        add("t5-faster-elm-largest", elm_rule, _missing("eem_table5"), _missing("eem_table5"))
    else:
        real72, sub72 = _sets(t5, [d for d in HIGHLY if d not in TIME_EXEMPT])
        real73, sub73 = _sets(t5, EXTREMELY)
        add("t5-comparable-elm", tc_rule, *both(lambda ds: time_comparable(t5, ds), real72, sub72, none72),
            margin=f"±{TIME_MARGIN_S:g} CPU s")
        at_h = t5[t5["n_hidden"] == H_FASTER]
        add("t5-faster-elm-largest", elm_rule, *both(lambda ds: time_faster(
            at_h, [(f"WELM-{a}", f"EEM-{a}") for a in ACTS], ds, ELM_FACTOR, f"WELM-x / EEM-x at h = {H_FASTER}",
            "cpu_seconds"), real73, sub73, none73))

    t6_rule = ("a claim about the table, decided over the datasets: per dataset the GMean lost against CV selection "
               "when the criterion selects (EEM and WELM averaged over activations); for each of EEM, EEKM and SVM "
               "the two-sided Wilcoxon signed-rank test of (WELM's loss - its loss) over the datasets: held if all "
               "three lose significantly less than WELM, not held if one loses significantly more, else "
               "inconclusive; sign test beside")
    frame = t4_store if t4_store is not None else pd.DataFrame()
    carried = carried or {}
    add("t6-dcs-gauss", t6_rule, carried.get("t6-dcs-gauss") or table6(frame, "x_dcs_gauss"))
    add("t6-dcs-kde", t6_rule, carried.get("t6-dcs-kde") or table6(frame, "x_dcs_kde"))

    f4 = read_folds(tables, "eem_table4")
    k4 = _kinds(f4) if f4 is not None else {k: [] for k in C.KINDS}
    add("t4-uci-best-some", "a per-dataset claim ('in some of the datasets'): on each real UCI set of Table 4, the "
        "EEM-family model (EEM-sig, EEM-nsig, EEM-rbf, EEKM-rbf) with the best mean GMean there against every other "
        "model (WELM-x, LS-SVM-rbf, SVM-rbf), corrected resampled t-test on the paired outer folds, Holm over the "
        f"rivals of the set, alpha = {ALPHA}: held if significantly better than every rival on at least one set, not "
        "held if on every set a rival is significantly better, else inconclusive; picking the best family member per "
        "set favours the claim; 'contrary to ELM' is not decided",
        *((C.best_among(f4, EEM_FAMILY, k4[k], "gmean", need="any", higher_is_better=True) if k4[k] else
           (_missing("eem_table4") if f4 is None else C.not_tested("no real UCI set in the folds"))
           if k == "real" else None) for k in ("real", "substitute", "regenerated")))
    real73, sub73 = _sets(unb, EXTREMELY) if unb is not None else ([], [])

    def _eekm_elm(ds):
        e = experiments(unb, [("EEKM-rbf", f"WELM-{a}") for a in ACTS], ds)
        return C.beats(e, "A", "B", "gmean", sorted(e["dataset"].unique()), need="majority", higher_is_better=True)

    for cid, rule, fn in (
            ("t73-eem-slightly-worse", "each (Section 7.3 set, x in nsig, rbf: the activations other than the sigmoid "
             "whose saturation on isolet the sentence before explains) an experiment, its mean GMean difference EEM-x "
             f"- WELM-x over the outer folds; over the experiments: held if the mean is significantly below 0 and "
             f"significantly above -{SLIGHT_MARGIN:g} ('slightly': one-sided t-tests, alpha = {ALPHA}), not held if "
             f"significantly above 0 or below -{SLIGHT_MARGIN:g}, else inconclusive",
             lambda ds: slightly_worse(unb, [(f"EEM-{a}", f"WELM-{a}") for a in OTHER_ACTS], ds)),
            ("t73-eekm-elm", "'generally outperform': each (Section 7.3 set, x in sig, nsig, rbf) an experiment, "
             "EEKM-rbf vs WELM-x, corrected resampled t-test on the paired outer folds, Holm over the experiments, "
             f"alpha = {ALPHA}: held if EEKM-rbf is significantly better on more than half of the experiments, not held "
             "if WELM-x is on half or more, else inconclusive", _eekm_elm),
            ("t73-eekm-close-svm", f"'very close' decided over the Section 7.3 sets: two one-sided tests of the mean "
             f"per-dataset GMean difference EEKM-rbf - SVM-rbf against ±{GMEAN_MARGIN:g} GMean (held if inside, not "
             "held if significantly outside, else inconclusive), Bayesian P(rope) beside it",
             lambda ds: C.equivalent_over_datasets(unb, "EEKM-rbf", "SVM-rbf", "gmean", ds, GMEAN_MARGIN,
                                                   unit="GMean", higher_is_better=True)),
            ("t73-eekm-close-lssvm", f"'very close' decided over the Section 7.3 sets: two one-sided tests of the "
             f"mean per-dataset GMean difference EEKM-rbf - LS-SVM-rbf against ±{GMEAN_MARGIN:g} GMean (held if "
             "inside, not held if significantly outside, else inconclusive), Bayesian P(rope) beside it",
             lambda ds: C.equivalent_over_datasets(unb, "EEKM-rbf", "LS-SVM-rbf", "gmean", ds, GMEAN_MARGIN,
                                                   unit="GMean", higher_is_better=True))):
        margin = (f"(-{SLIGHT_MARGIN:g}, 0) GMean" if cid == "t73-eem-slightly-worse" else
                  f"±{GMEAN_MARGIN:g} GMean (equivalence)" if "close" in cid else "-")
        if unb is None:
            add(cid, rule, _missing("eem_table4_unbalanced"), _missing("eem_table4_unbalanced"), margin=margin)
        else:
            add(cid, rule, *both(fn, real73, sub73, none73), margin=margin)
    scale_rule = (f"per dataset of `eem_table5_folds.csv` the mean over outer folds and activations (sig, nsig, rbf) of "
                  f"log(WELM-x / EEM-x CPU seconds) of standalone fits at h = {H_FASTER}; over the datasets the "
                  "least-squares slope of that log ratio on log(n_train): held if significantly above 0 (EEM's "
                  f"advantage grows with the data; one-sided t-test on the slope, alpha = {ALPHA}), not held if "
                  "significantly below 0, else inconclusive; the range of n_train run here is printed (the paper's "
                  "'truly big' sets need a download)")
    if t5 is None:
        add("t5-scales-better", scale_rule, _missing("eem_table5"), _missing("eem_table5"))
    else:
        k5 = _kinds(t5)
        add("t5-scales-better", scale_rule, *((scales_better(t5, k5[k]) if k5[k] else
                                              (C.not_tested("no real dataset in eem_table5") if k == "real" else None))
                                             for k in ("real", "substitute", "regenerated")))

    f3 = read_folds(tables, "eem_fig3")
    add("fig3-stable", f"a claim about the tested datasets: for every h in {STABLE_FROM + 5}..500 the per-dataset "
        f"mean GMean(h) - GMean({STABLE_FROM}), two one-sided tests over the datasets against ±{STABLE_MARGIN:g} "
        "GMean: held if equivalent at every h (intersection-union test), not held if at some h the mean difference "
        "is significantly outside the margin (Holm over the h), else inconclusive",
        _missing("eem_fig3") if f3 is None else stability(f3, _kinds(f3)["real"]),
        margin=f"±{STABLE_MARGIN:g} GMean (equivalence)")
    order = list(WORDS)
    return sorted(claims, key=lambda c: order.index(c.id))


#: this paper's claim registry (rules registered before their verdicts) and the functions its rules run
REGISTRY = Path(__file__).with_name("claims_registry.jsonl")
RULE_CODE = (decide, experiments, _outcomes, _tested, comparable_thirds, about_half, both_ways, stability, range_rule,
             _times, time_comparable, time_faster, table6, _uci_rule, _uci_decide, uci_claims, uci_claims_by_kind,
             slightly_worse, scales_better)


def claims_for(results_dir: Path) -> list[C.Claim]:
    """The claims decided on ``results_dir/tables`` and the eem_table4 store (frames included) (the registry's
    ``register`` command; it prints no verdict)."""
    return decide(Path(results_dir) / "tables", load_store("eem_table4", str(Path(results_dir) / "store")))


def sensitivity_lines(tables: Path) -> list[str]:
    """Figure 3's margin / threshold sensitivity, and the Section 7.1 verdicts under the other selections."""
    out = ["## Sensitivity", "", "Figure 3 stability under other margins (the verdict above uses "
           f"±{STABLE_MARGIN:g}; 0.05 was the margin of the per-dataset rule before 2026-11-27; the older rule is "
           f"the range of the mean GMean over h >= {STABLE_FROM} without uncertainty):", ""]
    f3 = read_folds(tables, "eem_fig3")
    if f3 is None:
        out += [f"- not tested: `eem_fig3_folds.csv` missing (`{TARGETS['eem_fig3']}`)", ""]
    else:
        out += ["| margin / threshold | equivalence rule (verdict; evidence) | previous range rule (largest range) |",
                "|---|---|---|"]
        for m in STABLE_MARGINS:
            d = stability(f3, _kinds(f3)["real"], m, _sensitivity=False)
            v, rng = range_rule(f3, m)
            out.append(f"| {m:g} | {d.cell()} | {v} ({rng:.3f}) |")
        out.append("")
    out += ["Section 7.1 claims under the other selections of Table 4 (the verdicts above use the paper's rule, "
            "`eem_table4_folds.csv`: the setting with the best mean outer-fold GMean, optimistic for every model):", "",
            "| claim | paper's rule (1 repeat) | nested CV selection | paper's rule, 10 repeats |", "|---|---|---|---|"]
    cols = [uci_claims(read_folds(tables, s), s) for s in ("eem_table4", "eem_table4_nested", "eem_table4_r10")]
    for cid in cols[0]:
        out.append(f"| {cid} | " + " | ".join(c[cid][1].cell().replace("|", "\\|") for c in cols) + " |")
    return out + [""]


def _sources(frames) -> list[str]:
    sources = {}
    for fr in frames:
        if len(fr) and "data_source" in fr:
            sources.update(dict(zip(fr["dataset"], fr["data_source"])))
    return [f"- {d}: {s}" for d, s in sorted(sources.items())] or ["- stores not here: see the tables' footers"]


#: the stores the report reads (Table 6's criteria, Table 1, the data sources) and the make target that fills each
STORES = {"eem_table4": "make table4", "eem_table1": "make table1", "eem_table4_unbalanced": "make table4-unbalanced"}


class MissingStoresError(RuntimeError):
    """The committed report would lose what only the stores give (Table 1, Table 6's verdicts, the sources)."""


STORE_ONLY = ("t6-dcs-gauss", "t6-dcs-kde")
CARRY_NOTE = " (carried over from the committed eem_claims.json: the stores are not here)"


def _carried(previous: dict | None) -> dict[str, C.Decision]:
    """The store-only claims' decisions of the committed claims file."""
    out = {}
    for c in (previous or {}).get("claims", []):
        if c.get("id") in STORE_ONLY and c.get("real"):
            r = c["real"]
            ev = r.get("evidence", "")
            out[c["id"]] = C.Decision(r["verdict"], ev if ev.endswith(CARRY_NOTE) else ev + CARRY_NOTE, [],
                                      r.get("power", ""), r.get("sensitivity", ""))
    return out


def _section(text: str, heading: str) -> list[str]:
    """The body lines of the ``## heading`` section of a committed report ([] when absent)."""
    lines = text.splitlines()
    try:
        i = lines.index(f"## {heading}")
    except ValueError:
        return []
    body = []
    for ln in lines[i + 1:]:
        if ln.startswith("## "):
            break
        body.append(ln)
    while body and not body[0].strip():
        body.pop(0)
    while body and not body[-1].strip():
        body.pop()
    return body


def build(tables: Path = OUT, store_dir: str | None = None, keep_store_parts: bool = False) -> Path:
    """Write the report; ``keep_store_parts``: without the stores, take Table 6's verdicts, the Table 1 lines and
    the data sources over from the committed report / claims file instead of refusing."""
    tables, store_dir = Path(tables), STORE if store_dir is None else store_dir
    t4, t1, tu = (load_store(s, store_dir) for s in STORES)
    missing = [name for name, frame in zip(STORES, (t4, t1, tu)) if frame.empty]
    previous = C.load_previous(tables / "eem_claims.json")
    old_report = (tables / "eem_report.md").read_text() if (tables / "eem_report.md").is_file() else ""
    carry = bool(missing) and keep_store_parts and previous is not None and bool(old_report)
    if missing and not carry and tables.resolve() == OUT.resolve():
        raise MissingStoresError(
            f"no stored cells of {', '.join(missing)} under {store_dir}: the committed eem_report.md and "
            f"eem_claims.json would lose their Table 1 / Table 6 / data-source parts, so they are left as they "
            f"are. Fix: {' and '.join(STORES[m] for m in missing)} (make eem runs every table), point "
            "$RANDML_STORE at the store that has them, write elsewhere: python -m randml_papers.eem.summary DIR, or "
            "keep the committed store parts: python -m randml_papers.eem.summary --keep-store-parts")
    claims = decide(tables, t4, _carried(previous) if carry and t4.empty else None)
    t1_lines = None
    if carry and t1.empty:  # the committed section without the quote this report prints above it
        t1_lines = _section(old_report, "Table 1 (`eem_table1.md`)")
        while t1_lines and (t1_lines[0].startswith(">") or not t1_lines[0].strip()):
            t1_lines.pop(0)
    src_lines = (_section(old_report, "Data sources actually used") if carry else None)
    lines = ["# EEM paper — claims held / not held", "",
             "Generated by `python -m randml_papers.eem.summary` from the per-split artefacts "
             "`eem_table4_folds.csv`, `eem_table4_unbalanced_folds.csv`, `eem_table5_folds.csv`, `eem_fig3_folds.csv` (paired outer folds "
             "at the setting each table shows) and, for Table 6 / Table 1, the stores. The text copy of the paper "
             "lost the bodies of Tables 1 and 3-6, so the claims are the paper's own sentences (quoted) and no "
             "published numbers are judged.", "",
             *([f"Table 6's verdicts, the Table 1 lines and the data sources are carried over from the committed "
                f"report (the stores {', '.join(missing)} are not here); the rest is regenerated from the fold "
                "artefacts.", ""] if carry else []),
             f"Claims on the real datasets: {C.counts_line(claims)}. Verdicts are decided on the real datasets only; "
             "the named substitutes (`stand_in_for` in the folds files: they stand in for originals that need "
             "`make data`) have their own column and never decide a verdict. The Section 7.3 sets (forest-cover, "
             "isolet, mammography, protein-homology, webpages) all need a download, so their claims are tested on "
             "substitutes only.", "",
             *C.markdown_table(claims), "",
             f"alpha = {ALPHA:g}. Claims about Table 4 as a whole ('noticeably better', 'comparable') and Figure 3's "
             "'minor effect' are decided over the datasets (2026-11-27): the corrected resampled t-test (Nadeau & "
             "Bengio 2003) with 10 outer folds per dataset has little power, and a non-significant per-dataset test "
             "is no evidence of a draw; the per-dataset tests remain for the per-dataset claims ('for some "
             "datasets', 'in about half of experiments'). EEM-x against WELM-x is timed at the same h (2026-11-27): "
             "CPU seconds of standalone fits at every h of the paper's grid (`eem_table5.md`, which states no "
             "verdict: these are the only ones); SVM-rbf and LS-SVM-rbf against EEM-rbf at each model's selected "
             "setting, on the grid run's wall seconds (a cell's own solve plus the shared work it used, one BLAS "
             "thread), paired per split.", "",
             "## Margins (in the metric's units)", "", *C.margins_lines(MARGINS), "",
             "## Data", "", *[f"- {stem}: {C.kinds_line(_kinds(fr))}" for stem, fr in
                              ((s, read_folds(tables, s)) for s in FOLD_STEMS) if fr is not None], "",
             "## Deviations from the paper", "", *C.deviations_lines(_all_names(tables), DEVIATIONS), "",
             "## Claim inventory", "", *C.inventory_lines(claims, EXCLUDED), "",
             *sensitivity_lines(tables),
             *R.section(claims, REGISTRY, RULE_CODE, "randml_papers.eem.summary"),
             *C.history(claims, previous, tables / "eem_verdicts.jsonl", tables / "eem_report.md"),
             "## Details", "", *C.details(claims),
             "## Statistics over datasets (beside the claims above)", "",
             *[ln for stem in ("eem_table4", "eem_table4_nested", "eem_table4_unbalanced")
               for ln in report_lines(stem, tables.parent)], "",
             "## Table 1 (`eem_table1.md`)", "",
             "> As one can see in Table 1, in small datasets (first part of the table) the correlation is generally "
             "high, with some exceptions (like sonar, splice, liver disorders and diabetes).", "",
             *(t1_lines if t1_lines is not None else table1_lines(t1)), "",
             "## Table 3 (`eem_table3.md`)", "",
             "- Generated from the registry; flags every deviation from the reference shapes.", "",
             "## Data sources actually used", "", *(src_lines if src_lines else _sources((t4, t1, tu))), ""]
    path = tables / "eem_report.md"
    with ArtefactSet(tables.parent, "eem_report", code_version=short_version()) as out:
        out.write_text(path, "\n".join(lines))
        out.write_json(tables / "eem_claims.json", C.records(claims), indent=1)
    print("\n".join(lines))
    return path


#: the per-split artefacts the claims are decided on
FOLD_STEMS = ("eem_table4", "eem_table4_unbalanced", "eem_table5", "eem_fig3")


def _all_names(tables: Path) -> list[str]:
    names = []
    for stem in ("eem_table4", "eem_table4_unbalanced"):
        fr = read_folds(tables, stem)
        names += list(dict.fromkeys(fr["dataset"])) if fr is not None else []
    return names


def main(argv=None) -> int:
    argv = list(argv or [])
    keep = "--keep-store-parts" in argv
    argv = [a for a in argv if a != "--keep-store-parts"]
    tables = Path(argv[0]) if argv else OUT
    try:
        print("wrote", build(tables, keep_store_parts=keep))
    except MissingStoresError as exc:
        print(f"randml_papers.eem.summary: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
