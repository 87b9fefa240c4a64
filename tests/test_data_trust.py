"""Issue 29, data and artefact trust: cache files get the umask's permissions (one atomic writer);
report temps are owned by a lock, not a pid (a writer in another PID namespace is never taken for
dead, and a set is never committed mixed); malformed data is a data error (exit 2, the card named),
never "needs download" (exit 3); a card's file above the size limit is refused before it is loaded.

Self-contained (no conftest fixtures), so the file also runs against an older checkout."""
from __future__ import annotations

import json
import os
import secrets
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import randml_core
from randml_core import artefacts
from randml_core.artefacts import ArtefactSet, recover

PKG_ROOT = Path(randml_core.__file__).resolve().parent.parent


def _env(tmp_path: Path, **extra) -> dict:
    env = dict(os.environ)
    env.update(RANDML_OFFLINE="1", RANDML_SYSTEM_DATA="0", RANDML_DATA_CACHE=str(tmp_path / "cache"),
               RANDML_CHECKS_CACHE=str(tmp_path / "checks"), PYTHONPATH=str(PKG_ROOT))
    env.pop("RANDML_MAX_DATA_VALUES", None)
    env.update(extra)
    return env


def _randml(args, tmp_path: Path, **extra) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "randml_core.cli", *args], cwd=tmp_path, env=_env(tmp_path, **extra),
                          capture_output=True, text=True, timeout=600)


