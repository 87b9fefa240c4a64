"""A paper's claims decided with their uncertainty, one rule set for every paper's claims report.

Each :class:`Claim` carries the paper's exact words, the rule that decides it (test, alpha, margin),
the verdict on the real datasets, and apart from it the verdict on the offline substitutes (never pooled
with the real ones) and, where the paper's numbers allow, the same rule applied to the paper's own table.
Verdicts:

- ``held``: the evidence supports the claim at the stated level;
- ``not held``: the evidence contradicts it (the opposite difference is significant, or a margin is
  significantly missed);
- ``inconclusive``: neither: no significant difference where the claim needs one;
- ``not tested``: nothing to decide on (runs missing, or only substitutes).

Rules (``alpha`` = 0.05 unless a report says otherwise; rules fixed 2026-11-27 unless a claim carries an older
date), on paired per-split scores at each model's selected setting (the ``<table>_folds.csv`` artefacts or the
store's outer rows):

- :func:`beats_over_datasets` "A is better than B" as a statement about a table ("generally", "noticeably
  better", "outperforms"): the per-dataset mean differences (in the metric's units, or relative to a per-dataset
  scale such as the target's spread) tested over the datasets by the two-sided Wilcoxon signed-rank test; held
  if significant in A's favour, not held if significant in B's, else inconclusive ("no evidence"). The sign
  test and the Bayesian signed-rank test (P(A better) / P(rope) / P(B better)) are printed beside it.
- :func:`beats` per-dataset claims ("in all the datasets", "on some datasets"): per dataset the corrected
  resampled t-test (Nadeau & Bengio 2003), Holm over the datasets tested. ``need="any"`` / ``"all"``: not held
  if B is significantly better on any dataset; held if A is significantly better on one / on every dataset;
  else inconclusive. ``need="majority"``: held if A is significantly better on more than half, not held if B
  is on at least half, else inconclusive. A non-significant test is never counted as a draw against a claim.
- :func:`equivalent_over_datasets` "A is comparable with B" as a statement about a table: two one-sided tests
  (TOST) of the mean of the per-dataset differences against ±margin (the margin in the metric's units); held if
  equivalence is shown, not held if the difference is significantly outside the margin, else inconclusive; the
  Bayesian P(rope) at the same margin beside it. :func:`comparable` is the per-dataset version (TOST on the
  splits with the corrected resampled variance; held if shown on every dataset).
- :func:`faster` "A is faster than B (by a factor)": paired timings, a one-sided t-test of log(B / A)
  against log(factor).
- :func:`exceeds` "A's score is above x": a one-sided t-test of the replicate scores against x.

Every decision carries its power (the minimal detectable effect of its test at its sample size, alpha 0.05,
power 0.8: :mod:`randml_core.stats.power`; "underpowered" where that exceeds the paper's own effect) and, where
a margin decides, the verdict at half and at double the margin. Verdicts are given apart on real datasets,
regenerated ones (our version of a paper's generator) and substitutes (:func:`data_kind`); counts use the real
ones only.

Pure functions of frames; nothing here fits a model or reads the store (:func:`data_kind` reads the dataset
registry, :func:`target_spread` loads a dataset's target).
"""
from __future__ import annotations

import json
import re
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..stats import StatsRefusal, bayes_signed_rank, corrected_ttest, holm, wilcoxon_signed_rank
from ..direction import higher_is_better as _direction
from ..stats.margins import log_ratio_test, margin_test
from ..stats.power import mde_sign, mde_t, mde_wilcoxon, sign_test, signed_rank, tost_min_margin
from ..stats.refusal import min_wilcoxon_pairs

HELD, NOT_HELD, INCONCLUSIVE, NOT_TESTED = "held", "not held", "inconclusive", "not tested"
VERDICTS = (HELD, NOT_HELD, INCONCLUSIVE, NOT_TESTED)
#: the label of an inconclusive verdict whose rule cannot reach held on the data it has (:attr:`Decision.undecidable`);
#: counted apart from "inconclusive", which then means the data could have decided and did not
UNDECIDABLE = "undecidable here"
LABELS = (HELD, NOT_HELD, INCONCLUSIVE, UNDECIDABLE, NOT_TESTED)
ALPHA = 0.05
NEEDS = ("any", "all", "majority")
#: the date the rules of this module (issue 31) were fixed; a claim whose rule predates them carries its own date
RULES_DATE = "2026-11-27"
#: the three kinds of data a verdict is given on, apart (:func:`data_kind`)
KINDS = ("real", "regenerated", "substitute")
#: generator source kinds: a non-substitute dataset whose every source is one of these is regenerated
GENERATED_SOURCES = ("generated", "synthetic")


@dataclass
class Decision:
    """A verdict and the evidence behind it (one line), with per-dataset rows for the details section."""
    verdict: str
    evidence: str
    details: list[str] = field(default_factory=list)
    #: the minimal detectable effect of the test at its sample size (and "underpowered" where it applies)
    power: str = ""
    #: the verdict at half and at double the margin (or the ROPE where no margin decides)
    sensitivity: str = ""
    #: the rule's p-value for the claim: the smallest alpha at which this rule would say held (None: the rule has
    #: none, e.g. a paper-specific rule or one not tested); Holm over a paper's claims uses it (:func:`holm_over_claims`)
    p: float | None = None
    #: the smallest p this rule can reach on data of this size whatever the values (None: no limit known); held is
    #: out of reach when it is >= alpha, and an inconclusive verdict then reads "undecidable here"
    best_p: float | None = None

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict {self.verdict!r}: must be one of {VERDICTS}")

    @property
    def undecidable(self) -> bool:
        """True when the rule could not say held on data of this size whatever the values."""
        return self.verdict == INCONCLUSIVE and self.best_p is not None and self.best_p >= ALPHA

    def label(self) -> str:
        """The verdict, or "undecidable here" for an inconclusive verdict the rule could not have turned into held."""
        return UNDECIDABLE if self.undecidable else self.verdict

    def cell(self) -> str:
        head = (f"{INCONCLUSIVE}, {UNDECIDABLE}: best attainable p = {_fmt(self.best_p, 4)}" if self.undecidable
                else self.verdict)
        return f"{head} ({self.evidence})" if self.evidence else head


def not_tested(why: str) -> Decision:
    return Decision(NOT_TESTED, why)


