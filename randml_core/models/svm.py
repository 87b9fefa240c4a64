"""Balanced RBF SVM: libsvm through scikit-learn's SVC with the EEM paper's balance weights."""
from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC
from sklearn.utils.validation import check_is_fitted, validate_data
from sklearn.utils._param_validation import Integral, Interval, Real

from ._common import check_binary

#: default bound on libsvm iterations; a fit that reaches it is recorded as not converged.
DEFAULT_MAX_ITER = 1_000_000


def balance_class_weight(y) -> dict:
    """class_weight of Section 7: w_c = max_t N_t / N_c, so that sum_i w_i t_i = 0."""
    labels, counts = np.unique(y, return_counts=True)
    return {lab: counts.max() / c for lab, c in zip(labels, counts)}


def fit_svc(K_or_X, y, C, gamma, max_iter, kernel="rbf"):
    """Fit SVC with balance weights; returns (svc, converged)."""
    svc = SVC(C=C, gamma=gamma if kernel == "rbf" else "scale", kernel=kernel,
              class_weight=balance_class_weight(y), max_iter=max_iter, tol=1e-3, cache_size=500)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        svc.fit(K_or_X, y)
    converged = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
    return svc, converged


class SVM(ClassifierMixin, BaseEstimator):
    """C-SVM with Gaussian kernel exp(-gamma ||x - z||^2) and balance weights (Section 7).

    ``max_iter`` bounds libsvm's iterations (the grid's corner C = 1e10 with small gamma otherwise
    runs for many minutes); ``converged_`` is False when the bound was hit. ``random_state`` is
    accepted for the uniform interface; libsvm is deterministic without probability estimates.
    Fitted: ``svc_`` (the SVC), ``class_weight_``, ``support_``, ``dual_coef_``, ``converged_``.
    """

    _parameter_constraints = {
        "gamma": [Interval(Real, 0, None, closed="neither")],
        "C": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, -1, None, closed="left")],  # -1: no bound (libsvm)
        "random_state": ["random_state", np.random.Generator],
    }

    def __init__(self, gamma=1.0, C=1.0, max_iter=DEFAULT_MAX_ITER, random_state=None):
        self.gamma = gamma
        self.C = C
        self.max_iter = max_iter
        self.random_state = random_state

    def fit(self, X, y):
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_binary(y, type(self).__name__)
        self.classes_ = np.unique(y)
        self.svc_, self.converged_ = fit_svc(X, y, float(self.C), float(self.gamma), int(self.max_iter))
        self.class_weight_ = balance_class_weight(y)
        self.support_ = self.svc_.support_
        self.dual_coef_ = self.svc_.dual_coef_
        self.n_iter_ = int(np.max(self.svc_.n_iter_))
        return self

    def decision_function(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self.svc_.decision_function(X)

    def predict(self, X):
        check_is_fitted(self)
        return self.classes_[(self.decision_function(X) > 0).astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
