"""The result store: a directory of parquet part files, one per finished task, never rewritten.

- Writes are atomic: a part is written to ``.<name>.tmp`` and renamed into place, so a killed
  run leaves either a whole part or an ignorable temp file.
- Part names carry the process id and a random token: parallel runs (joblib workers write
  nothing; Hydra multirun jobs are separate processes) never write the same file.
- Reading is the union of the parts, de-duplicated by cell key (the newest row wins). A part
  that cannot be read (truncated, corrupt) is reported, moved to ``quarantine/`` and its cells
  count as missing, so they are recomputed; it is never read silently.
"""
from __future__ import annotations

import logging
import os
import secrets
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

log = logging.getLogger(__name__)


class Store:
    def __init__(self, root: str | os.PathLike, experiment: str):
        self.root = Path(root)
        self.experiment = experiment
        self.dir = self.root / experiment

    # -- writing -----------------------------------------------------------------------------
    def write(self, rows: "list[dict] | pd.DataFrame") -> Path | None:
        frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(rows)
        if frame.empty:
            return None
        self.dir.mkdir(parents=True, exist_ok=True)
        name = f"part-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}-{secrets.token_hex(4)}.parquet"
        final = self.dir / name
        tmp = self.dir / f".{name}.tmp"
        table = pa.Table.from_pandas(frame, preserve_index=False)
        pq.write_table(table, tmp)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, final)
        return final

    # -- reading -----------------------------------------------------------------------------
    def parts(self) -> list[Path]:
        return sorted(self.dir.glob("part-*.parquet")) if self.dir.exists() else []

    def _quarantine(self, path: Path, exc: Exception) -> None:
        qdir = self.dir / "quarantine"
        qdir.mkdir(exist_ok=True)
        os.replace(path, qdir / path.name)
        log.warning("store: %s is unreadable (%s: %s); moved to %s, its cells will be recomputed",
                    path, type(exc).__name__, exc, qdir)

    def read(self, columns: list[str] | None = None) -> pd.DataFrame:
        frames = []
        for path in self.parts():
            try:
                frames.append(pq.read_table(path, columns=columns).to_pandas())
            except Exception as exc:  # truncated or corrupt part
                self._quarantine(path, exc)
        if not frames:
            return pd.DataFrame(columns=columns or ["key"])
        df = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
        if "timestamp" in df.columns:
            df = df.sort_values("timestamp", kind="stable")
        return df.drop_duplicates("key", keep="last").reset_index(drop=True)

    def keys(self) -> set[str]:
        return set(self.read(columns=["key"])["key"].tolist())

    def cleanup_temp(self) -> int:
        """Remove temp files left by killed runs; returns how many."""
        n = 0
        for tmp in self.dir.glob(".part-*.tmp") if self.dir.exists() else []:
            tmp.unlink(missing_ok=True)
            n += 1
        return n

    def compact(self) -> Path | None:
        """Merge all parts into one (written atomically first, then the old parts removed)."""
        old = self.parts()
        if len(old) < 2:
            return None
        merged = self.write(self.read())
        for p in old:
            p.unlink(missing_ok=True)
        return merged
