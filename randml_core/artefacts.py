"""Atomic artefacts: every table, figure and json the reports and benchmarks write goes through here.

A single file is written to a temp file in its own directory (unique name, fsync), then renamed over
the target (``os.replace``, atomic on POSIX). A report writes a *set* of files (md, csv, tex, png,
pdf, json and the provenance sidecar) that must change together; renaming N files is not atomic, so
:class:`ArtefactSet` commits in two phases, in the style of a write-ahead log:

1. stage: every file is written in full to a temp and fsynced; nothing on disk changes;
2. commit (under an exclusive ``flock`` on ``<root>/.artefacts.lock``, SIGINT/SIGTERM/SIGHUP
   deferred): a journal listing temp -> final is written atomically, the temps are renamed, the
   journal is deleted.

A crash before the journal exists leaves the old set (the temps are debris); a crash after it (only
SIGKILL or a power cut: the other signals wait) is rolled forward by :func:`recover`, which every
set and every :func:`atomic_write` runs first on its folder. So what a writer finds is always a
whole old set or a whole new one. A set's files lie in its root or a direct subfolder, so the
journal that may still need a temp is in the temp's folder or its parent.

Ownership without pids: a temp (``.<name>.<pid>-<token>.artefact.tmp``; the pid is only for people)
is created under another name, ``flock``-ed by its writer and only then renamed to its temp name, and
the writer holds that lock until the temp is renamed into place or dropped. :func:`recover` removes a
temp only if it can take the temp's lock itself (the kernel released it: the writer is gone), after the
journals are rolled forward. A writer in another PID namespace or container sharing the folder holds
its lock like any other, so it is never taken for dead. Only a temp whose lock cannot be tried here
(no permission to open it, a file system without locks) falls back to age (:data:`STALE_SECONDS`). A
commit first checks that every staged temp is still its own file; if one vanished it raises
:class:`ArtefactError` and the old set stays (never a mixed set).

Every file the package writes atomically goes through :func:`atomic_file` / :func:`atomic_write` (data
cache files, the check memo, figures, site pages, reports): created with ``os.open(..., 0o666)``, so
its mode is what the umask (and a default ACL) allows, as for any ``open()``; e.g. 0644 under umask
022, so a cache shared on a cluster (``RANDML_DATA_CACHE``) is readable by the other users
(``tempfile.mkstemp`` would make it 0600).

Written by hand: the maintained libraries (``atomicwrites`` is archived; ``atomicwriter``,
``safer``) make one file atomic, none commits a multi-file set with roll-forward or defers signals.
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import io
import json
import os
import re
import secrets
import signal
import stat
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

LOCK_NAME = ".artefacts.lock"
JOURNAL_PREFIX = ".artefacts-journal-"
#: a temp whose lock cannot be tried here (unreadable, no locks on the file system), or a temp still being
#: created (``.artefact.new``), is debris only once it is older than this
STALE_SECONDS = 6 * 3600
TEMP_RE = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)-(?P<token>[0-9a-f]{8})\.artefact\.tmp$")
BIRTH_RE = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)-(?P<token>[0-9a-f]{8})\.artefact\.new$")
JOURNAL_RE = re.compile(r"^\.artefacts-journal-(?P<pid>\d+)-(?P<token>[0-9a-f]{8})\.json$")
DEFERRED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def _temp_name(final: Path) -> Path:
    return final.with_name(f".{final.name}.{os.getpid()}-{secrets.token_hex(4)}.artefact.tmp")


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)




def _write_handle(fh, data: bytes) -> None:
    """Where the bytes of :func:`atomic_write` and of a report's :class:`ArtefactSet` reach a temp file (tests
    monkeypatch it to simulate a full disk)."""
    fh.write(data)


class ArtefactError(RuntimeError):
    """A staged file vanished before its set was committed (removed by another process); nothing was
    committed, the old set stays."""


def _try_flock(fd: int) -> bool | None:
    """Take ``fd``'s exclusive flock without waiting: True (taken), False (another holder), None (the
    file system cannot lock)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError:  # ENOLCK, EOPNOTSUPP, ...: no locks here
        return None
    return True


