"""What the store trusts when it reads (issue 29: items 7, 8, 9, 10, 11) and tests that kill the four
mutants tests/test_store_faults.py let live (page checksums off, the duplicate-key check off, the schema
check on read off, the compaction lock removed).

Every test breaks a stored part as a user's disk, editor or cluster would (a bit rotted in place after
the part was verified, a column dropped by a rewrite, a FIFO, a permission, a full table of open files,
a writer in another PID namespace, clocks and time zones that disagree) and checks what a reader sees.
Written against the package it imports, without the suite's fixtures, so it can run on any checkout."""
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import randml_core
import randml_core.store as store_mod
from randml_core.runner import run
from randml_core.store import Store, StoreError, rows_checksum

REPO = Path(randml_core.__file__).resolve().parent.parent
SMALL = ("experiment=tiny", "dataset=heart", "model=svc")  # 3 tasks (parts) x 4 cells (SVC-rbf: 2 gamma x 2 C)


def _spec():
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    from randml_core.config import build_spec
    with initialize_config_dir(config_dir=str(REPO / "conf"), version_base="1.3"):
        cfg = compose(config_name="config", overrides=list(SMALL))
    return build_spec(OmegaConf.to_container(cfg, resolve=True))


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    """A store filled once by the runner (3 parts of 4 rows, never read yet)."""
    root = tmp_path_factory.mktemp("ran")
    assert run(_spec(), str(root), n_jobs=1, progress=False, write_every=0).computed == 12  # a part per task
    return root


def _copy(ran: Path, root: Path) -> Store:
    shutil.copytree(ran / "tiny", root / "tiny", ignore=shutil.ignore_patterns("leases"))
    return Store(root, "tiny")


@pytest.fixture
def store(ran, tmp_path):
    return _copy(ran, tmp_path)


def _keys(path: Path) -> set[str]:
    return set(pq.read_table(path, columns=["key"]).column("key").to_pylist())


def _status_keys(store: Store) -> set[str]:
    """The keys ``randml status`` and ``randml run`` count as stored (a column-subset read)."""
    return set(Store(store.root, store.experiment).read(columns=["key", "status"], ordered=False)["key"])


def _quarantined(store: Store, part: Path) -> bool:
    return (store.dir / "quarantine" / part.name).exists() and not part.exists()


def _rot(path: Path, pos: int, mask: int = 0x01) -> None:
    """Flip bits of one byte in place, keeping inode, size and mtime: bit rot, not a rewrite."""
    st = path.stat()
    with open(path, "r+b") as fh:
        fh.seek(pos)
        byte = fh.read(1)[0]
        fh.seek(pos)
        fh.write(bytes([byte ^ mask]))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def _footer_start(data: bytes) -> int:
    return len(data) - 8 - int.from_bytes(data[-8:-4], "little")


def _gmean_page_byte(path: Path) -> int:
    """A byte inside the gmean column's data (not its footer)."""
    md = pq.ParquetFile(path).metadata
    col = next(md.row_group(0).column(i) for i in range(md.num_columns)
               if md.row_group(0).column(i).path_in_schema == "gmean")
    return (col.dictionary_page_offset or col.data_page_offset) + col.total_compressed_size - 3


def _write(path: Path, frame: pd.DataFrame, meta: bool = True) -> None:
    """``frame`` as a part at ``path`` with page checksums and, if ``meta``, randml's metadata as the code
    of 3290683 wrote it (schema version, rows checksum), both valid for these rows."""
    table = pa.Table.from_pandas(frame, preserve_index=False)
    if meta:
        table = table.replace_schema_metadata({**table.schema.metadata, b"randml.schema": b"1",
                                               b"randml.checksum": rows_checksum(table.to_pandas()).encode()})
    pq.write_table(table, path, write_page_checksum=True)


# -- item 7: every read verifies what it trusts ------------------------------------------------------


