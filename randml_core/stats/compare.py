"""``compare``: rank-based comparison of several models over several datasets (Demsar 2006) plus
pairwise Wilcoxon / Holm and Bayesian signed-rank tests, collected in one :class:`Comparison`."""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from .direction import higher_is_better as _direction
from .pairwise import bayes_signed_rank, holm, wilcoxon_signed_rank
from .ranks import TestResult, friedman, nemenyi_cd, rank_matrix
from .refusal import StatsRefusal, min_friedman_datasets, min_nemenyi_datasets

PAIRWISE_COLUMNS = ["model_a", "model_b", "n", "mean_diff", "wins_a", "wins_b", "ties", "wilcoxon_w", "p",
                    "p_holm", "significant", "rank_diff", "nemenyi_significant", "p_left", "p_rope", "p_right",
                    "note"]


@dataclass(frozen=True)
class CriticalDifference:
    """Nemenyi CD (Demsar 2006, Section 3.2.2), or the reason it did not apply (value NaN)."""
    value: float = math.nan
    q_alpha: float = math.nan
    k: int = 0
    n: int = 0
    alpha: float = 0.05
    reason: str | None = None

    @property
    def applicable(self) -> bool:
        return self.reason is None


@dataclass
class Comparison:
    """Result of :func:`compare`.

    ranks: average rank per model (1 = best) over the ``n_datasets`` complete datasets;
    dataset_ranks: the per-dataset ranks; dropped: datasets left out because a model was missing;
    friedman / iman_davenport: :class:`TestResult` (reason set when refused); cd: :class:`CriticalDifference`;
    pairwise: one row per pair (model_a, model_b): mean_diff = mean(a - b), Wilcoxon W and p, Holm-adjusted
    p and significant (p_holm < alpha), |rank difference| and nemenyi_significant (>= CD), and the Bayesian
    signed-rank P(left) = a better, P(rope), P(right) = b better; note says what did not apply;
    notes: remarks on the whole comparison (e.g. too few datasets for p < alpha to be reachable).
    """
    metric: str
    higher_is_better: bool
    alpha: float
    rope: float
    models: list
    n_datasets: int
    dropped: list
    ranks: pd.Series
    dataset_ranks: pd.DataFrame
    friedman: TestResult
    iman_davenport: TestResult
    cd: CriticalDifference
    pairwise: pd.DataFrame
    notes: list = field(default_factory=list)

    @property
    def refusals(self) -> dict[str, str]:
        """Test name -> why it did not apply (only tests that were refused)."""
        named = (("Friedman", self.friedman), ("Iman-Davenport", self.iman_davenport), ("Nemenyi CD", self.cd))
        return {name: res.reason for name, res in named if res.reason}

    def to_markdown(self) -> str:
        """A short report section: ranks, Friedman / Iman-Davenport, CD, pairwise table, refusals."""
        way = "higher" if self.higher_is_better else "lower"
        lines = [f"### Comparison of {len(self.models)} models on {self.n_datasets} datasets "
                 f"({self.metric}, {way} is better; alpha = {self.alpha:g})", ""]
        if self.dropped:
            lines += [f"Dropped {len(self.dropped)} dataset(s) where a model has no score: "
                      f"{', '.join(map(str, self.dropped))}.", ""]
        rk = self.ranks.sort_values(kind="stable")
        lines += [_md_table(pd.DataFrame({"model": rk.index, "average rank": [f"{v:.3f}" for v in rk]})), ""]
        fr, idv = self.friedman, self.iman_davenport
        if fr.applicable:
            lines.append(f"Friedman chi2_F = {fr.statistic:.3f} (df {fr.df[0]}), p = {_p(fr.p)}; "
                         f"Iman-Davenport F_F = {idv.statistic:.3f} (df {idv.df[0]}, {idv.df[1]}), p = {_p(idv.p)}.")
        if self.cd.applicable:
            lines.append(f"Nemenyi critical difference CD = {self.cd.value:.3f} (q_{self.alpha:g} = "
                         f"{self.cd.q_alpha:.3f}, k = {self.cd.k}, N = {self.cd.n}).")
        lines.append("")
        if len(self.pairwise):
            pw = self.pairwise
            show = pd.DataFrame({
                "model a": pw["model_a"], "model b": pw["model_b"], "N": pw["n"],
                "mean a - b": [f"{v:+.4f}" for v in pw["mean_diff"]],
                "wins a/b/ties": [f"{a}/{b}/{t}" for a, b, t in zip(pw["wins_a"], pw["wins_b"], pw["ties"])],
                "Wilcoxon p": [_p(v) for v in pw["p"]], "Holm p": [_p(v) for v in pw["p_holm"]],
                "significant": [_flag(v) for v in pw["significant"]],
                "rank diff": [f"{v:.3f}" for v in pw["rank_diff"]],
                "≥ CD": [_flag(v) for v in pw["nemenyi_significant"]],
                "P(a better)": [_prob(v) for v in pw["p_left"]], "P(rope)": [_prob(v) for v in pw["p_rope"]],
                "P(b better)": [_prob(v) for v in pw["p_right"]]})
            lines += [f"Pairwise: Wilcoxon signed-rank with Holm's correction; Bayesian signed-rank test "
                      f"with rope ±{self.rope:g}.", "", _md_table(show), ""]
        by_reason: dict[str, list[str]] = {}
        for name, why in self.refusals.items():
            by_reason.setdefault(why, []).append(name)
        remarks = [f"- {', '.join(names)}: {why}" for why, names in by_reason.items()]
        by_note: dict[str, list[str]] = {}  # one line per reason, not per pair (15 identical lines at 6 models)
        for a, b, n in zip(self.pairwise.get("model_a", []), self.pairwise.get("model_b", []),
                           self.pairwise.get("note", [])):
            if isinstance(n, str):
                by_note.setdefault(n, []).append(f"{a} vs {b}")
        n_pairs = len(self.pairwise.get("model_a", []))
        for note, pairs in by_note.items():
            who = (f"all {n_pairs} pairs" if len(pairs) == n_pairs and n_pairs > 1 else
                   pairs[0] if len(pairs) == 1 else f"{len(pairs)} pairs ({', '.join(pairs)})")
            remarks.append(f"- {who}: {note}")
        remarks += [f"- {n}" for n in self.notes]
        if remarks:
            lines += ["Not applicable / remarks:", *remarks, ""]
        return "\n".join(lines)


