"""The MeMd paper's datasets: its offline stand-in data (experiments/memd/generators.py, :func:`make_text_like` and
:func:`make_gene_like`; moved from tests/test_memd.py, whose engine tests of MeMdClassifier draw their own data) and
where its tables, readers and generators live (moved from tests/test_data_layout.py and tests/test_cards.py, which
check the engine's data layer on any benchmark)."""
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy import stats

import randml_papers.memd as memd_package
from randml_core import data
from randml_core.data.registry import python_specs
from randml_core.models import memd
from randml_papers.memd.generators import make_gene_like, make_text_like
from tests.test_data_layout import benchmark_tables


def test_memd_tables_live_in_its_folder_with_their_cards():
    assert benchmark_tables("randml_papers.memd") == (
        {"randml_papers.memd.datasets"}, Path(memd_package.__file__).parent / "conf" / "dataset")


def test_the_newsgroups_reader_is_kept_beside_its_table():
    """Every shipped source class is the engine's (randml_core/data/sources/) but 20 Newsgroups' reader, which
    lives in this benchmark's folder (experiments/memd/text.py)."""
    modules = {type(src).__name__: type(src).__module__ for spec in python_specs() for src in spec.sources}
    assert modules["NewsgroupsSource"] == "randml_papers.memd.text"


def test_generators_live_with_the_benchmark_and_the_estimator_does_not_reexport_them():
    assert not hasattr(memd, "make_gene_like")
    assert make_gene_like.__module__ == "randml_papers.memd.generators"
    # the registered stand-ins name the new location in their provenance
    assert "randml_papers.memd.generators:make_gene_like" in data.get_spec("gene-like-2c").sources[0].describe()


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
