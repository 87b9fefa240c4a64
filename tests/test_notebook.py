"""notebooks/explore_results.ipynb runs end to end (nbclient, a real kernel) on a small store built
here, and its selections equal ones computed independently from the raw parquet parts."""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

nbformat = pytest.importorskip("nbformat", reason="nbformat is in the dev extra: pip install -e '.[dev]'")
nbclient = pytest.importorskip("nbclient", reason="nbclient is in the dev extra: pip install -e '.[dev]'")

REPO = Path(__file__).resolve().parent.parent
NOTEBOOK = REPO / "notebooks" / "explore_results.ipynb"
RUN = ["experiment=tiny", "dataset=heart", "protocol.inner_splits=2"]
OVERRIDES = ["protocol.inner_splits=2"]  # the tiny config with inner folds (heart is its only stored set)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf
    from randml_core.config import build_spec
    from randml_core.runner import run
    with initialize_config_dir(config_dir=str(REPO / "conf"), version_base="1.3"):
        cfg = compose(config_name="config", overrides=RUN)
    root = tmp_path_factory.mktemp("nbstore")
    summary = run(build_spec(OmegaConf.to_container(cfg, resolve=True)), root, n_jobs=1, progress=False)
    assert summary.computed == 81 and summary.failed == 0  # 9 settings x 3 outer folds x (1 + 2 inner)
    return root


