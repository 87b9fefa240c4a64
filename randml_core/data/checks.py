"""Validation, hashing and label conventions shared by every dataset source.

Everything that leaves :func:`randml_core.data.load_dataset` has passed :func:`validate_xy`
and been hashed with :func:`hash_arrays`, whatever source it came from.

Data that loads but can bias results is warned about once per load (:class:`DataQualityWarning`)
and never changed here (the papers used the data as published): rows whose features repeat an
earlier row (:func:`duplicate_rows`; copies in both the training and the test part of a split inflate
test scores; ``experiment.duplicates=drop|group`` handles them) and constant features
(:func:`constant_columns`).
"""

from __future__ import annotations

import hashlib
import warnings
from dataclasses import dataclass
from pathlib import Path

import sys

import numpy as np


def issparse(x) -> bool:
    """``scipy.sparse.issparse`` without importing scipy.sparse (about 0.2 s of start-up): before
    that module is imported nothing can be one of its matrices."""
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and sparse.issparse(x)


def _csr(X, **kwargs):
    import scipy.sparse as sp
    return sp.csr_matrix(X, **kwargs)

__all__ = [
    "DataValidationError",
    "DataQualityWarning",
    "DuplicateRows",
    "validate_xy",
    "duplicate_rows",
    "feature_groups",
    "constant_columns",
    "quality_problems",
    "warn_quality",
    "missing_labels",
    "hash_arrays",
    "binarise_labels",
    "HASH_VERSION",
]

#: Prefix mixed into every data hash; bump it if the hashing recipe ever changes.
HASH_VERSION = "randml-data-hash/1"

CLASSIFICATION_TASKS = ("binary", "multiclass")
TASKS = ("binary", "multiclass", "regression")


class DataValidationError(ValueError):
    """The arrays of a dataset are unusable; the message names the dataset, the problem and the fix."""


class DataQualityWarning(UserWarning):
    """The data loads but may bias results (duplicated rows, constant features); it is used as is."""


def _fail(name: str, problem: str, fix: str) -> DataValidationError:
    return DataValidationError(f"dataset {name!r}: {problem}; fix: {fix}")


#: label cells read as missing, besides NaN / None / pandas.NA: what str() makes of NaN and NA,
#: UCI's "?" and an empty cell (compared after stripping spaces; "none" stays a class name)
MISSING_LABEL_STRINGS = frozenset({"", "?", "nan", "NaN", "<NA>"})

_DROP_ROWS = ("drop those rows in the source's prepare step or in the dataset's `post` step in the registry "
              "(a missing label is not a class: it changes neither the label coding nor the task)")


def missing_labels(y) -> np.ndarray:
    """0-based indices of the missing labels of ``y`` (NaN, None, pandas.NA, or a string in
    :data:`MISSING_LABEL_STRINGS`)."""
    y = np.asarray(y)
    if y.dtype.kind == "f":
        return np.flatnonzero(np.isnan(y))
    if y.dtype.kind in "biuc":
        return np.zeros(0, dtype=np.int64)
    if y.dtype.kind in "SU":
        return np.flatnonzero([str(v).strip() in MISSING_LABEL_STRINGS for v in y.tolist()])
    import pandas as pd

    na = np.asarray(pd.isna(y.astype(object)), dtype=bool).ravel()
    text = np.asarray([isinstance(v, (str, bytes)) and str(v).strip() in MISSING_LABEL_STRINGS
                       for v in y.ravel().tolist()], dtype=bool)
    return np.flatnonzero(na | text)


def _card_name(card) -> str:
    return f"the dataset card '{Path(card).name}'"


def _drop_rows(card=None) -> str:
    """The fix for missing labels / targets: a Python spec's prepare or post step, or, for a dataset card, its keys."""
    if card is None:
        return _DROP_ROWS
    return (f"write `missing: drop_rows` in the source of {_card_name(card)} (a csv or parquet source: rows without a "
            "label are dropped at load), or remove those rows from the data file (a missing label is not a class)")


def _check_missing_labels(y, name: str, card=None) -> None:
    bad = missing_labels(y)
    if bad.size:
        raise _fail(name, f"y has {bad.size} missing labels (NaN, None, '?' or empty) at rows {_shown(bad, 10)} "
                    f"(0-based) of {np.asarray(y).shape[0]}", _drop_rows(card))


