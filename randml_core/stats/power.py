"""Tests over datasets and their power: the sign test, the signed-rank direction, and the minimal detectable
effect (MDE) of each test a claim uses, at alpha = 0.05 and power 0.8 unless asked otherwise.

How each MDE is computed:

- :func:`mde_t`: the paired / one-sample t-test (optionally with the corrected resampled variance of
  Nadeau & Bengio 2003): the noncentrality ``ncp`` at which the two-sided (or one-sided) test with ``n - 1``
  degrees of freedom rejects with the asked power, solved exactly on scipy's noncentral t; the MDE is
  ``ncp * sd * sqrt(1 / n + test_train_ratio)`` in the units of ``sd``.
- :func:`mde_wilcoxon`: the Wilcoxon signed-rank test over ``n`` datasets, from the t-test's MDE at
  ``n * 3 / pi`` pairs (its asymptotic relative efficiency against the t-test for normal differences,
  Hodges & Lehmann 1956); infinite when ``n`` is below the smallest number of pairs for which an exact
  p < alpha exists (:func:`..refusal.min_wilcoxon_pairs`: 6 at alpha = 0.05).
- :func:`mde_sign`: the exact two-sided sign (binomial) test: the smallest share of datasets on which A is
  better that the test detects with the asked power, from the binomial distribution itself.
- :func:`tost_min_margin`: two one-sided tests (equivalence): the smallest margin they establish with the
  asked power when the true difference is 0, ``(t(1 - alpha) + t(1 - (1 - power) / 2)) * se`` with ``n - 1``
  df (the usual closed form, e.g. Julious 2004, Stat Med 23).
"""
from __future__ import annotations

import math

import numpy as np
from scipy import optimize, stats

from .pairwise import DIFF_DECIMALS, wilcoxon_signed_rank
from .refusal import min_wilcoxon_pairs

ALPHA, POWER = 0.05, 0.8
#: asymptotic relative efficiency of the signed-rank test against the t-test for normal differences
WILCOXON_ARE = 3.0 / math.pi


def _check(alpha: float, power: float) -> None:
    if not 0 < alpha < 1 or not 0 < power < 1:
        raise ValueError(f"alpha={alpha!r}, power={power!r}: both must lie strictly between 0 and 1")


def t_power(ncp: float, df: float, *, alpha: float = ALPHA, two_sided: bool = True) -> float:
    """Power of the t-test with ``df`` degrees of freedom at noncentrality ``ncp`` (scipy's noncentral t)."""
    if two_sided:
        q = stats.t.ppf(1 - alpha / 2, df)
        upper, lower = stats.nct.sf(q, df, ncp), stats.nct.cdf(-q, df, ncp)
        return float(np.nan_to_num(upper, nan=1.0) + np.nan_to_num(lower, nan=0.0))
    return float(np.nan_to_num(stats.nct.sf(stats.t.ppf(1 - alpha, df), df, ncp), nan=1.0))


def mde_t(n: float, sd: float, *, alpha: float = ALPHA, power: float = POWER, test_train_ratio: float = 0.0,
          two_sided: bool = True) -> float:
    """The smallest mean difference the t-test on ``n`` paired values of standard deviation ``sd`` detects
    with ``power`` (see the module docstring). ``inf`` below 2 values or for a non-finite sd; 0 for sd = 0."""
    _check(alpha, power)
    if not n >= 2 or not math.isfinite(sd):
        return math.inf
    if sd == 0:
        return 0.0
    df = n - 1
    hi = 1.0
    while t_power(hi, df, alpha=alpha, two_sided=two_sided) < power:
        hi *= 2
    ncp = optimize.brentq(lambda c: t_power(c, df, alpha=alpha, two_sided=two_sided) - power, 0.0, hi, xtol=1e-10)
    return float(ncp * sd * math.sqrt(1.0 / n + test_train_ratio))


def mde_wilcoxon(n: int, sd: float, *, alpha: float = ALPHA, power: float = POWER) -> float:
    """The smallest mean difference the two-sided Wilcoxon signed-rank test over ``n`` datasets detects with
    ``power``, for normal differences of standard deviation ``sd`` (the t-test's MDE at n * 3/pi pairs);
    ``inf`` when no p < alpha is reachable with ``n`` pairs."""
    if n < min_wilcoxon_pairs(alpha):
        return math.inf
    return mde_t(n * WILCOXON_ARE, sd, alpha=alpha, power=power)


def _sign_reject(n: int, alpha: float) -> int | None:
    """The smallest k whose exact two-sided sign-test p-value 2 P(K >= k | 1/2) is < ``alpha`` (None if none)."""
    for k in range(n // 2 + 1, n + 1):
        if min(1.0, 2 * stats.binom.sf(k - 1, n, 0.5)) < alpha:
            return k
    return None


def mde_sign(n: int, *, alpha: float = ALPHA, power: float = POWER) -> float:
    """The smallest share q > 1/2 of datasets on which A is better that the exact two-sided sign test on
    ``n`` datasets detects with ``power``: P(K >= k_alpha | n, q) + P(K <= n - k_alpha | n, q) = power.
    ``inf`` when no p < alpha is reachable (n <= 5 at alpha = 0.05)."""
    _check(alpha, power)
    k = _sign_reject(int(n), alpha)
    if k is None:
        return math.inf

    def pw(q):
        return stats.binom.sf(k - 1, n, q) + stats.binom.cdf(n - k, n, q)
    if pw(1.0) < power:
        return math.inf
    return float(optimize.brentq(lambda q: pw(q) - power, 0.5, 1.0, xtol=1e-12))


def sign_test(diffs) -> tuple[int, int, float]:
    """Exact two-sided sign test of paired differences (zeros dropped): (n positive, n negative, p), p from
    scipy.stats.binomtest; p = 1 when every difference is zero."""
    d = np.round(np.asarray(diffs, dtype=float), DIFF_DECIMALS)
    pos, neg = int((d > 0).sum()), int((d < 0).sum())
    if pos + neg == 0:
        return 0, 0, 1.0
    return pos, neg, float(stats.binomtest(pos, pos + neg, 0.5).pvalue)


def signed_rank(diffs, alpha: float = ALPHA) -> tuple[float, float, float, str | None]:
    """The two-sided Wilcoxon signed-rank test of paired differences with its direction: (R+, R-, p, note),
    R+ / R- the rank sums of the positive / negative differences (zeros dropped, mid-ranks for ties). Raises
    :class:`..refusal.StatsRefusal` below the smallest usable number of pairs."""
    d = np.round(np.asarray(diffs, dtype=float), DIFF_DECIMALS)
    _, p, note = wilcoxon_signed_rank(d, np.zeros_like(d), alpha)
    nz = d[d != 0]
    ranks = stats.rankdata(np.abs(nz)) if nz.size else np.array([])
    return float(ranks[nz > 0].sum()), float(ranks[nz < 0].sum()), float(p), note


def tost_min_margin(n: float, sd: float, *, alpha: float = ALPHA, power: float = POWER,
                    test_train_ratio: float = 0.0) -> float:
    """The smallest equivalence margin two one-sided tests on ``n`` paired values of standard deviation ``sd``
    establish with ``power`` when the true mean difference is 0 (see the module docstring)."""
    _check(alpha, power)
    if not n >= 2 or not math.isfinite(sd):
        return math.inf
    df = n - 1
    se = sd * math.sqrt(1.0 / n + test_train_ratio)
    return float((stats.t.ppf(1 - alpha, df) + stats.t.ppf(1 - (1 - power) / 2, df)) * se)
