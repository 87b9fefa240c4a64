"""Validation, hashing and label conventions shared by every dataset source.

Everything that leaves :func:`randml_core.data.load_dataset` has passed :func:`validate_xy`
and been hashed with :func:`hash_arrays`, whatever source it came from.
"""

from __future__ import annotations

import hashlib

import numpy as np
import scipy.sparse as sp

__all__ = [
    "DataValidationError",
    "validate_xy",
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


def _fail(name: str, problem: str, fix: str) -> DataValidationError:
    return DataValidationError(f"dataset {name!r}: {problem}; fix: {fix}")


def _label_array(y: np.ndarray) -> np.ndarray:
    """Labels as a hashable, non-object array (strings become fixed-width unicode)."""
    if y.dtype == object or y.dtype.kind in "SU":
        return np.asarray([str(v) for v in y.tolist()], dtype=str)
    return y


def validate_xy(X, y, name: str, task: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Check a dataset's arrays and return them in canonical form.

    Returns ``(X, y)`` with ``X`` a C-contiguous float64 array of shape (n, d) and ``y`` a 1-D
    array (integers/floats kept, strings as a fixed-width unicode array).

    Raises :class:`DataValidationError` for: empty data, X not 2-D, y not 1-D, a row-count
    mismatch, non-numeric features, NaN/inf features (the message gives how many and in which
    columns), non-finite regression targets, and fewer than 2 classes (exactly 2 for
    ``task="binary"``) for classification tasks. ``task=None`` skips the label checks.
    """
    if task is not None and task not in TASKS:
        raise _fail(name, f"unknown task {task!r}", f"use one of {', '.join(TASKS)}")
    if sp.issparse(X):  # sparse features (text) stay sparse: CSR float64, the same checks
        X = _validate_sparse(X, name)
        return X, _validate_y(y, X.shape[0], name, task)
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
    finite = np.isfinite(X)
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
    return X, _validate_y(y, X.shape[0], name, task)


def _validate_sparse(X, name: str):
    X = sp.csr_matrix(X, dtype=np.float64)
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


def _validate_y(y, n_rows: int, name: str, task: str | None):
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    if y.ndim != 1:
        raise _fail(name, f"y must be 1-D, got shape {y.shape}", "return a single label column")
    if y.shape[0] != n_rows:
        raise _fail(name, f"X has {n_rows} rows but y has {y.shape[0]} labels",
                    "make the loader drop or filter rows of X and y together")
    y = _label_array(y)
    if task == "regression":
        try:
            y = np.asarray(y, dtype=np.float64)
        except (TypeError, ValueError):
            raise _fail(name, "regression targets are not numeric", "return float targets") from None
        n_bad = int((~np.isfinite(y)).sum())
        if n_bad:
            raise _fail(name, f"y has {n_bad} non-finite targets", "drop those rows in the loader")
    elif task in CLASSIFICATION_TASKS:
        if y.dtype.kind == "f" and np.isnan(y).any():
            raise _fail(name, f"y has {int(np.isnan(y).sum())} missing labels", "drop those rows")
        labels, counts = np.unique(y, return_counts=True)
        if labels.size < 2:
            only = f"{labels[0]!r} x {counts[0]}" if labels.size else "none"
            raise _fail(
                name,
                f"task {task!r} needs at least 2 classes, y has {labels.size} ({only})",
                "check the label column and any row filter or subsampling applied by the loader",
            )
        if task == "binary" and labels.size != 2:
            raise _fail(
                name,
                f"task 'binary' needs exactly 2 classes, y has {labels.size} {labels.tolist()}",
                "binarise the labels in the source's prepare step or register the set as multiclass",
            )
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
    if sp.issparse(X):  # CSR with sorted, summed indices: its three arrays identify it
        X = sp.csr_matrix(X)
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


def binarise_labels(y, name: str = "<dataset>") -> tuple[np.ndarray, dict[int, str]]:
    """Map a two-label vector to int64 0/1 with 1 = the minority class.

    Ties (equal counts) go to the lexicographically later label, compared as strings
    (``str(label).strip()``). Returns ``(y01, {0: majority_label, 1: minority_label})``.
    A vector with one label is returned as all zeros so that :func:`validate_xy` can report
    it; more than two labels raise :class:`DataValidationError`.
    """
    y = np.asarray(y)
    keys = np.asarray([str(v).strip() for v in y.tolist()], dtype=str)
    labels, counts = np.unique(keys, return_counts=True)
    if labels.size > 2:
        raise _fail(
            name,
            f"task 'binary' but the source gives {labels.size} labels {labels.tolist()[:10]}",
            "binarise the labels in the source's prepare step or register the set as multiclass",
        )
    if labels.size < 2:
        return np.zeros(y.shape[0], dtype=np.int64), {0: str(labels[0]) if labels.size else ""}
    # np.unique sorts, so labels[1] is the lexicographically later one: it wins a tie.
    minority = 0 if counts[0] < counts[1] else 1
    y01 = (keys == labels[minority]).astype(np.int64)
    return y01, {0: str(labels[1 - minority]), 1: str(labels[minority])}
