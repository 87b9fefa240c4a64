"""Several runs on one store: task leases (no cell computed twice), shards, the plan's wall-time
prediction, and sweeps through the Hydra launchers of the ``cluster`` extra."""
import importlib.util
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from randml_core.leases import BOOT_ID, HOST, Leases, is_stale, read_lease, task_id
from randml_core.planview import describe_plan, lpt_makespan, run_summary
from randml_core.runner import VOLATILE_COLUMNS, PlanError, make_plan, parse_shard, run, shard_tasks
from randml_core.store import Store

SMALL = ("experiment=tiny", "dataset=heart")  # 3 folds x 9 cells (kNN 3, SVC-rbf 4, LogReg-liblinear 2) a repeat


def stable(frame):
    cols = sorted(c for c in frame.columns if c not in VOLATILE_COLUMNS)
    return frame[cols].sort_values("key").reset_index(drop=True)


def part_keys(store_dir: Path, experiment="tiny") -> list[str]:
    """Every key of every parquet part file (read with pyarrow, not through Store: duplicates show)."""
    keys = []
    for p in sorted((store_dir / experiment).glob("part-*.parquet")):
        keys += pq.read_table(p, columns=["key"]).column("key").to_pylist()
    return keys


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def write_lease(path: Path, pid: int, heartbeat: float, host: str = HOST, boot: str = BOOT_ID) -> None:
    """A lease of an owner "other" whose owner lock (.owner-other.lock) is not held: on this kernel
    (``boot``), an ended run."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"host": host, "pid": pid, "boot": boot, "token": "other", "heartbeat": heartbeat}))


# -- leases -------------------------------------------------------------------------------------
def test_lease_is_exclusive_and_stale_leases_are_taken_over(tmp_path):
    a, b = Leases(tmp_path), Leases(tmp_path)
    assert a.acquire("t1") and not b.acquire("t1")  # held by a live owner with a fresh heartbeat
    a.release("t1")
    assert not (tmp_path / "t1.lease").exists() and b.acquire("t1")
    # ended owner on this kernel (its owner lock is free): taken over at once, whatever its heartbeat says
    write_lease(tmp_path / "t2.lease", dead_pid(), time.time())
    assert is_stale(read_lease(tmp_path / "t2.lease"), directory=tmp_path)
    assert a.acquire("t2") and a.taken_over == 1
    assert read_lease(tmp_path / "t2.lease").token == a.token
    # live owner (this process) but a heartbeat older than the bound: taken over
    write_lease(tmp_path / "t3.lease", os.getpid(), time.time() - 301)
    assert a.acquire("t3") and a.taken_over == 2
    # another kernel's owner cannot be asked: only its heartbeat counts
    write_lease(tmp_path / "t4.lease", 1, time.time(), host="elsewhere", boot="another-kernel")
    assert not a.acquire("t4")
    # a lease another run took over is not removed by the old owner's release
    write_lease(tmp_path / "t1.lease.new", 1, 0)
    os.replace(tmp_path / "t1.lease.new", tmp_path / "t1.lease")
    b.release("t1")
    assert (tmp_path / "t1.lease").exists()


def test_heartbeat_refreshes_held_leases(tmp_path):
    with Leases(tmp_path, heartbeat=0.05) as a:
        assert a.acquire("t")
        first = read_lease(tmp_path / "t.lease").heartbeat
        time.sleep(0.3)
        assert read_lease(tmp_path / "t.lease").heartbeat > first
    assert not (tmp_path / "t.lease").exists()  # released on exit


def test_a_lease_is_a_link_of_the_runs_template_with_a_fresh_heartbeat(tmp_path):
    """A lease is a hard link of ``.template-<token>`` (a directory entry, not a new file); its heartbeat is never
    older than a tenth of the time to staleness; the template goes with the run."""
    with Leases(tmp_path, heartbeat=3600, stale_after=1.0) as a:
        assert a.acquire("t1")
        template = tmp_path / f".template-{a.token}"
        assert os.path.samefile(template, tmp_path / "t1.lease") and template.stat().st_nlink == 2
        assert read_lease(tmp_path / "t1.lease").token == a.token
        time.sleep(0.2)  # more than stale_after / 10: the template is written again before the next lease
        assert a.acquire("t2")
        assert time.time() - read_lease(tmp_path / "t2.lease").heartbeat < 0.1
        assert not Leases(tmp_path).acquire("t2")  # exclusive as before
        assert sorted(p.name for p in tmp_path.glob("*.lease")) == ["t1.lease", "t2.lease"]  # no template among them
    assert not template.exists() and not list(tmp_path.glob("*.lease"))


def test_without_hard_links_a_lease_is_a_file_of_its_own(tmp_path, monkeypatch):
    def refused(*args, **kwargs):
        raise PermissionError(1, "Operation not permitted")
    monkeypatch.setattr(os, "link", refused)
    a, b = Leases(tmp_path), Leases(tmp_path)
    assert a.acquire("t") and not b.acquire("t") and read_lease(tmp_path / "t.lease").token == a.token
    assert (tmp_path / "t.lease").stat().st_nlink == 1 and not (tmp_path / f".template-{a.token}").exists()
    a.release("t")
    assert b.acquire("t") and read_lease(tmp_path / "t.lease").token == b.token


def test_a_removed_template_is_written_again_and_an_ended_runs_template_is_removed(tmp_path):
    a = Leases(tmp_path, heartbeat=3600)
    assert a.acquire("t1")
    (tmp_path / f".template-{a.token}").unlink()  # e.g. removed as stale while this run took no lease for long
    assert a.acquire("t2") and os.path.samefile(tmp_path / f".template-{a.token}", tmp_path / "t2.lease")
    # a run killed without a lease left: its owner lock is free, so its template is removed with the stale leases
    dead = tmp_path / ".template-other"
    write_lease(dead, dead_pid(), time.time())
    (tmp_path / ".owner-other.lock").write_text(BOOT_ID)
    kept = tmp_path / ".template-alive"  # another kernel's run: its heartbeat is fresh, kept
    write_lease(kept, 1, time.time(), host="elsewhere", boot="another-kernel")
    Leases(tmp_path).remove_stale()
    assert not dead.exists() and kept.exists() and (tmp_path / f".template-{a.token}").exists()


def test_a_release_during_a_heartbeat_is_neither_a_takeover_nor_undone(tmp_path, caplog, monkeypatch):
    """The heartbeat thread copies the held leases, then re-writes each; a task that finishes in between
    (released by the main thread) was read back as missing and logged as "taken over by another run", or its
    lease re-written after the release (a lease file left for a finished task). Many quick tasks under a
    1 ms heartbeat: no such warning, no lease left."""
    caplog.set_level("WARNING", logger="randml_core.leases")
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads often, so the two interleave within refresh()
    try:
        with Leases(tmp_path, heartbeat=0.0005) as a:
            for i in range(2000):
                assert a.acquire(f"t{i}")
                if i >= 20:
                    a.release(f"t{i - 20}")
            for i in range(1980, 2000):
                a.release(f"t{i}")
            time.sleep(0.05)
    finally:
        sys.setswitchinterval(switch)
    assert "taken over" not in caplog.text
    assert sorted(p.name for p in tmp_path.glob("*.lease")) == []


def test_task_ids_are_stable_and_distinct(compose):
    spec = compose(*SMALL, "protocol.repeats=2")
    ids = [task_id(c.key for c in t.cells) for t in make_plan(spec).tasks]
    again = [task_id(c.key for c in t.cells) for t in make_plan(compose(*SMALL, "protocol.repeats=2")).tasks]
    assert ids == again and len(set(ids)) == len(ids) == 6
    assert task_id(["b", "a"]) == task_id(["a", "b"])


def test_run_waits_for_a_task_leased_by_another_live_run(compose, tmp_path):
    """A task leased by a live run is left to it; when that run writes its part and releases the
    lease, this run counts the cells as stored and does not compute them."""
    spec = compose(*SMALL, "protocol.repeats=1")
    plan = make_plan(spec)
    total = sum(len(t.cells) for t in plan.tasks)
    first = plan.tasks[0]
    # the other run's result for the first task, computed beforehand in another store
    run(spec, str(tmp_path / "ref"), progress=False)
    ref = Store(tmp_path / "ref", "tiny").read()
    theirs = ref[ref["key"].isin({c.key for c in first.cells})]
    other = Leases(tmp_path / "s" / "tiny" / "leases")
    assert other.acquire(task_id(c.key for c in first.cells))

    def finish():
        Store(tmp_path / "s", "tiny").write(theirs)
        other.release(task_id(c.key for c in first.cells))
    timer = threading.Timer(1.5, finish)
    timer.start()
    t0 = time.monotonic()
    s = run(spec, str(tmp_path / "s"), progress=False, wait_poll=0.1)
    timer.join()
    assert time.monotonic() - t0 >= 1.5
    assert s.computed == total - len(first.cells) and s.cached == len(first.cells)
    keys = part_keys(tmp_path / "s")
    assert len(keys) == len(set(keys)) == total
    assert list((tmp_path / "s" / "tiny" / "leases").glob("*.lease")) == []


def test_part_written_right_after_the_runs_store_read_is_not_recomputed(compose, tmp_path, monkeypatch):
    """Another run finishes a task between this run's read of the store and its first lease: the
    task's part is seen when the lease is taken and the task is not computed again."""
    spec = compose(*SMALL, "protocol.repeats=1")
    plan = make_plan(spec)
    run(spec, str(tmp_path / "ref"), progress=False)
    ref = Store(tmp_path / "ref", "tiny").read()
    first = {c.key for c in plan.tasks[0].cells}
    real_read = Store.read
    written = []

    def read_then_other_run_writes(self, columns=None, ordered=True):
        frame = real_read(self, columns, ordered)
        if not written and self.root == tmp_path / "s":
            written.append(Store(tmp_path / "s", "tiny").write(ref[ref["key"].isin(first)]))
        return frame
    Store(tmp_path / "s", "tiny").write(ref[ref["key"].isin({c.key for c in plan.tasks[1].cells})])
    monkeypatch.setattr(Store, "read", read_then_other_run_writes)
    s = run(spec, str(tmp_path / "s"), progress=False)
    assert written and s.computed == 9 and s.cached == 18  # task 1 stored before, task 0 by the other run
    keys = part_keys(tmp_path / "s")
    assert len(keys) == len(set(keys)) == 27  # 3 tasks x 9 cells


