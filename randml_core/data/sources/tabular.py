"""Tabular data files on this machine (CSV, Parquet): the source behind a dataset card's
``source: {kind: csv | parquet, path, target, drop, sep}`` (:mod:`randml_core.data.cards`).

The file is read once into memory; its SHA-256 is taken from those bytes and written into the
source description, so every stored row names the exact file its numbers came from. pandas parses
the same bytes (``read_csv`` / ``read_parquet``); the target column becomes ``y``, the dropped columns
go, the rest become ``X`` through :func:`~randml_core.data.sources.frames.frame_to_arrays` (numbers as
float64, text columns ordinal-coded by sorted value), as for every other frame-based source.
"""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

from .base import DataSourceError, LoadResult, Source, SourceUnavailableError
from .frames import frame_to_arrays

FORMATS = ("csv", "parquet")


class TabularFileSource(Source):
    """A CSV or Parquet file with one row per sample and a named target column."""

    kind = "local-file"

    def __init__(self, path, target: str, fmt: str = "csv", drop=(), sep: str = ","):
        if fmt not in FORMATS:
            raise ValueError(f"TabularFileSource: format must be one of {FORMATS}, got {fmt!r}")
        self.path = Path(path)
        self.target = str(target)
        self.fmt = fmt
        self.drop = tuple(str(c) for c in drop)
        self.sep = sep

    # -- reading
    def _frame(self, data: bytes | None = None, header_only: bool = False):
        import pandas as pd

        buf = io.BytesIO(data) if data is not None else self.path
        if self.fmt == "csv":
            return pd.read_csv(buf, sep=self.sep, nrows=0 if header_only else None)
        if header_only:
            import pyarrow.parquet as pq

            return pd.DataFrame(columns=pq.read_schema(buf).names)
        return pd.read_parquet(buf)

    def columns(self) -> list[str]:
        """The file's column names (reads only the header / the Parquet schema)."""
        return [str(c) for c in self._frame(header_only=True).columns]

    def missing_columns(self, columns) -> list[str]:
        """The target and ``drop`` columns that ``columns`` lacks."""
        have = set(map(str, columns))
        return [c for c in (self.target, *self.drop) if c not in have]

    # -- Source
    def describe(self) -> str:
        return f"{self.fmt} file '{self.path}' (local)"

    def summary(self) -> str:
        return f"{self.fmt} file `{self.path.name}`, target `{self.target}`"

    def available(self) -> bool:
        return self.path.is_file()

    def load_detailed(self, name: str = "<dataset>") -> LoadResult:
        if not self.available():
            raise SourceUnavailableError(
                f"dataset {name!r}: the {self.fmt} file '{self.path}' does not exist; fix: put the file there, or "
                "correct `source.path` in the dataset's card (relative paths start at the card's directory)")
        raw = self.path.read_bytes()
        digest = hashlib.sha256(raw).hexdigest()
        try:
            df = self._frame(raw)
        except Exception as exc:  # a parser error: name the file and the format
            raise DataSourceError(f"dataset {name!r}: cannot read '{self.path}' as {self.fmt} "
                                  f"({type(exc).__name__}: {exc}); fix: check the file and `source.sep`") from exc
        df.columns = [str(c) for c in df.columns]
        missing = self.missing_columns(df.columns)
        if missing:
            raise DataSourceError(f"dataset {name!r}: '{self.path}' has no column(s) {missing} (columns: "
                                  f"{', '.join(df.columns)}); fix: correct `source.target` / `source.drop` in the card")
        labels = df[self.target]
        no_label = labels.isna().to_numpy().nonzero()[0]
        if no_label.size:
            raise DataSourceError(
                f"dataset {name!r}: {no_label.size} rows of '{self.path}' have no `{self.target}` value (first data "
                f"rows, 0-based: {no_label[:10].tolist()}); fix: remove those rows from the file (a missing label is "
                "not a class)")
        features = df.drop(columns=[self.target, *self.drop])
        X, y, categories = frame_to_arrays(features, labels, name)
        coded = ", ".join(f"{c} ({len(v)} values)" for c, v in categories.items()) or "none"
        dropped = f"; dropped {list(self.drop)}" if self.drop else ""
        notes = (f"{self.fmt} file {self.path.name} (sha256 {digest}): {len(df)} rows, target column "
                 f"`{self.target}`{dropped}; text columns ordinal-coded by sorted value: {coded}.")
        return LoadResult(X, y, self.kind, f"{self.fmt} file '{self.path}' (sha256 {digest})", notes=notes)
