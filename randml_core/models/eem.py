"""Extreme Entropy Machines: EEM and EEKM (Czarnecki, Tabor; EEM paper Sections 3-6).

Both map the data to a feature space H (random hidden layer for EEM, Nystroem kernel map for
EEKM), model each class as a Gaussian with Ledoit-Wolf covariance, and project on the beta of
Eq. (4), normalised by the Mahalanobis norm so that beta^T (m+ - m-) = 2 (ERRATA). The class
is the one whose projected 1-D Gaussian density is larger (equal priors, Section 3).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import linalg
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.covariance import ledoit_wolf
from sklearn.utils._param_validation import Integral, Interval, Real, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from ._common import binary_targets, check_binary, int_seed
from .hidden import ACTIVATIONS, activate, draw_hidden
from .kernels import rbf_kernel

#: relative floor of a projected class variance (a class collapsed to one point, Section 7.3)
VAR_FLOOR = 1e-12


def _lw_covariance(H: np.ndarray) -> tuple[np.ndarray, float]:
    """Ledoit-Wolf covariance cov_dagger of Section 4 (zero matrix for a class of < 2 points)."""
    if H.shape[0] < 2:
        return np.zeros((H.shape[1], H.shape[1])), 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        cov, shrinkage = ledoit_wolf(H)
    return cov, float(shrinkage)


def ledoit_wolf_one_gram(X: np.ndarray, block_size: int = 1000) -> tuple[np.ndarray, float]:
    """``sklearn.covariance.ledoit_wolf(X)`` with X^T X computed once instead of twice.

    Written by hand because scikit-learn (1.9) forms the centred Gram matrix X^T X both for the
    shrinkage (Ledoit and Wolf 2004, via ``ledoit_wolf_shrinkage``) and for the empirical covariance;
    this does the same floating-point operations in the same order on the same arrays, so the
    result is bit-for-bit scikit-learn's (tests/test_families_speed.py checks it), and 2 of the 3
    Gram products remain. Outside the case written out here (fewer than 2 or more than ``block_size``
    features, where scikit-learn blocks or special-cases, or non-finite input, where it raises) it
    calls scikit-learn.
    """
    n, p = X.shape
    if p < 2 or p > block_size or n < 2 or not np.isfinite(X).all():
        cov, shrinkage = ledoit_wolf(X, block_size=block_size)
        return cov, shrinkage
    X = X - X.mean(0)                       # LedoitWolf.fit: X - location_
    # ledoit_wolf_shrinkage(X, assume_centered=True): one block (n_splits = 0, or 1 when p == block_size,
    # where the extra empty blocks add exact zeros)
    X2 = X**2
    emp_cov_trace = np.sum(X2, axis=0) / n
    mu = np.sum(emp_cov_trace) / p
    gram = np.dot(X.T, X)
    beta_ = 0.0 + np.sum(np.dot(X2.T, X2))
    delta_ = 0.0 + np.sum(gram**2)
    delta_ /= n**2
    beta = 1.0 / (p * n) * (beta_ / n - delta_)
    delta = delta_ - 2.0 * mu * emp_cov_trace.sum() + p * mu**2
    delta /= p
    beta = min(beta, delta)
    shrinkage = 0 if beta == 0 else beta / delta
    # _ledoit_wolf: empirical_covariance(X, assume_centered=True) is np.dot(X.T, X) / n
    emp_cov = gram / n
    mu = np.sum(np.trace(emp_cov)) / p
    shrunk_cov = (1.0 - shrinkage) * emp_cov
    shrunk_cov.flat[:: p + 1] += shrinkage * mu
    return shrunk_cov, shrinkage


def _lw_covariance_one_gram(H: np.ndarray) -> tuple[np.ndarray, float]:
    """:func:`_lw_covariance` through :func:`ledoit_wolf_one_gram` (same numbers, one Gram product fewer)."""
    if H.shape[0] < 2:
        return _lw_covariance(H)
    cov, shrinkage = ledoit_wolf_one_gram(H)
    return cov, float(shrinkage)


@dataclass
class EEMSolution:
    beta: np.ndarray          # (h,)
    means: np.ndarray         # projected class means (m-, m+)
    variances: np.ndarray     # projected class variances (S-, S+), floored
    shrinkage: np.ndarray     # Ledoit-Wolf shrinkage (eps-, eps+)
    degenerate: str           # "" or why the closed form did not apply


def eem_solve(H: np.ndarray, t: np.ndarray, one_gram: bool = False) -> EEMSolution:
    """Closed-form EEM training on features H (n x h) and targets t in {-1, +1} (Eq. 4).

    Degenerate cases (Section 3): if m+ = m- there is no beta with beta^T(m+ - m-) = 2 and the
    model is the trivial classifier (beta = 0). A singular Sigma+ + Sigma- (e.g. saturated
    sigmoid units that are constant on the whole set) is handled with the pseudo-inverse.
    ``one_gram=True`` (the grid runner) computes the same Ledoit-Wolf covariances with
    :func:`ledoit_wolf_one_gram`, bit-for-bit equal and faster.
    """
    covariance = _lw_covariance_one_gram if one_gram else _lw_covariance
    Hp, Hn = H[t > 0], H[t < 0]
    mp, mn = Hp.mean(0), Hn.mean(0)
    Sp, ep = covariance(Hp)
    Sn, en = covariance(Hn)
    dm = mp - mn
    shrink = np.array([en, ep])
    scale = max(np.abs(mp).max(), np.abs(mn).max(), 1e-300)
    if not np.any(np.abs(dm) > 1e-12 * scale):
        return EEMSolution(np.zeros(H.shape[1]), np.zeros(2), np.ones(2), shrink, "equal class means")
    Ssum = Sp + Sn
    degenerate = ""
    try:
        v = linalg.cho_solve(linalg.cho_factor(Ssum, lower=True, check_finite=False), dm, check_finite=False)
        if not np.all(np.isfinite(v)):
            raise linalg.LinAlgError("non-finite solution")
    except linalg.LinAlgError:
        v, *_ = np.linalg.lstsq(Ssum, dm, rcond=None)
        degenerate = "singular covariance sum (pseudo-inverse used)"
    maha = float(dm @ v)
    if not maha > 0:
        return EEMSolution(np.zeros(H.shape[1]), np.zeros(2), np.ones(2), shrink,
                           "class means differ only in a zero-variance direction")
    beta = 2.0 * v / maha
    means = np.array([beta @ mn, beta @ mp])
    var = np.array([beta @ Sn @ beta, beta @ Sp @ beta])
    floor = VAR_FLOOR * max(var.max(), 1.0)
    return EEMSolution(beta, means, np.maximum(var, floor), shrink, degenerate)


def projected_log_ratio(z: np.ndarray, sol: EEMSolution) -> np.ndarray:
    """log N(z; m+, S+) - log N(z; m-, S-): positive means class +1 (equal priors)."""
    (mn, mp), (sn, sp) = sol.means, sol.variances
    if not np.any(sol.beta):
        return np.zeros_like(z)
    return -0.5 * ((z - mp) ** 2 / sp - (z - mn) ** 2 / sn + np.log(sp / sn))


def eem_labels(score: np.ndarray, sol: EEMSolution, classes: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Labels from the projected log-density ratio; the trivial classifier (beta = 0) predicts the
    larger training class (targets ``t`` in {-1, +1}, ``classes[1]`` is +1)."""
    if not np.any(sol.beta):
        return np.full(len(score), classes[int((t > 0).sum() > (t < 0).sum())])
    return classes[(score > 0).astype(int)]


