"""scikit-learn downloaders (``sklearn.datasets.fetch_*``) with their cache under randml's cache root."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np

from .base import (FIX_CACHE, SKLEARN_DOWNLOADS, LoadResult, Source, SourceUnavailableError, _dist_version,
                   _prep_name, check_network, download_failed, offline_mode, sklearn_data_home)


Select = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


class SklearnFetchSource(Source):
    """A scikit-learn downloader, e.g. ``sklearn.datasets.fetch_covtype``, cached under our cache root.

    Called as ``fetcher(data_home=<data_home>, download_if_missing=...)``; scikit-learn verifies
    the download's checksum and keeps its own cache in ``<data_home>/<cache_subdir>``.
    ``data_home`` defaults to :func:`sklearn_data_home` (``<cache root>/sklearn``, honouring
    ``RANDML_DATA_CACHE``). With ``RANDML_OFFLINE=1`` the fetcher is called with
    ``download_if_missing=False`` and a missing cache raises :class:`SourceUnavailableError`
    naming ``make data``. ``select(X, y) -> (X, y)`` then picks rows / relabels on the arrays
    (e.g. a one-vs-one subset of a multiclass set).
    """

    kind = "sklearn-fetch"
    online = True

    def __init__(self, fetcher: str, cache_subdir: str, select: Select | None = None, data_home=None):
        self.fetcher = fetcher
        self.cache_subdir = cache_subdir
        self.select = select
        self.data_home = data_home

    def data_home_path(self) -> Path:
        return Path(self.data_home) if self.data_home is not None else sklearn_data_home()

    def cache_path(self) -> Path:
        return self.data_home_path() / self.cache_subdir

    def is_cached(self) -> bool:
        p = self.cache_path()
        return p.is_dir() and any(p.iterdir())

    def describe(self) -> str:
        sel = f", select={_prep_name(self.select)}" if self.select else ""
        return f"sklearn.datasets.{self.fetcher}{sel} (online; cache {self.cache_path()})"

    def summary(self) -> str:
        sel = f", select={_prep_name(self.select)}" if self.select else ""
        return f"sklearn.datasets.{self.fetcher}{sel} (online, cached)"

    def available(self) -> bool:
        return self.is_cached() or not offline_mode()

    def _offline_error(self, name: str) -> SourceUnavailableError:
        return SourceUnavailableError(
            f"dataset {name!r} needs sklearn.datasets.{self.fetcher} to download but RANDML_OFFLINE=1 and "
            f"its cache '{self.cache_path()}' is missing or incomplete; fix: run {FIX_CACHE} on a machine "
            "with network access, or use an offline source"
        )

    def _fetcher(self) -> tuple[Callable, dict]:
        """The scikit-learn fetcher and the arguments it takes besides ``data_home`` and ``download_if_missing``."""
        import sklearn.datasets

        return getattr(sklearn.datasets, self.fetcher), {}

    def _call(self, name: str):
        download = not offline_mode()
        if not download and not self.is_cached():
            raise self._offline_error(name)
        fetch, kwargs = self._fetcher()
        what = f"sklearn.datasets.{self.fetcher}"
        if download and not self.is_cached():
            check_network(name, what, SKLEARN_DOWNLOADS)
        try:
            return fetch(data_home=str(self.data_home_path()), download_if_missing=download, **kwargs)
        except Exception as exc:
            if not download and isinstance(exc, OSError):
                raise self._offline_error(name) from exc
            raise download_failed(name, what, exc, SKLEARN_DOWNLOADS) from exc

    def ensure_cached(self, name: str = "<dataset>", force: bool = False) -> Path:
        """Make sure scikit-learn's cache exists (``force``: delete it first and download again)."""
        if force and self.cache_path().is_dir():
            import shutil

            shutil.rmtree(self.cache_path())
        self._call(name)
        return self.cache_path()

    def load_detailed(self, name: str = "<dataset>") -> LoadResult:
        was_cached = self.is_cached()
        bunch = self._call(name)
        X, y = np.asarray(bunch.data), np.asarray(bunch.target)
        if self.select is not None:
            X, y = self.select(X, y)
        kind = "sklearn-fetch-cache" if was_cached else "sklearn-fetch-download"
        how = f"cache {self.cache_path()}" if was_cached else f"downloaded to {self.cache_path()}"
        desc = f"sklearn.datasets.{self.fetcher} ({how})"
        notes = f"sklearn.datasets.{self.fetcher}, scikit-learn {_dist_version('scikit-learn')}, data_home {self.data_home_path()}."
        return LoadResult(X, y, kind, desc, notes=notes)


class SklearnFileFetchSource(SklearnFetchSource):
    """A scikit-learn fetcher whose cache is one file in ``data_home`` (not a sub-directory),
    e.g. ``fetch_california_housing`` -> ``<data_home>/cal_housing_py3.pkz``.

    Works around ``SklearnFetchSource.is_cached``, which only recognises a non-empty directory
    ``<data_home>/<cache_subdir>``: with a single cache file that test is never true, so an
    offline run would call the data set unavailable although it is cached."""

    def __init__(self, fetcher: str, cache_file: str, data_home=None):
        super().__init__(fetcher, cache_file, data_home=data_home)

    def is_cached(self) -> bool:
        return self.cache_path().is_file()

    def ensure_cached(self, name: str = "<dataset>", force: bool = False):
        if force and self.cache_path().is_file():
            self.cache_path().unlink()
        self._call(name)
        return self.cache_path()
