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

from .options import EngineOptions

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
    """The experiment's ``duplicates`` option (default :attr:`EngineOptions.duplicates`: ``keep``), validated."""
    name = options.get("duplicates")
    if name is None:
        return EngineOptions.duplicates
    if not isinstance(name, str) or name not in DUPLICATES:
        raise ValueError(f"experiment.duplicates={name!r} is unknown; choose one of {_DUPLICATES_HELP}")
    return name


def preprocessing_of(options: dict) -> str:
    """The description of the experiment's ``preprocessing`` option (default :attr:`EngineOptions.preprocessing`:
    ``minmax``), plus the ``duplicates`` option when it is not ``keep``."""
    name = options.get("preprocessing") or EngineOptions.preprocessing
    if name not in PREPROCESSINGS:
        raise ValueError(f"experiment.preprocessing={name!r} is unknown; choose one of {sorted(PREPROCESSINGS)}")
    return PREPROCESSINGS[name] + DUPLICATES[duplicates_of(options)]


def _bad_columns(stats_finite, parts) -> np.ndarray:
    """Columns with a non-finite statistic (a span or standard deviation of inf scales every value
    to 0, which is finite and wrong) or a non-finite value other than a kept NaN in any of the scaled parts."""
    bad = ~stats_finite
    for p in parts:
        if p.size:
            bad |= ~(np.isfinite(p) | np.isnan(p)).all(0)
    return np.flatnonzero(bad)


def _nan_stat(fn, nanfn, train: np.ndarray) -> np.ndarray:
    """``fn(train, 0)``; with NaN in the data the NaN-aware ``nanfn`` (an all-NaN column gives 0), so that
    NaN stays NaN after scaling. Data without NaN takes ``fn`` itself: the same bits as before."""
    if not np.isnan(train).any():
        return fn(train, 0)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slice
        out = nanfn(train, 0)
    return np.where(np.isnan(out), 0.0, out)


def _minmax(train: np.ndarray, *others: np.ndarray):
    """Min-max scaling with the training part's range: (a - lo) / (hi - lo), constant columns / 1;
    NaN ignored by the range and kept as NaN."""
    lo, hi = _nan_stat(np.min, np.nanmin, train), _nan_stat(np.max, np.nanmax, train)
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
        mu, sd = _nan_stat(np.mean, np.nanmean, train), _nan_stat(np.std, np.nanstd, train)
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


def preprocess(name: str, X_train, X_test, keep=()):
    """Scale both parts with statistics of the training part only (never the test part); the columns ``keep``
    (0-based: a natively categorical model's codes) stay as they are."""
    if name == "none":
        return X_train, X_test
    if len(keep):
        tr, te = (np.array(a, copy=True) for a in preprocess(name, X_train, X_test))
        cols = list(keep)
        tr[:, cols], te[:, cols] = X_train[:, cols], X_test[:, cols]
        return tr, te
    from .data.checks import issparse
    if issparse(X_train):
        raise ValueError(f"preprocessing={name!r} would densify sparse features; "
                         "set experiment.preprocessing=none for sparse datasets")
    fn = _minmax if name == "minmax" else _standard
    if X_test.shape[0] == 0:
        return fn(X_train)[0], X_test
    return tuple(fn(X_train, X_test))


# --------------------------------------------------------------------------- categorical columns, NaN

#: experiment option ``categorical`` (and a model config's ``categorical:``) -> how a card's categorical columns
#: are encoded; ``native`` is a model's own choice only
ENCODINGS = {
    "onehot": "one-hot encoded with the training part's categories (unseen or missing: all zeros)",
    "ordinal": "ordinal codes (by sorted value in the file; NaN kept)",
    "native": "ordinal codes (by sorted value in the file; NaN kept), not scaled, declared to the model as "
              "categorical features (its categorical_features parameter)",
}
#: the estimator parameter a model with ``categorical: native`` receives the categorical columns' indices in
NATIVE_PARAM = "categorical_features"


def encoding_of(options: dict, variant=None) -> str:
    """The encoding of a card's categorical columns: ``variant``'s own ``categorical:`` when it has one, else
    the experiment's ``categorical`` option (default ``onehot``), validated."""
    own = getattr(variant, "categorical", None)
    if own is not None:
        return own
    name = options.get("categorical") or "onehot"
    if name not in ("onehot", "ordinal"):
        raise ValueError(f"experiment.categorical={name!r} is unknown; choose one of ['onehot', 'ordinal'] "
                         "(onehot: one indicator column per category of the training part; ordinal: the codes)"
                         + ("; native is a model's choice: set `categorical: native` in that model's config"
                            if name == "native" else ""))
    return name


