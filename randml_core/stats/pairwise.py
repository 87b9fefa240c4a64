"""Pairwise tests over datasets: Wilcoxon signed-rank (scipy) with Holm's step-down correction
(Demsar 2006, Sections 3.1.3 and 3.2.2), and the Bayesian signed-rank test with a ROPE
(Benavoli, Corani, Demsar, Zaffalon 2017, JMLR 18, Section 4) from baycomp.

Holm is written here (five lines): scipy has no Holm adjustment and statsmodels, which has one, is
a large dependency for it. For tied or zero differences the Wilcoxon p-value is the exact permutation
(sign-flip) p-value given the observed mid-ranks, counted here by a subset sum: scipy computes the same
number by enumerating 2^n sign flips (about 5 s per pair at n = 13 on this machine) and switches to the
normal approximation above n = 13; we stay exact up to n = 50, as scipy does for untied data. The Bayesian test is baycomp's ``SignedRankTest`` (baycomp 1.0.3 works
with the pinned numpy 2 / scipy 1.17: checked by tests/test_stats.py), with its default prior
(strength 0.5 on a pseudo-observation at 0) and a fixed seed, so results repeat exactly.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .refusal import StatsRefusal, min_wilcoxon_pairs

DIFF_DECIMALS = 12  # paired differences are rounded so that float noise is not a difference
EXACT_MAX_N = 50    # exact signed-rank p-values up to this many non-zero differences (as scipy, untied)
BAYES_PRIOR = 0.5   # baycomp's default Dirichlet-process prior strength


def holm(pvalues) -> np.ndarray:
    """Holm's step-down adjusted p-values (Holm 1979; Demsar 2006, Section 3.2.2): with the m p-values
    sorted ascending, p_adj(i) = max_{j <= i} min(1, (m - j + 1) p(j)). NaN entries stay NaN and do
    not count in m."""
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(~np.isnan(p))
    m = ok.size
    if m == 0:
        return out
    order = ok[np.argsort(p[ok], kind="stable")]
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    out[order] = np.maximum.accumulate(scaled)
    return out


def wilcoxon_signed_rank(a, b, alpha: float = 0.05) -> tuple[float, float, str | None]:
    """Two-sided Wilcoxon signed-rank test of the paired scores a, b (one per dataset): zero differences
    dropped (Wilcoxon's rule, scipy's default); p exact up to 50 non-zero differences (scipy's exact
    distribution without ties, :func:`signed_rank_exact_p` with ties), normal approximation above. Returns
    (W, p, note). Raises :class:`StatsRefusal` when fewer datasets are paired than a p < alpha needs."""
    d = np.round(np.asarray(a, dtype=float) - np.asarray(b, dtype=float), DIFF_DECIMALS)
    need = min_wilcoxon_pairs(alpha)
    if d.size < need:
        raise StatsRefusal(f"the Wilcoxon signed-rank test needs >= {need} paired datasets for a two-sided "
                           f"p < {alpha:g} to be reachable (with n datasets the smallest p is 2/2^n = "
                           f"{2 / 2**d.size:.4g} here), got {d.size}")
    nonzero = int(np.count_nonzero(d))
    if nonzero == 0:
        return 0.0, 1.0, f"identical on all {d.size} datasets"
    from scipy import stats
    nz = d[d != 0]
    ranks = stats.rankdata(np.abs(nz))
    tied = nonzero < d.size or np.unique(ranks).size < ranks.size
    w = float(min(ranks[nz > 0].sum(), ranks[nz < 0].sum()))
    if tied and nonzero <= EXACT_MAX_N:
        p = signed_rank_exact_p(ranks, float(ranks[nz > 0].sum()))
    else:  # untied: scipy's exact distribution (n <= 50) or its normal approximation
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            res = stats.wilcoxon(d)
        w, p = float(res.statistic), float(res.pvalue)
    note = None
    if nonzero < need:
        note = (f"only {nonzero} of {d.size} datasets differ (zeros are dropped), so p < {alpha:g} "
                f"is unreachable (smallest p {2 / 2**nonzero:.4g})")
    return w, p, note


def signed_rank_exact_p(ranks, r_plus: float) -> float:
    """Exact two-sided p-value of the signed-rank statistic R+ = ``r_plus`` under random signs, given the
    (mid-)ranks of the non-zero |differences|: 2 min(P(R+ <= r), P(R+ >= r)), capped at 1 -- the value
    scipy.stats.wilcoxon returns by exhaustive permutation for n <= 13. Mid-ranks are multiples of 1/2,
    so doubled ranks are integers and the null distribution is a subset sum over them."""
    twice = np.rint(2 * np.asarray(ranks, dtype=float)).astype(int)
    dist = np.zeros(int(twice.sum()) + 1)
    dist[0] = 1.0
    for r in twice:  # each rank joins R+ with probability 1/2
        shifted = np.zeros_like(dist)
        shifted[r:] = dist[:dist.size - r]
        dist = 0.5 * (dist + shifted)
    obs = int(round(2 * r_plus))
    return float(min(1.0, 2.0 * min(dist[:obs + 1].sum(), dist[obs:].sum())))


def bayes_signed_rank(a, b, rope: float, higher_is_better: bool, *, nsamples: int = 10000,
                      seed: int = 0) -> tuple[float, float, float]:
    """Bayesian signed-rank test (Benavoli et al. 2017) of paired scores a, b over datasets by
    baycomp.SignedRankTest. Returns (P(left), P(rope), P(right)): left = model a better, right =
    model b better (scores are negated first for lower-is-better metrics), rope in metric units.
    Each probability is the posterior share of samples in which that region is the most probable."""
    import baycomp

    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    if x.size < 2:
        raise StatsRefusal(f"the Bayesian signed-rank test needs >= 2 paired datasets, got {x.size}")
    if rope < 0 or not math.isfinite(rope):
        raise ValueError(f"rope={rope!r}: pass a width >= 0 in the metric's units (e.g. 0.01)")
    if not higher_is_better:
        x, y = -x, -y
    probs = baycomp.SignedRankTest.probs(x, y, rope, prior=BAYES_PRIOR, nsamples=int(nsamples),
                                         random_state=int(seed))
    if rope > 0:
        pl, pe, pr = probs
    else:
        (pl, pr), pe = probs, 0.0
    return float(pl), float(pe), float(pr)