def _more_than_two(k: int, card=None) -> str:
    """The fix for a binary task with ``k`` > 2 labels: a Python spec's prepare step (the papers' specs binarise as
    their paper does), or, for a dataset card (``card``: its path), the card's keys (a card maps no labels)."""
    if card is not None:
        return (f"if the set really has {k} classes, write `task: multiclass` in {_card_name(card)}; if it is binary, "
                f"its label column must hold exactly 2 values: correct the stray or differently spelled labels in the "
                "data file, or (a csv, parquet or openml source) set `source.target` to a column with 2 values (a card "
                "has no label-mapping key; one class against the rest needs a Python DatasetSpec with a prepare step)")
    return (f"if some of the {k} labels are one class spelled differently, or stray values, fix them in the "
            "source's prepare step; if the set really has more than 2 classes, binarise them as the paper "
            "does (e.g. one class against the rest) in the prepare step, or register it with task='multiclass'")


def _label_array(y: np.ndarray) -> np.ndarray:
    """Labels as a hashable, non-object array (strings become fixed-width unicode)."""
    if y.dtype == object or y.dtype.kind in "SU":
        return np.asarray([str(v) for v in y.tolist()], dtype=str)
    return y


def validate_xy(X, y, name: str, task: str | None = None, warn: bool = True,
                allow_nan: bool = False, card=None) -> tuple[np.ndarray, np.ndarray]:
    """Check a dataset's arrays and return them in canonical form.

    Returns ``(X, y)`` with ``X`` a C-contiguous float64 array of shape (n, d) and ``y`` a 1-D
    array (integers/floats kept, strings as a fixed-width unicode array).

    Raises :class:`DataValidationError` for: empty data, X not 2-D, y not 1-D, a row-count
    mismatch, non-numeric features, NaN/inf features (the message gives how many and in which
    columns), non-finite regression targets, and fewer than 2 classes (exactly 2 for
    ``task="binary"``) for classification tasks, and missing labels (NaN, None, "nan", "?", "";
    the message gives how many and the first rows). ``task=None`` skips the label checks.
    Valid data with duplicated rows or constant features passes with a :class:`DataQualityWarning`
    per problem (``warn=False``: none; :func:`quality_problems` gives the messages). ``card``: the dataset card
    the data comes from (None: a Python spec); the label fixes then name the card's keys instead of prepare steps.
    """
    if task is not None and task not in TASKS:
        raise _fail(name, f"unknown task {task!r}", f"use one of {', '.join(TASKS)}")
    if issparse(X):  # sparse features (text) stay sparse: CSR float64, the same checks
        X = _validate_sparse(X, name)
        return _checked(X, _validate_y(y, X.shape[0], name, task, card), name, warn)
    X = np.asarray(X)
    y = np.asarray(y)
    if X.ndim != 2:
        raise _fail(
            name,
            f"X must be 2-D (n_samples, n_features), got a {X.ndim}-D array of shape {X.shape}",
            "reshape the features in the loader (X.reshape(-1, 1) for a single feature)",
        )
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise _fail(
            name,
            f"the data is empty (X has shape {X.shape})",
            "check that the source file is complete and that the loader's filters keep some rows",
        )
    if y.ndim != 1:
        if y.ndim == 2 and y.shape[1] == 1:
            y = y.ravel()
        else:
            raise _fail(name, f"y must be 1-D, got shape {y.shape}", "return a single label column")
    if y.shape[0] != X.shape[0]:
        raise _fail(
            name,
            f"X has {X.shape[0]} rows but y has {y.shape[0]} labels",
            "make the loader drop or filter rows of X and y together",
        )
    try:
        X = np.ascontiguousarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise _fail(
            name,
            f"features are not numeric ({exc})",
            "encode categorical or string columns as numbers in the source's prepare step",
        ) from None
    finite = np.isfinite(X) | np.isnan(X) if allow_nan else np.isfinite(X)
    if not finite.all():
        bad = ~finite
        n_nan = int(np.isnan(X).sum())
        n_inf = int(bad.sum()) - n_nan
        cols = np.flatnonzero(bad.any(axis=0))
        shown = ", ".join(map(str, cols[:20])) + (", ..." if cols.size > 20 else "")
        raise _fail(
            name,
            f"X has {int(bad.sum())} non-finite values ({n_nan} NaN, {n_inf} inf) in "
            f"{int(bad.any(axis=1).sum())} rows and {cols.size} column(s) [{shown}] (0-based)",
            "drop or impute those rows/columns in the source's prepare step "
            "(missing values are never imputed silently)",
        )
    return _checked(X, _validate_y(y, X.shape[0], name, task, card), name, warn)


