"""Tabular data files on this machine (CSV, Parquet): the source behind a dataset card's
``source: {kind: csv | parquet, path, target, drop, sep}`` (:mod:`randml_core.data.cards`).

The file is read once into memory; its SHA-256 is taken from those bytes and written into the
source description, so every stored row names the exact file its numbers came from. pandas parses
the same bytes (``read_csv`` / ``read_parquet``); the target column becomes ``y``, the dropped columns
go, the rest become ``X`` through :func:`~randml_core.data.sources.frames.frame_to_arrays` (numbers as
float64, text columns ordinal-coded by sorted value), as for every other frame-based source.
The categorical columns (``categorical``: by name; default the text columns) and the feature names
go to the :class:`~randml_core.data.registry.Dataset` (``feature_info`` after each load): a run encodes
those columns per fold (``experiment.categorical``: one-hot by default). NaN features stay NaN
(``missing: keep``; the run refuses a model that cannot take them) or their rows are dropped
(``missing: drop_rows``).

Size guard: before the file is read, its size in values (rows x columns) is checked against a limit,
so that a small file that expands to a huge table (an 813 KB Parquet file of 30 million rows took
6.5 GB) is refused at ``randml plan`` instead of exhausting memory. Parquet: the row and column counts
of the file's metadata; CSV: the header's columns times the file's lines (counted in a streaming pass,
an upper bound). The limit is :data:`DEFAULT_MAX_VALUES` (50 million values, 400 MB as float64),
``$RANDML_MAX_DATA_VALUES`` to change it for every dataset (``0``: no limit), and a source's own
``max_values`` (``TabularFileSource(..., max_values=...)``) above both for one dataset. A file above
it raises :class:`~.base.DataTooLargeError` (``randml`` exit 2, naming the dataset, the file, its size
and the fix).

Errors: a missing file is :class:`~.base.SourceUnavailableError`; a file that cannot be parsed (e.g. a
ragged CSV, a row with more fields than the header), lacks the target or dropped columns, or has rows
without a label is :class:`~.base.MalformedDataError`: a data error, never "needs download".
"""

from __future__ import annotations

import hashlib
import io
import os
from pathlib import Path

from .base import DataTooLargeError, LoadResult, MalformedDataError, Source, SourceUnavailableError
from .frames import frame_to_arrays

FORMATS = ("csv", "parquet")
#: a card's ``missing``: keep the rows with NaN features (a model must take NaN), or drop them at load
MISSING = ("keep", "drop_rows")
#: the largest table (rows x columns) a card's file may hold unless raised (see the module docstring)
DEFAULT_MAX_VALUES = 50_000_000
MAX_VALUES_ENV = "RANDML_MAX_DATA_VALUES"
#: the most bytes a card's table may take in memory (text included) unless raised; 0: no limit. Values alone do not
#: bound it: a 3 KB Parquet file whose text column repeats a 1 MB string expands to gigabytes
DEFAULT_MAX_BYTES = 2_000_000_000
MAX_BYTES_ENV = "RANDML_MAX_DATA_BYTES"


