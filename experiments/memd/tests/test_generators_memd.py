"""The MeMd paper's offline stand-in data (experiments/memd/generators.py): :func:`make_text_like` and
:func:`make_gene_like` (moved from tests/test_memd.py, whose engine tests of MeMdClassifier draw their own data)."""
import numpy as np
import scipy.sparse as sp
from scipy import stats

from randml_papers.memd.generators import make_gene_like, make_text_like


def test_make_text_like():
    X, y = make_text_like(300, 2000, 3, random_state=0, doc_length=50)
    assert sp.issparse(X) and X.format == "csr" and X.shape == (300, 2000)
    np.testing.assert_allclose(np.asarray(X.sum(axis=1)).ravel(), 1.0)
    assert X.data.min() > 0 and X.data.max() <= 1
    np.testing.assert_array_equal(np.bincount(y), [100, 100, 100])
    assert X.nnz < 0.05 * X.shape[0] * X.shape[1]
    X2, y2 = make_text_like(300, 2000, 3, random_state=0, doc_length=50)
    assert (X != X2).nnz == 0 and np.array_equal(y, y2)


def test_make_gene_like():
    X, y, inf = make_gene_like(60, 2000, 2, random_state=0, n_constant=5,
                               return_informative=True)
    assert X.shape == (60, 2000) and inf.shape == (10,)
    np.testing.assert_array_equal(np.bincount(y), [30, 30])
    constant = np.ptp(X, axis=0) == 0
    assert constant.sum() == 5 and not constant[inf].any()
    t = np.abs(stats.ttest_ind(X[y == 0][:, ~constant], X[y == 1][:, ~constant]).statistic)
    is_inf = np.isin(np.flatnonzero(~constant), inf)
    assert np.median(t[is_inf]) > 3 > np.median(t[~is_inf])
