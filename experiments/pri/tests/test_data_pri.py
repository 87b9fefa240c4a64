"""The PRI-SMO paper's synthetic data, :func:`make_pri_mixture` (Section 6.1; moved from tests/test_pri.py, whose
engine tests of PRISMO draw their own mixture)."""
import math

import numpy as np

from randml_papers.pri.datasets import make_pri_mixture


def test_make_pri_mixture_matches_paper_parameters():
    n = 60_000
    X, y = make_pri_mixture(n, random_state=0)
    assert X.shape == (n, 2) and y.shape == (n,)
    X2, _ = make_pri_mixture(n, random_state=0)
    np.testing.assert_array_equal(X, X2)
    weights = [0.2, 0.3, 0.5]
    centres = [(0, 0), (3, 3), (-6, 4)]
    stds = [0.8, 1.2, 1.0]
    for k in range(3):
        frac = np.mean(y == k)
        assert abs(frac - weights[k]) < 4 * math.sqrt(weights[k] * (1 - weights[k]) / n)
        Xk = X[y == k]
        nk = len(Xk)
        np.testing.assert_allclose(Xk.mean(0), centres[k], atol=5 * stds[k] / math.sqrt(nk))
        np.testing.assert_allclose(Xk.std(0), stds[k], rtol=5 / math.sqrt(2 * nk))
        assert abs(np.corrcoef(Xk.T)[0, 1]) < 5 / math.sqrt(nk)  # spherical
