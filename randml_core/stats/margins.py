"""One-sided and interval tests for claims that need a margin: "A is at least as good as B" (non-inferiority),
"A and B are comparable" (equivalence: two one-sided tests, Schuirmann 1987), "A takes at most half of B's
time" (a ratio on log times), "A's accuracy is above x" (a one-sample bound).

Paired differences use the corrected resampled variance of :mod:`.ttest` (Nadeau & Bengio 2003) when they
come from resampled splits (``test_train_ratio`` > 0) and the plain paired variance when the replicates are
independent (``test_train_ratio`` = 0: seeds, separate runs). scipy.stats has the t distribution but no TOST
or corrected variance, so the few lines are here.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from .refusal import StatsRefusal


@dataclass(frozen=True)
class Interval:
    """Mean difference, its (1 - 2 alpha) confidence interval (the TOST interval) and the one-sided p-values
    of ``mean > lower`` (``p_above``) and ``mean < upper`` (``p_below``) for the margins it was asked about."""
    mean: float
    low: float
    high: float
    df: int
    n: int
    p_above: float
    p_below: float


def _se(d: np.ndarray, test_train_ratio: float) -> tuple[float, float, int]:
    n = d.size
    if n < 2:
        raise StatsRefusal(f"a margin test needs >= 2 paired replicates, got {n}")
    if not (test_train_ratio >= 0 and math.isfinite(test_train_ratio)):
        raise ValueError(f"n_test / n_train = {test_train_ratio!r}: needs a finite ratio >= 0 (0: independent replicates)")
    var = float(d.var(ddof=1))
    return float(d.mean()), math.sqrt((1.0 / n + test_train_ratio) * var), n - 1


def margin_test(d, lower: float, upper: float, *, test_train_ratio: float = 0.0, alpha: float = 0.05) -> Interval:
    """One-sided t-tests of the mean of ``d`` against ``lower`` (H1: mean > lower) and ``upper`` (H1: mean <
    upper), with the (1 - 2 alpha) interval. Equivalence within [lower, upper] is ``max(p_above, p_below) <
    alpha`` (TOST); non-inferiority is ``p_above < alpha`` with ``upper = inf``. Zero variance gives p = 0 or 1
    from the mean's side of each bound."""
    d = np.asarray(d, dtype=float)
    mean, se, df = _se(d, test_train_ratio)
    if se == 0.0:
        p_above = 0.0 if mean > lower else 1.0
        p_below = 0.0 if mean < upper else 1.0
        return Interval(mean, mean, mean, df, d.size, p_above, p_below)
    q = float(stats.t.ppf(1.0 - alpha, df))
    p_above = float(stats.t.sf((mean - lower) / se, df)) if math.isfinite(lower) else 0.0
    p_below = float(stats.t.cdf((mean - upper) / se, df)) if math.isfinite(upper) else 0.0
    return Interval(mean, mean - q * se, mean + q * se, df, d.size, p_above, p_below)


def log_ratio_test(slow, fast, factor: float = 1.0, *, alpha: float = 0.05) -> Interval:
    """"``fast`` takes at most 1/``factor`` of ``slow``'s time": paired replicates (same data, same split)
    of two timings, tested on log(slow / fast) against log(factor). The interval and mean are returned as
    ratios (geometric mean of slow / fast and its (1 - 2 alpha) interval); ``p_above`` < alpha supports the
    claim, ``p_below`` < alpha (of ratio < factor) contradicts it."""
    slow, fast = np.asarray(slow, dtype=float), np.asarray(fast, dtype=float)
    if slow.shape != fast.shape:
        raise ValueError(f"paired timings of different lengths: {slow.size} vs {fast.size}")
    if (slow <= 0).any() or (fast <= 0).any():
        raise ValueError("timings must be > 0 seconds to take logs")
    iv = margin_test(np.log(slow / fast), math.log(factor), math.log(factor), alpha=alpha)
    return Interval(math.exp(iv.mean), math.exp(iv.low), math.exp(iv.high), iv.df, iv.n, iv.p_above, iv.p_below)