@dataclass
class Claim:
    """One claim: ``words`` quotes the paper exactly, ``where`` says where (section / table / figure)."""
    id: str
    words: str
    where: str
    rule: str
    real: Decision
    substitutes: Decision | None = None
    published: Decision | None = None
    #: the verdict on regenerated data (our version of the paper's generator), apart from real and substitutes
    regenerated: Decision | None = None
    #: the margin / ROPE with its units ("" when the rule has none)
    margin: str = ""
    #: the date the rule was fixed (ISO)
    date: str = RULES_DATE

    def record(self) -> dict:
        parts = ("real", "regenerated", "substitutes", "published")
        out = {k: v for k, v in asdict(self).items() if k not in parts}
        for part in parts:
            d = getattr(self, part)
            out[part] = None if d is None else {"verdict": d.verdict, "label": d.label(), "evidence": d.evidence,
                                                "power": d.power, "sensitivity": d.sensitivity,
                                                "p": _round(d.p), "best_p": _round(d.best_p)}
        return out


def _round(x: float | None) -> float | None:
    """6 significant digits for the JSON (the last digits of a p move with the platform's libm, not the data)."""
    return None if x is None or not np.isfinite(x) else float(f"{x:.6g}")


def _fmt(x: float, digits: int = 3) -> str:
    return "nan" if x is None or not np.isfinite(x) else f"{x:.{digits}g}" if abs(x) < 1e-3 and x != 0 else f"{x:.{digits}f}"


def _p(p: float) -> str:
    return "p = nan" if not np.isfinite(p) else "p < 0.0001" if p < 1e-4 else f"p = {p:.4f}"


def paired_tests(folds: pd.DataFrame, a: str, b: str, metric: str, datasets=None, *,
                 alpha: float = ALPHA, higher_is_better: bool | None = None) -> pd.DataFrame:
    """Per dataset, the corrected resampled t-test of ``a`` vs ``b`` (see :func:`corrected_ttest`) with
    ``p_holm`` adjusted over the datasets tested and ``outcome``: ``a`` / ``b`` (significantly better after
    Holm) or ``none``."""
    hib = _direction(metric, higher_is_better)
    rows = folds if datasets is None else folds[folds["dataset"].isin(list(datasets))]
    if rows.empty or not {a, b} <= set(rows["model"]):
        return pd.DataFrame(columns=["dataset", "mean_a", "mean_b", "mean_diff", "p", "p_holm", "outcome", "n_folds"])
    t = corrected_ttest(rows, a, b, metric, alpha=alpha, higher_is_better=hib)
    t = t[t["p"].notna()].copy()
    t["p_holm"] = holm(t["p"].to_numpy(float))
    sign = np.sign(t["mean_diff"].to_numpy(float)) * (1 if hib else -1)
    sig = t["p_holm"].to_numpy(float) < alpha
    t["outcome"] = np.where(sig & (sign > 0), "a", np.where(sig & (sign < 0), "b", "none"))
    return t.reset_index(drop=True)


def beats(folds: pd.DataFrame, a: str, b: str, metric: str, datasets, *, need: str = "any",
          alpha: float = ALPHA, higher_is_better: bool | None = None) -> Decision:
    """"``a`` beats ``b``" on ``datasets`` (see the module docstring for the rule); ``need`` = "any" or "all"."""
    if need not in NEEDS:
        raise ValueError(f"need={need!r}: one of {', '.join(NEEDS)} ('any': better on one, worse on none; 'all': better "
                         "on every dataset; 'majority': better on more than half, for the papers' 'generally')")
    datasets = list(datasets)
    if not datasets:
        return not_tested("no dataset to test on")
    t = paired_tests(folds, a, b, metric, datasets, alpha=alpha, higher_is_better=higher_is_better)
    if t.empty:
        return not_tested(f"no paired splits of {a} and {b} stored")
    details = [f"{r.dataset}: {a} {r.mean_a:.3f} vs {b} {r.mean_b:.3f} (diff {r.mean_diff:+.3f}, corrected t-test "
               f"{_p(r.p)}, Holm {_p(r.p_holm)}, {r.n_folds} splits): "
               + {"a": f"{a} better", "b": f"{b} BETTER", "none": "no significant difference"}[r.outcome]
               for r in t.itertuples()]
    n, better, worse = len(t), list(t.loc[t["outcome"] == "a", "dataset"]), list(t.loc[t["outcome"] == "b", "dataset"])
    missing = sorted(set(datasets) - set(t["dataset"]))
    tally = f"{n} datasets: {a} significantly better on {len(better)}, worse on {len(worse)}, no difference on " \
            f"{n - len(better) - len(worse)}" + (f"; not tested on {', '.join(missing)}" if missing else "")
    wil = _wilcoxon_line(t, a, b, alpha)
    if wil:
        details.append(wil)
    hib = _direction(metric, higher_is_better)
    favour = np.sign(t["mean_diff"].to_numpy(float)) * (1 if hib else -1) > 0
    return Decision(_need_verdict(need, n, len(better), len(worse), bool(missing)),
                    tally + (f" (worse: {', '.join(worse)})" if worse else ""), details,
                    per_dataset_power(folds, a, b, metric, list(t["dataset"]), alpha=alpha),
                    "no margin decides this rule",
                    p=_need_p(need, np.where(favour, t["p_holm"].to_numpy(float), 1.0), bool(missing)), best_p=0.0)


