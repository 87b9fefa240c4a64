"""The result store: a directory of parquet part files, each the rows of some finished tasks, never rewritten.

What it promises (docs/guarantees.md; tests/test_store_faults.py and tests/test_store_trust.py prove each):

- **Atomic parts.** A part is written to a temp file (``.part-….parquet.<kernel>.tmp``) that its writer
  holds locked (``flock``) until it is renamed into place; a killed run leaves a whole part or an
  ignorable temp. Rows are validated before they are written: nothing malformed is stored.
- **Verified reads.** Every part carries a schema version, its column names and a checksum of its rows
  (parquet key/value metadata) and parquet page checksums. Every read hashes the whole file (SHA-256):
  bytes never seen before are checked in full (columns and their types, status values, unique non-empty
  keys, the rows' checksum) and their hash is remembered (``.verified.json``); bytes whose hash is
  remembered are trusted; a part whose bytes changed after they were verified (a flipped bit anywhere,
  footer included) is corrupt. A corrupt part is reported by name, moved to ``quarantine/`` and its cells
  count as missing, so they are recomputed. A part without randml's metadata (written before checksums)
  must have every column the runner has always written.
- **Not corruption.** A part that cannot be read for a reason outside its bytes (permission, too many
  open files after retries, memory, not a regular file) raises :class:`StoreError` naming it; it is never
  moved. A FIFO is never opened for reading in blocking mode.
- **One winner per key.** Every read keeps, per key, the row with status ``ok`` over any other, then the
  latest UTC ``timestamp``, then the part whose content hash sorts last: the same row whatever the
  columns asked, the time zone or the part names.
- **Read-only stores.** Reading never needs write access: on a read-only store a bad part is skipped
  with a warning instead of being moved. :meth:`Store.check_writable` tells a run before any work.
- **Concurrency.** Readers tolerate parts that vanish under them (compaction by another process):
  they list again. Compaction writes the merged part first, removes the old ones after, runs in one
  process at a time (a lock file) and a failure (e.g. a full disk) only logs a warning.
  :meth:`Store.cleanup_temp` removes a temp only if nobody holds its lock (and, for a temp of another
  kernel, only after STALE_TEMP_SECONDS): never by pid, so a writer in another PID namespace is safe.

Written by hand (not a parquet dataset library): the verification, quarantine and the
temp-file protocol are the point of this module and no library offers them.
"""
from __future__ import annotations

import base64
import contextlib
import errno
import fcntl
import hashlib
import json
import logging
import numbers
import os
import secrets
import socket
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

if TYPE_CHECKING:  # pandas is imported where a frame is built: a cached `randml status` needs none (0.3 s)
    import pandas as pd

log = logging.getLogger(__name__)

SCHEMA_VERSION = "1"
_META_SCHEMA, _META_CHECKSUM, _META_COLUMNS = b"randml.schema", b"randml.checksum", b"randml.columns"
#: columns every stored row has, with the Arrow type family they must have
REQUIRED = {"key": "string", "status": "string", "model": "string", "family": "string", "params_json": "string"}
#: columns checked when present
TYPED = {"repeat": "integer", "fold": "integer", "inner_fold": "integer", "converged": "bool",
         "gmean": "floating", "accuracy": "floating", "balanced_accuracy": "floating", "rmse": "floating",
         "mae": "floating", "log_loss": "floating", "fit_seconds": "floating", "predict_seconds": "floating"}
#: columns the runner has written into every row since the first stored part (randml_core/runner.py: the
#: row of run_task, then dataset ... timestamp in run): a part without randml's metadata must have them all
LEGACY_REQUIRED = ("error", "converged", "fit_seconds", "predict_seconds", "dataset", "data_hash", "data_source",
                   "repeat", "fold", "inner_fold", "split_seed", "model_seed", "n_train", "n_test", "timestamp")
#: metric columns the runner writes together (runner.score / _nan_scores): all of a group or none of it
METRIC_GROUPS = (("gmean", "balanced_accuracy", "accuracy"), ("rmse", "mae"))
STATUSES = {"ok", "failed", "skipped"}
#: the order of every frame ``Store.read`` returns (``key`` last: unique, so the order is total). Rows are
#: written in the order tasks finish, which varies with the workers, so without it a mean over folds could
#: differ in its last bit from one run to the next (same numbers, another summation order).
ROW_ORDER = ("dataset", "model", "params_json", "repeat", "fold", "inner_fold", "key")
#: a temp file of another kernel (shared filesystem), whose lock may not reach us, is stale after this
STALE_TEMP_SECONDS = 6 * 3600
_HOST = socket.gethostname().replace("-", "_") or "host"
_MEMO_FORMAT = "sha256/1"
_EMFILE_RETRIES = 5


