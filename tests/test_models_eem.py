"""EEM-family estimators against independent computations (EEM paper Sections 2-3, 7)."""
import numpy as np
import pytest
from scipy import linalg
from sklearn.datasets import make_classification
from sklearn.utils.estimator_checks import parametrize_with_checks

from randml_core.models import EEKM, EEM, LSSVM, SVM, WELM
from randml_core.models._common import balance_weights
from randml_core.models.divergence import dcs_gaussian
from randml_core.models.eem import eem_solve
from randml_core.models.hidden import activate, draw_hidden
from randml_core.models.kernels import rbf_kernel
from randml_core.models.lssvm import lssvm_path, lssvm_solve


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=160, n_features=6, n_informative=4, weights=[0.75, 0.25],
                               random_state=3)
    X = (X - X.min(0)) / (X.max(0) - X.min(0))
    return X, y


def lw_reference(H):
    """Ledoit & Wolf (2004) shrinkage written out from the paper's formulas (not sklearn's code)."""
    n, p = H.shape
    Xc = H - H.mean(0)
    S = Xc.T @ Xc / n
    mu = np.trace(S) / p
    d2 = np.sum((S - mu * np.eye(p)) ** 2)
    b2_bar = sum(np.sum((np.outer(x, x) - S) ** 2) for x in Xc) / n**2
    b2 = min(b2_bar, d2)
    return (b2 / d2) * mu * np.eye(p) + (1 - b2 / d2) * S


def test_hidden_layer_is_prefix_stable_and_uniform():
    W, b = draw_hidden(5, 40, seed=7)
    W2, b2 = draw_hidden(5, 400, seed=7)
    np.testing.assert_array_equal(W, W2[:, :40])
    np.testing.assert_array_equal(b, b2[:40])
    assert W2.min() >= 0 and W2.max() <= 1 and b2.min() >= 0 and b2.max() <= 1
    X = np.random.default_rng(0).random((3, 5))
    # sigmoid of Section 7: 1 / (1 + exp(-<w,x> + b)); rbf: exp(-b ||w - x||^2)
    np.testing.assert_allclose(activate(X, W, b, "sig")[1, 2], 1 / (1 + np.exp(-(X[1] @ W[:, 2]) + b[2])))
    np.testing.assert_allclose(activate(X, W, b, "nsig")[1, 2], 1 / (1 + np.exp(-(X[1] @ W[:, 2]) / 5 + b[2])))
    np.testing.assert_allclose(activate(X, W, b, "rbf")[1, 2], np.exp(-b[2] * np.sum((W[:, 2] - X[1]) ** 2)))


def test_balance_weights_sum_to_zero_with_targets():
    t = np.array([1, 1, -1, -1, -1, -1, -1])
    w = balance_weights(t)
    np.testing.assert_allclose(w, [2.5, 2.5, 1, 1, 1, 1, 1])
    assert abs(np.sum(w * t)) < 1e-12


@pytest.mark.parametrize("activation", ["sig", "nsig", "rbf"])
def test_welm_equals_weighted_least_squares(data, activation):
    X, y = data
    m = WELM(n_hidden=5, activation=activation, random_state=1).fit(X, y)
    H = activate(X, m.hidden_weights_, m.hidden_bias_, activation)
    t = np.where(y == m.classes_[1], 1.0, -1.0)
    w = balance_weights(t)
    # full column rank: normal equations of the weighted problem min sum_i w_i (h_i beta - t_i)^2
    beta = linalg.solve(H.T @ (w[:, None] * H), H.T @ (w * t), assume_a="pos")
    # sigmoid units are nearly collinear (cond(H^T W H) ~ 1e10): compare fitted values tightly
    np.testing.assert_allclose(H @ m.beta_, H @ beta, atol=1e-6)
    np.testing.assert_allclose(m.beta_, beta, rtol=1e-4)
    np.testing.assert_array_equal(m.predict(X), m.classes_[(H @ beta >= 0).astype(int)])


def test_welm_rank_deficient_is_moore_penrose(data):
    X, y = data
    X, y = X[:30], y[:30]
    m = WELM(n_hidden=200, activation="sig", random_state=0).fit(X, y)  # h > n: pseudo-inverse regime
    H = activate(X, m.hidden_weights_, m.hidden_bias_, "sig")
    t = np.where(y == m.classes_[1], 1.0, -1.0)
    s = np.sqrt(balance_weights(t))
    np.testing.assert_allclose(m.beta_, linalg.pinv(H * s[:, None]) @ (s * t), rtol=1e-5, atol=1e-6)