def run_notebook(params: str, tail: str, cwd: Path) -> tuple[dict, list]:
    """Run the notebook with ``params`` injected after the cell tagged "parameters" (as papermill does) and ``tail``
    as a last cell that prints JSON; returns that JSON and the cells."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    at = next(i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", []))
    nb.cells.insert(at + 1, nbformat.v4.new_code_cell(params, metadata={"tags": ["injected-parameters"]}))
    nb.cells.append(nbformat.v4.new_code_cell(tail))
    from jupyter_client.manager import KernelManager
    km = KernelManager(kernel_name="python3", transport="ipc", ip=str(cwd / "kernel-ipc"))  # no TCP ports
    nbclient.NotebookClient(nb, km=km, timeout=300, resources={"metadata": {"path": str(cwd)}}).execute()
    return json.loads(nb.cells[-1].outputs[0]["text"]), nb.cells


def execute(store: Path, cwd: Path) -> tuple[dict, list]:
    """The notebook on the tiny store, its tables, selections and paired summary printed as JSON."""
    params = (f"EXPERIMENT = 'tiny'\nOVERRIDES = {OVERRIDES!r}\nSTORE_DIR = {str(store)!r}\n"
              "MODELS = ('kNN', 'SVC-rbf')\nMETRIC = 'gmean'")
    return run_notebook(params,
                        "import json\nrows = lambda t: [[d, m, v] for (d, m), v in t.stack().items()]\n"
                        "print(json.dumps({'table': rows(table), 'nested': rows(nested_table), "
                        "'paired': summary['mean'].to_dict(), 'param': param, 'n_rows': len(df)}))", cwd)


def test_notebook_runs_and_matches_independent_selections(store, tmp_path, monkeypatch):
    # the kernel must import this checkout's randml_core, from another working directory
    monkeypatch.setenv("PYTHONPATH", str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out, cells = execute(store, tmp_path)
    raw = pd.concat([pd.read_parquet(p) for p in sorted((store / "tiny").glob("part-*.parquet"))])
    outer = raw[raw["inner_fold"] == -1]
    assert out["n_rows"] == len(outer) == 27  # 9 settings x 3 outer folds
    means = outer.groupby(["dataset", "model", "params_json"])["gmean"].mean()
    # the paper's rule: per (dataset, model) the setting with the largest outer mean
    best_mean = means.groupby(level=["dataset", "model"]).max()
    table = {(d, m): v for d, m, v in out["table"]}
    assert set(table) == {k for k in best_mean.index}
    for key, value in best_mean.items():
        assert table[key] == pytest.approx(value, abs=1e-12)
    # nested: per outer fold the setting with the best inner mean (ties: first in sorted order)
    inner = raw[raw["inner_fold"] >= 0].groupby(["model", "fold", "params_json"])["gmean"].mean()
    nested = {(d, m): v for d, m, v in out["nested"]}
    for model in ("kNN", "SVC-rbf", "LogReg-liblinear"):
        scores = []
        for fold in range(3):
            s = inner.loc[(model, fold)]
            pick = sorted(s.index[s == s.max()])[0]
            scores.append(outer[(outer.model == model) & (outer.fold == fold) & (outer.params_json == pick)]
                          ["gmean"].item())
        assert nested[("heart", model)] == pytest.approx(np.mean(scores), abs=1e-12)
    # paired comparison: each model at its best-mean setting, same folds
    picks = means.groupby(level=["dataset", "model"]).idxmax()
    fold_scores = {m: outer[(outer.model == m) & (outer.params_json == picks[("heart", m)][2])]
                   .set_index("fold")["gmean"] for m in ("kNN", "SVC-rbf")}
    assert out["paired"]["heart"] == pytest.approx((fold_scores["kNN"] - fold_scores["SVC-rbf"]).mean())
    assert out["param"] == "p_n_neighbors"
    # the plot cell drew a figure
    plot = next(c for c in cells if "errorbar" in c.source)
    assert any("image/png" in o.get("data", {}) for o in plot.outputs)


def test_notebook_runs_on_a_users_regression_store_with_one_setting_per_model_and_failed_cells(tmp_path, monkeypatch):
    """Parameters a user gives (their config dir, their store), and a store shape the paper's has not: regression
    only (the metric defaults to RMSE), one setting per model (no curve to plot) and a model whose cells all fail."""
    import subprocess
    import sys
    conf = tmp_path / "conf"
    (conf / "experiment").mkdir(parents=True)
    (conf / "experiment" / "nbreg.yaml").write_text(
        "# @package _global_\ndefaults:\n  - override /protocol: cv10\nprotocol: {n_splits: 2}\nmodels:\n"
        "  ridge: {estimator: {_target_: sklearn.linear_model.Ridge}, variants: {Ridge: {}}}\n"
        "  dummy: {estimator: {_target_: sklearn.dummy.DummyRegressor}, variants: {Dummy: {}}}\n"
        "  knn: {estimator: {_target_: sklearn.neighbors.KNeighborsRegressor, n_neighbors: 100000},"
        " variants: {kNNbig: {}}}\n"
        "experiment:\n  name: nbreg\n  datasets: [friedman1]\n")
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    run = subprocess.run([sys.executable, "-m", "randml_core", "run", "--config-dir", str(conf), "experiment=nbreg",
                          f"store_dir={tmp_path}/store", f"hydra.run.dir={tmp_path}/logs", "n_jobs=1", "progress=false"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 1 and "2 failed" in run.stderr, run.stderr[-2000:]  # kNNbig: n_neighbors > rows
    monkeypatch.setenv("PYTHONPATH", env["PYTHONPATH"])
    out, _ = run_notebook(
        f"EXPERIMENT = 'nbreg'\nCONFIG_DIR = {str(conf)!r}\nSTORE_DIR = {str(tmp_path / 'store')!r}",
        "import json\nprint(json.dumps({'metric': METRIC, 'models': list(MODELS), 'param': param,"
        " 'table': {m: v for (d, m), v in table.stack().items()}, 'paired': summary['mean'].to_dict()}))",
        tmp_path)
    assert out["metric"] == "rmse" and out["models"] == ["Dummy", "Ridge"] and out["param"] is None
    raw = pd.concat([pd.read_parquet(p) for p in sorted((tmp_path / "store" / "nbreg").glob("part-*.parquet"))])
    ok = raw[raw.status == "ok"].groupby("model")["rmse"]
    assert out["table"]["Ridge"] == pytest.approx(ok.mean()["Ridge"], abs=1e-12)
    assert out["paired"]["friedman1"] == pytest.approx(ok.mean()["Dummy"] - ok.mean()["Ridge"], abs=1e-12)
    assert "kNNbig" not in out["table"] or np.isnan(out["table"]["kNNbig"])  # every cell failed: no number


def test_a_two_axis_grid_is_drawn_one_curve_per_value_of_the_other_axis(store, tmp_path):
    """SVC-rbf's grid has two axes (gamma, C): the curve over the first is drawn once per value of the other,
    never pooled over it, and the title says so; the means equal the raw parts' per (gamma, C)."""
    out, _ = run_notebook(
        f"EXPERIMENT = 'tiny'\nOVERRIDES = {OVERRIDES!r}\nSTORE_DIR = {str(store)!r}\n"
        "MODELS = ('SVC-rbf', 'kNN')\nMETRIC = 'gmean'",
        "import json\nprint(json.dumps({'param': param, 'others': others, 'labels': curve_labels,"
        " 'title': ax.get_title(), 'curve': curve[[*others, param, 'mean']].values.tolist()}))", tmp_path)
    assert sorted([out["param"], *out["others"]]) == ["p_C", "p_gamma"] and len(out["others"]) == 1
    other = out["others"][0][2:]
    assert len(out["labels"]) == 2 and all(f"{other}=" in label for label in out["labels"])
    assert out["title"].endswith(f"one curve per dataset and {other}")
    raw = pd.concat([pd.read_parquet(p) for p in sorted((store / "tiny").glob("part-*.parquet"))])
    outer = raw[(raw.model == "SVC-rbf") & (raw.inner_fold < 0) & (raw.status == "ok")]
    params = outer["params_json"].map(json.loads)
    means = outer.assign(g=params.map(lambda p: p["gamma"]), h=params.map(lambda p: p["C"])) \
        .groupby(["g", "h"])["gmean"].mean()
    for o, x, m in out["curve"]:
        g, h = (o, x) if out["others"] == ["p_gamma"] else (x, o)
        assert m == pytest.approx(means[(g, h)], abs=1e-12)