def _open_temp(final: Path) -> tuple[Path, int]:
    """A new empty temp beside ``final`` and its fd, which holds the temp's flock until closed.

    Created as ``.artefact.new`` (mode 0o666 less the umask), locked, then renamed to its temp name: a
    file :func:`recover` sees under a temp name is already locked by its live writer."""
    final.parent.mkdir(parents=True, exist_ok=True)
    temp = _temp_name(final)
    birth = temp.with_name(temp.name[:-len(".tmp")] + ".new")
    fd = None
    try:  # the open inside: a Ctrl-C between the file's creation and the next line must not leave it behind
        fd = os.open(birth, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o666)
        _try_flock(fd)  # a brand-new name: no other holder; None on a file system without locks
        os.rename(birth, temp)
    except BaseException:
        if fd is not None:
            os.close(fd)
        birth.unlink(missing_ok=True)  # the name holds a random token: only this call can have made it
        raise
    return temp, fd


def _write_temp(final: Path, chunks) -> tuple[Path, str, int]:
    """Write ``chunks`` (bytes) to a new locked temp beside ``final``, fsync; return (temp, sha256, fd).
    The caller closes ``fd`` (releasing the lock) once the temp is renamed or removed. On any error the
    temp is removed and the error re-raised; ``final`` is never touched."""
    temp, fd = _open_temp(final)
    digest = hashlib.sha256()
    try:
        with os.fdopen(fd, "wb", closefd=False) as fh:
            for chunk in chunks:
                digest.update(chunk)
                _write_handle(fh, chunk)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
        os.close(fd)
        raise
    return temp, digest.hexdigest(), fd


@contextlib.contextmanager
def atomic_file(path: str | Path, *, recover_first: bool = True):
    """Yield a binary file; on a clean exit its bytes replace ``path`` atomically (flush, fsync,
    ``os.replace``, fsync of the folder). On an error the temp is removed and ``path`` stays as it was.

    The one atomic writer of the package: the file is created with ``os.open(..., 0o666)``, so its
    mode is what the umask allows (0644 under umask 022), never ``mkstemp``'s 0600; the temp is locked
    by this process until it is in place (see the module docstring). ``recover_first``: repair a killed
    writer's leftovers in the folder first (:func:`recover`)."""
    path = Path(path)
    if recover_first:
        recover(path.parent)
    temp, fd = _open_temp(path)
    try:
        with os.fdopen(fd, "wb", closefd=False) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
        raise
    finally:
        os.close(fd)
    _fsync_dir(path.parent)


def _file_sha256(path: Path) -> str | None:
    from .store import _read_bytes  # not a regular file (a FIFO): an error naming it, never a hang
    try:
        return hashlib.sha256(_read_bytes(Path(path))).hexdigest()
    except FileNotFoundError:
        return None