# ----------------------------------------------------------------------------- item 5: cache file modes
class _FakeOpenML:
    """What ``openml.datasets.get_dataset`` returns, offline: a 4-row table."""
    name, version, default_target_attribute = "fake", 1, "class"

    def get_data(self, target=None, **kwargs):
        frame = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "class": ["p", "n", "n", "p"]})
        X = frame.drop(columns=[target])
        return X, frame[target], [False], list(X.columns)


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_data_cache_files_get_the_umasks_permissions(tmp_path, monkeypatch, umask, mode):
    import openml

    from randml_core.data.sources import OpenMLSource
    monkeypatch.delenv("RANDML_OFFLINE", raising=False)
    monkeypatch.setenv("RANDML_DATA_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(openml.datasets, "get_dataset", lambda data_id, **kw: _FakeOpenML())
    src = OpenMLSource(31337, cache_dir=tmp_path / "openml")
    old = os.umask(umask)
    try:
        src.download("fake")
        memo = tmp_path / "memo.json"
        artefacts.atomic_write(memo, "{}")
    finally:
        os.umask(old)
    path = tmp_path / "openml" / "31337.npz"
    assert stat.S_IMODE(path.stat().st_mode) == mode  # 0o666 & ~umask, as a plain open() gives
    assert stat.S_IMODE(memo.stat().st_mode) == mode
    assert sorted(p.name for p in (tmp_path / "openml").iterdir()) == ["31337.npz"]  # no temp left
    X, y, meta = src.read_cache()  # and the file is the verified cache
    assert X.ravel().tolist() == [1.0, 2.0, 3.0, 4.0] and meta["data_id"] == 31337


# ----------------------------------------------------------------------------- item 9: liveness by lock
DEAD_PID = 4_000_000  # above Linux's pid_max: no such process here, as a writer in another PID namespace


def _hold_lock(path: Path) -> subprocess.Popen:
    """Another process holding ``path``'s flock (as its writer does) until killed."""
    proc = subprocess.Popen([sys.executable, "-c", "import fcntl, sys, time; f = open(sys.argv[1], 'rb'); "
                             "fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); time.sleep(120)", str(path)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_recover_leaves_a_locked_temp_of_an_unknown_pid_and_removes_it_once_unlocked(tmp_path):
    root = tmp_path / "res"
    (root / "tables").mkdir(parents=True)
    temp = root / "tables" / f".t.md.{DEAD_PID}-0123abcd.artefact.tmp"
    temp.write_bytes(b"half of a table")
    holder = _hold_lock(temp)
    try:
        assert recover(root) == [] and temp.read_bytes() == b"half of a table"
    finally:
        holder.kill()
        holder.wait()
    assert recover(root) == [f"removed {temp}"] and not temp.exists()


def _recover_elsewhere(root: Path, tmp_path: Path) -> list[str]:
    """recover(root) in another process, as a report of another container would run it."""
    code = "import json, sys; from randml_core.artefacts import recover; print(json.dumps(recover(sys.argv[1])))"
    res = subprocess.run([sys.executable, "-c", code, str(root)], env=_env(tmp_path), capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def _old_set(root: Path) -> None:
    (root / "tables").mkdir(parents=True)
    for n in "abc":
        (root / "tables" / f"{n}.md").write_text(f"old {n}\n")


def test_a_report_writer_whose_pid_is_unknown_here_keeps_its_temps_and_commits_the_whole_set(tmp_path, monkeypatch):
    """The writer's temps carry a pid that does not exist in the recovering process's namespace; a
    recover() there while the set is staged must not delete them: the commit writes all three files
    and a sidecar whose hashes are those of the files."""
    root = tmp_path / "res"
    _old_set(root)
    monkeypatch.setattr(artefacts, "_temp_name", lambda final: final.with_name(
        f".{final.name}.{DEAD_PID}-{secrets.token_hex(4)}.artefact.tmp"))
    with ArtefactSet(root, "t") as out:
        for n in "abc":
            out.write_text(root / "tables" / f"{n}.md", f"new {n}\n")
        assert _recover_elsewhere(root, tmp_path) == []
    assert [(root / "tables" / f"{n}.md").read_text() for n in "abc"] == ["new a\n", "new b\n", "new c\n"]
    meta = json.loads((root / "tables" / "t.meta.json").read_text())
    import hashlib
    assert meta["files"] == {f"tables/{n}.md": hashlib.sha256(f"new {n}\n".encode()).hexdigest() for n in "abc"}
    assert not [p for p in (root / "tables").iterdir() if p.name.startswith(".") and "artefact" in p.name]


def test_a_set_whose_staged_file_vanished_is_not_committed(tmp_path):
    """Never a mixed set: if a staged temp is gone at commit time (removed by someone), nothing is
    renamed, the old files stay, and the writer fails (no exit 0)."""
    root = tmp_path / "res"
    _old_set(root)
    out = ArtefactSet(root, "t")
    for n in "abc":
        out.write_text(root / "tables" / f"{n}.md", f"new {n}\n")
    out._staged[root / "tables" / "b.md"][0].unlink()
    with pytest.raises(artefacts.ArtefactError, match="b.md"):
        out.commit()
    assert [(root / "tables" / f"{n}.md").read_text() for n in "abc"] == ["old a\n", "old b\n", "old c\n"]
    assert not (root / "tables" / "t.meta.json").exists()
    assert sorted(p.name for p in (root / "tables").iterdir()) == ["a.md", "b.md", "c.md"]


def test_a_lease_is_taken_over_by_its_owners_free_lock_not_by_its_pid(tmp_path):
    """A live run whose pid this process cannot see (another PID namespace on this kernel) keeps its
    lease; once the run ends (its owner lock is free), the lease is taken over at once."""
    from randml_core.leases import Leases, read_lease
    d = tmp_path / "leases"
    code = ("import sys, time; from randml_core.leases import Leases; ls = Leases(sys.argv[1]); "
            "assert ls.acquire('t'); print('held', flush=True); time.sleep(120)")
    owner = subprocess.Popen([sys.executable, "-c", code, str(d)], env=_env(tmp_path), stdout=subprocess.PIPE,
                             text=True)
    try:
        assert owner.stdout.readline().strip() == "held"
        lease = json.loads((d / "t.lease").read_text())
        lease["pid"] = DEAD_PID  # what its pid looks like from another namespace: no such process
        (d / "t.lease").write_text(json.dumps(lease))
        me = Leases(d)
        assert not me.acquire("t") and read_lease(d / "t.lease").token == lease["token"]
    finally:
        owner.kill()
        owner.wait()
    assert me.acquire("t") and me.taken_over == 1 and read_lease(d / "t.lease").token == me.token


# ----------------------------------------------------------------------------- item 12: data errors
def _card_conf(tmp_path: Path, name: str, source: str, task: str = "binary") -> Path:
    conf = tmp_path / "conf"
    (conf / "dataset").mkdir(parents=True, exist_ok=True)
    (conf / "dataset" / f"{name}.yaml").write_text(
        f"name: {name}\ntask: {task}\nsource: {source}\nlicence: CC0\ncitation: none\n")
    return conf


def _table(n: int = 40) -> pd.DataFrame:
    i = np.arange(n)
    return pd.DataFrame({"x1": i * 0.5, "x2": (i * 7) % 11, "label": np.where(i % 3 == 0, "yes", "no")})


def _cli(cmd: str, conf: Path, name: str, tmp_path: Path, **env) -> subprocess.CompletedProcess:
    return _randml([cmd, "--config-dir", str(conf), "experiment=tiny", f"dataset={name}",
                    f"store_dir={tmp_path}/store", f"results_dir={tmp_path}/results", f"hydra.run.dir={tmp_path}/logs",
                    "n_jobs=1", "progress=false"], tmp_path, **env)


def test_nan_labels_are_a_data_error_naming_the_card_not_needs_download(tmp_path):
    conf = _card_conf(tmp_path, "nanlabels", "{kind: csv, path: nanlabels.csv, target: label}")
    frame = _table()
    frame.loc[[5, 17], "label"] = np.nan
    frame.to_csv(conf / "dataset" / "nanlabels.csv", index=False)
    res = _cli("plan", conf, "nanlabels", tmp_path)
    assert res.returncode == 2, res.stdout + res.stderr
    card = str((conf / "dataset" / "nanlabels.yaml").resolve())
    assert "data error: dataset 'nanlabels'" in res.stderr and card in res.stderr
    assert "2 rows" in res.stderr and "no `label` value" in res.stderr and "[5, 17]" in res.stderr
    assert "not available" not in res.stdout + res.stderr


def test_a_ragged_csv_is_a_data_error_at_plan_and_run(tmp_path):
    conf = _card_conf(tmp_path, "ragged", "{kind: csv, path: ragged.csv, target: label}")
    lines = _table().to_csv(index=False).splitlines()
    lines[8] += ",3.5"  # one row with a field more than the header
    (conf / "dataset" / "ragged.csv").write_text("\n".join(lines) + "\n")
    for cmd in ("plan", "run"):
        res = _cli(cmd, conf, "ragged", tmp_path)
        assert res.returncode == 2, (cmd, res.stdout + res.stderr)
        assert "data error: dataset 'ragged'" in res.stderr and "ragged.yaml" in res.stderr
        assert "Expected 3 fields in line 9, saw 4" in res.stderr
    assert not (tmp_path / "store" / "tiny").exists() or not list((tmp_path / "store" / "tiny").glob("part-*"))


def test_a_card_that_needs_a_download_is_still_unavailable_exit_3(tmp_path):
    conf = _card_conf(tmp_path, "remote", "{kind: openml, data_id: 987654321}")
    res = _cli("run", conf, "remote", tmp_path)
    assert res.returncode == 3, res.stdout + res.stderr
    assert "skipped remote: dataset 'remote': no source is available here" in res.stderr
    assert "`make data`" in res.stderr and "data error" not in res.stderr


def test_load_errors_are_classified_unavailable_or_data_error():
    from randml_core.data import loading
    from randml_core.data.checks import DataValidationError
    from randml_core.data.sources import (CorruptCacheError, DataSourceError, MalformedDataError,
                                          SourceUnavailableError)
    from randml_core.data.sources.base import download_failed
    assert loading.is_unavailable(SourceUnavailableError("offline"))
    assert loading.is_unavailable(download_failed("x", "downloading", ConnectionRefusedError("refused"), "h.test"))
    for exc in (MalformedDataError("ragged"), CorruptCacheError("bad checksum"), DataValidationError("NaN"),
                DataSourceError("other")):
        assert not loading.is_unavailable(exc)
        assert loading.data_error("x", exc).startswith("data error: dataset 'x'")


# ----------------------------------------------------------------------------- item 13: size guard
def test_a_parquet_above_the_size_limit_is_refused_from_its_metadata(tmp_path, monkeypatch):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from randml_core.data.sources import DataTooLargeError, TabularFileSource
    n = 2_000_000
    path = tmp_path / "big.parquet"
    pq.write_table(pa.table({"x": np.zeros(n, np.int8), "label": (np.arange(n) % 2).astype(np.int8)}), path)
    assert path.stat().st_size < 200_000  # small on disk, 4 million values in memory
    monkeypatch.setenv("RANDML_MAX_DATA_VALUES", "1000000")
    monkeypatch.setattr(pd, "read_parquet", lambda *a, **k: pytest.fail("the data was read"))
    src = TabularFileSource(path, "label", fmt="parquet")
    with pytest.raises(DataTooLargeError) as exc:
        src.load_detailed("big")
    msg = str(exc.value)
    assert "2,000,000 rows x 2 columns = 4,000,000 values" in msg and "limit of 1,000,000" in msg
    assert "RANDML_MAX_DATA_VALUES" in msg and "'big'" in msg
    # a source's own limit wins over the environment's
    assert TabularFileSource(path, "label", fmt="parquet", max_values=5_000_000).check_size("big") is None
    with pytest.raises(DataTooLargeError):
        TabularFileSource(path, "label", fmt="parquet", max_values=3_999_999).check_size("big")


def test_the_size_guard_at_randml_plan_names_the_card_and_exits_2(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq
    conf = _card_conf(tmp_path, "huge", "{kind: parquet, path: huge.parquet, target: label}")
    n = 300_000
    pq.write_table(pa.table({"x": np.arange(n) % 7, "label": np.arange(n) % 2}), conf / "dataset" / "huge.parquet")
    res = _cli("plan", conf, "huge", tmp_path, RANDML_MAX_DATA_VALUES="100000")
    assert res.returncode == 2, res.stdout + res.stderr
    assert "data error: dataset 'huge'" in res.stderr and "huge.yaml" in res.stderr
    assert "300,000 rows x 2 columns = 600,000 values" in res.stderr
    ok = _cli("plan", conf, "huge", tmp_path, RANDML_MAX_DATA_VALUES="0")  # 0: no limit
    assert ok.returncode == 0 and "huge: 3 task(s)" in ok.stdout, ok.stdout + ok.stderr


def test_a_csv_is_sized_by_its_lines_and_header_before_it_is_read(tmp_path, monkeypatch):
    from randml_core.data.sources import DataTooLargeError, TabularFileSource
    path = tmp_path / "t.csv"
    _table(1000).to_csv(path, index=False)  # 1000 rows x 3 columns
    src = TabularFileSource(path, "label")
    assert src.shape() == (1000, 3)
    monkeypatch.setenv("RANDML_MAX_DATA_VALUES", "2999")
    with pytest.raises(DataTooLargeError, match="1,000 rows x 3 columns = 3,000 values"):
        src.load_detailed("t")
    monkeypatch.setenv("RANDML_MAX_DATA_VALUES", "3000")
    assert src.load_detailed("t").X.shape == (1000, 2)
    monkeypatch.setenv("RANDML_MAX_DATA_VALUES", "lots")
    with pytest.raises(ValueError, match="RANDML_MAX_DATA_VALUES='lots'"):
        src.load_detailed("t")