def test_run_takes_over_dead_owners_leases(compose, tmp_path):
    spec = compose(*SMALL, "protocol.repeats=1")
    plan = make_plan(spec)
    leases = tmp_path / "tiny" / "leases"
    pid = dead_pid()
    for t in plan.tasks:
        write_lease(leases / f"{task_id(c.key for c in t.cells)}.lease", pid, time.time())
    s = run(spec, str(tmp_path), progress=False, wait_poll=0.1)
    assert s.computed == sum(len(t.cells) for t in plan.tasks) == len(set(part_keys(tmp_path)))
    assert list(leases.glob("*.lease")) == []


# -- shards -------------------------------------------------------------------------------------
def test_shards_partition_the_tasks(compose):
    tasks = make_plan(compose(*SMALL, "protocol.repeats=4")).tasks
    ids = [task_id(c.key for c in t.cells) for t in tasks]
    for n in (1, 3, 4, 5):
        parts = [[task_id(c.key for c in t.cells) for t in shard_tasks(tasks, f"{i}/{n}")] for i in range(n)]
        union = [x for p in parts for x in p]
        assert sorted(union) == sorted(ids) and len(union) == len(set(union))  # union = all, disjoint
        assert max(map(len, parts)) - min(map(len, parts)) <= 1  # 12 tasks: as even as can be
    assert shard_tasks(tasks, None) == tasks
    for bad in ("4/4", "1", "a/b", "-1/2", "1/0"):
        with pytest.raises(PlanError, match="shard="):
            parse_shard(bad)


