"""SLM / SLR Forest (Sec. III-A) and SLM / SLR Boost (Sec. III-B, Eqs. 25-35).

One algorithm family of one paper in one module (Forest and Boost share the tree and the losses):
splitting it would scatter Eqs. 25-35 across files.

Both reuse the SLM tree of :mod:`randml_core.models.slm_tree`.  ``staged_*`` methods
give the prediction after each number of trees (boosting rounds) without refitting,
for the convergence figures (accuracy / log loss versus number of trees).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed
from scipy.special import expit, logsumexp, softmax
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .slm_tree import (
    TREE_PARAMS,
    SLMClassifier,
    SLMRegressor,
    _grow_tree,
    _NewtonCriterion,
    check_tree_params,
    standardize_fit,
)

__all__ = [
    "SLMForestClassifier",
    "SLMForestRegressor",
    "SLMBoostClassifier",
    "SLMBoostRegressor",
]


def _check_int(name, v, lo):
    if isinstance(v, bool) or not isinstance(v, Integral) or v < lo:
        raise ValueError(f"{name} must be an integer >= {lo}, got {v!r}")


def _check_real(name, v, lo, strict=False):
    if isinstance(v, bool) or not isinstance(v, Real) or v < lo or (strict and v == lo):
        raise ValueError(f"{name} must be a real number {'>' if strict else '>='} {lo}, got {v!r}")


# ======================================================================================
# SLM Forest
# ======================================================================================
def _fit_one(est, X, y):
    return est.fit(X, y)


class _BaseSLMForest(BaseEstimator):
    _tree_cls = None

    def _fit_forest(self, X, y):
        _check_int("n_estimators", self.n_estimators, 1)
        rng = check_random_state(self.random_state)
        seeds = rng.randint(np.iinfo(np.int32).max, size=self.n_estimators)
        params = {k: getattr(self, k) for k in TREE_PARAMS}
        params["standardize"] = self.standardize
        trees = [self._tree_cls(**params, random_state=int(s)) for s in seeds]
        self.estimators_ = Parallel(n_jobs=self.n_jobs)(delayed(_fit_one)(t, X, y) for t in trees)
        self.n_hyperplanes_ = int(sum(t.n_hyperplanes_ for t in self.estimators_))
        self.n_parameters_ = int(sum(t.n_parameters_ for t in self.estimators_))
        self.depth_ = int(max(t.depth_ for t in self.estimators_))
        return self

    def _validate_X(self, X):
        check_is_fitted(self, "estimators_")
        return validate_data(self, X, reset=False, dtype=np.float64)


_FOREST_DOC = """
    Parameters
    ----------
    n_estimators : int, default=20
        Number of trees T (the paper's experiments use 20).
    max_depth, min_samples_split, min_samples_leaf, min_loss, n_bins, n_discriminant,
    max_discriminant, alpha, n_selected, envelope_scale, envelope_decay, n_projections, n_pool,
    cos_threshold, max_hyperplanes, exhaustive, standardize :
        Passed to every tree; see :class:`{tree}`. ``exhaustive=False`` draws every
        tree's candidates at random even where the integer grid could be enumerated.
    n_jobs : int or None, default=None
        Trees fitted in parallel with joblib.
    random_state : int, RandomState or None, default=None
        Seeds one independent integer seed per tree.

    Choices: every tree sees all samples and all features (no bootstrap, no feature
    sub-sampling, Sec. III-A); diversity comes only from the random projection draws,
    all trees share the same hyper-parameters (the paper's "several rounds with
    different alpha, beta, P" are not varied per tree).  If the integer grid is small
    enough to be enumerated and ``exhaustive=True``, the trees are identical (no
    randomness left); the experiment configs set ``exhaustive: false``.
    Model size: ``n_hyperplanes_`` / ``n_parameters_`` are sums over trees, ``depth_``
    the deepest tree; per-tree values are on ``estimators_``.

    Estimator checks: all scikit-learn checks pass, none is expected to fail;
    check_array_api_input is skipped by scikit-learn itself unless SCIPY_ARRAY_API=1
    (it passes when that is set).
"""


class SLMForestClassifier(ClassifierMixin, _BaseSLMForest):
    __doc__ = (
        """SLM Forest (Sec. III-A): T independent SLM trees, majority vote.
"""
        + _FOREST_DOC.format(tree="SLMClassifier")
        + """
    voting : {"hard", "soft"}, default="hard"
        "hard" = majority vote of the trees' labels (the paper; ties go to the first
        class in ``classes_``), "soft" = argmax of the mean leaf probability.
        ``predict_proba`` is always the mean of the trees' leaf class distributions
        (a vote fraction would give infinite log loss).

    Attributes
    ----------
    classes_, n_features_in_, estimators_ (fitted SLMClassifier), n_hyperplanes_,
    n_parameters_, depth_.
    """
    )
    _tree_cls = SLMClassifier

    def __init__(
        self,
        n_estimators=20,
        voting="hard",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_loss=0.0,
        n_bins=16,
        n_discriminant=None,
        max_discriminant=None,
        alpha=1.0,
        n_selected=5,
        envelope_scale=10.0,
        envelope_decay=0.5,
        n_projections=1000,
        n_pool=10,
        cos_threshold=0.5,
        max_hyperplanes=3,
        exhaustive=True,
        standardize=True,
        n_jobs=None,
        random_state=None,
    ):
        self.n_estimators = n_estimators
        self.voting = voting
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_loss = min_loss
        self.n_bins = n_bins
        self.n_discriminant = n_discriminant
        self.max_discriminant = max_discriminant
        self.alpha = alpha
        self.n_selected = n_selected
        self.envelope_scale = envelope_scale
        self.envelope_decay = envelope_decay
        self.n_projections = n_projections
        self.n_pool = n_pool
        self.cos_threshold = cos_threshold
        self.max_hyperplanes = max_hyperplanes
        self.exhaustive = exhaustive
        self.standardize = standardize
        self.n_jobs = n_jobs
        self.random_state = random_state

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        if self.voting not in ("hard", "soft"):
            raise ValueError(f"voting must be 'hard' or 'soft', got {self.voting!r}")
        self.classes_ = np.unique(y)
        return self._fit_forest(X, y)

    def _tree_probas(self, X):
        return [t.predict_proba(X) for t in self.estimators_]

    def _decide(self, mean_proba, votes):
        if self.voting == "soft":
            return self.classes_[np.argmax(mean_proba, axis=1)]
        return self.classes_[np.argmax(votes, axis=1)]

    def predict_proba(self, X):
        X = self._validate_X(X)
        return np.mean(self._tree_probas(X), axis=0)

    def predict(self, X):
        return next(iter(self._staged(X, last_only=True)))

    def staged_predict_proba(self, X):
        """Mean tree probability of the first k trees, k = 1..n_estimators."""
        X = self._validate_X(X)
        acc = 0.0
        for k, p in enumerate(self._tree_probas(X), start=1):
            acc = acc + p
            yield acc / k

    def staged_predict(self, X):
        """Forest label using the first k trees, k = 1..n_estimators."""
        yield from self._staged(X, last_only=False)

    def _staged(self, X, last_only):
        X = self._validate_X(X)
        probas = self._tree_probas(X)
        K = len(self.classes_)
        acc = np.zeros((X.shape[0], K))
        votes = np.zeros((X.shape[0], K))
        rows = np.arange(X.shape[0])
        for k, p in enumerate(probas, start=1):
            acc += p
            votes[rows, np.argmax(p, axis=1)] += 1
            if not last_only or k == len(probas):
                yield self._decide(acc / k, votes)


class SLMForestRegressor(RegressorMixin, _BaseSLMForest):
    __doc__ = (
        """SLR Forest (Sec. V-A): T independent SLR trees, mean prediction.
"""
        + _FOREST_DOC.format(tree="SLMRegressor")
        + """
    Attributes
    ----------
    n_features_in_, estimators_ (fitted SLMRegressor), n_hyperplanes_, n_parameters_,
    depth_.
    """
    )
    _tree_cls = SLMRegressor

    def __init__(
        self,
        n_estimators=20,
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_loss=0.0,
        n_bins=16,
        n_discriminant=None,
        max_discriminant=None,
        alpha=1.0,
        n_selected=5,
        envelope_scale=10.0,
        envelope_decay=0.5,
        n_projections=1000,
        n_pool=10,
        cos_threshold=0.5,
        max_hyperplanes=3,
        exhaustive=True,
        standardize=True,
        n_jobs=None,
        random_state=None,
    ):
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_loss = min_loss
        self.n_bins = n_bins
        self.n_discriminant = n_discriminant
        self.max_discriminant = max_discriminant
        self.alpha = alpha
        self.n_selected = n_selected
        self.envelope_scale = envelope_scale
        self.envelope_decay = envelope_decay
        self.n_projections = n_projections
        self.n_pool = n_pool
        self.cos_threshold = cos_threshold
        self.max_hyperplanes = max_hyperplanes
        self.exhaustive = exhaustive
        self.standardize = standardize
        self.n_jobs = n_jobs
        self.random_state = random_state

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        return self._fit_forest(X, y)

    def predict(self, X):
        X = self._validate_X(X)
        return np.mean([t.predict(X) for t in self.estimators_], axis=0)

    def staged_predict(self, X):
        """Mean prediction of the first k trees, k = 1..n_estimators."""
        X = self._validate_X(X)
        acc = 0.0
        for k, t in enumerate(self.estimators_, start=1):
            acc = acc + t.predict(X)
            yield acc / k


# ======================================================================================
# SLM Boost: losses with their first / second derivatives (Eqs. 33-34)
# ======================================================================================
class _SquaredError:
    """l(y, f) = (y - f)^2 / 2;  g = f - y,  h = 1."""

    @staticmethod
    def loss(y, raw):
        return 0.5 * (y - raw[:, 0]) ** 2

    @staticmethod
    def grad_hess(y, raw):
        return raw - y[:, None], np.ones_like(raw)


class _BinaryLogLoss:
    """l(y, f) = log(1 + e^f) - y f, y in {0, 1};  g = sigma(f) - y,  h = sigma(f)(1 - sigma(f))."""

    @staticmethod
    def loss(y, raw):
        return np.logaddexp(0.0, raw[:, 0]) - y * raw[:, 0]

    @staticmethod
    def grad_hess(y, raw):
        p = expit(raw)
        return p - y[:, None], p * (1.0 - p)


class _MultinomialLogLoss:
    """l(y, f) = logsumexp(f) - f_y (softmax log loss);  g_k = p_k - [y = k],
    h_k = p_k (1 - p_k) (the diagonal of the Hessian, as XGBoost uses)."""

    @staticmethod
    def loss(y, raw):
        return logsumexp(raw, axis=1) - raw[np.arange(len(y)), y]

    @staticmethod
    def grad_hess(y, raw):
        p = softmax(raw, axis=1)
        Y = np.zeros_like(raw)
        Y[np.arange(len(y)), y] = 1.0
        return p - Y, p * (1.0 - p)


_BOOST_DOC = """
    Additive training (Eqs. 25-30) from f^(0) = 0: tree t is grown on the second-order
    objective (Eqs. 32-35) sum_i g_i f(x_i) + h_i f(x_i)^2 / 2 with the gradients
    g_i, h_i of the loss at the current score.

    Parameters
    ----------
    n_estimators : int, default=100
        Boosting rounds (the paper uses XGBoost's 100).
    learning_rate : float, default=0.3
        Shrinkage of every tree's output (XGBoost's default eta).
    reg_lambda : float, default=1.0
        L2 penalty lambda on leaf weights (XGBoost's default).
    gamma : float, default=0.0
        Minimum cost reduction for a hyperplane to enter a node's pool.
    min_child_weight : float, default=1.0
        Each side of a candidate hyperplane must have sum of h >= this (XGBoost's default).
    max_depth : int or None, default=3
    min_samples_split, min_samples_leaf, n_bins, n_discriminant, max_discriminant, alpha, n_selected,
    envelope_scale, envelope_decay, n_projections, n_pool, cos_threshold,
    max_hyperplanes, standardize :
        As for the SLM tree (:class:`SLMClassifier`).
    random_state : int, RandomState or None, default=None

    Choices (the paper gives no leaf or split formula for SLM Boost, sec. 6.4 of
    slm_equations.md): the XGBoost completion.  A set's cost is -G^2 / (2 (H + lambda))
    (G, H = sums of g, h), so a hyperplane's DFT cost is the sum over its two sides and
    the DFT feature ranking uses the same cost; leaves (and the fallback value of an
    internal node for an empty cell) get w = -G / (H + lambda).  The initial score is 0
    as the paper states (not the prior / mean).  The SLM tree's "minimum loss" rule does
    not apply.  Model size attributes are sums over all trees and count hyperplanes only
    (leaf weights are not counted, as in Eq. 37).
"""


class _BaseSLMBoost(BaseEstimator):
    def _tree_params(self):
        p = check_tree_params(self)
        _check_int("n_estimators", self.n_estimators, 1)
        _check_real("learning_rate", self.learning_rate, 0.0, strict=True)
        _check_real("reg_lambda", self.reg_lambda, 0.0)
        _check_real("gamma", self.gamma, 0.0)
        _check_real("min_child_weight", self.min_child_weight, 0.0)
        if not isinstance(self.standardize, (bool, np.bool_)):
            raise ValueError(f"standardize must be a bool, got {self.standardize!r}")
        p["min_gain"] = float(self.gamma)
        return p

    def _boost(self, X, y, loss, n_outputs):
        p = self._tree_params()
        rng = check_random_state(self.random_state)
        self.mean_, self.scale_ = standardize_fit(X, self.standardize)
        Xs = (X - self.mean_) / self.scale_
        raw = np.zeros((X.shape[0], n_outputs))
        self.estimators_ = []
        self.train_loss_ = np.empty(self.n_estimators)
        for t in range(self.n_estimators):
            g, h = loss.grad_hess(y, raw)
            round_trees = []
            for k in range(n_outputs):
                crit = _NewtonCriterion(g[:, k], h[:, k], self.reg_lambda, p["min_samples_leaf"], self.min_child_weight)
                tree = _grow_tree(Xs, crit, p, rng)
                round_trees.append(tree)
                raw[:, k] += self.learning_rate * tree.predict_value(Xs)[:, 0]
            self.estimators_.append(round_trees)
            self.train_loss_[t] = float(np.mean(loss.loss(y, raw)))
        trees = [tr for rnd in self.estimators_ for tr in rnd]
        self.n_hyperplanes_ = int(sum(tr.n_hyperplanes for tr in trees))
        self.n_parameters_ = int(sum(tr.n_parameters for tr in trees))
        self.depth_ = int(max(tr.max_depth for tr in trees))
        return self

    def _staged_raw(self, X):
        check_is_fitted(self, "estimators_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        Xs = (X - self.mean_) / self.scale_
        raw = np.zeros((X.shape[0], len(self.estimators_[0])))
        for rnd in self.estimators_:
            for k, tree in enumerate(rnd):
                raw[:, k] += self.learning_rate * tree.predict_value(Xs)[:, 0]
            yield raw.copy()

    def _raw(self, X):
        for raw in self._staged_raw(X):
            pass
        return raw


class SLMBoostClassifier(ClassifierMixin, _BaseSLMBoost):
    __doc__ = (
        """SLM Boost (Sec. III-B): XGBoost-style boosting of SLM trees with log loss.

    Binary: one tree per round on the logit.  K > 2 classes: one tree per class per
    round on the softmax scores, with the diagonal Hessian p_k (1 - p_k) (XGBoost's
    multi:softprob); ``n_estimators`` counts rounds.
"""
        + _BOOST_DOC
        + """
    Attributes
    ----------
    classes_, n_features_in_, mean_, scale_,
    estimators_ : list (per round) of lists (1 or K) of fitted trees,
    train_loss_ : ndarray (n_estimators,), mean training log loss after each round,
    n_hyperplanes_, n_parameters_, depth_.

    Estimator checks: all scikit-learn checks pass, none is expected to fail; fitting on
    a single class raises ValueError (log-loss boosting needs two classes), which
    check_classifiers_one_label accepts.  check_array_api_input is skipped by
    scikit-learn itself unless SCIPY_ARRAY_API=1 (it passes when that is set).
    """
    )

    def __init__(
        self,
        n_estimators=100,
        learning_rate=0.3,
        reg_lambda=1.0,
        gamma=0.0,
        min_child_weight=1.0,
        max_depth=3,
        min_samples_split=2,
        min_samples_leaf=1,
        n_bins=16,
        n_discriminant=None,
        max_discriminant=None,
        alpha=1.0,
        n_selected=5,
        envelope_scale=10.0,
        envelope_decay=0.5,
        n_projections=1000,
        n_pool=10,
        cos_threshold=0.5,
        max_hyperplanes=3,
        standardize=True,
        random_state=None,
    ):
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.reg_lambda = reg_lambda
        self.gamma = gamma
        self.min_child_weight = min_child_weight
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.n_bins = n_bins
        self.n_discriminant = n_discriminant
        self.max_discriminant = max_discriminant
        self.alpha = alpha
        self.n_selected = n_selected
        self.envelope_scale = envelope_scale
        self.envelope_decay = envelope_decay
        self.n_projections = n_projections
        self.n_pool = n_pool
        self.cos_threshold = cos_threshold
        self.max_hyperplanes = max_hyperplanes
        self.standardize = standardize
        self.random_state = random_state

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        K = len(self.classes_)
        if K < 2:
            raise ValueError("SLMBoostClassifier needs at least 2 classes in y; got 1 class.")
        if K == 2:
            return self._boost(X, codes.astype(float), _BinaryLogLoss, 1)
        return self._boost(X, codes, _MultinomialLogLoss, K)

    def _to_proba(self, raw):
        if raw.shape[1] == 1:
            p1 = expit(raw[:, 0])
            return np.column_stack([1.0 - p1, p1])
        return softmax(raw, axis=1)

    def staged_decision_function(self, X):
        """Raw scores after each round (n_samples,) for binary, (n_samples, K) else."""
        for raw in self._staged_raw(X):
            yield raw[:, 0] if raw.shape[1] == 1 else raw

    def staged_predict_proba(self, X):
        """Class probabilities after each round, rounds 1..n_estimators."""
        for raw in self._staged_raw(X):
            yield self._to_proba(raw)

    def staged_predict(self, X):
        """Labels after each round, rounds 1..n_estimators."""
        for raw in self._staged_raw(X):
            proba = self._to_proba(raw)
            yield self.classes_[np.argmax(proba, axis=1)]

    def decision_function(self, X):
        raw = self._raw(X)
        return raw[:, 0] if raw.shape[1] == 1 else raw

    def predict_proba(self, X):
        return self._to_proba(self._raw(X))

    def predict(self, X):
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]


class SLMBoostRegressor(RegressorMixin, _BaseSLMBoost):
    __doc__ = (
        """SLR Boost (Sec. III-B / V-A): XGBoost-style boosting of SLR trees with the
    squared error l = (y - f)^2 / 2 (g = f - y, h = 1).
"""
        + _BOOST_DOC
        + """
    Attributes
    ----------
    n_features_in_, mean_, scale_, estimators_ (list of one-tree lists), train_loss_
    (mean of (y - f)^2 / 2 after each round), n_hyperplanes_, n_parameters_, depth_.

    Estimator checks: all scikit-learn checks pass, none is expected to fail;
    check_array_api_input is skipped by scikit-learn itself unless SCIPY_ARRAY_API=1
    (it passes when that is set).
    """
    )

    __init__ = SLMBoostClassifier.__init__

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        return self._boost(X, y, _SquaredError, 1)

    def staged_predict(self, X):
        """Prediction after each round, rounds 1..n_estimators."""
        for raw in self._staged_raw(X):
            yield raw[:, 0]

    def predict(self, X):
        return self._raw(X)[:, 0]


def warmup() -> None:
    """Fit every SLM estimator once on a tiny input (binary, 3-class, regression), so numba compiles (or loads
    from its disk cache) the split kernels of :mod:`.slm_split_kernels` here, not inside a timed fit. The
    runner calls it once per process before any timer starts (``Family.warmup``)."""
    from .slm_tree import SLMClassifier, SLMRegressor
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y2, y3, yr = (X[:, 0] > 0).astype(np.int64), np.arange(60, dtype=np.int64) % 3, X @ np.arange(1.0, 5.0)
    for est, y in [(SLMClassifier(), y2), (SLMClassifier(), y3), (SLMRegressor(), yr),
                   (SLMForestClassifier(n_estimators=2, random_state=0), y2),
                   (SLMForestClassifier(n_estimators=2, random_state=0), y3),
                   (SLMForestRegressor(n_estimators=2, random_state=0), yr),
                   (SLMBoostClassifier(n_estimators=2, random_state=0), y2),
                   (SLMBoostClassifier(n_estimators=2, random_state=0), y3),
                   (SLMBoostRegressor(n_estimators=2, random_state=0), yr)]:
        est.fit(X, y)
        est.predict(X)
        if hasattr(est, "predict_proba"):
            est.predict_proba(X)
