"""`randml compare`: ranks, Friedman p and a CD diagram over datasets from a store, and with two models the
per-dataset corrected resampled t-test; the printed ranks equal ranks computed from the stored rows."""
import subprocess

import numpy as np
import pytest
from scipy.stats import rankdata

from randml_core.report.comparison import selected
from randml_core.results import load


@pytest.fixture(scope="module")
def smoke_store(tmp_path_factory):
    import os
    import sys
    from conftest import REPO
    root = tmp_path_factory.mktemp("cmp")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    args = [sys.executable, "-m", "randml_core", "run", "experiment=smoke", "models.eekm.grid.gamma=[1.0]",
            "n_jobs=1", "progress=false", f"store_dir={root}/store", f"hydra.run.dir={root}/logs"]
    assert subprocess.run(args, env=env, capture_output=True, text=True, timeout=600).returncode == 0
    return root, env


def test_compare_prints_ranks_friedman_and_says_why_no_cd_diagram(smoke_store):
    import sys
    root, env = smoke_store
    common = [sys.executable, "-m", "randml_core", "compare", "experiment=smoke", "models.eekm.grid.gamma=[1.0]",
              f"store_dir={root}/store", f"results_dir={root}/results", f"hydra.run.dir={root}/logs"]
    res = subprocess.run([*common, "metric=accuracy"], env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "Friedman chi2_F" in res.stdout and "average rank" in res.stdout
    # an override of the experiment's grid: not its committed config, so the files go to scratch
    out = root / "results" / "scratch" / "smoke"
    # 9 models on 2 datasets: the Nemenyi CD (8.5) exceeds k - 1 = 8, so no CD diagram, and the text says why
    assert "No CD diagram: with 2 datasets the Nemenyi CD" in res.stdout
    assert not (out / "figures" / "smoke_compare_accuracy_cd.png").exists()
    three = subprocess.run([*common, "metric=accuracy", "models=[EEM-rbf,SVM-rbf,WELM-rbf]"], env=env,
                           capture_output=True, text=True, timeout=300)  # CD 2.34 > 2: none either
    assert three.returncode == 0 and "No CD diagram" in three.stdout, three.stderr[-2000:]
    frame = load("smoke", store_dir=root / "store", overrides=["models.eekm.grid.gamma=[1.0]"])
    matrix = selected(frame, "accuracy").pivot(index="dataset", columns="model", values="mean")
    # scores equal to 12 decimals are ties (floating-point noise of fold means), as the stats module documents
    ranks = np.mean([rankdata(-np.round(row, 12)) for row in matrix.to_numpy()], axis=0)
    for model, r in zip(matrix.columns, ranks):
        assert f"| {model} | {r:.3f} |" in res.stdout
    two = subprocess.run([*common, "models=[EEM-rbf,SVM-rbf]"], env=env, capture_output=True, text=True, timeout=300)
    assert two.returncode == 0 and "corrected resampled t-test" in two.stdout, two.stderr[-2000:]
    bad = subprocess.run([*common, "metric=nope"], env=env, capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "nope" in bad.stderr
    unstored = subprocess.run([*common, "metric=rmse"], env=env, capture_output=True, text=True, timeout=300)
    assert unstored.returncode == 2
    assert "metric='rmse' is not stored for smoke; its rows have: gmean, accuracy, balanced_accuracy" in unstored.stderr


def test_compare_of_a_committed_config_writes_to_scratch_too(tmp_path):
    # `make compare EXP=eem_table4` left untracked files in results/tables and figures, which the site then
    # showed as the paper's artefacts; compare's files are exploratory and go to results/scratch/<experiment>/
    import os
    import sys
    from conftest import REPO
    env = dict(os.environ, PYTHONPATH=str(REPO))
    common = ["experiment=smoke", f"store_dir={tmp_path}/store", f"hydra.run.dir={tmp_path}/logs"]
    run = subprocess.run([sys.executable, "-m", "randml_core", "run", *common, "n_jobs=1", "progress=false"],
                         env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    res = subprocess.run([sys.executable, "-m", "randml_core", "compare", *common, f"results_dir={tmp_path}/results"],
                         env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    written = sorted(str(p.relative_to(tmp_path / "results")) for p in (tmp_path / "results").rglob("*") if p.is_file())
    assert "scratch/smoke/tables/smoke_compare_gmean.md" in written
    assert all(p.startswith("scratch/smoke/") for p in written), written
