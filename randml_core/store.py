"""The result store: a directory of parquet part files, one per finished task, never rewritten.

What it promises (README "Guarantees"; tests/test_store_faults.py proves each):

- **Atomic parts.** A part is written to a temp file (``.part-….parquet.tmp``, named with host, pid
  and a random token) and renamed into place; a killed run leaves a whole part or an ignorable temp.
  Rows are validated before they are written: nothing malformed is stored.
- **Verified reads.** Every part carries a schema version and a checksum of its rows (parquet key/value
  metadata) and parquet page checksums. A part is checked on read (required columns and their
  types, status values, unique non-empty keys, the rows' checksum); one that fails is reported by name,
  moved to ``quarantine/`` and its cells count as missing, so they are recomputed. The full checksum
  is verified once per part and remembered by file identity (``.verified.json``); later reads of that
  part still verify the pages they read. Parts written before checksums existed are schema-checked.
- **Read-only stores.** Reading never needs write access: on a read-only store a bad part is skipped
  with a warning instead of being moved. :meth:`Store.check_writable` tells a run before any work.
- **Concurrency.** Readers tolerate parts that vanish under them (compaction by another process):
  they list again. Compaction writes the merged part first, removes the old ones after, runs in one
  process at a time (a lock file) and a failure (e.g. a full disk) only logs a warning.
  :meth:`Store.cleanup_temp` removes only temps whose writer is gone.

Written by hand (not a parquet dataset library): the verification, quarantine and the
temp-file protocol are the point of this module and no library offers them.
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import logging
import os
import secrets
import socket
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from ._watchdog import pid_alive

log = logging.getLogger(__name__)

SCHEMA_VERSION = "1"
_META_SCHEMA, _META_CHECKSUM = b"randml.schema", b"randml.checksum"
#: columns every stored row has, with the Arrow type family they must have
REQUIRED = {"key": "string", "status": "string", "model": "string", "family": "string", "params_json": "string"}
#: columns checked when present
TYPED = {"repeat": "integer", "fold": "integer", "inner_fold": "integer", "converged": "bool",
         "gmean": "floating", "accuracy": "floating", "balanced_accuracy": "floating", "rmse": "floating",
         "mae": "floating", "log_loss": "floating", "fit_seconds": "floating", "predict_seconds": "floating"}
STATUSES = {"ok", "failed", "skipped"}
#: the order of every frame ``Store.read`` returns (``key`` last: unique, so the order is total). Rows are
#: written in the order tasks finish, which varies with the workers, so without it a mean over folds could
#: differ in its last bit from one run to the next (same numbers, another summation order).
ROW_ORDER = ("dataset", "model", "params_json", "repeat", "fold", "inner_fold", "key")
#: a temp file of another host (shared filesystem), whose writer cannot be asked, is stale after this
STALE_TEMP_SECONDS = 6 * 3600
_HOST = socket.gethostname().replace("-", "_") or "host"


class StoreError(RuntimeError):
    """The store cannot be used as asked (not writable, rows that must not be stored)."""


class CorruptPartError(ValueError):
    """A part that parses but fails validation."""


def rows_checksum(frame: pd.DataFrame) -> str:
    """SHA-256 over the column names, dtypes and per-row value hashes of ``frame`` (order of rows kept)."""
    h = hashlib.sha256()
    for col in sorted(frame.columns):
        h.update(f"{col}\x1f{frame[col].dtype}\x1e".encode())
        h.update(pd.util.hash_pandas_object(frame[col], index=False).to_numpy().tobytes())
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


def validate_rows(frame: pd.DataFrame, where: str) -> None:
    """Row-level checks: unique non-empty keys and known statuses."""
    keys = frame["key"]
    if keys.isna().any() or (keys.astype(str) == "").any():
        raise CorruptPartError(f"{where}: empty cell key(s)")
    if keys.duplicated().any():
        raise CorruptPartError(f"{where}: duplicated cell key(s) {keys[keys.duplicated()].head(3).tolist()}")
    bad = set(frame["status"].dropna().unique()) - STATUSES
    if bad or frame["status"].isna().any():
        raise CorruptPartError(f"{where}: unknown status value(s) {sorted(map(str, bad)) or ['<missing>']}")


def _file_id(path: Path) -> str:
    st = path.stat()
    return f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}"




class Store:
    def __init__(self, root: str | os.PathLike, experiment: str):
        self.root = Path(root)
        self.experiment = experiment
        self.dir = self.root / experiment
        self._verified: dict[str, str] | None = None  # part name -> file identity whose checksum held

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
        frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(rows)
        if frame.empty:
            return None
        table = pa.Table.from_pandas(frame, preserve_index=False)
        try:  # never store what a reader would refuse
            validate_schema(table.schema, "rows to store")
            as_read = table.to_pandas()
            validate_rows(as_read, "rows to store")
        except CorruptPartError as exc:
            raise StoreError(f"refusing to store malformed rows in '{self.dir}': {exc}") from None
        meta = dict(table.schema.metadata or {})
        meta.update({_META_SCHEMA: SCHEMA_VERSION.encode(), _META_CHECKSUM: rows_checksum(as_read).encode()})
        table = table.replace_schema_metadata(meta)
        self.dir.mkdir(parents=True, exist_ok=True)
        name = f"part-{time.strftime('%Y%m%dT%H%M%S')}-{_HOST}-{os.getpid()}-{secrets.token_hex(4)}.parquet"
        final, tmp = self.dir / name, self.dir / f".{name}.tmp"
        try:
            pq.write_table(table, tmp, write_page_checksum=True)
            with open(tmp, "rb") as fh:
                os.fsync(fh.fileno())
            os.replace(tmp, final)
        except BaseException:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
            raise
        return final

    # -- reading -----------------------------------------------------------------------------
    def parts(self) -> list[Path]:
        return sorted(self.dir.glob("part-*.parquet")) if self.dir.exists() else []

    def _memo(self) -> dict[str, str]:
        if self._verified is None:
            try:
                self._verified = dict(json.loads((self.dir / ".verified.json").read_text()))
            except (OSError, ValueError, TypeError):
                self._verified = {}
        return self._verified

    def _remember(self, path: Path, ident: str) -> None:
        memo = self._memo()
        memo[path.name] = ident
        live = {p.name for p in self.parts()}
        data = json.dumps({k: v for k, v in memo.items() if k in live}, sort_keys=True)
        tmp = self.dir / f".verified.json.{_HOST}-{os.getpid()}-{secrets.token_hex(4)}.tmp"
        try:  # a cache only: a read-only store or a full disk just verify again next time
            tmp.write_text(data)
            os.replace(tmp, self.dir / ".verified.json")
        except OSError:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)

    def read_part(self, path: Path, columns: list[str] | None = None) -> pd.DataFrame:
        """One validated part (raises FileNotFoundError if it vanished, anything else if it is bad)."""
        ident = _file_id(path)
        pf = pq.ParquetFile(path, page_checksum_verification=True)
        schema = pf.schema_arrow
        validate_schema(schema, str(path))
        meta = schema.metadata or {}
        version = meta.get(_META_SCHEMA, b"").decode()
        if version and version != SCHEMA_VERSION:
            raise CorruptPartError(f"{path}: schema version {version!r}, this code reads {SCHEMA_VERSION!r}")
        verified = not version or self._memo().get(path.name) == ident
        want = None if columns is None or not verified else sorted({*columns, "key", "status"} & set(schema.names))
        frame = pf.read(columns=want).to_pandas()
        validate_rows(frame, str(path))
        if not verified:
            if rows_checksum(frame) != meta.get(_META_CHECKSUM, b"").decode():
                raise CorruptPartError(f"{path}: the rows do not match the checksum written with them")
            self._remember(path, ident)
        if columns is not None:
            frame = frame[[c for c in columns if c in frame.columns]]
        return frame

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

    def read(self, columns: list[str] | None = None, ordered: bool = True) -> pd.DataFrame:
        """The union of the valid parts, de-duplicated by key (the newest row wins), in :data:`ROW_ORDER`:
        the same frame whatever order the parts were written in. ``ordered=False`` skips that sort, for
        callers that only look rows up by key (the run's "what is stored" check, status counts)."""
        for _ in range(20):
            frames, vanished = [], False
            for path in self.parts():
                try:
                    frames.append(self.read_part(path, columns))
                except FileNotFoundError:
                    vanished = True  # removed by a compaction after we listed it: list again
                    break
                except Exception as exc:  # truncated, corrupt, wrong schema, checksum mismatch
                    if not path.exists():
                        vanished = True
                        break
                    self._quarantine(path, exc)
            if not vanished:
                break
        else:  # pragma: no cover - 20 compactions in a row
            raise StoreError(f"parts of '{self.dir}' kept vanishing while reading; try again")
        if not frames:
            return pd.DataFrame(columns=columns or ["key"])
        df = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
        if "timestamp" in df.columns:
            df = df.sort_values("timestamp", kind="stable")
        df = df.drop_duplicates("key", keep="last")
        if ordered:
            df = df.sort_values([c for c in ROW_ORDER if c in df.columns], kind="stable")
        return df.reset_index(drop=True)

    def keys(self) -> set[str]:
        return set(self.read(columns=["key"], ordered=False)["key"].tolist())

    # -- maintenance -------------------------------------------------------------------------
    def cleanup_temp(self) -> int:
        """Remove temp files whose writer is gone (its pid is dead on this host, or the file is older
        than STALE_TEMP_SECONDS); a live run's temps are left alone. Returns how many were removed."""
        n = 0
        for tmp in self.dir.glob(".*.tmp") if self.dir.exists() else []:
            parts = tmp.name.split("-")
            host, pid = None, None
            if tmp.name.startswith(".part-") and len(parts) >= 5:
                host, pid = parts[2], parts[3]
            try:
                age = time.time() - tmp.stat().st_mtime
            except FileNotFoundError:
                continue
            gone = (host == _HOST and pid is not None and pid.isdigit() and not pid_alive(int(pid)))
            if gone or age > STALE_TEMP_SECONDS:
                tmp.unlink(missing_ok=True)
                n += 1
        return n

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
                merged = self.write(self.read())
                for p in old:
                    p.unlink(missing_ok=True)
                return merged
        except OSError as exc:
            log.warning("store: compaction of %s failed (%s); the parts are kept as they are", self.dir,
                        exc.strerror or exc)
            return None
