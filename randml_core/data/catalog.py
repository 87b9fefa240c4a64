"""A table of the registered datasets, as actually loaded (``catalog_frame``)."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .registry import get_spec, list_datasets, load_dataset

__all__ = ["catalog_frame", "CATALOG_COLUMNS"]

CATALOG_COLUMNS = [
    "name", "task", "papers", "n", "d", "class_counts", "imbalance_ratio", "source", "source_kind",
    "substitute_of", "licence", "citation", "data_hash", "status",
]


def catalog_frame(names: Iterable[str] | None = None, source: str = "auto"):
    """One row per dataset, loaded with ``load_dataset(name, source)``.

    ``class_counts`` is ``"c0:c1:..."`` in label order (binary: majority 0 first, minority 1);
    ``imbalance_ratio`` = largest / smallest class count (NaN for regression); ``data_hash`` is
    the first 16 hex characters of the full SHA-256. A dataset that cannot be loaded here gets a
    row with its spec's information and the error in ``status`` instead of failing the table.
    """
    import pandas as pd

    rows = []
    for name in (list_datasets() if names is None else list(names)):
        spec = get_spec(name)
        row = {
            "name": spec.name, "task": spec.task, "papers": ",".join(spec.papers),
            "n": None, "d": None, "class_counts": "", "imbalance_ratio": np.nan,
            "source": "", "source_kind": "", "substitute_of": spec.substitute_of or "",
            "licence": spec.licence, "citation": spec.citation, "data_hash": "", "status": "ok",
        }
        try:
            ds = load_dataset(name, source=source)
        except Exception as exc:  # report, don't abort the catalogue
            row["status"] = f"{type(exc).__name__}: {exc}"
            rows.append(row)
            continue
        counts = list(ds.class_counts().values())
        row.update(
            n=ds.n_samples, d=ds.n_features,
            class_counts=":".join(map(str, counts)),
            imbalance_ratio=round(max(counts) / min(counts), 2) if counts else np.nan,
            source=ds.source, source_kind=ds.source_kind, data_hash=ds.data_hash[:16],
        )
        rows.append(row)
    frame = pd.DataFrame(rows, columns=CATALOG_COLUMNS)
    frame["n"] = frame["n"].astype("Int64")
    frame["d"] = frame["d"].astype("Int64")
    return frame
