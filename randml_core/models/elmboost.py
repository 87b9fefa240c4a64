"""ELM ridge-regression boosting (Andrecut, 2023, "ELM Ridge Regression Boosting").

One algorithm of one paper in one module (Eqs. of the paper cited per function): splitting it would
scatter the equations across files.

Equation numbers refer to ``../shared/papers/elm_ridge_boosting.txt``.  Known
misprints (see ``ERRATA.md``) are followed in their corrected form:

* Eq. (4) prints ``(H H^T + lambda I)^-1 H^T Y``; the ``J x J`` system of Eq. (8),
  ``W = (H^T H + lambda I)^-1 H^T Y``, is what is solved.
* Eq. (10) prints ``H_t`` inside the sum over ``t' < t``; ``H_t'`` is used.
* Eq. (15) has a misplaced bracket; its target is read as in Eq. (9):
  ``Y'_{l-1} - alpha * sum_{t'<t} H_t'^l W_t'^l``.
* Eq. (17) sums over ``l' = 0..l`` (the levels fitted so far), not up to ``L-1``.
* The ridge parameter is called lambda (Sec. 1-2) and mu (Sec. 3.1); here ``ridge``.
* Minor: Eq. (1) writes the entries of ``R`` as ``x_{j,m}`` (``r_{j,m}`` meant) and
  Sec. 3.2 calls the hyperplanes columns of ``R``; with ``R`` of shape ``J x M`` and
  ``H = h(X R^T)`` they are its rows.

Structure of the boosting (Eqs. 7-17).  With the corrections above, the target of
step ``t`` of level ``l`` is ``Y`` minus ``alpha`` times the sum of *all* earlier
step outputs ``H W`` (earlier levels and earlier steps of this level), because
``Y'_{l-1} = Y - sum_{l'<l} Y_l'`` and ``Y_l' = alpha * sum_t H_t^l' W_t^l'``.  The
fit is therefore ``L * T`` stagewise ridge steps on a running residual
``E <- E - alpha * H_t^l W_t^l`` started from the one-hot ``Y`` (Eq. 3); the level
index only groups the steps (the paper reports accuracy per level, and so does
``staged_decision_function``).  Every step uses a fresh ``N(0, 1)`` projection
``R_t^l`` (Eq. 20).  Because ``W`` minimises the ridge objective,
``<E, H W> = ||H W||^2 + lambda ||W||^2``, hence
``||E - alpha H W||^2 <= ||E||^2 - alpha (2 - alpha) ||H W||^2``: the training
residual never increases for ``alpha`` in ``(0, 2)``.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, check_non_negative, validate_data

__all__ = ["ELMBoostClassifier", "RidgeELMClassifier", "ELMBoostNormalizer", "projection_matrix"]

_ACTIVATIONS = ("tanh", "sign")
#: how ``ridge`` enters the J x J system (see ``ELMBoostClassifier``): the literal reading first
_RIDGE_SCALES = ("none", "n_samples", "trace")
_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def projection_matrix(seed, level, step, n_hidden, n_features, dtype=np.float64, out64=None, out=None):
    """The random projection ``R_t^l`` (``n_hidden x n_features``, entries N(0, 1), Eq. 20).

    Drawn as ``np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(level, step)))
    .standard_normal((n_hidden, n_features))`` in float64, then cast to ``dtype``.
    ``SeedSequence(seed, spawn_key=(l, t))`` is exactly the ``t``-th child of the ``l``-th
    child of ``SeedSequence(seed)`` (``.spawn(l + 1)[l].spawn(t + 1)[t]``), so the streams of
    all (level, step) pairs are independent, can be regenerated in any order, and do not
    depend on ``n_levels`` or ``n_steps``.  Drawing in float64 and casting means a float32 and
    a float64 model with the same seed use the same projections (up to rounding).

    ``out64`` (float64, shape ``(n_hidden, n_features)``) and ``out`` (``dtype``) are optional
    buffers reused across steps.
    """
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(int(level), int(step))))
    if out64 is None:
        out64 = np.empty((n_hidden, n_features), dtype=np.float64)
    rng.standard_normal(out=out64)
    if dtype == np.float64:
        return out64
    if out is None:
        return out64.astype(dtype)
    np.copyto(out, out64, casting="same_kind")
    return out


def _hidden(X, R, activation, out, mask=None):
    """``H = h(X R^T)`` (Eq. 1 / 18) written into ``out`` (C-contiguous, N x J)."""
    np.matmul(X, R.T, out=out)
    if activation == "tanh":
        np.tanh(out, out=out)
    else:  # "sign": h(z) = +1 if z >= 0 else -1 (Eq. 22; sign(0) taken as +1)
        if mask is None:
            mask = np.empty(out.shape, dtype=bool)
        np.less(out, 0, out=mask)
        out.fill(1)
        np.copyto(out, -1, where=mask)
    return out


class _BaseELMBoost(ClassifierMixin, BaseEstimator):
    """Shared fit / predict machinery; subclasses define ``_schedule``."""

    # -- parameters ---------------------------------------------------------------------
    def _schedule(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def _check_params(self):
        n_levels, n_steps, alpha = self._schedule()
        for name, val in (("n_levels", n_levels), ("n_steps", n_steps)):
            if not isinstance(val, numbers.Integral) or isinstance(val, bool) or val < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {val!r}")
        if not isinstance(alpha, numbers.Real) or not 0 < alpha <= 1:
            raise ValueError(f"alpha must be a real number in (0, 1], got {alpha!r}")
        if not isinstance(self.ridge, numbers.Real) or not self.ridge > 0:
            raise ValueError(f"ridge must be a real number > 0, got {self.ridge!r}")
        if self.n_hidden is not None and (
            not isinstance(self.n_hidden, numbers.Integral) or isinstance(self.n_hidden, bool) or self.n_hidden < 1
        ):
            raise ValueError(f"n_hidden must be None or an integer >= 1, got {self.n_hidden!r}")
        if self.activation not in _ACTIVATIONS:
            raise ValueError(f"activation must be one of {_ACTIVATIONS}, got {self.activation!r}")
        if self.ridge_scale not in _RIDGE_SCALES:
            raise ValueError(f"ridge_scale must be one of {_RIDGE_SCALES} ('none' = the paper's literal mu on H^T H), "
                             f"got {self.ridge_scale!r}")
        try:
            dtype = np.dtype(self.dtype)
        except TypeError:
            dtype = None
        if dtype not in _DTYPES:
            raise ValueError(f"dtype must be 'float32' or 'float64', got {self.dtype!r}")
        return int(n_levels), int(n_steps), float(alpha), dtype

    # -- fitting ------------------------------------------------------------------------
    def fit(self, X, y):
        """Fit the ``n_levels x n_steps`` ridge steps (Eqs. 7-17). Returns ``self``."""
        self._fit(X, y, None, False)
        return self

    def fit_staged_eval(self, X, y, X_eval, per_step=False):
        """Fit on ``(X, y)`` and, in the same pass, score ``X_eval`` after every stage.

        Equivalent to ``fit(X, y)`` followed by
        ``np.stack(list(staged_decision_function(X_eval, per_step)))`` but each projection
        is drawn once and used on both sets.  The scores are returned, not stored, so the
        fitted model still holds only the ``W`` matrices.

        Returns
        -------
        scores : ndarray of shape (n_stages, n_eval, n_classes), or (n_stages, n_eval)
            for two classes (same convention as ``decision_function``), where
            ``n_stages = n_levels`` (or ``n_levels * n_steps`` if ``per_step``).
            Labels per stage: ``classes_[scores.argmax(-1)]`` (multiclass) or
            ``classes_[(scores > 0).astype(int)]`` (binary).
        """
        return self._fit(X, y, X_eval, per_step)

    def _fit(self, X, y, X_eval, per_step):
        n_levels, n_steps, alpha, dtype = self._check_params()
        X, y = validate_data(self, X, y, dtype=dtype, order="C")
        check_classification_targets(y)
        if X_eval is not None:
            X_eval = validate_data(self, X_eval, reset=False, dtype=dtype, order="C")
        classes, y_idx = np.unique(y, return_inverse=True)
        n_samples, n_features = X.shape
        n_classes = classes.shape[0]
        n_hidden = n_features if self.n_hidden is None else int(self.n_hidden)

        rng = check_random_state(self.random_state)
        # 128-bit root seed; it is all that is needed to regenerate every R_t^l.
        words = rng.randint(0, 2**32, size=4, dtype=np.uint64)
        seed = sum(int(w) << (32 * i) for i, w in enumerate(words))

        # Running residual E (N x K), started from the one-hot targets Y (Eq. 3).
        resid = np.zeros((n_samples, n_classes), dtype=dtype)
        resid[np.arange(n_samples), y_idx] = 1
        coefs = np.empty((n_levels, n_steps, n_hidden, n_classes), dtype=dtype)
        train_mse = np.empty(n_levels, dtype=np.float64)

        # Buffers reused across all steps.
        H = np.empty((n_samples, n_hidden), dtype=dtype)
        HW = np.empty((n_samples, n_classes), dtype=dtype)
        G = np.empty((n_hidden, n_hidden), dtype=dtype)
        R64 = np.empty((n_hidden, n_features), dtype=np.float64)
        Rw = None if dtype == np.float64 else np.empty((n_hidden, n_features), dtype=dtype)
        mask = np.empty((n_samples, n_hidden), dtype=bool) if self.activation == "sign" else None
        diag = np.diag_indices(n_hidden)
        if X_eval is not None:
            n_eval = X_eval.shape[0]
            He = np.empty((n_eval, n_hidden), dtype=dtype)
            HWe = np.empty((n_eval, n_classes), dtype=dtype)
            maske = np.empty((n_eval, n_hidden), dtype=bool) if self.activation == "sign" else None
            S_eval = np.zeros((n_eval, n_classes), dtype=dtype)
            stages = []

        for lev in range(n_levels):
            for t in range(n_steps):
                R = projection_matrix(seed, lev, t, n_hidden, n_features, dtype, out64=R64, out=Rw)
                _hidden(X, R, self.activation, H, mask)  # Eq. (20)
                # H^T H in one call: numpy hands ``A.T @ A`` to BLAS syrk (then mirrors
                # the triangle), so this is the symmetric rank-N update, not a row loop.
                np.matmul(H.T, H, out=G)
                lam = _effective_ridge(self.ridge, self.ridge_scale, G, n_samples)
                G[diag] += lam
                W = _ridge_solve(G, H.T @ resid, H, lam, resid)  # Eqs. (8), (10), (14)
                coefs[lev, t] = W
                np.matmul(H, W, out=HW)
                HW *= alpha
                resid -= HW  # E <- E - alpha H W  (targets of Eqs. 9, 12, 15, 17)
                if X_eval is not None:
                    _hidden(X_eval, R, self.activation, He, maske)  # Eq. (18)
                    np.matmul(He, W, out=HWe)
                    HWe *= alpha
                    S_eval += HWe  # partial sums of Eq. (19)
                    if per_step or t == n_steps - 1:
                        stages.append(self._format_scores(S_eval.copy()))
            train_mse[lev] = np.einsum("ij,ij->", resid, resid, dtype=np.float64) / resid.size

        self.classes_ = classes
        self.n_hidden_ = n_hidden
        self.seed_ = seed
        self.coefs_ = coefs
        self.train_mse_ = train_mse
        self.alpha_ = alpha
        self.activation_ = self.activation
        if X_eval is not None:
            return np.stack(stages)
        return None

    # -- prediction ---------------------------------------------------------------------
    def _iter_scores(self, X, per_step):
        """Yield the running raw scores (N x K, Eq. 19 partial sums) after each stage.

        The yielded array is a buffer that is updated in place afterwards.
        """
        check_is_fitted(self)
        dtype = self.coefs_.dtype
        X = validate_data(self, X, reset=False, dtype=dtype, order="C")
        alpha, activation = self.alpha_, self.activation_
        n_lev_fit, n_steps_fit, n_hidden, n_classes = self.coefs_.shape
        n_features = X.shape[1]
        H = np.empty((X.shape[0], n_hidden), dtype=dtype)
        HW = np.empty((X.shape[0], n_classes), dtype=dtype)
        S = np.zeros((X.shape[0], n_classes), dtype=dtype)
        R64 = np.empty((n_hidden, n_features), dtype=np.float64)
        Rw = None if dtype == np.float64 else np.empty((n_hidden, n_features), dtype=dtype)
        mask = np.empty(H.shape, dtype=bool) if activation == "sign" else None
        for lev in range(n_lev_fit):
            for t in range(n_steps_fit):
                R = projection_matrix(self.seed_, lev, t, n_hidden, n_features, dtype, out64=R64, out=Rw)
                _hidden(X, R, activation, H, mask)  # Eq. (18)
                np.matmul(H, self.coefs_[lev, t], out=HW)
                HW *= alpha
                S += HW
                if per_step or t == n_steps_fit - 1:
                    yield S

    def _format_scores(self, S):
        if S.shape[1] == 2:
            return S[:, 1] - S[:, 0]
        if S.shape[1] == 1:
            return S[:, 0]
        return S

    def _labels(self, scores):
        if scores.ndim == 1:
            if self.classes_.shape[0] == 1:
                return np.repeat(self.classes_, scores.shape[0])
            return self.classes_[(scores > 0).astype(np.intp)]
        return self.classes_[np.argmax(scores, axis=1)]

    def decision_function(self, X):
        """Ridge output ``Y~`` of Eq. (19); shape (n, K), or (n,) = ``Y~[:, 1] - Y~[:, 0]`` for K = 2."""
        S = None
        for S in self._iter_scores(X, per_step=False):
            pass
        return self._format_scores(S)  # the generator is exhausted: S is ours

    def predict(self, X):
        """Class by the arg-max rule of Eq. (5)."""
        return self._labels(self.decision_function(X))

    def staged_decision_function(self, X, per_step=False):
        """Yield ``decision_function``-shaped scores after every level (every step if ``per_step``).

        The scores after level ``l`` equal those of the same model fitted with
        ``n_levels = l + 1`` (the projections of a (level, step) pair do not depend on
        ``n_levels``).  One pass over the projections, no refitting.
        """
        for S in self._iter_scores(X, per_step):
            yield self._format_scores(S.copy())

    def staged_predict(self, X, per_step=False):
        """Yield the Eq. (5) labels after every level (every step if ``per_step``)."""
        for scores in self.staged_decision_function(X, per_step):
            yield self._labels(scores)


def _effective_ridge(ridge, scale, G, n_samples):
    """The lambda added to the diagonal of ``G = H^T H``: ``ridge`` (``scale="none"``, the paper's
    literal reading), ``ridge * N`` (``"n_samples"``: mu on the per-sample Gram ``H^T H / N``), or
    ``ridge * tr(G) / J`` (``"trace"``: mu on the Gram scaled to unit mean diagonal)."""
    if scale == "none":
        return float(ridge)
    if scale == "n_samples":
        return float(ridge) * n_samples
    return float(ridge) * float(np.trace(G, dtype=np.float64)) / G.shape[0]


def _ridge_solve(G, B, H, ridge, E):
    """Solve ``(H^T H + ridge I) W = H^T E`` given ``G = H^T H + ridge I`` and ``B = H^T E``.

    Cholesky (``cho_factor``/``cho_solve``), ``G`` and ``B`` are overwritten.  Fallbacks
    for a tiny ``ridge``, where rounding can leave ``G`` numerically indefinite: first a
    float64 Cholesky of ``H^T H + ridge I`` (helps float32), then the SVD least-squares
    solution of the augmented system ``[H; sqrt(ridge) I] W = [E; 0]``, which is the same
    minimiser and needs no positive-definite factorisation.
    """
    try:
        c = cho_factor(G, lower=False, overwrite_a=True, check_finite=False)
        return cho_solve(c, B, overwrite_b=True, check_finite=False)
    except LinAlgError:
        pass
    H64 = H.astype(np.float64)
    if G.dtype != np.float64:
        G64 = H64.T @ H64
        G64[np.diag_indices_from(G64)] += ridge
        try:
            c = cho_factor(G64, lower=False, overwrite_a=True, check_finite=False)
            return cho_solve(c, H64.T @ E.astype(np.float64), check_finite=False).astype(G.dtype)
        except LinAlgError:
            pass
    n_hidden = H.shape[1]
    A = np.vstack([H64, np.sqrt(ridge) * np.eye(n_hidden)])
    rhs = np.vstack([E.astype(np.float64), np.zeros((n_hidden, E.shape[1]))])
    return np.linalg.lstsq(A, rhs, rcond=None)[0].astype(G.dtype)


class ELMBoostClassifier(_BaseELMBoost):
    """ELM with multi-level ridge-regression boosting (Andrecut 2023, Eqs. 7-20).

    For each level ``l < n_levels`` and step ``t < n_steps`` a fresh projection
    ``R_t^l ~ N(0, 1)^{J x M}`` gives ``H = h(X R^T)`` (Eq. 20), ``W_t^l`` solves the
    ridge problem ``(H^T H + ridge I) W = H^T E`` on the current residual ``E``
    (Eqs. 8, 10, 14) by Cholesky, and ``E <- E - alpha H W``; ``E`` starts at the
    one-hot ``Y`` (Eq. 3), so level ``l`` starts from ``Y - sum_{l'<l} Y_l'``
    (Eqs. 12, 17).  Prediction is Eq. (19) followed by the arg-max of Eq. (5).  The
    level/step split only groups the ``L * T`` steps; see the module docstring.

    Parameters
    ----------
    n_levels : int, default=10
        Boosting levels ``L``.  The paper plots ``L`` up to 20 and sees saturation after
        about 7 levels (Sec. 3.1); 10 is our default.
    n_steps : int, default=50
        Steps ``T`` per level (paper: 50).
    alpha : float in (0, 1], default=0.5
        Shrinkage ("discount") ``alpha`` (paper: 1/2).  The paper states ``(0, 1)``;
        ``1`` is allowed so that ``n_levels=n_steps=1, alpha=1`` is the plain ridge ELM.
    ridge : float > 0, default=1.0
        Ridge parameter lambda (= mu; paper: 1).
    n_hidden : int or None, default=None
        Hidden units ``J``; ``None`` means ``J = n_features`` (paper: ``J = M``).
    ridge_scale : {"none", "n_samples", "trace"}, default="none"
        How ``ridge`` enters each step's system ``(H^T H + lambda I) W = H^T E``:
        ``"none"``: ``lambda = ridge`` (the paper's Eq. 8 read literally; at N = 60000 the
        diagonal of ``H^T H`` is ~2e4 (tanh) or 6e4 (sign), so mu = 1 is weak);
        ``"n_samples"``: ``lambda = ridge * N`` (mu on the per-sample Gram ``H^T H / N``);
        ``"trace"``: ``lambda = ridge * tr(H^T H) / J`` (mu on the Gram scaled to unit mean
        diagonal; equals ``"n_samples"`` for sign, where every diagonal entry is N).  The
        alternatives exist for the sensitivity study (``experiments/elmboost/sensitivity.py``).
    activation : {"tanh", "sign"}, default="tanh"
        ``h`` of Eq. (1).  ``"sign"`` maps to ``{-1, +1}`` (Eq. 22) with ``h(0) = +1``
        (``numpy.sign`` would give 0, which is not a hash value).
    dtype : {"float32", "float64"}, default="float32"
        Working precision of the GEMMs, the Cholesky solves and ``coefs_``.  The
        projections are always drawn in float64 and cast, so both precisions use the
        same ``R_t^l``.
    random_state : int, RandomState instance or None, default=None
        Source of the 128-bit root seed ``seed_`` (drawn with ``check_random_state``).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    n_hidden_ : int
        ``J`` actually used.
    seed_ : int
        Root seed; ``R_t^l = projection_matrix(seed_, l, t, J, M)``, i.e.
        ``default_rng(SeedSequence(seed_, spawn_key=(l, t))).standard_normal((J, M))``.
        Projections are regenerated at predict time, never stored (paper, Sec. 2 end).
    coefs_ : ndarray of shape (n_levels, n_steps, n_hidden_, n_classes)
        The ``W_t^l``: the only arrays a fitted model holds (besides ``train_mse_``).
    train_mse_ : ndarray of shape (n_levels,)
        Mean squared training residual ``||Y'_l||^2 / (N K)`` after each level (Eq. 17);
        non-increasing (module docstring).
    alpha_, activation_ : float, str
        Values used in the fit; prediction uses these, so ``set_params`` after ``fit``
        cannot silently change the fitted function.

    Notes
    -----
    * No hidden bias and no output intercept: the paper has neither (Eqs. 1-2); its data
      are normalised per sample with Eq. (21), see :class:`ELMBoostNormalizer`.
    * ``decision_function`` is provided, ``predict_proba`` is not: the outputs are
      least-squares fits of one-hot indicators, unbounded and uncalibrated, and calling
      them probabilities would mislead (wrap in ``CalibratedClassifierCV`` if needed).
      For two classes the one-hot fit still has two columns (as in the paper) and
      ``decision_function`` returns ``Y~[:, 1] - Y~[:, 0]`` (scikit-learn's binary
      convention; ``> 0`` means ``classes_[1]``, ties go to ``classes_[0]`` as in Eq. 5).
    * Test-set curves per level: :meth:`fit_staged_eval` (same pass as the fit) or
      :meth:`staged_decision_function` (after the fit; regenerates the projections).
      We chose a separate method over ``fit(X, y, X_eval=...)`` so that ``fit`` keeps
      the plain scikit-learn signature and no evaluation data are stored on the model.
    * Cost per step: the GEMM ``X R^T`` (N M J), ``H^T H`` (N J^2, one ``matmul`` that
      numpy dispatches to BLAS ``syrk``), the thin products ``H^T E`` and ``H W``
      (N J K) and a ``J x J`` Cholesky (``scipy.linalg.cho_factor``/``cho_solve``).
      ``H^T H`` is formed with numpy rather than ``scipy.linalg.blas.?syrk`` on purpose:
      numpy and scipy each bundle their own OpenBLAS thread pool, and alternating the two
      pools inside the loop measured several times slower on our shared 2-core machine
      (idle threads of one pool spin while the other works).  On small problems a single
      BLAS thread (``threadpoolctl.threadpool_limits(1)``) was faster still; thread
      limits are left to the caller.  Buffers (H, H^T H, R, H W) are allocated once per
      fit.  Memory: ``X``, ``H`` (N x J) and the residual (N x K).
    * Sample weights are not supported (the paper has none).
    * scikit-learn common checks: all pass; none is skipped or marked expected-to-fail
      by us (``check_array_api_input`` is skipped by scikit-learn itself when
      ``SCIPY_ARRAY_API`` is unset; no array-API support is claimed).
    """

    def __init__(
        self,
        n_levels=10,
        n_steps=50,
        alpha=0.5,
        ridge=1.0,
        n_hidden=None,
        activation="tanh",
        dtype="float32",
        random_state=None,
        ridge_scale="none",
    ):
        self.n_levels = n_levels
        self.n_steps = n_steps
        self.alpha = alpha
        self.ridge = ridge
        self.n_hidden = n_hidden
        self.activation = activation
        self.dtype = dtype
        self.random_state = random_state
        self.ridge_scale = ridge_scale

    def _schedule(self):
        return self.n_levels, self.n_steps, self.alpha


class RidgeELMClassifier(_BaseELMBoost):
    """Plain ridge ELM (Eqs. 1-6): one projection, one ridge solve, ``Y~ = H~ W``.

    Exactly ``ELMBoostClassifier(n_levels=1, n_steps=1, alpha=1.0, ...)`` with the same
    other parameters (same seed derivation, so the same ``R`` and ``W`` for the same
    ``random_state``).  A separate class so that baseline configurations and
    hyper-parameter grids carry no meaningless boosting parameters.  Parameters,
    attributes and notes as :class:`ELMBoostClassifier`; ``coefs_`` has shape
    ``(1, 1, n_hidden_, n_classes)``.  scikit-learn common checks: all pass.
    """

    def __init__(self, ridge=1.0, n_hidden=None, activation="tanh", dtype="float32", random_state=None,
                 ridge_scale="none"):
        self.ridge = ridge
        self.n_hidden = n_hidden
        self.activation = activation
        self.dtype = dtype
        self.random_state = random_state
        self.ridge_scale = ridge_scale

    def _schedule(self):
        return 1, 1, 1.0


class ELMBoostNormalizer(TransformerMixin, BaseEstimator):
    """Per-sample normalisation of Eq. (21): ``x <- sqrt(x); x <- x - mean(x); x <- x / ||x||``.

    With the default ``center="sample"`` it is stateless (each row is transformed on its own, the
    mean ``<x_n>`` is the image's own pixel mean); ``fit`` only validates.

    Parameters
    ----------
    sqrt : {True, False, "signed"}, default=True
        ``True``: the paper's ``sqrt`` (meant for non-negative pixel intensities);
        negative input raises ``ValueError``.  ``"signed"``: ``sign(x) sqrt(|x|)``, our
        extension for signed features.  ``False``: skip the square root.
    copy : bool, default=True
        If False, transform float input in place where possible.
    center : {"sample", "feature"}, default="sample"
        What ``<x_n>`` in Eq. (21) is: ``"sample"``, the mean over the image's own pixels (our
        reading); ``"feature"``, the per-pixel mean over the rows given to ``fit`` (after the
        square root), learned as ``mean_`` and subtracted from every row at transform time (the
        other reading, for the sensitivity study).  The unit-norm step is per row either way.

    Notes
    -----
    Rows that are constant after the square root (e.g. all-zero rows) have no direction;
    they are mapped to the zero vector instead of dividing by a zero norm.  Integer input
    is converted to float64; float32 is preserved.  scikit-learn common checks: all pass.
    """

    def __init__(self, sqrt=True, copy=True, center="sample"):
        self.sqrt = sqrt
        self.copy = copy
        self.center = center

    def _check_params(self):
        if not (self.sqrt is True or self.sqrt is False or self.sqrt == "signed"):
            raise ValueError(f"sqrt must be True, False or 'signed', got {self.sqrt!r}")
        if self.center not in ("sample", "feature"):
            raise ValueError(f"center must be 'sample' (per-image mean, Eq. 21 as read here) or 'feature' "
                             f"(per-pixel mean over the fitted rows), got {self.center!r}")

    def _root(self, X):
        if self.sqrt is True:
            check_non_negative(X, "ELMBoostNormalizer (sqrt=True)")
            np.sqrt(X, out=X)
        elif self.sqrt == "signed":
            np.copysign(np.sqrt(np.abs(X)), X, out=X)
        return X

    def fit(self, X, y=None):
        """Validate parameters and ``X``; with ``center="feature"`` learn the per-pixel mean ``mean_``."""
        self._check_params()
        X = validate_data(self, X, dtype=[np.float64, np.float32])
        if self.sqrt is True:
            check_non_negative(X, "ELMBoostNormalizer (sqrt=True)")
        if self.center == "feature":
            self.mean_ = self._root(np.array(X, copy=True)).mean(axis=0)
        return self

    def transform(self, X):
        """Apply Eq. (21) row by row."""
        self._check_params()
        if self.center == "feature":
            check_is_fitted(self, "mean_")
        X = validate_data(
            self, X, reset=False, dtype=[np.float64, np.float32], copy=self.copy, force_writeable=True
        )
        X = self._root(X)
        if self.center == "feature":
            X -= self.mean_.astype(X.dtype, copy=False)
            constant = ~np.any(X, axis=1) if X.shape[1] else np.ones(X.shape[0], dtype=bool)
        else:
            constant = np.ptp(X, axis=1) == 0 if X.shape[1] else np.ones(X.shape[0], dtype=bool)
            X -= X.mean(axis=1, keepdims=True)
        norms = np.linalg.norm(X, axis=1, keepdims=True)
        norms[constant] = 1
        X /= norms
        X[constant] = 0
        return X

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.requires_fit = self.center == "feature"
        tags.input_tags.positive_only = self.sqrt is True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags
