"""Datasets bundled in the scikit-learn wheel (``sklearn.datasets.load_*``, offline)."""

from __future__ import annotations

import importlib.util

import numpy as np

from .base import LoadResult, Source, _dist_version


class SklearnSource(Source):
    """A dataset bundled in the scikit-learn wheel, e.g. ``SklearnSource("load_iris")``."""

    kind = "sklearn-bundled"

    def __init__(self, loader: str):
        self.loader = loader

    def describe(self) -> str:
        return f"scikit-learn {_dist_version('scikit-learn')} `{self.loader}` (offline, bundled)"

    def summary(self) -> str:
        return f"scikit-learn `{self.loader}` (bundled)"

    def available(self) -> bool:
        return importlib.util.find_spec("sklearn") is not None

    def load_detailed(self, name: str = "<dataset>") -> LoadResult:
        from ... import datamemo  # keyed by the bundled files' content: a cached command imports no sklearn
        key = datamemo.bundled_key(self.loader, __file__)
        hit = datamemo.get(key)
        if hit is not None:
            X, y, texts = hit
            return LoadResult(X, y, self.kind, self.describe(), label_note=texts["label_note"])
        import sklearn.datasets

        bunch = getattr(sklearn.datasets, self.loader)()
        note = ""
        if getattr(bunch, "target_names", None) is not None:
            note = "sklearn target_names: " + ", ".join(
                f"{i}={t}" for i, t in enumerate(np.asarray(bunch.target_names).tolist())
            )
        X, y = np.asarray(bunch.data), np.asarray(bunch.target)
        datamemo.put(key, X, y, {"label_note": note})
        return LoadResult(X, y, self.kind, self.describe(), label_note=note)

