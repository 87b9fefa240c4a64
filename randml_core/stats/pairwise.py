"""Pairwise tests over datasets: Wilcoxon signed-rank (scipy) with Holm's step-down correction
(Demsar 2006, Sections 3.1.3 and 3.2.2), and the Bayesian signed-rank test with a ROPE
(Benavoli, Corani, Demsar, Zaffalon 2017, JMLR 18, Section 5).

Holm is written here (five lines): scipy has no Holm adjustment and statsmodels, which has one, is
a large dependency for it. For tied or zero differences the Wilcoxon p-value is the exact permutation
(sign-flip) p-value given the observed mid-ranks, counted here by a subset sum: scipy computes the same
number by enumerating 2^n sign flips (about 5 s per pair at n = 13 on this machine) and switches to the
normal approximation above n = 13; we stay exact up to n = 50, as scipy does for untied data.

The Bayesian signed-rank test is a hand-written Dirichlet-process Monte Carlo, not baycomp: baycomp
1.0.3 runs fine on numpy 2.4 / scipy 1.17, but its wheel installs a top-level ``tests`` package into
site-packages, which shadows this repository's ``tests`` directory (tests/test_engine_tasks.py's
generated sources ``tests.test_engine_tasks:...`` stop importing). The posterior is sampled as in the
paper with baycomp's defaults (prior strength 0.5 on a pseudo-observation at 0; a difference exactly on
a threshold counts half) from numpy's legacy ``RandomState`` with a fixed seed, whose stream NumPy keeps
frozen across versions, so the probabilities repeat exactly.
"""
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


def bayes_signed_rank_posterior(a, b, rope: float, higher_is_better: bool, *, nsamples: int = 50000,
                                seed: int = 0, prior: float = BAYES_PRIOR) -> np.ndarray:
    """Posterior draws (nsamples x 3: theta_left, theta_rope, theta_right) of the Bayesian signed-rank
    test (Benavoli et al. 2017, Section 5). With z_0 = 0 (the prior pseudo-observation, weight ``prior``)
    and z_i = b_i - a_i (a_i - b_i for lower-is-better metrics), each draw w ~ Dirichlet(prior, 1, ..., 1)
    gives theta_left = sum_ij w_i w_j [z_i + z_j < -2 rope], theta_right = sum_ij w_i w_j [z_i + z_j > 2 rope]
    (a sum exactly on a threshold counts half) and theta_rope = 1 - theta_left - theta_right."""
    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"a and b must be 1-d and of equal length, got shapes {x.shape} and {y.shape}")
    if x.size < 2:
        raise StatsRefusal(f"the Bayesian signed-rank test needs >= 2 paired datasets, got {x.size}")
    if rope < 0 or not math.isfinite(rope):
        raise ValueError(f"rope={rope!r}: pass a width >= 0 in the metric's units (e.g. 0.01)")
    if int(nsamples) < 1:
        raise ValueError(f"nsamples={nsamples!r}: pass a positive number of posterior draws")
    z = np.concatenate(([0.0], (y - x) if higher_is_better else (x - y)))
    pair_sums = z[:, None] + z[None, :]
    above = (pair_sums > 2 * rope) + 0.5 * (pair_sums == 2 * rope)
    below = (pair_sums < -2 * rope) + 0.5 * (pair_sums == -2 * rope)
    alpha = np.ones(z.size)
    alpha[0] = prior
    w = np.random.RandomState(int(seed)).dirichlet(alpha, int(nsamples))
    theta = np.empty((w.shape[0], 3))
    theta[:, 0] = np.einsum("si,ij,sj->s", w, below, w)
    theta[:, 2] = np.einsum("si,ij,sj->s", w, above, w)
    theta[:, 1] = 1.0 - theta[:, 0] - theta[:, 2]
    return theta


def bayes_signed_rank(a, b, rope: float, higher_is_better: bool, *, nsamples: int = 50000,
                      seed: int = 0, prior: float = BAYES_PRIOR) -> tuple[float, float, float]:
    """Bayesian signed-rank test with a ROPE (Benavoli et al. 2017) of paired scores a, b over datasets:
    (P(left), P(rope), P(right)), the shares of posterior draws (:func:`bayes_signed_rank_posterior`) in
    which each region's theta is the largest. Left = model a better, right = model b better; rope in metric
    units; with rope = 0 there is no rope region and P(rope) = 0. Monte Carlo standard error of each
    probability <= 0.5 / sqrt(nsamples) (0.0022 at the default)."""
    theta = bayes_signed_rank_posterior(a, b, rope, higher_is_better, nsamples=nsamples, seed=seed, prior=prior)
    if rope == 0:  # no rope region: left vs right only
        theta[:, 1] = -np.inf
    counts = np.bincount(np.argmax(theta, axis=1), minlength=3) / theta.shape[0]
    return float(counts[0]), float(counts[1]), float(counts[2])
