"""What every source shares: the error types, :class:`LoadResult`, the :class:`Source` contract,
where the download cache lives, and the offline switches (``RANDML_OFFLINE``, :func:`no_downloads`,
``RANDML_SYSTEM_DATA``).

A source has ``kind``, ``describe()`` (for provenance: versions and paths of this machine),
``summary()`` (machine-independent, for the generated dataset cards), ``available()`` and
``load_detailed(name) -> LoadResult``; :meth:`Source.load` returns just ``(X, y)``.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.metadata
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

OFFLINE_KINDS = ("offline-package", "sklearn-bundled", "synthetic", "generated", "offline-debian", "local-file")
ONLINE_KINDS = ("openml-cache", "openml-download", "zenodo-cache", "zenodo-download",
                "sklearn-fetch-cache", "sklearn-fetch-download")
FIX_CACHE = "`make data` (or `randml data fetch <name>`)"
FIX_NETWORK = "fix: check the network connection, or set RANDML_OFFLINE=1 to use offline sources only"

Prepare = Callable[[Any, Any], tuple[Any, Any]]


class DataSourceError(RuntimeError):
    """A source could not deliver its data; the message says why and how to fix it."""


class SourceUnavailableError(DataSourceError):
    """The source cannot be used here (package missing, or a download needed while offline)."""


class CorruptCacheError(DataSourceError):
    """A cache file is unreadable, fails its checksum, or was written for another source."""


class DownloadError(DataSourceError):
    """A download could not be done here (host unreachable, server error): the data is not here, which
    says nothing about the data itself. With :class:`SourceUnavailableError` the only errors a run
    reports as "needs download" (``randml run`` exit 3)."""


class MalformedDataError(DataSourceError):
    """The data was read but is unusable: an unparsable or ragged file, missing labels or columns, a
    file unlike its documented layout. A data error (``randml`` exit 2, naming the dataset, its card and
    the problem), never "needs download"."""


class DataTooLargeError(DataSourceError):
    """A dataset above the size limit, refused before it is loaded (see
    :mod:`randml_core.data.sources.tabular`); a data error like :class:`MalformedDataError`."""


# --------------------------------------------------------------------------- network failures

_UNREACHABLE: dict[str, str] = {}  # host -> why a download of this process could not reach it

# exception classes (by name, so that requests / urllib3 need not be imported) that mean the host
# could not be reached at all, as opposed to an answer from it (an HTTP 404 is not one)
_UNREACHABLE_NAMES = {"gaierror", "NameResolutionError", "NewConnectionError", "ConnectTimeout",
                      "ConnectTimeoutError", "ConnectionError", "ConnectionRefusedError", "TimeoutError",
                      "timeout", "MaxRetryError"}


def _is_unreachable(exc: BaseException) -> bool:
    seen, todo = set(), [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen or not isinstance(e, BaseException):
            continue
        seen.add(id(e))
        if type(e).__name__ == "HTTPError" and getattr(e, "code", None) is not None:
            return False  # the server answered
        if any(c.__name__ in _UNREACHABLE_NAMES for c in type(e).__mro__):
            return True
        todo += [e.__cause__, e.__context__, getattr(e, "reason", None),
                 *[a for a in e.args if isinstance(a, BaseException)]]
    return False


def download_failed(name: str, what: str, exc: BaseException, host: str) -> DownloadError:
    """The error for a failed download from ``host`` (``what``: e.g. "downloading OpenML dataset
    1104"). When the cause is that the host could not be reached, that is remembered for the
    process: its next downloads from the host fail at once (:func:`check_network`) instead of each
    waiting through the client's own retries and timeouts (about 10 s per OpenML set)."""
    if _is_unreachable(exc):
        _UNREACHABLE.setdefault(host, f"{what}: {type(exc).__name__}")
    return DownloadError(f"dataset {name!r}: {what} failed ({type(exc).__name__}: {exc}); {FIX_NETWORK}")


SKLEARN_DOWNLOADS = "scikit-learn's download server"  # its fetchers share one (figshare)


def check_network(name: str, what: str, host: str) -> None:
    """Raise at once, before a download from ``host``, when an earlier download of this process
    could not reach it."""
    if host in _UNREACHABLE:
        raise DownloadError(f"dataset {name!r}: {what} not attempted: an earlier download in this process "
                              f"could not reach {host} ({_UNREACHABLE[host]}); {FIX_NETWORK}")


# --------------------------------------------------------------------------- locations


def repo_root() -> Path:
    """The repository root, found from this file's location (randml_core/data/sources/base.py)."""
    return Path(__file__).resolve().parents[3]


def data_cache_root() -> Path:
    """``$RANDML_DATA_CACHE`` if set, else ``<repo>/datasets/cache`` in a source checkout, else the per-user
    cache (:func:`randml_core.paths.data_cache`); read at call time."""
    from ...paths import data_cache
    return data_cache()


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
    answer on every machine. The test suite sets it (conftest.py); so does the catalogue script."""
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


@functools.cache
def _dist_version(dist: str) -> str:
    """An installed distribution's version ("?" if absent), looked up once per process: each lookup scans the
    installed distributions (about 1 ms), and every dataset load describes its source with it."""
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def _package_dir(module: str) -> Path | None:
    """Directory of an installed package, located without importing it nor any parent package (``find_spec`` of a
    dotted name imports its parents: a card naming ``this.x`` would run ``this``); a subpackage is a folder."""
    top, *rest = str(module).split(".")
    if not top.isidentifier() or not all(part.isidentifier() for part in rest):
        return None
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))).joinpath(*rest)
    return folder if folder.is_dir() else None



def _atomic_file(path: Path):
    """A binary file handle (a context manager); on success the bytes replace ``path`` atomically.

    :func:`randml_core.artefacts.atomic_file`, the package's one atomic writer: a temp in ``path``'s
    directory, fsync, ``os.replace``; created with the umask's permissions (0644 under umask 022), so
    a cache shared through ``RANDML_DATA_CACHE`` is readable by every user. On any error the temp file
    is removed and ``path`` is left as it was (absent or the previous version).
    """
    from ...artefacts import atomic_file

    return atomic_file(path)


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

    def summary(self) -> str:
        """One line naming where the data comes from, the same on every machine (no versions, no paths):
        written into the generated dataset cards (``conf/dataset/*.yaml``)."""
        return f"{type(self).__name__} ({self.kind})"

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self.describe()}>"


def _prep_name(prepare: Prepare | None) -> str | None:
    return None if prepare is None else getattr(prepare, "__name__", repr(prepare))



def _callable_name(fn) -> str:
    """``fn.__name__``, also for a ``functools.partial`` (its function's name)."""
    return getattr(fn, "__name__", None) or getattr(getattr(fn, "func", None), "__name__", None) or repr(fn)
