"""MeMd: generative maximum-entropy naive Bayes with maximum-discrimination feature ranking.

One algorithm of one paper in one module (each function cites its equation): splitting it would
scatter the method across files.

Dukkipati, Pandey, Ghoshdastidar, Koley, Sriram, "Generative Maximum Entropy Learning for
Multiclass Classification" (``../shared/papers/memd_generative_maxent.txt``; open choices and
misprints in ``../shared/papers/ERRATA.md``, MeMd section).

Per class ``c`` and feature ``i`` the marginal is the maximum-entropy (ME) density of Eq. (16)
under 1 moment constraint (E[x]) or 2 moment constraints (E[x], E[x^2]), fitted to the sample
moments (Eq. 3). Features are ranked by a divergence between class marginals that is O(d) per
class pair (Remark 1, Eq. 19), and the Bayes rule (Eq. 18 / Algorithm 2-3 step 5) is applied to
the top-K features.

The paper's offline data generators, ``make_gene_like`` (dense, p >> n) and ``make_text_like``
(sparse, row-normalised term frequencies), live with its benchmark (``experiments/memd/generators.py``).
"""

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import KFold, StratifiedKFold, train_test_split
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, check_non_negative, validate_data

__all__ = ["MeMdClassifier"]

_LOG_2PI = float(np.log(2.0 * np.pi))
# Number of float64 cells of the (n_val, n_classes, chunk) block used by the K-curve pass.
_CURVE_BLOCK_CELLS = 1_000_000


# --------------------------------------------------------------------------------------------
# Truncated exponential on [0, 1]: p(x) = exp(-theta x) / Z(theta), the 1-moment ME density.
# --------------------------------------------------------------------------------------------
def _trexp_mean(theta):
    """Mean of the truncated exponential on [0, 1]: m(theta) = 1/theta - 1/(e^theta - 1)."""
    theta = np.asarray(theta, dtype=float)
    a = np.abs(theta)
    small = a < 0.1
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # for a > 0: 1/(e^a - 1) = e^-a / (1 - e^-a), no overflow for large a
        direct = 1.0 / a - np.exp(-a) / (-np.expm1(-a))
    # Taylor series of 1/2 - a/12 + a^3/720 - a^5/30240 + a^7/1209600 (error < 1e-17 for a<0.1)
    series = 0.5 - a / 12.0 + a**3 / 720.0 - a**5 / 30240.0 + a**7 / 1209600.0
    m_pos = np.where(small, series, direct)
    # symmetry m(-theta) = 1 - m(theta)
    return np.where(theta >= 0, m_pos, 1.0 - m_pos)


def _trexp_var(theta):
    """Variance of the truncated exponential, -m'(theta) = 1/theta^2 - e^theta/(e^theta-1)^2."""
    a = np.abs(np.asarray(theta, dtype=float))
    small = a < 0.1
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        e = np.exp(-a)
        direct = 1.0 / a**2 - e / np.expm1(-a) ** 2
    series = 1.0 / 12.0 - a**2 / 240.0 + a**4 / 6048.0 - a**6 / 172800.0
    return np.where(small, series, direct)


def _trexp_log_partition(theta):
    """log Z(theta) = log int_0^1 exp(-theta x) dx (= lambda_0 of Eq. 16)."""
    theta = np.asarray(theta, dtype=float)
    a = np.abs(theta)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_z_pos = np.where(a > 0, np.log(-np.expm1(-a) / np.where(a > 0, a, 1.0)), 0.0)
    # Z(-a) = e^a Z(a)
    return np.where(theta >= 0, log_z_pos, a + log_z_pos)


def _trexp_solve(mu, max_iter=100):
    """Natural parameter theta with m(theta) = mu, for mu in (0, 1), vectorised.

    Newton's method on the half mu' = min(mu, 1 - mu) <= 1/2 (theta' >= 0, then
    theta = +-theta' by the symmetry m(-theta) = 1 - m(theta)). m is decreasing and convex on
    theta >= 0 and the start theta_0 = max(0, 1/mu' - 2) lies left of the root, so the iterates
    increase monotonically to it (no overshoot).
    """
    mu = np.asarray(mu, dtype=float)
    half = np.minimum(mu, 1.0 - mu)
    theta = np.maximum(0.0, 1.0 / half - 2.0)
    for _ in range(max_iter):
        step = (_trexp_mean(theta) - half) / _trexp_var(theta)
        theta = np.minimum(theta + step, 1.0 / half)
        if np.all(np.abs(step) <= 1e-15 * np.maximum(1.0, theta)):
            break
    return np.where(mu <= 0.5, theta, -theta)


