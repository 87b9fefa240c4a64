"""Runner families of the MeMd paper (imported via ``experiment.plugins``).

- ``memd``: :class:`randml_core.models.memd.MeMdClassifier` (MeMd-J / MeMd-JS are variants). K is
  chosen inside ``fit`` on the training part only (``n_features="auto"``): ``selection="cv"``
  (Table II: inner CV) or ``selection="holdout"`` (Table III: rank on 80 %, take the smallest K of
  best accuracy on the other 20 %). The chosen K is stored as ``x_k`` (and ``x_k_frac`` = K / d,
  ``x_d`` = d).
- ``memd_linear_svm``: linear SVM, :class:`LinearSVMSelect` = LIBLINEAR ``LinearSVC`` (one-vs-rest,
  squared hinge) with C chosen by stratified inner CV on the training part (``x_C``). The paper used
  LIBSVM's linear kernel (one-vs-one); LIBLINEAR is the scalable equivalent for sparse text.
- ``memd_dme``: DME, the discriminative maximum-entropy classifier = multinomial logistic
  regression, :class:`DMESelect` (``LogisticRegression``, lbfgs, L2) with C chosen the same way.

Every family stores ``fit_seconds`` = the whole ``fit`` (including its own selection of K or C), and its
CPU seconds as ``x_fit_cpu_seconds`` (the "half the time" claim is tested on those: wall time moves
with the machine's load).
"""
from __future__ import annotations

import warnings
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold, StratifiedKFold, cross_val_score
from sklearn.svm import LinearSVC
from sklearn.utils.validation import check_is_fitted

from randml_core.family import Family, evaluate_plain, register_family
from randml_core.models.memd import MeMdClassifier

__all__ = ["LinearSVMSelect", "DMESelect", "FAMILIES", "select_c"]


def select_c(base, X, y, Cs, cv, random_state):
    """Mean inner-CV accuracy of ``base`` for each C; returns (best C, accuracies).

    Folds: stratified ``min(cv, smallest class)`` folds, shuffled with ``random_state`` (plain
    shuffled folds when a class has a single member). Ties go to the smaller C (the first in
    sorted order), i.e. the stronger regularisation.
    """
    Cs = sorted(float(c) for c in Cs)
    counts = np.unique(y, return_counts=True)[1]
    k = int(min(cv, counts.min())) if counts.min() >= 2 else int(min(cv, len(y)))
    splitter = (StratifiedKFold(k, shuffle=True, random_state=random_state) if counts.min() >= 2
                else KFold(k, shuffle=True, random_state=random_state))
    acc = []
    for C in Cs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            acc.append(cross_val_score(clone(base).set_params(C=C), X, y, cv=splitter, scoring="accuracy").mean())
    acc = np.asarray(acc)
    return Cs[int(np.flatnonzero(acc == acc.max())[0])], acc


class _CSelected(ClassifierMixin, BaseEstimator):
    """A linear model whose C is chosen by inner CV on the training data, then refitted on all of it.

    The candidate Cs are ``n_c`` values log-spaced from ``c_min`` to ``c_max`` (scalar parameters,
    so they are plain grid keys of the runner)."""

    @property
    def Cs_(self) -> list[float]:
        return [float(c) for c in np.logspace(np.log10(self.c_min), np.log10(self.c_max), int(self.n_c))]

    def _base(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def fit(self, X, y):
        if not isinstance(self.cv, Integral) or self.cv < 2:
            raise ValueError(f"cv must be an int >= 2, got {self.cv!r}")
        if not (0 < self.c_min <= self.c_max) or not isinstance(self.n_c, Integral) or self.n_c < 1:
            raise ValueError(f"need 0 < c_min <= c_max and an int n_c >= 1, got {self.c_min}, {self.c_max}, {self.n_c}")
        base = self._base()
        if self.n_c == 1 or self.c_min == self.c_max:
            self.C_, self.cv_accuracy_ = float(self.c_min), np.array([np.nan])
        else:
            self.C_, self.cv_accuracy_ = select_c(base, X, y, self.Cs_, self.cv, self.random_state)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            self.estimator_ = clone(base).set_params(C=self.C_).fit(X, y)
        self.converged_ = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
        self.classes_ = self.estimator_.classes_
        return self

    def predict(self, X):
        check_is_fitted(self)
        return self.estimator_.predict(X)

    def decision_function(self, X):
        check_is_fitted(self)
        return self.estimator_.decision_function(X)


class LinearSVMSelect(_CSelected):
    """LIBLINEAR linear SVM (``LinearSVC``, one-vs-rest) with C chosen by inner CV on the training part."""

    def __init__(self, c_min=0.01, c_max=100.0, n_c=5, cv=3, max_iter=2000, random_state=None):
        self.c_min = c_min
        self.c_max = c_max
        self.n_c = n_c
        self.cv = cv
        self.max_iter = max_iter
        self.random_state = random_state

    def _base(self):
        return LinearSVC(max_iter=self.max_iter, random_state=self.random_state)


class DMESelect(_CSelected):
    """DME = multinomial logistic regression (maximum-entropy discriminative model, L2 prior),
    ``LogisticRegression(solver="lbfgs")``, C chosen by inner CV on the training part."""

    def __init__(self, c_min=1.0, c_max=1000.0, n_c=4, cv=3, max_iter=500, random_state=None):
        self.c_min = c_min
        self.c_max = c_max
        self.n_c = n_c
        self.cv = cv
        self.max_iter = max_iter
        self.random_state = random_state

    def _base(self):
        return LogisticRegression(max_iter=self.max_iter, random_state=self.random_state)

    def predict_proba(self, X):
        check_is_fitted(self)
        return self.estimator_.predict_proba(X)


def _memd_extras(est) -> dict:
    d = int(est.n_features_in_)
    return {"k": int(est.n_features_selected_), "k_frac": est.n_features_selected_ / d, "d": d}


def _c_extras(est) -> dict:
    return {"C": float(est.C_)}


def _evaluate(name, extras):
    def evaluate(split, settings):
        return evaluate_plain(FAMILIES[name], split, settings, extras=extras, cpu_time=True)
    return evaluate


FAMILIES = {
    "memd": Family("memd", MeMdClassifier, "1", _evaluate("memd", _memd_extras), check="plain"),
    "memd_linear_svm": Family("memd_linear_svm", LinearSVMSelect, "1", _evaluate("memd_linear_svm", _c_extras),
                              check="plain"),
    "memd_dme": Family("memd_dme", DMESelect, "1", _evaluate("memd_dme", _c_extras), check="plain"),
}
for _f in FAMILIES.values():
    register_family(_f)
