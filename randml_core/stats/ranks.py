"""Average ranks, the Friedman and Iman-Davenport tests and the Nemenyi critical difference
(Demsar 2006, "Statistical comparisons of classifiers over multiple data sets", JMLR 7, Section 3.2.2).

Written here rather than taken from scipy.stats.friedmanchisquare because Demsar's statistics are
functions of the average ranks alone (chi2_F, and F_F which scipy does not have), while scipy adds a
correction for ties; on tie-free data the two chi-square values agree (tests/test_stats.py checks it).
q_alpha comes from scipy's studentized range distribution.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from .refusal import StatsRefusal, min_friedman_datasets

#: scores are rounded to this many decimals before ranking, so values equal up to float noise
#: (e.g. the same fold means summed in another order) tie instead of ranking apart
RANK_DECIMALS = 12


@dataclass(frozen=True)
class TestResult:
    """One test's outcome, or the reason it did not apply (then statistic and p are NaN)."""
    name: str
    statistic: float = math.nan
    p: float = math.nan
    df: tuple = ()
    reason: str | None = None

    @property
    def applicable(self) -> bool:
        return self.reason is None


def rank_matrix(scores: pd.DataFrame, higher_is_better: bool) -> pd.DataFrame:
    """Per dataset (row), rank the models (columns): 1 = best, ties share the average of the ranks
    they span (Demsar 2006, Section 3.2.2). Rows with a missing cell are ranked over what is there."""
    rounded = scores.astype(float).round(RANK_DECIMALS)
    return rounded.rank(axis=1, ascending=not higher_is_better, method="average")


def _check_friedman(k: int, n: int) -> None:
    if k < 3:
        raise StatsRefusal(f"the Friedman test and the Nemenyi critical difference need >= 3 models, got {k}; "
                           "for 2 models use the Wilcoxon signed-rank test (Demsar 2006, Section 3.1.3)")
    if n < 2:
        raise StatsRefusal(f"the Friedman test and the Nemenyi critical difference need >= 2 datasets, got {n}; "
                           f"with {k} models a chi-square p < 0.05 needs at least "
                           f"{min_friedman_datasets(k, 0.05)} datasets")


def friedman(avg_ranks, n_datasets: int) -> tuple[TestResult, TestResult]:
    """Friedman chi2_F and the Iman-Davenport F_F from the average ranks R_j of k models on N datasets:

    chi2_F = 12 N / (k (k+1)) * (sum_j R_j^2 - k (k+1)^2 / 4),  chi-square with k-1 df;
    F_F = (N-1) chi2_F / (N (k-1) - chi2_F),  F with (k-1, (k-1)(N-1)) df  (Demsar 2006, Section 3.2.2).
    When all datasets rank the models identically F_F is infinite (p = 0).
    """
    r = np.asarray(avg_ranks, dtype=float)
    k, n = r.size, int(n_datasets)
    _check_friedman(k, n)
    chi2 = 12.0 * n / (k * (k + 1)) * (np.sum(r**2) - k * (k + 1) ** 2 / 4.0)
    chi2 = max(float(chi2), 0.0)
    p_chi2 = float(stats.chi2.sf(chi2, k - 1))
    denom = n * (k - 1) - chi2
    df2 = (k - 1) * (n - 1)
    if denom <= 1e-12 * n * (k - 1):
        ff, p_ff = math.inf, 0.0
    else:
        ff = (n - 1) * chi2 / denom
        p_ff = float(stats.f.sf(ff, k - 1, df2))
    return (TestResult("friedman", chi2, p_chi2, (k - 1,)),
            TestResult("iman_davenport", float(ff), p_ff, (k - 1, df2)))


def nemenyi_q(k: int, alpha: float = 0.05) -> float:
    """q_alpha of the Nemenyi test: the studentized range quantile (k groups, infinite df) over
    sqrt(2) (Demsar 2006, Table 5a: 2.569 for k = 4 at alpha = 0.05)."""
    if k < 2:
        raise StatsRefusal(f"the Nemenyi q_alpha needs >= 2 models, got {k}")
    return float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf) / math.sqrt(2.0))


def nemenyi_cd(k: int, n_datasets: int, alpha: float = 0.05) -> tuple[float, float]:
    """Nemenyi critical difference CD = q_alpha * sqrt(k (k+1) / (6 N)) (Demsar 2006, Section 3.2.2);
    returns (CD, q_alpha). Two models differ significantly when their average ranks differ by >= CD."""
    _check_friedman(k, int(n_datasets))
    q = nemenyi_q(k, alpha)
    return q * math.sqrt(k * (k + 1) / (6.0 * n_datasets)), q
