"""Task leases: several runs (processes, hosts sharing a filesystem) fill one store without computing a task twice.

Before a run computes a task it creates ``<store>/<experiment>/leases/<task id>.lease`` as a hard link to
its lease template ``.template-<token>`` (``link`` fails when the name exists, as ``O_CREAT | O_EXCL`` does,
also over NFS: the file system says which run was first; no server is needed). The file holds the owner's
host, pid, kernel boot id, a random token and a heartbeat time. The template is written again when its
heartbeat is older than ``HEARTBEAT_SECONDS`` (or a tenth of ``STALE_SECONDS``), and a thread of the owner
rewrites each lease it holds (a file of its own from then on) every ``HEARTBEAT_SECONDS`` while the task runs.
A link costs a directory entry: creating a file cost about 0.5 ms of CPU a task on this machine's ext4, a link
0.01 ms (issue 44: a lease per task of one cell). Where links are refused (a file system without them) each
lease is created with ``O_CREAT | O_EXCL``. Other runs skip a task whose lease is held and fresh; a *stale*
lease is taken over. The owner removes its lease after the task's part is written, or when the task fails.

Stale means: the heartbeat is older than ``STALE_SECONDS``, or the owner's lock is free. Before its
first lease a run creates ``.owner-<token>.lock`` beside the leases and holds an ``flock`` on it until
it ends (the kernel drops the lock when the run dies, however it dies). A run on the same kernel (same
boot id: also another container or PID namespace sharing the directory) that can take that lock knows
the owner is gone and takes over at once. Pids are never used to decide liveness (a pid means nothing
in another PID namespace); across kernels (another host) only the heartbeat counts, since ``flock``
over NFS may be local to each client.

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

from .artefacts import atomic_write
from .ticker import Ticker

log = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 30.0
#: a lease whose heartbeat is older than this is taken over (owner gone, e.g. on another host)
STALE_SECONDS = 300.0
HOST = socket.gethostname() or "host"


def _boot_id() -> str:
    """This kernel's boot id (Linux), shared by every container and PID namespace on it; "" elsewhere."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


#: the lock domain of ``.owner-<token>.lock``: only a run on the same kernel trusts a free lock
BOOT_ID = _boot_id()
OWNER_PREFIX = ".owner-"
TEMPLATE_PREFIX = ".template-"


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
    boot: str = ""


def read_lease(path: Path) -> LeaseInfo | None:
    """The lease's content, or None if it vanished. A lease being written (empty or partial JSON)
    counts as fresh: its heartbeat is the file's mtime."""
    try:
        from .store import _read_bytes  # a FIFO or device is named (StoreError), never opened blocking
        st = path.stat()
        raw = _read_bytes(path).decode(errors="replace")
    except FileNotFoundError:
        return None
    try:
        d = json.loads(raw)
        return LeaseInfo(str(d["host"]), int(d["pid"]), str(d["token"]), float(d["heartbeat"]), str(d.get("boot", "")))
    except (ValueError, KeyError, TypeError):
        return LeaseInfo("", -1, "", st.st_mtime)


def owner_lock_path(directory: str | os.PathLike, token: str) -> Path:
    return Path(directory) / f"{OWNER_PREFIX}{token}.lock"


def template_path(directory: str | os.PathLike, token: str) -> Path:
    """The file a run's leases are hard links of (not a lease: its name does not end in ``.lease``)."""
    return Path(directory) / f"{TEMPLATE_PREFIX}{token}"


