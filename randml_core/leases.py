"""Task leases: several runs (processes, hosts sharing a filesystem) fill one store without computing a task twice.

Before a run computes a task it creates ``<store>/<experiment>/leases/<task id>.lease`` with
``O_CREAT | O_EXCL`` (the file system says which run was first; no server is needed). The file holds
the owner's host, pid, a random token and a heartbeat time that a thread of the owner refreshes every
``HEARTBEAT_SECONDS`` while the task runs. Other runs skip a task whose lease is held and fresh; a
*stale* lease (heartbeat older than ``STALE_SECONDS``, or an owner pid that is dead on this host) is
taken over. The owner removes its lease after the task's part is written, or when the task fails.

Order of operations that makes this exact: the owner writes the part *before* removing the lease,
and a run checks the store *after* taking a lease, so a task finished by another run is never
computed again.

Written by hand: no maintained Python library offers file leases with heartbeats and stale
takeover on a shared (NFS) directory; ``fcntl`` locks alone die with their holder's host unseen and
cannot say who holds a task.
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import secrets
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from ._watchdog import pid_alive

log = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 30.0
#: a lease whose heartbeat is older than this is taken over (owner gone, e.g. on another host)
STALE_SECONDS = 300.0
HOST = socket.gethostname() or "host"


def task_id(cell_keys) -> str:
    """A task's id: SHA-256 of its sorted cell keys (cell keys are content hashes, so the id is the
    same in every run of the same config, on any host)."""
    return hashlib.sha256("\n".join(sorted(cell_keys)).encode()).hexdigest()[:24]




@dataclass
class LeaseInfo:
    host: str
    pid: int
    token: str
    heartbeat: float


def read_lease(path: Path) -> LeaseInfo | None:
    """The lease's content, or None if it vanished. A lease being written (empty or partial JSON)
    counts as fresh: its heartbeat is the file's mtime."""
    try:
        st = path.stat()
        raw = path.read_text()
    except FileNotFoundError:
        return None
    try:
        d = json.loads(raw)
        return LeaseInfo(str(d["host"]), int(d["pid"]), str(d["token"]), float(d["heartbeat"]))
    except (ValueError, KeyError, TypeError):
        return LeaseInfo("", -1, "", st.st_mtime)


def is_stale(info: LeaseInfo, now: float | None = None, stale_after: float = STALE_SECONDS) -> bool:
    now = time.time() if now is None else now
    if now - info.heartbeat > stale_after:
        return True
    return info.host == HOST and info.pid > 0 and not pid_alive(info.pid)


class Leases:
    """The leases one run holds in ``directory``; a daemon thread refreshes their heartbeats.

    Use as a context manager: on exit every lease still held is removed (a failed or interrupted
    run frees its tasks at once instead of after ``stale_after``).
    """

    def __init__(self, directory: str | os.PathLike, heartbeat: float = HEARTBEAT_SECONDS,
                 stale_after: float = STALE_SECONDS):
        self.dir = Path(directory)
        self.heartbeat, self.stale_after = heartbeat, stale_after
        self.token = secrets.token_hex(8)
        self.held: set[str] = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.taken_over = 0  # stale leases of other runs taken over (reported by the run)

    def path(self, tid: str) -> Path:
        return self.dir / f"{tid}.lease"

    def _content(self) -> str:
        return json.dumps({"host": HOST, "pid": os.getpid(), "token": self.token, "heartbeat": time.time()})

    def _create(self, tid: str) -> bool:
        try:
            fd = os.open(self.path(tid), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            return False
        with os.fdopen(fd, "w") as fh:
            fh.write(self._content())
        with self._lock:
            self.held.add(tid)
        return True

    def acquire(self, tid: str) -> bool:
        """Take the lease of task ``tid``: True if this run holds it now (created, or taken over
        from a stale owner), False if another run holds it and is alive."""
        self.dir.mkdir(parents=True, exist_ok=True)
        if self._create(tid):
            return True
        info = read_lease(self.path(tid))
        if info is None:  # released meanwhile
            return self._create(tid)
        if not is_stale(info, stale_after=self.stale_after):
            return False
        # takeovers are serialised by a lock file, so two runs cannot both remove a stale lease and
        # then each remove the other's new one; a plain acquire never removes anything
        with self._takeover_lock():
            again = read_lease(self.path(tid))
            if again is not None:
                if again.token != info.token or not is_stale(again, stale_after=self.stale_after):
                    return False
                log.warning("leases: taking over task %s from %s pid %d (heartbeat %.0f s old%s)", tid,
                            again.host or "?", again.pid, time.time() - again.heartbeat,
                            ", pid dead" if again.host == HOST and again.pid > 0 and not pid_alive(again.pid) else "")
                self.path(tid).unlink(missing_ok=True)
            if self._create(tid):
                self.taken_over += 1
                return True
            return False

    @contextlib.contextmanager
    def _takeover_lock(self):
        with open(self.dir / ".takeover.lock", "a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            yield

    def remove_stale(self) -> int:
        """Remove every stale lease in the directory (e.g. of a run killed after it wrote its task's
        part but before it removed the lease). Returns how many were removed."""
        n = 0
        for tid, info in holders(self.dir):
            if info.token != self.token and is_stale(info, stale_after=self.stale_after):
                with self._takeover_lock():
                    again = read_lease(self.path(tid))
                    if again is not None and again.token == info.token and is_stale(again, stale_after=self.stale_after):
                        self.path(tid).unlink(missing_ok=True)
                        n += 1
        return n

    def release(self, tid: str) -> None:
        """Remove our lease of ``tid`` (a lease another run took over is left to it)."""
        with self._lock:
            if tid not in self.held:
                return
            self.held.discard(tid)
        info = read_lease(self.path(tid))
        if info is not None and info.token == self.token:
            with contextlib.suppress(FileNotFoundError):
                self.path(tid).unlink()

    def refresh(self) -> None:
        """Re-write the heartbeat of every lease held (atomically: temp file and rename)."""
        with self._lock:
            held = list(self.held)
        for tid in held:
            info = read_lease(self.path(tid))
            if info is None or info.token != self.token:
                log.warning("leases: the lease of task %s was taken over by another run (this run's "
                            "heartbeat stalled for more than %.0f s); both may compute it", tid, self.stale_after)
                with self._lock:
                    self.held.discard(tid)
                continue
            tmp = self.dir / f".{tid}.{self.token}.tmp"
            try:
                tmp.write_text(self._content())
                os.replace(tmp, self.path(tid))
            except OSError as exc:
                log.warning("leases: cannot refresh %s (%s)", self.path(tid), exc.strerror or exc)
                with contextlib.suppress(OSError):
                    tmp.unlink(missing_ok=True)

    def __enter__(self) -> "Leases":
        def loop():
            while not self._stop.wait(self.heartbeat):
                self.refresh()
        self._thread = threading.Thread(target=loop, name="randml-leases", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            held = list(self.held)
        for tid in held:
            with contextlib.suppress(OSError):
                self.release(tid)


def holders(directory: str | os.PathLike) -> list[tuple[str, LeaseInfo]]:
    """Every lease file in ``directory`` with its content (for ``randml plan`` and tests)."""
    d = Path(directory)
    out = []
    for p in sorted(d.glob("*.lease")) if d.exists() else []:
        info = read_lease(p)
        if info is not None:
            out.append((p.stem, info))
    return out


__all__ = ["task_id", "Leases", "LeaseInfo", "read_lease", "is_stale", "holders", "HEARTBEAT_SECONDS",
           "STALE_SECONDS"]