@contextlib.contextmanager
def deferred_signals():
    """Hold SIGINT, SIGTERM and SIGHUP until the block ends, then deliver them (not lost).

    Python-level handlers are swapped for one that only records the signal (they always run in the
    main thread; ``pthread_sigmask`` would not do: a process-directed signal goes to any thread not
    blocking it, e.g. a BLAS worker). Afterwards the old handlers are back and each recorded signal is
    raised again, so Ctrl-C still ends in KeyboardInterrupt and SIGTERM still terminates. Only
    possible in the main thread; elsewhere the block runs undeferred."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []
    old = {}
    try:
        for sig in DEFERRED_SIGNALS:
            prev = signal.signal(sig, lambda signum, frame: pending.append(signum))
            old[sig] = signal.SIG_DFL if prev is None else prev  # None: a handler not set from Python
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
        for sig in dict.fromkeys(pending):
            signal.raise_signal(sig)


@contextlib.contextmanager
def _locked(*dirs: Path):
    """Exclusive flocks on ``<dir>/.artefacts.lock`` of each folder, taken in sorted order (so two
    recoveries never deadlock; a committing writer holds only its root's). The kernel releases
    them if the holder dies. A folder where no lock file can be created is skipped: no set can be
    rooted there either."""
    fds = []
    try:
        for d in sorted(set(dirs), key=str):
            try:
                fd = os.open(d / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o666)
            except PermissionError:  # another user's lock file in a shared folder: flock needs no write access
                try:
                    fd = os.open(d / LOCK_NAME, os.O_RDONLY)
                except OSError:
                    continue
            except (FileNotFoundError, NotADirectoryError):
                continue
            fds.append(fd)
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        for fd in fds:
            os.close(fd)


def _roll_forward(root: Path, journal: Path) -> None:
    """Finish the renames a journal lists (idempotent: a temp already renamed is skipped)."""
    try:
        renames = json.loads(journal.read_text())["renames"]
    except (OSError, ValueError, KeyError, TypeError):
        # Written atomically, so an unreadable journal means the renames never started: the old
        # set is on disk and the temps are debris. Drop it.
        journal.unlink(missing_ok=True)
        return
    dirs = set()
    for temp, final in renames:
        src, dst = root / temp, root / final
        if src.exists():
            os.replace(src, dst)
            dirs.add(dst.parent)
    for d in dirs:
        _fsync_dir(d)
    journal.unlink(missing_ok=True)
    _fsync_dir(root)


def _journals(directory: Path) -> list[Path]:
    try:
        return sorted(p for p in directory.glob(JOURNAL_PREFIX + "*.json") if JOURNAL_RE.match(p.name))
    except OSError:
        return []


def _roll_forward_all(directory: Path) -> list[str]:
    """Caller holds ``directory``'s lock, so the writers of these journals are gone (a live writer
    holds its root's lock for as long as its journal exists)."""
    done = []
    for journal in _journals(directory):
        _roll_forward(directory, journal)
        done.append(f"rolled forward {journal}")
    return done


def _owner_gone(path: Path) -> bool | None:
    """Whether the writer of the temp ``path`` is gone: True if this process can take the temp's flock
    (its writer's lock was released by the kernel), False if someone holds it, None if it cannot be
    tried here (no permission to open it, no locks on the file system, not a regular file)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except FileNotFoundError:
        return False  # renamed into place or removed meanwhile: nothing to do
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        got = _try_flock(fd)
        return got  # the lock is dropped with the fd: a dead writer's temp stays lockable
    finally:
        os.close(fd)


def _debris(directory: Path, now: float) -> list[Path]:
    """Temps in ``directory`` whose writer is gone (their lock can be taken here); a temp whose lock
    cannot be tried, or a ``.artefact.new`` file, once older than STALE_SECONDS."""
    out = []
    try:
        entries = list(os.scandir(directory))
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return out
    for e in entries:
        temp, birth = TEMP_RE.match(e.name), BIRTH_RE.match(e.name)
        if not (temp or birth):
            continue
        try:
            old = now - e.stat(follow_symlinks=False).st_mtime > STALE_SECONDS
        except FileNotFoundError:
            continue
        gone = _owner_gone(Path(e.path)) if temp else None
        if gone or (gone is None and old):
            out.append(Path(e.path))
    return out


def _subdirs(directory: Path) -> list[Path]:
    try:
        return [p for p in directory.iterdir() if p.is_dir() and not p.is_symlink()]
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return []


def recover(directory: str | Path) -> list[str]:
    """Repair ``directory`` after a killed writer, before anything is written there: roll forward
    the journals of sets that may own files in it or in its subfolders, then remove the debris
    temps there. A set's files lie in its root or a direct subfolder, so a temp in folder D belongs
    to a set rooted at D or D's parent: it is removed only under both their locks, after their
    journals are rolled forward (a temp a journal still needs is never removed). Returns what was
    done; cheap (a few listings) when nothing was left over."""
    directory = Path(directory)
    if not directory.is_dir():
        return []
    done = []
    for d in [directory.parent, directory, *_subdirs(directory)]:
        if _journals(d):
            with _locked(d), deferred_signals():
                done += _roll_forward_all(d)
    for d in [directory, *_subdirs(directory)]:
        if not _debris(d, time.time()):
            continue
        with _locked(d, d.parent), deferred_signals():
            done += _roll_forward_all(d.parent) + _roll_forward_all(d)
            for temp in _debris(d, time.time()):
                temp.unlink(missing_ok=True)
                done.append(f"removed {temp}")
    return done


def atomic_write(path: str | Path, data: bytes | str, *, encoding: str = "utf-8",
                 recover_first: bool = True) -> Path:
    """Write one file atomically (:func:`atomic_file`): temp in the same folder, fsync, ``os.replace``.
    Leftovers of a killed writer in this folder are repaired first (see :func:`recover`)."""
    path = Path(path)
    payload = data.encode(encoding) if isinstance(data, str) else bytes(data)
    with atomic_file(path, recover_first=recover_first) as fh:
        _write_handle(fh, payload)
    return path


class ArtefactSet:
    """Files that change together: stage them all, then commit them all or none.

    ``with ArtefactSet(root, name) as out: out.write_text(root / "tables" / "x.md", text) ...``
    commits on a clean exit and discards the staged temps on an exception. Every file lies in
    ``root`` or a direct subfolder (``tables/``, ``figures/``). With ``sidecar=True`` the commit also writes ``root/tables/<name>.meta.json``
    (in the same set): the volatile facts (time, code version, wall times; :meth:`record`) and the
    sha256 of every file of the set, so the tables themselves hold only what a rerun reproduces.
    Identical files are not rewritten (their temps are dropped at commit).
    """

    def __init__(self, root: str | Path, name: str, *, sidecar: bool = True, code_version: str | None = None):
        self.root = Path(root)
        self.name = name
        self.sidecar = sidecar
        self.code_version = code_version
        self._staged: dict[Path, tuple[Path, str, int]] = {}  # final -> (temp, sha256, fd holding its lock)
        self.facts: dict = {}
        self.committed: list[Path] = []

    # ---------------------------------------------------------------- staging
    def _check(self, path: str | Path) -> Path:
        """``path`` must lie in the root or a direct subfolder (so :func:`recover` knows whose lock
        guards a temp: its folder's or its parent's)."""
        path = Path(path)
        parent, root = Path(os.path.abspath(path)).parent, Path(os.path.abspath(self.root))
        if root not in (parent, parent.parent):
            raise ValueError(f"artefact {path} is outside the set's root {self.root} (files must lie in the root "
                             f"or a direct subfolder of it); write it in its own ArtefactSet or under {self.root}")
        return path

    def _rel(self, path: Path) -> str:
        return os.path.relpath(os.path.abspath(path), os.path.abspath(self.root))

    def _stage(self, path: str | Path, chunks) -> Path:
        path = self._check(path)
        if path in self._staged:  # staged twice: the last version wins
            temp, _, fd = self._staged.pop(path)
            temp.unlink(missing_ok=True)
            os.close(fd)
        self._staged[path] = _write_temp(path, chunks)
        return path

    def write_bytes(self, path: str | Path, data: bytes) -> Path:
        return self._stage(path, [bytes(data)])

    def write_text(self, path: str | Path, text: str, encoding: str = "utf-8") -> Path:
        return self._stage(path, [text.encode(encoding)])

    def write_csv(self, path: str | Path, frame, **kwargs) -> Path:
        """``frame.to_csv(**kwargs)`` (index=False unless given) as UTF-8."""
        kwargs.setdefault("index", False)
        return self.write_text(path, frame.to_csv(**kwargs))

    def write_json(self, path: str | Path, obj, **kwargs) -> Path:
        return self.write_text(path, json.dumps(obj, **kwargs))

    def save_figure(self, fig, path: str | Path, **savefig_kwargs) -> Path:
        """``fig.savefig`` into memory (format from the suffix), staged like any other file."""
        path = Path(path)
        buf = io.BytesIO()
        fig.savefig(buf, format=path.suffix.lstrip("."), **savefig_kwargs)
        return self.write_bytes(path, buf.getvalue())

    def record(self, key: str, value) -> None:
        """A volatile fact for the sidecar (wall time, code version of the rows, ...)."""
        self.facts[key] = value

    @property
    def staged(self) -> list[Path]:
        return list(self._staged)

    def sidecar_path(self) -> Path:
        return self.root / "tables" / f"{self.name}.meta.json"

    # ---------------------------------------------------------------- commit
    def discard(self) -> None:
        """Drop every staged temp (a temp already renamed into place is simply gone)."""
        for temp, _, fd in self._staged.values():
            temp.unlink(missing_ok=True)
            os.close(fd)
        self._staged.clear()

    def _write_sidecar(self) -> None:
        files = {self._rel(p): sha for p, (_, sha, _) in sorted(self._staged.items())}
        meta = {"artefact_set": self.name,
                "generated_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "generated_by": self.code_version,
                "files": files, "facts": self.facts}
        self.write_json(self.sidecar_path(), meta, indent=1, sort_keys=True, default=str)

    def _check_staged(self) -> None:
        """Every staged temp is still the file this set wrote (same inode as the fd holding its lock);
        else :class:`ArtefactError` before anything is renamed."""
        for final, (temp, _, fd) in self._staged.items():
            mine = os.fstat(fd)
            try:
                now = os.stat(temp, follow_symlinks=False)
            except FileNotFoundError:
                now = None
            if now is None or (now.st_dev, now.st_ino) != (mine.st_dev, mine.st_ino):
                raise ArtefactError(f"the staged file {temp} of {final} was removed or replaced by another "
                                    f"process before the set {self.name!r} was committed; nothing was committed "
                                    "(the old files stay): rerun the command")

    def commit(self) -> list[Path]:
        """Rename every staged file into place: all of them, or (after a crash) none until the next
        :func:`recover` rolls the journal forward. Returns the files of the set."""
        journal_written = False
        try:
            if self.sidecar and self._staged:
                self._write_sidecar()
            paths = list(self._staged)
            self.root.mkdir(parents=True, exist_ok=True)
            with _locked(self.root):
                with deferred_signals():
                    _roll_forward_all(self.root)  # a journal left since __enter__: finish it first
                renames = [(temp, final) for final, (temp, sha, _) in self._staged.items()
                           if _file_sha256(final) != sha]  # an identical file keeps its bytes and mtime
                self._check_staged()
                with deferred_signals():
                    if renames:
                        journal = self.root / f"{JOURNAL_PREFIX}{os.getpid()}-{secrets.token_hex(4)}.json"
                        body = json.dumps({"pid": os.getpid(), "set": self.name,
                                           "renames": [[self._rel(t), self._rel(f)] for t, f in renames]})
                        jtemp, _, jfd = _write_temp(journal, [body.encode()])
                        try:
                            os.replace(jtemp, journal)
                        finally:
                            os.close(jfd)
                        journal_written = True
                        _fsync_dir(self.root)
                        _roll_forward(self.root, journal)
                    self.discard()  # the temps of identical files
        except BaseException:
            if not journal_written:  # nothing renamed: the old set stays, the temps go
                self.discard()
            else:  # the journal is rolled forward by the next recover(): keep the temps, drop their locks
                for _, _, fd in self._staged.values():
                    os.close(fd)
                self._staged.clear()
            raise
        self.committed = paths
        return paths

    def __enter__(self) -> "ArtefactSet":
        recover(self.root)
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is None:
            self.commit()
        else:
            self.discard()
        return False
