"""DataFrames -> arrays, and prepare steps that any frame-based source may use.

A *prepare* step is ``(features: DataFrame, labels: Series) -> (features, labels)``, applied
before :func:`frame_to_arrays`, so that one clean-up serves every copy of a dataset (KEEL and
OpenML). Steps that serve one benchmark's table live beside that table (its ``datasets.py``).
"""

from __future__ import annotations

import numpy as np

from ..checks import DataValidationError
from .base import MalformedDataError

def frame_to_arrays(features, labels, name: str = "<dataset>"):
    """Turn a feature DataFrame and a label Series into ``(X, y, categories)``.

    Numeric and boolean columns become float64. Categorical columns are ordinal-encoded by
    their declared category order (codes 0..k-1), string/object columns by sorted unique
    value; missing entries stay NaN (validation then reports them). This is deliberately
    simple (no one-hot): the shipped tables' sets are min-max scaled afterwards and ordinal codes
    keep d equal to the published attribute count. ``categories`` maps column name to its
    category list so that the encoding can be traced.
    Labels: numeric labels are kept as numbers, anything else becomes stripped strings.
    Missing labels raise :class:`~.base.MalformedDataError`.
    """
    import pandas as pd

    cols = []
    categories: dict[str, list[str]] = {}
    for col in features.columns:
        s = features[col]
        if isinstance(s.dtype, pd.CategoricalDtype):
            codes = s.cat.codes.to_numpy().astype(np.float64)
            codes[codes < 0] = np.nan
            cols.append(codes)
            categories[str(col)] = [str(c) for c in s.cat.categories]
        elif pd.api.types.is_bool_dtype(s.dtype) or pd.api.types.is_numeric_dtype(s.dtype):
            cols.append(s.to_numpy(dtype=np.float64, na_value=np.nan))
        else:
            missing = s.isna().to_numpy()
            text = s.astype(str).str.strip().to_numpy(dtype=object)
            uniq = sorted(set(text[~missing].tolist()))
            lookup = {v: float(i) for i, v in enumerate(uniq)}
            codes = np.array([np.nan if m else lookup[v] for v, m in zip(text, missing)], dtype=np.float64)
            cols.append(codes)
            categories[str(col)] = uniq
    n = len(features)
    X = np.column_stack(cols) if cols else np.empty((n, 0))
    X = np.ascontiguousarray(X, dtype=np.float64)

    lab = pd.Series(labels).reset_index(drop=True)
    n_missing = int(lab.isna().sum())
    if n_missing:
        raise MalformedDataError(
            f"dataset {name!r}: {n_missing} rows have no label; fix: drop them in the source's prepare step"
        )
    if pd.api.types.is_numeric_dtype(lab.dtype) and not pd.api.types.is_bool_dtype(lab.dtype):
        y = lab.to_numpy()
    else:
        y = np.asarray(lab.astype(str).str.strip().tolist(), dtype=str)
    return X, y, categories


def onehot_nominal(features, labels):
    """Prepare step: one-hot encode every non-numeric column (numeric columns kept as they are).

    Values are stripped; a column's indicator columns follow its sorted distinct values and are
    named ``"<column>=<value>"``, in the original column order. Used where the published copy is
    one-hot encoded (car_eval_34: 6 nominal attributes -> 4+4+4+3+3+3 = 21 indicators).
    """
    import pandas as pd

    parts = []
    for col in features.columns:
        s = features[col]
        if pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype):
            parts.append(s.astype(np.float64).rename(str(col)))
            continue
        text = s.astype(str).str.strip()
        for value in sorted(set(text.tolist())):
            parts.append((text == value).astype(np.float64).rename(f"{col}={value}"))
    return pd.concat(parts, axis=1), labels



def one_vs_rest(positive: str):
    """Prepare step factory: label ``positive`` (compared as a stripped string) against ``"rest"``."""

    def prepare(features, labels):
        import pandas as pd

        lab = pd.Series(labels).astype(str).str.strip().to_numpy()
        if not (lab == positive).any():
            raise DataValidationError(
                f"one-vs-rest: no row has label {positive!r} (labels: {sorted(set(lab.tolist()))[:20]}); "
                "fix: check the label column of the source"
            )
        return features, pd.Series(np.where(lab == positive, positive, "rest"), name="class")

    prepare.__name__ = f"one_vs_rest_{positive}"
    # a closure named by its argument: the data memo's key pins it down (this module's source and the argument)
    prepare.__qualname__ = f"one_vs_rest({positive!r})"
    return prepare
