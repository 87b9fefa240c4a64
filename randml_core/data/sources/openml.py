"""OpenML datasets through randml's own checksummed cache (``<cache>/openml/<data_id>.npz``)."""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path

import numpy as np

from ..checks import hash_arrays
from .base import (FIX_CACHE, CorruptCacheError, LoadResult, Prepare, Source, SourceUnavailableError,
                   _atomic_file, _dist_version, _prep_name, check_network, data_cache_root, download_failed, offline_mode,
                   openml_cache_dir)
from .frames import frame_to_arrays


CACHE_FORMAT = "randml-openml-npz/1"

class OpenMLSource(Source):
    """An OpenML dataset, served from our own cache file ``<cache_dir>/<data_id>.npz``.

    ``cache_dir`` defaults to ``openml_cache_dir()`` (``datasets/cache/openml`` under the repo
    root, or ``$RANDML_DATA_CACHE/openml``), resolved at load time.

    Cache format (``CACHE_FORMAT``): an ``.npz`` with arrays ``X`` (float64), ``y`` (numbers or
    unicode strings) and ``meta`` (a 0-d unicode array holding JSON: data_id, name, version,
    target, prepare, downloaded_at (UTC ISO), openml package version, feature names,
    categories, ``sha256`` = :func:`hash_arrays` of X and y). It is read with
    ``allow_pickle=False`` and the checksum is verified on every load.

    ``load()``: cache file present -> read and verify (never touches the network). Absent ->
    if ``RANDML_OFFLINE=1`` raise :class:`SourceUnavailableError` (run ``make data``); else
    ``openml.datasets.get_dataset(data_id, download_data=True)`` + ``get_data(target=...)``,
    apply ``prepare``, encode with :func:`frame_to_arrays` (categoricals ordinal-encoded) and
    write the file atomically (temp file in the same directory + ``os.replace``).
    """

    kind = "openml"
    online = True

    def __init__(self, data_id: int, target: str | None = None, cache_dir=None, prepare: Prepare | None = None,
                 openml_name: str | None = None):
        self.data_id = data_id
        self.target = target
        self.cache_dir = cache_dir
        self.prepare = prepare
        self.openml_name = openml_name

    # -- locations
    def cache_path(self) -> Path:
        base = Path(self.cache_dir) if self.cache_dir is not None else openml_cache_dir()
        return base / f"{int(self.data_id)}.npz"

    def describe(self) -> str:
        nm = f" `{self.openml_name}`" if self.openml_name else ""
        tgt = f", target={self.target!r}" if self.target else ""
        prep = f", prepare={_prep_name(self.prepare)}" if self.prepare else ""
        return f"OpenML {self.data_id}{nm}{tgt}{prep} (online; cache {self.cache_path()})"

    def summary(self) -> str:
        nm = f" `{self.openml_name}`" if self.openml_name else ""
        tgt = f", target={self.target!r}" if self.target else ""
        prep = f", prepare={_prep_name(self.prepare)}" if self.prepare else ""
        return f"OpenML {self.data_id}{nm}{tgt}{prep} (online, cached)"

    def available(self) -> bool:
        return self.cache_path().is_file() or not offline_mode()

    # -- cache
    def read_cache(self, path: Path | None = None) -> tuple[np.ndarray, np.ndarray, dict]:
        path = Path(path) if path is not None else self.cache_path()
        fix = f"fix: delete it (rm '{path}') and re-download with {FIX_CACHE}"
        try:
            # open the file ourselves: np.load leaks its handle when the zip is truncated
            with open(path, "rb") as fh, np.load(fh, allow_pickle=False) as z:
                X = np.ascontiguousarray(z["X"])
                y = np.ascontiguousarray(z["y"])
                meta = json.loads(str(z["meta"][()]))
        except FileNotFoundError:
            raise
        except Exception as exc:  # truncated zip, bad member, bad JSON, ...
            raise CorruptCacheError(
                f"OpenML cache file '{path}' is corrupt or truncated ({type(exc).__name__}: {exc}); {fix}"
            ) from exc
        if not isinstance(meta, dict) or meta.get("format") != CACHE_FORMAT:
            raise CorruptCacheError(f"OpenML cache file '{path}' has no valid {CACHE_FORMAT} metadata; {fix}")
        digest = hash_arrays(X, y)
        if digest != meta.get("sha256"):
            raise CorruptCacheError(
                f"OpenML cache file '{path}' fails its checksum (stored {str(meta.get('sha256'))[:16]}..., "
                f"computed {digest[:16]}...); {fix}"
            )
        if int(meta.get("data_id", -1)) != int(self.data_id):
            raise CorruptCacheError(
                f"OpenML cache file '{path}' holds data id {meta.get('data_id')}, expected {self.data_id}; {fix}"
            )
        if self.target is not None and meta.get("target") != self.target:
            raise CorruptCacheError(
                f"OpenML cache file '{path}' was written with target {meta.get('target')!r}, "
                f"this source uses {self.target!r}; {fix}"
            )
        if meta.get("prepare") != _prep_name(self.prepare):
            raise CorruptCacheError(
                f"OpenML cache file '{path}' was written with prepare={meta.get('prepare')!r}, "
                f"this source uses prepare={_prep_name(self.prepare)!r}; {fix}"
            )
        return X, y, meta

    def _write_cache(self, X: np.ndarray, y: np.ndarray, meta: dict) -> Path:
        path = self.cache_path()
        with _atomic_file(path) as fh:  # umask's permissions: a shared cache stays readable by all
            np.savez_compressed(fh, X=X, y=y, meta=np.array(json.dumps(meta, sort_keys=True)))
        return path

    def download(self, name: str = "<dataset>") -> tuple[np.ndarray, np.ndarray, dict]:
        """Download from OpenML, convert, write the cache file; returns ``(X, y, meta)``."""
        if offline_mode():
            raise SourceUnavailableError(
                f"dataset {name!r} needs a download from OpenML (id {self.data_id}) but RANDML_OFFLINE=1 "
                f"and there is no cache file '{self.cache_path()}'; fix: run {FIX_CACHE} on a machine with "
                "network access, or use an offline source"
            )
        what = f"downloading OpenML dataset {self.data_id}"
        check_network(name, what, "openml.org")
        try:
            import logging

            logging.getLogger("openml.config").setLevel(logging.WARNING)  # "No config file found ..." at import
            import openml

            # the client's own copies (ARFF / parquet) go beside ours, not into ~/.cache/openml
            openml.config.set_root_cache_directory(str(data_cache_root() / "openml-client"))
            ds = openml.datasets.get_dataset(
                self.data_id,
                download_data=True,
                download_qualities=False,
                download_features_meta_data=False,
            )
            target = self.target or ds.default_target_attribute
            features, labels, _, attr_names = ds.get_data(target=target)
        except Exception as exc:
            raise download_failed(name, what, exc, "openml.org") from exc
        if self.prepare is not None:
            features, labels = self.prepare(features, labels)
        X, y, categories = frame_to_arrays(features, labels, name)
        meta = {
            "format": CACHE_FORMAT,
            "data_id": int(self.data_id),
            "name": str(getattr(ds, "name", "")),
            "version": getattr(ds, "version", None),
            "target": target,
            "prepare": _prep_name(self.prepare),
            "downloaded_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
            "openml_package": _dist_version("openml"),
            "feature_names": [str(c) for c in features.columns],
            "categories": categories,
            "n": int(X.shape[0]),
            "d": int(X.shape[1]),
            "sha256": hash_arrays(X, y),
        }
        self._write_cache(X, y, meta)
        return X, y, meta

    def ensure_cached(self, name: str = "<dataset>", force: bool = False) -> Path:
        """Make sure a verified cache file exists (download if absent or ``force``); return its path."""
        path = self.cache_path()
        if path.is_file() and not force:
            self.read_cache(path)
        else:
            self.download(name)
        return path

    def load_detailed(self, name: str = "<dataset>") -> LoadResult:
        path = self.cache_path()
        if path.is_file():
            X, y, meta = self.read_cache(path)
            kind, how = "openml-cache", f"cache {path}"
        else:
            X, y, meta = self.download(name)
            kind, how = "openml-download", f"downloaded to {path}"
        desc = f"OpenML {self.data_id} `{meta.get('name')}` v{meta.get('version')} ({how})"
        notes = (
            f"OpenML {self.data_id} `{meta.get('name')}` version {meta.get('version')}, target "
            f"{meta.get('target')!r}, downloaded {meta.get('downloaded_at')}; categorical features "
            f"ordinal-encoded: {sorted(meta.get('categories', {}))[:10] or 'none'}"
        )
        return LoadResult(X, y, kind, desc, notes=notes)

