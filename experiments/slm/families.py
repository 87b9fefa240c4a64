"""SLM paper (arXiv 2205.05296) families: SLM / SLR trees, Forest and Boost, and the baselines.

Importing this module registers one runner family per estimator (``experiment.plugins``). Every
family is a plain fit per setting (``evaluate_plain``: no shared work) that also stores

- class probabilities (log loss) for classifiers that have them;
- staged predictions (``CellResult.staged``) for the four ensembles of Figure 5, from the one
  fit of the cell: SLM Forest (``staged_predict_proba`` = mean of the first k trees' leaf
  distributions), SLM Boost (raw score after k rounds), random forest (mean of the first k
  trees' probabilities, :class:`StagedRandomForestClassifier`) and XGBoost (``iteration_range``,
  :class:`StagedXGBClassifier`);
- the model size of Table II as ``x_*`` columns (:func:`model_size`).

Baseline choices (the paper names the models and the searched parameters, not the grids):

- LSVM / SVM-RBF: libsvm ``SVC`` (linear / RBF kernel), so support vectors can be counted for
  Eq. (36); one-vs-one for more than two classes (libsvm's own).
- LSVR / SVR-RBF: libsvm ``SVR`` on a standardised target (:class:`TargetScaledSVR`): the targets
  range from 0.1 (Friedman 3) to 1700 (Friedman 2), so C and epsilon are on a common scale; the
  prediction is mapped back. The paper's "large regularisation parameter" C is in our grid.
- DT: entropy (classification) / squared error, grown to pure leaves, no limits (as the paper).
- RF: 100 trees, depth grid; XGBoost: 100 trees, depth x learning-rate grid, ``n_jobs=1``.
"""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
from sklearn.svm import SVC, SVR
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.utils.validation import check_is_fitted, validate_data
from xgboost import XGBClassifier, XGBRegressor

from randml_core.family import Family, evaluate_plain, register_family
from randml_core.models.slm import (
    SLMBoostClassifier,
    SLMBoostRegressor,
    SLMClassifier,
    SLMForestClassifier,
    SLMForestRegressor,
    SLMRegressor,
)
from randml_core.models.slm_ensemble import warmup as slm_warmup

__all__ = ["StagedRandomForestClassifier", "StagedXGBClassifier", "TargetScaledSVR", "model_size",
           "svm_parameters", "FAMILIES_SLM"]


class StagedRandomForestClassifier(RandomForestClassifier):
    """scikit-learn's random forest plus the prediction after the first k trees (k = 1..T).

    ``predict_proba`` of a random forest is the mean of its trees' probabilities, so stage k is
    the running mean of the first k trees' ``predict_proba`` (the last stage equals
    ``predict_proba``)."""

    def staged_predict_proba(self, X):
        check_is_fitted(self)
        X = self._validate_X_predict(X)
        total = None
        for k, tree in enumerate(self.estimators_, start=1):
            p = tree.predict_proba(X, check_input=False)
            total = p if total is None else total + p
            yield total / k

    def staged_predict(self, X):
        for p in self.staged_predict_proba(X):
            yield self.classes_[np.argmax(p, axis=1)]


class StagedXGBClassifier(XGBClassifier):
    """XGBoost's classifier plus the prediction after the first k boosting rounds
    (``iteration_range=(0, k)``; no refit), on any class labels.

    XGBoost (>= 2) takes only the labels 0..K-1 ("Invalid classes inferred from unique values
    of `y`": SRBCT's 1..4 failed every cell). The labels are coded 0..K-1 in sorted order before
    the fit and decoded by ``predict`` / ``classes_``: on labels that already are 0..K-1 the
    codes are the labels, so the fit and every stored cell are unchanged."""

    def fit(self, X, y, **kwargs):
        self.__dict__.pop("labels_", None)  # XGBoost's fit reads classes_; no labels of an earlier fit
        labels, codes = np.unique(np.asarray(y), return_inverse=True)
        super().fit(X, codes, **kwargs)
        self.labels_ = labels
        return self

    @property
    def classes_(self):
        return self.__dict__.get("labels_", np.arange(self.n_classes_))

    def predict(self, X, **kwargs):
        return np.asarray(self.classes_)[np.asarray(super().predict(X, **kwargs), dtype=np.intp)]

    def staged_predict_proba(self, X):
        for k in range(1, self.get_booster().num_boosted_rounds() + 1):
            yield self.predict_proba(X, iteration_range=(0, k))

    def staged_predict(self, X):
        classes = np.asarray(self.classes_)
        for p in self.staged_predict_proba(X):
            yield classes[np.argmax(p, axis=1)]


