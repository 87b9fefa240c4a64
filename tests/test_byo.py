"""The README's "Bring your own model and dataset" example, as written: a config-only experiment in a
config folder of the user's own (examples/byo, copied to a temporary directory) comparing a `_target_`
estimator, a pipeline, an estimator without random_state and a project family on a CSV dataset card and
shipped datasets; run, reported and loaded, with no Python written by the user."""
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from randml_core.data import hash_arrays
from randml_core.results import best, load

from conftest import REPO


@pytest.fixture(scope="module")
def byo(tmp_path_factory):
    root = tmp_path_factory.mktemp("byo")
    conf = root / "my-conf"
    shutil.copytree(REPO / "examples" / "byo", conf)
    yield root, conf
    from randml_core.data.registry import unregister
    unregister("blobs")  # load(config_dir=...) registered the user's card in this process


def _randml(args, cwd, env):
    import sys
    return subprocess.run([sys.executable, "-m", "randml_core", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


def test_config_only_experiment_runs_reports_and_loads(byo, cli_env):
    root, conf = byo
    common = ["--config-dir", str(conf), "experiment=mine", f"store_dir={root}/store", f"results_dir={root}/results",
              f"hydra.run.dir={root}/logs"]
    run = _randml(["run", *common, "n_jobs=2", "progress=false"], root, cli_env)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "(0 failed, 0 skipped by rule" in run.stderr
    rep = _randml(["report", *common], root, cli_env)
    assert rep.returncode == 0, rep.stderr[-3000:]
    md = (root / "results" / "tables" / "mine.md").read_text()
    body = [line for line in md.splitlines() if line.startswith("| ") and not line.startswith("| dataset")]
    assert [line.split(" | ")[0][2:] for line in body] == ["blobs", "heart", "sonar"]
    for line in body:  # a number in every cell: 3 datasets x 6 columns (LogReg, scaled_svc, kNN, 3 EEM)
        assert line.count("±") == 6, line
    assert "- Features: minmax[0,1] fitted on the training part." in md  # the generic footer states the scaling
    assert (root / "results" / "tables" / "mine_stats.md").exists()
    assert (root / "results" / "figures" / "mine_cd.png").exists()

    frame = load("mine", store_dir=root / "store", config_dir=conf)
    assert set(frame["model"]) == {"LogReg", "scaled_svc", "kNN", "EEM-sig", "EEM-nsig", "EEM-rbf"}
    assert (frame["inner_fold"] == -1).all() and (frame["status"] == "ok").all()
    # the kNN column ran without a seed; the pipeline's grid keys are step__param
    assert frame.loc[frame["model"] == "scaled_svc", "params_json"].str.contains("svc__C").all()
    assert set(frame.loc[frame["model"] == "LogReg", "family"]) == {"sklearn.linear_model.LogisticRegression"}
    # the CSV card: the stored data hash is that of the file read independently, labels mapped by hand
    raw = pd.read_csv(conf / "dataset" / "blobs.csv")
    X = raw[["width", "height", "depth", "density"]].to_numpy(np.float64)
    y = (raw["kind"] == "rare").astype(np.int64).to_numpy()  # 1 = the minority class
    stored = set(frame.loc[frame["dataset"] == "blobs", "data_hash"])
    assert stored == {hash_arrays(X, y)}
    rows = frame[(frame["model"] == "LogReg") & (frame["dataset"] == "blobs")]
    assert ((rows["n_train"] + rows["n_test"]) == 240).all() and rows["gmean"].between(0, 1).all()
    # the table's LogReg cell on blobs is the best setting's mean over the 5 outer folds
    table = pd.read_csv(root / "results" / "tables" / "mine.csv").set_index("dataset")
    assert table.loc["blobs", "LogReg mean"] == pytest.approx(rows.groupby("params_json")["gmean"].mean().max())


def test_rerun_computes_nothing_and_status_sees_the_users_models(byo, cli_env):
    root, conf = byo
    common = ["--config-dir", str(conf), "experiment=mine", f"store_dir={root}/store", f"hydra.run.dir={root}/logs"]
    again = _randml(["run", *common, "n_jobs=1", "progress=false"], root, cli_env)
    assert again.returncode == 0 and "computed 0 cells" in again.stderr, again.stderr[-2000:]
    status = _randml(["status", *common], root, cli_env)
    assert status.returncode == 0 and "LogReg" in status.stdout and "blobs" in status.stdout
    data = _randml(["data", "show", "blobs", "--config-dir", str(conf)], root, cli_env)
    assert data.returncode == 0 and "240 x 4" in data.stdout, data.stdout + data.stderr
    # a report metric that fits none of the sets (regression RMSE, classification sets only): exit 2
    bad = _randml(["report", *common, "+report.metrics=[rmse]", f"results_dir={root}/bad"], root, cli_env)
    assert bad.returncode == 2, bad.stderr[-2000:]
    assert "report.metrics lists 'rmse', a regression metric, but every dataset of mine is classification" \
        in bad.stderr
    assert not (root / "bad" / "tables" / "mine.md").exists()


MIXED = """\
# @package _global_
defaults:
  - /model@models.ridge: ridge
  - /model@models.lr: lr
protocol: {n_splits: 3}
experiment:
  name: mixed
  datasets: [line, heart]
"""


def test_a_mix_of_regression_and_classification_sets_gets_one_table_per_task(tmp_path, cli_env):
    """Default metrics of the generic report: GMean over the classification sets and RMSE over the regression
    ones, each its own table; a regression set is not a 'missing' row of the GMean table."""
    conf = tmp_path / "conf"
    for sub in ("model", "dataset", "experiment"):
        (conf / sub).mkdir(parents=True)
    rng = np.random.default_rng(3)
    x = rng.uniform(size=(90, 2))
    pd.DataFrame({"a": x[:, 0], "b": x[:, 1], "y": 2 * x[:, 0] - x[:, 1] + 0.1 * rng.normal(size=90)}).to_csv(
        conf / "dataset" / "line.csv", index=False)
    (conf / "dataset" / "line.yaml").write_text("name: line\ntask: regression\nsource: {kind: csv, path: line.csv, "
                                                "target: y}\n")
    (conf / "model" / "ridge.yaml").write_text("estimator: {_target_: sklearn.linear_model.Ridge}\n"
                                               "grid: {alpha: [0.01, 1.0]}\n")
    (conf / "model" / "lr.yaml").write_text("estimator: {_target_: sklearn.linear_model.LogisticRegression}\n"
                                                "grid: {C: [1.0]}\n")
    (conf / "experiment" / "mixed.yaml").write_text(MIXED)
    common = ["--config-dir", str(conf), "experiment=mixed", f"store_dir={tmp_path}/store",
              f"results_dir={tmp_path}/results", f"hydra.run.dir={tmp_path}/logs"]
    run = _randml(["run", *common, "n_jobs=1", "progress=false"], tmp_path, cli_env)
    assert run.returncode == 0, run.stderr[-3000:]
    rep = _randml(["report", *common], tmp_path, cli_env)
    assert rep.returncode == 0, rep.stderr[-3000:]
    tables = tmp_path / "results" / "tables"
    gmean = pd.read_csv(tables / "mixed.csv").set_index("dataset")
    rmse = pd.read_csv(tables / "mixed_rmse.csv").set_index("dataset")
    assert list(gmean.index) == ["heart"] and list(rmse.index) == ["line"]
    assert "missing" not in (tables / "mixed.md").read_text() + (tables / "mixed_rmse.md").read_text()
    rows = load("mixed", store_dir=tmp_path / "store", config_dir=conf)
    ridge = rows[(rows["dataset"] == "line") & (rows["model"] == "ridge")]
    assert rmse.loc["line", "ridge mean"] == pytest.approx(ridge.groupby("params_json")["rmse"].mean().min())
    lr = rows[(rows["dataset"] == "heart") & (rows["model"] == "lr")]
    assert gmean.loc["heart", "lr mean"] == pytest.approx(lr["gmean"].mean())
    # best() gives the tables' cells: each metric over the sets it scores, never a NaN row of the other task
    full = load("mixed", store_dir=tmp_path / "store", config_dir=conf, include_failed=True)
    by_gmean = best(full).set_index(["dataset", "model"])
    by_rmse = best(full, metric="rmse").set_index(["dataset", "model"])
    assert set(by_gmean.index.get_level_values(0)) == {"heart"} and set(by_rmse.index.get_level_values(0)) == {"line"}
    assert by_gmean.loc[("heart", "lr"), "mean"] == pytest.approx(gmean.loc["heart", "lr mean"])
    assert by_rmse.loc[("line", "ridge"), "mean"] == pytest.approx(rmse.loc["line", "ridge mean"])
    with pytest.raises(ValueError, match="metric='gmean' scores classification sets and this frame has none"):
        best(full[full["dataset"] == "line"], metric="gmean")
    assert best(full[full["dataset"] == "line"]).equals(by_rmse.reset_index())  # default by task: rmse (issue 33)
    from randml_core.data.registry import unregister
    unregister("line")  # load(config_dir=...) registered the card in this process


def test_a_users_config_named_like_a_shipped_one_takes_precedence(tmp_path, cli_env):
    """A user's --config-dir is Hydra's primary dir (randml_core/searchpath.py): their model/logreg.yaml and
    experiment/tiny.yaml replace the shipped ones of those names, so no user has to know the shipped names.
    Without the user's file the shipped one is used."""
    conf = tmp_path / "conf"
    shutil.copytree(REPO / "examples" / "byo", conf)
    mine = (conf / "model" / "logistic.yaml").read_text()
    assert "Mine-LR" not in mine
    (conf / "model" / "logreg.yaml").write_text(mine.replace("LogReg", "Mine-LR"))
    exp = (conf / "experiment" / "mine.yaml").read_text().replace("models.logistic: logistic", "models.logreg: logreg")
    (conf / "experiment" / "mine.yaml").write_text(exp)
    common = [f"store_dir={tmp_path}/store", "dataset=heart"]
    plan = _randml(["plan", "--config-dir", str(conf), "experiment=mine", *common], tmp_path, cli_env)
    assert plan.returncode == 0 and "Mine-LR" in plan.stdout, plan.stdout[-2000:] + plan.stderr[-2000:]
    (conf / "model" / "logreg.yaml").unlink()  # now the shipped conf/model/logreg.yaml
    plan = _randml(["plan", "--config-dir", str(conf), "experiment=mine", *common], tmp_path, cli_env)
    assert plan.returncode == 0 and "Mine-LR" not in plan.stdout and "LogReg" in plan.stdout, plan.stderr[-2000:]
    # an experiment named like a shipped one (the engine's conf/experiment/tiny.yaml: kNN, SVC-rbf,
    # LogReg-liblinear): the user's is planned
    (conf / "experiment" / "tiny.yaml").write_text(exp.replace("name: mine", "name: tiny"))
    plan = _randml(["plan", "--config-dir", str(conf), "experiment=tiny", *common], tmp_path, cli_env)
    assert plan.returncode == 0 and "LogReg" in plan.stdout and "LogReg-liblinear" not in plan.stdout, (
        plan.stderr[-2000:])
    shipped = _randml(["plan", "experiment=tiny", *common], tmp_path, cli_env)
    assert shipped.returncode == 0 and "LogReg-liblinear" in shipped.stdout, shipped.stderr[-2000:]


def test_target_models_build_under_hydras_execution_whitelist():
    """A ``_target_`` model (nested too) is instantiated with exactly its own targets allowed: no Hydra
    warning about a missing execution whitelist, and a target the node does not name is refused."""
    import inspect
    import warnings

    from hydra.utils import instantiate

    from randml_core.family import _execution_whitelist, target_family

    node = {"_target_": "sklearn.pipeline.make_pipeline",
            "_args_": [{"_target_": "sklearn.preprocessing.StandardScaler"},
                       {"_target_": "sklearn.linear_model.LogisticRegression", "C": 2.0}]}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = target_family(node).estimator()
    assert [type(s).__name__ for s in est] == ["StandardScaler", "LogisticRegression"] and est[-1].C == 2.0
    if "_execution_whitelist_" not in inspect.signature(instantiate).parameters:
        pytest.skip("this Hydra has no execution whitelist (< 1.4)")
    allowed = _execution_whitelist(instantiate, {"_target_": "sklearn.preprocessing.StandardScaler"})
    # the name the node gives and the canonical name of the class it resolves to (Hydra checks both)
    assert allowed == {"_execution_whitelist_": ["sklearn.preprocessing.StandardScaler",
                                                 "sklearn.preprocessing._data.StandardScaler"]}
    with pytest.raises(Exception, match="LogisticRegression"):
        instantiate({"_target_": "sklearn.linear_model.LogisticRegression"}, **allowed)
