"""The engine's shared-work helpers of the EEM model (randml_core/models/eem.py) give what the plain computations give.

Reference: scikit-learn's ``ledoit_wolf`` (bit for bit) for the one-Gram Ledoit-Wolf helper, and ``eem_solve``
without ``one_gram``. A benchmark's families that share work through them check it against plain fits in its own
tests.
"""
import numpy as np
import pytest
from sklearn.covariance import ledoit_wolf

from randml_core.models.eem import eem_solve, ledoit_wolf_one_gram


@pytest.mark.parametrize("n", [2, 3, 40, 151])
@pytest.mark.parametrize("p", [1, 2, 7, 60, 1000, 1001])
@pytest.mark.parametrize("kind", ["uniform", "saturated", "constant_column"])
def test_ledoit_wolf_one_gram_is_sklearn_bit_for_bit(n, p, kind):
    rng = np.random.default_rng(n * 10_000 + p)
    X = rng.uniform(size=(n, p))
    if kind == "saturated":  # sigmoid units stuck near 0/1, as in the EEM hidden layers
        X = 1.0 / (1.0 + np.exp(-40.0 * (X - 0.5)))
    if kind == "constant_column":
        X[:, 0] = 0.25
    cov, shrinkage = ledoit_wolf(X)
    cov1, shrinkage1 = ledoit_wolf_one_gram(X)
    assert np.array_equal(cov, cov1)
    assert float(shrinkage) == float(shrinkage1)


def test_ledoit_wolf_one_gram_rejects_non_finite_like_sklearn():
    X = np.ones((5, 3))
    X[2, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        ledoit_wolf(X)
    with pytest.raises(ValueError, match="NaN"):
        ledoit_wolf_one_gram(X)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_eem_solve_one_gram_equals_plain(seed):
    rng = np.random.default_rng(seed)
    H = 1.0 / (1.0 + np.exp(-rng.normal(size=(90, 35)) * 3))
    t = np.where(rng.uniform(size=90) < 0.3, 1.0, -1.0)
    a, b = eem_solve(H, t), eem_solve(H, t, one_gram=True)
    for field in ("beta", "means", "variances", "shrinkage"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
    assert a.degenerate == b.degenerate