# --------------------------------------------------------------------------------------------
# Maximum-entropy marginals and the divergences between them
# --------------------------------------------------------------------------------------------
def _me_params(mean, var, moments, support, floor):
    """ME marginals (Eq. 16) for statistics of shape (M, d).

    Returns a dict with the floored moments ``mean`` (and ``var``), the multipliers
    ``lam`` (shape (M, d, moments), lambda_1..lambda_l of Eq. 16) and ``lam0``
    (log-partition, lambda_0 of Eq. 16), so that log p(x) = -lam0 - sum_k lam_k x^k.
    """
    if moments == 2:
        var = np.maximum(var, floor)
        lam1 = -mean / var
        lam2 = 0.5 / var
        lam0 = 0.5 * (_LOG_2PI + np.log(var)) + 0.5 * mean**2 / var
        return {"mean": mean, "var": var, "lam": np.stack([lam1, lam2], axis=-1), "lam0": lam0}
    if support == "nonnegative":
        mean = np.maximum(mean, floor)
        lam1 = 1.0 / mean
        lam0 = np.log(mean)
    else:  # "unit"
        mean = np.clip(mean, floor, 1.0 - floor)
        lam1 = _trexp_solve(mean)
        lam0 = _trexp_log_partition(lam1)
    return {"mean": mean, "var": None, "lam": lam1[..., None], "lam0": lam0}


def _j_divergence(p, q, moments):
    """J(P||Q) of Remark 1, Eq. (19), between ME marginals given as (mean, var, lam) arrays.

    1 moment: (lam1_q - lam1_p) (mu_p - mu_q). 2 moments: Eq. (19) with lambda_1 = -m/v,
    lambda_2 = 1/(2v), mu_1 = m, mu_2 = v + m^2, written in the algebraically identical form
    (v_p - v_q)^2 / (2 v_p v_q) + (m_p - m_q)^2 (v_p + v_q) / (2 v_p v_q), which avoids the
    cancellation of the lambda-mu products when |m| >> sqrt(v) (raw gene intensities).
    """
    mp, mq = p["mean"], q["mean"]
    if moments == 2:
        vp, vq = p["var"], q["var"]
        den = 2.0 * vp * vq
        return (vp - vq) ** 2 / den + (mp - mq) ** 2 * (vp + vq) / den
    return (q["lam"][..., 0] - p["lam"][..., 0]) * (mp - mq)


def _sel(params, j):
    """Marginals of class j (row j of every array)."""
    return {k: (None if v is None else v[j]) for k, v in params.items()}


# --------------------------------------------------------------------------------------------
# Per-class sufficient statistics (dense or sparse, never densifying a sparse X)
# --------------------------------------------------------------------------------------------
def _class_moments(X, y_idx, n_classes, moments):
    """Counts (M,), means (M, d) and, for 2 moments, MLE variances (M, d) per class.

    Sparse X: per-class sums and sums of squares by one sparse product with the class indicator
    matrix (variance = E[x^2] - m^2, clipped at 0). Dense X: two-pass centred variance.
    Empty classes get zeros (the floor then applies).
    """
    n, d = X.shape
    ind = sp.csr_matrix((np.ones(n), (y_idx, np.arange(n))), shape=(n_classes, n))
    counts = np.bincount(y_idx, minlength=n_classes).astype(float)
    safe = np.maximum(counts, 1.0)[:, None]
    if sp.issparse(X):
        mean = np.asarray((ind @ X).todense()) / safe
        if moments == 1:
            return counts, mean, None
        sq = np.asarray((ind @ X.multiply(X)).todense()) / safe
        return counts, mean, np.maximum(sq - mean**2, 0.0)
    mean = np.asarray(ind @ X) / safe
    if moments == 1:
        return counts, mean, None
    var = np.zeros((n_classes, d))
    for j in range(n_classes):
        rows = X[y_idx == j]
        if rows.shape[0]:
            var[j] = np.mean((rows - mean[j]) ** 2, axis=0)
    return counts, mean, var