def best_among(folds: pd.DataFrame | None, group, datasets, metric: str, *, need: str = "all",
               higher_is_better: bool | None = None, alpha: float = ALPHA, missing: str = "no per-split artefact") -> Decision:
    """"``group`` gives the best score" per dataset: on each dataset the member of ``group`` (a model or a tuple of
    models: "they give the best") with the better mean against every model not in ``group``, the corrected
    resampled t-test on the paired splits, Holm over the rivals of that dataset; "shown" on a dataset when it is
    significantly better than every rival. ``need="all"``: held if shown on every dataset, not held if a rival is
    significantly better on one; ``need="any"`` ("in some of the datasets"): held if shown on one, not held if on
    every dataset a rival is significantly better; else inconclusive (a non-significant difference is no evidence for
    "best"). Picking the better member per dataset on the same splits favours the claim. Rule p: per dataset the
    largest Holm-adjusted p in the claim's favour over its rivals (1 where a rival is ahead), then the largest over
    the datasets ("all") or the smallest ("any")."""
    if need not in ("all", "any"):
        raise ValueError(f"need={need!r}: 'all' or 'any'")
    if folds is None:
        return not_tested(missing)
    group = (group,) if isinstance(group, str) else tuple(group)
    hib = _direction(metric, higher_is_better)
    sign = 1 if hib else -1
    run = [d for d in datasets if d in set(folds["dataset"])]
    if not run:
        return not_tested("none of the named datasets was run here (" + ", ".join(datasets) + ")")
    details, lost, open_, shown, p_sets, chosen, mdes = [], [], [], [], [], {}, []
    for d in run:
        part = folds[folds["dataset"] == d]
        means = part[part["model"].isin(group)].groupby("model")[metric].mean()
        rivals = [r for r in part["model"].unique() if r not in group]
        if means.empty or not rivals:
            open_.append(f"{d} (no {' / '.join(group)} run)" if means.empty else f"{d} (no rival run)")
            p_sets.append(1.0)
            continue
        m = chosen[d] = str(means.idxmax() if hib else means.idxmin())
        tests = []
        w = part.pivot_table(index=["repeat", "fold"], columns="model", values=metric, aggfunc="first")
        sizes = part.drop_duplicates(["repeat", "fold"])
        ratio = float(sizes["n_test"].mean() / sizes["n_train"].mean())
        for r in rivals:
            t = corrected_ttest(part, m, r, metric, higher_is_better=hib)
            tests.append((r, float(t["mean_diff"].iloc[0]), float(t["p"].iloc[0])))
            diff = (w[m] - w[r]).dropna().to_numpy(float)
            mdes.append(mde_t(diff.size, float(diff.std(ddof=1)), alpha=alpha / len(rivals), test_train_ratio=ratio))
        adj = holm([p for _, _, p in tests])  # mean_diff = m - r in the metric's units
        beaten = [r for (r, diff, _), q in zip(tests, adj) if q < alpha and sign * diff < 0]
        unshown = [r for (r, diff, _), q in zip(tests, adj) if not (q < alpha and sign * diff > 0)]
        p_sets.append(max(float(q) if sign * diff > 0 else 1.0 for (_, diff, _), q in zip(tests, adj)))
        details.append(f"{d}" + (f" ({m})" if len(group) > 1 else "") + ": " + "; ".join(
            f"{r} {'worse' if sign * diff > 0 else 'better'} by {abs(diff):.3f} (Holm p = {q:.3g})"
            for (r, diff, _), q in zip(tests, adj)))
        if beaten:
            lost.append(f"{d} ({', '.join(beaten)})")
        if unshown:
            open_.append(f"{d} ({', '.join(unshown)})")
        else:
            shown.append(d)
    ev = (f"{len(run)} of {len(datasets)} named datasets run" + (
          "; tested: " + ", ".join(f"{d} {m}" for d, m in chosen.items()) if len(group) > 1 else "")
          + "; a rival significantly better on " + (", ".join(lost) if lost else "none") + "; not shown better than "
          + ("; ".join(open_) if open_ else "no rival") + (f"; best shown on {', '.join(shown)}" if need == "any" else ""))
    if need == "all":
        verdict = NOT_HELD if lost else INCONCLUSIVE if open_ else HELD
    else:
        verdict = HELD if shown else NOT_HELD if len(lost) == len(run) else INCONCLUSIVE
    power = (f"per (dataset, rival) corrected t-test MDE in {metric} units (alpha {alpha:g} / rivals, power 0.8): median "
             f"{np.median(mdes):.3g}, range {min(mdes):.3g}..{max(mdes):.3g}") if mdes else ""
    return Decision(verdict, ev, details, power, "no margin decides this rule",
                    p=(max(p_sets) if need == "all" else min(p_sets)) if p_sets else 1.0, best_p=0.0)