def test_sharded_runs_fill_the_store_with_the_plain_runs_frame(compose, tmp_path):
    spec = compose(*SMALL, "protocol.repeats=2")
    run(spec, str(tmp_path / "plain"), progress=False)
    n = [run(spec, str(tmp_path / "sharded"), progress=False, shard=f"{i}/3").computed for i in range(3)]
    assert n == [18, 18, 18]  # 6 tasks of 9 cells, two per shard
    plain, sharded = Store(tmp_path / "plain", "tiny").read(), Store(tmp_path / "sharded", "tiny").read()
    assert len(part_keys(tmp_path / "sharded")) == 54
    assert stable(plain).equals(stable(sharded))


# -- concurrent processes -----------------------------------------------------------------------
# Each process imports everything, then waits for a "go" file, so both compute at the same time
# (an import takes seconds on a loaded machine; without the barrier one run could finish first).
BARRIER = """
import sys, time, os
import randml_core.cli, randml_core.runner, sklearn.svm  # the slow imports, before the barrier
go = sys.argv[1]
while not os.path.exists(go):
    time.sleep(0.01)
randml_core.cli.main(sys.argv[2:])
"""


def test_two_concurrent_runs_compute_every_cell_once(tmp_path, cli_env, compose):
    # 8 repeats x 3 folds = 24 tasks x 9 cells = 216 (a fraction of a second each): both runs may compute some
    store, go = tmp_path / "store", tmp_path / "go"
    args = ["run", *SMALL, "protocol.repeats=8", "n_jobs=1", "progress=false", f"store_dir={store}"]
    procs = [subprocess.Popen([sys.executable, "-c", BARRIER, str(go), *args, f"hydra.run.dir={tmp_path}/log{i}"],
                              env=cli_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(2)]
    time.sleep(1.0)
    go.touch()
    outs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [o[1][-2000:] for o in outs]
    planned = {c.key for _, c in make_plan(compose(*SMALL, "protocol.repeats=8")).cells()}
    keys = part_keys(store)
    assert len(keys) == len(set(keys)) == len(planned) == 216 and set(keys) == planned
    computed = [int(o[1].split("randml run: computed ")[1].split()[0]) for o in outs]
    # every cell computed once in all (how the tasks interleave between the two runs is up to the
    # scheduler: on a loaded machine one run may take them all; the lease tests cover the hand-over)
    assert sum(computed) == 216, computed
    assert all("randml run: tiny: 216 cells in 24 tasks; " in o[1] for o in outs)  # the summary line
    assert list((store / "tiny" / "leases").glob("*.lease")) == []


def test_run_summary_counts_what_is_stored_and_what_is_left_in_the_shard(compose):
    plan = make_plan(compose(*SMALL, "protocol.repeats=2"))
    tasks, total = plan.tasks, sum(len(t.cells) for t in plan.tasks)
    head = f"randml run: tiny: {total} cells in {len(tasks)} tasks"
    assert run_summary(plan, None, tasks, 1) == (
        head + "; all to compute; no time prediction (no stored task time for heart)")
    assert run_summary(plan, None, [], 1) == head + "; all stored, nothing to compute"
    first = len(tasks[0].cells)
    assert run_summary(plan, None, tasks[:1], 1).startswith(
        head + f"; {total - first} stored, {first} to compute in 1 task(s); ")
    mine = shard_tasks(tasks, "1/2")
    in_shard = sum(len(t.cells) for t in mine)
    assert 0 < in_shard < total
    assert run_summary(plan, None, mine[:1], 1, "1/2").startswith(
        head + f", shard 1/2: {in_shard} cells in {len(mine)} tasks; "
        f"{in_shard - len(mine[0].cells)} stored, {len(mine[0].cells)} to compute in 1 task(s); ")


def test_killed_runs_task_is_picked_up_by_the_next_run(tmp_path, randml_cmd, cli_env, compose):
    store = tmp_path / "store"
    args = [*randml_cmd, "run", *SMALL, "protocol.repeats=4", "n_jobs=1", "progress=false",
            f"store_dir={store}", f"hydra.run.dir={tmp_path}/logs"]
    leases = store / "tiny" / "leases"
    ids = {task_id(c.key for c in t.cells): {c.key for c in t.cells}
           for t in make_plan(compose(*SMALL, "protocol.repeats=4")).tasks}
    for _attempt in range(5):  # kill it while it computes a task (not between writing a part and freeing its lease)
        proc = subprocess.Popen(args, env=cli_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        deadline, n0 = time.time() + 120, len(part_keys(store))
        while time.time() < deadline and len(part_keys(store)) < n0 + 9:  # one more task (9 cells) stored
            time.sleep(0.01)
        time.sleep(0.02 * _attempt)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        stored = set(part_keys(store))
        held = list(leases.glob("*.lease"))
        left = [p for p in held if not ids[p.stem] <= stored]
        if left:
            break
    assert len(left) == 1, f"the run must be killed while it holds a lease ({held}, {len(stored)} cells stored)"
    assert read_lease(left[0]).pid == proc.pid
    before = len(part_keys(store))
    out = subprocess.run(args, env=cli_env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    # the killed run's task (leased, not stored) was computed by the next run, which took its lease over
    assert ids[left[0].stem] <= set(part_keys(store))
    assert f"computed {108 - before} cells" in out.stderr  # 4 repeats x 3 folds x 9 cells
    keys = part_keys(store)
    assert len(keys) == len(set(keys)) == 108
    assert list(leases.glob("*.lease")) == []


# -- the plan -----------------------------------------------------------------------------------
def test_lpt_makespan_hand_worked():
    # Graham's example: LPT puts 3|3, then 2 on each, then the last 2 on one worker: 7 (optimum 6)
    assert lpt_makespan([3, 3, 2, 2, 2], 2) == 7
    assert lpt_makespan([3, 3, 2, 2, 2], 1) == 12
    assert lpt_makespan([5, 1, 1], 8) == 5  # the longest task bounds it below
    assert lpt_makespan([], 4) == 0


def test_plan_predicts_wall_time_from_stored_task_times(compose, tmp_path):
    run(compose(*SMALL, "protocol.repeats=1"), str(tmp_path), progress=False)
    secs = {}
    for p in (tmp_path / "tiny").glob("part-*.parquet"):  # a part holds the tasks finished in a second
        t = pq.read_table(p, columns=["dataset", "repeat", "fold", "inner_fold", "task_seconds"]).to_pylist()
        for r in t:
            assert secs.setdefault((r["dataset"], r["repeat"], r["fold"], r["inner_fold"]), r["task_seconds"]) \
                == r["task_seconds"]  # one time per task
    assert len(secs) == 3
    median = sorted(secs.values())[1]  # 3 tasks
    from randml_core.planview import _fmt
    spec = compose(*SMALL, "protocol.repeats=2")  # 3 tasks stored, 3 to run
    text = describe_plan(spec, str(tmp_path), workers=2)
    assert "heart: 6 task(s), 54 cells: 27 stored, 0 failed, 27 missing in 3 task(s)" in text
    assert f"predicted wall time on 2 worker(s): {_fmt(2 * median)} (work {_fmt(3 * median)}" in text
    assert f"on 1 worker(s): {_fmt(3 * median)}" in describe_plan(spec, str(tmp_path), workers=1)
    shard = describe_plan(spec, str(tmp_path), workers=1, shard="1/2")
    assert "total: 27 cells in 3 tasks (shard 1/2 of 54 cells in 6 tasks)" in shard


def test_plan_cli_takes_workers(tmp_path, randml_cmd, cli_env):
    out = subprocess.run([*randml_cmd, "plan", *SMALL, "workers=3", f"store_dir={tmp_path}",
                          f"hydra.run.dir={tmp_path}/logs"], env=cli_env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert "predicted wall time on 3 worker(s): unknown" in out.stdout  # nothing stored to time


# -- launchers (the `cluster` extra) --------------------------------------------------------------
def _has(module):
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


@pytest.mark.slow
@pytest.mark.parametrize("launcher,module", [("randml_joblib", "hydra_plugins.hydra_joblib_launcher"),
                                             ("randml_local", "hydra_plugins.hydra_submitit_launcher")])
def test_launcher_sweep_fills_one_store_like_a_plain_run(launcher, module, tmp_path, randml_cmd, cli_env, compose):
    if not _has(module):
        pytest.skip(f"{module} is not installed: `make cluster` installs the cluster extra")
    store = tmp_path / "store"
    out = subprocess.run([*randml_cmd, "run", "-m", *SMALL, "protocol.repeats=2", "n_jobs=1", "progress=false",
                          "shard=0/2,1/2", f"hydra/launcher={launcher}", f"store_dir={store}",
                          f"hydra.sweep.dir={tmp_path}/sweep"], env=cli_env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    keys = part_keys(store)
    assert len(keys) == len(set(keys)) == 54  # 2 repeats x 3 folds x 9 cells
    run(compose(*SMALL, "protocol.repeats=2"), str(tmp_path / "plain"), progress=False)
    plain, swept = Store(tmp_path / "plain", "tiny").read(), Store(store, "tiny").read()
    assert stable(plain).equals(stable(swept))
    # the jobs ran in two processes (Hydra's basic launcher would run both in one): two writer pids
    assert len({p.name.split("-")[3] for p in (store / "tiny").glob("part-*.parquet")}) == 2


def test_a_lone_run_lists_the_store_a_bounded_number_of_times(compose, tmp_path, monkeypatch):
    """A run listed every part file once per dispatched task (quadratic in its tasks). Alone, it now lists once at
    its first lease, then at most once a second; with another run's owner lock present, at every task again."""
    from randml_core import writer
    counts = []
    real = writer.NewKeys.refresh

    def counting(self):
        out = real(self)
        counts[:] = [self.listings]
        return out
    monkeypatch.setattr(writer.NewKeys, "refresh", counting)
    monkeypatch.setattr(writer.NewKeys, "LIST_EVERY", 3600.0)
    spec = compose(*SMALL, "protocol.repeats=4")
    n_tasks = len(make_plan(spec, splits=False).tasks)
    s = run(spec, str(tmp_path / "alone"), progress=False)
    assert n_tasks >= 8 and s.computed and counts == [1]
    leases = tmp_path / "other" / "tiny" / "leases"
    leases.mkdir(parents=True)
    (leases / ".owner-0123456789abcdef.lock").write_text("another run")
    run(spec, str(tmp_path / "other"), progress=False)
    assert counts == [n_tasks]


@pytest.mark.parametrize("launcher,module", [("randml_joblib", "hydra_plugins.hydra_joblib_launcher")])
def test_a_job_refused_in_a_launchers_worker_sets_the_sweeps_exit_code(launcher, module, tmp_path, randml_cmd, cli_env):
    """Jobs of the joblib launcher run in worker processes: their outcome reaches the parent (exit code and the list of
    jobs not clean), as with Hydra's basic launcher (it exited 0 with a refused job)."""
    if not _has(module):
        pytest.skip(f"{module} is not installed: `make cluster` installs the cluster extra")
    out = subprocess.run([*randml_cmd, "run", "-m", *SMALL, "n_jobs=1", "progress=false", "protocol.n_splits=3,ten",
                          f"hydra/launcher={launcher}", f"store_dir={tmp_path / 'store'}",
                          f"hydra.sweep.dir={tmp_path}/sweep"], env=cli_env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 2, out.stderr[-3000:]
    assert "2 jobs, 1 not clean" in out.stderr and "exit 2: " in out.stderr and "protocol.n_splits=ten" in out.stderr
