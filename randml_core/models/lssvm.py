"""Balanced least-squares SVM with a Gaussian kernel (EEM paper Section 2.2.3, with ERRATA).

We use the function-estimation form consistently (ERRATA): solve

    [[0, 1^T], [1, K + D / C]] [b; alpha] = [0; t],   decision f(x) = sum_i alpha_i K(x_i, x) + b,

with D = diag(1 / w_i) and the balance weights w_i = max_t N_t / N_(t_i) of Section 7. This is the
loss C * sum_i w_i xi_i^2: the minority class is fitted harder (the printed weighting, Q inversely
proportional to class size inside K + Q/C, does the opposite; see ERRATA).

``lssvm_path`` solves the system for many C at once from one eigendecomposition of
D^(-1/2) K D^(-1/2), which the grid runner uses.
"""
from __future__ import annotations

import numpy as np
from scipy import linalg
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data
from sklearn.utils._param_validation import Interval, Real

from ._common import balance_weights, binary_targets, check_binary
from .kernels import rbf_kernel


def _bordered_solution(solve, t):
    """Solve [[0, 1^T], [1, A]] [b; alpha] = [0; t] given a solver for A."""
    eta = solve(np.ones_like(t))
    nu = solve(t)
    b = nu.sum() / eta.sum()
    return nu - b * eta, b


def lssvm_solve(K: np.ndarray, t: np.ndarray, C: float) -> tuple[np.ndarray, float]:
    """Direct solve of the balanced LS-SVM system for one C (dense LU on the (n+1) system)."""
    n = K.shape[0]
    A = np.empty((n + 1, n + 1))
    A[0, 0] = 0.0
    A[0, 1:] = 1.0
    A[1:, 0] = 1.0
    A[1:, 1:] = K + np.diag(1.0 / (balance_weights(t) * C))
    sol = linalg.solve(A, np.concatenate([[0.0], t]), check_finite=False)
    return sol[1:], float(sol[0])


def lssvm_path(K: np.ndarray, t: np.ndarray, Cs) -> list[tuple[np.ndarray, float]]:
    """(alpha, b) for every C in ``Cs`` from one eigendecomposition.

    With d = 1 / w and Kt = D^(-1/2) K D^(-1/2) = U L U^T:
    (K + D/C)^(-1) = D^(-1/2) U (L + 1/C)^(-1) U^T D^(-1/2).
    """
    s = 1.0 / np.sqrt(1.0 / balance_weights(t))  # D^(-1/2)
    lam, U = linalg.eigh(K * s[:, None] * s[None, :], check_finite=False)
    Ut1, Utt = U.T @ s, U.T @ (s * t)
    out = []
    for C in Cs:
        inv = 1.0 / (lam + 1.0 / C)
        eta = s * (U @ (inv * Ut1))
        nu = s * (U @ (inv * Utt))
        b = nu.sum() / eta.sum()
        out.append((nu - b * eta, float(b)))
    return out


class LSSVM(ClassifierMixin, BaseEstimator):
    """Balanced LS-SVM, Gaussian kernel exp(-gamma ||x - z||^2).

    Parameters: ``gamma``, ``C``, ``random_state`` (unused: the model is deterministic; kept for
    the harness's uniform interface). Fitted: ``dual_coef_`` (alpha, n), ``intercept_`` (b),
    ``support_vectors_`` (all training rows: LS-SVM is not sparse), ``sample_weight_`` (w_i).
    """

    _parameter_constraints = {
        "gamma": [Interval(Real, 0, None, closed="neither")],
        "C": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state", np.random.Generator],
    }

    def __init__(self, gamma=1.0, C=1.0, random_state=None):
        self.gamma = gamma
        self.C = C
        self.random_state = random_state

    def fit(self, X, y):
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_binary(y, type(self).__name__)
        self.classes_ = np.unique(y)
        t = binary_targets(y, self.classes_)
        K = rbf_kernel(X, X, self.gamma)
        self.dual_coef_, self.intercept_ = lssvm_solve(K, t, float(self.C))
        self.support_vectors_ = X
        self.sample_weight_ = balance_weights(t)
        return self

    def decision_function(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return rbf_kernel(X, self.support_vectors_, self.gamma) @ self.dual_coef_ + self.intercept_

    def predict(self, X):
        check_is_fitted(self)
        return self.classes_[(self.decision_function(X) >= 0).astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