class TargetScaledSVR(RegressorMixin, BaseEstimator):
    """libsvm epsilon-SVR on the standardised target (y - mean) / sd; predictions mapped back.

    Parameters: ``kernel`` ("linear" = LSVR, "rbf" = SVR/RBF), ``C``, ``gamma`` (RBF only),
    ``epsilon`` (in units of the target's sd), ``max_iter`` (libsvm bound, -1 = none).
    ``random_state`` is accepted for the runner and unused (libsvm's SVR is deterministic)."""

    def __init__(self, kernel="rbf", C=1.0, gamma="scale", epsilon=0.1, max_iter=-1, random_state=None):
        self.kernel = kernel
        self.C = C
        self.gamma = gamma
        self.epsilon = epsilon
        self.max_iter = max_iter
        self.random_state = random_state

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        self.y_mean_ = float(np.mean(y))
        sd = float(np.std(y))
        self.y_scale_ = sd if sd > 0 else 1.0
        self.svr_ = SVR(kernel=self.kernel, C=self.C, gamma=self.gamma, epsilon=self.epsilon,
                        max_iter=self.max_iter).fit(X, (y - self.y_mean_) / self.y_scale_)
        self.converged_ = bool(np.max(self.svr_.n_iter_) < self.max_iter) if self.max_iter > 0 else True
        return self

    def predict(self, X):
        check_is_fitted(self, "svr_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return self.svr_.predict(X) * self.y_scale_ + self.y_mean_


def svm_parameters(n_train: int, n_features: int, n_sv: int) -> int:
    """Eq. (36), the paper's SVM count: one slack per training sample, one bias, and per support
    vector its D features, its dual coefficient and its label."""
    return int(n_train + 1 + (n_features + 2) * n_sv)


def _dt_size(tree) -> dict:
    t = tree.tree_
    n_splits = int(np.sum(t.children_left >= 0))
    return {"n_hyperplanes": n_splits, "n_parameters": 2 * n_splits, "depth": int(tree.get_depth())}


def model_size(est) -> dict:
    """Table II counts of a fitted model, stored as ``x_<name>`` columns.

    SLM trees: N_p hyperplanes, (D0 + 1) N_p parameters (Eq. 37), depth (root 0) and the number of
    nodes per level ("1,4,8,..."); ensembles: sums over trees and the deepest tree. DT: splits,
    2 x splits parameters (feature index + threshold) and depth. SVM / SVR: support vectors and
    Eq. (36) (LSVR and SVR alike). RF / XGBoost: not in Table II, nothing stored."""
    if isinstance(est, (SLMClassifier, SLMRegressor)):
        return {"n_hyperplanes": int(est.n_hyperplanes_), "n_parameters": int(est.n_parameters_),
                "depth": int(est.depth_), "nodes_per_level": ",".join(map(str, est.nodes_per_level_))}
    if isinstance(est, (SLMForestClassifier, SLMForestRegressor, SLMBoostClassifier, SLMBoostRegressor)):
        return {"n_hyperplanes": int(est.n_hyperplanes_), "n_parameters": int(est.n_parameters_),
                "depth": int(est.depth_)}
    if isinstance(est, (DecisionTreeClassifier, DecisionTreeRegressor)):
        return _dt_size(est)
    if isinstance(est, SVC):
        n, d = est.shape_fit_
        n_sv = int(est.n_support_.sum())
        return {"n_sv": n_sv, "n_parameters": svm_parameters(n, d, n_sv)}
    if isinstance(est, TargetScaledSVR):
        n, d = est.svr_.shape_fit_
        n_sv = int(len(est.svr_.support_))
        return {"n_sv": n_sv, "n_parameters": svm_parameters(n, d, n_sv)}
    return {}


def _family(name, estimator, proba=False, staged=False, version="1") -> Family:
    fam = Family(name, estimator, version, None)

    def evaluate(split, settings):
        return evaluate_plain(fam, split, settings, staged=staged, proba=proba, extras=model_size)

    # the SLM estimators' numba kernels compile on first use: before any timer (randml_core.family.warm_up)
    compiled = estimator in (SLMClassifier, SLMRegressor, SLMForestClassifier, SLMForestRegressor, SLMBoostClassifier,
                             SLMBoostRegressor)
    return Family(name, estimator, version, evaluate, warmup=slm_warmup if compiled else None, check="plain")


class _DTClassifier(DecisionTreeClassifier):
    """The paper's DT: entropy criterion, grown to pure leaves (the default is gini)."""

    def __init__(self, criterion="entropy", splitter="best", max_depth=None, min_samples_split=2,
                 min_samples_leaf=1, min_weight_fraction_leaf=0.0, max_features=None, random_state=None,
                 max_leaf_nodes=None, min_impurity_decrease=0.0, class_weight=None, ccp_alpha=0.0,
                 monotonic_cst=None):
        super().__init__(criterion=criterion, splitter=splitter, max_depth=max_depth,
                         min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf,
                         min_weight_fraction_leaf=min_weight_fraction_leaf, max_features=max_features,
                         random_state=random_state, max_leaf_nodes=max_leaf_nodes,
                         min_impurity_decrease=min_impurity_decrease, class_weight=class_weight,
                         ccp_alpha=ccp_alpha, monotonic_cst=monotonic_cst)


FAMILIES_SLM = [
    # classification (Tables I, II, Figure 5)
    _family("slm_tree", SLMClassifier, proba=True),
    _family("slm_forest", SLMForestClassifier, proba=True, staged=True),
    _family("slm_boost", SLMBoostClassifier, proba=True, staged=True),
    _family("slm_dt", _DTClassifier, proba=True),
    _family("slm_rf", StagedRandomForestClassifier, proba=True, staged=True),
    _family("slm_xgb", StagedXGBClassifier, proba=True, staged=True),
    _family("slm_svc", SVC),
    # regression (Table III)
    _family("slr_tree", SLMRegressor),
    _family("slr_forest", SLMForestRegressor),
    _family("slr_boost", SLMBoostRegressor),
    _family("slr_dt", DecisionTreeRegressor),
    _family("slr_rf", RandomForestRegressor),
    _family("slr_xgb", XGBRegressor),
    _family("slr_svr", TargetScaledSVR, version="2"),   # 2: fixed the convergence flag (n_iter_ is an int)
]
for _f in FAMILIES_SLM:
    register_family(_f)
