"""Principle of Relevant Information (PRI) solved by Sequential Minimal Optimization.

One algorithm of one paper in one module, with the fixed-point iteration and a reference solver kept
beside it for the tests: splitting it would scatter the equations across files.

Paper: L. G. Sanchez Giraldo, "A Sequential Minimal Optimization for the Principle of
Relevant Information" (``../shared/papers/pri_smo.txt``), with the corrections of
``../shared/papers/ERRATA.md`` (PRI-SMO section).

Given a sample ``x_1..x_N`` the PRI looks for a density ``f = sum_i beta_i k_sigma(x_i, .)``
(Eq. 9) on the simplex that trades entropy against Cauchy-Schwarz divergence from the
Parzen estimate ``g`` (alpha_i = 1/N).  In matrix form (Eq. 10)::

    min_beta  J(beta) = (lam - 1) log beta^T V beta - 2 lam log beta^T V alpha
    s.t.      beta >= 0,  1^T beta = 1,

with ``V_ij`` the information potential of Eq. (6).  The gradient is Eq. (13)::

    xi = grad J = 2 (lam - 1) V beta / beta^T V beta - 2 lam q / beta^T q,   q = V alpha.

Because ``beta^T xi = -2`` for every feasible beta, the KKT conditions (Section 5.2 with the
errata's corrected signs) read: ``xi_i = -2`` where ``beta_i > 0`` and ``xi_i >= -2`` where
``beta_i = 0``.

Public objects
--------------
PRISMO                 -- the SMO solver, a scikit-learn style unsupervised estimator.
pri_reference_solve    -- dense spectral projected gradient solver (validation, small N).
pri_fixed_point        -- Principe's classic PRI fixed-point iteration (moves the points).
pri_objective          -- J(beta) of Eq. (10) from a dense V (small N).
pri_potential_matrix   -- dense V (small N only; the SMO never builds it).

The paper's synthetic 2-D mixture (Section 6.1), ``make_pri_mixture``, lives with its benchmark
(``experiments/pri/datasets.py``).
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from typing import NamedTuple

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

__all__ = [
    "PRISMO",
    "pri_reference_solve",
    "pri_fixed_point",
    "pri_objective",
    "pri_potential_matrix",
    "PRIReferenceResult",
    "PRIFixedPointResult",
]

_KERNEL_WIDTHS = ("sqrt2_sigma", "sigma")
_MIB = 1 << 20


# --------------------------------------------------------------------------- kernels
def _potential_gamma(sigma, kernel_width):
    """Return gamma such that ``V_ij = exp(-gamma ||x_i - x_j||^2)`` (constant factor dropped).

    ``"sqrt2_sigma"``: V is the cross information potential of two Gaussian Parzen kernels of
    width sigma (Eq. 6), i.e. a Gaussian of width sqrt(2) sigma: gamma = 1 / (4 sigma^2).
    ``"sigma"``: V is the Gaussian kernel of Section 6.1 itself: gamma = 1 / (2 sigma^2).
    The normalising constant of V only shifts J by a constant, so it is dropped.
    """
    if kernel_width not in _KERNEL_WIDTHS:
        raise ValueError(
            f"kernel_width must be one of {_KERNEL_WIDTHS}, got {kernel_width!r}."
        )
    sigma = float(sigma)
    if not (np.isfinite(sigma) and sigma > 0):
        raise ValueError(f"sigma must be a positive finite number, got {sigma!r}.")
    return 1.0 / (4.0 * sigma**2) if kernel_width == "sqrt2_sigma" else 1.0 / (2.0 * sigma**2)


def _sq_dists(A, B, sqa=None, sqb=None):
    """Squared Euclidean distances ``(len(A), len(B))`` via the Gram expansion, clipped at 0."""
    if sqa is None:
        sqa = np.einsum("ij,ij->i", A, A)
    if sqb is None:
        sqb = np.einsum("ij,ij->i", B, B)
    D = A @ B.T
    D *= -2.0
    D += sqa[:, None]
    D += sqb[None, :]
    np.maximum(D, 0.0, out=D)
    return D


def pri_potential_matrix(X, Y=None, *, sigma=0.2, kernel_width="sqrt2_sigma"):
    """Dense information-potential matrix ``V_ij = exp(-gamma ||x_i - y_j||^2)`` (Eq. 6).

    O(N M) memory: for small problems, tests and the reference solver only.
    """
    gamma = _potential_gamma(sigma, kernel_width)
    X = np.asarray(X, dtype=np.float64)
    Y = X if Y is None else np.asarray(Y, dtype=np.float64)
    D = _sq_dists(X, Y)
    D *= -gamma
    return np.exp(D, out=D)


def pri_objective(beta, V, lam, q=None):
    """``J(beta) = (lam - 1) log beta^T V beta - 2 lam log beta^T q`` with ``q = V 1/N`` (Eq. 10)."""
    beta = np.asarray(beta, dtype=np.float64)
    if q is None:
        q = V.mean(axis=1)
    return (lam - 1.0) * math.log(beta @ (V @ beta)) - 2.0 * lam * math.log(beta @ q)


def _pri_gradient(beta, V, lam, q):
    """Eq. (13): ``2 (lam-1) V beta / beta^T V beta - 2 lam q / beta^T q``."""
    t = V @ beta
    return 2.0 * (lam - 1.0) * t / (beta @ t) - 2.0 * lam * q / (beta @ q)


# --------------------------------------------------------------------------- row cache
class _KernelRowCache:
    """Bounded LRU cache of rows of V, computed on request.

    One preallocated buffer of ``max_rows x N`` doubles (``max_rows`` from ``cache_mb``,
    at least 2 so that a working pair always fits); a row is a view into the buffer and stays
    valid until ``max_rows`` other rows have been requested.  Rows use
    ``gamma ||x_i - x_j||^2 = |z_i|^2 + |z_j|^2 - 2 z_i.z_j`` with ``z = sqrt(gamma) x`` on
    centred data, clipped so that ``V_ij <= 1`` and ``V_ii = 1`` exactly.
    """

    def __init__(self, X, gamma, max_rows):
        n = X.shape[0]
        self.Z = np.ascontiguousarray((X - X.mean(axis=0)) * math.sqrt(gamma))
        self.sz = np.einsum("ij,ij->i", self.Z, self.Z)
        self.max_rows = int(max(2, min(n, max_rows)))
        self.buf = np.empty((self.max_rows, n), dtype=np.float64)
        self.slot = OrderedDict()  # row index -> buffer slot, least recently used first
        self.hits = 0
        self.misses = 0

    def row_means(self):
        """``q = V 1 / N`` by symmetric blocks written into the cache buffer.

        Block rows [s, e) against columns [s, N): row sums go to q[s:e] and, by symmetry of V,
        column sums of the columns >= e go to q[e:], so about N^2 / 2 kernel values are
        evaluated.  O(N^2 d) time, no memory beyond the buffer and O(N d).
        """
        n = self.Z.shape[0]
        q = np.zeros(n)
        b = self.max_rows
        z2t = np.ascontiguousarray(2.0 * self.Z.T)
        flat = self.buf.reshape(-1)
        for s in range(0, n, b):
            e = min(n, s + b)
            out = flat[: (e - s) * (n - s)].reshape(e - s, n - s)
            np.matmul(self.Z[s:e], z2t[:, s:], out=out)
            out -= self.sz[s:e, None]
            out -= self.sz[None, s:]
            k = np.arange(e - s)
            out[k, k] = 0.0
            np.exp(out, out=out)
            q[s:e] += out.sum(axis=1)
            if e < n:
                q[e:] += out[:, e - s :].sum(axis=0)
        self.slot.clear()
        return q / n

    def row(self, i):
        s = self.slot.get(i)
        if s is not None:
            self.slot.move_to_end(i)
            self.hits += 1
            return self.buf[s]
        self.misses += 1
        if len(self.slot) < self.max_rows:
            s = len(self.slot)
        else:
            _, s = self.slot.popitem(last=False)
        out = self.buf[s]
        np.matmul(self.Z, 2.0 * self.Z[i], out=out)
        out -= self.sz
        out -= self.sz[i]
        np.minimum(out, 0.0, out=out)
        out[i] = 0.0
        np.exp(out, out=out)
        self.slot[i] = s
        return out


# --------------------------------------------------------------------------- 2-variable step
def _pri_pair_step(lam, b1, b2, V11, V22, V12, f1, f2, q1, q2, ip, cip):
    """Exact minimiser of the two-variable subproblem (Eq. 23) over beta_2 in [0, w].

    ``f = V beta`` (cached), ``ip = beta^T V beta``, ``cip = beta^T q`` at the current
    point ``(b1, b2)``.  Returns ``(beta2_new, delta_J)``.

    A(beta2) = kappa beta2^2 + 2 d beta2 + e and B(beta2) = delta beta2 + w q1 + phi_B
    (Section 5, with the errata's corrections v_i = f_i - V_1i b1 - V_2i b2 and
    phi_A = ip - (2 (b1 f1 + b2 f2) - (b1^2 V11 + b2^2 V22 + 2 b1 b2 V12))).  The stationary
    points are the roots of c2 x^2 + c1 x + c0 (Eq. 24).  Candidates: the roots inside
    (0, w) (the paper's clipped s1, s2 of Eq. 25) plus both end points and the current point,
    a superset of Eq. (25)-(26) that makes the step the exact 1-D minimum for every lam and
    guarantees it never increases J.  Candidates are compared through the increment
    dJ = (lam-1) log1p(dA / ip) - 2 lam log1p(dB / cip), computed from the step
    Delta = beta2 - b2 (dA = 2 Delta (f2 - f1) + Delta^2 kappa, dB = Delta (q2 - q1)),
    which avoids cancellation near convergence.
    """
    w = b1 + b2
    kappa = V11 + V22 - 2.0 * V12
    v1 = f1 - V11 * b1 - V12 * b2
    v2 = f2 - V12 * b1 - V22 * b2
    phi_a = ip - (2.0 * (b1 * f1 + b2 * f2) - (b1 * b1 * V11 + b2 * b2 * V22 + 2.0 * b1 * b2 * V12))
    phi_b = cip - (b1 * q1 + b2 * q2)
    d = w * (V12 - V11) + (v2 - v1)
    e = w * w * V11 + 2.0 * w * v1 + phi_a
    dq = q2 - q1
    b0 = w * q1 + phi_b
    # Eq. (24)
    c2 = -2.0 * kappa * dq
    c1 = 2.0 * (lam - 1.0) * b0 * kappa - 2.0 * (lam + 1.0) * d * dq
    c0 = 2.0 * (lam - 1.0) * d * b0 - 2.0 * lam * e * dq

    cands = [0.0, w]
    disc = c1 * c1 - 4.0 * c2 * c0
    if disc >= 0.0:
        s = math.sqrt(disc)
        qq = -0.5 * (c1 + math.copysign(s, c1))  # numerically stable roots
        roots = []
        if qq != 0.0:
            roots.append(c0 / qq)
            if c2 != 0.0:
                roots.append(qq / c2)
        elif c2 != 0.0:  # c1 == 0 and disc == 0: double root at 0
            roots.append(0.0)
        cands.extend(r for r in roots if 0.0 < r < w)

    dfa = f2 - f1
    best, best_dj = b2, 0.0
    for s2 in cands:
        delta = s2 - b2
        if delta == 0.0:
            continue
        ra = (2.0 * delta * dfa + delta * delta * kappa) / ip
        rb = delta * dq / cip
        if ra <= -1.0 or rb <= -1.0:  # cannot happen on the simplex (A, B > 0); guard
            continue
        dj = (lam - 1.0) * math.log1p(ra) - 2.0 * lam * math.log1p(rb)
        if dj < best_dj:
            best, best_dj = s2, dj
    return best, best_dj


# --------------------------------------------------------------------------- estimator
class PRISMO(TransformerMixin, BaseEstimator, auto_wrap_output_keys=None):
    """Principle of Relevant Information by Sequential Minimal Optimization.

    Minimises Eq. (10) over the simplex with two-variable analytic steps (Eq. 23-26), a
    cached gradient updated in O(N) per step (Section 5.1) and kernel rows computed on request
    with a bounded LRU cache: memory is O(N + cache_mb), the N x N matrix V is never formed.
    Time is O(N^2 d) for ``q = V alpha`` plus O(N d) per iteration.

    Parameters
    ----------
    sigma : float, default=0.2
        Parzen kernel width (Section 6.1 uses 0.2 on the synthetic mixture).
    lam : float, default=2.0
        Trade-off lambda >= 0 of Eq. (5).  The paper's sufficiency argument (Prop. 3.1) is
        for lam > 1 (and random restarts of the reference solver agree there).  For
        lam <= 1 (vertex-seeking regime, lam = 1 is mode seeking) the solver only returns a
        KKT point, which can be a maximum along a pair: with two points the uniform start
        is one, and the solver stops there.
    tol : float, default=1e-3
        Stop when the KKT conditions hold within tol (Section 5.2, corrected signs):
        ``|xi_i + 2| <= tol`` where ``beta_i > 0`` and ``xi_i >= -2 - tol`` where
        ``beta_i = 0``.  The recorded ``violation_`` is the largest breach of these.
    max_iter : int or None, default=None
        Cap on the number of two-variable steps.  None means ``ceil(N ln N)`` (Section 6.1;
        the paper does not give the base of the log, natural log chosen).
    cache_mb : float, default=64
        Size of the kernel-row LRU cache in MiB (at least two rows are always kept).  The
        same buffer is the workspace of the blocked ``q = V alpha`` pass.
    kernel_width : {"sqrt2_sigma", "sigma"}, default="sqrt2_sigma"
        Width of the Gaussian in V.  The errata note that Eq. (6) (V = integral of two
        Parzen kernels of width sigma, i.e. a Gaussian of width sqrt(2) sigma) and Section
        6.1 (V = the Gaussian kernel of width sigma) disagree.  Default ``"sqrt2_sigma"``
        because it is what the model (Eq. 6-10) defines: f and g are then Parzen densities
        with kernel width sigma, so sigma keeps its meaning (Section 6.1's kappa is the
        kappa_sigma of Eq. 9).  ``"sigma"`` puts Section 6.1's kernel into V directly,
        V_ij = kappa(x_i, x_j) (equivalently sqrt2_sigma with sigma / sqrt(2)); the two are
        compared in ``results/tables/pri_sensitivity.md``.
    first_pass : bool, default=True
        Run the paper's first heuristic (Section 5.2): one sweep over i in descending order
        of ``f = V beta`` at the start, each paired with a uniformly random j != i.  Pairs
        that do not violate the KKT conditions by more than tol (or cannot move) are skipped
        and not counted.  During the sweep convergence is only checked at trace points
        (every ``trace_every_`` steps).  The sweep is then followed by the second stage.
    random_state : int, RandomState instance or None, default=None
        Draws the random partners j of the first pass (the only randomness).

    Working-set selection (second stage, our concrete reading of Section 5.2): the pair
    (i, j) with i = argmin_all xi (the sample that most wants weight: a zero weight breaching
    Eq. 21 or a support point below -2) and j = argmax_{beta_j > 0} xi (the support point
    "most likely to vanish"), i.e. the maximal violating pair.  Its gap bounds the KKT
    breach, so a violating pair exists whenever ``violation_ > tol``.  If the exact pair
    step cannot lower J in floating point the solver stops (``stop_reason_ = "stalled"``).

    Bookkeeping choices: ``f = V beta``, ``IP = beta^T V beta`` and ``CIP = beta^T q`` are
    updated incrementally (Section 5.1, Step 3); IP and CIP are re-synchronised as
    ``beta . f`` and ``beta . q`` every 1000 steps to bound round-off drift; ``f`` itself is
    never recomputed (its drift is tested to stay ~1e-13).

    Attributes
    ----------
    weights_ : ndarray (n_samples,)       beta, on the simplex.
    support_ : ndarray of int              indices with beta > 0 (the relevant set).
    support_vectors_ : ndarray (n_support, n_features)  X[support_].
    n_iter_ : int                          two-variable steps taken (both stages).
    max_iter_ : int                        resolved cap.
    hit_max_iter_ : bool                   stopped because n_iter_ reached max_iter_.
    converged_ : bool                      violation <= tol at exit.
    stop_reason_ : {"tol", "max_iter", "stalled"}
    objective_ : ndarray                   J(beta) recorded every ``trace_every_`` steps,
                                           at step 0 and at the last step.
    violation_ : ndarray                   KKT breach at the same steps.
    trace_iter_ : ndarray of int           step numbers of the trace entries.
    trace_every_ : int                     ``max(1, max_iter_ // 1000)``.
    gradient_ : ndarray (n_samples,)       xi (Eq. 13/27) from the cached f at exit.
    ip_, cip_ : float                      beta^T V beta and beta^T q at exit (cached).
    n_first_pass_iter_ : int               steps taken by the first pass.
    cache_rows_, cache_hits_, cache_misses_ : int   row-cache size and statistics.
    fit_seconds_ : float                   wall time of fit.
    n_features_in_ : int

    Notes on scikit-learn checks: fit needs >= 2 samples (one sample is trivial, beta = 1,
    and is rejected like other estimators that need pairs).  ``transform`` returns the
    relevant set (n_support rows), not one row per input sample, so the checks that expect
    a per-sample transform are expected failures (listed in ``tests/test_pri.py``):
    check_transformer_data_not_an_array, check_transformer_general,
    check_methods_sample_order_invariance, check_methods_subset_invariance.  For the same
    reason ``set_output`` wrapping is disabled (``auto_wrap_output_keys=None``): the output
    rows are not the input rows, so a pandas index of X would be wrong.
    """

    def __init__(
        self,
        sigma=0.2,
        lam=2.0,
        tol=1e-3,
        max_iter=None,
        cache_mb=64,
        kernel_width="sqrt2_sigma",
        first_pass=True,
        random_state=None,
    ):
        self.sigma = sigma
        self.lam = lam
        self.tol = tol
        self.max_iter = max_iter
        self.cache_mb = cache_mb
        self.kernel_width = kernel_width
        self.first_pass = first_pass
        self.random_state = random_state

    # ------------------------------------------------------------------ validation
    def _check_params(self, n):
        gamma = _potential_gamma(self.sigma, self.kernel_width)
        lam = float(self.lam)
        if not (np.isfinite(lam) and lam >= 0):
            raise ValueError(f"lam must be a finite number >= 0, got {self.lam!r}.")
        tol = float(self.tol)
        if not (np.isfinite(tol) and tol > 0):
            raise ValueError(f"tol must be a positive finite number, got {self.tol!r}.")
        if self.max_iter is None:
            max_iter = max(1, math.ceil(n * math.log(n)))
        else:
            if isinstance(self.max_iter, bool) or not isinstance(self.max_iter, (int, np.integer)):
                raise ValueError(f"max_iter must be a positive int or None, got {self.max_iter!r}.")
            if self.max_iter < 1:
                raise ValueError(f"max_iter must be >= 1, got {self.max_iter!r}.")
            max_iter = int(self.max_iter)
        cache_mb = float(self.cache_mb)
        if not (np.isfinite(cache_mb) and cache_mb > 0):
            raise ValueError(f"cache_mb must be a positive number, got {self.cache_mb!r}.")
        return gamma, lam, tol, max_iter, cache_mb

    # ------------------------------------------------------------------ fit
    def fit(self, X, y=None):
        """Solve Eq. (10) for the sample X (y is ignored)."""
        t_start = time.perf_counter()
        X = validate_data(self, X, dtype=np.float64, ensure_min_samples=2)
        n = X.shape[0]
        gamma, lam, tol, max_iter, cache_mb = self._check_params(n)
        rng = check_random_state(self.random_state)

        cache = _KernelRowCache(X, gamma, int(cache_mb * _MIB) // (8 * n))

        # Step 1: initialisation (beta = alpha = 1/N, f = q)
        q = cache.row_means()
        beta = np.full(n, 1.0 / n)
        f = q.copy()
        ip = float(beta @ f)
        cip = ip
        pen = np.zeros(n)  # 0 where beta > 0, -inf where beta == 0 (masked argmax)

        trace_every = max(1, max_iter // 1000)
        tr_it, tr_obj, tr_vio = [], [], []
        xi = np.empty(n)
        tmp = np.empty(n)

        def full_xi():
            np.multiply(f, 2.0 * (lam - 1.0) / ip, out=xi)
            np.multiply(q, 2.0 * lam / cip, out=tmp)
            np.subtract(xi, tmp, out=xi)
            return xi

        def violation_and_pair():
            x = full_xi()
            i_up = int(np.argmin(x))
            np.add(x, pen, out=tmp)
            j_dn = int(np.argmax(tmp))
            viol = max(x[j_dn] + 2.0, -2.0 - x[i_up], 0.0)
            return viol, i_up, j_dn

        def objective():
            return (lam - 1.0) * math.log(ip) - 2.0 * lam * math.log(cip)

        def record(it, viol):
            tr_it.append(it)
            tr_obj.append(objective())
            tr_vio.append(viol)

        def take_step(a, b):
            """Optimise the pair (a, b); return True if beta moved."""
            nonlocal ip, cip
            ra = cache.row(a)
            rb = cache.row(b)
            b2_new, _ = _pri_pair_step(
                lam, beta[a], beta[b], ra[a], rb[b], ra[b], f[a], f[b], q[a], q[b], ip, cip
            )
            delta = b2_new - beta[b]
            if delta == 0.0:
                return False
            kappa = ra[a] + rb[b] - 2.0 * ra[b]
            ip += 2.0 * delta * (f[b] - f[a]) + delta * delta * kappa
            cip += delta * (q[b] - q[a])
            w = beta[a] + beta[b]
            beta[b] = b2_new
            beta[a] = w - b2_new  # exact 0 when b2_new == w
            pen[a] = 0.0 if beta[a] > 0.0 else -np.inf
            pen[b] = 0.0 if beta[b] > 0.0 else -np.inf
            np.subtract(rb, ra, out=tmp)
            np.multiply(tmp, delta, out=tmp)
            np.add(f, tmp, out=f)
            return True

        viol, i_up, j_dn = violation_and_pair()
        record(0, viol)
        n_iter = 0
        n_first = 0
        stop = "tol" if viol <= tol else None

        # First stage (Section 5.2, first heuristic): i by descending f, j at random.
        if stop is None and self.first_pass:
            order = np.argsort(-f, kind="stable")
            partners = rng.randint(0, n - 1, size=n)
            partners += partners >= order  # uniform over j != i
            a_fac = 2.0 * (lam - 1.0)
            b_fac = 2.0 * lam
            for i, j in zip(order.tolist(), partners.tolist()):
                if n_iter >= max_iter:
                    break
                if beta[i] == 0.0 and beta[j] == 0.0:
                    continue
                xi_i = a_fac * f[i] / ip - b_fac * q[i] / cip
                xi_j = a_fac * f[j] / ip - b_fac * q[j] / cip
                # the sample with the larger gradient must be able to give weight
                donor_ok = beta[j] > 0.0 if xi_j > xi_i else beta[i] > 0.0
                if abs(xi_i - xi_j) <= tol or not donor_ok:
                    continue
                take_step(i, j)
                n_iter += 1
                if n_iter % 1000 == 0:
                    ip, cip = float(beta @ f), float(beta @ q)
                if n_iter % trace_every == 0:
                    viol, i_up, j_dn = violation_and_pair()
                    record(n_iter, viol)
                    if viol <= tol:
                        stop = "tol"
                        break
            n_first = n_iter
            if stop is None:
                viol, i_up, j_dn = violation_and_pair()
                if viol <= tol:
                    stop = "tol"

        # Second stage: maximal violating pair until the KKT conditions hold within tol.
        while stop is None:
            if n_iter >= max_iter:
                stop = "max_iter"
                break
            if i_up == j_dn or not take_step(j_dn, i_up):
                stop = "stalled"
                break
            n_iter += 1
            if n_iter % 1000 == 0:
                ip, cip = float(beta @ f), float(beta @ q)
            viol, i_up, j_dn = violation_and_pair()
            if viol <= tol:
                stop = "tol"
            if n_iter % trace_every == 0 or stop is not None:
                record(n_iter, viol)
        if stop is None:  # first pass ended exactly at max_iter
            stop = "max_iter"
        if tr_it[-1] != n_iter:
            viol, _, _ = violation_and_pair()
            record(n_iter, viol)

        self.weights_ = beta
        self.support_ = np.flatnonzero(beta > 0.0)
        self.support_vectors_ = X[self.support_].copy()
        self.n_iter_ = n_iter
        self.n_first_pass_iter_ = n_first
        self.max_iter_ = max_iter
        self.stop_reason_ = stop
        self.converged_ = tr_vio[-1] <= tol
        self.hit_max_iter_ = stop == "max_iter"
        self.trace_every_ = trace_every
        self.trace_iter_ = np.asarray(tr_it, dtype=np.int64)
        self.objective_ = np.asarray(tr_obj)
        self.violation_ = np.asarray(tr_vio)
        self.gradient_ = full_xi().copy()
        self.ip_ = ip
        self.cip_ = cip
        self.cache_rows_ = cache.max_rows
        self.cache_hits_ = cache.hits
        self.cache_misses_ = cache.misses
        self.fit_seconds_ = time.perf_counter() - t_start
        return self

    # ------------------------------------------------------------------ outputs
    def transform(self, X=None):
        """Return the relevant set: the support points ``X_train[support_]``.

        The relevant set is a property of the training sample; ``X`` is accepted for the
        scikit-learn ``fit_transform`` API and checked for its number of features, but the
        output does not depend on it.  Use ``sample()`` for the weights.
        """
        check_is_fitted(self)
        if X is not None:
            validate_data(self, X, reset=False, dtype=np.float64, ensure_min_samples=1)
        return self.support_vectors_.copy()

    def sample(self):
        """Return ``(points, weights)``: the support points and their beta (summing to 1)."""
        check_is_fitted(self)
        return self.support_vectors_.copy(), self.weights_[self.support_].copy()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = []  # always float64 output
        return tags


# --------------------------------------------------------------------------- reference solver
class PRIReferenceResult(NamedTuple):
    weights: np.ndarray
    objective: float
    n_iter: int
    converged: bool
    stationarity: float


def _project_simplex(v):
    """Euclidean projection onto the probability simplex (sort-based, O(N log N))."""
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1.0
    k = np.arange(1, v.size + 1)
    rho = np.nonzero(u - css / k > 0)[0][-1]
    theta = css[rho] / (rho + 1.0)
    return np.maximum(v - theta, 0.0)


def pri_reference_solve(
    X,
    sigma=0.2,
    lam=2.0,
    *,
    kernel_width="sqrt2_sigma",
    beta0=None,
    tol=1e-11,
    max_iter=200_000,
    memory=10,
):
    """Dense reference solver of Eq. (10) for small N: spectral projected gradient.

    Builds the full V (O(N^2) memory) and runs the nonmonotone spectral projected gradient
    method (Barzilai-Borwein step, Euclidean projection on the simplex, Armijo backtracking
    against the max of the last ``memory`` objectives; Birgin, Martinez & Raydan 2000).
    Stops when the projected-gradient residual ``||P(beta - grad) - beta||_inf <= tol``.
    Independent of the SMO code path (no pair steps, no cache).  Starts from ``beta0``
    (default alpha = 1/N, the SMO's start).

    Returns ``PRIReferenceResult(weights, objective, n_iter, converged, stationarity)``.
    """
    X = check_array(X, dtype=np.float64)
    n = X.shape[0]
    V = pri_potential_matrix(X, sigma=sigma, kernel_width=kernel_width)
    q = V.mean(axis=1)
    lam = float(lam)

    def fun_grad(b):
        t = V @ b
        ip, cip = b @ t, b @ q
        val = (lam - 1.0) * math.log(ip) - 2.0 * lam * math.log(cip)
        return val, 2.0 * (lam - 1.0) * t / ip - 2.0 * lam * q / cip

    beta = np.full(n, 1.0 / n) if beta0 is None else _project_simplex(np.asarray(beta0, float))
    val, g = fun_grad(beta)
    hist = [val]
    step = 1.0
    it = 0
    while True:
        res = float(np.max(np.abs(_project_simplex(beta - g) - beta)))
        if res <= tol or it >= max_iter:
            break
        it += 1
        d = _project_simplex(beta - step * g) - beta
        gd = g @ d
        ref = max(hist[-memory:])
        a = 1.0
        while True:
            cand = beta + a * d
            cval, cg = fun_grad(cand)
            if cval <= ref + 1e-4 * a * gd or a < 1e-20:
                break
            a *= 0.5
        s = cand - beta
        yv = cg - g
        sy = s @ yv
        step = float(np.clip((s @ s) / sy, 1e-12, 1e12)) if sy > 0 else 1e12
        beta, val, g = cand, cval, cg
        hist.append(val)
    return PRIReferenceResult(beta, val, it, bool(res <= tol), res)


# --------------------------------------------------------------------------- fixed point
class PRIFixedPointResult(NamedTuple):
    points: np.ndarray
    objective: np.ndarray
    n_iter: int


def pri_fixed_point(
    X,
    sigma=0.2,
    lam=2.0,
    n_iter=100,
    *,
    kernel_width="sqrt2_sigma",
    Y0=None,
    tol=None,
    block_rows=256,
):
    """Principe's PRI fixed-point iteration: moves N equally weighted points Y (Rao 2008).

    Minimises the same cost as Eq. (8), ``J(Y) = (lam-1) log V(Y) - 2 lam log V(X, Y)``
    with ``V(Y) = mean_kl G(y_k - y_l)``, ``V(X, Y) = mean_kl G(y_k - x_l)`` and the same G as
    the SMO's V (``kernel_width``), but over the point positions (equal weights) instead of
    the weights on fixed points.  Setting dJ/dy_k = 0 and solving for the y_k of the cross
    term gives the Jacobi update (all points at once)::

        y_k <- [ sum_l G(y_k-x_l) x_l + c (sum_l G(y_k-y_l) y_l - y_k sum_l G(y_k-y_l)) ]
               / sum_l G(y_k-x_l),        c = ((1-lam)/lam) V(X,Y) / V(Y),

    (lam = 1: Gaussian mean shift, mode seeking).  Requires lam > 0.

    Cost: each iteration is a full O(N^2 d) pass (blocked, memory O(block_rows N + N d)),
    so ``n_iter`` iterations cost O(n_iter N^2 d); the SMO costs one O(N^2 d) pass for q
    plus O(N d) per pair step.

    Returns ``PRIFixedPointResult(points, objective, n_iter)``: the moved points Y
    (N, d), J(Y) before each update (length n_iter + 1, the last for the returned Y) and the
    number of updates done (fewer than n_iter if ``max |Y_new - Y| <= tol``).
    """
    X = check_array(X, dtype=np.float64)
    lam = float(lam)
    if not (np.isfinite(lam) and lam > 0):
        raise ValueError(f"lam must be > 0 for the fixed point, got {lam!r}.")
    gamma = _potential_gamma(sigma, kernel_width)
    n, dim = X.shape
    Y = X.copy() if Y0 is None else check_array(Y0, dtype=np.float64, copy=True)
    m = Y.shape[0]
    sqx = np.einsum("ij,ij->i", X, X)
    block_rows = max(1, int(block_rows))

    def one_pass(Y):
        sqy = np.einsum("ij,ij->i", Y, Y)
        syy, syx = np.empty(m), np.empty(m)
        gyy_y, gyx_x = np.empty((m, dim)), np.empty((m, dim))
        for s in range(0, m, block_rows):
            sl = slice(s, min(m, s + block_rows))
            Gyy = _sq_dists(Y[sl], Y, sqy[sl], sqy)
            Gyy *= -gamma
            np.exp(Gyy, out=Gyy)
            Gyx = _sq_dists(Y[sl], X, sqy[sl], sqx)
            Gyx *= -gamma
            np.exp(Gyx, out=Gyx)
            syy[sl], syx[sl] = Gyy.sum(1), Gyx.sum(1)
            gyy_y[sl], gyx_x[sl] = Gyy @ Y, Gyx @ X
        vy = syy.sum() / (m * m)
        vxy = syx.sum() / (m * n)
        obj = (lam - 1.0) * math.log(vy) - 2.0 * lam * math.log(vxy)
        return obj, vy, vxy, syy, syx, gyy_y, gyx_x

    objs = []
    done = 0
    for _ in range(int(n_iter)):
        obj, vy, vxy, syy, syx, gyy_y, gyx_x = one_pass(Y)
        objs.append(obj)
        c = ((1.0 - lam) / lam) * (n * vxy) / (m * vy)
        Y_new = (gyx_x + c * (gyy_y - Y * syy[:, None])) / syx[:, None]
        step = float(np.max(np.abs(Y_new - Y)))
        Y = Y_new
        done += 1
        if tol is not None and step <= tol:
            break
    objs.append(one_pass(Y)[0])
    return PRIFixedPointResult(Y, np.asarray(objs), done)
