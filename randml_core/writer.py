"""A run's side of the store while its tasks run: the finished tasks' rows written in batched parts
(:class:`PartWriter`) and the keys other runs stored meanwhile (:class:`NewKeys`), each part listed and read once.
"""
from __future__ import annotations

import logging
import math
import os
import threading
import time
from pathlib import Path

from .leases import Leases
from .store import Store, StoreError
from .ticker import Ticker

log = logging.getLogger(__name__)

__all__ = ["PartWriter", "NewKeys", "WRITE_EVERY", "WRITE_ROWS"]

#: seconds between two parts a run writes (``write_every``): rows of the tasks that finish meanwhile wait in memory
WRITE_EVERY = 1.0
#: rows that are written at once, whatever the time (bounds the memory of a batch)
WRITE_ROWS = 50_000


class PartWriter:
    """Rows of finished tasks, written as one part per batch (issue 44: a part per task cost ~30 ms of the parent's
    time in pandas round trips, checksums and fsync, the floor of a run of cheap cells).

    A task's rows are written at once when no part was written for ``every`` seconds, else they wait, and a thread
    writes what waits ``every`` seconds after the last part; the task's lease is released after its rows are written
    (:mod:`randml_core.leases`). A run that ends, fails or is interrupted (Ctrl-C, SIGTERM) writes what waits; a
    ``kill -9`` loses at most the tasks of the last ``every`` seconds, which the next run computes (nothing else).
    ``every=0``: one part per task."""

    def __init__(self, store: Store, leases: Leases, fresh: "NewKeys", every: float = WRITE_EVERY):
        self.store, self.leases, self.fresh, self.every = store, leases, fresh, every
        self.rows: list[dict] = []
        self.tids: list[str] = []
        self.last = -math.inf
        self.error: BaseException | None = None
        self._lock = threading.Lock()
        self._ticker: Ticker | None = None

    def add(self, tid: str, rows: list[dict]) -> None:
        self._raise()
        with self._lock:
            self.rows.extend(rows)
            self.tids.append(tid)
            if time.monotonic() - self.last >= self.every or len(self.rows) >= WRITE_ROWS:
                self._write()

    def flush(self) -> None:
        self._raise()
        with self._lock:
            self._write()

    def _raise(self) -> None:
        if self.error is not None:
            error, self.error = self.error, None
            raise error

    def _write(self) -> None:
        if self.tids:
            part = self.store.write(self.rows)
            if part is not None:
                self.fresh.seen.add(part.name)
            for tid in self.tids:
                self.leases.release(tid)  # after the part is written: see randml_core.leases
            self.rows, self.tids = [], []
        self.last = time.monotonic()

    def _tick(self):
        """Write what waits once ``every`` seconds passed since the last part; on an error (raised in the run's
        thread at its next add) the ticker stops."""
        with self._lock:
            if not self.tids or time.monotonic() - self.last < self.every:
                return None
            try:
                self._write()
            except BaseException as exc:  # noqa: BLE001 - raised in the run's thread, at its next add
                self.error = exc
                return Ticker.STOP
            return None

    def __enter__(self) -> "PartWriter":
        if self.every > 0:
            self._ticker = Ticker(self.every / 2, self._tick, "randml-writer").start()
        return self

    def __exit__(self, *exc) -> None:
        if self._ticker is not None:
            self._ticker.stop()
        with self._lock:
            if self.error is None:
                self._write()  # also on an interrupt or a failed task: the finished tasks' rows are kept
        if exc[0] is None:
            self._raise()


class NewKeys:
    """Cell keys in parts that appeared since the run started (written by other runs); each new
    part is read once (its key column, verified).

    A listing costs O(parts); once per dispatched task it made a run quadratic in its tasks (56 ms a listing at
    10,000 parts). So the store is listed on the first refresh (a run that wrote between this run's read and its
    first lease), then on every refresh while another run is alive (an owner lock of another run in ``leases/``:
    each run holds one from its first lease on, so a task another run finished is never computed again here), and
    otherwise at most once per :data:`LIST_EVERY` seconds."""

    LIST_EVERY = 1.0

    def __init__(self, store: Store, leases_dir: Path | None = None, own_token: str | None = None):
        self.store = Store(store.root, store.experiment)
        self.seen = {p.name for p in store.parts()}
        self.keys: set[str] = set()
        self._listed: float | None = None
        self.listings = 0
        self.leases_dir, self.own = leases_dir, own_token

    def _others_alive(self) -> bool:
        """Another run's owner lock is in ``leases/`` (or there is no way to tell)."""
        if self.leases_dir is None:
            return True
        from .leases import OWNER_PREFIX
        try:
            names = os.listdir(self.leases_dir)
        except FileNotFoundError:
            return False
        except OSError:
            return True
        mine = f"{OWNER_PREFIX}{self.own}.lock"
        return any(n.startswith(OWNER_PREFIX) and n != mine for n in names)

    def refresh(self) -> set[str]:
        now = time.monotonic()
        if self._listed is not None and now - self._listed < self.LIST_EVERY and not self._others_alive():
            return self.keys
        self._listed = now
        self.listings += 1
        for p in self.store.parts():
            if p.name in self.seen:
                continue
            try:
                frame = self.store.read_part(p, ["key"])
            except FileNotFoundError:
                continue  # compacted away meanwhile: its rows are in the merged part, read next time
            except StoreError:
                continue  # could not be read now (permissions, open files, memory): not corrupt, try again later
            except Exception as exc:  # a bad part: its cells count as missing (the next full read quarantines it)
                log.warning("store: %s is unreadable (%s); its cells count as missing", p, exc)
                self.seen.add(p.name)
                continue
            self.seen.add(p.name)
            self.keys.update(frame["key"])
        return self.keys
