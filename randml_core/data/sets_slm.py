"""Datasets of the SLM paper (issue 5): Tables I-II (classification) and III (regression).

Each spec is registered at import (``randml_core.data`` imports this module). Reused, not
re-registered (same data): ``iris``, ``wine``, ``breast-cancer-wdbc`` (the paper's B.C.W.) and
``ionosphere`` (EEM's KEEL copy, 33 features: the paper's appendix counts imply 33 too).

New here:

- ``circle-and-ring``, ``2-new-moons``, ``4-new-moons``: our generators
  (:mod:`randml_core.data.generators_slm`, the paper's geometry and noise are not recoverable).
- ``pima-392``: Pima Indians diabetes without the physically impossible zeros (glucose, blood
  pressure, triceps skin fold, insulin, BMI): 768 -> 392 rows (the paper's text; EEM's
  ``diabetes`` is the 768-row set).
- ``banknote``: online only (OpenML 1462 with our checksummed cache, ``make data``);
  ``banknote-synthetic`` is its offline stand-in (NOT the banknote data).
- ``friedman1``/``friedman2``/``friedman3``: scikit-learn generators, 1000 samples, seed 0.
- ``boston``: the mlxtend wheel's ``boston_housing.csv`` offline, OpenML 531 online.
- ``california-housing``: online only (``fetch_california_housing`` cached under our cache root);
  ``california-friedman1-substitute`` is its offline stand-in (NOT California data).
- ``diabetes-regression``: scikit-learn's bundled diabetes progression data (442 x 10). The name
  ``diabetes`` already means Pima (EEM).
"""
from __future__ import annotations

import numpy as np

from .registry import SKLEARN_LICENCE, UCI_CIT, DatasetSpec, register
from .sources import (
    GeneratedSource,
    KeelSource,
    OpenMLSource,
    PackageFileSource,
    SklearnFetchSource,
    SklearnSource,
    SyntheticSource,
)

SLM = ("slm",)
CLS, REG = "classification", "regression"   # groups: Table I/II sets and Table III sets
GEN = "randml_core.data.generators_slm"
SLM_CIT = "Fu H., Yang Y., Mishra V.K., Kuo C.-C.J. (2022). Subspace Learning Machine (SLM): methodology and performance. arXiv 2205.05296"
FFMLP_CIT = "Lin R., Zhou Z., You S., Rao R., Kuo C.-C.J. (2020). From two-class linear discriminant analysis to interpretable multilayer perceptron design. arXiv 2009.04442"
OPENML_LICENCE = "OpenML (licence as stated on the dataset page); original data: UCI (see citation)"

#: Pima columns (KEEL order = UCI order): 0 pregnancies, 1 glucose, 2 blood pressure, 3 triceps skin
#: fold, 4 insulin, 5 BMI, 6 pedigree, 7 age. A zero in columns 1-5 is physically impossible.
PIMA_ZERO_IS_MISSING = (1, 2, 3, 4, 5)


def pima_drop_zeros(features, labels):
    """Drop the Pima rows with a zero glucose, blood pressure, skin fold, insulin or BMI (768 -> 392)."""
    import pandas as pd

    vals = features.iloc[:, list(PIMA_ZERO_IS_MISSING)].apply(pd.to_numeric, errors="coerce")
    keep = ((vals != 0) & vals.notna()).all(axis=1).to_numpy()
    return features[keep].reset_index(drop=True), pd.Series(labels)[keep].reset_index(drop=True)


def categorical_to_numeric(features, labels):
    """OpenML marks Boston's CHAS and RAD as nominal: read their category labels back as numbers
    (an ordinal code of the declared order would not be the original value)."""
    import pandas as pd

    out = features.copy()
    for col in out.columns:
        if isinstance(out[col].dtype, pd.CategoricalDtype):
            out[col] = pd.to_numeric(out[col].astype(str), errors="raise")
    return out, labels


class SklearnFileFetchSource(SklearnFetchSource):
    """A scikit-learn fetcher whose cache is one file in ``data_home`` (not a sub-directory),
    e.g. ``fetch_california_housing`` -> ``<data_home>/cal_housing_py3.pkz``.

    Works around ``SklearnFetchSource.is_cached``, which only recognises a non-empty directory
    ``<data_home>/<cache_subdir>``: with a single cache file that test is never true, so an
    offline run would call the data set unavailable although it is cached."""

    def __init__(self, fetcher: str, cache_file: str, data_home=None):
        super().__init__(fetcher, cache_file, data_home=data_home)

    def is_cached(self) -> bool:
        return self.cache_path().is_file()

    def ensure_cached(self, name: str = "<dataset>", force: bool = False):
        if force and self.cache_path().is_file():
            self.cache_path().unlink()
        self._call(name)
        return self.cache_path()


