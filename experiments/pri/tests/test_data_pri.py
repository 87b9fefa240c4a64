"""The PRI-SMO paper's synthetic data, :func:`make_pri_mixture` (Section 6.1; moved from tests/test_pri.py, whose
engine tests of PRISMO draw their own mixture), kept in its own folder and registering no dataset (moved from
tests/test_data_layout.py and tests/test_cards.py, which check the engine's data layer on any benchmark)."""
import math

import numpy as np

from randml_core.models import pri
from randml_papers.pri.datasets import make_pri_mixture
from tests.test_data_layout import benchmark_tables


def test_the_mixture_lives_with_the_benchmark_which_registers_no_table():
    assert not hasattr(pri, "make_pri_mixture")
    assert make_pri_mixture.__module__ == "randml_papers.pri.datasets"
    assert benchmark_tables("randml_papers.pri") == (set(), None)  # each sweep cell draws its own mixture


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
