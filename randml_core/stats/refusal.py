"""Refusals: a test that cannot say anything on the data it was given raises :class:`StatsRefusal`.

The minimum counts below are exact properties of the tests, not rules of thumb:

* Wilcoxon signed-rank (exact null distribution): with n non-zero paired differences the smallest
  two-sided p-value is 2 / 2**n (all differences of one sign), so p < 0.05 needs n >= 6
  (2/32 = 0.0625 at n = 5, 2/64 = 0.03125 at n = 6).
* Friedman chi-square (Demsar 2006, Section 3.2.2): with k models and N datasets its largest value is
  N (k - 1) (every dataset ranks the models the same way), so a p-value below alpha needs the
  smallest N with chi2.sf(N (k - 1), k - 1) < alpha (3 datasets for k = 3 or 4 at alpha = 0.05).
"""
from __future__ import annotations

import math

from scipy import stats


class StatsRefusal(ValueError):
    """A statistical test was asked for on data where it cannot apply; the message says why and
    how many models / datasets / folds are needed."""


def min_wilcoxon_pairs(alpha: float = 0.05) -> int:
    """Smallest number of non-zero paired differences for which an exact two-sided Wilcoxon
    signed-rank p-value can fall below ``alpha``: the smallest n with 2 / 2**n < alpha."""
    n = 1
    while 2.0 / 2**n >= alpha:
        n += 1
    return n


def min_friedman_datasets(k: int, alpha: float = 0.05) -> int:
    """Smallest N >= 2 whose largest Friedman statistic N (k - 1) has a chi-square (k - 1 df)
    p-value below ``alpha``."""
    n = 2
    while stats.chi2.sf(n * (k - 1), k - 1) >= alpha:
        n += 1
    return n


def min_nemenyi_datasets(k: int, q_alpha: float) -> int:
    """Smallest N for which the largest possible rank difference (k - 1) reaches the Nemenyi
    critical difference q_alpha * sqrt(k (k + 1) / (6 N)) (Demsar 2006, Section 3.2.2)."""
    return max(2, math.ceil(q_alpha**2 * k * (k + 1) / (6.0 * (k - 1) ** 2)))