def read_comma_csv_last_target(path) -> tuple[np.ndarray, np.ndarray]:
    """A headerless comma-separated numeric file whose last column is a real-valued target."""
    a = np.loadtxt(path, delimiter=",", dtype=np.float64)
    return a[:, :-1], a[:, -1]


SPECS: list[DatasetSpec] = [
    # ---------------------------------------------------------------- Table I / II (classification)
    DatasetSpec(
        name="circle-and-ring", task="binary", papers=SLM, group=CLS,
        sources=[GeneratedSource(f"{GEN}:circle_and_ring", n_per_class=500, noise=0.2, seed=0)],
        expected={"n": 1000, "d": 2, "class_counts": {0: 500, 1: 500}},
        licence="generated by randml (no licence needed)", citation=f"{SLM_CIT}; {FFMLP_CIT}",
        notes="Disk r <= 1 (class 0) inside the annulus 1.5 <= r <= 2 (class 1), 500 per class; 20 % of "
              "each class drawn uniformly on the boundary annulus 0.75 <= r <= 1.75 instead (our reading of '20 % noisy samples "
              "in the decision boundary'; the paper's generator is not recoverable).",
    ),
    DatasetSpec(
        name="2-new-moons", task="binary", papers=SLM, group=CLS,
        sources=[GeneratedSource(f"{GEN}:two_new_moons", n_per_class=500, noise=0.3, seed=0)],
        expected={"n": 1000, "d": 2, "class_counts": {0: 500, 1: 500}},
        licence="generated by randml (no licence needed)", citation=f"{SLM_CIT}; {FFMLP_CIT}",
        notes="make_moons geometry (unit half circles, centres (0,0) and (1,0.5)), 500 per class, clean "
              "jitter sd 0.08, 30 % of each class jittered with sd 0.35 (our reading of the paper's noise).",
    ),
    DatasetSpec(
        name="4-new-moons", task="multiclass", papers=SLM, group=CLS,
        sources=[GeneratedSource(f"{GEN}:four_new_moons", n_per_class=500, noise=0.2, seed=0)],
        expected={"n": 2000, "d": 2, "class_counts": {0: 500, 1: 500, 2: 500, 3: 500}},
        licence="generated by randml (no licence needed)", citation=f"{SLM_CIT}; {FFMLP_CIT}",
        notes="A chain of four interleaving unit half circles (centre of moon k at (k, 0.5 (k mod 2)), "
              "up for even k, down for odd k), 500 per class, clean jitter sd 0.08, 20 % jittered with "
              "sd 0.35. Geometry is our choice: the paper's is not recoverable.",
    ),
    DatasetSpec(
        name="pima-392", task="binary", papers=SLM, group=CLS,
        sources=[KeelSource("pima", prepare=pima_drop_zeros),
                 OpenMLSource(37, prepare=pima_drop_zeros, openml_name="diabetes")],
        expected={"n": 392, "d": 8, "class_counts": {0: 262, 1: 130}},
        licence="KEEL repository, distributed for research use; original data: UCI",
        citation=f"Smith J.W. et al. (1988). Using the ADAP learning algorithm to forecast the onset of diabetes "
                 f"mellitus. Proc. Symp. Computer Applications in Medical Care, 261-265; {UCI_CIT}",
        notes="Pima Indians diabetes, rows with a zero glucose, blood pressure, skin fold, insulin or BMI "
              "dropped: 768 -> 392 (as the SLM text says; its appendix SVM counts assume 768 rows, see "
              "slm_equations.md sec. 9). Labels: tested_negative -> 0, tested_positive -> 1.",
    ),
    DatasetSpec(
        name="banknote", task="binary", papers=SLM, group=CLS,
        sources=[OpenMLSource(1462, openml_name="banknote-authentication")],
        expected={"n": 1372, "d": 4, "class_counts": {0: 762, 1: 610}},
        licence=OPENML_LICENCE,
        citation=f"Lohweg V. (2013). Banknote authentication; {UCI_CIT}",
        notes="Online only (no offline copy found in any wheel): OpenML 1462 with our cache, `make data`. "
              "Offline runs use `banknote-synthetic` instead. Labels: 1 genuine -> 0, 2 forged -> 1.",
    ),
    DatasetSpec(
        name="banknote-synthetic", task="binary", papers=SLM, group=CLS, substitute_of="banknote",
        sources=[SyntheticSource("make_classification", n_samples=1372, n_features=4, n_informative=4,
                                 n_redundant=0, n_clusters_per_class=2, weights=[0.555], class_sep=2.0,
                                 flip_y=0.0, random_state=0)],
        expected={"n": 1372, "d": 4},
        licence="generated by scikit-learn (no licence needed)", citation="scikit-learn make_classification",
        notes="NOT the banknote data: a 4-feature, 1372-row, 2-class synthetic stand-in with the banknote "
              "shape and a similar class balance (about 762:610), so the offline Table I has a column; "
              "its numbers are not comparable to the paper's Banknote column.",
    ),
    # ---------------------------------------------------------------- Table III (regression)
    DatasetSpec(
        name="friedman1", task="regression", papers=SLM, group=REG,
        sources=[SyntheticSource("make_friedman1", n_samples=1000, n_features=10, noise=0.0, random_state=0)],
        expected={"n": 1000, "d": 10},
        licence="generated by scikit-learn (no licence needed)",
        citation="Friedman J.H. (1991). Multivariate adaptive regression splines. Annals of Statistics 19:1-67",
        notes="make_friedman1, 1000 samples, 10 features (scikit-learn's default; the paper's D is "
              "stripped), no noise (the paper states none).",
    ),
    DatasetSpec(
        name="friedman2", task="regression", papers=SLM, group=REG,
        sources=[SyntheticSource("make_friedman2", n_samples=1000, noise=0.0, random_state=0)],
        expected={"n": 1000, "d": 4},
        licence="generated by scikit-learn (no licence needed)",
        citation="Friedman J.H. (1991). Multivariate adaptive regression splines. Annals of Statistics 19:1-67",
        notes="make_friedman2, 1000 samples, no noise.",
    ),
    DatasetSpec(
        name="friedman3", task="regression", papers=SLM, group=REG,
        sources=[GeneratedSource(f"{GEN}:friedman3", n_samples=1000, seed=0)],
        expected={"n": 1000, "d": 4},
        licence="generated by scikit-learn (no licence needed)",
        citation="Friedman J.H. (1991). Multivariate adaptive regression splines. Annals of Statistics 19:1-67",
        notes="make_friedman3, 1000 samples, no noise; the arctan by the C library so the data (and its hash) is "
              "the same on every CPU (generators_slm.friedman3).",
    ),
    DatasetSpec(
        name="boston", task="regression", papers=SLM, group=REG,
        sources=[PackageFileSource("mlxtend", "mlxtend", "data/data/boston_housing.csv",
                                   reader=read_comma_csv_last_target),
                 OpenMLSource(531, prepare=categorical_to_numeric, openml_name="boston")],
        expected={"n": 506, "d": 13},
        licence="mlxtend wheel (BSD-3-Clause package); data: UCI / StatLib Boston housing",
        citation="Harrison D., Rubinfeld D.L. (1978). Hedonic prices and the demand for clean air. "
                 f"J. Environ. Economics and Management 5:81-102; {UCI_CIT}",
        notes="Boston housing, 13 features, target MEDV (in $1000). Offline from the mlxtend wheel "
              "(installed with --no-deps); scikit-learn removed load_boston in 1.2. The data set has a "
              "known ethical problem (feature B); kept because the paper's Table III uses it.",
    ),
    DatasetSpec(
        name="california-housing", task="regression", papers=SLM, group=REG,
        sources=[SklearnFileFetchSource("fetch_california_housing", "cal_housing_py3.pkz")],
        expected={"n": 20640, "d": 8},
        licence="scikit-learn fetcher; data: StatLib (Pace and Barry 1997)",
        citation="Pace R.K., Barry R. (1997). Sparse spatial autoregressions. Statistics & Probability Letters 33:291-297",
        notes="Online only (`make data`): no wheel bundles it. Offline runs use "
              "`california-friedman1-substitute` instead.",
    ),
    DatasetSpec(
        name="california-friedman1-substitute", task="regression", papers=SLM, group=REG,
        substitute_of="california-housing",
        sources=[SyntheticSource("make_friedman1", n_samples=2000, n_features=8, noise=1.0, random_state=1)],
        expected={"n": 2000, "d": 8},
        licence="generated by scikit-learn (no licence needed)",
        citation="Friedman J.H. (1991). Multivariate adaptive regression splines. Annals of Statistics 19:1-67",
        notes="NOT California housing: make_friedman1 with California's 8 features, 2000 rows (not 20640: keeps the "
              "offline 10-split run short) and unit noise; its RMSE is not comparable to the paper's.",
    ),
    DatasetSpec(
        name="diabetes-regression", task="regression", papers=SLM, group=REG,
        sources=[SklearnSource("load_diabetes")],
        expected={"n": 442, "d": 10},
        licence=SKLEARN_LICENCE,
        citation="Efron B., Hastie T., Johnstone I., Tibshirani R. (2004). Least angle regression. "
                 "Annals of Statistics 32:407-499",
        notes="scikit-learn's diabetes progression data (442 x 10, target 25-346; features as bundled, i.e. "
              "mean-centred and scaled). Named `diabetes-regression` because `diabetes` is Pima (EEM).",
    ),
]

for _s in SPECS:
    register(_s)
