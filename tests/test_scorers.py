"""Any scikit-learn scorer (issue 33 item 3): ``experiment.metrics: [f1_macro, neg_log_loss]``.

- the scorer's column equals scikit-learn's own function recomputed independently on the same fold (the split
  rebuilt from the stored seed with StratifiedKFold, min-max scaling and the fit done by hand);
- it is in the store, ``load()``, the generic report's table (``report.metrics``) and ``randml compare metric=``;
- adding a scorer to an experiment whose cells are stored computes those cells once more (the metric list is not
  part of the key), with the same built-in scores; a model that cannot give the scorer's response (SVC: no
  probabilities) stores NaN with the reason, the cell stays ok and is not computed again;
- a lower-is-better scorer (``neg_log_loss``, stored as the positive ``sk_log_loss``) is minimised by best() and
  ranked lowest-first by compare; an unknown scorer is refused before any work (exit 2, did-you-mean).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score, log_loss
from sklearn.model_selection import StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier

import randml_core
from randml_core import metrics as M
from randml_core.config import ConfigError
from randml_core.results import best, load

REPO = Path(randml_core.__file__).resolve().parent.parent

MODELS = {
    "mylr": "estimator: {_target_: sklearn.linear_model.LogisticRegression, max_iter: 2000}\n"
            "variants: {LR: {}}\ngrid: {C: [0.01, 1.0]}\n",
    "myknn": "estimator: {_target_: sklearn.neighbors.KNeighborsClassifier}\n"
             "variants: {kNN: {}}\ngrid: {n_neighbors: [3, 15]}\n",
    "mysvc": "estimator: {_target_: sklearn.svm.SVC}\nvariants: {SVC: {}}\ngrid: {C: [1.0]}\n",
}
EXPERIMENT = """\
# @package _global_
defaults:
  - /model@models.mylr: mylr
  - /model@models.myknn: myknn
  - /model@models.mysvc: mysvc
protocol: {n_splits: 3}
experiment:
  name: sc
  datasets: [heart, iris]
