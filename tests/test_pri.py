"""Tests for randml_core.models.pri (PRI-SMO).

Independent references used here: dense V built with explicit pairwise differences
(not the solver's Gram expansion), full-vector objective/gradient evaluations, grid searches
and finite differences.
"""

import math
import tracemalloc

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import parametrize_with_checks

from randml_core.models.pri import (
    PRISMO,
    _pri_pair_step,
    pri_fixed_point,
    pri_objective,
    pri_potential_matrix,
    pri_reference_solve,
)


# ----------------------------------------------------------------------------- helpers
def mixture(n, random_state):
    """``(X, y)``: n points of three spherical 2-D Gaussians (centres (0, 0), (3, 3), (-6, 4), standard deviations
    0.8, 1.2, 1, a fifth, three tenths and half of the points), the kind of data PRI summarises; scikit-learn's
    make_blobs, its rows shuffled."""
    counts = [n // 5, 3 * n // 10]
    return make_blobs(n_samples=[*counts, n - sum(counts)], centers=[(0.0, 0.0), (3.0, 3.0), (-6.0, 4.0)],
                      cluster_std=[0.8, 1.2, 1.0], random_state=random_state)


def dense_V(X, sigma, kernel_width="sqrt2_sigma"):
    """V by explicit differences: exp(-||xi-xj||^2 / (2 s^2)), s = sqrt(2) sigma or sigma."""
    s2 = 2.0 * sigma**2 if kernel_width == "sqrt2_sigma" else sigma**2
    D = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    return np.exp(-D / (2.0 * s2))


def J_full(B, V, lam):
    """J for each row of B (rows are full weight vectors), Eq. (10) with alpha = 1/N."""
    q = V.mean(axis=1)
    ip = np.einsum("ki,ij,kj->k", B, V, B)
    return (lam - 1.0) * np.log(ip) - 2.0 * lam * np.log(B @ q)


def grad_full(beta, V, lam):
    """Eq. (13) computed from scratch."""
    q = V.mean(axis=1)
    t = V @ beta
    return 2 * (lam - 1) * t / (beta @ t) - 2 * lam * q / (beta @ q)


# ----------------------------------------------------------------------------- pair step
def test_pair_step_matches_dense_grid_search():
    """The analytic two-variable step (Eq. 23-26) vs a dense grid over the segment, with J
    evaluated on full weight vectors and the full V (no A/B formulas)."""
    n, n_grid = 25, 20001
    kinds = {"interior": 0, "boundary": 0}
    for seed in range(24):
        rng = np.random.default_rng(seed)
        lam = [0.5, 1.0, 2.0, 5.0][seed % 4]
        X = rng.uniform(0.0, 2.0, size=(n, 2))
        V = dense_V(X, sigma=0.5)
        q = V.mean(axis=1)
        beta = rng.dirichlet(np.full(n, 0.7))
        beta[rng.choice(n, 8, replace=False)] = 0.0  # some zeros, as during a solve
        beta /= beta.sum()
        a, b = rng.choice(np.flatnonzero(beta > 0), 2, replace=False)
        if seed % 3 == 0:  # also pairs with one zero weight
            b = rng.choice(np.flatnonzero(beta == 0))
        f = V @ beta
        b2, dj = _pri_pair_step(
            lam, beta[a], beta[b], V[a, a], V[b, b], V[a, b], f[a], f[b], q[a], q[b],
            beta @ f, beta @ q,
        )
        w = beta[a] + beta[b]
        assert 0.0 <= b2 <= w

        def vectors(s2):
            B = np.repeat(beta[None, :], len(s2), axis=0)
            B[:, b] = s2
            B[:, a] = w - s2
            return B

        grid = np.linspace(0.0, w, n_grid)
        Jg = J_full(vectors(grid), V, lam)
        J_step = J_full(vectors(np.array([b2])), V, lam)[0]
        J_now = J_full(beta[None, :], V, lam)[0]
        # never worse than any grid point, and not "better" than possible
        assert J_step <= Jg.min() + 1e-12
        assert J_step >= Jg.min() - 1e-6
        # the reported decrease is the true decrease
        assert dj == pytest.approx(J_step - J_now, abs=1e-10)
        kinds["boundary" if b2 in (0.0, w) else "interior"] += 1
    assert kinds["interior"] >= 3 and kinds["boundary"] >= 3, kinds


def test_pair_step_duplicate_points_does_not_move():
    """Two identical points: J is constant along the segment (kappa = 0, q1 = q2)."""
    X = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.3], [0.2, 0.9]])
    V = dense_V(X, 0.5)
    q = V.mean(1)
    beta = np.array([0.1, 0.4, 0.3, 0.2])
    f = V @ beta
    b2, dj = _pri_pair_step(2.0, 0.1, 0.4, V[0, 0], V[1, 1], V[0, 1], f[0], f[1], q[0], q[1],
                            beta @ f, beta @ q)
    assert b2 == 0.4 and dj == 0.0