def _complement_moments(counts, mean, var, moments):
    """Moments of the pooled 'all other classes' sample c_j' (Algorithm 2, step 1), per class.

    Combined from the per-class moments (pooled mean; pooled variance = within + between
    sums of squares), so it costs O(M^2 d) and needs no second pass over X. With two classes
    the complement of one class is exactly the other class's statistics.
    """
    n_classes = counts.shape[0]
    if n_classes == 2:
        order = [1, 0]
        return counts[order], mean[order], None if var is None else var[order]
    c_counts = counts.sum() - counts
    c_mean = np.empty_like(mean)
    c_var = None if var is None else np.empty_like(var)
    for j in range(n_classes):
        others = np.arange(n_classes) != j
        w = counts[others]
        tot = max(c_counts[j], 1.0)
        c_mean[j] = w @ mean[others] / tot
        if var is not None:
            ss = w @ var[others] + w @ (mean[others] - c_mean[j]) ** 2
            c_var[j] = ss / tot
    return c_counts, c_mean, c_var


def _fit_core(X, y_idx, n_classes, moments, support, floor, divergence):
    """Estimate the ME marginals and the ranking scores on one training sample."""
    counts, mean, var = _class_moments(X, y_idx, n_classes, moments)
    prior = counts / counts.sum()
    params = _me_params(mean, var, moments, support, floor)
    d = X.shape[1]
    scores = np.zeros(d)
    present = np.flatnonzero(counts > 0)
    if present.size >= 2:
        if divergence == "J":
            # Eq. (20)-(21): prior-weighted one-vs-all J (binary: Algorithm 1 exactly)
            c_counts, c_mean, c_var = _complement_moments(counts, mean, var, moments)
            comp = _me_params(c_mean, c_var, moments, support, floor)
            for j in present:
                scores += prior[j] * _j_divergence(_sel(params, j), _sel(comp, j), moments)
        else:
            # Eq. (24): JS_GM = 1/2 sum_j sum_{k!=j} pi_j pi_k J_jk = sum_{j<k} pi_j pi_k J_jk
            for a, j in enumerate(present):
                for k in present[a + 1:]:
                    jk = _j_divergence(_sel(params, j), _sel(params, k), moments)
                    scores += prior[j] * prior[k] * jk
    ranking = np.argsort(-scores, kind="stable")  # ties broken by feature index
    with np.errstate(divide="ignore"):
        log_prior = np.log(prior)
    return {"counts": counts, "log_prior": log_prior, "params": params,
            "scores": scores, "ranking": ranking}


def _joint_log_likelihood(X, core, features):
    """log P(c_j) + sum_{i in S} log P_cj^(i)(x_i) (Eq. 17-18) for the feature subset S."""
    lam = core["params"]["lam"][:, features, :]  # (M, K, l)
    lam0 = core["params"]["lam0"][:, features]
    Xs = X[:, features]
    jll = -(Xs @ lam[:, :, 0].T)
    if lam.shape[2] == 2:
        Xs2 = Xs.multiply(Xs) if sp.issparse(Xs) else Xs * Xs
        jll = jll - Xs2 @ lam[:, :, 1].T
    jll = np.asarray(jll)
    return jll + (core["log_prior"] - lam0.sum(axis=1))[None, :]


