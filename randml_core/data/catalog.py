"""A table of the registered datasets, as actually loaded (``catalog_frame``)."""

from __future__ import annotations

import warnings
from collections.abc import Iterable

import numpy as np

from .checks import DataQualityWarning, constant_columns, duplicate_rows
from .registry import get_spec, list_datasets, load_dataset
from .sources import SourceUnavailableError

__all__ = ["catalog_frame", "CATALOG_COLUMNS", "needs_download"]

CATALOG_COLUMNS = [
    "name", "task", "papers", "n", "d", "class_counts", "imbalance_ratio", "source", "source_kind",
    "substitute_of", "licence", "citation", "data_hash", "n_duplicate_rows", "n_duplicate_conflicts",
    "constant_features", "status",
]


def catalog_frame(names: Iterable[str] | None = None, source: str = "auto"):
    """One row per dataset, loaded with ``load_dataset(name, source)``.

    ``class_counts`` is ``"c0:c1:..."`` in label order (binary: majority 0 first, minority 1);
    ``imbalance_ratio`` = largest / smallest class count (NaN for regression); ``data_hash`` is
    the first 16 hex characters of the full SHA-256. ``n_duplicate_rows``: rows whose features
    repeat an earlier row; ``n_duplicate_conflicts``: those of them with a label that differs from
    every earlier copy; ``constant_features``: 0-based indices of the features with one value in
    every row, comma-separated (:mod:`~randml_core.data.checks`; the load's
    :class:`~randml_core.data.checks.DataQualityWarning` is not repeated here). A dataset that
    cannot be loaded here gets a row with its spec's information and the error in ``status``
    instead of failing the table.
    """
    import pandas as pd

    rows = []
    for name in (list_datasets() if names is None else list(names)):
        spec = get_spec(name)
        row = {
            "name": spec.name, "task": spec.task, "papers": ",".join(spec.papers),
            "n": None, "d": None, "class_counts": "", "imbalance_ratio": np.nan,
            "source": "", "source_kind": "", "substitute_of": spec.substitute_of or "",
            "licence": spec.licence, "citation": spec.citation, "data_hash": "", "n_duplicate_rows": None,
            "n_duplicate_conflicts": None, "constant_features": "", "status": "ok",
        }
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DataQualityWarning)  # counted in the columns instead
                ds = load_dataset(name, source=source)
        except Exception as exc:  # report, don't abort the catalogue
            row["status"] = f"{type(exc).__name__}: {exc}"
            rows.append(row)
            continue
        counts = list(ds.class_counts().values())
        dup = duplicate_rows(ds.X, ds.y)
        row.update(
            n=ds.n_samples, d=ds.n_features,
            class_counts=":".join(map(str, counts)),
            imbalance_ratio=round(max(counts) / min(counts), 2) if counts else np.nan,
            source=ds.source, source_kind=ds.source_kind, data_hash=ds.data_hash[:16],
            n_duplicate_rows=dup.n_repeated, n_duplicate_conflicts=dup.n_conflicting,
            constant_features=",".join(map(str, constant_columns(ds.X).tolist())),
        )
        rows.append(row)
    frame = pd.DataFrame(rows, columns=CATALOG_COLUMNS)
    frame["n"] = frame["n"].astype("Int64")
    for col in ("d", "n_duplicate_rows", "n_duplicate_conflicts"):
        frame[col] = frame[col].astype("Int64")
    return frame


def needs_download(status: str) -> bool:
    """A catalogue ``status`` saying the set has no source here but an online one not in the cache."""
    return status.startswith(SourceUnavailableError.__name__)