def test_eem_beta_is_the_closed_form(data):
    X, y = data
    m = EEM(n_hidden=15, activation="rbf", random_state=2).fit(X, y)
    H = activate(X, m.hidden_weights_, m.hidden_bias_, "rbf")
    pos = y == m.classes_[1]
    Sp, Sn = lw_reference(H[pos]), lw_reference(H[~pos])
    dm = H[pos].mean(0) - H[~pos].mean(0)
    v = linalg.solve(Sp + Sn, dm)
    np.testing.assert_allclose(m.beta_, 2 * v / (dm @ v), rtol=1e-6)        # Eq. (4), Mahalanobis normalised
    assert m.beta_ @ dm == pytest.approx(2.0)                                 # beta^T (m+ - m-) = 2
    np.testing.assert_allclose(m.projected_variances_, [m.beta_ @ Sn @ m.beta_, m.beta_ @ Sp @ m.beta_], rtol=1e-6)


def test_eem_invariant_to_feature_scaling(data):
    X, y = data
    m = EEM(n_hidden=25, activation="sig", random_state=4).fit(X, y)
    H = activate(X, m.hidden_weights_, m.hidden_bias_, "sig")
    t = np.where(y == m.classes_[1], 1.0, -1.0)
    for c in (1e-3, 7.0):
        sol = eem_solve(c * H, t)  # scaled features: beta / c, same projections and decisions
        np.testing.assert_allclose(sol.beta * c, m.beta_, rtol=1e-7)
        np.testing.assert_allclose(sol.means, m.projected_means_, rtol=1e-7)
        np.testing.assert_allclose(sol.variances, m.projected_variances_, rtol=1e-7)


def test_eem_thresholds_match_section3_formula(data):
    X, y = data
    m = EEM(n_hidden=30, activation="rbf", random_state=5).fit(X, y)
    (mn, mp), (Sn, Sp) = m.projected_means_, m.projected_variances_
    assert mp - mn == pytest.approx(2.0)
    root = np.sqrt(Sn * Sp * (np.log(Sn / Sp) * (Sn - Sp) + 4))
    paper = np.sort([mn + (2 * Sn + root) / (Sn - Sp), mn + (2 * Sn - root) / (Sn - Sp)])
    np.testing.assert_allclose(m.thresholds_, paper, rtol=1e-8)
    # the decision changes sign exactly at the thresholds
    z = m.thresholds_[:, None] + np.array([-1e-6, 1e-6])
    dens = lambda z, mu, s: -0.5 * (z - mu) ** 2 / s - 0.5 * np.log(s)
    assert np.all(np.sign(dens(z, mp, Sp) - dens(z, mn, Sn))[:, 0] != np.sign(dens(z, mp, Sp) - dens(z, mn, Sn))[:, 1])


def test_eem_degenerate_cases():
    X = np.random.default_rng(0).random((40, 3))
    y = np.repeat([0, 1], 20)
    # saturated sigmoid (the paper's isolet case): huge inputs make every hidden unit 1
    m = EEM(n_hidden=10, activation="sig", random_state=0).fit(X * 1e4, y)
    assert not np.any(m.beta_) and m.degenerate_ == "equal class means"
    assert len(set(m.predict(X * 1e4))) == 1
    # identical class distributions in H: the same points in both classes
    Xd = np.vstack([X[:20], X[:20]])
    m2 = EEM(n_hidden=10, activation="rbf", random_state=0).fit(Xd, y)
    assert not np.any(m2.beta_)


def test_dcs_gaussian_closed_form_by_quadrature():
    from scipy.integrate import quad
    from scipy.stats import norm
    m1, s1, m2, s2 = 0.3, 0.5, 1.7, 2.0
    f = lambda x: norm.pdf(x, m1, np.sqrt(s1))
    g = lambda x: norm.pdf(x, m2, np.sqrt(s2))
    num = -np.log(quad(lambda x: f(x) * g(x), -30, 30)[0] ** 2 /
                  (quad(lambda x: f(x) ** 2, -30, 30)[0] * quad(lambda x: g(x) ** 2, -30, 30)[0]))
    assert dcs_gaussian(m1, s1, m2, s2) == pytest.approx(num, rel=1e-8)