def _kernel_id() -> str:
    """This kernel's boot id (shared by every PID namespace and container on it): flock is authoritative
    between processes of one kernel. Without /proc, a hash of the host name."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip().replace("-", "")[:16]
    except OSError:
        return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:16]


_KERNEL = _kernel_id()



def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and v != v)


def _kind(v) -> str:
    return "bool" if isinstance(v, (bool, np.bool_)) else "num" if isinstance(v, numbers.Number) else type(v).__name__


def _json_text(v) -> bool:
    try:
        json.loads(v)
    except (TypeError, ValueError):
        return False
    return True


def uniform_params(frame: "pd.DataFrame") -> "pd.DataFrame":
    """``frame`` with each ``p_*`` column parquet can store: a column whose values mix kinds (an SVC's
    ``gamma: scale`` beside another model's ``gamma: 0.1``, in one task's rows or in parts a compaction merges)
    holds JSON text then (``params_json`` always has the values exactly); a value that is JSON text already
    (from an earlier such part) is kept, so the same setting reads the same in every part."""
    mixed = [c for c in frame.columns if c.startswith("p_") and frame[c].dtype == object
             and len({_kind(v) for v in frame[c] if not _missing(v)}) > 1]
    if not mixed:
        return frame
    frame = frame.copy()
    for col in mixed:
        frame[col] = [v if _missing(v) or (isinstance(v, str) and _json_text(v))
                      else json.dumps(v.item() if hasattr(v, "item") else v) for v in frame[col]]
    return frame

def _value_set(wanted) -> pa.Array:
    """``wanted`` keys (a set, list or Arrow string array) as one Arrow string array (a hash set's values)."""
    if isinstance(wanted, pa.ChunkedArray):
        return wanted.combine_chunks()
    return wanted if isinstance(wanted, pa.Array) else pa.array(list(wanted), pa.string())


def key_mask(keys: "pd.Series", wanted) -> np.ndarray:
    """``keys.isin(wanted)`` as a boolean array, by Arrow's hash set: pandas' ``isin`` on Arrow-backed strings (its
    default ``str`` dtype) boxed every wanted key into a scalar first, about 1 s for 100,000 keys."""
    import pyarrow.compute as pc
    mask = pc.is_in(pa.array(keys, type=pa.string(), from_pandas=True), value_set=_value_set(wanted))
    return mask.to_numpy(zero_copy_only=False).astype(bool, copy=False)


class StoreError(RuntimeError):
    """The store cannot be used as asked (not writable, rows that must not be stored, a part that cannot
    be read for a reason that is not its content)."""


class CorruptPartError(ValueError):
    """A part that parses but fails validation."""


def rows_checksum(frame: pd.DataFrame) -> str:
    """SHA-256 over the column names, dtypes and per-row value hashes of ``frame`` (order of rows kept)."""
    return _frame_checksum(frame.columns, lambda col: frame[col])


def table_checksum(table: pa.Table) -> str:
    """:func:`rows_checksum` of ``table.to_pandas()``, one column in pandas at a time (the hash is column by column)."""
    return _frame_checksum(table.column_names, lambda col: table.select([col]).to_pandas()[col])


def _frame_checksum(names, column) -> str:
    """:func:`rows_checksum` of the columns ``names``, each the pandas Series ``column(name)`` gives when asked (a
    frame file is verified reading one column at a time: never its whole rows in memory twice, Arrow and pandas)."""
    import pandas as pd
    h = hashlib.sha256()
    for col in sorted(names):
        values = column(col)
        h.update(f"{col}\x1f{values.dtype}\x1e".encode())
        h.update(pd.util.hash_pandas_object(values, index=False).to_numpy().tobytes())
        del values  # before the next column is made
    return h.hexdigest()


def _type_ok(t: pa.DataType, family: str) -> bool:
    if pa.types.is_null(t):  # an all-null column: fine for a metric (e.g. every cell of a part failed)
        return family == "floating"
    return {"string": pa.types.is_string(t) or pa.types.is_large_string(t),
            "integer": pa.types.is_integer(t), "bool": pa.types.is_boolean(t),
            "floating": pa.types.is_floating(t)}[family]


def validate_schema(schema: pa.Schema, where: str) -> None:
    """Required columns present with the right types (raises CorruptPartError naming ``where``)."""
    names = set(schema.names)
    missing = sorted(set(REQUIRED) - names)
    if missing:
        raise CorruptPartError(f"{where}: missing column(s) {', '.join(missing)}")
    for col, fam in {**REQUIRED, **TYPED}.items():
        if col in names and not _type_ok(schema.field(col).type, fam):
            raise CorruptPartError(f"{where}: column {col!r} has type {schema.field(col).type}, expected {fam}")


def validate_legacy_schema(schema: pa.Schema, where: str) -> None:
    """A part without randml's metadata (no checksum to check): every column the runner has always
    written, and each metric group whole (a part that lost ``gmean`` but kept ``accuracy`` is refused)."""
    names = set(schema.names)
    missing = [c for c in LEGACY_REQUIRED if c not in names]
    groups = [g for g in METRIC_GROUPS if names & set(g)]
    missing += [c for g in groups for c in g if c not in names]
    if not groups:
        missing.append(" or ".join(g[0] for g in METRIC_GROUPS))
    if missing:
        raise CorruptPartError(f"{where}: a part without randml's checksum lacks column(s) {', '.join(missing)} "
                               "that every part the runner writes has; refused, its cells count as missing")


def _validate_metadata(schema: pa.Schema, meta: dict, where: str) -> None:
    """randml's metadata whole and matching the file: schema version, checksum, the column names."""
    version = meta.get(_META_SCHEMA, b"").decode(errors="replace")
    if version != SCHEMA_VERSION:
        found = f"schema version {version!r}" if version else "no schema version in its randml metadata"
        raise CorruptPartError(f"{where}: {found}, this code reads {SCHEMA_VERSION!r}")
    if _META_CHECKSUM not in meta:
        raise CorruptPartError(f"{where}: its randml metadata has no rows checksum")
    if _META_COLUMNS in meta:  # parts written before this key existed rely on the rows checksum (names included)
        try:
            listed = json.loads(meta[_META_COLUMNS])
        except ValueError:
            raise CorruptPartError(f"{where}: its column list (randml metadata) is not readable") from None
        if not isinstance(listed, list) or sorted(map(str, listed)) != sorted(schema.names):
            lost = sorted(set(map(str, listed if isinstance(listed, list) else [])) - set(schema.names))
            raise CorruptPartError(f"{where}: its columns differ from those written"
                                   + (f" (missing {', '.join(lost)})" if lost else ""))


def validate_rows(frame: pd.DataFrame, where: str) -> None:
    """Row-level checks: unique non-empty keys and known statuses."""
    keys = frame["key"]
    if keys.isna().any() or (keys.astype(str) == "").any():
        raise CorruptPartError(f"{where}: empty cell key(s)")
    if not keys.is_unique:
        raise CorruptPartError(f"{where}: duplicated cell key(s) {keys[keys.duplicated()].head(3).tolist()}")
    bad = set(frame["status"].dropna().unique()) - STATUSES
    if bad or frame["status"].isna().any():
        raise CorruptPartError(f"{where}: unknown status value(s) {sorted(map(str, bad)) or ['<missing>']}")


def _open_part(data: bytes, where: str) -> tuple[pq.ParquetFile, bool]:
    """``(parquet file, legacy)`` of a part's bytes, its schema checked: the required columns and types, then
    randml's metadata, or for a legacy part (written before checksums) every column the runner always wrote."""
    pf = pq.ParquetFile(pa.BufferReader(data), page_checksum_verification=True)
    schema = pf.schema_arrow
    validate_schema(schema, where)
    meta = schema.metadata or {}
    legacy = not any(k.startswith(b"randml.") for k in meta)
    if legacy:
        validate_legacy_schema(schema, where)
    else:
        _validate_metadata(schema, meta, where)
    return pf, legacy


def _not_corruption(path: Path, why: str) -> StoreError:
    what = "the store part" if path.name.startswith("part-") else "the file"
    return StoreError(f"cannot read {what} '{path}' ({why}); it is not moved nor trusted: fix the "
                      "cause and run the command again")


def _read_bytes(path: Path) -> bytes:
    """The whole file. Raises FileNotFoundError if it vanished and StoreError for whatever is not its
    content (permission, too many open files after retries, memory, I/O, not a regular file); a FIFO or
    device is opened non-blocking and never read."""
    for attempt in range(_EMFILE_RETRIES):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
            break
        except FileNotFoundError:
            raise
        except OSError as exc:
            if exc.errno in (errno.EMFILE, errno.ENFILE) and attempt < _EMFILE_RETRIES - 1:
                time.sleep(0.05 * 2 ** attempt)  # another thread may close files meanwhile
                continue
            raise _not_corruption(path, exc.strerror or str(exc)) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "a special file"
            raise _not_corruption(path, f"{kind}, not a regular file; remove or rename it")
        with open(fd, "rb", closefd=False) as fh:
            return fh.read()
    except MemoryError:
        raise _not_corruption(path, "out of memory") from None
    except OSError as exc:
        raise _not_corruption(path, exc.strerror or str(exc)) from None
    finally:
        os.close(fd)


def _utc_ns(values: pd.Series) -> np.ndarray:
    """Timestamps as UTC nanoseconds (any ISO offset; unreadable or missing: the oldest)."""
    import pandas as pd
    ts = pd.to_datetime(values, utc=True, errors="coerce", format="ISO8601")
    return ts.dt.tz_localize(None).to_numpy(dtype="datetime64[ns]").view("int64")


def dedupe(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per key, by one rule for every read: a row with status ``ok`` wins over any other (a cell
    recomputed by ``retry_failed`` replaces its failed row whatever the clocks say), then the latest UTC
    ``timestamp``, then the later row in ``frame`` (the caller orders the parts by content hash)."""
    import pandas as pd
    if frame["key"].is_unique:
        return frame
    dup = frame["key"].duplicated(keep=False).to_numpy()
    pos = np.flatnonzero(dup)
    sub = frame.iloc[pos]
    ok = (sub["status"] == "ok").to_numpy()
    ts = _utc_ns(sub["timestamp"]) if "timestamp" in sub.columns else np.zeros(len(sub), dtype="int64")
    order = np.lexsort((np.arange(len(sub)), ts, ok))  # by ok, then time, then position: the winner sorts last
    last = ~pd.Series(sub["key"].to_numpy()[order]).duplicated(keep="last").to_numpy()
    keep = ~dup
    keep[pos[order[last]]] = True
    return frame[keep]


@dataclass
class _Loaded:
    name: str  # the part's file name
    frame: pd.DataFrame
    digest: str  # SHA-256 of the file's bytes
    new: bool  # verified by this read (to remember)
    ordered: bool = False  # its rows are in ROW_ORDER already (a frame whose order was checked when verified)


@contextlib.contextmanager
def _held_temp(directory: Path, stem: str):
    """A new temp file ``<stem>-<token>.<kernel>.tmp`` in ``directory``, exclusively flock-ed by this
    process for the whole block (so :meth:`Store.cleanup_temp` of any process on this kernel, in any PID
    namespace, leaves it alone); removed if the block raises. Yields (path, fd)."""
    for _ in range(10):
        tmp = directory / f"{stem}-{secrets.token_hex(4)}.{_KERNEL}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError as exc:  # a file system without locks: the temp is left to the age rule
            if exc.errno not in (errno.ENOLCK, errno.EOPNOTSUPP, errno.EINVAL, errno.EBADF):
                os.close(fd)
                raise
        with contextlib.suppress(OSError):
            if os.stat(tmp).st_ino == os.fstat(fd).st_ino:
                break
        os.close(fd)  # removed by a cleanup between its creation and our lock: take another name
    else:  # pragma: no cover - ten cleanups in a row between open and flock
        raise StoreError(f"could not create a temp file in '{directory}'")
    try:
        yield tmp, fd
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise
    finally:
        os.close(fd)


class Store:
    def __init__(self, root: str | os.PathLike, experiment: str):
        self.root = Path(root)
        self.experiment = experiment
        self.dir = self.root / experiment
        self._verified: dict[str, str] | None = None  # part name -> SHA-256 of the bytes that were verified
        self._unsaved: dict[str, str] = {}  # parts this object wrote: in the memo on disk at its next read

    def frame_file(self) -> Path | None:
        """The committed result frame under this store (:mod:`randml_core.frames`), or None."""
        return frame_path(self.root, self.experiment)

    def has_rows(self) -> bool:
        """Does the store or its frame hold any part?"""
        return bool(self.parts()) or self.frame_file() is not None

    # -- writing -----------------------------------------------------------------------------
    def check_writable(self) -> None:
        """Raise StoreError, naming the directory and the fix, unless parts can be written here."""
        probe = self.dir / f".probe-{_HOST}-{os.getpid()}-{secrets.token_hex(4)}"
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            probe.write_bytes(b"randml")
            probe.unlink()
        except OSError as exc:
            raise StoreError(f"the store directory '{self.dir}' is not writable ({exc.strerror or exc}); fix: "
                             "make it writable, or pass store_dir=<a writable directory>") from None

    def write(self, rows: "list[dict] | pd.DataFrame") -> Path | None:
        import pandas as pd
        frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(rows)
        if frame.empty:
            return None
        table = pa.Table.from_pandas(uniform_params(frame), preserve_index=False)
        try:  # never store what a reader would refuse
            validate_schema(table.schema, "rows to store")
            as_read = table.to_pandas()
            validate_rows(as_read, "rows to store")
        except CorruptPartError as exc:
            raise StoreError(f"refusing to store malformed rows in '{self.dir}': {exc}") from None
        meta = dict(table.schema.metadata or {})
        meta.update({_META_SCHEMA: SCHEMA_VERSION.encode(), _META_CHECKSUM: rows_checksum(as_read).encode(),
                     _META_COLUMNS: json.dumps(table.schema.names).encode()})
        table = table.replace_schema_metadata(meta)
        self.dir.mkdir(parents=True, exist_ok=True)
        name = f"part-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{_HOST}-{os.getpid()}-{secrets.token_hex(4)}.parquet"
        final = self.dir / name
        with _held_temp(self.dir, f".{name}") as (tmp, fd):
            sink = pa.BufferOutputStream()  # in memory first: the bytes are hashed for the memo, never read back
            pq.write_table(table, sink, write_page_checksum=True)
            data = sink.getvalue().to_pybytes()
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
            os.replace(tmp, final)
        # these bytes hold the rows just validated and checksummed: a later read of this store object (the run's
        # compaction) trusts them while their hash holds, as it trusts parts it verified itself; another process
        # verifies them once, as before. The memo on disk is not rewritten per part (it grows with the store).
        self._memo()[name] = self._unsaved[name] = hashlib.sha256(data).hexdigest()
        return final

    # -- reading -----------------------------------------------------------------------------
    def parts(self) -> list[Path]:
        """The part files, by name. A directory that cannot be listed (permission, too many open files
        after retries) raises StoreError: it is never read as an empty store (glob would say nothing)."""
        for attempt in range(_EMFILE_RETRIES):
            try:
                names = os.listdir(self.dir)
                break
            except FileNotFoundError:
                return []
            except OSError as exc:
                if exc.errno in (errno.EMFILE, errno.ENFILE) and attempt < _EMFILE_RETRIES - 1:
                    time.sleep(0.05 * 2 ** attempt)
                    continue
                raise StoreError(f"cannot list the store directory '{self.dir}' ({exc.strerror or exc}); "
                                 "fix the cause and run the command again") from None
        return sorted(self.dir / n for n in names if n.startswith("part-") and n.endswith(".parquet"))

    def _memo_on_disk(self) -> dict[str, str]:
        """``.verified.json`` if it is whole (its own checksum holds) and of this format, else {}."""
        try:  # a FIFO: StoreError naming it, no hang
            return {str(k): str(v) for k, v in _read_memo(self.dir / ".verified.json", "parts", _MEMO_FORMAT).items()}
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return {}

    def _memo(self) -> dict[str, str]:
        if self._verified is None:
            self._verified = self._memo_on_disk()
        return self._verified

    def _remember(self, verified: dict[str, str]) -> None:
        """Add ``{part name: content hash}`` (and the parts this object wrote) to the memo, merged with what other
        processes wrote."""
        verified = {**self._unsaved, **verified}
        self._unsaved = {}
        if not verified:
            return
        memo = self._memo()
        memo.update(verified)
        live = {p.name for p in self.parts()}
        parts = {k: v for k, v in {**self._memo_on_disk(), **memo}.items() if k in live}
        # a cache only: a read-only store or a full disk just verify again next time
        _write_memo(self.dir, ".verified.json", "parts", _MEMO_FORMAT, parts, sort_keys=True)

    def _load(self, path: Path, columns: list[str] | None) -> _Loaded:
        """One part, verified: every byte hashed; bytes not seen before checked in full."""
        where = str(path)
        data = _read_bytes(path)
        digest = hashlib.sha256(data).hexdigest()
        seen = self._memo().get(path.name)
        if seen is not None and seen != digest:
            raise CorruptPartError(f"{where}: its bytes changed after they were verified (sha256 {seen[:12]}… "
                                   f"then, {digest[:12]}… now); a part is never rewritten")
        verified = seen == digest
        pf, legacy = _open_part(data, where)
        schema, meta = pf.schema_arrow, pf.schema_arrow.metadata or {}
        full = columns is None or (not verified and not legacy)  # the rows checksum needs every column
        want = None if full else sorted({*columns, "key", "status", "timestamp"} & set(schema.names))
        frame = pf.read(columns=want).to_pandas()
        validate_rows(frame, where)
        if not verified and not legacy and rows_checksum(frame) != meta[_META_CHECKSUM].decode(errors="replace"):
            raise CorruptPartError(f"{where}: the rows do not match the checksum written with them")
        if columns is not None and want is None:  # read whole for the checksum: keep what the caller needs
            frame = frame[[c for c in frame.columns if c in {*columns, "key", "status", "timestamp"}]]
        return _Loaded(path.name, frame, digest, not verified)

    def read_part(self, path: Path, columns: list[str] | None = None) -> pd.DataFrame:
        """One validated part (raises FileNotFoundError if it vanished, StoreError if it cannot be read for
        a reason that is not its content, anything else if it is bad)."""
        try:
            got = self._load(path, columns)
        except MemoryError:
            raise _not_corruption(path, "out of memory") from None
        if got.new:
            self._remember({path.name: got.digest})
        return got.frame if columns is None else got.frame[[c for c in columns if c in got.frame.columns]]

    def _quarantine(self, path: Path, exc: Exception) -> None:
        why = f"{type(exc).__name__}: {exc}"
        qdir = self.dir / "quarantine"
        try:
            qdir.mkdir(exist_ok=True)
            os.replace(path, qdir / path.name)
        except FileNotFoundError:
            return  # gone meanwhile (compacted by another process): nothing to quarantine
        except OSError as move_exc:
            log.warning("store: %s is unreadable (%s); the store is not writable (%s), so it is skipped, "
                        "not moved: its cells count as missing", path, why, move_exc.strerror or move_exc)
            return
        log.warning("store: %s is unreadable (%s); moved to %s, its cells will be recomputed", path, why, qdir)

    def _load_all(self, columns: list[str] | None, with_frame: bool = True, keys=None) -> list[_Loaded]:
        loaded = self._load_parts(columns)
        wanted = None if keys is None else _value_set(keys)
        if wanted is not None:  # every part is verified whole (above); only its rows of the wanted keys are kept
            for got in loaded:
                got.frame = got.frame[key_mask(got.frame["key"], wanted)].reset_index(drop=True)
        frame_file = self.frame_file() if with_frame else None
        if frame_file is not None:  # the read-only layer: its rows of keys no part holds
            # the wanted rows selected in Arrow, before pandas (its take on Arrow-backed strings cost more than the read)
            table, digest = read_table(frame_file, columns if columns is None else
                                       sorted({*columns, "key", "status", "timestamp"}), wanted,
                                       remember=isinstance(keys, pa.Array))  # the caller's own array: kept
            frame = table.to_pandas()
            if loaded:
                held = set().union(*(set(got.frame["key"]) for got in loaded))
                frame = frame[~key_mask(frame["key"], held)]
            loaded.append(_Loaded(f"frame:{frame_file.name}", frame, digest, False,
                                  ordered=_ORDERED.get(str(frame_file)) == digest))
        return loaded

    def _load_parts(self, columns: list[str] | None) -> list[_Loaded]:
        for _ in range(20):
            loaded, vanished = [], False
            for path in self.parts():
                try:
                    loaded.append(self._load(path, columns))
                except FileNotFoundError:
                    if os.path.islink(path):  # a dangling link never comes back: name it (not "kept vanishing")
                        raise StoreError(f"the store part '{path}' is a symbolic link to a file that does not exist "
                                         f"({os.readlink(path)}); fix: remove the link or restore its target") from None
                    vanished = True  # removed by a compaction after we listed it: list again
                    break
                except StoreError:
                    raise  # not the part's content: never quarantined
                except MemoryError:
                    raise _not_corruption(path, "out of memory") from None
                except Exception as exc:  # truncated, corrupt, wrong schema, checksum mismatch, changed bytes
                    if not path.exists():
                        vanished = True
                        break
                    self._quarantine(path, exc)
            if not vanished:
                self._remember({got.name: got.digest for got in loaded if got.new})  # and the parts written here
                return loaded
        raise StoreError(f"parts of '{self.dir}' kept vanishing while reading; try again")  # pragma: no cover

    def read(self, columns: list[str] | None = None, ordered: bool = True, with_frame: bool = True,
             keys=None) -> pd.DataFrame:
        """The union of the valid parts, one row per key (:func:`dedupe`: ``ok`` first, then the latest
        UTC timestamp), in :data:`ROW_ORDER`: the same frame whatever order the parts were written in and
        whatever columns are asked. ``ordered=False`` skips that sort, for callers that only look rows up
        by key (the run's "what is stored" check, status counts). The committed frame's rows of keys that no
        part holds are included unless ``with_frame=False`` (:mod:`randml_core.frames`). ``keys`` (a set or an Arrow
        string array): only the rows of those keys, as ``read()`` filtered on them would give (each part still
        verified whole; the frame's rows selected before they become pandas)."""
        import pandas as pd
        loaded = self._load_all(columns, with_frame, keys)
        if not loaded:
            return pd.DataFrame(columns=columns or ["key"])
        loaded.sort(key=lambda got: got.digest)  # ties of the dedupe rule: by content, never by name
        frames = [got.frame for got in loaded]
        # keys are unique within a part (validated): only several parts can hold a key twice
        df = dedupe(pd.concat(frames, ignore_index=True)) if len(frames) > 1 else frames[0]
        order = [c for c in ROW_ORDER if c in df.columns]
        if ordered and not (len(loaded) == 1 and loaded[0].ordered and len(order) == len(ROW_ORDER)):
            df = df.sort_values(order, kind="stable")  # (a frame alone, checked in ROW_ORDER: sorted already)
        if columns is not None:
            df = df[[c for c in columns if c in df.columns]]
        return df.reset_index(drop=True)

    def keys(self) -> set[str]:
        return set(self.read_columns(["key"])["key"])

    def read_columns(self, columns: list[str]) -> dict[str, list]:
        """``read(columns, ordered=False)`` as ``{column: values}`` (a column no part has is left out; a missing
        value is None or NaN), for the callers that look rows up by key (``randml run``'s stored check, plan,
        status). Without pandas when every part's bytes are the ones verified before (the memo: schema,
        metadata and page checksums are still checked) and no key is in two parts; otherwise it is
        :meth:`read` itself, with its full checks, quarantine and :func:`dedupe` rule."""
        columns = list(dict.fromkeys(columns))  # a column named twice is read once
        try:
            got = self._trusted_columns(columns)
        except Exception:  # noqa: BLE001 - anything unusual: the full read decides (and reports) it
            got = None
        if got is None:
            frame = self.read(columns=columns, ordered=False)
            got = {c: frame[c].tolist() for c in frame.columns}
        return got

    def _trusted_columns(self, columns: list[str]) -> dict[str, list] | None:
        """:meth:`read_columns` of a store whose parts were all verified before, else None."""
        memo, tables = self._memo(), []
        for path in self.parts():
            data = _read_bytes(path)
            digest = hashlib.sha256(data).hexdigest()
            if memo.get(path.name) != digest:
                return None  # new or changed bytes: verified (or quarantined) by the full read
            pf, _ = _open_part(data, str(path))
            names = pf.schema_arrow.names
            tables.append((digest, pf.read(columns=[c for c in dict.fromkeys(["key", *columns]) if c in names])))
        tables = [t for _, t in sorted(tables, key=lambda dt: dt[0])]  # the full read's order: parts by content hash
        frame_file = self.frame_file()
        if frame_file is not None:
            import pyarrow.compute as pc
            table, _ = read_table(frame_file, sorted({*columns, "key"}))
            if tables:
                held = pa.chunked_array([k for t in tables for k in t.column("key").chunks], type=pa.string())
                table = table.filter(pc.invert(pc.is_in(table.column("key"), value_set=held.combine_chunks())))
            tables.append(table)
        self._remember({})  # the parts this object wrote, if any
        n = sum(t.num_rows for t in tables)
        out = {c: [v for t in tables for v in (t.column(c).to_pylist() if c in t.column_names else [None] * t.num_rows)]
               for c in dict.fromkeys(["key", *columns]) if any(c in t.column_names for t in tables)}
        keys = out.get("key", [])
        if len(set(keys)) != n:
            return None  # a key in two parts: the dedupe rule of the full read
        return {c: out[c] for c in columns if c in out} if tables else {c: [] for c in columns}

    def digests(self) -> dict[str, str]:
        """``{part name: SHA-256 of its bytes}`` of the parts listed now (one that vanished meanwhile is left out):
        what the parts hold, for a fingerprint of the rows without reading them (``randml report``)."""
        out = {}
        for path in self.parts():
            try:
                out[path.name] = hashlib.sha256(_read_bytes(path)).hexdigest()
            except FileNotFoundError:
                continue
        frame_file = self.frame_file()
        if frame_file is not None:
            out[f"frame:{frame_file.name}"] = hashlib.sha256(_read_bytes(frame_file)).hexdigest()
        return out

    # -- maintenance -------------------------------------------------------------------------
    def cleanup_temp(self) -> int:
        """Remove temp files whose writer is gone: nobody holds the temp's lock and it was made on this
        kernel (any PID namespace), or it is older than STALE_TEMP_SECONDS and nobody holds its lock
        (another kernel's, whose lock may not reach us, or an older version's). Returns how many."""
        return sum(_remove_if_abandoned(tmp) for tmp in (self.dir.glob(".*.tmp") if self.dir.exists() else []))

    @contextlib.contextmanager
    def _compaction_lock(self):
        fh = open(self.dir / ".compact.lock", "a")
        try:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno in (errno.EAGAIN, errno.EACCES):
                    yield False
                    return
                raise
            yield True
        finally:
            fh.close()

    def compact(self) -> Path | None:
        """Merge all parts into one: the merged part is written (atomically) first, the old parts are
        removed after. One compaction at a time (others return None); a failure (full disk, read-only)
        is logged and leaves every part as it was."""
        try:
            with self._compaction_lock() as mine:
                if not mine:
                    return None
                old = self.parts()
                if len(old) < 2:
                    return None
                merged = self.write(self.read(with_frame=False))  # a frame's rows stay in the frame
                for p in old:
                    p.unlink(missing_ok=True)
                return merged
        except OSError as exc:
            log.warning("store: compaction of %s failed (%s); the parts are kept as they are", self.dir,
                        exc.strerror or exc)
            return None


def store_of(spec, root: str | os.PathLike) -> Store:
    """The store of an experiment spec under a store root: ``<root>/<spec.store>`` (experiments that share cells
    name one store). The one place the engine opens an experiment's store."""
    return Store(root, spec.store)


def _read_memo(path: Path, field: str, fmt: str) -> dict:
    """The entries ``field`` of the JSON memo ``path`` (``.verified.json``, ``frames-verified.json``) when it is of
    format ``fmt`` and whole (its own checksum holds), else {}; a missing or malformed file raises (the caller's
    choice: a memo is a cache, so a failure means verifying again)."""
    data = json.loads(_read_bytes(path))
    entries = data[field]
    return entries if data["format"] == fmt and data["check"] == _memo_check(entries) else {}


def _write_memo(folder: Path, name: str, field: str, fmt: str, entries: dict, sort_keys: bool = False) -> None:
    """Write the JSON memo ``folder/name`` (read back by :func:`_read_memo`) through a held temp and a rename; a cache
    only, so a folder that cannot be written (read-only, full) is left as it is."""
    data = json.dumps({"format": fmt, field: entries, "check": _memo_check(entries)}, sort_keys=sort_keys)
    try:
        with _held_temp(folder, f".{name.lstrip('.')}.{_HOST}") as (tmp, fd):
            os.write(fd, data.encode())
            os.replace(tmp, folder / name)
    except OSError:
        pass


def _memo_check(parts: dict) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def _remove_if_abandoned(tmp: Path) -> bool:
    """Remove ``tmp`` if its writer is gone (see :meth:`Store.cleanup_temp`); a FIFO, a symlink or a
    file that cannot be opened is left alone."""
    try:
        try:
            fd = os.open(tmp, os.O_RDWR | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
        except PermissionError:
            fd = os.open(tmp, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            lockable = True
        except OSError as exc:
            if exc.errno in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES):
                return False  # held: its writer runs (in whatever PID namespace)
            lockable = False  # no locks here: only the age rule can tell
        same_kernel = tmp.name[:-len(".tmp")].rsplit(".", 1)[-1] == _KERNEL
        stale = time.time() - st.st_mtime > STALE_TEMP_SECONDS
        if not ((lockable and same_kernel) or stale):
            return False
        with contextlib.suppress(OSError):
            if os.stat(tmp, follow_symlinks=False).st_ino == st.st_ino:  # still the file we locked
                os.unlink(tmp)
                return True
        return False
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- the committed frame under a store
# (read here, so the store needs no other module; written by randml_core.frames)

FRAMES_ENV = "RANDML_FRAMES"
FRAME_FORMAT = "randml-frame/1"
_VERIFIED: dict[str, str] = {}  # frame path -> the digest this process verified
_ORDERED: dict[str, str] = {}  # frame path -> the digest whose rows were found in ROW_ORDER when verified
_FRAMES_MEMO = "frames-verified.json"  # in the checks cache: frame contents an earlier process verified
_FRAMES_MEMO_FORMAT, _FRAMES_MEMO_SIZE = "randml-frames-verified/1", 64
_FRAME_FORMAT, _FRAME_SCHEMA = b"randml.frame", b"randml.frame.schema"
_FRAME_CONSTANTS, _FRAME_CHECKSUM = b"randml.frame.constants", b"randml.frame.checksum"
_FRAME_PROVENANCE = b"randml.frame.provenance"


class FrameError(StoreError):
    """A frame file that is not what :func:`write_frame` wrote (or cannot be read): never read as valid."""


def frames_dir(store_root) -> Path | None:
    """The frames folder under a store root: ``$RANDML_FRAMES`` if set (empty: no frames layer), else the
    ``frames/`` beside a store root named ``store`` (``results/store`` -> ``results/frames``), else None."""
    env = os.environ.get(FRAMES_ENV)
    if env is not None:
        return Path(env).absolute() if env else None
    root = Path(store_root)
    return root.parent / "frames" if root.name == "store" else None


def frame_path(store_root, store_name: str) -> Path | None:
    """``<frames dir>/<store_name>.parquet`` if it exists (a dangling link or non-file is an error), else None."""
    d = frames_dir(store_root)
    if d is None:
        return None
    p = d / f"{store_name}.parquet"
    if os.path.lexists(p) and not p.exists():
        raise FrameError(f"the frame '{p}' is a dangling link; fix: remove it or restore its target")
    return p if p.exists() else None


def _restore(slim: pa.Table, schema: pa.Schema, constants: dict) -> pa.Table:
    """The full table: the folded constant columns put back with their types, in the original order."""
    cols = []
    for field in schema:
        if field.name in constants:  # pa.repeat: one C++ fill, not a Python list of n values
            value = constants[field.name]
            cols.append(pa.nulls(slim.num_rows, type=field.type) if value is None else
                        pa.repeat(pa.scalar(value, type=field.type), slim.num_rows))
        elif field.name in slim.column_names:
            cols.append(slim.column(field.name))
        else:
            raise FrameError(f"a frame lacks column {field.name!r} of its schema")
    return pa.Table.from_arrays(cols, schema=schema)


def _parse(data: bytes, where: str):
    """(ParquetFile, full schema, constants, meta) of a frame's bytes; FrameError when it is not a frame."""
    try:
        pf = pq.ParquetFile(pa.BufferReader(data), page_checksum_verification=True)
        meta = pf.schema_arrow.metadata or {}
        if meta.get(_FRAME_FORMAT, b"").decode(errors="replace") != FRAME_FORMAT:
            raise FrameError(f"{where}: not a randml frame of format {FRAME_FORMAT} (written by `randml export`)")
        schema = pa.ipc.read_schema(pa.py_buffer(base64.b64decode(meta[_FRAME_SCHEMA])))
        constants = json.loads(meta[_FRAME_CONSTANTS])
    except FrameError:
        raise
    except Exception as exc:  # noqa: BLE001 - truncated, bad footer, bad metadata: not a frame
        raise FrameError(f"{where}: unreadable as a randml frame ({type(exc).__name__}: {exc})") from None
    return pf, schema, constants, meta


def _in_row_order(frame: pd.DataFrame) -> bool:
    """Whether ``frame``'s rows are in :data:`ROW_ORDER` already (a stable sort would keep them where they are), by
    comparing neighbours column after column (vectorised: a tenth of the sort's time); a column with a missing
    value or values that do not compare is decided by the sort itself."""
    if not all(c in frame.columns for c in ROW_ORDER):
        return False
    if len(frame) < 2:
        return True
    try:
        open_ = np.ones(len(frame) - 1, dtype=bool)  # pairs not yet ordered by an earlier column
        for col in ROW_ORDER:
            values = frame[col]
            if values.isna().any():
                raise TypeError("missing values")
            a = values.to_numpy()
            if (open_ & (a[:-1] > a[1:])).any():
                return False
            open_ &= ~(a[:-1] < a[1:])
            if not open_.any():
                break
        return True
    except TypeError:
        return frame.sort_values(list(ROW_ORDER), kind="stable").index.equals(frame.index)


_MASKS: dict = {}  # (frame digest, id(keys)) -> (keys, mask or None): one key set's rows in one frame (the last 8)


def _key_rows(table: pa.Table, digest: str, keys: pa.Array, remember: bool):
    """The boolean mask of ``table``'s rows (a frame of content ``digest``) whose key is in ``keys``, None when that
    is every row (a committed frame of the current config: nothing to filter, no copy); with ``remember`` (an array
    the caller keeps: the plan memo hands the same one to every reader of one config) remembered per frame content
    and array object, the array held with it so that its id is not reused."""
    import pyarrow.compute as pc
    hit = _MASKS.get((digest, id(keys)))
    if hit is not None and hit[0] is keys and hit[2] == table.num_rows:
        return hit[1]
    mask = pc.is_in(table.column("key"), value_set=keys)
    if pc.all(mask).as_py() is not False:  # every row (True), or no row at all (None): nothing to drop
        mask = None
    if not remember:
        return mask
    while len(_MASKS) >= 8:
        del _MASKS[next(iter(_MASKS))]
    _MASKS[(digest, id(keys))] = (keys, mask, table.num_rows)
    return mask


def _frames_memo() -> dict[str, bool]:
    """``{sha256 of a frame file's bytes: its rows are in ROW_ORDER}`` of the frame contents an earlier process verified
    in full (``<checks cache>/frames-verified.json``, :func:`randml_core.paths.checks_cache`); {} when it is missing,
    unreadable or not whole (its own checksum fails)."""
    from .paths import checks_cache
    try:
        return {str(k): bool(v) for k, v in _read_memo(checks_cache() / _FRAMES_MEMO, "frames",
                                                       _FRAMES_MEMO_FORMAT).items()}
    except (OSError, ValueError, TypeError, KeyError, AttributeError, StoreError):
        return {}


def _remember_frame(digest: str, ordered: bool) -> None:
    """Add a fully verified frame content to :func:`_frames_memo` (the last 64 kept); a cache only: a read-only or full
    cache folder just verifies again next time."""
    from .paths import checks_cache
    frames = {k: v for k, v in _frames_memo().items() if k != digest}
    frames = dict(list(frames.items())[-(_FRAMES_MEMO_SIZE - 1):]) | {digest: ordered}  # in the order remembered
    folder = checks_cache()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return
    _write_memo(folder, _FRAMES_MEMO, "frames", _FRAMES_MEMO_FORMAT, frames)


def read_table(path: Path, columns: list[str] | None = None, keys: pa.Array | None = None,
               remember: bool = False, reverify: bool = False) -> tuple[pa.Table, str]:
    """``(table, sha256 of the file)``: the frame's rows (``columns`` only, plus ``key``; ``keys``: only the rows of
    those keys, selected before the folded constant columns are put back; ``remember``: the selection is remembered
    for this array object, :func:`_key_rows`), its checksum verified once per file content (pandas is imported for
    that check only): in this process, or in an earlier one (:func:`_frames_memo`, keyed by the SHA-256 of the
    file's bytes, which every call computes; ``reverify``: check the rows again whatever the memos say)."""
    def pick(read) -> pa.Table:
        t = read()  # made here: once its columns are taken, nothing else holds the unfiltered table
        mask = None if keys is None else _key_rows(t, digest, keys, remember)
        if mask is None:
            return t
        schema_t, cols = t.schema, t.columns
        del t  # column by column: each unfiltered column is freed as its filtered copy is made
        for i in range(len(cols)):
            cols[i] = cols[i].filter(mask)
        return pa.Table.from_arrays(cols, schema=schema_t)

    def columns_of(names: list[str], select=lambda read: read()) -> pa.Table:
        """The frame's columns ``names`` (the stored ones read, the folded constants put back), rows ``select``-ed
        before the constants are filled (``select`` gets the read to make, so that no caller holds its table)."""
        return _restore(select(lambda: pf.read(columns=[c for c in names if c not in constants])),
                        pa.schema([schema.field(c) for c in names]), {c: v for c, v in constants.items() if c in names})
    where = str(path)
    data = _read_bytes(Path(path))
    digest = hashlib.sha256(data).hexdigest()
    pf, schema, constants, meta = _parse(data, where)
    if reverify or _VERIFIED.get(str(path)) != digest:
        ordered = None if reverify else _frames_memo().get(digest)  # verified by an earlier process: its order
        if ordered is None:
            # column by column (the checksum is): never the whole frame in memory twice, as Arrow and as pandas
            if _frame_checksum(schema.names, lambda col: columns_of([col]).to_pandas()[col]) \
                    != meta[_FRAME_CHECKSUM].decode(errors="replace"):
                raise FrameError(f"{where}: its rows do not match the checksum written with them; fix: restore it "
                                 "(`git checkout -- <file>`) or export it again from a complete store")
            ordered = _in_row_order(columns_of([c for c in ROW_ORDER if c in schema.names]).to_pandas())
            _remember_frame(digest, ordered)
        _VERIFIED[str(path)] = digest
        if ordered:
            _ORDERED[str(path)] = digest  # Store.read need not sort its rows again (export wrote them sorted)
        else:
            _ORDERED.pop(str(path), None)
    want = schema.names if columns is None else [c for c in dict.fromkeys(["key", *columns]) if c in schema.names]
    return columns_of(want, pick), digest
