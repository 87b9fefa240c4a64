"""The trust issue's smaller holes, each as a user meets it: a user's report never lands in the project's
committed results; an override that profile=quick would drop is applied; an overflowing RMSE is computed or
stored as failed, never `inf` and ok; a full disk and a file in the store's way end with one line and their
own exit codes, no traceback."""
import errno
import shutil
import subprocess
import sys

import numpy as np
import pytest

from randml_core.metrics import rmse

from conftest import REPO


def _cli(args, cwd, env, prelude=""):
    code = prelude + "from randml_core.cli import main\nmain()"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


def test_a_users_report_never_writes_into_the_projects_committed_results(tmp_path, cli_env):
    conf = tmp_path / "conf"
    shutil.copytree(REPO / "examples" / "byo", conf)
    name = "trustprobe_users_report"
    (conf / "experiment" / f"{name}.yaml").write_text(
        "# @package _global_\ndefaults:\n  - /model@models.logistic: logistic\n  - override /protocol: cv10\n"
        f"protocol: {{n_splits: 2}}\nmodels:\n  logistic: {{grid: {{C: [1.0]}}}}\n"
        f"experiment:\n  name: {name}\n  datasets: [blobs]\n")
    project = REPO / "results"
    common = ["--config-dir", str(conf), f"experiment={name}", f"store_dir={tmp_path}/store",
              f"hydra.run.dir={tmp_path}/logs", "n_jobs=1", "progress=false"]
    scratch = project / "scratch" / name
    try:
        run = _cli(["run", *common], tmp_path, cli_env)
        assert run.returncode == 0, run.stderr[-2000:]
        rep = _cli(["report", *common, f"results_dir={project}"], tmp_path, cli_env)
        assert rep.returncode == 0, rep.stderr[-2000:]
        assert f"experiment={name} is your own" in rep.stderr
        assert not list((project / "tables").glob(f"{name}*")) and not list((project / "figures").glob(f"{name}*"))
        assert (scratch / "tables" / f"{name}.md").exists()
        status = subprocess.run(["git", "status", "--porcelain", "--", "results"], cwd=REPO, capture_output=True,
                                text=True)
        assert name not in status.stdout
        # the same report into a folder of the user's own writes the ordinary layout there
        mine = tmp_path / "my-results"
        rep = _cli(["report", *common, f"results_dir={mine}"], tmp_path, cli_env)
        assert rep.returncode == 0 and (mine / "tables" / f"{name}.md").exists()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def test_a_grid_override_is_applied_under_profile_quick_not_dropped(tmp_path, cli_env):
    common = ["experiment=tiny", "profile=quick", "dataset=heart", "model=svc", f"store_dir={tmp_path}/s",
              f"hydra.run.dir={tmp_path}/logs"]
    quick = _cli(["plan", *common], tmp_path, cli_env)
    assert quick.returncode == 0, quick.stderr[-2000:]
    assert "1 setting(s): C=[1.0], gamma=[0.1]" in quick.stdout  # conf/model/svc.yaml's quick grid, not tiny's
    plan = _cli(["plan", *common, "models.svc.grid.C=[2.0,5.0]"], tmp_path, cli_env)
    assert plan.returncode == 0, plan.stderr[-2000:]
    assert "2 setting(s): C=[2.0, 5.0], gamma=[0.1]" in plan.stdout
    bad = _cli(["plan", *common, "models.svc.grid.C=[-1.0,5.0]"], tmp_path, cli_env)
    assert bad.returncode == 2 and "models.svc.grid.C=-1.0" in bad.stderr


def test_rmse_near_the_float_limit_is_finite_and_exact_and_ordinary_values_keep_their_bits():
    assert rmse([1e200, -1e200], [0.0, 0.0]) == 1e200  # sqrt((1e400 + 1e400) / 2), computed scaled
    assert rmse([3e300, 0.0], [-1e300, 0.0]) == pytest.approx(4e300 / np.sqrt(2), rel=1e-15)
    y, p = np.random.default_rng(0).normal(size=(2, 50))
    d = y - p
    assert rmse(y, p) == float(np.sqrt(np.mean(d * d)))  # bit for bit the formula every stored value used
    assert rmse([1.0, 2.0], [1.0, 2.0]) == 0.0


def test_a_prediction_whose_metric_is_not_finite_is_stored_failed_never_ok():
    from sklearn.dummy import DummyRegressor

    from randml_core.config import Variant
    from randml_core.family import FAMILIES, Family, register_family
    from randml_core.protocol import SplitSpec
    from randml_core.runner import Cell, Task, run_task
    register_family(Family("huge_probe", DummyRegressor, "1", None))
    try:
        X, y = np.zeros((20, 2)), np.full(20, -1e308)
        split = SplitSpec(0, 0, -1, 0, 0, np.arange(10), np.arange(10, 20))
        variant = Variant("huge", "huge_probe", {}, {})
        task = Task("d", split, [Cell("k1", variant, {"strategy": "constant", "constant": 1e308},
                                      '{"constant": 1e308, "strategy": "constant"}')])
        row, = run_task(X, y, task, {"preprocessing": "none"}, "regression")
        assert row["status"] == "failed" and "not finite" in row["error"]
        assert np.isnan(row["rmse"]) and np.isnan(row["mae"])
    finally:
        dict.pop(FAMILIES, "huge_probe", None)


_NO_SPACE = """
import errno
import randml_core.store as store
def write(self, rows):
    raise OSError(errno.ENOSPC, "No space left on device", str(self.dir))
store.Store.write = write
"""


def test_a_full_disk_is_its_own_exit_code_with_one_line(tmp_path, cli_env):
    out = _cli(["run", "experiment=tiny", "dataset=heart", "model=knn", "n_jobs=1", "progress=false",
                f"store_dir={tmp_path}/store", f"hydra.run.dir={tmp_path}/logs"], tmp_path, cli_env, _NO_SPACE)
    assert out.returncode == 4, out.stderr[-3000:]
    assert "no space left on the device" in out.stderr and "Traceback" not in out.stderr


def test_a_file_where_the_store_needs_a_directory_is_a_path_error(tmp_path, cli_env):
    (tmp_path / "store" / "tiny").mkdir(parents=True)
    (tmp_path / "store" / "tiny" / "leases").write_text("not a directory")
    out = _cli(["run", "experiment=tiny", "dataset=heart", "model=knn", "n_jobs=1", "progress=false",
                f"store_dir={tmp_path}/store", f"hydra.run.dir={tmp_path}/logs"], tmp_path, cli_env)
    assert out.returncode == 2, out.stderr[-3000:]
    assert "cannot use the path" in out.stderr and "leases" in out.stderr and "Traceback" not in out.stderr


def test_os_errors_map_to_exit_codes():
    from randml_core.cli import EXIT_CONFIG, EXIT_NO_SPACE, _os_error
    assert _os_error(OSError(errno.ENOSPC, "No space left on device"))[0] == EXIT_NO_SPACE
    assert _os_error(FileExistsError(errno.EEXIST, "File exists", "/s/leases"))[0] == EXIT_CONFIG
    assert _os_error(OSError(errno.EIO, "I/O error"))[0] is None  # a crash stays a crash (exit 1, traceback)