def _env_limit(name: str, default: int, unit: str, example: str) -> int:
    """A whole-number limit from ``$name`` (``1e8`` as well as ``100000000``; 0: no limit), else ``default``; a value
    that is not one raises ValueError naming the variable and the fix."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not (value >= 0 and value.is_integer()):
        raise ValueError(f"{name}={raw!r} is not a number of {unit}; fix: set it to a whole number such as {example} "
                         f"(0: no limit), or unset it for the default {default:,}")
    return int(value)


def max_bytes() -> int:
    """``$RANDML_MAX_DATA_BYTES`` (0: no limit), else :data:`DEFAULT_MAX_BYTES`."""
    return _env_limit(MAX_BYTES_ENV, DEFAULT_MAX_BYTES, "bytes", "4000000000")


def max_values(override: int | None = None) -> int:
    """The size limit in values: ``override`` if given, else ``$RANDML_MAX_DATA_VALUES``, else
    :data:`DEFAULT_MAX_VALUES`; 0 means no limit."""
    if override is not None:
        return int(override)
    return _env_limit(MAX_VALUES_ENV, DEFAULT_MAX_VALUES, "values", "100000000")


#: separators a CSV header read as one column is searched for (:meth:`TabularFileSource.separator_hint`)
SEPARATORS = (";", "\t", ",", "|")


def yaml_sep(sep: str) -> str:
    """``sep`` as a card writes it: ``';'``, ``"\\t"`` for a tab."""
    return '"\\t"' if sep == "\t" else repr(sep)


def _count_lines(path: Path, chunk: int = 1 << 20) -> int:
    """Lines of a file (a last line without a newline counts), read in chunks: memory stays flat."""
    n, last = 0, b"\n"
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            n += block.count(b"\n")
            last = block[-1:]
    return n + (last != b"\n")


class TabularFileSource(Source):
    """A CSV or Parquet file with one row per sample and a named target column."""

    kind = "local-file"

    def __init__(self, path, target: str, fmt: str = "csv", drop=(), sep: str = ",", max_values: int | None = None,
                 categorical=None, missing: str = "keep"):
        if fmt not in FORMATS:
            raise ValueError(f"TabularFileSource: format must be one of {FORMATS}, got {fmt!r}")
        self.path = Path(path)
        self.target = str(target)
        self.fmt = fmt
        self.drop = tuple(str(c) for c in drop)
        self.sep = sep
        self.max_values = max_values
        #: declared categorical columns (None: the text columns); ``missing``: keep | drop_rows
        self.categorical = None if categorical is None else tuple(str(c) for c in categorical)
        if missing not in MISSING:
            raise ValueError(f"TabularFileSource: missing must be one of {MISSING}, got {missing!r}")
        self.missing = missing
        #: set by each load: (feature names, 0-based categorical columns)
        self.feature_info: tuple[tuple[str, ...], tuple[int, ...]] = ((), ())

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

    def separator_hint(self, columns) -> str | None:
        """The separator a CSV file probably uses when its header, split on ``sep``, is one column holding another
        usual separator (``;``, a tab, ``,``, ``|``): a ``;``-separated file read with the default ``,``; else None."""
        columns = list(columns)
        if self.fmt != "csv" or len(columns) != 1:
            return None
        return next((c for c in SEPARATORS if c != self.sep and c in str(columns[0])), None)

    def separator_problem(self, columns, key: str = "source.sep") -> str | None:
        """``"<problem>; fix: <fix>"`` naming the card key ``key`` when :meth:`separator_hint` finds a separator."""
        sep = self.separator_hint(columns)
        if sep is None:
            return None
        name = {"\t": "tab", ",": "comma", ";": "semicolon", "|": "pipe"}[sep]
        default = "" if self.sep != "," else "; default ','"
        return (f"its header split on {yaml_sep(self.sep)} ({key}{default}) is one column "
                f"{str(list(columns)[0])[:80]!r}, which holds {yaml_sep(sep)}: the file looks {name}-separated; fix: "
                f"add `sep: {yaml_sep(sep)}` to the card's source ({key})")

    def shape(self) -> tuple[int, int]:
        """(rows, columns) without reading the data: the Parquet metadata, or the CSV's header columns
        and line count (an upper bound on its rows: a quoted field may span lines)."""
        if self.fmt == "parquet":
            import pyarrow.parquet as pq

            meta = pq.read_metadata(self.path)
            return int(meta.num_rows), int(meta.num_columns)
        return max(_count_lines(self.path) - 1, 0), len(self.columns())

    def check_size(self, name: str = "<dataset>") -> None:
        """Raise :class:`~.base.DataTooLargeError` if the file holds more values than :func:`max_values`."""
        limit = max_values(self.max_values)
        if not limit:
            return
        try:
            rows, cols = self.shape()
        except Exception as exc:  # unreadable metadata / header: the parser says why below
            raise MalformedDataError(f"dataset {name!r}: cannot read the size of '{self.path}' as {self.fmt} "
                                     f"({type(exc).__name__}: {exc}); fix: check the file") from exc
        if rows * cols > limit:
            raise DataTooLargeError(
                f"dataset {name!r}: '{self.path}' holds {rows:,} rows x {cols} columns = {rows * cols:,} values, "
                f"above the limit of {limit:,} values (about {limit * 8 / 1e9:.1f} GB as float64), so it is not "
                f"loaded; fix: use a sample of the file, or raise the limit if the machine has the memory "
                f"({MAX_VALUES_ENV}={rows * cols} randml ...; 0: no limit)")
        self.check_bytes(name)

    def check_bytes(self, name: str = "<dataset>") -> None:
        """Raise :class:`~.base.DataTooLargeError` if the table takes more than :func:`max_bytes` in memory: a CSV's
        file size bounds it; a Parquet file is streamed in small batches (its text decoded), stopping at the limit."""
        limit = max_bytes()
        if not limit:
            return
        if self.fmt == "parquet":
            import pyarrow.parquet as pq
            total = 0
            for batch in pq.ParquetFile(self.path).iter_batches(batch_size=64):
                total += batch.nbytes
                if total > limit:
                    break
        else:
            total = self.path.stat().st_size
        if total > limit:
            raise DataTooLargeError(
                f"dataset {name!r}: '{self.path}' takes more than {limit:,} bytes in memory (its text decoded), "
                f"above the limit, so it is not loaded; fix: drop the long text columns or use a sample, or raise "
                f"the limit if the machine has the memory ({MAX_BYTES_ENV}=<bytes> randml ...; 0: no limit)")

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
        self.check_size(name)
        raw = self.path.read_bytes()
        digest = hashlib.sha256(raw).hexdigest()
        try:
            df = self._frame(raw)
        except Exception as exc:  # a parser error: name the file and the format
            raise MalformedDataError(f"dataset {name!r}: cannot read '{self.path}' as {self.fmt} "
                                     f"({type(exc).__name__}: {exc}); fix: check the file and `source.sep` (every "
                                     "row needs as many fields as the header)") from exc
        df.columns = [str(c) for c in df.columns]
        missing = self.missing_columns(df.columns)
        if missing and self.separator_hint(df.columns):
            raise MalformedDataError(f"dataset {name!r}: '{self.path}' has no column(s) {missing}: "
                                     f"{self.separator_problem(df.columns)}")
        if missing:
            raise MalformedDataError(f"dataset {name!r}: '{self.path}' has no column(s) {missing} (columns: "
                                     f"{', '.join(df.columns)}); fix: correct `source.target` / `source.drop` in the card")
        labels = df[self.target]
        no_label = labels.isna().to_numpy().nonzero()[0]
        if no_label.size and self.missing != "drop_rows":
            raise MalformedDataError(
                f"dataset {name!r}: {no_label.size} rows of '{self.path}' have no `{self.target}` value (first data "
                f"rows, 0-based: {no_label[:10].tolist()}); fix: write `missing: drop_rows` in the card's source (rows "
                "without a label or with a missing feature are dropped at load), or remove those rows from the file "
                "(a missing label is not a class)")
        features = df.drop(columns=[self.target, *self.drop])
        n_rows, dropped_rows = len(df), ""
        if self.missing == "drop_rows":
            keep = ~features.isna().any(axis=1).to_numpy() & ~labels.isna().to_numpy()
            dropped_rows = (f"; {int((~keep).sum())} rows with a missing feature or label dropped (missing: drop_rows;"
                            f" {no_label.size} without a label)")
            features, labels = features[keep].reset_index(drop=True), labels[keep].reset_index(drop=True)
        X, y, categories = frame_to_arrays(features, labels, name)
        names = tuple(str(c) for c in features.columns)
        declared = self.categorical if self.categorical is not None else tuple(categories)
        unknown = [c for c in declared if c not in names]
        if unknown:
            raise MalformedDataError(f"dataset {name!r}: categorical column(s) {unknown} are not features of "
                                     f"'{self.path}' (features: {', '.join(names)}); fix: correct `source.categorical`")
        self.feature_info = (names, tuple(names.index(c) for c in declared))
        coded = ", ".join(f"{c} ({len(v)} values)" for c, v in categories.items()) or "none"
        dropped = f"; dropped {list(self.drop)}" if self.drop else ""
        cat = f"; categorical columns {list(declared)} (encoded per fold: experiment.categorical)" if declared else ""
        notes = (f"{self.fmt} file {self.path.name} (sha256 {digest}): {n_rows} rows, target column "
                 f"`{self.target}`{dropped}{dropped_rows}; text columns ordinal-coded by sorted value: {coded}{cat}.")
        return LoadResult(X, y, self.kind, f"{self.fmt} file '{self.path}' (sha256 {digest})", notes=notes)
