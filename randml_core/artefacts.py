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
journal that may still need a temp is in the temp's folder or its parent. Temps are named
``.<name>.<pid>-<token>.artefact.tmp``; debris is removed only when its writer is gone (pid not
alive) or older than :data:`STALE_SECONDS`, and only after those journals are rolled forward.

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
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from ._watchdog import pid_alive

LOCK_NAME = ".artefacts.lock"
JOURNAL_PREFIX = ".artefacts-journal-"
STALE_SECONDS = 6 * 3600  # a temp older than this is debris even if its pid is alive again (pid reuse)
TEMP_RE = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)-(?P<token>[0-9a-f]{8})\.artefact\.tmp$")
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
    """The one place bytes reach a temp file (tests monkeypatch it to simulate a full disk)."""
    fh.write(data)


def _write_temp(final: Path, chunks) -> tuple[Path, str]:
    """Write ``chunks`` (bytes) to a new temp beside ``final``, fsync; return (temp, sha256).
    On any error the temp is removed and the error re-raised; ``final`` is never touched."""
    final.parent.mkdir(parents=True, exist_ok=True)
    temp = _temp_name(final)
    digest = hashlib.sha256()
    try:
        with open(temp, "xb") as fh:
            for chunk in chunks:
                digest.update(chunk)
                _write_handle(fh, chunk)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
        raise
    return temp, digest.hexdigest()


def _file_sha256(path: Path) -> str | None:
    try:
        with open(path, "rb") as fh:
            return hashlib.file_digest(fh, "sha256").hexdigest()
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
                fd = os.open(d / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
            except (PermissionError, FileNotFoundError, NotADirectoryError):
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


def _debris(directory: Path, now: float) -> list[Path]:
    """Temps in ``directory`` whose writer is gone (pid not alive) or older than STALE_SECONDS."""
    out = []
    try:
        entries = list(os.scandir(directory))
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return out
    for e in entries:
        m = TEMP_RE.match(e.name)
        if not m:
            continue
        try:
            age = now - e.stat(follow_symlinks=False).st_mtime
        except FileNotFoundError:
            continue
        if not pid_alive(int(m["pid"])) or age > STALE_SECONDS:
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


def atomic_write(path: str | Path, data: bytes | str, *, encoding: str = "utf-8") -> Path:
    """Write one file atomically: temp in the same folder, fsync, ``os.replace``. Leftovers of a
    killed writer in this folder are repaired first (see :func:`recover`)."""
    path = Path(path)
    recover(path.parent)
    payload = data.encode(encoding) if isinstance(data, str) else bytes(data)
    temp, _ = _write_temp(path, [payload])
    try:
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)
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
        self._staged: dict[Path, tuple[Path, str]] = {}  # final -> (temp, sha256)
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
            self._staged.pop(path)[0].unlink(missing_ok=True)
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
        for temp, _ in self._staged.values():
            temp.unlink(missing_ok=True)
        self._staged.clear()

    def _write_sidecar(self) -> None:
        files = {self._rel(p): sha for p, (_, sha) in sorted(self._staged.items())}
        meta = {"artefact_set": self.name,
                "generated_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "generated_by": self.code_version,
                "files": files, "facts": self.facts}
        self.write_json(self.sidecar_path(), meta, indent=1, sort_keys=True, default=str)

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
                renames = [(temp, final) for final, (temp, sha) in self._staged.items()
                           if _file_sha256(final) != sha]  # an identical file keeps its bytes and mtime
                with deferred_signals():
                    if renames:
                        journal = self.root / f"{JOURNAL_PREFIX}{os.getpid()}-{secrets.token_hex(4)}.json"
                        body = json.dumps({"pid": os.getpid(), "set": self.name,
                                           "renames": [[self._rel(t), self._rel(f)] for t, f in renames]})
                        jtemp, _ = _write_temp(journal, [body.encode()])
                        os.replace(jtemp, journal)
                        journal_written = True
                        _fsync_dir(self.root)
                        _roll_forward(self.root, journal)
                    self.discard()  # the temps of identical files
        except BaseException:
            if not journal_written:  # nothing renamed: the old set stays, the temps go
                self.discard()
            raise  # else the journal is rolled forward by the next recover()
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
