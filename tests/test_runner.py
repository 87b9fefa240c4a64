"""The engine end to end: planning, determinism, resume, store integrity, bad input, CLI."""
import os
import signal
import subprocess
import time

import numpy as np
import pandas as pd
import pytest

from randml_core.config import ConfigError
from randml_core.runner import VOLATILE_COLUMNS, PlanError, make_plan, run
from randml_core.results import load
from randml_core.store import Store


def stable(frame):
    cols = [c for c in frame.columns if c not in VOLATILE_COLUMNS]
    return frame[cols].sort_values("key").reset_index(drop=True)


def test_plan_pairs_folds_across_models_and_keys_are_unique(compose):
    spec = compose("experiment=tiny")
    plan = make_plan(spec)
    keys = [c.key for _, c in plan.cells()]
    # 2 datasets x 3 folds x (3 kNN + 4 SVC-rbf + 2 LogReg-liblinear) settings; wine's liblinear ones are planned
    # (then skipped by rule)
    assert len(keys) == len(set(keys)) == 2 * 3 * (3 + 4 + 2) == 54
    # every model sees the same test rows of a (dataset, repeat, fold)
    by_split = {}
    for task in plan.tasks:
        by_split.setdefault((task.dataset, task.split.repeat, task.split.fold), []).append(tuple(task.split.test))
    assert all(len(set(v)) == 1 for v in by_split.values())
    # fold assignment depends on the seed
    other = make_plan(compose("experiment=tiny", "protocol.seed=1"))
    assert not np.array_equal(plan.tasks[0].split.test, other.tasks[0].split.test)


def test_same_config_and_seed_bit_identical_across_n_jobs(compose, tmp_path):
    spec = compose("experiment=tiny", "dataset=heart")
    s1 = run(spec, tmp_path / "a", n_jobs=1, progress=False)
    s2 = run(spec, tmp_path / "b", n_jobs=2, progress=False)
    assert s1.computed == s2.computed == 3 * 9 == 27 and s1.failed == 0  # heart: 3 folds x 9 settings
    a, b = load("tiny", store_dir=tmp_path / "a"), load("tiny", store_dir=tmp_path / "b")
    pd.testing.assert_frame_equal(stable(a), stable(b), check_exact=True)
    # provenance in every row
    assert a["data_hash"].nunique() == 1 and a["config_hash"].nunique() == 1
    assert a["code_version"].str.len().min() > 0 and a["params_json"].str.startswith("{").all()


def test_store_reads_the_same_frame_whatever_order_the_rows_were_written_in(compose, tmp_path):
    # rows land in the order tasks finish, which varies with the workers; a report's mean over folds
    # must not: summed in another order, 10 fold accuracies can differ in the last bit (MeMd Table II:
    # 77.14285714285715 with 1 worker, 77.14285714285714 with 2)
    run(compose("experiment=tiny", "dataset=heart"), tmp_path / "a", n_jobs=1, progress=False)
    rows = Store(tmp_path / "a", "tiny").read()
    shuffled = rows.sample(frac=1.0, random_state=3).reset_index(drop=True)
    other = Store(tmp_path / "b", "tiny")
    for chunk in np.array_split(np.arange(len(shuffled)), 5)[::-1]:  # 5 parts, the last rows first
        other.write(shuffled.iloc[chunk].reset_index(drop=True))
    again = other.read()
    pd.testing.assert_frame_equal(again, rows, check_exact=True)
    assert rows.groupby(["model", "params_json"], sort=False).gmean.mean().equals(
        again.groupby(["model", "params_json"], sort=False).gmean.mean())
    accuracy = np.array([0.8571428571428571, 0.8571428571428571, 0.8333333333333334, 0.6666666666666666,
                         0.6666666666666666, 0.5, 1.0, 0.6666666666666666, 0.8333333333333334, 0.8333333333333334])
    assert (100 * pd.Series(accuracy)).mean() != (100 * pd.Series(accuracy[[9, 3, 1, 6, 0, 2, 7, 8, 4, 5]])).mean()