# ----------------------------------------------------------------------------- closed forms
def test_two_points_closed_form():
    """N = 2: q1 = q2 so beta^T q is constant and J = (lam-1) log IP + const.  lam > 1
    minimises IP -> (1/2, 1/2); lam < 1 maximises IP -> a vertex."""
    X = np.array([[0.0, 0.0], [0.3, 0.1]])
    m = PRISMO(sigma=0.2, lam=2.0, tol=1e-12, max_iter=50).fit(X)
    np.testing.assert_allclose(m.weights_, [0.5, 0.5], atol=1e-12)
    # lam < 1: the symmetric start is a KKT point but a maximum of J on the segment; the KKT
    # test stops there (KKT is only sufficient for lam > 1, Prop. 3.1) ...
    m = PRISMO(sigma=0.2, lam=0.5, tol=1e-12, max_iter=50).fit(X)
    np.testing.assert_allclose(m.weights_, [0.5, 0.5], atol=1e-12)
    assert m.n_iter_ == 0 and m.converged_
    # ... while the exact pair step itself goes to a vertex, the true minimum.
    V = dense_V(X, 0.2)
    q, beta = V.mean(1), np.array([0.5, 0.5])
    f = V @ beta
    b2, dj = _pri_pair_step(0.5, 0.5, 0.5, 1.0, 1.0, V[0, 1], f[0], f[1], q[0], q[1], beta @ f, beta @ q)
    assert b2 in (0.0, 1.0)
    assert dj == pytest.approx(-0.5 * math.log(2.0 / (1.0 + V[0, 1])), abs=1e-12)


def test_three_points_brute_force_simplex():
    """N = 3, lam = 2: SMO and reference solver vs a fine grid over the 2-simplex."""
    X = np.array([[0.0, 0.0], [0.25, 0.0], [0.0, 0.6]])
    lam, sigma = 2.0, 0.2
    V = dense_V(X, sigma)
    h = 1.0 / 1500
    g = np.arange(0.0, 1.0 + h / 2, h)
    b1, b2 = np.meshgrid(g, g, indexing="ij")
    keep = b1 + b2 <= 1.0 + 1e-12
    B = np.stack([b1[keep], b2[keep], np.clip(1.0 - b1[keep] - b2[keep], 0, None)], 1)
    Jg = J_full(B, V, lam)
    best = Jg.min()
    m = PRISMO(sigma=sigma, lam=lam, tol=1e-10, max_iter=10_000).fit(X)
    r = pri_reference_solve(X, sigma, lam)
    J_smo = J_full(m.weights_[None], V, lam)[0]
    assert best - 1e-5 <= J_smo <= best + 1e-12
    assert J_smo == pytest.approx(r.objective, abs=1e-9)
    np.testing.assert_allclose(m.weights_, B[np.argmin(Jg)], atol=5e-3)


