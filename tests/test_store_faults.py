"""Fault injection for the store and the runner: no data lost, no wrong value trusted, clear messages.

Each test breaks something a user reported (corrupt parts of every kind, a flipped byte, a read-only
store, a full disk at part write and at compaction, concurrent runs and readers around compaction,
temps of live runs, SIGTERM / SIGKILL of a parent with n_jobs=2) and checks what the store promises
(README "Guarantees")."""
import errno
import fcntl
import logging
import multiprocessing as mp
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import randml_core.store as store_mod
from randml_core.results import load
from randml_core.runner import run
from randml_core.store import Store, StoreError

SMALL = ("experiment=tiny", "dataset=heart", "model=svc")  # 3 folds x 4 cells (SVC-rbf: 2 gamma x 2 C), about a second


@pytest.fixture
def filled(compose, tmp_path):
    spec = compose(*SMALL)
    first = run(spec, tmp_path, n_jobs=1, progress=False, write_every=0)  # a part per task: three to corrupt
    store = Store(tmp_path, "tiny")
    assert len(store.parts()) == 3 and first.computed == 12
    return spec, store


def _rewrite(path: Path, frame: pd.DataFrame, keep_meta: bool = True) -> None:
    """Write ``frame`` over ``path`` as valid parquet (optionally with the original randml metadata)."""
    meta = pq.read_schema(path).metadata if keep_meta else None
    table = pa.Table.from_pandas(frame, preserve_index=False)
    if meta:
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), **{
            k: v for k, v in meta.items() if k.startswith(b"randml.")}})
    pq.write_table(table, path)


CORRUPTIONS = {
    "truncated": lambda p, f: p.write_bytes(p.read_bytes()[: p.stat().st_size // 2]),
    "not parquet": lambda p, f: p.write_text("key,status\nabc,ok\n"),
    "missing column": lambda p, f: _rewrite(p, f.drop(columns=["status"])),
    "wrong column type": lambda p, f: _rewrite(p, f.assign(fold=f["fold"].astype(str))),
    "metric as text": lambda p, f: _rewrite(p, f.assign(gmean=f["gmean"].astype(str))),
    "unknown status": lambda p, f: _rewrite(p, f.assign(status="done")),
    "duplicated keys": lambda p, f: _rewrite(p, pd.concat([f, f.head(1)])),
    "changed value, stale checksum": lambda p, f: _rewrite(p, f.assign(gmean=f["gmean"] / 16)),
    "newer schema version": lambda p, f: pq.write_table(pq.read_table(p).replace_schema_metadata(
        {**pq.read_schema(p).metadata, b"randml.schema": b"99"}), p),
}


@pytest.mark.parametrize("kind", list(CORRUPTIONS))
def test_corrupt_part_is_quarantined_named_and_recomputed(filled, kind, caplog, tmp_path):
    spec, store = filled
    part = store.parts()[1]
    frame = pd.read_parquet(part)
    CORRUPTIONS[kind](part, frame)
    with caplog.at_level(logging.WARNING, logger="randml_core.store"):
        again = run(spec, tmp_path, n_jobs=1, progress=False)
    assert part.name in caplog.text and "quarantine" in caplog.text
    assert again.computed == len(frame) == 4 and (tmp_path / "tiny" / "quarantine" / part.name).exists()
    fresh = load("tiny", store_dir=tmp_path)
    assert len(fresh) == fresh["key"].nunique() == 12
    assert fresh.set_index("key").loc[frame["key"], "gmean"].tolist() == frame["gmean"].tolist()


def _flip_in_gmean_page(path: Path) -> None:
    """Flip one byte inside the data page of the gmean column (the value, not the footer)."""
    md = pq.ParquetFile(path).metadata
    col = next(md.row_group(0).column(i) for i in range(md.num_columns)
               if md.row_group(0).column(i).path_in_schema == "gmean")
    start = col.dictionary_page_offset or col.data_page_offset
    data = bytearray(path.read_bytes())
    pos = start + col.total_compressed_size - 3  # inside the page body
    data[pos] ^= 0x5A
    path.write_bytes(bytes(data))


def test_flipped_byte_in_a_value_is_never_trusted(filled, tmp_path):
    spec, store = filled
    part = store.parts()[0]
    before = pd.read_parquet(part)
    _flip_in_gmean_page(part)
    # every reader refuses it: load (reports and notebooks), status-style key reads, run
    frame = Store(tmp_path, "tiny").read()
    assert not frame["key"].isin(before["key"]).any()
    assert (tmp_path / "tiny" / "quarantine" / part.name).exists()
    assert run(spec, tmp_path, n_jobs=1, progress=False).computed == 4
    assert load("tiny", store_dir=tmp_path).set_index("key").loc[before["key"], "gmean"].tolist() == \
        before["gmean"].tolist()


def test_checksum_is_verified_once_then_remembered_by_content_hash(filled, monkeypatch):
    _, store = filled
    calls = []
    real = store_mod.rows_checksum
    monkeypatch.setattr(store_mod, "rows_checksum", lambda f: calls.append(1) or real(f))
    Store(store.root, "tiny").read()
    assert len(calls) == 3  # first read: every part's rows checked against their checksum
    Store(store.root, "tiny").read(columns=["key", "status"])
    assert len(calls) == 3  # remembered (.verified.json) by the SHA-256 of each file's bytes
    (store.dir / ".verified.json").unlink()
    Store(store.root, "tiny").read(columns=["key", "status"])
    assert len(calls) == 6
    part = store.parts()[0]
    data = part.read_bytes()
    part.unlink()
    part.write_bytes(data)  # same bytes, new inode and mtime: still the verified content
    assert len(Store(store.root, "tiny").read()) == 12 and len(calls) == 6
    flipped = bytearray(data)
    flipped[-20] ^= 0x01  # one bit of the footer (the thrift file metadata before its length and "PAR1")
    part.write_bytes(bytes(flipped))
    assert len(Store(store.root, "tiny").read(columns=["key", "status"])) == 8  # detected, not trusted
    assert (store.dir / "quarantine" / part.name).exists()


def test_legacy_part_without_checksum_is_schema_checked_and_read(filled):
    _, store = filled
    part = store.parts()[0]
    frame = pd.read_parquet(part)
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), part)  # no randml metadata
    assert len(Store(store.root, "tiny").read()) == 12