def owner_gone(directory: str | os.PathLike, info: LeaseInfo) -> bool:
    """True if the lease's owner runs on this kernel and its owner lock is free (or gone): the owner
    ended. False when that cannot be known here (another kernel, an unreadable lock file, no locks)."""
    if not (BOOT_ID and info.boot == BOOT_ID and info.token):
        return False
    try:
        fd = os.open(owner_lock_path(directory, info.token), os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return True  # the owner removes its lock file only after releasing its leases: it has ended
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # held (EWOULDBLOCK), or no locks on this file system
        return False
    finally:
        os.close(fd)
    return True


def is_stale(info: LeaseInfo, now: float | None = None, stale_after: float = STALE_SECONDS,
             directory: str | os.PathLike | None = None) -> bool:
    """A lease is stale when its heartbeat is older than ``stale_after``, or (given the lease
    ``directory``) when its owner's lock is free on this kernel (:func:`owner_gone`). Never by pid."""
    now = time.time() if now is None else now
    if now - info.heartbeat > stale_after:
        return True
    return directory is not None and owner_gone(directory, info)


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
        self._ticker: Ticker | None = None
        self._owner_fd: int | None = None  # holds the flock of .owner-<token>.lock while this run lives
        self._template_at: float | None = None  # when .template-<token> was last written (None: not yet, or no links)
        self._links = True  # False once the file system refused a hard link: O_CREAT | O_EXCL from then on
        self.taken_over = 0  # stale leases of other runs taken over (reported by the run)

    def path(self, tid: str) -> Path:
        return self.dir / f"{tid}.lease"

    def _content(self) -> str:
        return json.dumps({"host": HOST, "pid": os.getpid(), "boot": BOOT_ID, "token": self.token,
                           "heartbeat": time.time()})

    def _hold_owner_lock(self) -> None:
        """Create and lock ``.owner-<token>.lock`` before this run's first lease exists."""
        if self._owner_fd is not None:
            return
        fd = os.open(owner_lock_path(self.dir, self.token), os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.write(fd, BOOT_ID.encode())  # whose kernel's lock this is (see remove_stale)
        except OSError as exc:  # a file system without locks: the heartbeat alone says who is alive
            log.debug("leases: no lock on %s (%s); liveness by heartbeat only", self.dir, exc)
        self._owner_fd = fd

    def _drop_owner_lock(self) -> None:
        template_path(self.dir, self.token).unlink(missing_ok=True)
        if self._owner_fd is None:
            return
        owner_lock_path(self.dir, self.token).unlink(missing_ok=True)
        os.close(self._owner_fd)
        self._owner_fd = None

    def _template(self) -> Path:
        """``.template-<token>`` with a heartbeat at most ``heartbeat`` seconds and a tenth of ``stale_after`` old
        (written again when older), so a new lease never looks older than a tenth of the time to staleness."""
        path = template_path(self.dir, self.token)
        now = time.time()
        if self._template_at is None or now - self._template_at >= min(self.heartbeat, self.stale_after / 10):
            atomic_write(path, self._content(), recover_first=False)
            self._template_at = now
        return path

    def _create(self, tid: str) -> bool:
        self._hold_owner_lock()
        if self._links:
            try:
                try:
                    os.link(self._template(), self.path(tid))
                except FileNotFoundError:  # the template was removed as stale (no lease for a long time): again
                    self._template_at = None
                    os.link(self._template(), self.path(tid))
            except FileExistsError:
                return False
            except OSError as exc:  # no hard links here (EPERM, ENOTSUP, EMLINK ...): a file per lease
                log.debug("leases: no hard link in %s (%s); each lease is created as a file", self.dir, exc)
                self._links = False
                template_path(self.dir, self.token).unlink(missing_ok=True)
        if not self._links:
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
        if not is_stale(info, stale_after=self.stale_after, directory=self.dir):
            return False
        # takeovers are serialised by a lock file, so two runs cannot both remove a stale lease and
        # then each remove the other's new one; a plain acquire never removes anything
        with self._takeover_lock():
            again = read_lease(self.path(tid))
            if again is not None:
                if again.token != info.token or not is_stale(again, stale_after=self.stale_after, directory=self.dir):
                    return False
                log.warning("leases: taking over task %s from %s pid %d (heartbeat %.0f s old%s)", tid,
                            again.host or "?", again.pid, time.time() - again.heartbeat,
                            ", its owner lock is free" if owner_gone(self.dir, again) else "")
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
            if info.token != self.token and is_stale(info, stale_after=self.stale_after, directory=self.dir):
                with self._takeover_lock():
                    again = read_lease(self.path(tid))
                    if (again is not None and again.token == info.token
                            and is_stale(again, stale_after=self.stale_after, directory=self.dir)):
                        self.path(tid).unlink(missing_ok=True)
                        n += 1
        self._remove_dead_owner_locks()
        return n

    def _remove_dead_owner_locks(self) -> None:
        """Remove the ``.owner-*.lock`` files of ended runs on this kernel that no lease names."""
        tokens = {info.token for _, info in holders(self.dir)}
        for path in self.dir.glob(f"{OWNER_PREFIX}*.lock"):
            token = path.name[len(OWNER_PREFIX):-len(".lock")]
            if token == self.token or token in tokens:
                continue
            with contextlib.suppress(OSError):
                from .store import _read_bytes
                if _read_bytes(path).decode(errors="replace").strip() == BOOT_ID and BOOT_ID and owner_gone(
                        self.dir, LeaseInfo("", -1, token, 0.0, BOOT_ID)):
                    path.unlink(missing_ok=True)
        for path in self.dir.glob(f"{TEMPLATE_PREFIX}*"):  # lease templates of runs that ended (or went silent)
            info = read_lease(path)
            if info is None or info.token == self.token or info.token in tokens or "." in path.name[1:]:
                continue
            if is_stale(info, stale_after=self.stale_after, directory=self.dir):
                path.unlink(missing_ok=True)  # a live run writes it again before its next lease (Leases._create)

    def release(self, tid: str) -> None:
        """Remove our lease of ``tid`` (a lease another run took over is left to it)."""
        with self._lock:  # under the heartbeat's lock: a refresh never sees this lease half released
            if tid not in self.held:
                return
            self.held.discard(tid)
            info = read_lease(self.path(tid))
            if info is not None and info.token == self.token:
                with contextlib.suppress(FileNotFoundError):
                    self.path(tid).unlink()

    def refresh(self) -> None:
        """Re-write the heartbeat of every lease held (atomically: :func:`~randml_core.artefacts.atomic_write`).
        Each lease is checked and re-written under the lock :meth:`release` takes, so a task that finishes during
        a refresh is neither reported as taken over nor given its lease file back."""
        with self._lock:
            held = list(self.held)
        for tid in held:
            with self._lock:
                if tid not in self.held:  # released since the copy above
                    continue
                info = read_lease(self.path(tid))
                if info is None or info.token != self.token:
                    log.warning("leases: the lease of task %s was taken over by another run (this run's "
                                "heartbeat stalled for more than %.0f s); both may compute it", tid, self.stale_after)
                    self.held.discard(tid)
                    continue
                try:
                    atomic_write(self.path(tid), self._content(), recover_first=False)
                except OSError as exc:
                    log.warning("leases: cannot refresh %s (%s)", self.path(tid), exc.strerror or exc)

    def __enter__(self) -> "Leases":
        self._ticker = Ticker(self.heartbeat, self.refresh, "randml-leases").start()
        return self

    def __exit__(self, *exc) -> None:
        if self._ticker is not None:
            self._ticker.stop()
        with self._lock:
            held = list(self.held)
        for tid in held:
            with contextlib.suppress(OSError):
                self.release(tid)
        with contextlib.suppress(OSError):
            self._drop_owner_lock()


def holders(directory: str | os.PathLike) -> list[tuple[str, LeaseInfo]]:
    """Every lease file in ``directory`` with its content (for ``randml plan`` and tests)."""
    d = Path(directory)
    out = []
    for p in sorted(d.glob("*.lease")) if d.exists() else []:
        info = read_lease(p)
        if info is not None:
            out.append((p.stem, info))
    return out


__all__ = ["task_id", "Leases", "LeaseInfo", "read_lease", "is_stale", "owner_gone", "holders", "HEARTBEAT_SECONDS",
           "STALE_SECONDS", "BOOT_ID"]
