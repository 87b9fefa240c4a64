"""`randml compare`: ranks, Friedman p and a CD diagram over datasets from a store, and with two models the
per-dataset corrected resampled t-test; the printed ranks equal ranks computed from the stored rows."""
import subprocess

import numpy as np
import pytest
from scipy.stats import rankdata

from randml_core.report.comparison import selected
from randml_core.results import load

# tiny's 3 models plus the engine's multiclass LogReg (one setting): LogReg-liblinear is binary only (skipped by rule
# on wine), so 3 models have scores on both datasets (kNN, SVC-rbf, LogReg) and the 4th on heart only
EXTRA = ["+model@models.logreg=logreg", "models.logreg.grid.C=[1.0]"]


@pytest.fixture(scope="module")
def tiny_store(tmp_path_factory):
    import os
    import sys
    from conftest import REPO
    root = tmp_path_factory.mktemp("cmp")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    args = [sys.executable, "-m", "randml_core", "run", "experiment=tiny", *EXTRA,
            "n_jobs=1", "progress=false", f"store_dir={root}/store", f"hydra.run.dir={root}/logs"]
    assert subprocess.run(args, env=env, capture_output=True, text=True, timeout=600).returncode == 0
    return root, env


def test_compare_prints_ranks_friedman_and_says_why_no_cd_diagram(tiny_store):
    import sys
    root, env = tiny_store
    common = [sys.executable, "-m", "randml_core", "compare", "experiment=tiny", *EXTRA,
              f"store_dir={root}/store", f"results_dir={root}/results", f"hydra.run.dir={root}/logs"]
    both = ["kNN", "SVC-rbf", "LogReg"]  # the models with scores on both datasets
    res = subprocess.run([*common, "metric=accuracy", f"models=[{','.join(both)}]"], env=env, capture_output=True,
                         text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "Friedman chi2_F" in res.stdout and "average rank" in res.stdout
    assert "Comparison of 3 models on 2 datasets" in res.stdout
    # an added model: not the experiment's committed config, so the files go to scratch
    out = root / "results" / "scratch" / "tiny"
    # 3 models on 2 datasets: the Nemenyi CD (2.34) exceeds k - 1 = 2, so no CD diagram, and the text says why
    assert "No CD diagram: with 2 datasets the Nemenyi CD (2.344) exceeds k - 1 = 2" in res.stdout
    assert not (out / "figures" / "tiny_compare_accuracy_cd.png").exists()
    every = subprocess.run([*common, "metric=accuracy"], env=env,
                           capture_output=True, text=True, timeout=300)  # all 4: wine dropped, 1 dataset, no CD
    assert every.returncode == 0 and "No CD diagram" in every.stdout, every.stderr[-2000:]
    assert "Comparison of 4 models on 1 datasets" in every.stdout
    assert "Dropped 1 dataset(s) where a model has no score: wine." in every.stdout
    frame = load("tiny", store_dir=root / "store", overrides=EXTRA)
    matrix = selected(frame, "accuracy").pivot(index="dataset", columns="model", values="mean")[both]
    assert matrix.shape == (2, 3) and matrix.notna().all().all()
    # scores equal to 12 decimals are ties (floating-point noise of fold means), as the stats module documents
    ranks = np.mean([rankdata(-np.round(row, 12)) for row in matrix.to_numpy()], axis=0)
    for model, r in zip(matrix.columns, ranks):
        assert f"| {model} | {r:.3f} |" in res.stdout
    two = subprocess.run([*common, "models=[kNN,SVC-rbf]"], env=env, capture_output=True, text=True, timeout=300)
    assert two.returncode == 0 and "corrected resampled t-test" in two.stdout, two.stderr[-2000:]
    bad = subprocess.run([*common, "metric=nope"], env=env, capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "nope" in bad.stderr
    unstored = subprocess.run([*common, "metric=rmse"], env=env, capture_output=True, text=True, timeout=300)
    assert unstored.returncode == 2
    assert "metric='rmse' is not stored for tiny; its rows have: gmean, accuracy, balanced_accuracy" in unstored.stderr


def test_compare_of_a_committed_config_writes_to_scratch_too(tmp_path):
    # `make compare EXP=<a paper's table>` left untracked files in results/tables and figures, which the site then
    # showed as the paper's artefacts; compare's files are exploratory and go to results/scratch/<experiment>/
    import os
    import sys
    from conftest import REPO
    env = dict(os.environ, PYTHONPATH=str(REPO))
    common = ["experiment=tiny", f"store_dir={tmp_path}/store", f"hydra.run.dir={tmp_path}/logs"]
    run = subprocess.run([sys.executable, "-m", "randml_core", "run", *common, "n_jobs=1", "progress=false"],
                         env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    res = subprocess.run([sys.executable, "-m", "randml_core", "compare", *common, f"results_dir={tmp_path}/results"],
                         env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    written = sorted(str(p.relative_to(tmp_path / "results")) for p in (tmp_path / "results").rglob("*") if p.is_file())
    assert "scratch/tiny/tables/tiny_compare_gmean.md" in written
    assert all(p.startswith("scratch/tiny/") for p in written), written