def _checked(X, y, name: str, warn: bool):
    if warn:
        warn_quality(X, y, name)
    return X, y


def _validate_sparse(X, name: str):
    X = _csr(X, dtype=np.float64)
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise _fail(name, f"the data is empty (X has shape {X.shape})",
                    "check that the source file is complete and that the loader's filters keep some rows")
    bad = ~np.isfinite(X.data)
    if bad.any():
        rows = np.unique(np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))[bad])
        raise _fail(name, f"X (sparse) has {int(bad.sum())} non-finite stored values in {rows.size} rows",
                    "drop or impute those rows in the source's prepare step")
    X.sum_duplicates()
    X.sort_indices()
    return X


def _validate_y(y, n_rows: int, name: str, task: str | None, card=None):
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    if y.ndim != 1:
        raise _fail(name, f"y must be 1-D, got shape {y.shape}", "return a single label column")
    if y.shape[0] != n_rows:
        raise _fail(name, f"X has {n_rows} rows but y has {y.shape[0]} labels",
                    "make the loader drop or filter rows of X and y together")
    if task in CLASSIFICATION_TASKS:
        _check_missing_labels(y, name, card)
    y = _label_array(y)
    if task == "regression":
        try:
            y = np.asarray(y, dtype=np.float64)
        except (TypeError, ValueError):
            raise _fail(name, "regression targets are not numeric",
                        "return float targets from the source's prepare step; if they are class labels, "
                        "register the set with task='binary' or 'multiclass' (a card: `task: binary`)") from None
        bad = np.flatnonzero(~np.isfinite(y))
        if bad.size:
            raise _fail(name, f"y has {bad.size} non-finite targets (NaN or inf) at rows {_shown(bad, 10)} "
                        f"(0-based) of {y.size}", _drop_rows(card))
    elif task in CLASSIFICATION_TASKS:
        labels, counts = np.unique(y, return_counts=True)
        if labels.size < 2:
            only = f"{labels[0]!r} x {counts[0]}" if labels.size else "none"
            raise _fail(
                name,
                f"task {task!r} needs at least 2 classes, y has {labels.size} ({only})",
                "check the label column and any row filter or subsampling applied by the loader",
            )
        if task == "binary" and labels.size != 2:
            raise _fail(name, f"task 'binary' needs exactly 2 classes, y has {labels.size} {labels.tolist()[:10]}",
                        _more_than_two(labels.size, card))
        if task == "multiclass" and labels.size == 2:  # binary-only models would skip it, GMean's classes differ
            raise _fail(name, f"task 'multiclass' needs 3 or more classes, y has 2 {labels.tolist()}",
                        "register it with task='binary' (a card: `task: binary`)")
    return y


def hash_arrays(X, y) -> str:
    """SHA-256 hex digest (64 chars) identifying a dataset's content.

    The digest covers, in order: the ASCII line ``HASH_VERSION + "\\n"``, then for ``X`` and
    then ``y`` the line ``"<name>:<dtype.str>:<comma-separated shape>\\n"`` followed by the
    array's C-order bytes. Dtype (including byte order) and shape therefore change the hash,
    so a float32 copy or a transposed view of the same numbers does not collide.
    Object arrays are refused (their bytes are pointers).
    """
    h = hashlib.sha256()
    h.update((HASH_VERSION + "\n").encode("ascii"))
    parts = [("X", X), ("y", y)]
    if issparse(X):  # CSR with sorted, summed indices: its three arrays identify it
        X = _csr(X)
        parts = [("X.csr.shape", np.asarray(X.shape, dtype=np.int64)), ("X.data", X.data),
                 ("X.indices", X.indices.astype(np.int64)), ("X.indptr", X.indptr.astype(np.int64)), ("y", y)]
    for key, arr in parts:
        a = np.ascontiguousarray(arr)
        if a.dtype == object:
            raise TypeError(f"hash_arrays: {key} has dtype object; convert it to a numeric or str array")
        shape = ",".join(str(s) for s in a.shape)
        h.update(f"{key}:{a.dtype.str}:{shape}\n".encode("ascii"))
        h.update(a.tobytes())
    return h.hexdigest()