def native_param(estimator) -> str | None:
    """The estimator's parameter (a pipeline's step included) that takes the categorical features' indices, or None."""
    try:
        names = estimator.get_params(deep=True)
    except Exception:
        return None
    found = sorted(k for k in names if k == NATIVE_PARAM or k.endswith("__" + NATIVE_PARAM))
    return found[0] if len(found) == 1 else None


def check_model_encoding(m: dict, estimator, where: str) -> str | None:
    """A model config's ``categorical:`` (onehot | ordinal | native; None when absent), checked: ``native`` needs
    an estimator with one ``categorical_features`` parameter, which the config may then not set itself.
    Raises ValueError naming the key and the fix."""
    choice = m.get("categorical")
    if choice is None:
        return None
    if choice not in ENCODINGS:
        raise ValueError(f"{where}categorical={choice!r} is unknown; choose one of {', '.join(ENCODINGS)} "
                         "(native: ordinal codes declared to an estimator with a categorical_features parameter, "
                         "e.g. HistGradientBoosting)")
    if choice == "native":
        param = native_param(estimator)
        if param is None:
            raise ValueError(f"{where}categorical=native needs an estimator with one {NATIVE_PARAM!r} parameter "
                             f"(e.g. sklearn.ensemble.HistGradientBoostingClassifier); {type(estimator).__name__} "
                             "has none; fix: categorical: onehot (or ordinal) for this model")
        variants = [v for v in (m.get("variants") or {}).values() if v]
        if any(param in (block or {}) for block in [m.get("grid"), m.get("quick"), *variants]):
            raise ValueError(f"{where}categorical=native sets {param} from the card's categorical columns; fix: "
                             f"remove {param} from the model's grid and variants")
    return choice


def native_settings(family, categorical) -> dict:
    """The extra parameter a natively categorical model is fitted with: ``{<its categorical_features>: [indices]}``
    ({} without categorical columns, so such a dataset's model is the plain one)."""
    if not len(categorical):
        return {}
    return {native_param(family.estimator()): [int(j) for j in categorical]}


def nan_columns(ds) -> list[str]:
    """Names (or 0-based numbers) of the dataset's feature columns holding NaN."""
    if ds.is_sparse or not np.isnan(ds.X).any():
        return []
    names = list(ds.feature_names) or [str(i) for i in range(ds.n_features)]
    return [names[i] for i in np.flatnonzero(np.isnan(ds.X).any(0))]


def _names(ds, idx) -> list[str]:
    names = list(ds.feature_names) or [str(i) for i in range(ds.n_features)]
    return [names[i] for i in idx]


def dataset_prep(options: dict, ds, variant=None) -> str:
    """The preprocessing description of one dataset (for ``variant``, whose own ``categorical:`` may differ):
    :func:`preprocessing_of` for a dataset without categorical columns or NaN (so the keys of every such
    dataset stay as they were), plus the encoding of its categorical columns and the columns whose NaN reach
    the models."""
    out = preprocessing_of(options)
    cat = tuple(getattr(ds, "categorical", ()) or ())
    enc = encoding_of(options, variant)
    if cat:
        out += f"; categorical {_names(ds, cat)} {ENCODINGS[enc]}"
    nan = [c for c in nan_columns(ds) if not (cat and enc == "onehot" and c in _names(ds, cat))]
    if nan:
        out += f"; NaN passed to the model in {nan}"
    return out


def onehot_refusal(options: dict, ds, variants) -> str | None:
    """Why one-hot encoding ``ds``'s categorical columns would not fit (rows x encoded columns above the data size
    limit, ``$RANDML_MAX_DATA_VALUES``: a unique text column of 50,000 rows is 50,000 indicator columns, 20 GB
    dense), naming the columns and the fixes; None when it fits or no model one-hot encodes."""
    from .data.sources.tabular import MAX_VALUES_ENV, max_values
    cat = tuple(getattr(ds, "categorical", ()) or ())
    limit = max_values()
    if not cat or not limit or not any(encoding_of(options, v) == "onehot" for v in variants or [None]):
        return None
    X = np.asarray(ds.X)
    levels = {j: len(np.unique(X[:, j][~np.isnan(X[:, j])])) for j in cat}
    width = X.shape[1] - len(cat) + sum(levels.values())
    if X.shape[0] * width <= limit:
        return None
    worst = sorted(levels, key=levels.get, reverse=True)[:3]
    names = ", ".join(f"{n} ({levels[j]:,} categories)" for n, j in zip(_names(ds, worst), worst))
    return (f"one-hot encoding its categorical columns makes {X.shape[0]:,} rows x {width:,} columns = "
            f"{X.shape[0] * width:,} values, above the limit of {limit:,} ({MAX_VALUES_ENV}); the widest: {names}. "
            "Fix: drop an identifier-like column in the card (drop: [name]), encode them as codes "
            "(+experiment.categorical=ordinal), or raise the limit if the machine has the memory")