def test_kernel_width_equivalence():
    """'sqrt2_sigma' at sigma equals 'sigma' at sqrt(2) sigma (same V); at the same sigma the
    two widths give different problems."""
    X, _ = mixture(150, random_state=4)
    a = PRISMO(sigma=0.3, kernel_width="sqrt2_sigma", tol=1e-8, max_iter=20_000, random_state=0).fit(X)
    b = PRISMO(sigma=0.3 * math.sqrt(2), kernel_width="sigma", tol=1e-8, max_iter=20_000, random_state=0).fit(X)
    np.testing.assert_allclose(a.weights_, b.weights_, atol=1e-10)
    c = PRISMO(sigma=0.3, kernel_width="sigma", tol=1e-8, max_iter=20_000, random_state=0).fit(X)
    assert np.abs(a.weights_ - c.weights_).sum() > 0.1
    np.testing.assert_allclose(pri_potential_matrix(X[:20], sigma=0.3), dense_V(X[:20], 0.3), atol=1e-13)


def test_kernel_width_readings_against_eq6_quadrature_on_three_points():
    """Eq. (6) integrated numerically: the information potential of two Parzen kernels
    kappa_sigma (Section 6.1's Gaussian) is, up to one constant, V of the "sqrt2_sigma" reading;
    "sigma" is kappa itself, so its V is the elementwise square.  The PRI objective of Eq. (10)
    computed by hand from the integrals equals pri_objective under "sqrt2_sigma" only."""
    X = np.array([[0.0, 0.0], [0.3, 0.1], [-0.1, 0.4]])
    sigma, lam = 0.2, 2.0
    h = 0.004
    g = np.arange(-1.6, 2.0, h)
    gx, gy = np.meshgrid(g, g, indexing="ij")

    def kappa(c):  # Section 6.1: exp(-||x - y||^2 / (2 sigma^2)), on the grid
        return np.exp(-((gx - c[0]) ** 2 + (gy - c[1]) ** 2) / (2.0 * sigma**2))

    K = [kappa(c) for c in X]
    cip = np.array([[(K[i] * K[j]).sum() * h * h for j in range(3)] for i in range(3)])
    # closed form of the integral: pi sigma^2 exp(-d^2 / (4 sigma^2)) (a Gaussian of width sqrt(2) sigma)
    d2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    np.testing.assert_allclose(cip, math.pi * sigma**2 * np.exp(-d2 / (4 * sigma**2)), rtol=1e-9)
    V2 = pri_potential_matrix(X, sigma=sigma, kernel_width="sqrt2_sigma")
    V1 = pri_potential_matrix(X, sigma=sigma, kernel_width="sigma")
    np.testing.assert_allclose(V2, cip / cip[0, 0], rtol=1e-9)          # Eq. (6) up to its constant
    np.testing.assert_allclose(V1, np.exp(-d2 / (2 * sigma**2)), rtol=1e-12)  # kappa itself
    np.testing.assert_allclose(V1, V2**2, rtol=1e-12)
    # J(beta) of Eq. (10) by hand from the integrals (alpha = 1/3); the constant pi sigma^2 cancels:
    # (lam-1) log c + (-2 lam) log c = -(lam+1) log c
    beta = np.array([0.5, 0.3, 0.2])
    by_hand = ((lam - 1) * math.log(beta @ cip @ beta) - 2 * lam * math.log(beta @ cip.mean(1))
               + (lam + 1) * math.log(math.pi * sigma**2))
    assert pri_objective(beta, V2, lam) == pytest.approx(by_hand, abs=1e-9)
    assert abs(pri_objective(beta, V1, lam) - by_hand) > 0.05  # the other reading is another problem