def test_eekm_map_reproduces_kernel(data):
    X, y = data
    m = EEKM(n_hidden=12, gamma=2.0, random_state=0).fit(X, y)
    assert len(set(m.landmark_indices_)) == 12 and m.kernel_rank_ == 12
    Xh = X[m.landmark_indices_]
    phi = m._features(Xh)
    np.testing.assert_allclose(phi @ phi.T, rbf_kernel(Xh, Xh, 2.0), atol=1e-8)
    # on arbitrary points: phi(x)^T phi(z) = K(x, X[h]) K(X[h], X[h])^-1 K(X[h], z)
    A, B = X[:5], X[-4:]
    Khh = rbf_kernel(Xh, Xh, 2.0)
    expected = rbf_kernel(A, Xh, 2.0) @ linalg.solve(Khh, rbf_kernel(Xh, B, 2.0))
    np.testing.assert_allclose(m._features(A) @ m._features(B).T, expected, atol=1e-7)


def test_eekm_uses_all_rows_when_h_exceeds_n(data):
    X, y = data
    m = EEKM(n_hidden=1000, gamma=1e-10, random_state=0).fit(X[:50], y[:50])
    assert len(m.landmark_indices_) == 50
    assert m.kernel_rank_ < 50  # the all-ones kernel at tiny gamma is numerically rank-deficient
    assert np.all(np.isfinite(m.decision_function(X)))


def test_lssvm_solution_satisfies_its_linear_system(data):
    X, y = data
    m = LSSVM(gamma=0.5, C=10.0).fit(X, y)
    t = np.where(y == m.classes_[1], 1.0, -1.0)
    K = rbf_kernel(X, X, 0.5)
    w = balance_weights(t)
    # [[0, 1^T], [1, K + D/C]] [b; alpha] = [0; t], D = diag(1/w): minority fitted harder (ERRATA)
    assert m.dual_coef_.sum() == pytest.approx(0.0, abs=1e-8)
    np.testing.assert_allclose(K @ m.dual_coef_ + m.dual_coef_ / (w * 10.0) + m.intercept_, t, atol=1e-8)
    assert np.all(np.diag(np.diag(1 / (w * 10.0)))[t > 0] < np.diag(np.diag(1 / (w * 10.0)))[t < 0][0])


def test_lssvm_path_equals_direct_solves(data):
    X, y = data
    t = np.where(y == 1, 1.0, -1.0)
    K = rbf_kernel(X, X, 3.0)
    Cs = [0.1, 10.0, 1e4]
    for (a, b), C in zip(lssvm_path(K, t, Cs), Cs):
        a2, b2 = lssvm_solve(K, t, C)
        np.testing.assert_allclose(a, a2, rtol=1e-6, atol=1e-8)
        assert b == pytest.approx(b2, rel=1e-7, abs=1e-10)


def test_svm_balance_weights_and_box_constraints(data):
    X, y = data
    m = SVM(gamma=1.0, C=5.0).fit(X, y)
    counts = {c: (y == c).sum() for c in m.classes_}
    w = np.array([m.class_weight_[c] for c in y])
    t = np.where(y == m.classes_[1], 1, -1)
    assert abs(np.sum(w * t)) < 1e-9                                            # Section 7: sum w_i t_i = 0
    assert m.class_weight_[min(counts, key=counts.get)] == pytest.approx(max(counts.values()) / min(counts.values()))
    alpha = np.abs(m.dual_coef_.ravel())
    assert np.all(alpha <= 5.0 * w[m.support_] + 1e-8)                          # 0 <= alpha_i <= C w_i
    assert m.converged_
    assert not SVM(gamma=1e-6, C=1e10, max_iter=50).fit(X, y).converged_


def test_binary_only_errors_are_clear(data):
    X, _ = data
    y3 = np.arange(len(X)) % 3
    with pytest.raises(ValueError, match="Only binary classification"):
        EEM().fit(X, y3)
    with pytest.raises(ValueError, match="one class"):
        WELM().fit(X, np.zeros(len(X)))


# check_estimator. Exceptions, each with its reason:
# - the models are binary-only (the papers' setting); tags say multi_class=False so the
#   multiclass checks are skipped by scikit-learn itself.
EXPECTED_FAILED = {
    # EEM's Gaussian decision needs two classes with spread; sklearn's tiny-sample checks pass.
}


@parametrize_with_checks([WELM(n_hidden=20, random_state=0), EEM(n_hidden=20, random_state=0),
                          EEKM(n_hidden=20, gamma=1.0, random_state=0), LSSVM(gamma=1.0, C=1.0),
                          SVM(gamma=1.0, C=1.0)],
                         expected_failed_checks=lambda est: EXPECTED_FAILED)
def test_sklearn_compatible(estimator, check):
    check(estimator)