def encode(X_train, X_test, categorical=(), encoding: str = "onehot"):
    """Encode the ``categorical`` columns (0-based) of both parts with the training part's categories.

    ``onehot``: the other columns in their order, then per categorical column (in order) one 0/1 column
    per distinct non-NaN value of the training part, sorted; a test value not seen in training, or NaN,
    gives all zeros (scikit-learn's ``OneHotEncoder(handle_unknown="ignore")``). ``ordinal`` or no
    categorical columns: the parts unchanged."""
    if not len(categorical) or encoding != "onehot":
        return X_train, X_test
    cat = list(categorical)
    rest = [j for j in range(X_train.shape[1]) if j not in set(cat)]
    parts_tr, parts_te = [X_train[:, rest]], [X_test[:, rest]]
    for j in cat:
        values = np.unique(X_train[:, j][~np.isnan(X_train[:, j])])
        parts_tr.append((X_train[:, j][:, None] == values[None, :]).astype(np.float64))
        parts_te.append((X_test[:, j][:, None] == values[None, :]).astype(np.float64))
    return np.ascontiguousarray(np.hstack(parts_tr)), np.ascontiguousarray(np.hstack(parts_te))


def allows_nan(family) -> bool:
    """True if the family's estimator takes NaN (its scikit-learn tags; for a Pipeline, its first step's).
    A family without a scikit-learn estimator does not."""
    make = getattr(family, "estimator", None)
    if make is None:
        return False
    try:
        est = make()
        # a Pipeline's own tag (scikit-learn 1.9) says False even when its first step imputes: ask that step
        first = next((s for _, s in getattr(est, "steps", []) if s not in (None, "passthrough")), est)
        return bool(first.__sklearn_tags__().input_tags.allow_nan)
    except Exception:
        return False


def _skipped_by_rule(family, task) -> bool:
    """True if the runner stores every cell of ``family`` on a dataset of ``task`` as skipped by rule, without a
    fit (a binary-only model on a multiclass set: :func:`randml_core.worker.run_task`). Unknown: False."""
    if task is None:
        return False
    try:
        return task not in family.handles()
    except Exception:
        return False


def nan_refusal(ds, options: dict, families) -> str | None:
    """The reason a run is refused before any work (None: fine): NaN features after the encoding, and
    a model whose estimator does not take NaN. ``families() -> [(variant name, family)]`` or
    ``[(variant name, family, variant)]`` (its own ``categorical:``), called only when the dataset has NaN.
    The skip rule comes first: a model whose cells on this dataset are skipped by rule (a binary-only one on a
    multiclass set) is never fitted on it, so the dataset's NaN do not refuse the run for that model."""
    cat = set(_names(ds, getattr(ds, "categorical", ()) or ()))
    all_nan = nan_columns(ds)
    if not all_nan:
        return None
    reached, bad = {}, set()
    for name, fam, *variant in families():
        if _skipped_by_rule(fam, getattr(ds, "task", None)):
            continue
        enc = encoding_of(options, variant[0] if variant else None)
        cols = [c for c in all_nan if not (enc == "onehot" and c in cat)]
        if cols and not allows_nan(fam):
            bad.add(name)
            reached.update(dict.fromkeys(cols))
    nan, bad = list(reached), sorted(bad)
    if not bad:
        return None
    return (f"dataset {ds.name!r} has missing values (NaN) in column(s) {nan}, and model(s) {bad} do not accept "
            "NaN (scikit-learn tags: allow_nan is False); fix: put an imputer first in the model's pipeline "
            "(estimator: {_target_: sklearn.pipeline.make_pipeline, _args_: [{_target_: sklearn.impute.SimpleImputer}, "
            "...]}), use a model that takes NaN (HistGradientBoosting), or drop those rows with `missing: drop_rows` "
            "in the card's source")
