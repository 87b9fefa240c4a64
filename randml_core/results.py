"""Load stored results as pandas frames (for notebooks and reports)."""
from __future__ import annotations

import json
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


def staged(frame: pd.DataFrame, id_columns=("dataset", "model", "params_json", "repeat", "fold", "inner_fold")
           ) -> pd.DataFrame:
    """Expand the JSON ``staged`` column (per-stage scores of one fit) into a long frame:
    one row per (cell, stage) with the id columns, ``stage`` and every staged metric."""
    if "staged" not in frame.columns:
        raise KeyError("these results have no 'staged' column: their family stores no staged predictions")
    ids = [c for c in id_columns if c in frame.columns]
    parts = []
    for _, row in frame[frame["staged"].notna()].iterrows():
        part = pd.DataFrame(json.loads(row["staged"]))
        for c in ids:
            part[c] = row[c]
        parts.append(part)
    if not parts:
        return pd.DataFrame(columns=[*ids, "stage"])
    out = pd.concat(parts, ignore_index=True)
    return out[[*ids, *[c for c in out.columns if c not in ids]]]