"""
SCORERS = "+experiment.metrics=[f1_macro,neg_log_loss]"
N_CELLS = 2 * 3 * (2 + 2 + 1)  # datasets x folds x settings


def _randml(args, cwd):
    env = {k: v for k, v in os.environ.items() if k != "RANDML_STORE"}
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "randml_core", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


def _raw(store: Path) -> pd.DataFrame:
    """Every stored row, read with pandas (no randml code), the newest row per key."""
    raw = pd.concat([pd.read_parquet(p) for p in sorted((store / "sc").glob("part-*.parquet"))], ignore_index=True)
    return raw.sort_values("timestamp").drop_duplicates("key", keep="last").set_index("key")


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """Run the experiment without scorers, then with them (the stored cells gain them), then again."""
    root = tmp_path_factory.mktemp("scorers")
    for sub in ("model", "experiment"):
        (root / sub).mkdir()
    for name, text in MODELS.items():
        (root / "model" / f"{name}.yaml").write_text(text)
    (root / "experiment" / "sc.yaml").write_text(EXPERIMENT)
    common = ["--config-dir", ".", "experiment=sc", "store_dir=store", "results_dir=results", "hydra.run.dir=logs",
              "progress=false", "n_jobs=1"]
    first = _randml(["run", *common], root)
    assert first.returncode == 0, first.stderr[-3000:]
    before = _raw(root / "store")
    second = _randml(["run", *common, SCORERS], root)
    assert second.returncode == 0, second.stderr[-3000:]
    third = _randml(["run", *common, SCORERS], root)
    assert third.returncode == 0, third.stderr[-3000:]
    return root, common, before, (first.stderr, second.stderr, third.stderr)


def test_adding_a_scorer_computes_the_stored_cells_once_with_the_same_builtin_scores(project):
    root, _, before, (first, second, third) = project
    assert f"computed {N_CELLS} cells (0 failed" in first
    assert f"computed {N_CELLS} cells (0 failed, 0 skipped by rule, 0 bounded), 0 already stored" in second
    assert f"computed 0 cells (0 failed, 0 skipped by rule, 0 bounded), {N_CELLS} already stored" in third
    after = _raw(root / "store")
    assert set(after.index) == set(before.index)  # the key does not depend on experiment.metrics
    assert after["gmean"].sort_index().equals(before["gmean"].sort_index())
    assert (after["status"] == "ok").all() and "f1_macro" not in before.columns


def _fold(row, X, y):
    """The outer fold of a stored row, rebuilt by hand: StratifiedKFold on the stored seed, min-max on train."""
    folds = list(StratifiedKFold(n_splits=3, shuffle=True, random_state=int(row["split_seed"])).split(X, y))
    tr, te = folds[int(row["fold"])]
    lo, hi = X[tr].min(0), X[tr].max(0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return (X[tr] - lo) / span, y[tr], (X[te] - lo) / span, y[te]


def test_the_scorer_columns_equal_sklearn_recomputed_on_the_same_fold(project, monkeypatch):
    root, *_ = project
    monkeypatch.chdir(root)
    frame = load("sc", store_dir="store", config_dir=".", overrides=[SCORERS])
    assert {"f1_macro", "sk_log_loss", "scorers"} <= set(frame.columns) and len(frame) == N_CELLS
    from randml_core.data import load_dataset
    checked = 0
    for dataset in ("heart", "iris"):
        ds = load_dataset(dataset)
        X, y = np.asarray(ds.X, float), np.asarray(ds.y)
        for _, row in frame[(frame["dataset"] == dataset) & (frame["model"] != "SVC")].iterrows():
            Xtr, ytr, Xte, yte = _fold(row, X, y)
            assert len(yte) == row["n_test"]
            params = json.loads(row["params_json"])
            est = (LogisticRegression(max_iter=2000, **params) if row["model"] == "LR"
                   else KNeighborsClassifier(**params)).fit(Xtr, ytr)
            assert row["f1_macro"] == pytest.approx(f1_score(yte, est.predict(Xte), average="macro"), abs=1e-9)
            assert row["sk_log_loss"] == pytest.approx(log_loss(yte, est.predict_proba(Xte)), rel=1e-6)
            assert json.loads(row["scorers"]) == {"f1_macro": None, "sk_log_loss": None}
            checked += 1
    assert checked == 2 * 3 * 4
    # SVC gives no probabilities: its log loss is NaN with the reason, its F1 a number, the cell ok
    svc = frame[frame["model"] == "SVC"]
    assert len(svc) == 6 and svc["sk_log_loss"].isna().all() and svc["f1_macro"].between(0, 1).all()
    assert all("needs class probabilities" in json.loads(t)["sk_log_loss"] for t in svc["scorers"])


def _bold_free(cell: str) -> float:
    return float(cell.strip().strip("*").split(" ± ")[0])


def test_report_and_compare_show_the_scorers(project):
    root, common, *_ = project
    rep = _randml(["report", *common, SCORERS, "report.metrics=[f1_macro,neg_log_loss]"], root)
    assert rep.returncode == 0, rep.stderr[-3000:]
    tables = root / "results" / "scratch" / "sc" / "tables"
    f1_md, ll_md = (tables / "sc.md").read_text(), (tables / "sc_sk_log_loss.md").read_text()
    assert "# sc: f1_macro" in f1_md and "(higher is better" in f1_md
    assert "# sc: sk_log_loss" in ll_md and "(lower is better" in ll_md
    assert "Not scored by sk_log_loss (NaN): SVC (6 cells): neg_log_loss needs class probabilities" in ll_md
    frame = load("sc", store_dir=root / "store", config_dir=root, overrides=[SCORERS])
    means = frame.groupby(["dataset", "model", "params_json"])["f1_macro"].mean().groupby(["dataset", "model"]).max()
    table = pd.read_csv(tables / "sc.csv").set_index("dataset")
    for (dataset, model), value in means.items():
        assert table.loc[dataset, f"{model} mean"] == pytest.approx(value, abs=1e-3)  # the csv rounds
    for line in f1_md.splitlines():
        if line.startswith("| heart"):
            assert [_bold_free(c) for c in line.split("|")[2:5]] == pytest.approx(
                [means[("heart", m)] for m in ("LR", "kNN", "SVC")], abs=6e-4)
    cmp = _randml(["compare", *common, SCORERS, "metric=f1_macro"], root)
    assert cmp.returncode == 0, cmp.stderr[-3000:]
    assert "## sc: f1_macro" in cmp.stdout and "f1_macro, higher is better" in cmp.stdout


def test_a_lower_is_better_scorer_is_minimised_and_ranked_lowest_first(project):
    root, common, *_ = project
    frame = load("sc", store_dir=root / "store", config_dir=root, overrides=[SCORERS], include_failed=True,
                 model=["LR", "kNN"])
    by_name = best(frame, metric="neg_log_loss").set_index(["dataset", "model"])
    by_column = best(frame, metric="sk_log_loss").set_index(["dataset", "model"])
    assert by_name["mean"].equals(by_column["mean"]) and set(by_name["metric"]) == {"sk_log_loss"}
    per_setting = frame.groupby(["dataset", "model", "params_json"])["sk_log_loss"].mean()
    lowest, highest = per_setting.groupby(["dataset", "model"]).min(), per_setting.groupby(["dataset", "model"]).max()
    assert (highest > lowest).all()  # two settings apart: picking the wrong way would show
    for key, value in lowest.items():
        assert by_name.loc[key, "mean"] == pytest.approx(value)
    cmp = _randml(["compare", *common, SCORERS, "metric=neg_log_loss", "models=[LR,kNN]"], root)
    assert cmp.returncode == 0, cmp.stderr[-3000:]
    assert "sk_log_loss, lower is better" in cmp.stdout
    ranks = lowest.unstack("model").rank(axis=1, ascending=True).mean()  # rank 1: the lowest log loss
    for model in ("LR", "kNN"):
        shown = re.search(rf"^\| {model} \| ([0-9.]+) \|$", cmp.stdout, re.M)
        assert shown and float(shown.group(1)) == pytest.approx(ranks[model], abs=1e-3), cmp.stdout


def test_an_unknown_scorer_is_refused_before_any_work(project):
    root, common, *_ = project
    parts = sorted((root / "store" / "sc").glob("part-*.parquet"))
    run = _randml(["run", *common, "+experiment.metrics=[f1_makro]"], root)
    assert run.returncode == 2 and "experiment.metrics lists 'f1_makro', which is not a scikit-learn scorer; " \
        "did you mean 'f1_macro'?" in run.stderr, run.stderr[-2000:]
    assert sorted((root / "store" / "sc").glob("part-*.parquet")) == parts
    cmp = _randml(["compare", *common, "metric=f1_makro"], root)
    assert cmp.returncode == 2 and "did you mean 'f1_macro'?" in cmp.stderr, cmp.stderr[-2000:]
    rep = _randml(["report", *common, "report.metrics=[roc_auc]"], root)
    assert rep.returncode == 2 and "a scikit-learn scorer that this experiment does not compute; fix: add it to " \
        "experiment.metrics" in rep.stderr, rep.stderr[-2000:]


# --- unit level: names, columns, signs, hand-worked scores ----------------------------------------------------

def test_columns_and_directions_of_scorers():
    mae = M.find_scorer("neg_mean_absolute_error")
    assert (mae.column, mae.higher_is_better, mae.task) == ("mean_absolute_error", False, "regression")
    assert M.find_scorer("mean_absolute_error") == mae  # the column names it too
    assert M.metric_column("neg_log_loss") == "sk_log_loss"  # would clash with the built-in log_loss
    assert M.metric_column("f1_macro") == "f1_macro" and M.metric_task("f1_macro") == "classification"
    assert M.metric_task("r2") == "regression" and M.scorer_direction("r2") is True
    assert M.find_scorer("gmean") is None and M.metric_column("accuracy") == "accuracy"  # built-ins stay
    assert [s.column for s in M.check_scorers(["sk_accuracy", "roc_auc_ovr"])] == ["sk_accuracy", "roc_auc_ovr"]
    with pytest.raises(ConfigError, match=r"'accuracy', a built-in metric .* \(scikit-learn's own: sk_accuracy\)"):
        M.check_scorers(["accuracy"])
    with pytest.raises(ConfigError, match="lists 'f1_macro' twice"):
        M.check_scorers(["f1_macro", "f1_macro"])
    with pytest.raises(ConfigError, match="did you mean 'roc_auc_ovr'"):
        M.check_scorers(["roc_auc_ovrr"])
    assert M.check_report_metrics(["gmean", "neg_log_loss"], ["neg_log_loss"]) == ["gmean", "sk_log_loss"]


def test_scores_by_hand():
    y, pred = [0, 1, 1, 0], [0, 1, 0, 0]
    # class 0: P = 2/3, R = 1 -> F1 = 0.8; class 1: P = 1, R = 1/2 -> F1 = 2/3; macro: 11/15
    out = M.scorer_scores(["f1_macro", "roc_auc"], "binary", y, pred, [0, 1])
    assert out["f1_macro"] == pytest.approx(11 / 15) and np.isnan(out["roc_auc"])
    assert "roc_auc needs class probabilities" in json.loads(out["scorers"])["roc_auc"]
    proba = np.array([[0.8, 0.2], [0.3, 0.7], [0.6, 0.4], [0.9, 0.1]])  # positives 0.7, 0.4 > negatives 0.2, 0.1
    out = M.scorer_scores(["roc_auc", "neg_brier_score"], "binary", y, pred, [0, 1], proba)
    assert out["roc_auc"] == 1.0
    assert out["brier_score"] == pytest.approx(np.mean([0.2 ** 2, 0.3 ** 2, 0.6 ** 2, 0.1 ** 2]))  # positive
    # regression: MAE of errors 0, 1, 2 is 1 (stored positive); R2 = 1 - (0 + 1 + 4) / 2 = -1.5
    out = M.scorer_scores(["neg_mean_absolute_error", "r2", "f1_macro"], "regression", [1, 2, 3], [1, 3, 5], None)
    assert out["mean_absolute_error"] == 1.0 and out["r2"] == -1.5 and "f1_macro" not in out
    assert M.scorer_scores(["r2"], "binary", y, pred, [0, 1]) == {}  # no scorer of that task: no column
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning of scikit-learn is noted beside the value, not raised
        out = M.scorer_scores(["precision_macro"], "binary", [0, 1, 1, 0], [0, 0, 0, 0], [0, 1])
    assert out["precision_macro"] == pytest.approx(0.25) and "UndefinedMetricWarning" in json.loads(
        out["scorers"])["precision_macro"]


def test_best_refuses_rows_stored_before_the_scorer_was_listed():
    """A row stored before ``experiment.metrics`` named the scorer has no value: a mean over the other folds would
    be taken for the table's number, so best() says which command fills it."""
    rows = pd.DataFrame({"dataset": "heart", "model": "LR", "params_json": '{"C": 1.0}', "repeat": 0,
                         "fold": [0, 1], "inner_fold": -1, "status": "ok", "converged": True,
                         "f1_macro": [0.5, np.nan], "scorers": ['{"f1_macro": null}', None]})
    with pytest.raises(ValueError, match=r"1 ok row\(s\) of this frame were stored before 'f1_macro' was listed"):
        best(rows, metric="f1_macro")
    rows.loc[1, ["f1_macro", "scorers"]] = [0.7, '{"f1_macro": null}']
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no plan in attrs: completeness is judged from the frame
        out = best(rows, metric="f1_macro")
    assert out["mean"].item() == pytest.approx(0.6) and out["metric"].item() == "f1_macro"