def test_a_text_grid_axis_is_drawn_as_categories(tmp_path, monkeypatch):
    """RandomForest's max_features mixes a text and a number ('sqrt', 0.5): drawn as two categories named by their
    values (not at x = 0 and 1 of a numeric axis), one curve per value of the other axis (min_samples_leaf)."""
    import subprocess
    import sys
    conf = tmp_path / "conf"
    (conf / "experiment").mkdir(parents=True)
    (conf / "experiment" / "nbrf.yaml").write_text(
        "# @package _global_\ndefaults:\n  - override /protocol: cv10\nprotocol: {n_splits: 3}\nmodels:\n"
        "  rf: {estimator: {_target_: sklearn.ensemble.RandomForestClassifier, n_estimators: 10, random_state: 0},"
        " variants: {RF: {}}, grid: {max_features: [sqrt, 0.5], min_samples_leaf: [1, 5]}}\n"
        "  lr: {estimator: {_target_: sklearn.linear_model.LogisticRegression}, variants: {LR: {}}}\n"
        "experiment:\n  name: nbrf\n  datasets: [heart]\n")
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    run = subprocess.run([sys.executable, "-m", "randml_core", "run", "--config-dir", str(conf), "experiment=nbrf",
                          f"store_dir={tmp_path}/store", f"hydra.run.dir={tmp_path}/logs", "n_jobs=1", "progress=false"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    monkeypatch.setenv("PYTHONPATH", env["PYTHONPATH"])
    out, _ = run_notebook(
        f"EXPERIMENT = 'nbrf'\nCONFIG_DIR = {str(conf)!r}\nSTORE_DIR = {str(tmp_path / 'store')!r}\nMODELS = ('RF', 'LR')",
        "import json\n"
        "print(json.dumps({'param': param, 'others': others, 'labels': curve_labels, 'numeric': bool(numeric),"
        " 'ticks': sorted(t.get_text() for t in ax.get_xticklabels()), 'scale': ax.get_xscale()}))", tmp_path)
    assert out["param"] == "p_max_features" and out["others"] == ["p_min_samples_leaf"] and out["numeric"] is False
    assert out["ticks"] == ["0.5", "sqrt"] and out["scale"] == "linear"
    assert sorted(out["labels"]) == ["heart, min_samples_leaf=1", "heart, min_samples_leaf=5"]
