"""Cauchy-Schwarz divergence of 1-D densities (EEM paper Eq. 3 as corrected in ERRATA, Section 7.4).

D_CS(f, g) = ln int f^2 + ln int g^2 - 2 ln int f g.
"""
from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

_LOG_2PI = np.log(2 * np.pi)


def dcs_gaussian(m1, S1, m2, S2):
    """D_CS of N(m1, S1) and N(m2, S2) (variances): ln(((S1+S2)/2)/sqrt(S1 S2)) + (m1-m2)^2/(S1+S2)."""
    S1, S2 = np.asarray(S1, float), np.asarray(S2, float)
    return np.log(0.5 * (S1 + S2) / np.sqrt(S1 * S2)) + (np.asarray(m1) - np.asarray(m2)) ** 2 / (S1 + S2)


def silverman_bandwidth(a: np.ndarray) -> float:
    """Silverman's rule for a Gaussian kernel: (4 / (3 n))^(1/5) std(a) (Section 7.4)."""
    a = np.asarray(a, float)
    return float((4.0 / (3.0 * len(a))) ** 0.2 * np.std(a))


def _log_cross_potential(a: np.ndarray, b: np.ndarray, var: float, block: int = 2048) -> float:
    """ln( 1/(n m) sum_ij N(a_i - b_j; 0, var) ), in blocks, in log space (no underflow)."""
    parts = []
    for s in range(0, len(a), block):
        d = a[s:s + block, None] - b[None, :]
        parts.append(logsumexp(-0.5 * d * d / var))
    return float(logsumexp(parts) - np.log(len(a) * len(b)) - 0.5 * (_LOG_2PI + np.log(var)))


def dcs_kde(a: np.ndarray, b: np.ndarray, bandwidth_a: float | None = None,
            bandwidth_b: float | None = None) -> float:
    """D_CS of the Gaussian KDEs of samples a and b (Silverman bandwidths by default), exact.

    Uses int N(x; a_i, s^2) N(x; b_j, t^2) dx = N(a_i - b_j; 0, s^2 + t^2). O(n m) time, O(block m) memory.
    A zero bandwidth (a constant sample) is floored at 1e-12 times the data scale.
    """
    a, b = np.asarray(a, float).ravel(), np.asarray(b, float).ravel()
    scale = max(np.abs(a).max(initial=0.0), np.abs(b).max(initial=0.0), 1.0)
    sa = max(silverman_bandwidth(a) if bandwidth_a is None else bandwidth_a, 1e-12 * scale)
    sb = max(silverman_bandwidth(b) if bandwidth_b is None else bandwidth_b, 1e-12 * scale)
    return (_log_cross_potential(a, a, 2 * sa * sa) + _log_cross_potential(b, b, 2 * sb * sb)
            - 2 * _log_cross_potential(a, b, sa * sa + sb * sb))


def train_criteria(z: np.ndarray, t: np.ndarray, max_points: int = 4000, seed: int = 0) -> dict:
    """Section 7.4 selection criteria on training projections z (t in {-1, +1}).

    dcs_gauss: D_CS of N(mean, var) fitted to each class's projections;
    dcs_kde:   D_CS of their Silverman KDEs (each class subsampled to ``max_points`` with a fixed
               seed when larger, to keep the O(n^2) sum affordable on the large sets).
    """
    zp, zn = z[t > 0], z[t < 0]
    out = {"dcs_gauss": float("nan"), "dcs_kde": float("nan")}
    if len(zp) < 2 or len(zn) < 2 or not np.all(np.isfinite(z)):
        return out
    vp, vn = zp.var(), zn.var()
    if vp > 0 and vn > 0:
        out["dcs_gauss"] = float(dcs_gaussian(zp.mean(), vp, zn.mean(), vn))
    rng = np.random.default_rng(seed)
    if len(zp) > max_points:
        zp = rng.choice(zp, max_points, replace=False)
    if len(zn) > max_points:
        zn = rng.choice(zn, max_points, replace=False)
    out["dcs_kde"] = dcs_kde(zp, zn)
    return out