# ----------------------------------------------------------------------------- optimality
@pytest.mark.parametrize("tol", [1e-2, 1e-4])
def test_kkt_corrected_signs_at_solution(tol):
    """Errata: xi_i = -2 on the support and xi_i >= -2 where beta_i = 0 (not +2 / > 2)."""
    X, _ = mixture(300, random_state=2)
    # a cap well above the ~3500 pair steps tol=1e-4 takes here (the default, ceil(N log N) = 1712, is not a bound)
    m = PRISMO(sigma=0.5, lam=2.0, tol=tol, max_iter=20_000, random_state=0).fit(X)
    assert m.stop_reason_ == "tol" and m.converged_
    V = dense_V(X, 0.5)
    xi = grad_full(m.weights_, V, 2.0)
    s = m.weights_ > 0
    assert np.all(np.abs(xi[s] + 2.0) <= tol + 1e-10)
    assert np.all(xi[~s] >= -2.0 - tol - 1e-10)
    assert m.weights_ @ xi == pytest.approx(-2.0, abs=1e-12)  # beta^T grad J = -2 always
    assert np.all(np.abs(xi[s] - 2.0) > 3.0)  # the printed +2 is nowhere near
    assert m.violation_[-1] <= tol
    assert np.all(m.weights_ >= 0) and m.weights_.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_array_equal(m.support_, np.flatnonzero(s))


@pytest.mark.parametrize(
    "lam, kernel_width", [(2.0, "sqrt2_sigma"), (2.0, "sigma"), (3.0, "sqrt2_sigma")]
)
def test_smo_matches_reference_solver(lam, kernel_width):
    """Same objective (to 1e-6) as the dense spectral projected gradient solver, N = 200."""
    X, _ = mixture(200, random_state=0)
    m = PRISMO(sigma=0.2, lam=lam, tol=1e-8, max_iter=200_000, kernel_width=kernel_width,
               random_state=0).fit(X)
    r = pri_reference_solve(X, 0.2, lam, kernel_width=kernel_width)
    assert r.converged and m.converged_
    V = dense_V(X, 0.2, kernel_width)
    J_smo = J_full(m.weights_[None], V, lam)[0]
    J_ref = J_full(r.weights[None], V, lam)[0]
    assert J_ref == pytest.approx(r.objective, abs=1e-10)
    xi = grad_full(r.weights, V, lam)  # the reference point is itself a KKT point
    assert np.abs(xi[r.weights > 1e-9] + 2.0).max() <= 1e-6 and xi.min() >= -2.0 - 1e-6
    assert abs(J_smo - J_ref) <= 1e-6
    assert np.abs(m.weights_ - r.weights).sum() <= 1e-3
    assert m.objective_[-1] == pytest.approx(J_smo, abs=1e-9)


def test_reference_solver_multistart_agrees_lam_gt_1():
    """Prop. 3.1 (KKT sufficient for lam > 1): random starts reach the same objective."""
    X, _ = mixture(120, random_state=5)
    rng = np.random.default_rng(0)
    objs = [pri_reference_solve(X, 0.3, 2.0).objective]
    for _ in range(3):
        objs.append(pri_reference_solve(X, 0.3, 2.0, beta0=rng.dirichlet(np.full(120, 0.3))).objective)
    assert np.ptp(objs) <= 1e-8


def test_gradient_cache_equals_fresh_gradient_after_many_steps():
    X, _ = mixture(400, random_state=1)
    m = PRISMO(sigma=0.3, lam=3.0, tol=1e-12, max_iter=6000, random_state=0).fit(X)
    assert m.n_iter_ == 6000 and m.hit_max_iter_ and m.stop_reason_ == "max_iter"
    V = dense_V(X, 0.3)
    np.testing.assert_allclose(m.gradient_, grad_full(m.weights_, V, 3.0), rtol=0, atol=1e-9)
    assert m.ip_ == pytest.approx(m.weights_ @ V @ m.weights_, rel=1e-11)
    assert m.cip_ == pytest.approx(m.weights_ @ V.mean(1), rel=1e-11)