def test_renaming_gmean_by_one_bit_after_verification_is_caught_by_the_next_status_read(ran, tmp_path):
    """The issue's probe: a part verified once, then one bit of the column name ``gmean`` in its footer
    rots (same inode, size and mtime). ``status`` / ``run`` read only key and status: the part must not
    count as done, at every place the name is stored in the footer."""
    part = sorted((ran / "tiny").glob("part-*.parquet"))[0]
    data = part.read_bytes()
    hits = [m.start() for m in re.finditer(b"gmean", data) if m.start() >= _footer_start(data)]
    assert len(hits) >= 2  # the parquet schema and the pandas / arrow metadata
    for i, pos in enumerate(hits):
        st = _copy(ran, tmp_path / str(i))
        assert len(Store(st.root, "tiny").read()) == 12  # verified (and remembered)
        _rot(st.dir / part.name, pos)  # 'g' -> 'f': the column is now 'fmean'
        assert _status_keys(st).isdisjoint(_keys(part)), f"footer byte {pos}: part still counted as done"
        assert _quarantined(st, st.dir / part.name)
        assert Store(st.root, "tiny").read()["gmean"].notna().all()


def test_a_bit_flipped_anywhere_in_a_verified_part_is_detected_on_the_next_read(ran, tmp_path):
    """48 one-bit flips spread over the whole file (data pages, footer, magic bytes), each in a fresh
    copy of a verified store: every one is detected by the next column-subset read and quarantined."""
    part = sorted((ran / "tiny").glob("part-*.parquet"))[1]
    size = part.stat().st_size
    missed = []
    for i, pos in enumerate(np.linspace(0, size - 1, 48).astype(int)):
        st = _copy(ran, tmp_path / str(i))
        Store(st.root, "tiny").read(columns=["key", "status"])  # verified
        _rot(st.dir / part.name, int(pos), 1 << (i % 8))
        if not (_status_keys(st).isdisjoint(_keys(part)) and _quarantined(st, st.dir / part.name)):
            missed.append(int(pos))
    assert missed == []


def test_a_part_missing_a_column_its_metadata_lists_is_refused(store):
    """A part of this code lists its columns in its metadata; one without ``gmean`` (even with a rows
    checksum that matches what is left) does not read as done."""
    part = store.parts()[0]
    written, keys = pq.read_schema(part), _keys(part)
    frame = pd.read_parquet(part).drop(columns=["gmean"])
    table = pa.Table.from_pandas(frame, preserve_index=False)
    table = table.replace_schema_metadata({**table.schema.metadata, b"randml.schema": b"1",
                                           b"randml.checksum": rows_checksum(table.to_pandas()).encode(),
                                           b"randml.columns": json.dumps(written.names).encode()})
    pq.write_table(table, part)
    assert _status_keys(store).isdisjoint(keys) and _quarantined(store, part)
    assert json.loads(written.metadata[b"randml.columns"]) == written.names  # what Store.write records


# -- item 8: parts without randml's metadata -----------------------------------------------------------


@pytest.mark.parametrize("column", ["gmean", "inner_fold", "dataset"])
def test_a_part_without_metadata_and_without_a_column_is_refused_and_recomputed(store, column, caplog):
    part = store.parts()[1]
    frame = pd.read_parquet(part)
    _write(part, frame.drop(columns=[column]), meta=False)
    with caplog.at_level("WARNING", logger="randml_core.store"):
        assert _status_keys(store) == set(Store(store.root, "tiny").read()["key"])
    assert _quarantined(store, part) and column in caplog.text and part.name in caplog.text
    assert run(_spec(), str(store.root), n_jobs=1, progress=False).computed == 4
    again = Store(store.root, "tiny").read()
    assert len(again) == 12 and again.set_index("key").loc[frame["key"], "gmean"].tolist() == frame["gmean"].tolist()


def test_a_whole_part_without_metadata_whose_cells_all_failed_is_still_read(store):
    """Not over-strict: a part of the code before checksums, every cell failed (null metrics)."""
    part = store.parts()[0]
    frame = pd.read_parquet(part).assign(status="failed", error="ValueError: x", gmean=None,
                                         balanced_accuracy=None, accuracy=None)
    _write(part, frame, meta=False)
    got = Store(store.root, "tiny").read().set_index("key")
    assert len(got) == 12 and (got.loc[frame["key"], "status"] == "failed").all()
    assert got.loc[frame["key"], "gmean"].isna().all() and not (store.dir / "quarantine").exists()


# -- item 10: read errors that are not corruption --------------------------------------------------------


def _env() -> dict:
    return {**os.environ, "PYTHONPATH": str(REPO), "RANDML_OFFLINE": "1"}