def _accuracy_curve(X_val, y_val, core, k_max):
    """Accuracy of the Bayes rule with the top-K features for every K = 1..k_max, in one pass.

    The per-feature log-likelihood contributions log P_cj^(i)(x_i) are taken in ranking order,
    block by block, and cumulatively summed along the ranking axis (running totals carried
    across blocks), so every K is scored at the cost of one prediction with all k_max features.
    A sample counts as correct at K when its true class attains the maximum of the cumulative
    joint log-likelihood, with argmax's tie rule (first class wins). A sparse X_val is
    densified only one block of ranked columns at a time.
    """
    n_val = X_val.shape[0]
    order = core["ranking"][:k_max]
    lam = core["params"]["lam"]
    lam0 = core["params"]["lam0"]
    n_classes = lam0.shape[0]
    y_val = np.asarray(y_val)
    if sp.issparse(X_val):
        X_val = X_val.tocsc()
    # running[j, n]: log P(c_j) + sum of the contributions of the features already scanned
    running = np.repeat(core["log_prior"][:, None], n_val, axis=1)
    correct = np.empty(k_max)
    block = max(1, _CURVE_BLOCK_CELLS // max(1, n_val * n_classes))
    for start in range(0, k_max, block):
        idx = order[start:start + block]
        xb = X_val[:, idx]
        # (block, n_val), C-contiguous: ranking position first
        xt = xb.T.toarray() if sp.issparse(xb) else np.ascontiguousarray(xb.T)
        xt2 = xt * xt if lam.shape[2] == 2 else None
        cum = np.empty((n_classes, idx.size, n_val))
        for j in range(n_classes):
            contrib = lam[j, idx, 0][:, None] * xt
            contrib += lam0[j, idx][:, None]
            if xt2 is not None:
                contrib += lam[j, idx, 1][:, None] * xt2
            np.cumsum(-contrib, axis=0, out=cum[j])
            cum[j] += running[j][None, :]
        running = cum[:, -1, :].copy()
        true = np.take_along_axis(cum, y_val[None, None, :], axis=0)[0]  # (block, n_val)
        ok = np.ones(true.shape, dtype=bool)
        for j in range(n_classes):
            # argmax returns the first maximal class: class j beats the true class y if
            # its score is larger, or equal with j < y
            ok &= (true > cum[j]) | ((true == cum[j]) & (j >= y_val)[None, :])
        correct[start:start + idx.size] = ok.mean(axis=1)
    return correct


# --------------------------------------------------------------------------------------------
# The estimator
# --------------------------------------------------------------------------------------------
class MeMdClassifier(ClassifierMixin, BaseEstimator):
    """Maximum Entropy with Maximum Discrimination (MeMd) naive-Bayes classifier.

    Per class and feature the marginal is the ME density of Eq. (16), fitted to the class's
    sample moments (Eq. 3), in closed form:

    * ``moments=2``: constraints E[x], E[x^2] on the real line -> Gaussian with the sample mean
      and the MLE (ddof=0) variance. ``support`` is ignored.
    * ``moments=1``, ``support="nonnegative"`` (default): constraint E[x] on [0, inf) ->
      exponential, lambda_1 = 1/mean, lambda_0 = log(mean). Chosen as default because it is the
      closed form the paper's complexity claims need (Sec. VI-A: no iterations for 1- or 2-moment
      models), and because for the small means of nearly all words (mean << 1) it is numerically
      the same density as the truncated one (theta ~ 1/mean, e^-theta negligible).
    * ``moments=1``, ``support="unit"``: constraint E[x] on [0, 1] (term weights, Sec. VI-C) ->
      truncated exponential exp(-theta x)/Z(theta); theta has no closed form and is found by a
      vectorised monotone Newton iteration on m(theta) = 1/theta - 1/(e^theta - 1) = mean.

    Ranking (``scores_``, one value per feature, O(d) per class pair, Eq. 19 in closed form):

    * ``divergence="J"`` (MeMd-J, Algorithms 1-2): J_i = sum_j P(c_j) J(P_cj^(i) || P_cj'^(i)),
      Eq. (20)-(21), where c_j' pools all other classes (its moments are combined from the
      per-class ones). For two classes this is J(P_c1^(i) || P_c2^(i)) of Algorithm 1.
    * ``divergence="JS"`` (MeMd-JS, Algorithm 3): JS_GM^(i) of Eq. (23)-(24),
      1/2 sum_j sum_{k!=j} P(c_j) P(c_k) J(P_cj^(i) || P_ck^(i)). The 1/2 of Eq. (24) is kept
      (Algorithm 3 step 3 drops it; the ranking is the same), so ``scores_`` is the value of the
      divergence as defined in Eq. (23).

    With two classes the JS scores are exactly P(c1) P(c2) times the J scores, so both rank the
    features identically and give identical predictions (the paper's remark in Sec. VI-B/C holds
    for the ranking, not only for the accuracies; the only possible difference is the order of two
    features whose J agree to within one rounding error). Ties in the ranking are broken by
    feature index.

    Classification: Bayes rule with the top-K features and the empirical class priors
    (Eq. 17-18; Algorithm 2-3 step 5), evaluated in log space; ``predict_proba`` normalises
    the joint log-likelihoods with log-sum-exp.

    Parameters
    ----------
    divergence : {"J", "JS"}, default="J"
        Ranking criterion: one-vs-all J (MeMd-J) or JS_GM (MeMd-JS).
    moments : {1, 2}, default=2
        Number of moment constraints per marginal (1: exponential family on ``support``,
        2: Gaussian). 1 moment requires X >= 0 (and X <= 1 for ``support="unit"``).
    n_features : int, "all" or "auto", default="auto"
        K, the number of top-ranked features used by the Bayes rule. "auto" picks K with
        ``selection``; "all" uses every feature.
    support : {"nonnegative", "unit"}, default="nonnegative"
        Support of the 1-moment ME marginal: [0, inf) (exponential, closed form) or [0, 1]
        (truncated exponential). Ignored when ``moments=2``.
    floor : float, default=1e-3
        Lower bound applied to the fitted statistic that has no ME solution when degenerate:
        the class mean for 1 moment (clipped to [floor, 1 - floor] for ``support="unit"``;
        a word absent from a class has mean 0) and the class variance for 2 moments (a gene
        constant within a class). Absolute, in the units of X (respectively X^2): a floor
        relative to each feature's pooled mean would give every class-exclusive word the same J
        whatever its frequency, whereas an absolute floor keeps J ~ mean/floor proportional to
        the frequency. J on text depends strongly on this value (ERRATA), so it is exposed.
        Default 1e-3: with 1 moment on ``make_text_like(2000, 20000, 4, random_state=0)``
        (train on 1000 documents, holdout K), held-out accuracy was 0.37 / 0.48 / 0.73 / 0.75
        / 0.60 for floor = 1e-6 / 1e-5 / 1e-4 / 1e-3 / 1e-2 (MultinomialNB: 0.69); for
        standardised or log-expression data a variance floor of 1e-3 is inert. Rescale it
        with the data (it is not scale invariant).
    selection : {"cv", "holdout"}, default="cv"
        Rule for ``n_features="auto"``. "cv" (Table II rule): stratified ``cv``-fold
        cross-validation inside the training data; each fold ranks and fits on its training part
        and scores every K on its held-out part; K is the smallest K of maximal mean fold
        accuracy. "holdout" (Table III rule): rank and fit on a stratified (1 - holdout_fraction)
        part, score every K on the rest, take the smallest K reaching the best accuracy. In both
        cases the final model is then ranked and fitted on all the training data.
    cv : int, default=5
        Number of inner folds for ``selection="cv"`` (the paper does not state it). Reduced to
        the size of the smallest class when that is smaller (and to plain shuffled K-fold if a
        class has a single sample).
    holdout_fraction : float, default=0.2
        Held-out share for ``selection="holdout"`` (the paper's 80/20).
    random_state : int, RandomState instance or None, default=None
        Seeds the inner split(s) of ``n_features="auto"``; the model is otherwise deterministic.

    Attributes
    ----------
    classes_ : ndarray of shape (M,)
    class_count_ : ndarray of shape (M,)
    class_prior_ : ndarray of shape (M,)
        Empirical class priors P(c_j), used both in Eq. (21)/(24) and in the Bayes rule.
    mean_ : ndarray of shape (M, d)
        Fitted (floored) class means of every feature.
    var_ : ndarray of shape (M, d) or None
        Fitted (floored) MLE class variances (``moments=2``), else None.
    lambda_ : ndarray of shape (M, d, moments)
        ME multipliers lambda_1..lambda_l of Eq. (16) (log p = -lambda_0 - sum_k lambda_k x^k).
    lambda0_ : ndarray of shape (M, d)
        lambda_0 of Eq. (16), the log-partition function.
    scores_ : ndarray of shape (d,)
        Divergence per feature (J of Eq. 21 or JS_GM of Eq. 24). All zero with a single class.
    ranking_ : ndarray of shape (d,)
        Feature indices in decreasing order of ``scores_``.
    n_features_selected_ : int
        The K used by ``predict``.
    selection_curve_ : dict or None
        With ``n_features="auto"``: ``{"k": array 1..d, "accuracy": array}`` (mean inner
        accuracy per K; with "cv" also ``"accuracy_folds"`` of shape (n_folds, d)).
        None otherwise.
    n_features_in_ : int
    feature_names_in_ : ndarray, only when X has string feature names.

    Notes
    -----
    * Algorithm 3 step 2 cites "(22)" for the pairwise J; Eq. (19) is meant and used.
    * With three or more classes MeMd-J and MeMd-JS rank differently in general (one-vs-all
      pooled marginals vs pairwise marginals); only the binary case coincides.
    * The Bayes rule uses log p = -lambda_0 - sum_k lambda_k x^k (Eq. 18), i.e. products of X
      (and X^2) with the multipliers, so sparse X is never densified at predict time either.
    * ``n_features="auto"`` scores every K = 1..d in one cumulative pass over the ranking
      (see ``_accuracy_curve``); the splits are stratified when every class has at least two
      members (else plain shuffled splits). A class missing from an inner training part gets
      prior 0 there and is never predicted by that inner model.
    * Estimator checks: ``sample_weight`` is not supported (scikit-learn skips the weighted
      checks). With ``moments=1`` the ``positive_only`` input tag is set and negative X raises.
      No check is expected to fail for ``moments=2`` or for ``moments=1`` on [0, inf). With
      ``support="unit"`` X must lie in [0, 1], which the generic check data do not, so the 21
      checks that fit on such data are expected failures (listed in tests/test_memd.py).
    """

    def __init__(
        self,
        divergence="J",
        moments=2,
        n_features="auto",
        support="nonnegative",
        floor=1e-3,
        selection="cv",
        cv=5,
        holdout_fraction=0.2,
        random_state=None,
    ):
        self.divergence = divergence
        self.moments = moments
        self.n_features = n_features
        self.support = support
        self.floor = floor
        self.selection = selection
        self.cv = cv
        self.holdout_fraction = holdout_fraction
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = self.moments == 1
        return tags

    # ---------------------------------------------------------------- validation helpers
    def _validate_params(self):
        if self.divergence not in ("J", "JS"):
            raise ValueError(f"divergence must be 'J' or 'JS', got {self.divergence!r}.")
        if isinstance(self.moments, bool) or self.moments not in (1, 2):
            raise ValueError(f"moments must be 1 or 2, got {self.moments!r}.")
        if self.support not in ("nonnegative", "unit"):
            raise ValueError(f"support must be 'nonnegative' or 'unit', got {self.support!r}.")
        upper = 0.5 if (self.moments == 1 and self.support == "unit") else np.inf
        if (not isinstance(self.floor, Real) or isinstance(self.floor, bool)
                or not 0 < self.floor < upper):
            raise ValueError(f"floor must be a float in (0, {upper}), got {self.floor!r}.")
        if self.selection not in ("cv", "holdout"):
            raise ValueError(f"selection must be 'cv' or 'holdout', got {self.selection!r}.")
        k = self.n_features
        if not (k in ("auto", "all") if isinstance(k, str)
                else isinstance(k, Integral) and not isinstance(k, bool) and k >= 1):
            raise ValueError(f"n_features must be a positive int, 'all' or 'auto', got {k!r}.")
        if not isinstance(self.cv, Integral) or isinstance(self.cv, bool) or self.cv < 2:
            raise ValueError(f"cv must be an int >= 2, got {self.cv!r}.")
        if not isinstance(self.holdout_fraction, Real) or not 0 < self.holdout_fraction < 1:
            raise ValueError(
                f"holdout_fraction must be in (0, 1), got {self.holdout_fraction!r}.")

    def _check_support(self, X):
        if self.moments != 1:
            return
        check_non_negative(X, f"{type(self).__name__} (moments=1)")
        if self.support == "unit":
            xmax = (X.data.max() if X.nnz else 0.0) if sp.issparse(X) else X.max(initial=0.0)
            if xmax > 1.0:
                raise ValueError(
                    f"Values greater than 1 in data passed to {type(self).__name__} with "
                    "support='unit' (the truncated exponential lives on [0, 1]).")

    def _core(self, X, y_idx):
        return _fit_core(X, y_idx, self.classes_.size, self.moments, self.support,
                         self.floor, self.divergence)

    # ---------------------------------------------------------------------------- fit
    def fit(self, X, y):
        """Fit the ME marginals, rank the features and choose K.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        self._validate_params()
        X, y = validate_data(self, X, y, accept_sparse=["csr", "csc"], dtype=np.float64)
        check_classification_targets(y)
        if sp.issparse(X):
            X = X.tocsr()
        self._check_support(X)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        d = X.shape[1]

        k = self.n_features
        self.selection_curve_ = None
        if k == "auto":
            self.selection_curve_ = self._select_k(X, y_idx)
            acc = self.selection_curve_["accuracy"]
            k = int(np.flatnonzero(acc == acc.max())[0]) + 1
        elif k == "all":
            k = d
        elif k > d:
            raise ValueError(f"n_features={k} exceeds the {d} features of X.")

        core = self._core(X, y_idx)
        self._core_ = core
        params = core["params"]
        self.class_count_ = core["counts"]
        self.class_prior_ = core["counts"] / core["counts"].sum()
        self.mean_ = params["mean"]
        self.var_ = params["var"]
        self.lambda_ = params["lam"]
        self.lambda0_ = params["lam0"]
        self.scores_ = core["scores"]
        self.ranking_ = core["ranking"]
        self.n_features_selected_ = int(k)
        return self

    def _select_k(self, X, y_idx):
        """Accuracy of every K = 1..d on inner held-out data (Table II / Table III rules)."""
        n = X.shape[0]
        if n < 2:
            raise ValueError(
                "n_features='auto' needs at least 2 samples to hold data out; got 1 sample.")
        rng = check_random_state(self.random_state)
        d = X.shape[1]
        counts = np.bincount(y_idx)
        min_count = counts[counts > 0].min()
        if self.selection == "holdout":
            idx = np.arange(n)
            strat = y_idx if min_count >= 2 else None
            n_val = min(n - 1, max(1, int(np.ceil(self.holdout_fraction * n))))
            n_present = np.count_nonzero(counts)
            if strat is not None and min(n_val, n - n_val) < n_present:
                strat = None
            tr, va = train_test_split(idx, test_size=n_val, stratify=strat,
                                      random_state=rng.randint(np.iinfo(np.int32).max))
            core = self._core(X[tr], y_idx[tr])
            acc = _accuracy_curve(X[va], y_idx[va], core, d)
            return {"k": np.arange(1, d + 1), "accuracy": acc}
        n_splits = min(self.cv, n)
        if min_count >= 2:
            n_splits = min(n_splits, min_count)
            splitter = StratifiedKFold(n_splits, shuffle=True, random_state=rng)
        else:
            splitter = KFold(n_splits, shuffle=True, random_state=rng)
        folds = []
        for tr, va in splitter.split(np.zeros((n, 1)), y_idx):
            core = self._core(X[tr], y_idx[tr])
            folds.append(_accuracy_curve(X[va], y_idx[va], core, d))
        folds = np.asarray(folds)
        return {"k": np.arange(1, d + 1), "accuracy": folds.mean(axis=0),
                "accuracy_folds": folds}

    # ------------------------------------------------------------------------ predict
    def _jll(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, accept_sparse=["csr", "csc"], dtype=np.float64)
        if sp.issparse(X):
            X = X.tocsr()
        self._check_support(X)
        return _joint_log_likelihood(X, self._core_, self.ranking_[:self.n_features_selected_])

    def predict_joint_log_proba(self, X):
        """log P(c_j) + sum over the top-K features of log P_cj^(i)(x_i), shape (n, M)."""
        return self._jll(X)

    def predict_log_proba(self, X):
        """Log posterior of each class (Bayes rule, normalised with log-sum-exp)."""
        jll = self._jll(X)
        return jll - logsumexp(jll, axis=1, keepdims=True)

    def predict_proba(self, X):
        """Posterior of each class (Bayes rule of Eq. 18 with the top-K features)."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """Class maximising P(c_j) prod_{i in S} P_cj^(i)(x_i) (Algorithm 2-3, step 5)."""
        jll = self._jll(X)
        return self.classes_[np.argmax(jll, axis=1)]