def _p(v) -> str:
    if v is None or pd.isna(v):
        return "n/a"
    return "< 0.0001" if v < 1e-4 else f"{v:.4f}"


def _prob(v) -> str:
    return "n/a" if v is None or pd.isna(v) else f"{v:.3f}"


def _flag(v) -> str:
    return "n/a" if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)) else ("yes" if v else "no")


def _md_table(frame: pd.DataFrame) -> str:
    head = "| " + " | ".join(map(str, frame.columns)) + " |"
    sep = "|" + "---|" * len(frame.columns)
    body = ["| " + " | ".join(str(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([head, sep, *body])


def _check_scores(scores: pd.DataFrame) -> pd.DataFrame:
    if not isinstance(scores, pd.DataFrame):
        raise ValueError(f"scores must be a pandas DataFrame (index = dataset, columns = model), "
                         f"got {type(scores).__name__}")
    if scores.columns.duplicated().any():
        raise ValueError(f"scores has duplicate model column(s) {list(scores.columns[scores.columns.duplicated()])}")
    if scores.index.duplicated().any():
        raise ValueError(f"scores has duplicate dataset row(s) {list(scores.index[scores.index.duplicated()])}")
    try:
        values = scores.astype(float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"scores must be numeric, one number per (dataset, model): {exc}") from None
    if np.isinf(values.to_numpy()).any():
        raise ValueError("scores contain an infinite value; replace it by NaN (missing) or a finite score")
    if values.shape[1] < 2:
        raise StatsRefusal(f"comparing models needs >= 2 models (columns), got {values.shape[1]}")
    return values


def compare(scores: pd.DataFrame, metric: str, alpha: float = 0.05, rope: float = 0.01, *,
            higher_is_better: bool | None = None, bayes_samples: int = 50000, seed: int = 0) -> Comparison:
    """Compare the models (columns) of ``scores`` over its datasets (rows, one number per cell).

    Datasets with a missing (NaN) model are dropped and listed. Ranks, Friedman / Iman-Davenport and the
    Nemenyi CD follow Demsar 2006 (Section 3.2.2); each pair gets a Wilcoxon signed-rank test with Holm's
    step-down correction over all pairs, and a Bayesian signed-rank test (Benavoli et al. 2017) with
    ``rope`` in metric units (``bayes_samples`` posterior draws, seed ``seed``; Monte Carlo standard error
    of each probability <= 0.5 / sqrt(bayes_samples), 0.0022 at the default). A test that cannot apply
    (too few models / datasets) carries its reason instead of numbers.
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha={alpha!r}: pass a level in (0, 1), e.g. 0.05")
    hib = _direction(metric, higher_is_better)
    values = _check_scores(scores)
    complete = values.notna().all(axis=1)
    dropped = [d for d in values.index[~complete]]
    data = values[complete]
    models = list(data.columns)
    k, n = len(models), len(data)
    if n == 0:
        raise StatsRefusal(f"no dataset has a score for every model ({len(values)} datasets, all with a "
                           f"missing cell); compare fewer models or fill the missing cells")
    dataset_ranks = rank_matrix(data, hib)
    avg = dataset_ranks.mean(axis=0)
    notes = []

    try:
        fr, idv = friedman(avg.to_numpy(), n)
        need = min_friedman_datasets(k, alpha)
        if n < need:
            notes.append(f"with {n} datasets and {k} models the Friedman chi-square p cannot fall below "
                         f"{alpha:g} (smallest attainable {stats.chi2.sf(n * (k - 1), k - 1):.3g}); "
                         f"{need} datasets are needed")
    except StatsRefusal as exc:
        fr = TestResult("friedman", reason=str(exc))
        idv = TestResult("iman_davenport", reason=str(exc))
    try:
        value, q = nemenyi_cd(k, n, alpha)
        cd = CriticalDifference(value, q, k, n, alpha)
        need = min_nemenyi_datasets(k, q)
        if n < need:
            notes.append(f"with {n} datasets no rank difference can reach the Nemenyi CD ({value:.3f} > "
                         f"k - 1 = {k - 1}); {need} datasets are needed")
        if fr.applicable and fr.p >= alpha and idv.p >= alpha:
            notes.append(f"the Friedman test does not reject at {alpha:g}; Demsar (2006) applies the Nemenyi "
                         "post-hoc test only after it does")
    except StatsRefusal as exc:
        cd = CriticalDifference(k=k, n=n, alpha=alpha, reason=str(exc))

    pairwise = _pairwise(data, avg, cd, hib, alpha, rope, bayes_samples, seed)
    return Comparison(metric=metric, higher_is_better=hib, alpha=alpha, rope=rope, models=models,
                      n_datasets=n, dropped=dropped, ranks=avg.rename("average_rank"),
                      dataset_ranks=dataset_ranks, friedman=fr, iman_davenport=idv, cd=cd,
                      pairwise=pairwise, notes=notes)


def _pairwise(data, avg, cd, hib, alpha, rope, bayes_samples, seed) -> pd.DataFrame:
    recs = []
    sign = 1.0 if hib else -1.0
    for a, b in itertools.combinations(data.columns, 2):
        x, y = data[a].to_numpy(float), data[b].to_numpy(float)
        d = np.round(x - y, 12) * sign  # > 0: a better
        rec = {"model_a": a, "model_b": b, "n": len(x), "mean_diff": float(np.mean(x - y)),
               "wins_a": int((d > 0).sum()), "wins_b": int((d < 0).sum()), "ties": int((d == 0).sum()),
               "wilcoxon_w": math.nan, "p": math.nan, "rank_diff": float(abs(avg[a] - avg[b])),
               "nemenyi_significant": (bool(abs(avg[a] - avg[b]) >= cd.value) if cd.applicable else pd.NA),
               "p_left": math.nan, "p_rope": math.nan, "p_right": math.nan}
        notes = []
        try:
            w, p, note = wilcoxon_signed_rank(x, y, alpha)
            rec.update(wilcoxon_w=w, p=p)
            if note:
                notes.append(f"Wilcoxon: {note}")
        except StatsRefusal as exc:
            notes.append(f"Wilcoxon not applicable: {exc}")
        try:
            rec["p_left"], rec["p_rope"], rec["p_right"] = bayes_signed_rank(
                x, y, rope, hib, nsamples=bayes_samples, seed=seed)
        except StatsRefusal as exc:
            notes.append(f"Bayesian signed-rank not applicable: {exc}")
        rec["note"] = "; ".join(notes) or None
        recs.append(rec)
    out = pd.DataFrame(recs, columns=[c for c in PAIRWISE_COLUMNS if c not in ("p_holm", "significant")])
    p_holm = holm(out["p"].to_numpy(float))
    out.insert(out.columns.get_loc("p") + 1, "p_holm", p_holm)
    sig = pd.array([pd.NA if math.isnan(v) else bool(v < alpha) for v in p_holm], dtype="boolean")
    out.insert(out.columns.get_loc("p_holm") + 1, "significant", sig)
    out["nemenyi_significant"] = out["nemenyi_significant"].astype("boolean")
    return out[PAIRWISE_COLUMNS]
