"""Three edges of a run (issue 45 item 4).

(a) The skip rule comes before the NaN refusal: a dataset with NaN is refused for a model that cannot take NaN,
    but not for a model whose cells on that dataset are skipped by rule anyway (a binary-only model on a
    multiclass set); the models that do run on it are still refused.
(b) ``model=NAME`` keeps the experiment's model config(s) named NAME, not every config of the same estimator
    class; a NAME that is no model config of the experiment is refused, listing them.
(c) ROC AUC of a classifier without ``predict_proba`` (SVC, probability=False) from its ``decision_function``:
    ``roc_auc`` through scikit-learn's own scorer, ``roc_auc_ovr`` as scikit-learn's one-vs-rest of each class's
    decision column (checked against scikit-learn computed here); models with probabilities keep their values,
    and decision values are computed only when a listed scorer takes them.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.preprocessing import label_binarize
from sklearn.svm import SVC

import randml_core
from randml_core import metrics as M
from randml_core.config import ConfigError
from randml_core.data import load_dataset
from randml_core.family import Split, evaluate, family_of
from randml_core.preprocess import nan_refusal, preprocess
from randml_core.results import compose_spec
from randml_core.runner import PlanError, make_plan, run_task
from randml_core.worker import task_options as _task_options

REPO = Path(randml_core.__file__).resolve().parent.parent

MODELS = {
    "hgb": "estimator: {_target_: sklearn.ensemble.HistGradientBoostingClassifier, max_iter: 10}\n"
           "grid: {learning_rate: [0.1]}\n",
    "hgb_deep": "estimator: {_target_: sklearn.ensemble.HistGradientBoostingClassifier, max_iter: 10}\n"
                "grid: {max_depth: [3]}\n",
    "welm": "estimator: {_target_: randml_core.models.elm.WELM, n_hidden: 10}\n"  # binary-only, no NaN
            "variants: {WELM: {}}\ngrid: {activation: [sig]}\n",
    "lr": "estimator: {_target_: sklearn.linear_model.LogisticRegression, max_iter: 500}\n"
          "variants: {LR: {}}\ngrid: {C: [1.0]}\n",
    "svc": "estimator: {_target_: sklearn.svm.SVC}\nvariants: {SVC: {}}\ngrid: {C: [1.0]}\n",
    "other": "estimator: {_target_: sklearn.neighbors.KNeighborsClassifier}\ngrid: {n_neighbors: [3]}\n",
}


def _experiment(name: str, datasets: str, *models: str, extra: str = "") -> str:
    lines = "".join(f"  - /model@models.{key}: {model}\n" for key, model in (m.partition(":")[::2] for m in models))
    return (f"# @package _global_\ndefaults:\n{lines}protocol: {{n_splits: 3}}\n"
            f"experiment:\n  name: {name}\n  datasets: {datasets}\n{extra}")


def _frame(n: int, classes: list[str], seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    label = np.array(classes)[np.arange(n) % len(classes)]
    a, b = rng.normal(size=n).round(3), rng.uniform(size=n).round(3)
    a[rng.choice(n, size=9, replace=False)] = np.nan
    return pd.DataFrame({"a": a, "b": b, "label": label})


@pytest.fixture
def conf(tmp_path):
    """A config folder: `colours` (multiclass, 3 classes, NaN in column a), `coins` (binary, NaN in a), the
    model configs above, and the experiments of the tests."""
    conf = tmp_path / "conf"
    for sub in ("model", "dataset", "experiment"):
        (conf / sub).mkdir(parents=True)
    for name, task, classes in (("colours", "multiclass", ["red", "green", "blue"]), ("coins", "binary", ["h", "t"])):
        _frame(60, classes, 3).to_csv(conf / "dataset" / f"{name}.csv", index=False)
        (conf / "dataset" / f"{name}.yaml").write_text(
            f"name: {name}\ntask: {task}\nsource: {{kind: csv, path: {name}.csv, target: label}}\n")
    for name, text in MODELS.items():
        (conf / "model" / f"{name}.yaml").write_text(text)
    experiments = {
        "skipnan": _experiment("skipnan", "[colours]", "hgb:hgb", "welm:welm"),
        "skipnan_lr": _experiment("skipnan_lr", "[colours]", "welm:welm", "lr:lr"),
        "binnan": _experiment("binnan", "[coins]", "hgb:hgb", "welm:welm"),
        "twohgb": _experiment("twohgb", "[heart]", "hgb:hgb", "hgb_deep:hgb_deep", "lr:lr"),
        "renamed": _experiment("renamed", "[heart]", "fast:hgb", "deep:hgb_deep"),
    }
    for name, text in experiments.items():
        (conf / "experiment" / f"{name}.yaml").write_text(text)
    from randml_core.data.cards import register_cards
    register_cards([conf])
    yield conf
    from randml_core.data.registry import unregister
    for name in ("colours", "coins"):
        unregister(name)


# --------------------------------------------------------------------------- (a) skip rule before the NaN refusal

def test_a_binary_only_model_on_a_multiclass_set_with_nan_is_skipped_not_refused(conf):
    spec = compose_spec("skipnan", config_dir=conf)
    plan = make_plan(spec)  # before: PlanError "... model(s) ['WELM'] do not accept NaN ..."
    ds, task = plan.datasets["colours"], plan.tasks[0]
    assert ds.task == "multiclass" and np.isnan(ds.X).any()
    rows = {r["model"]: r for r in run_task(ds.X, ds.y, task, _task_options(dict(spec.options), ds), ds.task)}
    assert rows["WELM"]["status"] == "skipped" and "handles binary tasks; this dataset is multiclass" in \
        rows["WELM"]["error"]
    assert rows["hgb"]["status"] == "ok", rows["hgb"]


def test_the_models_that_run_are_still_refused_and_only_they(conf):
    with pytest.raises(PlanError) as refused:
        make_plan(compose_spec("skipnan_lr", config_dir=conf))
    said = str(refused.value)
    assert "model(s) ['LR'] do not accept NaN" in said and "WELM" not in said and "fix: put an imputer" in said
    assert "\n" not in said  # one line
    # on a binary set the binary-only model runs, so its NaN refusal stays
    with pytest.raises(PlanError, match=r"dataset 'coins' has missing values .* model\(s\) \['WELM'\] do not accept"):
        make_plan(compose_spec("binnan", config_dir=conf))


def test_nan_refusal_asks_the_skip_rule_first():
    class Fam:
        def __init__(self, tasks):
            self.tasks, self.estimator = tasks, LogisticRegression  # allow_nan False

        def handles(self):
            return self.tasks

    class DS:
        name, categorical, is_sparse, feature_names, n_features = "d", (), False, ("a", "b"), 2
        X = np.array([[np.nan, 1.0], [0.0, 2.0]])

    DS.task = "multiclass"
    families = [("bin", Fam(("binary",))), ("multi", Fam(("binary", "multiclass")))]
    assert "model(s) ['multi']" in nan_refusal(DS, {}, lambda: families)
    assert nan_refusal(DS, {}, lambda: families[:1]) is None
    DS.task = "binary"
    assert "model(s) ['bin', 'multi']" in nan_refusal(DS, {}, lambda: families)


# --------------------------------------------------------------------------- (b) model=NAME: that config only

def test_model_name_selects_that_config_not_every_config_of_its_class(conf):
    assert [v.name for v in compose_spec("twohgb", config_dir=conf).variants] == ["hgb", "hgb_deep", "LR"]
    # before: ["hgb", "hgb_deep"] (both are HistGradientBoostingClassifier)
    assert [v.name for v in compose_spec("twohgb", ["model=hgb"], config_dir=conf).variants] == ["hgb"]
    assert [v.name for v in compose_spec("twohgb", ["model=hgb_deep"], config_dir=conf).variants] == ["hgb_deep"]
    assert [v.name for v in compose_spec("twohgb", ["model=lr"], config_dir=conf).variants] == ["LR"]
    # by the config's name, also under another key: /model@models.fast: hgb
    assert [v.name for v in compose_spec("renamed", ["model=hgb"], config_dir=conf).variants] == ["fast"]


def test_a_model_config_not_in_the_experiment_is_refused_listing_its_configs(conf):
    with pytest.raises(ConfigError) as refused:
        compose_spec("twohgb", ["model=other"], config_dir=conf)
    assert str(refused.value) == ("model='other' is not a model config of this experiment; its model configs: hgb, "
                                  "hgb_deep, lr (fix: model=<one of them>, or no model= for all)")
    with pytest.raises(ConfigError, match=r"model='svc' is not a model config .*configs: hgb, hgb_deep \(fix"):
        compose_spec("renamed", ["model=svc"], config_dir=conf)


def test_the_command_line_selects_by_name_and_refuses_an_unknown_one(conf, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "RANDML_STORE"}
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    common = ["--config-dir", str(conf), "experiment=twohgb", f"store_dir={tmp_path}/store"]

    def plan(*extra):
        return subprocess.run([sys.executable, "-m", "randml_core", "plan", *common, *extra], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=600)
    ok = plan("model=hgb")
    assert ok.returncode == 0, ok.stderr[-3000:]
    assert "model hgb (" in ok.stdout and "hgb_deep" not in ok.stdout + ok.stderr, ok.stdout
    bad = plan("model=other")
    assert bad.returncode == 2, bad.stderr[-3000:]
    assert "model='other' is not a model config of this experiment; its model configs: hgb, hgb_deep, lr" \
        in bad.stderr


# --------------------------------------------------------------------------- (c) ROC AUC from decision_function

def _iris_fold():
    ds = load_dataset("iris")
    X, y = np.asarray(ds.X, float), np.asarray(ds.y)
    idx = np.random.default_rng(0).permutation(len(y))
    tr, te = idx[::2], idx[1::2]
    return X[tr], y[tr], X[te], y[te], np.unique(y)


def test_roc_auc_ovr_of_decision_values_equals_sklearns_one_vs_rest():
    Xtr, ytr, Xte, yte, labels = _iris_fold()
    svc = SVC(C=0.05).fit(Xtr, ytr)  # a weak fit: AUC below 1, so a wrong column or sign shows
    d = svc.decision_function(Xte)
    assert d.shape == (len(yte), 3) and not hasattr(svc, "predict_proba")
    out = M.scorer_scores(["roc_auc_ovr", "roc_auc_ovr_weighted"], "multiclass", yte, svc.predict(Xte), labels,
                          None, d)
    Y = label_binarize(yte, classes=labels)
    per_class = [roc_auc_score(Y[:, k], d[:, k]) for k in range(3)]
    assert out["roc_auc_ovr"] == pytest.approx(np.mean(per_class), abs=1e-12) and out["roc_auc_ovr"] < 1
    assert out["roc_auc_ovr"] == pytest.approx(roc_auc_score(Y, d, average="macro"), abs=1e-12)
    assert out["roc_auc_ovr_weighted"] == pytest.approx(np.average(per_class, weights=Y.sum(0)), abs=1e-12)
    assert json.loads(out["scorers"]) == {"roc_auc_ovr": None, "roc_auc_ovr_weighted": None}
    # before: NaN, "roc_auc_ovr needs class probabilities (predict_proba) or decision values, and this model gave none"


def test_binary_roc_auc_of_decision_values_and_scorers_that_need_probabilities():
    ds = load_dataset("heart")
    X, y = np.asarray(ds.X, float), np.asarray(ds.y)
    tr, te = np.arange(len(y)) % 3 != 0, np.arange(len(y)) % 3 == 0
    svc = SVC().fit(X[tr], y[tr])
    d, labels = svc.decision_function(X[te]), np.unique(y)
    out = M.scorer_scores(["roc_auc", "roc_auc_ovr", "neg_log_loss"], "binary", y[te], svc.predict(X[te]), labels,
                          None, d)
    assert out["roc_auc"] == pytest.approx(roc_auc_score(y[te], d), abs=1e-12) == out["roc_auc_ovr"]
    assert np.isnan(out["sk_log_loss"])
    assert json.loads(out["scorers"])["sk_log_loss"] == (
        "neg_log_loss needs class probabilities (predict_proba), and this model gives decision values only; fix: a "
        "model with predict_proba (SVC: probability=True), or a scorer of decision values (roc_auc, roc_auc_ovr)")


def test_models_with_probabilities_score_as_before():
    Xtr, ytr, Xte, yte, labels = _iris_fold()
    lr = LogisticRegression(max_iter=500).fit(Xtr, ytr)
    p = lr.predict_proba(Xte)
    before = M.scorer_scores(["roc_auc_ovr", "neg_log_loss"], "multiclass", yte, lr.predict(Xte), labels, p)
    with_d = M.scorer_scores(["roc_auc_ovr", "neg_log_loss"], "multiclass", yte, lr.predict(Xte), labels, p,
                             lr.decision_function(Xte))  # ignored when there are probabilities
    assert before == with_d and before["roc_auc_ovr"] == roc_auc_score(yte, p, multi_class="ovr")


def test_decision_values_are_computed_only_when_a_listed_scorer_takes_them():
    Xtr, ytr, Xte, _, _ = _iris_fold()

    def first(target, metrics):
        options = {"metrics": metrics} if metrics else {}
        return evaluate(family_of("svc", target), Split(Xtr, ytr, Xte, 0, options), [{}])[0]
    svc = {"_target_": "sklearn.svm.SVC"}
    assert first(svc, ["roc_auc_ovr"]).decision.shape == (len(Xte), 3)
    assert first(svc, ["roc_auc"]).decision is not None
    for metrics in (None, ["f1_macro", "neg_log_loss"], ["roc_auc_ovo"]):
        assert first(svc, metrics).decision is None
    lr = first({"_target_": "sklearn.linear_model.LogisticRegression"}, ["roc_auc_ovr"])
    assert lr.proba is not None and lr.decision is None  # probabilities as before, no decision values
    assert M.uses_decision(["roc_auc_ovr"]) and not M.uses_decision(["f1_macro", "neg_log_loss", "r2"])


def test_a_run_stores_roc_auc_ovr_for_svc(conf):
    (conf / "experiment" / "auc.yaml").write_text(
        _experiment("auc", "[iris]", "svc:svc", "lr:lr", extra="  metrics: [roc_auc_ovr]\n"))
    spec = compose_spec("auc", config_dir=conf)
    plan = make_plan(spec)
    ds, task = plan.datasets["iris"], plan.tasks[0]
    rows = {r["model"]: r for r in run_task(ds.X, ds.y, task, _task_options(dict(spec.options), ds), ds.task)}
    tr, te = task.split.train, task.split.test
    Xtr, Xte = preprocess("minmax", np.asarray(ds.X[tr], float), np.asarray(ds.X[te], float))
    y, labels = np.asarray(ds.y), np.unique(ds.y)
    d = SVC(C=1.0).fit(Xtr, y[tr]).decision_function(Xte)
    p = LogisticRegression(max_iter=500, C=1.0).fit(Xtr, y[tr]).predict_proba(Xte)
    assert rows["SVC"]["roc_auc_ovr"] == pytest.approx(roc_auc_score(label_binarize(y[te], classes=labels), d),
                                                       abs=1e-9)
    assert rows["LR"]["roc_auc_ovr"] == pytest.approx(roc_auc_score(y[te], p, multi_class="ovr"), abs=1e-9)
    assert json.loads(rows["SVC"]["scorers"]) == {"roc_auc_ovr": None}  # before: NaN with "gave none"