def binarise_labels(y, name: str = "<dataset>", card=None) -> tuple[np.ndarray, dict[int, str]]:
    """Map a two-label vector to int64 0/1 with 1 = the minority class.

    Ties (equal counts) go to the lexicographically later label, compared as strings
    (``str(label).strip()``). Returns ``(y01, {0: majority_label, 1: minority_label})``.
    A vector with one label is returned as all zeros so that :func:`validate_xy` can report
    it; more than two labels raise :class:`DataValidationError` (its fix names the card's keys when ``card``,
    the dataset card's path, is given).
    """
    y = np.asarray(y)
    _check_missing_labels(y, name, card)
    keys = np.asarray([str(v).strip() for v in y.tolist()], dtype=str)
    labels, counts = np.unique(keys, return_counts=True)
    if labels.size > 2:
        raise _fail(name, f"task 'binary' but the source gives {labels.size} labels {labels.tolist()[:10]}",
                    _more_than_two(labels.size, card))
    if labels.size < 2:
        return np.zeros(y.shape[0], dtype=np.int64), {0: str(labels[0]) if labels.size else ""}
    # np.unique sorts, so labels[1] is the lexicographically later one: it wins a tie.
    minority = 0 if counts[0] < counts[1] else 1
    y01 = (keys == labels[minority]).astype(np.int64)
    return y01, {0: str(labels[1 - minority]), 1: str(labels[minority])}


# --------------------------------------------------------------------------- data quality

@dataclass(frozen=True)
class DuplicateRows:
    """Rows of a dataset whose features repeat an earlier row.

    ``groups[i]`` numbers row ``i``'s feature vector in order of first occurrence (identical
    feature rows share a number, whatever their labels); ``keep`` holds the sorted indices of the
    first row of each identical (features, label) pair. ``n_repeated`` = rows whose features equal
    an earlier row's = n - number of distinct feature rows (``pandas.DataFrame.duplicated`` on the
    features); ``n_conflicting`` = those of them whose label differs from every earlier copy =
    distinct (features, label) pairs - distinct feature rows.
    """

    groups: np.ndarray
    keep: np.ndarray
    n_repeated: int
    n_conflicting: int


#: :func:`feature_groups` sorts the rows' bytes up to this many values (or for wide data), else hashes
SORT_MAX_VALUES = 10_000_000


def _first_occurrence_ids(inverse: np.ndarray, first: np.ndarray) -> np.ndarray:
    """Renumber ``np.unique`` ids (sorted order) by the row of each id's first occurrence."""
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    return rank[inverse]


def _exact_dense_groups(X: np.ndarray) -> np.ndarray:
    """Identical rows by their bytes (after turning -0.0 into 0.0): exact, slower."""
    Xc = np.ascontiguousarray(X, dtype=np.float64) + 0.0  # -0.0 + 0.0 == +0.0: equal values, equal bytes
    rows = Xc.view(np.dtype((np.void, Xc.dtype.itemsize * Xc.shape[1]))).ravel()
    _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    return _first_occurrence_ids(inverse.ravel(), first)


