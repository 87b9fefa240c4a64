"""Cauchy-Schwarz divergences of Section 7.4 against brute-force computations."""
import numpy as np
import pytest
from scipy.integrate import quad
from scipy.stats import norm

from randml_core.models.divergence import dcs_gaussian, dcs_kde, silverman_bandwidth, train_criteria


def kde(sample, h):
    return lambda x: np.mean(norm.pdf(x, sample, h))


def test_silverman_rule():
    a = np.array([0.0, 1.0, 2.0, 3.0, 10.0])
    assert silverman_bandwidth(a) == pytest.approx((4 / 15) ** 0.2 * np.std(a))


def test_dcs_kde_equals_numeric_integration_of_the_kdes():
    rng = np.random.default_rng(0)
    a, b = rng.normal(0, 1, 40), rng.normal(1.5, 0.5, 25)
    f, g = kde(a, silverman_bandwidth(a)), kde(b, silverman_bandwidth(b))
    lim = dict(a=-12, b=14, limit=400)
    ff = quad(lambda x: f(x) ** 2, lim["a"], lim["b"], limit=400)[0]
    gg = quad(lambda x: g(x) ** 2, lim["a"], lim["b"], limit=400)[0]
    fg = quad(lambda x: f(x) * g(x), lim["a"], lim["b"], limit=400)[0]
    assert dcs_kde(a, b) == pytest.approx(np.log(ff) + np.log(gg) - 2 * np.log(fg), rel=1e-7)


def test_dcs_kde_stays_finite_for_far_apart_samples():
    a, b = np.array([0.0, 0.1, 0.2]), np.array([1e3, 1e3 + 0.1, 1e3 + 0.3])
    d = dcs_kde(a, b)
    # Gaussian limit: (m1-m2)^2 / (s1^2 + s2^2) dominates
    assert np.isfinite(d) and d > 1e6


def test_dcs_kde_of_identical_samples_is_zero():
    a = np.random.default_rng(1).normal(size=30)
    assert dcs_kde(a, a.copy()) == pytest.approx(0.0, abs=1e-10)


def test_train_criteria_gaussian_part():
    z = np.array([0.0, 1.0, 2.0, 5.0, 6.0, 8.0])
    t = np.array([-1, -1, -1, 1, 1, 1])
    out = train_criteria(z, t)
    assert out["dcs_gauss"] == pytest.approx(dcs_gaussian(19 / 3, np.var([5, 6, 8]), 1.0, np.var([0, 1, 2])))
    assert out["dcs_kde"] == pytest.approx(dcs_kde(z[t > 0], z[t < 0]))


def test_selection_criteria_use_no_test_fold_data():
    """Poisoning the test fold (features and labels) leaves every training criterion unchanged."""
    from sklearn.datasets import make_classification
    from randml_core.family import FAMILIES, Split
    X, y = make_classification(n_samples=120, n_features=5, random_state=0)
    X = (X - X.min(0)) / (X.max(0) - X.min(0))
    Xtr, ytr, Xte = X[:90], y[:90], X[90:]
    settings = {"eem": [{"activation": "rbf", "n_hidden": 20}], "welm": [{"activation": "sig", "n_hidden": 20}],
                "eekm": [{"n_hidden": 20, "gamma": 1.0}], "svm": [{"gamma": 1.0, "C": 10.0}]}
    poisoned = np.random.default_rng(5).normal(100, 50, Xte.shape)
    for fam, grid in settings.items():
        clean = FAMILIES[fam].evaluate(Split(Xtr, ytr, Xte, 3, {"train_criteria": True}), grid)[0]
        dirty = FAMILIES[fam].evaluate(Split(Xtr, ytr, poisoned, 3, {"train_criteria": True}), grid)[0]
        assert clean.extras["dcs_gauss"] == dirty.extras["dcs_gauss"] and np.isfinite(clean.extras["dcs_gauss"]), fam
        assert clean.extras["dcs_kde"] == dirty.extras["dcs_kde"], fam
        assert not np.array_equal(clean.y_pred, dirty.y_pred) or fam == "welm"
