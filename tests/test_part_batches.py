"""Rows of many tasks in one store part (issue 44, writer.PartWriter): fewer parts, the same rows, nothing lost on an
interrupt, a kill -9 loses at most the last ``write_every`` seconds and the rerun computes only those."""
from __future__ import annotations

import signal
import subprocess
import time

import pandas as pd
import pytest

from randml_core.results import load
from randml_core.runner import VOLATILE_COLUMNS, run
from randml_core.writer import PartWriter as _Writer
from randml_core.store import Store, StoreError

SMALL = ("experiment=tiny", "dataset=heart", "model=svc", "protocol.repeats=4")  # 12 tasks x 4 cells (SVC-rbf)


def _rows(store: Store) -> pd.DataFrame:
    frame = store.read()
    return frame.drop(columns=[c for c in VOLATILE_COLUMNS if c in frame]).sort_values("key").reset_index(drop=True)


def test_batched_parts_hold_the_same_rows_as_a_part_per_task(compose, tmp_path):
    spec = compose(*SMALL)
    one = run(spec, str(tmp_path / "one"), n_jobs=1, progress=False, write_every=0)
    many = run(spec, str(tmp_path / "batched"), n_jobs=1, progress=False, write_every=3600)
    assert one.computed == many.computed == 48
    per_task, batched = Store(tmp_path / "one", "tiny"), Store(tmp_path / "batched", "tiny")
    assert len(per_task.parts()) == 12
    # the first task is written at once (no part yet), the other 11 wait for the end of the run: 2 parts
    assert len(batched.parts()) == 2
    pd.testing.assert_frame_equal(_rows(per_task), _rows(batched), check_exact=True)
    assert run(spec, str(tmp_path / "batched"), n_jobs=1, progress=False).computed == 0


class _FakeLeases:
    def __init__(self):
        self.released: list[str] = []

    def release(self, tid):
        self.released.append(tid)


class _FakeFresh:
    def __init__(self):
        self.seen: set[str] = set()


def _row(key: str) -> dict:
    return {"key": key, "status": "ok", "model": "m", "family": "f", "params_json": "{}", "gmean": 0.5,
            "converged": True}


def test_the_writer_releases_a_lease_only_after_its_rows_are_written_and_writes_what_waits_on_time(tmp_path):
    store, leases, fresh = Store(tmp_path, "e"), _FakeLeases(), _FakeFresh()
    with _Writer(store, leases, fresh, every=0.3) as writer:
        writer.add("t0", [_row("a")])  # nothing written yet: at once
        assert len(store.parts()) == 1 and leases.released == ["t0"]
        writer.add("t1", [_row("b")])
        writer.add("t2", [_row("c")])
        assert len(store.parts()) == 1 and leases.released == ["t0"]  # waiting: leases held
        deadline = time.monotonic() + 10
        while len(store.parts()) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert leases.released == ["t0", "t1", "t2"]  # the thread wrote both in one part
        writer.add("t3", [_row("d")])
    assert len(store.parts()) == 3 and leases.released[-1] == "t3"  # what waits is written at the end
    assert sorted(store.read()["key"]) == ["a", "b", "c", "d"] and {p.name for p in store.parts()} == fresh.seen


def test_a_failed_write_of_the_writer_thread_is_raised_in_the_run_and_keeps_the_leases(tmp_path, monkeypatch):
    store, leases = Store(tmp_path, "e"), _FakeLeases()
    writer = _Writer(store, leases, _FakeFresh(), every=0.1)
    with pytest.raises(StoreError, match="malformed"):
        with writer:
            writer.add("t0", [_row("a")])
            writer.add("t1", [{**_row("b"), "status": "done"}])  # refused by Store.write, in the thread
            time.sleep(0.5)
            writer.add("t2", [_row("c")])
    assert leases.released == ["t0"]  # t1's rows were never stored: its lease is not released as done


def test_an_interrupted_run_writes_the_finished_tasks_that_wait(tmp_path, randml_cmd, cli_env):
    store = tmp_path / "store"
    args = [*randml_cmd, "run", *SMALL[:3], "protocol.repeats=300", "n_jobs=1", "progress=false", "write_every=3600",
            f"store_dir={store}", f"hydra.run.dir={tmp_path}/logs"]
    proc = subprocess.Popen(args, env=cli_env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and not list((store / "tiny").glob("part-*.parquet")):
        time.sleep(0.02)
    first = len(pd.read_parquet(next((store / "tiny").glob("part-*.parquet"))))
    time.sleep(1.0)  # more tasks finish; with write_every=3600 they wait in memory
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=120)
    stored = load("tiny", store_dir=store, all_configs=True)
    total = 300 * 3 * 4
    assert first == 4 and 4 < len(stored) < total, "the run must be interrupted after a few tasks"
    assert len(list((store / "tiny").glob("part-*.parquet"))) == 2  # the waiting tasks: one part, at the interrupt
    out = subprocess.run(args[:-3] + [f"store_dir={store}", f"hydra.run.dir={tmp_path}/logs2"], env=cli_env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert f"computed {total - len(stored)} cells" in out.stderr and f"{len(stored)} already stored" in out.stderr


def test_write_every_must_be_seconds(tmp_path, randml_cmd, cli_env):
    out = subprocess.run([*randml_cmd, "run", *SMALL, "write_every=-1", f"store_dir={tmp_path}",
                          f"hydra.run.dir={tmp_path}/logs"], env=cli_env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "write_every=-1 is not a number of seconds >= 0" in out.stderr
    assert not (tmp_path / "tiny").exists()