def feature_groups(X) -> np.ndarray:
    """Per row, the number of its feature vector (0, 1, ... in order of first occurrence);
    identical rows (equal values, so -0.0 == 0.0) get the same number.

    Dense X: the rows' bytes are sorted (``np.unique`` on a void view; -0.0 made 0.0 first). For
    large, tall data (over 10 million values, more rows than columns) the rows are hashed with
    ``pandas.util.hash_pandas_object`` instead (0.5 s for MNIST's 70000 x 784, six times faster than
    the sort, whose rows share long runs of zeros), then every row that shares a hash with an
    earlier row is compared with it value by value; a hash collision between different rows falls
    back to the sort, so the result is exact either way. Sparse X (CSR): each row's canonical
    (column indices, values) is the key.
    """
    if issparse(X):
        X = _csr(X, dtype=np.float64, copy=True)
        X.sum_duplicates()
        X.eliminate_zeros()  # stored zeros are zeros; also drops -0.0
        X.sort_indices()
        ids: dict = {}
        out = np.empty(X.shape[0], dtype=np.int64)
        for i in range(X.shape[0]):
            a, b = X.indptr[i], X.indptr[i + 1]
            out[i] = ids.setdefault((X.indices[a:b].tobytes(), X.data[a:b].tobytes()), len(ids))
        return out
    X = np.asarray(X, dtype=np.float64)
    if X.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    if X.size <= SORT_MAX_VALUES or X.shape[1] >= X.shape[0]:
        return _exact_dense_groups(X)
    import pandas as pd  # large data only: a small set's check imports no pandas (0.3 s of a command's start)
    h = pd.util.hash_pandas_object(pd.DataFrame(X, copy=False), index=False).to_numpy()
    _, first, inverse = np.unique(h, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    repeat = np.flatnonzero(first[inverse] != np.arange(X.shape[0]))
    if repeat.size and not (X[repeat] == X[first[inverse[repeat]]]).all():
        return _exact_dense_groups(X)  # a hash collision between different rows
    return _first_occurrence_ids(inverse, first)


def duplicate_rows(X, y) -> DuplicateRows:
    """Count the rows of (X, y) whose features repeat an earlier row; see :class:`DuplicateRows`."""
    groups = feature_groups(X)
    y = np.asarray(y)
    n = groups.size
    if n == 0:
        return DuplicateRows(groups, np.zeros(0, dtype=np.int64), 0, 0)
    _, ycode = np.unique(_label_array(y), return_inverse=True)
    pair = groups * (int(ycode.max()) + 1) + ycode.ravel()
    _, keep = np.unique(pair, return_index=True)
    keep = np.sort(keep)
    n_groups = int(groups.max()) + 1
    return DuplicateRows(groups, keep, n - n_groups, keep.size - n_groups)


def constant_columns(X) -> np.ndarray:
    """0-based indices of the features that have the same value in every row."""
    if X.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    lo, hi = X.min(axis=0), X.max(axis=0)
    if issparse(lo):
        lo, hi = lo.toarray(), hi.toarray()
    return np.flatnonzero(np.asarray(lo).ravel() == np.asarray(hi).ravel())


def _shown(idx, limit: int = 20) -> str:
    idx = np.asarray(idx)
    return "[" + ", ".join(map(str, idx[:limit].tolist())) + (", ..." if idx.size > limit else "") + "]"


def quality_problems(X, y, name: str) -> list[str]:
    """Messages for the data-quality problems of (X, y): duplicated rows and constant features.

    The data is not changed: the papers used it as published. ``experiment.duplicates`` decides
    what an experiment does with duplicates (``keep`` by default, ``drop``, ``group``)."""
    out = []
    dup = duplicate_rows(X, y)
    if dup.n_repeated:
        conflict = (f" ({dup.n_conflicting} of them with a label that differs from every earlier copy)"
                    if dup.n_conflicting else "")
        out.append(
            f"dataset {name!r}: {dup.n_repeated} of {X.shape[0]} rows repeat the features of an earlier row"
            f"{conflict}, so a copy can be tested on while another trains (optimistic scores); used as "
            "published. +experiment.duplicates=drop keeps the first row of each identical (features, label) "
            "pair, +experiment.duplicates=group keeps identical rows in one fold")
    const = constant_columns(X)
    if const.size:
        out.append(
            f"dataset {name!r}: {const.size} constant feature(s) (one value in every row), columns "
            f"{_shown(const)} (0-based); kept as published (they carry no information; scaling maps "
            "them to 0); drop them in the source's prepare step if a model cannot cope")
    return out


def warn_quality(X, y, name: str) -> None:
    """Emit one :class:`DataQualityWarning` per problem found by :func:`quality_problems`."""
    for msg in quality_problems(X, y, name):
        warnings.warn(msg, DataQualityWarning, stacklevel=4)  # at the caller of validate_xy