def test_a_fifo_named_like_a_part_makes_status_fail_fast_not_hang(store, tmp_path):
    fifo = store.dir / "part-20260101T000000-host-1-fifo.parquet"
    os.mkfifo(fifo)
    try:
        out = subprocess.run([sys.executable, "-m", "randml_core.cli", "status", *SMALL,
                              f"store_dir={store.root}", f"hydra.run.dir={tmp_path}/logs"],
                             env=_env(), capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail("randml status hangs on a FIFO named part-*.parquet")
    assert out.returncode == 2, out.stderr[-2000:]
    assert fifo.name in out.stderr and "FIFO" in out.stderr and "Traceback" not in out.stderr
    assert fifo.exists() and not (store.dir / "quarantine").exists()


def test_a_directory_named_like_a_part_is_an_error_not_a_quarantine(store):
    odd = store.dir / "part-20260101T000000-host-1-dir.parquet"
    odd.mkdir()
    with pytest.raises(StoreError, match=re.escape(odd.name) + ".*directory"):
        Store(store.root, "tiny").read()
    assert odd.is_dir() and not (store.dir / "quarantine").exists()


def _no_dac_override() -> list[str] | None:
    """A command prefix under which file permissions apply to this user (root ignores them)."""
    if os.geteuid() != 0:
        return []
    caps = "-dac_override,-dac_read_search"
    probe = ["setpriv", f"--inh-caps={caps}", f"--bounding-set={caps}", "true"]
    try:
        ok = subprocess.run(probe, capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        ok = False
    return probe[:-1] if ok else None


_READ = """
import sys
from randml_core.store import Store, StoreError
try:
    print("rows", len(Store(sys.argv[1], "tiny").read()))
except StoreError as exc:
    print("StoreError", exc)
"""


def test_a_part_that_cannot_be_opened_for_permission_is_an_error_never_quarantined(store):
    prefix = _no_dac_override()
    if prefix is None:
        pytest.skip("running as root without setpriv: file permissions cannot be enforced")
    part = store.parts()[1]
    part.chmod(0)
    out = subprocess.run([*prefix, sys.executable, "-c", _READ, str(store.root)], env=_env(),
                         capture_output=True, text=True, timeout=120)
    for p in (part, store.dir / "quarantine" / part.name):
        if p.exists():
            p.chmod(0o644)
    assert out.stdout.startswith("StoreError") and part.name in out.stdout and "ermission" in out.stdout, \
        out.stdout + out.stderr[-2000:]
    assert part.exists() and not (store.dir / "quarantine").exists()
    assert len(Store(store.root, "tiny").read()) == 12


_EMFILE = """
import glob, os, resource, sys, threading
import pandas as pd, pyarrow.parquet as pq
from randml_core.store import Store, StoreError
root, mode = sys.argv[1], sys.argv[2]
# warm up what pandas and pyarrow import lazily (an import needs a file too), without the store's reader
pd.DataFrame(columns=["key"]), [pq.read_table(p).to_pandas() for p in glob.glob(root + "/tiny/part-*.parquet")]
held, real_parts = [], Store.parts

def parts(self):  # once the parts are listed, every file descriptor of the process is taken
    out = real_parts(self)
    if not held:
        resource.setrlimit(resource.RLIMIT_NOFILE, (len(os.listdir("/proc/self/fd")) + 16,
                                                    resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
        try:
            while True:
                held.append(os.open(os.devnull, os.O_RDONLY))
        except OSError:
            pass
        if mode == "freed":  # another thread of the reader closes its files soon after
            threading.Timer(0.15, lambda: [os.close(fd) for fd in held[:32]]).start()
    return out
Store.parts = parts
try:
    result = "rows %d" % len(Store(root, "tiny").read())
except StoreError as exc:
    result = "StoreError %s" % exc
for fd in held[32:] if mode == "freed" else held:
    os.close(fd)
print(result)
"""


@pytest.mark.parametrize("mode", ["full", "freed"])
def test_too_many_open_files_is_retried_then_an_error_never_a_quarantine(store, mode):
    out = subprocess.run([sys.executable, "-c", _EMFILE, str(store.root), mode], env=_env(),
                         capture_output=True, text=True, timeout=120)
    if mode == "full":
        assert out.stdout.startswith("StoreError") and "open files" in out.stdout, out.stdout + out.stderr[-2000:]
    else:  # freed within the retries: read as if nothing happened
        assert out.stdout.strip() == "rows 12", out.stdout + out.stderr[-2000:]
    assert len(store.parts()) == 3 and not (store.dir / "quarantine").exists()


def test_out_of_memory_while_verifying_is_an_error_never_a_quarantine(store, monkeypatch):
    def no_memory(frame):
        raise MemoryError
    monkeypatch.setattr(store_mod, "rows_checksum", no_memory)
    with pytest.raises(StoreError, match="part-.*out of memory"):
        Store(store.root, "tiny").read()
    monkeypatch.undo()
    assert len(store.parts()) == 3 and not (store.dir / "quarantine").exists()
    assert len(Store(store.root, "tiny").read()) == 12


# -- item 11: one rule for which duplicate row wins --------------------------------------------------------


def _set_tz(tz: str | None) -> None:
    if tz is None:
        os.environ.pop("TZ", None)
    else:
        os.environ["TZ"] = tz
    time.tzset()


def test_every_read_keeps_the_same_row_per_key_whatever_the_time_zone_and_part_names(store, tmp_path):
    """Two parts with the same 4 keys. Hand-worked winners: k1 failed then recomputed ok -> ok; k2 ok, a
    later run failed -> ok (retry_failed never recomputes an ok cell, so an ok row is never replaced by a
    failure); k3 ok twice, stamped 12:00+05:00 (07:00 UTC) and 08:00+00:00 -> the 08:00 UTC row, though
    its text sorts first; k4 failed twice -> the later UTC failure. Full reads and key/status reads agree,
    in every time zone, whichever part's file name sorts first."""
    base = Store(store.root, "tiny").read().head(4).reset_index(drop=True)
    k = base["key"].tolist()
    a = base.assign(status=["failed", "ok", "ok", "failed"], gmean=[np.nan, 0.21, 0.31, np.nan],
                    error=["a1", None, None, "a4"], timestamp=["2026-01-01T10:00:00+00:00"] * 2
                    + ["2026-01-01T12:00:00+05:00", "2026-01-01T09:00:00+00:00"])
    b = base.assign(status=["ok", "failed", "ok", "failed"], gmean=[0.12, np.nan, 0.32, np.nan],
                    error=[None, "b2", None, "b4"], timestamp=["2026-01-01T11:00:00+00:00"] * 2
                    + ["2026-01-01T08:00:00+00:00", "2026-01-01T10:00:00+00:00"])
    want = {k[0]: ("ok", 0.12, None), k[1]: ("ok", 0.21, None), k[2]: ("ok", 0.32, None), k[3]: ("failed", None, "b4")}
    early, late = "part-00010101T000000-aa-1-00000000.parquet", "part-99991231T235959-zz-1-ffffffff.parquet"
    old_tz = os.environ.get("TZ")
    try:
        for i, (name_a, name_b) in enumerate([(late, early), (early, late)]):
            st = Store(tmp_path / str(i), "tiny")
            for frame, name in ((a, name_a), (b, name_b)):
                st.write(frame).rename(st.dir / name)
            for tz in ("UTC", "America/Los_Angeles", "Asia/Kolkata", "Pacific/Kiritimati"):
                _set_tz(tz)
                full = Store(st.root, "tiny").read()
                sub = Store(st.root, "tiny").read(columns=["key", "status", "gmean", "error"], ordered=False)
                for got in (full, sub):
                    seen = {r.key: (r.status, None if pd.isna(r.gmean) else r.gmean, r.error if isinstance(r.error, str)
                                    else None) for r in got.itertuples()}
                    assert seen == want, (tz, name_a, got)
    finally:
        _set_tz(old_tz)


# -- item 9: a temp's writer is alive while it holds the temp's lock --------------------------------------

_HOLD = "import fcntl, sys; f = open(sys.argv[1], 'rb'); fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); sys.stdin.read()"


def test_a_temp_locked_by_its_writer_survives_cleanup_whatever_its_pid_says(tmp_path):
    """A writer in another PID namespace: the pid in its temp's name is dead here (or someone else's).
    It holds the temp's lock, so the temp stays; once it is gone (lock released), the temp is removed."""
    st = Store(tmp_path, "x")
    st.dir.mkdir(parents=True)
    dead = subprocess.Popen(["true"])
    dead.wait()
    kernel = getattr(store_mod, "_KERNEL", "0")
    tmp = st.dir / f".part-20260101T000000-{store_mod._HOST}-{dead.pid}-aaaa1111.parquet-bbbb2222.{kernel}.tmp"
    tmp.write_bytes(b"PAR1 half written")
    holder = subprocess.Popen([sys.executable, "-c", _HOLD, str(tmp)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        st.cleanup_temp()
        assert tmp.exists(), "the temp of a live writer (its lock held) was removed"
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    assert st.cleanup_temp() == 1 and not tmp.exists()


_SLOW_WRITER = """
import sys
import pandas as pd
import randml_core.store as sm
real = sm.pq.write_table
def slow(table, where, **kw):
    real(table, where, **kw)
    print("written", flush=True)
    sys.stdin.read()  # the parent runs cleanup_temp now
sm.pq.write_table = slow
print(sm.Store(sys.argv[1], "tiny").write(pd.read_parquet(sys.argv[2])).name, flush=True)
"""


def test_a_real_writer_holds_its_temp_until_it_is_renamed(store, tmp_path):
    src = store.parts()[0]
    pd.read_parquet(src).to_parquet(tmp_path / "rows.parquet")
    src.unlink()
    writer = subprocess.Popen([sys.executable, "-c", _SLOW_WRITER, str(store.root), str(tmp_path / "rows.parquet")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=_env())
    try:
        assert writer.stdout.readline().strip() == "written"
        temps = list(store.dir.glob(".part-*.tmp"))
        assert len(temps) == 1
        assert store.cleanup_temp() == 0 and temps[0].exists()
    finally:
        writer.stdin.close()
    name = writer.stdout.readline().strip()
    assert writer.wait(timeout=60) == 0 and (store.dir / name).exists()
    assert len(Store(store.root, "tiny").read()) == 12 and not list(store.dir.glob(".*.tmp"))


# -- the four mutants that survived tests/test_store_faults.py ---------------------------------------------


def test_mutant_page_checksums_off_at_write_every_part_carries_page_checksums(store):
    """Kills: ``write_page_checksum=True`` removed from Store.write (parquet then has no CRC to check)."""
    part = store.parts()[0]
    pq.read_table(part, page_checksum_verification=True)  # intact: reads
    _rot(part, _gmean_page_byte(part), 0x5A)
    with pytest.raises(Exception, match="(?i)crc|checksum"):
        pq.read_table(part, page_checksum_verification=True)


def test_mutant_page_checksums_off_at_read_a_legacy_part_s_flipped_value_is_caught(store):
    """A part without randml's rows checksum (written before it existed) but with page checksums: a
    flipped byte in a value is only caught by verifying the pages. Kills: ``page_checksum_verification``
    removed from the read."""
    part = store.parts()[0]
    frame = pd.read_parquet(part)
    # plain doubles, uncompressed: a flipped bit in a value decodes to another valid number
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), part, write_page_checksum=True,
                   compression="none", use_dictionary=False)
    _rot(part, _gmean_page_byte(part), 0x01)
    assert pd.read_parquet(part)["gmean"].tolist() != frame["gmean"].tolist()  # unchecked, a wrong value
    got = Store(store.root, "tiny").read()
    assert len(got) == 8 and not got["key"].isin(frame["key"]).any() and _quarantined(store, part)


def test_mutant_duplicate_key_check_off(store):
    """Kills: the duplicated-key check of validate_rows removed. Rows with a key twice are never stored,
    and a part holding a key twice (its checksum valid) is never read."""
    frame = pd.read_parquet(store.parts()[0])
    twice = pd.concat([frame, frame.head(1).assign(gmean=0.0)], ignore_index=True)
    with pytest.raises(StoreError, match="duplicated cell key"):
        store.write(twice)
    part = store.parts()[1]
    _write(part, pd.concat([pd.read_parquet(part), pd.read_parquet(part).head(1).assign(gmean=0.0)]))
    assert len(Store(store.root, "tiny").read()) == 8 and _quarantined(store, part)


def test_mutant_schema_check_on_read_off(store, caplog):
    """Kills: validate_schema removed from the read. A part whose ``fold`` is text, with a rows checksum
    that matches those rows, is refused (only the schema check can tell)."""
    part = store.parts()[2]
    frame = pd.read_parquet(part)
    _write(part, frame.assign(fold=frame["fold"].astype(str)))
    with caplog.at_level("WARNING", logger="randml_core.store"):
        got = Store(store.root, "tiny").read()
    assert len(got) == 8 and _quarantined(store, part) and "'fold'" in caplog.text


_LOCK = "import fcntl, sys; f = open(sys.argv[1], 'a'); fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); sys.stdin.read()"


def test_mutant_compaction_lock_removed(store):
    """Kills: _compaction_lock always yielding True. While another process compacts (holds the lock),
    compact() does nothing and every part stays; after, it merges them into one."""
    before = sorted(p.name for p in store.parts())
    holder = subprocess.Popen([sys.executable, "-c", _LOCK, str(store.dir / ".compact.lock")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        assert store.compact() is None and sorted(p.name for p in store.parts()) == before
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    assert store.compact() is not None and len(store.parts()) == 1 and len(store.read()) == 12


def test_read_columns_equals_the_full_read_with_and_without_pandas(store, monkeypatch):
    """The pyarrow path (every part verified before) and the full read give the same rows; a key stored in two
    parts takes the full read's dedupe rule (ok wins over a later failure)."""
    cols = ["key", "status", "dataset", "gmean", "task_seconds"]
    full = Store(store.root, "tiny").read(columns=cols, ordered=False)
    fast = Store(store.root, "tiny")
    calls = []
    monkeypatch.setattr(Store, "read", lambda self, *a, **k: calls.append(1) or full)
    got = fast.read_columns(cols)
    assert calls == []  # verified parts, unique keys: no full read
    assert got == {c: full[c].tolist() for c in cols}
    monkeypatch.undo()
    again = full.head(2)  # the same two keys again in a new part: failed, and stamped later
    Store(store.root, "tiny").write(Store(store.root, "tiny").read().set_index("key").loc[again["key"]]
                                     .reset_index().assign(status="failed", gmean=np.nan,
                                                           timestamp="2100-01-01T00:00:00+00:00"))
    st = Store(store.root, "tiny")
    st.read()  # verify the new part
    got = Store(store.root, "tiny").read_columns(["key", "status", "gmean"])
    want = Store(store.root, "tiny").read(columns=["key", "status", "gmean"], ordered=False)
    assert sorted(zip(got["key"], got["status"])) == sorted(zip(want["key"], want["status"]))
    assert dict(zip(got["key"], got["status"]))[again["key"].iloc[0]] == "ok"
    assert Store(store.root, "tiny").keys() == set(want["key"])


def test_a_param_column_that_mixes_kinds_across_parts_compacts(store):
    """SVC's ``gamma: scale`` beside a grid's ``gamma: 0.1``: each part alone is one parquet type (strings in one,
    floats in the others), the merged part of a compaction mixed them and pyarrow refused it (a leaderboard run
    died at its compaction). The merged p_gamma holds JSON text; params_json, the keys and the scores are kept."""
    before = store.read(ordered=False)
    assert before["p_gamma"].dtype == float
    extra = before.iloc[[0]].assign(key="scale-row", p_gamma="scale", params_json='{"C": 1.0, "gamma": "scale"}')
    store.write(extra.reset_index(drop=True))
    assert store.compact() is not None and len(store.parts()) == 1
    after = store.read(ordered=False).set_index("key")
    assert after.loc["scale-row", "p_gamma"] == '"scale"'
    assert json.loads(after.loc["scale-row", "params_json"])["gamma"] == "scale"
    old = before.set_index("key")
    assert [json.loads(v) for v in after.loc[old.index, "p_gamma"]] == old["p_gamma"].tolist()
    assert after.loc[old.index, "gmean"].tolist() == old["gmean"].tolist()
    # one write whose rows mix the kinds (one task with both models) is stored the same way
    got = store_mod.uniform_params(pd.DataFrame({"p_gamma": [0.1, "scale", None]}))["p_gamma"].tolist()
    assert got[:2] == ["0.1", '"scale"'] and pd.isna(got[2])


def test_a_frame_is_verified_column_by_column_with_the_checksum_of_its_whole_rows():
    """store.table_checksum (one column in pandas at a time, how a frame file is verified) equals rows_checksum of
    the whole table in pandas, for every column type a frame holds and for missing values; one changed value, or
    two columns swapped, changes it."""
    import numpy as np
    import pyarrow as pa

    from randml_core.store import table_checksum
    table = pa.table({"key": ["a", "b", None], "n": [1, 2, 3], "x": [0.5, np.nan, None], "ok": [True, False, None],
                      "nothing": pa.nulls(3), "i8": pa.array([1, None, 3], pa.int8())})
    assert table_checksum(table) == rows_checksum(table.to_pandas())
    changed = table.set_column(1, "n", pa.array([1, 2, 4]))
    swapped = table.rename_columns(["n", "key", "x", "ok", "nothing", "i8"])
    assert table_checksum(changed) != table_checksum(table) and table_checksum(swapped) != table_checksum(table)