def test_stored_cells_equal_plain_estimator_fits(compose, tmp_path):
    """Each stored cell equals its ``_target_`` estimator, with the cell's params and random_state=model_seed where it
    has one (SVC-rbf, LogReg-liblinear; kNN has none), fitted on its fold's minmax-scaled training rows.
    (A benchmark's shared-work families are checked the same way by its own tests.)"""
    from randml_core.data import load_dataset
    from randml_core.family import family_of
    from randml_core.preprocess import _minmax
    spec = compose("experiment=tiny", "dataset=heart")
    run(spec, tmp_path, n_jobs=1, progress=False)
    frame = load("tiny", store_dir=tmp_path, fold=0)
    plan = make_plan(spec)
    ds = load_dataset("heart")
    task = next(t for t in plan.tasks if t.split.fold == 0)
    Xtr, Xte = _minmax(ds.X[task.split.train], ds.X[task.split.test])
    from randml_core.metrics import gmean
    assert len(task.cells) == 3 + 4 + 2 and len(frame) == 9
    assert {c.variant.name for c in task.cells} == {"kNN", "SVC-rbf", "LogReg-liblinear"}
    for cell in task.cells:
        est = family_of(cell.variant.family, cell.variant.target).estimator()
        seeded = {"random_state": task.split.model_seed} if "random_state" in est.get_params() else {}
        assert bool(seeded) == (cell.variant.name != "kNN")
        pred = est.set_params(**cell.params, **seeded).fit(Xtr, ds.y[task.split.train]).predict(Xte)
        stored = frame.loc[frame["key"] == cell.key, "gmean"].item()
        assert gmean(ds.y[task.split.test], pred) == pytest.approx(stored, abs=1e-12), cell.variant.name


