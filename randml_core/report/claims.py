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

Rules (``alpha`` = 0.05 unless a report says otherwise), all on paired per-split scores at each model's
selected setting (the ``<table>_folds.csv`` artefacts or the store's outer rows):

- :func:`beats` "A beats / is better than B": per dataset the corrected resampled t-test (Nadeau & Bengio
  2003), p-values Holm-adjusted over the datasets tested. ``need="any"`` / ``"all"``: not held if B is
  significantly better on any dataset; held if A is significantly better on one / on every dataset; else
  inconclusive. ``need="majority"`` (the papers' "generally"): held if A is significantly better on more
  than half of the datasets, not held if B is on at least half, else inconclusive. The Wilcoxon signed-rank test over the dataset means is shown
  beside it when there are enough datasets.
- :func:`comparable` "A is comparable / competitive with B": per dataset two one-sided tests of the
  difference against a stated margin (equivalence: |A - B| < margin; ``one_sided=True``: non-inferiority,
  A - B > -margin). Held if shown on every dataset; not held if on some dataset the difference is
  significantly outside the margin; else inconclusive.
- :func:`faster` "A is faster than B (by a factor)": paired timings, a one-sided t-test of log(B / A)
  against log(factor).
- :func:`exceeds` "A's score is above x": a one-sided t-test of the replicate scores against x.

Pure functions of frames; nothing here fits a model or reads the store.
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..stats import StatsRefusal, corrected_ttest, holm, wilcoxon_signed_rank
from ..stats.direction import higher_is_better as _direction
from ..stats.margins import log_ratio_test, margin_test

HELD, NOT_HELD, INCONCLUSIVE, NOT_TESTED = "held", "not held", "inconclusive", "not tested"
VERDICTS = (HELD, NOT_HELD, INCONCLUSIVE, NOT_TESTED)
ALPHA = 0.05
NEEDS = ("any", "all", "majority")


@dataclass
class Decision:
    """A verdict and the evidence behind it (one line), with per-dataset rows for the details section."""
    verdict: str
    evidence: str
    details: list[str] = field(default_factory=list)

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict {self.verdict!r}: must be one of {VERDICTS}")

    def cell(self) -> str:
        return f"{self.verdict} ({self.evidence})" if self.evidence else self.verdict


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

    def record(self) -> dict:
        out = {k: v for k, v in asdict(self).items() if k not in ("real", "substitutes", "published")}
        for part in ("real", "substitutes", "published"):
            d = getattr(self, part)
            out[part] = None if d is None else {"verdict": d.verdict, "evidence": d.evidence}
        return out


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
    return Decision(_need_verdict(need, n, len(better), len(worse), bool(missing)),
                    tally + (f" (worse: {', '.join(worse)})" if worse else ""), details)


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
               alpha: float = ALPHA, higher_is_better: bool | None = None, unit: str = "datasets") -> Decision:
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
    details, shown, broken, n = [], [], [], 0
    for d, part in rows.groupby("dataset", sort=True):
        wide = part.pivot_table(index=["repeat", "fold"], columns="model", values=metric, aggfunc="first").dropna()
        if a not in wide or b not in wide or len(wide) < 2:
            continue
        sizes = part.drop_duplicates(["repeat", "fold"])
        ratio = float(sizes["n_test"].mean() / sizes["n_train"].mean())
        diff = (wide[a] - wide[b]).to_numpy(float) * (1 if hib else -1)  # > 0: a better
        iv = margin_test(diff, -margin, math.inf if one_sided else margin, test_train_ratio=ratio, alpha=alpha)
        n += 1
        ok = iv.p_above < alpha and (one_sided or iv.p_below < alpha)
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
    if broken:
        return Decision(NOT_HELD, tally, details)
    return Decision(HELD if len(shown) == n else INCONCLUSIVE, tally, details)


def _outside(diff, margin: float, one_sided: bool, ratio: float, alpha: float) -> bool:
    """True when the difference is significantly below -margin (or, two-sided, significantly above +margin)."""
    below = margin_test(diff, -math.inf, -margin, test_train_ratio=ratio, alpha=alpha).p_below < alpha
    above = not one_sided and margin_test(diff, margin, math.inf, test_train_ratio=ratio, alpha=alpha).p_above < alpha
    return bool(below or above)


def _one_sided(iv, alpha: float, ev: str) -> Decision:
    """Held if the one-sided test above the bound is significant, not held if the one below is, else inconclusive."""
    if iv.p_above < alpha:
        return Decision(HELD, ev)
    if iv.p_below < alpha:
        return Decision(NOT_HELD, ev)
    return Decision(INCONCLUSIVE, ev)


def faster(slow_times, fast_times, factor: float = 1.0, *, alpha: float = ALPHA, what: str = "") -> Decision:
    """"The fast method takes at most 1/``factor`` of the slow one's time" on paired timings."""
    slow, fast = np.asarray(slow_times, float), np.asarray(fast_times, float)
    if slow.size < 2:
        return not_tested(f"{slow.size} paired timing(s){' of ' + what if what else ''}; the test needs >= 2")
    iv = log_ratio_test(slow, fast, factor, alpha=alpha)
    ev = (f"{iv.n} paired timings{' of ' + what if what else ''}: time ratio {iv.mean:.2f}x (geometric mean, "
          f"{1 - 2 * alpha:.0%} interval {iv.low:.2f}-{iv.high:.2f}x) vs {factor:g}x: one-sided {_p(iv.p_above)}")
    return _one_sided(iv, alpha, ev)


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


# --- rendering -------------------------------------------------------------------------------------------

def counts(claims: list[Claim], part: str = "real") -> dict[str, int]:
    """Verdict -> number of claims (on the real datasets by default)."""
    out = {v: 0 for v in VERDICTS}
    for c in claims:
        d = getattr(c, part)
        out[d.verdict if d is not None else NOT_TESTED] += 1
    return out


def counts_line(claims: list[Claim]) -> str:
    c = counts(claims)
    return ", ".join(f"{c[v]} {v}" for v in VERDICTS)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_table(claims: list[Claim]) -> list[str]:
    """The claims table: claim | the paper's words | rule | real datasets | on substitutes | the paper's own numbers."""
    out = ["| claim | the paper's words | rule | real datasets | on substitutes | the paper's own numbers |",
           "|---|---|---|---|---|---|"]
    for c in claims:
        out.append("| " + " | ".join(_cell(x) for x in (
            f"{c.id}: {c.where}", f"\"{c.words}\"", c.rule, c.real.cell(),
            c.substitutes.cell() if c.substitutes else "-", c.published.cell() if c.published else "-")) + " |")
    return out


def details(claims: list[Claim]) -> list[str]:
    out = []
    for c in claims:
        out += [f"### {c.id}: {c.where}", "", f"> {c.words}", "", f"Rule: {c.rule}", "", f"Real datasets: **{c.real.cell()}**", ""]
        out += [f"- {ln}" for ln in c.real.details]
        if c.substitutes is not None:
            out += ["", f"On substitutes: {c.substitutes.cell()}", ""] + [f"- {ln}" for ln in c.substitutes.details]
        out.append("")
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
