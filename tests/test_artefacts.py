"""Atomic artefacts (randml_core/artefacts.py): real signals and injected failures against a real report.

Two artefact sets of the same report are built from one store with protocol seeds 0 and 1, so every file
differs between them (checked). The report is tests/artefacts_conf/atomic_report.py, the kinds of files a
benchmark's report writes (tables md/csv/tex, their folds, a summary, a figure png/pdf: 8 files and the sidecar)
through the report's artefact set, over the engine's tiny experiment under the name ``atomic``
(tests/artefacts_conf/experiment/atomic.yaml) on heart. A report writing set B over set A is interrupted
(SIGINT at random moments, SIGINT / SIGTERM / SIGKILL inside the rename phase, an exception after half the files,
a full disk part way through a file); after each the folder must hold all of A or all of B, byte for byte, and no
temp after the next run.
"""
from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from randml_core import artefacts
from randml_core.artefacts import ArtefactSet, atomic_write, deferred_signals, recover

from conftest import shipped

REPO = Path(__file__).resolve().parent.parent
#: the config dir of the test's experiment and its report module (a --config-dir: its modules are plug-ins)
CONF = Path(__file__).resolve().parent / "artefacts_conf"
EXPERIMENT = "atomic"
OVERRIDES = ["dataset=heart", "n_jobs=1"]
SIDECAR = "tables/atomic.meta.json"
FILES = {"tables/atomic.md", "tables/atomic.csv", "tables/atomic.tex", "tables/atomic_folds.csv",
         "tables/atomic_knn.md", "tables/atomic_knn_folds.csv",
         "figures/atomic_knn.png", "figures/atomic_knn.pdf", SIDECAR}

SERVER = r'''
# A report server: imports once, then forks one child process per request, which runs a real report
# (so each of the many killed runs does not pay the imports). Request line: "<results dir> <fault>".
import importlib, os, signal, sys, time, traceback
from pathlib import Path
from randml_core.report import build_report
from randml_core.results import compose_spec

conf, experiment, store, seed = sys.argv[1:5]
spec = compose_spec(experiment, sys.argv[5:] + [f"protocol.seed={seed}"], config_dir=conf)
for module in spec.engine.report:  # what the report imports (the config dir is on sys.path now)
    importlib.import_module(module)


def child(res, fault):
    if fault != "-":  # send the signal to ourselves right after the first file of the set is renamed into place
        real, count = os.replace, [0]
        def replace(src, dst):
            real(src, dst)
            if not Path(dst).name.startswith(".artefacts-journal-"):
                count[0] += 1
                if count[0] == 1:
                    os.kill(os.getpid(), getattr(signal, fault))
        os.replace = replace
    try:
        # SIGINT was blocked across the fork (below): a kill sent at once is raised here, inside the try
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        t0 = time.perf_counter()
        build_report(spec, store, res, committed=True)
    except KeyboardInterrupt:
        os._exit(130)
    except BaseException as exc:
        # an interrupt that third-party code (e.g. a C callback while a figure is saved) re-raised as
        # another exception is still the interrupt: look for it in the exception's chain
        seen = exc
        while seen is not None:
            if isinstance(seen, KeyboardInterrupt):
                os._exit(130)
            seen = seen.__cause__ or seen.__context__
        traceback.print_exc()
        os._exit(1)
    print(f"done {time.perf_counter() - t0}", flush=True)
    os._exit(0)


print("ready", flush=True)
for line in sys.stdin:
    res, fault = line.split()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})  # no KeyboardInterrupt outside the child's try
    pid = os.fork()
    if pid == 0:
        sys.stdout = open(os.devnull, "w")  # the child's prints must not mix with the protocol
        child(res, fault)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    print(f"child {pid}", flush=True)
    _, status = os.waitpid(pid, 0)
    print(f"exit {os.waitstatus_to_exitcode(status)}", flush=True)
'''