def test_objective_trace_is_monotone_and_consistent():
    X, _ = mixture(250, random_state=3)
    m = PRISMO(sigma=0.4, lam=2.0, tol=1e-6, random_state=1).fit(X)
    assert m.trace_every_ == max(1, m.max_iter_ // 1000)
    assert m.trace_iter_[0] == 0 and m.trace_iter_[-1] == m.n_iter_
    assert np.all(np.diff(m.trace_iter_) > 0)
    assert np.all(np.diff(m.objective_) <= 1e-12)  # exact pair steps never increase J
    assert len(m.objective_) == len(m.violation_) == len(m.trace_iter_)
    V = dense_V(X, 0.4)
    J0 = J_full(np.full((1, 250), 1 / 250), V, 2.0)[0]
    assert m.objective_[0] == pytest.approx(J0, abs=1e-10)
    assert m.objective_[-1] == pytest.approx(J_full(m.weights_[None], V, 2.0)[0], abs=1e-10)


# ----------------------------------------------------------------------------- iteration cap
def test_max_iter_default_and_hit_flag():
    X, _ = mixture(50, random_state=0)
    m = PRISMO(sigma=0.5, lam=2.0, tol=1e-2).fit(X)
    assert m.max_iter_ == math.ceil(50 * math.log(50))
    assert not m.hit_max_iter_ and m.n_iter_ < m.max_iter_
    m = PRISMO(sigma=0.5, lam=2.0, tol=1e-14, max_iter=7, first_pass=False).fit(X)
    assert m.n_iter_ == 7 and m.hit_max_iter_ and not m.converged_


def test_first_pass_off_reaches_same_solution():
    X, _ = mixture(200, random_state=7)
    a = PRISMO(sigma=0.3, lam=2.0, tol=1e-8, max_iter=100_000, random_state=0).fit(X)
    b = PRISMO(sigma=0.3, lam=2.0, tol=1e-8, max_iter=100_000, first_pass=False).fit(X)
    assert a.n_first_pass_iter_ > 0 and b.n_first_pass_iter_ == 0
    assert a.objective_[-1] == pytest.approx(b.objective_[-1], abs=1e-7)
    c = PRISMO(sigma=0.3, lam=2.0, tol=1e-8, max_iter=100_000, random_state=0).fit(X)
    np.testing.assert_array_equal(a.weights_, c.weights_)


# ----------------------------------------------------------------------------- memory
def test_memory_bounded_no_dense_matrix_large_n():
    n = 20_000
    X, _ = mixture(n, random_state=0)
    tracemalloc.start()
    try:
        probe = np.ones(2_000_000)  # tracemalloc must see numpy buffers for this test to mean anything
        assert tracemalloc.get_traced_memory()[1] >= probe.nbytes
        del probe
        tracemalloc.reset_peak()
        m = PRISMO(sigma=0.2, lam=2.0, tol=1e-3, max_iter=100, cache_mb=32, random_state=0).fit(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert m.n_iter_ == 100 and m.hit_max_iter_
    assert m.cache_rows_ == (32 << 20) // (8 * n)
    assert peak < 8 * n * n / 50  # an N x N float64 matrix would be 3.2 GB
    assert peak < 32 * 2**20 + 64 * 8 * n  # cache + O(N) vectors


# ----------------------------------------------------------------------------- API
def test_transform_and_sample_return_relevant_set():
    X, _ = mixture(150, random_state=6)
    m = PRISMO(sigma=0.4, lam=2.0, tol=1e-5, random_state=0)
    with pytest.raises(NotFittedError):
        m.transform()
    Xt = m.fit_transform(X)
    np.testing.assert_array_equal(Xt, X[m.support_])
    np.testing.assert_array_equal(m.transform(), Xt)
    pts, w = m.sample()
    np.testing.assert_array_equal(pts, X[m.support_])
    assert np.all(w > 0) and w.sum() == pytest.approx(1.0, abs=1e-12)
    assert 0 < len(w) < len(X)
    with pytest.raises(ValueError):
        m.transform(np.zeros((3, 5)))
    assert m.fit_seconds_ > 0


@pytest.mark.parametrize(
    "params",
    [{"kernel_width": "bogus"}, {"lam": -1.0}, {"max_iter": 0}, {"sigma": 0.0}, {"tol": 0.0},
     {"cache_mb": -1}],
)
def test_invalid_parameters_raise_at_fit(params):
    X, _ = mixture(20, random_state=0)
    est = PRISMO(**params)  # no validation in __init__
    with pytest.raises(ValueError):
        est.fit(X)


# scikit-learn checks that cannot pass by design (also listed in the PRISMO docstring):
# transform() returns the relevant set (n_support rows of the training data), not one output
# row per input sample, so every check comparing transform's rows with the input rows fails.
# (check_array_api_input is skipped by scikit-learn itself unless SCIPY_ARRAY_API is set;
# the estimator is numpy-only.)  The ">= 2 samples" requirement is not an exception: the
# 1-sample check accepts the ValueError raised by validate_data(ensure_min_samples=2).
_EXPECTED_FAILED = {
    "check_transformer_data_not_an_array": "transform returns the relevant set, not one row per sample",
    "check_transformer_general": "transform returns the relevant set, not one row per sample",
    "check_methods_sample_order_invariance": "transform output does not depend on the rows of X",
    "check_methods_subset_invariance": "transform output does not depend on the rows of X",
}


@parametrize_with_checks([PRISMO()], expected_failed_checks=lambda est: _EXPECTED_FAILED)
def test_sklearn_compatible(estimator, check):
    check(estimator)


# ----------------------------------------------------------------------------- fixed point
def _fp_objective(Y, X, sigma, lam):
    g = 1.0 / (4.0 * sigma**2)
    vy = np.exp(-g * ((Y[:, None] - Y[None]) ** 2).sum(-1)).mean()
    vxy = np.exp(-g * ((Y[:, None] - X[None]) ** 2).sum(-1)).mean()
    return (lam - 1) * np.log(vy) - 2 * lam * np.log(vxy)


def _fd_grad(Y, X, sigma, lam, h=1e-6):
    G = np.zeros_like(Y)
    for k in range(Y.shape[0]):
        for d in range(Y.shape[1]):
            E = np.zeros_like(Y)
            E[k, d] = h
            G[k, d] = (_fp_objective(Y + E, X, sigma, lam) - _fp_objective(Y - E, X, sigma, lam)) / (2 * h)
    return G


def test_fixed_point_lambda1_is_mean_shift_to_stationary_points():
    X, _ = mixture(40, random_state=3)
    r = pri_fixed_point(X, sigma=0.5, lam=1.0, n_iter=1000, tol=1e-12)
    assert r.n_iter < 1000 and r.points.shape == X.shape
    assert np.all(np.diff(r.objective) <= 1e-12)  # mean shift ascends every point's density
    assert r.objective[-1] == pytest.approx(_fp_objective(r.points, X, 0.5, 1.0), abs=1e-10)
    assert np.abs(_fd_grad(r.points, X, 0.5, 1.0)).max() < 1e-7
    # each point converged to a mode of the Parzen density of X
    assert len(np.unique(np.round(r.points, 5), axis=0)) < 10


def test_fixed_point_lambda2_decreases_cost_and_gradient():
    X, _ = mixture(40, random_state=3)
    r = pri_fixed_point(X, sigma=0.5, lam=2.0, n_iter=300)
    assert r.n_iter == 300 and len(r.objective) == 301
    assert r.objective[-1] < r.objective[0] - 0.1
    g0 = np.abs(_fd_grad(X, X, 0.5, 2.0)).max()
    g1 = np.abs(_fd_grad(r.points, X, 0.5, 2.0)).max()
    assert g1 < g0 / 50