def test_resume_after_deleting_parts_and_corrupt_part(compose, tmp_path):
    spec = compose("experiment=tiny", "dataset=heart")
    first = run(spec, tmp_path, n_jobs=1, progress=False, write_every=0)
    store = Store(tmp_path, "tiny")
    parts = store.parts()
    assert len(parts) == 3  # one per task (3 folds) with write_every=0
    n_deleted = len(pd.read_parquet(parts[0]))
    parts[0].unlink()
    # truncate another part: it must be detected, quarantined and recomputed, never read silently
    data = parts[1].read_bytes()
    n_corrupt = len(pd.read_parquet(parts[1]))
    parts[1].write_bytes(data[: len(data) // 2])
    again = run(spec, tmp_path, n_jobs=1, progress=False)
    assert again.computed == n_deleted + n_corrupt and again.cached == first.computed - again.computed
    assert (tmp_path / "tiny" / "quarantine" / parts[1].name).exists()
    frame = load("tiny", store_dir=tmp_path)
    assert len(frame) == frame["key"].nunique() == first.computed
    assert run(spec, tmp_path, n_jobs=1, progress=False).computed == 0


def test_kill_midway_then_resume_computes_only_missing(tmp_path, randml_cmd, cli_env):
    store = tmp_path / "store"
    args = [*randml_cmd, "run", "experiment=tiny", "protocol.repeats=6", "n_jobs=1", "progress=false",
            "write_every=0",  # a part per task: the kill lands between parts (batched, a fast machine finished first)
            f"store_dir={store}", f"hydra.run.dir={tmp_path}/logs"]
    proc = subprocess.Popen(args, env=cli_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    part_dir = store / "tiny"
    deadline = time.time() + 120
    while time.time() < deadline and len(list(part_dir.glob("part-*.parquet"))) < 2:
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    n_parts = len(list(part_dir.glob("part-*.parquet")))
    assert n_parts >= 2
    # every stored row, wine's skipped-by-rule LogReg-liblinear ones too (a run counts them as computed)
    before = load("tiny", store_dir=store, all_configs=True, include_failed=True)
    total = 6 * 3 * (9 + 9)  # 6 repeats x 3 folds x (heart 9 + wine 9 settings, 2 of them skipped by rule)
    assert 0 < len(before) < total, "the run must be killed midway for this test to mean anything"
    out = subprocess.run(args, env=cli_env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert f"computed {total - len(before)} cells" in out.stderr
    after = load("tiny", store_dir=store, all_configs=True, include_failed=True)
    assert len(after) == after["key"].nunique() == total
    assert (after["status"] == "skipped").sum() == 6 * 3 * 2 and (after["status"] != "failed").all()
    # rows written before the kill are untouched
    kept = after.set_index("key").loc[before["key"], "timestamp"]
    assert (kept.values == before.set_index("key")["timestamp"].values).all()


def test_failed_cell_is_recorded_not_retried(compose, tmp_path, temp_dataset, monkeypatch):
    from sklearn.svm import SVC
    rng = np.random.default_rng(0)
    X = rng.random((60, 3))
    y = np.repeat([0, 1], 30)
    temp_dataset("tiny-test", X, y)
    real_fit = SVC.fit

    def fit(self, X, y, *args, **kwargs):  # one gamma fails (a NaN gamma can no longer be configured: refused up front)
        if self.gamma == 0.5:
            raise np.linalg.LinAlgError("injected: singular system")
        return real_fit(self, X, y, *args, **kwargs)
    monkeypatch.setattr(SVC, "fit", fit)
    spec = compose("experiment=tiny", "experiment.datasets=[tiny-test]", "model=svc",
                   "models.svc.grid.gamma=[0.5,1.0]")
    s = run(spec, tmp_path, n_jobs=1, progress=False)
    frame = load("tiny", store_dir=tmp_path, all_configs=True, include_failed=True)
    assert s.computed == len(frame) == 3 * 2 * 2  # 3 folds x 2 gamma x 2 C
    failed = frame[frame.status == "failed"]
    assert s.failed == len(failed) == 6 and (failed["p_gamma"] == 0.5).all()  # 3 folds x 2 C
    assert failed["error"].str.contains("LinAlgError: injected").all() and failed["gmean"].isna().all()
    assert (frame[frame.status == "ok"]["gmean"] >= 0).all()
    # recorded, not retried on the next run; retried only on request
    assert run(spec, tmp_path, n_jobs=1, progress=False).computed == 0
    assert run(spec, tmp_path, n_jobs=1, progress=False, retry_failed=True).computed == 6


def test_bad_input_errors_name_the_problem(compose, temp_dataset):
    with pytest.raises(ConfigError, match=r"did you mean 'heart'"):
        compose("experiment=tiny", "experiment.datasets=[hearr]")
    with pytest.raises(ConfigError, match=r"models.svc.grid.Cc is not a parameter of sklearn.svm.SVC; did you mean 'C'"):
        compose("experiment=tiny", "+models.svc.grid.Cc=[1.0]")
    with pytest.raises(ConfigError, match=r"protocol.n_splits must be an integer"):
        compose("experiment=tiny", "protocol.n_splits=ten")
    with pytest.raises(ConfigError, match=r"models.knn.grid.n_neighbors' must be a non-empty list"):
        compose("experiment=tiny", "models.knn.grid.n_neighbors=5")
    with pytest.raises(ConfigError, match="no experiment selected"):
        compose()
    X = np.random.default_rng(1).random((40, 4))
    X[3, 2] = np.nan
    temp_dataset("nan-test", X, np.repeat([0, 1], 20))
    with pytest.raises(PlanError, match=r"nan-test.*NaN"):
        make_plan(compose("experiment=tiny", "experiment.datasets=[nan-test]"))
    y = np.zeros(40, int)
    y[:2] = 1  # 2 minority samples: a 3-fold split leaves a test fold without that class
    temp_dataset("one-class-fold", np.random.default_rng(2).random((40, 4)), y)
    with pytest.raises(PlanError, match=r"smallest class has 2 samples.*n_splits<=2"):
        make_plan(compose("experiment=tiny", "experiment.datasets=[one-class-fold]"))


def test_status_counts_cells_skipped_by_rule_apart_from_failed_ones(tmp_path, randml_cmd, cli_env):
    # wine has 3 classes and LogReg-liblinear is binary only (its scikit-learn tags): every one of its cells is
    # skipped by rule, none failed
    common = ["experiment=tiny", "dataset=wine", "model=logreg_liblinear", "n_jobs=1",
              f"store_dir={tmp_path}/store", f"hydra.run.dir={tmp_path}/logs"]
    r = subprocess.run([*randml_cmd, "run", *common], env=cli_env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    st = subprocess.run([*randml_cmd, "status", *common], env=cli_env, capture_output=True, text=True, timeout=300)
    assert st.returncode == 0, st.stderr
    assert "total: 0 done, 6 skipped by rule, 0 failed, 0 missing" in st.stdout  # 2 C x 3 folds
    plan = subprocess.run([*randml_cmd, "plan", *common], env=cli_env, capture_output=True, text=True, timeout=300)
    assert plan.returncode == 0, plan.stderr
    assert "wine: 3 task(s), 6 cells: 0 stored, 6 skipped by rule, 0 failed, 0 missing in 0 task(s)" in plan.stdout
    assert "0/6/0/0" in st.stdout and "done/skipped/failed/missing" in st.stdout


def test_cli_end_to_end_produces_table_and_status(tmp_path, randml_cmd, cli_env):
    common = ["experiment=tiny", "dataset=heart", "n_jobs=1", f"store_dir={tmp_path}/store",
              f"results_dir={tmp_path}/results", f"hydra.run.dir={tmp_path}/logs"]
    st = subprocess.run([*randml_cmd, "status", *common], env=cli_env, capture_output=True, text=True, timeout=300)
    assert st.returncode == 0, st.stderr
    assert "0 done, 0 skipped by rule, 0 failed, 27 missing" in st.stdout  # heart: 3 folds x 9 settings
    r = subprocess.run([*randml_cmd, "run", *common], env=cli_env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "computed 27 cells" in r.stderr and "ETA" in r.stderr
    rep = subprocess.run([*randml_cmd, "report", *common], env=cli_env, capture_output=True, text=True, timeout=300)
    assert rep.returncode == 0, rep.stderr
    tables = tmp_path / "results" / "scratch" / "tiny" / "tables"  # dataset= overrides the experiment: scratch
    assert "scratch" in rep.stdout and not (tmp_path / "results" / "tables").exists()
    md = (tables / "tiny.md").read_text()
    row = next(line for line in md.splitlines() if line.startswith("| heart"))
    assert row.count("±") == 3 and row.count("**") >= 2  # kNN, SVC-rbf, LogReg-liblinear; the best in bold
    csv = pd.read_csv(tables / "tiny.csv")
    frame = load("tiny", store_dir=tmp_path / "store", model="SVC-rbf", inner_fold=-1)
    best = frame.groupby("params_json")["gmean"].mean().max()
    assert csv.loc[0, "SVC-rbf mean"] == pytest.approx(best)
    tex_row = next(l for l in (tables / "tiny.tex").read_text().splitlines()
                   if l.startswith("heart &"))
    assert tex_row.count("\\pm") == 3 and "\\textbf{" in tex_row
    bad = subprocess.run([*randml_cmd, "run", "experiment=tiny", "dataset=hearr", f"store_dir={tmp_path}/s"],
                         env=cli_env, capture_output=True, text=True, timeout=300)
    assert bad.returncode != 0 and "hearr" in bad.stderr and "heart" in bad.stderr


def test_fast_plan_keys_equal_the_reference_cell_key(compose):
    from randml_core.runner import cell_key
    spec = compose("experiment=tiny", "protocol.inner_splits=2")
    plan = make_plan(spec)
    checked = 0
    for task in plan.tasks:  # every cell: 2 datasets x 3 outer folds x (1 + 2 inner) tasks x 9 settings
        ds = plan.datasets[task.dataset]
        for cell in task.cells:
            assert cell.key == cell_key(ds.data_hash, spec, task.split, cell.variant, cell.params_json)
            checked += 1
    assert checked == 2 * 3 * (1 + 2) * 9 == 162


def test_rows_record_their_task_wall_time(compose, tmp_path):
    spec = compose("experiment=tiny", "dataset=heart")
    run(spec, tmp_path, n_jobs=1, progress=False)
    frame = load("tiny", store_dir=tmp_path)
    per_task = frame.groupby(["repeat", "fold", "inner_fold"])
    assert (per_task["task_seconds"].nunique() == 1).all()  # one value per task, shared by its rows
    # every cell's own time (solve + its share of the task's shared work) lies inside its task's time
    assert (frame["fit_seconds"] + frame["predict_seconds"] <= frame["task_seconds"] + 1e-9).all()
    assert "task_seconds" in VOLATILE_COLUMNS