def _spec(seed):
    from randml_core.results import compose_spec
    return compose_spec(EXPERIMENT, [*OVERRIDES, f"protocol.seed={seed}"], config_dir=CONF)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` except the lock (relative path -> bytes)."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != artefacts.LOCK_NAME}


def temps(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if artefacts.TEMP_RE.match(p.name) or artefacts.JOURNAL_RE.match(p.name)]


def _meta(raw: bytes) -> dict:
    meta = json.loads(raw)
    meta.pop("generated_at")  # the one field two writes of the same set differ in
    return meta


def same_set(snap: dict, ref: dict) -> bool:
    """``snap`` is the set ``ref``: same files, same bytes (the sidecar up to its time stamp)."""
    if set(snap) != set(ref):
        return False
    if any(snap[k] != ref[k] for k in ref if k != SIDECAR):
        return False
    return _meta(snap[SIDECAR]) == _meta(ref[SIDECAR])


def _differences(snap: dict, ref: dict) -> dict:
    """What tells ``snap`` from ``ref``: missing / extra files and, per differing file, its first differing line."""
    out = {"missing": sorted(set(ref) - set(snap)), "extra": sorted(set(snap) - set(ref))}
    for k in sorted(set(ref) & set(snap)):
        if snap[k] != ref[k] and not (k == SIDECAR and _meta(snap[k]) == _meta(ref[k])):
            a, b = snap[k].splitlines(), ref[k].splitlines()
            line = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            out[k] = (a[line][:200] if line < len(a) else b"<end>", b[line][:200] if line < len(b) else b"<end>")
    return out


def assert_consistent(snap: dict) -> None:
    """No empty file, and the sidecar's sha256 of each file matches the bytes on disk."""
    assert all(len(b) > 0 for b in snap.values()), [k for k, b in snap.items() if not b]
    listed = json.loads(snap[SIDECAR])["files"]
    assert set(listed) == set(snap) - {SIDECAR}
    for name, sha in listed.items():
        assert hashlib.sha256(snap[name]).hexdigest() == sha, name


@pytest.fixture(scope="module")
def sets(tmp_path_factory):
    """A store with the test experiment's grid on heart for seeds 0 and 1, and the two report sets."""
    from randml_core.report import build_report
    from randml_core.runner import run

    base = tmp_path_factory.mktemp("artefact-sets")
    store = base / "store"
    refs = {}
    for seed in (0, 1):
        spec = _spec(seed)
        assert run(spec, str(store), n_jobs=1, progress=False).failed == 0
        build_report(spec, str(store), str(base / f"ref{seed}"), committed=True)
        refs[seed] = snapshot(base / f"ref{seed}")
    assert set(refs[0]) == FILES and set(refs[1]) == FILES
    assert all(refs[0][k] != refs[1][k] for k in FILES)  # every file tells the two sets apart
    for seed in (0, 1):
        assert_consistent(refs[seed])
    return {"store": store, "A": refs[0], "B": refs[1], "dirA": base / "ref0"}


def _fresh_with_A(sets, dest: Path) -> Path:
    shutil.copytree(sets["dirA"], dest)
    assert same_set(snapshot(dest), sets["A"])
    return dest


def _env(**extra) -> dict:
    env = dict(os.environ, RANDML_OFFLINE="1", **extra)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return env


class Server:
    """The report server (``SERVER``) in its own process; :meth:`start` forks one report child."""

    def __init__(self, sets, tmp_path: Path):
        script = tmp_path / "report_server.py"
        script.write_text(SERVER)
        self.proc = subprocess.Popen([sys.executable, str(script), str(CONF), EXPERIMENT, str(sets["store"]), "1",
                                      *OVERRIDES], cwd=REPO, env=_env(), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self._line() == "ready", self.proc.stderr.read()

    def _line(self) -> str:
        return self.proc.stdout.readline().strip()

    def start(self, res: Path, fault: str = "-") -> int:
        self.proc.stdin.write(f"{res} {fault}\n")
        self.proc.stdin.flush()
        kind, pid = self._line().split()
        assert kind == "child"
        self.t0 = time.perf_counter()
        return int(pid)

    def wait(self) -> tuple[int, float]:
        """(exit code of the child: 130 = KeyboardInterrupt, -N = killed by signal N; seconds)."""
        kind, code = self._line().split()
        assert kind == "exit"
        return int(code), time.perf_counter() - self.t0

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


@pytest.fixture(scope="module")
def server(sets, tmp_path_factory):
    srv = Server(sets, tmp_path_factory.mktemp("server"))
    yield srv
    srv.close()


def _after_next_run(sets, res: Path) -> dict:
    """The 'next run': a complete report of set B into ``res``; returns the folder's snapshot."""
    from randml_core.report import build_report
    build_report(_spec(1), str(sets["store"]), str(res), committed=True)
    return snapshot(res)


# ----------------------------------------------------------------------------- real signals
def test_sigint_at_random_moments_leaves_old_or_new_set(sets, server, tmp_path):
    rng = random.Random(20261123)
    res = _fresh_with_A(sets, tmp_path / "calibrate")  # an uninterrupted run: how long a report takes
    server.start(res)
    code, seconds = server.wait()
    assert code == 0 and same_set(snapshot(res), sets["B"]), _differences(snapshot(res), sets["B"])
    outcomes = []
    for i in range(12):
        res = _fresh_with_A(sets, tmp_path / f"res{i}")
        pid = server.start(res)
        # anywhere in the report; every other kill near its end, where the set is committed
        time.sleep(seconds * (rng.uniform(0.0, 1.05) if i % 2 else rng.uniform(0.8, 1.05)))
        with contextlib.suppress(ProcessLookupError):  # the report may have finished already
            os.kill(pid, signal.SIGINT)
        code, _ = server.wait()
        snap = snapshot(res)
        was_a, was_b = same_set(snap, sets["A"]), same_set(snap, sets["B"])
        assert was_a or was_b, (i, code, _differences(snap, sets["B"]))
        assert_consistent(snap)
        assert code in (0, 130), code  # finished, or KeyboardInterrupt
        if code == 0:
            assert was_b  # a run that finished committed its set
        assert temps(res) == []  # KeyboardInterrupt discards the staged temps itself
        if i % 4 == 0:  # the next run (a full report, a few times: each costs seconds) ends with B, no temp
            assert same_set(_after_next_run(sets, res), sets["B"]) and temps(res) == []
        outcomes.append("B" if was_b else "A")
    assert "A" in outcomes  # the kills did land inside reports (else the test proves little)


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_signal_inside_the_rename_phase_is_deferred_until_the_set_is_whole(sets, server, tmp_path, sig):
    res = _fresh_with_A(sets, tmp_path / "res")
    server.start(res, sig)
    code, _ = server.wait()
    assert code == (130 if sig == "SIGINT" else -signal.SIGTERM)  # the signal did arrive, after the commit
    snap = snapshot(res)
    assert same_set(snap, sets["B"]) and temps(res) == [], _differences(snap, sets["B"])
    assert_consistent(snap)


def test_sigkill_inside_the_rename_phase_is_rolled_forward_by_the_next_write(sets, server, tmp_path):
    res = _fresh_with_A(sets, tmp_path / "res")
    server.start(res, "SIGKILL")
    assert server.wait()[0] == -signal.SIGKILL
    journals = list(res.glob(artefacts.JOURNAL_PREFIX + "*.json"))
    assert len(journals) == 1  # the killed writer left its journal ...
    renames = json.loads(journals[0].read_text())["renames"]
    assert len(renames) == len(FILES)  # every file differs from A, so every one is renamed
    half = {k: v for k, v in snapshot(res).items()
            if not artefacts.TEMP_RE.match(Path(k).name) and not artefacts.JOURNAL_RE.match(k)}
    assert set(half) == FILES and sum(half[k] == sets["B"][k] for k in FILES) == 1  # ... and one file renamed
    # the next write into the folder (here a bench-style single file) rolls the journal forward first
    atomic_write(res / "tables" / "other.md", "x\n")
    snap = snapshot(res)
    assert snap.pop("tables/other.md") == b"x\n"
    assert same_set(snap, sets["B"]) and temps(res) == [], _differences(snap, sets["B"])
    assert_consistent(snap)


# ----------------------------------------------------------------------------- injected failures
def test_exception_after_half_the_files_are_staged_keeps_the_old_set(sets, tmp_path, monkeypatch):
    from randml_core.report import build_report
    res = _fresh_with_A(sets, tmp_path / "res")
    real, staged = ArtefactSet._stage, []

    def failing(self, path, chunks):
        if len(staged) == 3:  # of 8 files (+ the sidecar)
            raise RuntimeError("injected failure while staging")
        staged.append(path)
        return real(self, path, chunks)

    monkeypatch.setattr(ArtefactSet, "_stage", failing)
    with pytest.raises(RuntimeError, match="injected"):
        build_report(_spec(1), str(sets["store"]), str(res), committed=True)
    assert len(staged) == 3
    assert snapshot(res) == sets["A"] and temps(res) == []
    monkeypatch.undo()
    assert same_set(_after_next_run(sets, res), sets["B"])


def test_full_disk_part_way_through_a_file_keeps_the_old_set(sets, tmp_path, monkeypatch):
    from randml_core.report import build_report
    res = _fresh_with_A(sets, tmp_path / "res")
    real, calls = artefacts._write_handle, []

    def enospc(fh, data):
        calls.append(len(data))
        if len(calls) == 4:  # the 4th file: half of it reaches the disk, then the disk is full
            fh.write(data[: len(data) // 2])
            raise OSError(errno.ENOSPC, "No space left on device")
        real(fh, data)

    monkeypatch.setattr(artefacts, "_write_handle", enospc)
    with pytest.raises(OSError) as exc:
        build_report(_spec(1), str(sets["store"]), str(res), committed=True)
    assert exc.value.errno == errno.ENOSPC
    assert snapshot(res) == sets["A"] and temps(res) == []  # nothing truncated, nothing left over
    # a single-file write: the old bytes stay whole
    target = res / "tables" / "atomic.md"
    calls[:] = [0, 0, 0]  # the next write is the 4th: half of it reaches the disk, then ENOSPC
    with pytest.raises(OSError):
        atomic_write(target, "new text that does not fit\n")
    assert target.read_bytes() == sets["A"]["tables/atomic.md"] and temps(res) == []


# ----------------------------------------------------------------------------- debris, reruns, scratch
def test_temps_are_removed_only_when_their_writer_is_gone(tmp_path):
    """A temp is debris when its lock can be taken (its writer is gone), whatever its pid or age says;
    a temp whose writer holds the lock stays, even under a dead pid's name and older than STALE_SECONDS."""
    root = tmp_path / "res"
    (root / "tables").mkdir(parents=True)
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    dead_tmp = root / "tables" / f".t.md.{os.getpid()}-0123abcd.artefact.tmp"  # a live pid, nobody's lock
    held_tmp = root / "tables" / f".u.md.{gone.pid}-89abcdef.artefact.tmp"  # a dead pid, a live lock
    for p in (dead_tmp, held_tmp):
        p.write_bytes(b"partial")
    old = time.time() - artefacts.STALE_SECONDS - 60
    os.utime(held_tmp, (old, old))
    holder = subprocess.Popen([sys.executable, "-c", "import fcntl, sys, time; f = open(sys.argv[1], 'rb'); "
                               "fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)",
                               str(held_tmp)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        done = recover(root)
        assert not dead_tmp.exists() and held_tmp.exists()
        assert done == [f"removed {dead_tmp}"]
    finally:
        holder.kill()
        holder.wait()
    assert recover(root) == [f"removed {held_tmp}"] and not held_tmp.exists()


def test_a_journal_without_its_temps_is_idempotent_and_a_broken_one_is_dropped(tmp_path):
    root = tmp_path / "res"
    (root / "tables").mkdir(parents=True)
    (root / "tables" / "a.md").write_text("new a")  # a journal whose renames all happened already
    (root / f"{artefacts.JOURNAL_PREFIX}1-00000000.json").write_text(json.dumps(
        {"renames": [["tables/.a.md.1-11111111.artefact.tmp", "tables/a.md"]]}))
    (root / f"{artefacts.JOURNAL_PREFIX}2-00000000.json").write_text("{not json")
    assert len(recover(root)) == 2
    assert (root / "tables" / "a.md").read_text() == "new a" and temps(root) == []


def test_rerun_from_the_same_store_leaves_every_file_but_the_sidecar_untouched(sets, tmp_path):
    from randml_core.report import build_report
    res = tmp_path / "res"
    spec = _spec(0)
    build_report(spec, str(sets["store"]), str(res), committed=True)
    first = snapshot(res)
    mtimes = {k: (res / k).stat().st_mtime_ns for k in first}
    time.sleep(1.1)  # the sidecar's time stamp has one-second resolution
    build_report(spec, str(sets["store"]), str(res), committed=True)
    second = snapshot(res)
    changed = {k for k in first if first[k] != second[k]}
    assert changed == {SIDECAR}
    assert _meta(first[SIDECAR]) == _meta(second[SIDECAR])
    assert all((res / k).stat().st_mtime_ns == mtimes[k] for k in first if k != SIDECAR)  # not even rewritten
    assert same_set(second, sets["A"])  # and the same bytes as an independent build from the same store
    md = second["tables/atomic.md"].decode()
    assert "Code version" not in md and "Compute per dataset" not in md and "UTC" not in md
    assert b"generated_by" not in second["tables/atomic.csv"]
    facts = json.loads(second[SIDECAR])["facts"]
    assert facts["compute_per_dataset"].startswith("Compute per dataset") and facts["row_code_versions"]


def test_quick_profile_and_overrides_write_to_scratch_never_over_the_paper_files(sets, tmp_path):
    res = _fresh_with_A(sets, tmp_path / "res")
    cli = [sys.executable, "-m", "randml_core.cli"]

    def common(store):
        return ["--config-dir", str(CONF), f"experiment={EXPERIMENT}", f"store_dir={store}", f"results_dir={res}",
                f"hydra.run.dir={tmp_path}/logs"]
    quick = subprocess.run([*cli, "report", *common(sets["store"]), "profile=quick"], cwd=REPO, env=_env(),
                           capture_output=True, text=True, timeout=300)
    assert quick.returncode == 0, quick.stderr
    scratch = res / "scratch" / EXPERIMENT
    assert f"{scratch}/" in quick.stdout and "profile=quick" in quick.stderr
    assert (scratch / "tables" / "atomic.md").is_file() and (scratch / "tables" / "atomic.meta.json").is_file()
    assert "profile = quick" in (scratch / "tables" / "atomic.md").read_text()
    snap = snapshot(res)
    assert same_set({k: v for k, v in snap.items() if not k.startswith("scratch/")}, sets["A"])
    # restating a default (and neutral overrides) is still the committed config; from this store, which lacks
    # wine's cells, its report goes to the scratch folder (a snapshot is written only from a complete set) ...
    same_args = ["protocol.repeats=1", "n_jobs=1", "progress=false"]
    same = subprocess.run([*cli, "report", *common(sets["store"]), *same_args], cwd=REPO, env=_env(),
                          capture_output=True, text=True, timeout=300)
    assert same.returncode == 0, same.stderr
    # tiny's plan, 3 folds: heart 3 + 4 + 2 settings = 27 cells (stored), wine 3 + 4 + 2 = 27 (6 skipped by rule)
    assert "atomic: 27 of 54 cells stored: the artefacts go to the scratch folder" in same.stderr
    assert same_set({k: v for k, v in snapshot(res).items() if not k.startswith("scratch/")}, sets["A"])
    # ... and once the store is complete, over the paper files
    store = tmp_path / "store"
    shutil.copytree(sets["store"], store)
    filled = subprocess.run([*cli, "run", *common(store), "dataset=wine", "progress=false"], cwd=REPO, env=_env(),
                            capture_output=True, text=True, timeout=300)
    assert filled.returncode == 0, filled.stderr
    same = subprocess.run([*cli, "report", *common(store), *same_args], cwd=REPO, env=_env(), capture_output=True,
                          text=True, timeout=300)
    assert same.returncode == 0, same.stderr
    assert "scratch" not in same.stdout
    md = (res / "tables" / "atomic.md").read_text()
    assert "wine" in md and md.encode() != sets["A"]["tables/atomic.md"]  # the experiment's own two datasets


def test_a_smoke_experiment_never_writes_into_the_committed_folders(tmp_path):
    # leaderboard_quick is the engine's own smoke run of the leaderboard, with profile=paper in the Makefile;
    # before `snapshot: false` its files landed untracked in results/
    assert "snapshot: false" in shipped("experiment/leaderboard_quick.yaml").read_text()
    res = tmp_path / "res"
    out = subprocess.run([sys.executable, "-m", "randml_core.cli", "report", "experiment=leaderboard_quick",
                          "profile=paper", f"store_dir={tmp_path}/store", f"results_dir={res}",
                          f"hydra.run.dir={tmp_path}/logs"], cwd=REPO, env=_env(), capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert "experiment.snapshot=false: a smoke experiment" in out.stderr
    written = sorted(str(p.relative_to(res)) for p in res.rglob("*") if p.is_file())
    assert written and all(p.startswith("scratch/leaderboard_quick/") for p in written), written
    assert "scratch/leaderboard_quick/tables/leaderboard_quick.md" in written


# ----------------------------------------------------------------------------- primitives
def test_deferred_signals_delivers_sigint_after_the_block(tmp_path):
    reached = []
    with pytest.raises(KeyboardInterrupt):
        with deferred_signals():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)  # a pending signal would have interrupted here
            reached.append(True)
    assert reached == [True]


def test_a_set_refuses_a_path_outside_its_root_or_below_a_direct_subfolder(tmp_path):
    root = tmp_path / "root"
    with ArtefactSet(root, "x", sidecar=False) as out:
        for bad in (tmp_path / "elsewhere.md", root / "a" / "b" / "deep.md"):
            with pytest.raises(ValueError, match="outside the set.s root"):
                out.write_text(bad, "x")
        out.write_text(root / "a" / "ok.md", "x")
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.md")) == ["root/a/ok.md"]


@pytest.mark.parametrize("where", ["open", "flock", "rename"])
def test_an_interrupt_right_after_the_temp_is_created_leaves_no_file(tmp_path, monkeypatch, where):
    """A Ctrl-C that lands just after ``.artefact.new`` is created (after the open returns, before the next line, as
    a signal handler can), or in the lock or the rename, leaves no file behind and the target as it was; it left a
    ``.artefact.new`` there when the open stood outside the cleanup (a flaky failure of the random-SIGINT test)."""
    (tmp_path / "table.md").write_text("old")
    real_open, real_rename = os.open, os.rename

    def interrupted_open(path, *args, **kwargs):
        fd = real_open(path, *args, **kwargs)
        if where == "open" and str(path).endswith(".artefact.new"):
            raise KeyboardInterrupt  # the file exists, the caller never got its fd
        return fd

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(artefacts.os, "open", interrupted_open)
    if where == "flock":
        monkeypatch.setattr(artefacts, "_try_flock", interrupted)
    if where == "rename":
        monkeypatch.setattr(artefacts.os, "rename", lambda a, b: interrupted() if str(a).endswith(".new")
                            else real_rename(a, b))
    with pytest.raises(KeyboardInterrupt):
        atomic_write(tmp_path / "table.md", "new")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.md"] and (tmp_path / "table.md").read_text() == "old"