def test_malformed_rows_are_never_stored(tmp_path):
    store = Store(tmp_path, "x")
    with pytest.raises(StoreError, match="missing column"):
        store.write([{"key": "a", "status": "ok"}])
    with pytest.raises(StoreError, match="unknown status"):
        store.write([{"key": "a", "status": "maybe", "model": "m", "family": "f", "params_json": "{}"}])
    assert store.parts() == [] and not list(tmp_path.rglob("*.tmp"))


@pytest.fixture
def read_only(monkeypatch):
    """Every write into a store raises EROFS (root ignores chmod, so the file system is simulated)."""
    def refuse(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")
    for name in ("replace", "mkdir", "unlink"):
        monkeypatch.setattr(store_mod.os, name, refuse, raising=True)
    monkeypatch.setattr(Path, "mkdir", refuse)
    monkeypatch.setattr(Path, "write_bytes", refuse)
    monkeypatch.setattr(Path, "write_text", refuse)
    monkeypatch.setattr(store_mod.pq, "write_table", refuse)


def test_read_only_store_reads_and_skips_a_bad_part(filled, caplog, monkeypatch, request):
    spec, store = filled
    part = store.parts()[2]
    part.write_bytes(part.read_bytes()[:100])
    request.getfixturevalue("read_only")
    with caplog.at_level(logging.WARNING, logger="randml_core.store"):
        frame = Store(store.root, "tiny").read()
    assert len(frame) == 8 and part.exists() and "not writable" in caplog.text and part.name in caplog.text
    with pytest.raises(StoreError, match="not writable.*store_dir="):
        run(spec, store.root, n_jobs=1, progress=False)  # refused before any work


def test_full_disk_at_part_write_and_at_compaction(filled, monkeypatch, caplog, tmp_path):
    spec, store = filled
    real = pq.write_table

    def half_then_enospc(table, where, **kw):
        real(table.slice(0, 1), where, **kw)  # some bytes reach the disk
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(store_mod.pq, "write_table", half_then_enospc)
    with pytest.raises(OSError, match="No space"):
        store.write(pd.read_parquet(store.parts()[0]).assign(key=lambda f: f["key"] + "x"))
    assert not list(store.dir.glob(".*.tmp")) and len(store.parts()) == 3
    with caplog.at_level(logging.WARNING, logger="randml_core.store"):
        assert store.compact() is None
    assert "compaction" in caplog.text and len(store.parts()) == 3
    monkeypatch.setattr(store_mod.pq, "write_table", real)
    # the failed compaction is not an error for the next run: nothing is missing, nothing recomputed
    assert run(spec, tmp_path, n_jobs=1, progress=False).computed == 0
    assert store.compact() is not None and len(store.parts()) == 1 and len(store.read()) == 12


def test_cleanup_removes_only_temps_of_dead_writers(tmp_path):
    """A temp is removed when nobody holds its lock (on this kernel), or when it is 6 h old and unlocked
    (another kernel's or an older version's): never by its pid."""
    store = Store(tmp_path, "x")
    store.dir.mkdir(parents=True)
    host, kernel = store_mod._HOST, store_mod._KERNEL
    dead = subprocess.Popen(["true"])
    dead.wait()
    live = store.dir / f".part-20260101T000000-{host}-{dead.pid}-aaaa.parquet-0000.{kernel}.tmp"
    gone = store.dir / f".part-20260101T000000-{host}-{os.getpid()}-bbbb.parquet-1111.{kernel}.tmp"
    other = store.dir / ".part-20260101T000000-otherhost-1-cccc.parquet.tmp"
    young = store.dir / ".part-20260101T000000-otherhost-1-dddd.parquet.tmp"
    for p in (live, gone, other, young):
        p.write_bytes(b"x")
    os.utime(other, (time.time() - 7 * 3600,) * 2)
    with open(live, "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # its writer (whatever its pid says) still holds it
        assert store.cleanup_temp() == 2 and live.exists() and young.exists()
        assert not gone.exists() and not other.exists()
    assert store.cleanup_temp() == 1 and not live.exists() and young.exists()


def _compactor(root: str, rounds: int) -> None:
    """Another process: split the store into many parts and compact them again, over and over."""
    st = Store(root, "tiny")
    for _ in range(rounds):
        frame = st.read()
        for i in range(0, len(frame), 3):
            st.write(frame.iloc[i:i + 3])
        st.compact()


def test_readers_and_compaction_in_parallel_lose_nothing(filled):
    _, store = filled
    expected = set(store.read()["key"])
    proc = mp.get_context("spawn").Process(target=_compactor, args=(str(store.root), 15))
    proc.start()
    reads = 0
    while proc.is_alive() or reads < 5:
        keys = set(Store(store.root, "tiny").read(columns=["key", "status"])["key"])
        assert keys == expected
        reads += 1
    proc.join()
    assert proc.exitcode == 0 and reads >= 5
    assert not (store.dir / "quarantine").exists()  # a vanished part is never taken for a corrupt one


def _children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow
@pytest.mark.parametrize("sig,wait_workers", [(signal.SIGTERM, True), (signal.SIGKILL, True),
                                               (signal.SIGKILL, False)])
def test_workers_die_with_their_parent(tmp_path, randml_cmd, cli_env, sig, wait_workers):
    """n_jobs=2: after SIGTERM or SIGKILL of the run (while its workers compute, or while they are still
    starting up), no worker or resource tracker is left after 10 s."""
    proc = subprocess.Popen([*randml_cmd, "run", "experiment=tiny", "protocol.repeats=30", "n_jobs=2",
                             "progress=false", f"store_dir={tmp_path}/s", f"hydra.run.dir={tmp_path}/logs"],
                            env=cli_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.time() + 90
    kids: list[int] = []
    while time.time() < deadline and len(kids) < 3:
        kids = _children(proc.pid)
        time.sleep(0.2)
    assert len(kids) >= 3, "the run did not start its workers"
    if wait_workers:  # until a part is written: the workers are computing
        while time.time() < deadline and not list((tmp_path / "s" / "tiny").glob("part-*.parquet")):
            time.sleep(0.2)
    kids = _children(proc.pid)
    os.kill(proc.pid, sig)
    proc.wait(timeout=30)
    end = time.time() + 10
    while time.time() < end and any(_alive(k) for k in kids):
        time.sleep(0.5)
    left = [k for k in kids if _alive(k)]
    for k in left:
        os.kill(k, signal.SIGKILL)
    assert left == [], f"orphans after {signal.Signals(sig).name}: {left}"


def test_ctrl_c_ends_with_a_message_and_exit_130_then_resumes(tmp_path, randml_cmd, cli_env):
    """SIGINT to a run (as Ctrl-C) while it computes: one line saying how to resume, no traceback, exit 130;
    the same command then computes only the cells that were not stored."""
    args = [*randml_cmd, "run", "experiment=tiny", "protocol.repeats=30", "n_jobs=2", "progress=false",
            f"store_dir={tmp_path}/s", f"hydra.run.dir={tmp_path}/logs"]
    proc = subprocess.Popen(args, env=cli_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    deadline = time.time() + 90
    while time.time() < deadline and not list((tmp_path / "s" / "tiny").glob("part-*.parquet")):
        time.sleep(0.2)
    os.kill(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err[-2000:]
    assert "interrupted" in err and "run the same command again to resume" in err and "Traceback" not in err
    again = subprocess.run(args, env=cli_env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr[-2000:]
    stored = int(re.search(r"computed \d+ cells .*?, (\d+) already stored", again.stderr).group(1))
    assert stored > 0  # the interrupted run's finished tasks were kept, not recomputed
