"""Feature scaling fitted on the training part, and the description hashed into cell keys.

``experiment.preprocessing`` picks the scaling (min-max to [0, 1] by default, standardisation or
none); ``experiment.duplicates`` what a run does with duplicated rows (``keep`` as published,
``drop`` or ``group``, see :mod:`randml_core.protocol`). Both are in :func:`preprocessing_of`,
the string stored in every row and hashed into every cell key; ``keep`` adds nothing to it, so
the keys of existing cells do not change.

Written by hand rather than with ``sklearn.preprocessing.MinMaxScaler`` / ``StandardScaler``:
every stored result and committed snapshot was computed with these exact formulas, and the
scikit-learn scalers round differently (MinMaxScaler multiplies by a precomputed scale), so
swapping them in would change results in the last bits.

Extreme values: with features of +-1e308 the span ``hi - lo`` (min-max) or the sum of squares
(standard) overflows to inf and the scaled column becomes NaN. Only the columns whose scaled
values are not finite take a safe path (min-max: every term halved, exact for normal floats;
standard: the column scaled by a power of two first, which standardisation cancels); every other
column is computed by the plain formula, so ordinary data gives bit-identical results.
"""
from __future__ import annotations

import numpy as np

PREPROCESSING = "minmax[0,1] fitted on the training part"
#: experiment option ``preprocessing`` -> the description stored in rows and hashed into cell keys
PREPROCESSINGS = {
    "minmax": PREPROCESSING,
    "standard": "standardised (zero mean, unit variance) with training-part statistics",
    "none": "none (features as loaded)",
}

#: experiment option ``duplicates`` -> what it appends to the preprocessing description (keep: nothing)
DUPLICATES = {
    "keep": "",
    "drop": "; duplicate rows dropped",
    "group": "; duplicate rows kept in one fold",
}
_DUPLICATES_HELP = ("keep (default: the rows as published), drop (keep the first row of each identical "
                    "(features, label) pair), group (rows with identical features stay in one fold)")


def duplicates_of(options: dict) -> str:
    """The experiment's ``duplicates`` option (default ``keep``), validated."""
    name = options.get("duplicates")
    if name is None:
        return "keep"
    if not isinstance(name, str) or name not in DUPLICATES:
        raise ValueError(f"experiment.duplicates={name!r} is unknown; choose one of {_DUPLICATES_HELP}")
    return name


def preprocessing_of(options: dict) -> str:
    """The description of the experiment's ``preprocessing`` option (default ``minmax``), plus
    the ``duplicates`` option when it is not ``keep``."""
    name = options.get("preprocessing") or "minmax"
    if name not in PREPROCESSINGS:
        raise ValueError(f"experiment.preprocessing={name!r} is unknown; choose one of {sorted(PREPROCESSINGS)}")
    return PREPROCESSINGS[name] + DUPLICATES[duplicates_of(options)]


def _bad_columns(stats_finite, parts) -> np.ndarray:
    """Columns with a non-finite statistic (a span or standard deviation of inf scales every value
    to 0, which is finite and wrong) or a non-finite value in any of the scaled parts."""
    bad = ~stats_finite
    for p in parts:
        if p.size:
            bad |= ~np.isfinite(p).all(0)
    return np.flatnonzero(bad)


def _minmax(train: np.ndarray, *others: np.ndarray):
    """Min-max scaling with the training part's range: (a - lo) / (hi - lo), constant columns / 1."""
    lo, hi = train.min(0), train.max(0)
    with np.errstate(over="ignore", invalid="ignore"):
        span = np.where(hi > lo, hi - lo, 1.0)
        out = [(a - lo) / span for a in (train, *others)]
    bad = _bad_columns(np.isfinite(span), out)
    if bad.size:  # hi - lo or a - lo overflowed: halve every term (exact), then divide
        lo2, hi2 = lo[bad] / 2, hi[bad] / 2
        span2 = np.where(hi[bad] > lo[bad], hi2 - lo2, 1.0)
        for o, a in zip(out, (train, *others)):
            o[:, bad] = (a[:, bad] / 2 - lo2) / span2
    return out


def _standard(train: np.ndarray, *others: np.ndarray):
    """Standardisation with the training part's mean and (population) standard deviation."""
    with np.errstate(over="ignore", invalid="ignore"):
        mu, sd = train.mean(0), train.std(0)
        sd = np.where(sd > 0, sd, 1.0)
        out = [(a - mu) / sd for a in (train, *others)]
    bad = _bad_columns(np.isfinite(mu) & np.isfinite(sd), out)
    if bad.size:  # the mean or the sum of squares overflowed: scale the columns by 2**-e first
        top = np.abs(train[:, bad]).max(0)
        for a in others:
            if a.size:
                top = np.maximum(top, np.abs(a[:, bad]).max(0))
        scale = np.ldexp(1.0, -np.frexp(top)[1])  # top * scale < 1; powers of two are exact
        t = train[:, bad] * scale
        mu2, sd2 = t.mean(0), t.std(0)
        sd2 = np.where(sd2 > 0, sd2, 1.0)
        for o, a in zip(out, (train, *others)):
            o[:, bad] = (a[:, bad] * scale - mu2) / sd2
    return out


def preprocess(name: str, X_train, X_test):
    """Scale both parts with statistics of the training part only (never the test part)."""
    if name == "none":
        return X_train, X_test
    from .data.checks import issparse
    if issparse(X_train):
        raise ValueError(f"preprocessing={name!r} would densify sparse features; "
                         "set experiment.preprocessing=none for sparse datasets")
    fn = _minmax if name == "minmax" else _standard
    if X_test.shape[0] == 0:
        return fn(X_train)[0], X_test
    return tuple(fn(X_train, X_test))