def thresholds(sol: EEMSolution) -> np.ndarray:
    """Decision thresholds r of Section 3 (points where the projected densities are equal)."""
    (mn, mp), (sn, sp) = sol.means, sol.variances
    a = 0.5 * (1 / sn - 1 / sp)
    b = mp / sp - mn / sn
    c = 0.5 * (mn**2 / sn - mp**2 / sp) + 0.5 * np.log(sn / sp)
    # (z-mn)^2/(2 sn) - (z-mp)^2/(2 sp) + ln(sn/sp)/2 = a z^2 + b z + c = 0
    if abs(a) < 1e-14 * (abs(b) + 1e-300):
        return np.array([-c / b]) if b != 0 else np.array([])
    disc = b * b - 4 * a * c
    if disc < 0:
        return np.array([])
    r = np.sort([(-b - np.sqrt(disc)) / (2 * a), (-b + np.sqrt(disc)) / (2 * a)])
    return r


class _EEMBase(ClassifierMixin, BaseEstimator):
    def _features(self, X):  # pragma: no cover - abstract
        raise NotImplementedError

    def _fit_solution(self, H, y):
        sol = eem_solve(H, binary_targets(y, self.classes_))
        self.beta_ = sol.beta
        self.projected_means_ = sol.means
        self.projected_variances_ = sol.variances
        self.shrinkage_ = sol.shrinkage
        self.degenerate_ = sol.degenerate
        self.thresholds_ = thresholds(sol) if np.any(sol.beta) else np.array([])
        self._targets = binary_targets(y, self.classes_)
        self._sol = sol

    def decision_function(self, X):
        """log p(x | +) - log p(x | -) of the projected Gaussians."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        z = self._features(X) @ self.beta_
        return projected_log_ratio(z, self._sol)

    def predict_proba(self, X):
        """p(+ | x) with equal priors (Section 4, Bayes rule on the projected densities)."""
        d = np.clip(self.decision_function(X), -700, 700)
        p = 1.0 / (1.0 + np.exp(-d))
        return np.column_stack([1 - p, p])

    def predict(self, X):
        check_is_fitted(self)
        return eem_labels(self.decision_function(X), self._sol, self.classes_, self._targets)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


class EEM(_EEMBase):
    """Extreme Entropy Machine (Section 3.1, Algorithm 1): random hidden layer + closed-form beta.

    Parameters: ``n_hidden`` (h), ``activation`` in {"sig", "nsig", "rbf"}, ``random_state``.
    Fitted: ``hidden_weights_`` (d x h, U[0,1]), ``hidden_bias_`` (h,), ``beta_`` (Eq. 4),
    ``projected_means_`` / ``projected_variances_`` ((m-, m+), (S-, S+) of Eq. 2),
    ``thresholds_`` (Section 3), ``shrinkage_`` (Ledoit-Wolf eps-, eps+), ``degenerate_``
    (empty, or the degenerate case met). Binary classification only.
    """

    _parameter_constraints = {
        "n_hidden": [Interval(Integral, 1, None, closed="left")],
        "activation": [StrOptions(set(ACTIVATIONS))],
        "random_state": ["random_state", np.random.Generator],
    }

    def __init__(self, n_hidden=100, activation="sig", random_state=None):
        self.n_hidden = n_hidden
        self.activation = activation
        self.random_state = random_state

    def _features(self, X):
        return activate(X, self.hidden_weights_, self.hidden_bias_, self.activation)

    def fit(self, X, y):
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_binary(y, type(self).__name__)
        self.classes_ = np.unique(y)
        self.seed_ = int_seed(self.random_state)
        self.hidden_weights_, self.hidden_bias_ = draw_hidden(X.shape[1], int(self.n_hidden), self.seed_)
        self._fit_solution(self._features(X), y)
        return self


def landmark_order(n_samples: int, seed: int) -> np.ndarray:
    """Random order of the training rows; EEKM with h landmarks uses its first h entries."""
    return np.random.default_rng(np.random.SeedSequence(seed).spawn(3)[2]).permutation(n_samples)


def inverse_sqrt_psd(K: np.ndarray, rtol: float) -> tuple[np.ndarray, int]:
    """Symmetric pseudo-inverse square root of a PSD matrix; eigenvalues <= rtol * max are dropped."""
    lam, U = linalg.eigh(K, check_finite=False)
    keep = lam > rtol * max(lam.max(), 0.0)
    Ur = U[:, keep]
    return (Ur / np.sqrt(lam[keep])) @ Ur.T, int(keep.sum())


class EEKM(_EEMBase):
    """Extreme Entropy Kernel Machine (Section 3, Algorithm 2).

    Features phi_K(x) = K(x, X[h]) K(X[h], X[h])^(-1/2) on a random h-subset X[h] of the training
    rows (all rows if h >= n), Gaussian kernel K = exp(-gamma ||x - z||^2). K(X[h], X[h]) is positive
    definite in theory but not numerically for small gamma (ERRATA), so its inverse square root
    is the symmetric pseudo-inverse one: eigenvalues below ``eig_rtol`` times the largest are
    dropped (not clipped); ``kernel_rank_`` records how many were kept. Prediction uses the
    paper's SLFN form K(x, X[h]) (K^(-1/2) beta), O(d h) per point (Section 6).

    Fitted: ``landmark_indices_``, ``landmarks_``, ``normalization_`` (K^(-1/2)), ``beta_``,
    ``kernel_rank_`` and the EEM attributes.
    """

    _parameter_constraints = {
        "n_hidden": [Interval(Integral, 1, None, closed="left")],
        "gamma": [Interval(Real, 0, None, closed="neither")],
        "eig_rtol": [Interval(Real, 0, 1, closed="left")],
        "random_state": ["random_state", np.random.Generator],
    }

    def __init__(self, n_hidden=100, gamma=1.0, eig_rtol=1e-10, random_state=None):
        self.n_hidden = n_hidden
        self.gamma = gamma
        self.eig_rtol = eig_rtol
        self.random_state = random_state

    def _features(self, X):
        return rbf_kernel(X, self.landmarks_, self.gamma) @ self.normalization_

    def fit(self, X, y):
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_binary(y, type(self).__name__)
        self.classes_ = np.unique(y)
        self.seed_ = int_seed(self.random_state)
        h = min(int(self.n_hidden), X.shape[0])
        self.landmark_indices_ = landmark_order(X.shape[0], self.seed_)[:h]
        self.landmarks_ = X[self.landmark_indices_]
        Khh = rbf_kernel(self.landmarks_, self.landmarks_, self.gamma)
        self.normalization_, self.kernel_rank_ = inverse_sqrt_psd(Khh, self.eig_rtol)
        self._fit_solution(self._features(X), y)
        return self