def _need_p(need: str, p_favour: np.ndarray, missing: bool = False) -> float:
    """The rule's p of a per-dataset "beats" claim: the smallest alpha at which it says held, from the per-dataset
    Holm-adjusted p in A's favour (1 where A is not ahead): every dataset ("all": the largest; an untested dataset
    leaves it at 1), one ("any": the smallest), more than half ("majority": the (n // 2 + 1)-th smallest)."""
    p = np.sort(np.asarray(p_favour, float))
    if p.size == 0 or (need == "all" and missing):
        return 1.0
    return float(p[-1] if need == "all" else p[0] if need == "any" else p[p.size // 2])


def _need_verdict(need: str, n: int, better: int, worse: int, missing: bool = False) -> str:
    """The verdict of a "beats" claim from the counts of datasets where A is (significantly) better / worse."""
    if need == "majority":
        if 2 * better > n:
            return HELD
        return NOT_HELD if 2 * worse >= n else INCONCLUSIVE
    if worse:
        return NOT_HELD
    if (need == "any" and better) or (need == "all" and better == n and not missing):
        return HELD
    return INCONCLUSIVE


def beats_on_means(table: pd.DataFrame, a: str, b: str, higher: bool, datasets, *, need: str = "any") -> Decision:
    """The :func:`beats` rule on a dataset x model table of means only (the paper's own table: no splits are
    published, so every difference counts and ties are ties)."""
    rows = table.loc[[d for d in datasets if d in table.index]] if table is not None else None
    if rows is None or a not in rows or b not in rows:
        return not_tested("no published numbers for both")
    diff = ((rows[a] - rows[b]) * (1 if higher else -1)).dropna()
    if diff.empty:
        return not_tested("no published numbers for both")
    better, worse = int((diff > 0).sum()), int((diff < 0).sum())
    ev = f"means only, {len(diff)} datasets: better on {better}, worse on {worse}, tie on {len(diff) - better - worse}"
    return Decision(_need_verdict(need, len(diff), better, worse), ev)


def _wilcoxon_line(t: pd.DataFrame, a: str, b: str, alpha: float) -> str:
    try:
        _, p, note = wilcoxon_signed_rank(t["mean_a"], t["mean_b"], alpha)
    except StatsRefusal as exc:
        return f"over datasets: no Wilcoxon test ({exc})"
    return f"over datasets: Wilcoxon signed-rank on the {len(t)} dataset means, two-sided {_p(p)}" + (f" ({note})" if note else "")


def comparable(folds: pd.DataFrame, a: str, b: str, metric: str, datasets, margin: float, *, one_sided: bool = False,
               alpha: float = ALPHA, higher_is_better: bool | None = None, unit: str = "datasets",
               _sensitivity: bool = True) -> Decision:
    """"``a`` is comparable with ``b``" (|a - b| < ``margin`` in metric units, TOST) or, with ``one_sided``,
    "``a`` is not worse than ``b`` by more than ``margin``" (non-inferiority), per dataset on paired splits
    with the corrected resampled variance. ``unit`` names what a "dataset" is in the verdict's text (e.g.
    "experiments" when each is a (dataset, activation) pair)."""
    if not margin > 0:
        raise ValueError(f"margin={margin!r}: must be > 0 (in the metric's units)")
    hib = _direction(metric, higher_is_better)
    datasets = list(datasets)
    if not datasets:
        return not_tested("no dataset to test on")
    rows = folds[folds["dataset"].isin(datasets) & folds["model"].isin([a, b])]
    details, shown, broken, n, smallest, ps = [], [], [], 0, [], []
    for d, part in rows.groupby("dataset", sort=True):
        wide = part.pivot_table(index=["repeat", "fold"], columns="model", values=metric, aggfunc="first").dropna()
        if a not in wide or b not in wide or len(wide) < 2:
            continue
        sizes = part.drop_duplicates(["repeat", "fold"])
        ratio = float(sizes["n_test"].mean() / sizes["n_train"].mean())
        diff = (wide[a] - wide[b]).to_numpy(float) * (1 if hib else -1)  # > 0: a better
        iv = margin_test(diff, -margin, math.inf if one_sided else margin, test_train_ratio=ratio, alpha=alpha)
        n += 1
        smallest.append(tost_min_margin(diff.size, float(diff.std(ddof=1)), alpha=alpha, test_train_ratio=ratio))
        ok = iv.p_above < alpha and (one_sided or iv.p_below < alpha)
        ps.append(iv.p_above if one_sided else max(iv.p_above, iv.p_below))
        out = _outside(diff, margin, one_sided, ratio, alpha)
        if ok:
            shown.append(d)
        elif out:
            broken.append(d)
        # shown as a - b in the metric's own units (the test ran on "a better" = positive)
        mean, low, high = (iv.mean, iv.low, iv.high) if hib else (-iv.mean, -iv.high, -iv.low)
        details.append(f"{d}: {a} - {b} = {mean:+.3f} (sign: {'+' if hib else '-'} is {a} better; "
                       f"{1 - 2 * alpha:.0%} interval [{low:+.3f}, {high:+.3f}], {iv.n} splits) vs margin "
                       f"{('-' if hib else '+') if one_sided else '±'}{margin:g}: "
                       + ("within the margin" if ok else "significantly outside" if out else "not shown either way"))
    if n == 0:
        return not_tested(f"no paired splits of {a} and {b} stored")
    kind = "non-inferior" if one_sided else "equivalent"
    tally = f"{kind} within {margin:g} on {len(shown)} of {n} {unit}" + (f"; outside on {', '.join(broken)}" if broken else "")
    sens = ""
    if _sensitivity:
        sens = "; ".join(f"at {m:g}: " + comparable(folds, a, b, metric, datasets, m, one_sided=one_sided, alpha=alpha,
                                                    higher_is_better=higher_is_better, unit=unit,
                                                    _sensitivity=False).verdict for m in (margin / 2, 2 * margin))
    power = (f"smallest margin TOST establishes per dataset at a true difference 0 (corrected variance, power 0.8): "
             f"median {np.median(smallest):.3g}, largest {max(smallest):.3g}") if smallest else ""
    verdict = NOT_HELD if broken else HELD if len(shown) == n else INCONCLUSIVE
    # held needs every dataset shown at alpha (no correction over them, as the rule states): its p is the largest
    return Decision(verdict, tally, details, power, sens, p=float(max(ps)), best_p=0.0)


def _outside(diff, margin: float, one_sided: bool, ratio: float, alpha: float) -> bool:
    """True when the difference is significantly below -margin (or, two-sided, significantly above +margin)."""
    below = margin_test(diff, -math.inf, -margin, test_train_ratio=ratio, alpha=alpha).p_below < alpha
    above = not one_sided and margin_test(diff, margin, math.inf, test_train_ratio=ratio, alpha=alpha).p_above < alpha
    return bool(below or above)


def _one_sided(iv, alpha: float, ev: str) -> Decision:
    """Held if the one-sided test above the bound is significant, not held if the one below is, else inconclusive."""
    verdict = HELD if iv.p_above < alpha else NOT_HELD if iv.p_below < alpha else INCONCLUSIVE
    return Decision(verdict, ev, p=float(iv.p_above), best_p=0.0)


def faster(slow_times, fast_times, factor: float = 1.0, *, alpha: float = ALPHA, what: str = "") -> Decision:
    """"The fast method takes at most 1/``factor`` of the slow one's time" on paired timings."""
    slow, fast = np.asarray(slow_times, float), np.asarray(fast_times, float)
    if slow.size < 2:
        return not_tested(f"{slow.size} paired timing(s){' of ' + what if what else ''}; the test needs >= 2")
    iv = log_ratio_test(slow, fast, factor, alpha=alpha)
    ev = (f"{iv.n} paired timings{' of ' + what if what else ''}: time ratio {iv.mean:.2f}x (geometric mean, "
          f"{1 - 2 * alpha:.0%} interval {iv.low:.2f}-{iv.high:.2f}x) vs {factor:g}x: one-sided {_p(iv.p_above)}")
    d = _one_sided(iv, alpha, ev)
    logs = np.log(slow / fast)
    mde = mde_t(logs.size, float(logs.std(ddof=1)), alpha=alpha, two_sided=False)
    d.power = (f"detects a true ratio of {factor * math.exp(mde):.3g}x or more against {factor:g}x (one-sided t-test "
               f"on {logs.size} log ratios, alpha {alpha:g}, power 0.8)")
    return d


def exceeds(values, threshold: float, *, higher: bool = True, alpha: float = ALPHA, what: str = "") -> Decision:
    """"The score is above (``higher``) / below ``threshold``" from independent replicates (seeds)."""
    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    if v.size < 2:
        return not_tested(f"{v.size} replicate(s){' of ' + what if what else ''}; the test needs >= 2 "
                          f"(single value {_fmt(v[0]) if v.size else 'none'} vs {threshold:g})")
    d = v - threshold if higher else threshold - v
    iv = margin_test(d, 0.0, 0.0, alpha=alpha)
    side = "above" if higher else "below"
    ev = (f"{v.size} replicates{' of ' + what if what else ''}: mean {v.mean():.3f} ({1 - 2 * alpha:.0%} interval "
          f"{iv.low * (1 if higher else -1) + threshold:.3f}..{iv.high * (1 if higher else -1) + threshold:.3f}) "
          f"vs {threshold:g}: one-sided {_p(iv.p_above)} for {side}")
    return _one_sided(iv, alpha, ev)


# --- data kinds ---------------------------------------------------------------------------------------------

def data_kind(name: str, stand_in_for: str = "") -> str:
    """"substitute" (a named stand-in: ``stand_in_for`` set or the registry's ``substitute_of``),
    "regenerated" (every source of the dataset is a generator: our version of a paper's generator) or "real".
    A name the registry does not know is real unless ``stand_in_for`` says otherwise."""
    if isinstance(stand_in_for, str) and stand_in_for.strip():
        return "substitute"
    try:
        from ..data.registry import get_spec
        spec = get_spec(name)
    except Exception:  # noqa: BLE001 - an unregistered name (a test frame, a dropped card) counts as real
        return "real"
    if spec.is_substitute:
        return "substitute"
    kinds = {getattr(src, "kind", "") for src in spec.sources}
    return "regenerated" if kinds and kinds <= set(GENERATED_SOURCES) else "real"


def by_kind(names, stand_in_for: dict | None = None) -> dict[str, list[str]]:
    """The dataset names split into :data:`KINDS` (order kept)."""
    out = {k: [] for k in KINDS}
    for n in dict.fromkeys(names):
        out[data_kind(n, (stand_in_for or {}).get(n, ""))].append(n)
    return out


def kinds_line(kinds: dict[str, list[str]]) -> str:
    return "; ".join(f"{k}: {', '.join(v) if v else 'none'}" for k, v in kinds.items())


def target_spread(names) -> dict[str, float]:
    """Each dataset's target standard deviation (loaded offline), the scale for "RMSE relative to the target's
    spread"; a dataset that does not load is left out."""
    from ..data import load_dataset
    out = {}
    for n in names:
        try:
            out[n] = float(np.std(load_dataset(n).y))
        except Exception:  # noqa: BLE001 - reported by the caller as "no scale"
            continue
    return out


# --- claims about a table, decided over datasets -------------------------------------------------------------

def dataset_diffs(folds: pd.DataFrame, a: str, b: str, metric: str, datasets, *, higher_is_better: bool | None = None,
                  scale: dict | None = None) -> pd.DataFrame:
    """Per dataset: ``mean_a``, ``mean_b`` (over the paired splits), ``diff`` = mean_a - mean_b (divided by
    ``scale[dataset]`` when given) and ``better`` = diff oriented so that > 0 means ``a`` is better."""
    hib = _direction(metric, higher_is_better)
    rows = folds[folds["dataset"].isin(list(datasets)) & folds["model"].isin([a, b])]
    out = []
    for d, part in rows.groupby("dataset", sort=False):
        wide = part.pivot_table(index=["repeat", "fold"], columns="model", values=metric, aggfunc="first").dropna()
        if a not in wide or b not in wide or wide.empty:
            continue
        if scale is not None and not (d in scale and scale[d] > 0):
            continue
        s = float(scale[d]) if scale is not None else 1.0
        ma, mb = float(wide[a].mean()), float(wide[b].mean())
        out.append({"dataset": d, "mean_a": ma, "mean_b": mb, "diff": (ma - mb) / s,
                    "better": (ma - mb) / s * (1 if hib else -1), "n_folds": len(wide)})
    return pd.DataFrame(out, columns=["dataset", "mean_a", "mean_b", "diff", "better", "n_folds"])


def _u(x: float, unit: str, digits: int = 3) -> str:
    return f"{x:+.{digits}g} {unit}".rstrip() if abs(x) < 10 ** -digits and x != 0 else f"{x:+.{digits}f} {unit}".rstrip()


def _bayes(better: np.ndarray, rope: float) -> tuple[float, float, float]:
    """(P(A better), P(rope), P(B better)) of the Bayesian signed-rank test on oriented differences."""
    return bayes_signed_rank(better, np.zeros_like(better), rope, True)


def _dataset_lines(t: pd.DataFrame, a: str, b: str, unit: str) -> list[str]:
    return [f"{r.dataset}: {a} {r.mean_a:.4g} vs {b} {r.mean_b:.4g} (difference {_u(r.better, unit)}, + = {a} "
            f"better, {r.n_folds} splits)" for r in t.itertuples()]


def _table_diffs(folds, a, b, metric, datasets, higher_is_better, scale):
    """The per-dataset differences a table-level rule tests (:func:`dataset_diffs`), or the "not tested"
    Decision when there is nothing to test."""
    if not datasets:
        return not_tested("no dataset of this kind")
    t = dataset_diffs(folds, a, b, metric, datasets, higher_is_better=higher_is_better, scale=scale)
    return not_tested(f"no paired splits of {a} and {b} stored") if t.empty else t


def signed_rank_verdict(diffs, alpha: float = ALPHA) -> tuple[str, float, float, float, str | None]:
    """"The differences are above 0", decided by the two-sided Wilcoxon signed-rank test: held if significant with
    R+ > R-, not held if significant with R- > R+, else inconclusive. Returns (verdict, R+, R-, p, note)."""
    wp, wm, p, note = signed_rank(diffs, alpha)
    return (HELD if p < alpha and wp > wm else NOT_HELD if p < alpha and wm > wp else INCONCLUSIVE), wp, wm, p, note


def beats_over_datasets(folds: pd.DataFrame, a: str, b: str, metric: str, datasets, *, unit: str, rope: float,
                        higher_is_better: bool | None = None, scale: dict | None = None,
                        paper_effect: float | None = None, alpha: float = ALPHA) -> Decision:
    """""``a`` is better than ``b``" about a whole table: the Wilcoxon signed-rank test over the per-dataset mean
    differences (module docstring). ``unit`` names the differences' units (after ``scale``), ``rope`` the
    Bayesian test's region of practical equivalence in those units, ``paper_effect`` the paper's own mean
    difference (oriented, same units) for the "underpowered" check."""
    datasets = list(datasets)
    t = _table_diffs(folds, a, b, metric, datasets, higher_is_better, scale)
    if isinstance(t, Decision):
        return t
    n, better = len(t), t["better"].to_numpy(float)
    wins, losses = int((better > 0).sum()), int((better < 0).sum())
    unscaled = [d for d in datasets if scale is not None and d not in scale and d in set(folds["dataset"])]
    head = (f"{n} datasets: {a} better on {wins}, worse on {losses}; mean difference {_u(better.mean(), unit)} "
            f"(median {_u(float(np.median(better)), unit)})" + (f"; left out (no scale): {', '.join(unscaled)}"
                                                                 if unscaled else ""))
    details = _dataset_lines(t, a, b, unit)
    need = min_wilcoxon_pairs(alpha)
    sd = float(better.std(ddof=1)) if n > 1 else math.nan
    mde = mde_wilcoxon(n, sd, alpha=alpha)
    best = 2.0 / 2 ** n  # the exact two-sided Wilcoxon's smallest p over n non-zero differences
    if n < need:
        power = (f"underpowered: no test over {n} dataset(s) can reach p < {alpha:g} (the Wilcoxon and sign tests "
                 f"need >= {need})")
        return Decision(INCONCLUSIVE, head + "; too few datasets for a test over datasets", details, power,
                        "no margin decides this rule", p=None, best_p=best)
    verdict, wp, wm, p, note = signed_rank_verdict(better, alpha)
    pos, neg, p_sign = sign_test(better)
    pa, pr, pb = _bayes(better, rope)
    ev = (f"{head}; Wilcoxon signed-rank over datasets R+ = {wp:g}, R- = {wm:g}, two-sided {_p(p)}"
          + (f" ({note})" if note else "") + f"; sign test {pos}:{neg} {_p(p_sign)}; Bayesian signed-rank "
          f"P({a} better) = {pa:.3f}, P(rope ±{rope:g} {unit}) = {pr:.3f}, P({b} better) = {pb:.3f}")
    q = mde_sign(n, alpha=alpha)
    power = (f"MDE {mde:.3g} {unit} (Wilcoxon over {n} datasets at alpha {alpha:g}, power 0.8: the t-test's MDE at "
             f"n·3/π pairs, sd of the per-dataset differences {sd:.3g}); the sign test needs {a} better on >= "
             + (f"{q:.0%} of datasets" if math.isfinite(q) else "more datasets than there are"))
    if paper_effect is not None and math.isfinite(paper_effect) and abs(paper_effect) < mde:
        power = f"underpowered: the paper's own mean difference {paper_effect:+.3g} {unit} is below the " + power
    sens = "no margin decides this rule; Bayesian P(" + a + " better) / P(rope) at ROPE " + ", ".join(
        f"±{r:g}: {x[0]:.3f} / {x[1]:.3f}" for r, x in ((r, _bayes(better, r)) for r in (rope / 2, 2 * rope)))
    return Decision(verdict, ev, details, power, sens, p=float(p) if wp > wm else 1.0, best_p=best)


def equivalent_over_datasets(folds: pd.DataFrame, a: str, b: str, metric: str, datasets, margin: float, *,
                             unit: str, higher_is_better: bool | None = None, scale: dict | None = None,
                             alpha: float = ALPHA, _sensitivity: bool = True) -> Decision:
    """"``a`` is comparable with ``b``" about a whole table: TOST of the mean per-dataset difference against
    ±``margin`` (in ``unit``, after ``scale``), datasets as independent replicates; the Bayesian P(rope) at the
    same margin beside it; the verdict at half and double the margin."""
    if not margin > 0:
        raise ValueError(f"margin={margin!r}: must be > 0 (in the metric's units)")
    datasets = list(datasets)
    t = _table_diffs(folds, a, b, metric, datasets, higher_is_better, scale)
    if isinstance(t, Decision):
        return t
    n, diff = len(t), t["better"].to_numpy(float)
    details = _dataset_lines(t, a, b, unit)
    if n < 2:
        return Decision(INCONCLUSIVE, f"1 dataset ({_u(diff[0], unit)}): a test over datasets needs >= 2", details,
                        "underpowered: no test over 1 dataset", "", p=None, best_p=1.0)
    iv = margin_test(diff, -margin, margin, alpha=alpha)
    below = margin_test(diff, -math.inf, -margin, alpha=alpha).p_below
    above = margin_test(diff, margin, math.inf, alpha=alpha).p_above
    p_equiv, out = max(iv.p_above, iv.p_below), min(below, above) < alpha
    verdict = HELD if p_equiv < alpha else NOT_HELD if out else INCONCLUSIVE
    ev = (f"{n} datasets: mean {a} - {b} {_u(iv.mean, unit)} (+ = {a} better; {1 - 2 * alpha:.0%} interval "
          f"[{iv.low:+.3g}, {iv.high:+.3g}]) vs ±{margin:g} {unit}: TOST {_p(p_equiv)}"
          + ("; significantly outside" if out else ""))
    if n >= 2:
        pa, pr, pb = _bayes(diff, margin)
        ev += f"; Bayesian signed-rank P(rope) = {pr:.3f} (P({a} better) {pa:.3f}, P({b} better) {pb:.3f})"
    sd = float(diff.std(ddof=1))
    smallest = tost_min_margin(n, sd, alpha=alpha)
    power = (f"smallest margin TOST establishes over {n} datasets at a true difference 0: {smallest:.3g} {unit} "
             f"(alpha {alpha:g}, power 0.8, sd {sd:.3g})" + ("; underpowered at this margin" if smallest > margin else ""))
    sens = ""
    if _sensitivity:
        sens = "; ".join(f"at ±{m:g} {unit}: " + equivalent_over_datasets(
            folds, a, b, metric, datasets, m, unit=unit, higher_is_better=higher_is_better, scale=scale, alpha=alpha,
            _sensitivity=False).verdict for m in (margin / 2, 2 * margin))
    return Decision(verdict, ev, details, power, sens, p=float(p_equiv), best_p=0.0)


def per_dataset_power(folds: pd.DataFrame, a: str, b: str, metric: str, datasets, *, alpha: float = ALPHA,
                      unit: str = "") -> str:
    """The per-dataset corrected t-test's MDE (Bonferroni level alpha / m: Holm's strictest step), median and
    range over the datasets, in the metric's units."""
    rows = folds[folds["dataset"].isin(list(datasets)) & folds["model"].isin([a, b])]
    mdes = []
    groups = list(rows.groupby("dataset", sort=True))
    for _, part in groups:
        wide = part.pivot_table(index=["repeat", "fold"], columns="model", values=metric, aggfunc="first").dropna()
        if a not in wide or b not in wide or len(wide) < 2:
            continue
        sizes = part.drop_duplicates(["repeat", "fold"])
        ratio = float(sizes["n_test"].mean() / sizes["n_train"].mean()) if "n_test" in sizes else 0.0
        d = (wide[a] - wide[b]).to_numpy(float)
        mdes.append(mde_t(d.size, float(d.std(ddof=1)), alpha=alpha / max(1, len(groups)), test_train_ratio=ratio))
    if not mdes:
        return ""
    m = np.asarray(mdes)
    return (f"per-dataset corrected t-test MDE (alpha {alpha:g}/{len(groups)}, power 0.8): median {np.median(m):.3g}"
            f"{' ' + unit if unit else ''}, range {m.min():.3g}..{m.max():.3g}")


# --- rendering -------------------------------------------------------------------------------------------

def counts(claims: list[Claim], part: str = "real") -> dict[str, int]:
    """Label -> number of claims (on the real datasets by default); "undecidable here" apart from "inconclusive"."""
    out = {v: 0 for v in LABELS}
    for c in claims:
        d = getattr(c, part)
        out[d.label() if d is not None else NOT_TESTED] += 1
    return out


def holm_over_claims(claims: list[Claim]) -> dict[str, float]:
    """``{claim id: Holm-adjusted p}`` over the claims whose deciding decision (the real data's, or for a claim not
    tested on real data the part that decides it: :func:`_deciding`) carries a rule p (:attr:`Decision.p`): the
    family is one paper's tested claims, so a held verdict can be read at the paper's level too."""
    ps = {c.id: _deciding(c)[1].p for c in claims}
    ids = [cid for cid, p in ps.items() if p is not None]
    return dict(zip(ids, (float(x) for x in holm(np.array([ps[i] for i in ids], float))))) if ids else {}


def multiplicity_lines(claims: list[Claim], alpha: float = ALPHA) -> list[str]:
    """The Holm section: each tested claim's rule p and its Holm-adjusted p over the paper's tested claims, and the
    held verdicts that do not survive the correction."""
    adj = holm_over_claims(claims)
    out = [f"## Multiplicity: Holm over this paper's claims ({len(adj)} with a rule p)", "",
           "The rule p of a claim is the smallest alpha at which its rule says held (over datasets: the test's p in the "
           "claim's favour; per dataset: the Holm-adjusted p that decides, e.g. the largest for \"all\"). A claim "
           "whose rule has no p (paper-specific rules, not tested) is left out of the family.", ""]
    if not adj:
        return out + ["No claim carries a rule p.", ""]
    out += ["| claim | verdict (the deciding data) | rule p | Holm p over the claims | held after Holm |",
            "|---|---|---|---|---|"]
    for c in claims:
        if c.id in adj:
            label, d = _deciding(c)
            after = "yes" if adj[c.id] < alpha else "no" if d.verdict == HELD else "-"
            out.append(f"| {c.id} | {label}{d.label()} | {_fmt(d.p, 4)} | {_fmt(adj[c.id], 4)} | {after} |")
    lost = [c.id for c in claims if c.id in adj and _deciding(c)[1].verdict == HELD and adj[c.id] >= alpha]
    return out + ["", ("Held at the claim's own alpha but not after Holm over the paper's claims: " + ", ".join(lost))
                  if lost else "Every held verdict with a rule p survives Holm over the paper's claims.", ""]


def no_real_data(claims: list[Claim]) -> list[str]:
    """The claims not tested on real data whose verdict rests on regenerated data or substitutes only."""
    return [c.id for c in claims if c.real.verdict == NOT_TESTED and any(
        d is not None and d.verdict != NOT_TESTED for d in (c.regenerated, c.substitutes))]


def counts_line(claims: list[Claim]) -> str:
    c = counts(claims)
    none = no_real_data(claims)
    return ", ".join(f"{c[v]} {v}" for v in LABELS) + (
        f" (real data only; {len(none)} claim(s) rest on no real data: {', '.join(none)})" if none else
        " (real data only)")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _part(d: Decision | None) -> str:
    return d.cell() if d is not None else "-"


def _deciding(c: Claim) -> tuple[str, Decision]:
    """The part whose power and sensitivity the table shows: the real data's, or, for a claim not tested on real
    data, the first tested of the regenerated data and the substitutes (named in the cell)."""
    if c.real.verdict != NOT_TESTED:
        return "", c.real
    for label, d in (("regenerated", c.regenerated), ("substitutes", c.substitutes)):
        if d is not None and d.verdict != NOT_TESTED:
            return f"({label}) ", d
    return "", c.real


def markdown_table(claims: list[Claim]) -> list[str]:
    """The claims table: claim | the paper's words | rule (date fixed) | margin | real | regenerated | substitutes |
    the paper's own numbers | power | verdict at half / double the margin (both of the real data, or, for a claim
    not tested on real data, of the part that decides it, named)."""
    out = ["| claim | the paper's words | rule (fixed) | margin | real data | regenerated data | substitutes | "
           "the paper's own numbers | power | at half / double margin |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for c in claims:
        label, d = _deciding(c)
        out.append("| " + " | ".join(_cell(x) for x in (
            f"{c.id}: {c.where}", f"\"{c.words}\"", f"{c.rule} ({c.date})", c.margin or "-", c.real.cell(),
            _part(c.regenerated), _part(c.substitutes), _part(c.published),
            label + d.power if d.power else "-", label + d.sensitivity if d.sensitivity else "-")) + " |")
    return out


def details(claims: list[Claim]) -> list[str]:
    out = []
    for c in claims:
        out += [f"### {c.id}: {c.where}", "", f"> {c.words}", "", f"Rule (fixed {c.date}): {c.rule}", ""]
        if c.margin:
            out += [f"Margin: {c.margin}", ""]
        for label, d in (("Real datasets", c.real), ("Regenerated data", c.regenerated), ("On substitutes", c.substitutes)):
            if d is None:
                continue
            out += [f"{label}: **{d.cell()}**", ""]
            out += [f"- power: {d.power}"] if d.power else []
            out += [f"- at half / double the margin: {d.sensitivity}"] if d.sensitivity else []
            out += [f"- {ln}" for ln in d.details] + [""]
    return out


def margins_lines(rows) -> list[str]:
    """A paper's margin / ROPE table: rows of (quantity, margin with units, why)."""
    return ["| quantity | margin / ROPE | why |", "|---|---|---|"] + [
        "| " + " | ".join(_cell(str(x)) for x in r) + " |" for r in rows]


def deviations_lines(names, extra=()) -> list[str]:
    """A paper's deviations: ``extra`` (protocol lines) then, per dataset, its kind and the catalogue's note."""
    out = [f"- {x}" for x in extra]
    try:
        from ..data.registry import get_spec
    except Exception:  # noqa: BLE001
        get_spec = None
    for n in dict.fromkeys(names):
        note = ""
        if get_spec is not None:
            try:
                note = get_spec(n).notes
            except Exception:  # noqa: BLE001 - not in the catalogue
                note = ""
        out.append(f"- {n} ({data_kind(n)}): {note or 'no catalogue note'}")
    return out


def inventory_lines(claims: list[Claim], excluded=()) -> list[str]:
    """The claim inventory: the tested claims by id, then each excluded claim with the reason it is not tested
    (``excluded``: (the paper's words, where, why))."""
    out = ["| claim | where | status |", "|---|---|---|"]
    out += [f"| {_cell(c.id)} | {_cell(c.where)} | tested (real: {c.real.verdict}) |" for c in claims]
    out += [f"| \"{_cell(w)}\" | {_cell(where)} | not tested: {_cell(why)} |" for w, where, why in excluded]
    return out


def records(claims: list[Claim]) -> dict:
    return {"counts": counts(claims), "claims": [c.record() for c in claims]}


def load_previous(path: Path) -> dict | None:
    """The claims JSON of the last snapshot (the committed file, read before it is rewritten), or None."""
    path = Path(path)
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("claims"), list) else None


def changes(claims: list[Claim], previous: dict | None, since: str = "the last snapshot") -> list[str]:
    """Markdown lines: every claim whose real-data verdict differs from ``previous`` (a :func:`records` dict),
    and the claims added or dropped."""
    head = [f"## Changes since {since}", ""]
    if previous is None:
        return head + ["No earlier claims file to compare with.", ""]
    old = {c["id"]: c for c in previous["claims"]}
    new = {c.id: c for c in claims}
    lines = []
    for cid, c in new.items():
        if cid not in old:
            lines.append(f"- {cid}: new claim, {c.real.verdict}")
            continue
        before = (old[cid].get("real") or {}).get("verdict", NOT_TESTED)
        if before != c.real.verdict:
            lines.append(f"- {cid}: {before} -> {c.real.verdict} ({c.real.evidence}; before: "
                         f"{(old[cid].get('real') or {}).get('evidence', '')})")
    lines += [f"- {cid}: dropped (was {(o.get('real') or {}).get('verdict', NOT_TESTED)})" for cid, o in old.items() if cid not in new]
    pc = previous.get("counts") or {}
    summary = (f"Counts on real datasets: before {', '.join(f'{pc.get(v, 0)} {v}' for v in VERDICTS)}; "
               f"now {counts_line(claims)}.")
    return head + (lines or ["No verdict changed."]) + ["", summary, ""]


# --------------------------------------------------------------------------- the verdict history (a committed log)

HISTORY_FORMAT = "randml-verdicts/1"


def _read_history(log: Path) -> list[dict]:
    log = Path(log)
    if not log.is_file():
        return []
    out = []
    for n, line in enumerate(log.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                out.append(json.loads(line))
            except ValueError:
                raise ValueError(f"{log}:{n}: not a JSON line; the verdict log is appended to, never edited: "
                                 "restore it with `git checkout -- <file>`") from None
    return out


_CHANGE_LINE = re.compile(r"^- (?P<id>[\w.\-]+): (?P<before>[a-z ]+?) -> (?P<after>[a-z ]+?)(?: \((?P<why>.*)\))?$")


def _seed(previous: dict | None, report: Path | None) -> list[dict]:
    """The log's first entries, from the committed snapshot it replaces: each change the last report's "Changes
    since" section recorded, then every claim's verdict in the committed claims file."""
    entries = []
    text = Path(report).read_text(encoding="utf-8") if report is not None and Path(report).is_file() else ""
    section = text.split("## Changes since", 1)[1].split("\n## ", 1)[0] if "## Changes since" in text else ""
    for line in section.splitlines():
        m = _CHANGE_LINE.match(line.strip())
        if m and m["before"] in VERDICTS and m["after"] in VERDICTS:
            entries.append({"format": HISTORY_FORMAT, "claim": m["id"], "before": m["before"], "after": m["after"],
                            "evidence": m["why"] or "", "source": f"{Path(report).name} (the report before the log)"})
    for c in (previous or {}).get("claims", []):
        verdict = (c.get("real") or {}).get("verdict", NOT_TESTED)
        entries.append({"format": HISTORY_FORMAT, "claim": c["id"], "before": None, "after": verdict,
                        "evidence": (c.get("real") or {}).get("evidence", ""),
                        "source": "the committed claims file when the log began"})
    return entries


def history(claims: list[Claim], previous: dict | None, log: Path, report: Path | None = None) -> list[str]:
    """The verdict history section, from the committed log ``log`` (JSON lines, appended, never rewritten): every
    claim whose real-data verdict differs from its last logged one is appended (with the code version and the rule),
    then every logged change is listed. The same claims give the same log and the same lines (idempotent); a log
    that does not exist yet is seeded from the committed snapshot (``previous``: the claims file, ``report``: the
    report whose "Changes since" section it replaces)."""
    from ..provenance import short_version
    log = Path(log)
    entries = _read_history(log)
    fresh = not entries
    if fresh:
        entries = _seed(previous, report)
    last = {}
    for e in entries:
        last[e["claim"]] = e["after"]
    added = [{"format": HISTORY_FORMAT, "claim": c.id, "before": last.get(c.id), "after": c.real.verdict,
              "evidence": c.real.evidence, "rule": c.rule, "code": short_version()}
             for c in claims if last.get(c.id) != c.real.verdict]
    ids = {c.id for c in claims}
    added += [{"format": HISTORY_FORMAT, "claim": cid, "before": v, "after": "dropped", "evidence": "no longer a claim "
               "of the report", "code": short_version()} for cid, v in last.items() if cid not in ids and v != "dropped"]
    if fresh or added:
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "a" if not fresh else "w", encoding="utf-8") as fh:
            for e in (entries if fresh else []) + added:
                fh.write(json.dumps(e, sort_keys=True) + "\n")
    entries += added
    lines = [f"## Verdict history (real data; the committed log `{log.name}`, appended, never erased)", ""]
    changed = [e for e in entries if e.get("before") is not None]
    new_ids = [e for e in entries if e.get("before") is None and e.get("source") is None]
    lines += [f"- {e['claim']}: {e['before']} -> {e['after']}" + (f" ({e['evidence']})" if e.get("evidence") else "")
              + (f" [code {e['code']}]" if e.get("code") else f" [{e['source']}]" if e.get("source") else "")
              for e in changed]
    lines += [f"- {e['claim']}: first logged as {e['after']} [code {e.get('code', '?')}]" for e in new_ids]
    if len(lines) == 2:
        lines.append("No verdict has changed since the log began.")
    return lines + [""]


#: the shared decision rules: a change to any of them is a change of every paper's rule code, registered in each
#: paper's claims registry (:mod:`.registry`) before a report decides with it
RULE_FUNCTIONS = (paired_tests, beats, best_among, _need_p, _need_verdict, beats_on_means, comparable, _outside, _one_sided, faster,
                  exceeds, dataset_diffs, _table_diffs, signed_rank_verdict, beats_over_datasets, equivalent_over_datasets,
                  data_kind)
