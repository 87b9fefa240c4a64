"""Load stored results as pandas frames (for notebooks and reports)."""
from __future__ import annotations

import os

import pandas as pd

from .store import Store

DEFAULT_STORE = os.environ.get("RANDML_STORE", "results/store")
SORT = ["dataset", "model", "params_json", "repeat", "fold", "inner_fold"]


def load(experiment: str, store: str | None = None, **filters) -> pd.DataFrame:
    """All stored rows of ``experiment``, one per cell, filtered by column equality.

    ``load("eem_table4", dataset="heart", model="EEM-rbf")``; a list value means "any of".
    """
    df = Store(store or DEFAULT_STORE, experiment).read()
    for col, value in filters.items():
        if col not in df.columns:
            raise KeyError(f"no column {col!r} in the stored results; columns: {', '.join(df.columns)}")
        df = df[df[col].isin(value if isinstance(value, (list, tuple, set)) else [value])]
    keys = [c for c in SORT if c in df.columns]
    return df.sort_values(keys, kind="stable").reset_index(drop=True) if keys else df
