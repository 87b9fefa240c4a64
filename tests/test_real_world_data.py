"""Real-world data from a dataset card: missing values (NaN) and categorical (text) columns (one-hot, ordinal, or
a model's own `categorical: native`: codes declared as its categorical features).

A tiny CSV with a NaN column and a text column: the text column is one-hot encoded per fold with the
training part's categories, NaN reaches HistGradientBoosting (its scikit-learn tags allow NaN) and a
pipeline that begins with an imputer, and a plain LogisticRegression is refused before any work, naming
the column and the fix. Datasets without NaN or categorical columns keep their keys."""
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from randml_core.data import hash_arrays, load_dataset
from randml_core.preprocess import _minmax, dataset_prep, encode, nan_refusal, preprocessing_of

EXPERIMENT = """\
# @package _global_
defaults:
  - /model@models.hgb: hgb
  - /model@models.imputed_lr: imputed_lr
protocol: {{n_splits: 3}}
experiment:
  name: {name}
  datasets: [paint]
"""
PLAIN_LR = """\
# @package _global_
defaults:
  - /model@models.hgb: hgb
  - /model@models.lr: lr
protocol: {n_splits: 3}
experiment:
  name: plain
  datasets: [paint]
"""

NATIVE = """\
# @package _global_
defaults:
  - /model@models.hgb: hgb
  - /model@models.hgb_native: hgb_native
protocol: {{n_splits: 3}}
experiment:
  name: {name}
  datasets: {datasets}
"""


def _paint_frame(n: int = 90) -> pd.DataFrame:
    rng = np.random.default_rng(5)
    colour = rng.choice(["red", "green", "blue"], size=n)
    weight = rng.normal(size=n).round(3)
    size = rng.uniform(size=n).round(3)
    label = np.where((colour == "red") ^ (size > 0.7), "yes", "no")
    weight[rng.choice(n, size=12, replace=False)] = np.nan
    return pd.DataFrame({"size": size, "colour": colour, "weight": weight, "label": label})


@pytest.fixture
def paint(tmp_path):
    """A config folder with the `paint` card (90 rows: size, colour (text), weight (12 NaN), label)."""
    conf = tmp_path / "conf"
    for sub in ("model", "dataset", "experiment"):
        (conf / sub).mkdir(parents=True)
    _paint_frame().to_csv(conf / "dataset" / "paint.csv", index=False)
    (conf / "dataset" / "paint.yaml").write_text("name: paint\ntask: binary\n"
                                                 "source: {kind: csv, path: paint.csv, target: label}\n")
    (conf / "model" / "hgb.yaml").write_text(
        "estimator: {_target_: sklearn.ensemble.HistGradientBoostingClassifier, max_iter: 20}\n"
        "grid: {learning_rate: [0.1]}\n")
    (conf / "model" / "imputed_lr.yaml").write_text(
        "estimator:\n  _target_: sklearn.pipeline.make_pipeline\n  _args_:\n"
        "    - _target_: sklearn.impute.SimpleImputer\n    - _target_: sklearn.linear_model.LogisticRegression\n"
        "grid: {logisticregression__C: [1.0]}\n")
    (conf / "model" / "lr.yaml").write_text("estimator: {_target_: sklearn.linear_model.LogisticRegression}\n"
                                            "grid: {C: [1.0]}\n")
    (conf / "model" / "hgb_native.yaml").write_text(
        "estimator: {_target_: sklearn.ensemble.HistGradientBoostingClassifier, max_iter: 20}\n"
        "grid: {learning_rate: [0.1]}\ncategorical: native\n")
    (conf / "experiment" / "nan_ok.yaml").write_text(EXPERIMENT.format(name="nan_ok"))
    (conf / "experiment" / "native.yaml").write_text(NATIVE.format(name="native", datasets="[paint]"))
    (conf / "experiment" / "native_heart.yaml").write_text(NATIVE.format(name="native_heart", datasets="[heart]"))
    (conf / "experiment" / "plain.yaml").write_text(PLAIN_LR)
    from randml_core.data.cards import register_cards
    register_cards([conf])
    yield conf
    from randml_core.data.registry import unregister
    unregister("paint")


def test_onehot_of_a_hand_made_table():
    # columns: size, colour code (0=blue, 1=green, 2=red), weight
    train = np.array([[0.5, 2.0, 1.0], [0.1, 0.0, np.nan], [0.3, 2.0, 3.0]])
    test = np.array([[0.2, 1.0, 2.0], [0.4, np.nan, 1.0], [0.9, 0.0, 5.0]])
    tr, te = encode(train, test, (1,), "onehot")
    # size, weight, then one column per colour of the training part (blue, red); green was not seen
    assert np.array_equal(tr, np.array([[0.5, 1.0, 0, 1], [0.1, np.nan, 1, 0], [0.3, 3.0, 0, 1]]), equal_nan=True)
    assert np.array_equal(te, np.array([[0.2, 2.0, 0, 0], [0.4, 1.0, 0, 0], [0.9, 5.0, 1, 0]]))
    same = encode(train, test, (1,), "ordinal")
    assert same[0] is train and same[1] is test
    # min-max keeps NaN as NaN, with the range of the training part's other values
    s_tr, s_te = _minmax(tr, te)
    assert np.isnan(s_tr[1, 1]) and s_tr[0, 1] == 0.0 and s_tr[2, 1] == 1.0
    assert s_te[:, 1].tolist() == [0.5, 0.0, 2.0]


def test_the_card_loads_with_names_nan_and_the_raw_values_hashed(paint):
    ds = load_dataset("paint")
    assert ds.feature_names == ("size", "colour", "weight") and ds.categorical == (1,)
    raw = _paint_frame()
    codes = raw["colour"].map({"blue": 0.0, "green": 1.0, "red": 2.0}).to_numpy()
    X = np.column_stack([raw["size"], codes, raw["weight"]]).astype(np.float64)
    y = (raw["label"] == "yes").astype(np.int64).to_numpy()
    if (y == 1).sum() > (y == 0).sum():  # 1 = the minority class
        y = 1 - y
    assert np.isnan(ds.X[:, 2]).sum() == 12
    assert ds.data_hash == hash_arrays(X, y)
    prep = dataset_prep({}, ds)
    assert prep.startswith(preprocessing_of({})) and "categorical ['colour'] one-hot" in prep
    assert "NaN passed to the model in ['weight']" in prep


def test_hgb_and_an_imputer_pipeline_run_and_hgb_matches_an_independent_fit(paint):
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.metrics import accuracy_score

    from randml_core.results import compose_spec
    from randml_core.runner import make_plan, run_task
    from randml_core.worker import task_options as _task_options
    spec = compose_spec("nan_ok", config_dir=paint)
    plan = make_plan(spec)
    ds = plan.datasets["paint"]
    task = plan.tasks[0]
    rows = run_task(ds.X, ds.y, task, _task_options(dict(spec.options), ds), ds.task)
    assert {r["model"]: r["status"] for r in rows} == {"hgb": "ok", "imputed_lr": "ok"}, rows
    hgb = next(r for r in rows if r["model"] == "hgb")
    # independently: the file read with pandas, colour one-hot with the training part's values, min-max by hand
    raw = _paint_frame()
    tr, te = task.split.train, task.split.test
    seen = sorted(raw["colour"].iloc[tr].unique())
    def features(idx):
        part = raw.iloc[idx]
        onehot = [(part["colour"] == c).to_numpy(np.float64) for c in seen]
        return np.column_stack([part["size"], part["weight"], *onehot]).astype(np.float64)
    Xtr, Xte = features(tr), features(te)
    lo, hi = np.nanmin(Xtr, 0), np.nanmax(Xtr, 0)
    span = np.where(hi > lo, hi - lo, 1.0)
    Xtr, Xte = (Xtr - lo) / span, (Xte - lo) / span
    est = HistGradientBoostingClassifier(max_iter=20, learning_rate=0.1, random_state=task.split.model_seed)
    pred = est.fit(Xtr, ds.y[tr]).predict(Xte)
    assert hgb["accuracy"] == pytest.approx(accuracy_score(ds.y[te], pred), abs=1e-12)


def test_plain_logistic_regression_on_nan_is_refused_naming_the_column(paint):
    from randml_core.results import compose_spec
    from randml_core.runner import PlanError, make_plan
    with pytest.raises(PlanError) as err:
        make_plan(compose_spec("plain", config_dir=paint))
    msg = str(err.value)
    assert "'paint'" in msg and "['weight']" in msg and "['lr']" in msg and "hgb" not in msg.split("fix:")[0]
    assert "SimpleImputer" in msg and "missing: drop_rows" in msg


def test_the_cli_refuses_before_work_with_exit_2(paint, tmp_path, cli_env):
    run = subprocess.run([sys.executable, "-m", "randml_core", "run", "--config-dir", str(paint), "experiment=plain",
                          f"store_dir={tmp_path}/store", f"hydra.run.dir={tmp_path}/logs", "progress=false"],
                         cwd=tmp_path, env=cli_env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 2, run.stderr[-2000:]
    assert "NaN" in run.stderr and "['weight']" in run.stderr and "drop_rows" in run.stderr
    assert not list((tmp_path / "store").rglob("*.parquet"))


def test_the_cli_runs_and_states_the_encoding_in_log_footer_and_sidecar(paint, tmp_path, cli_env):
    import json
    common = ["--config-dir", str(paint), "experiment=nan_ok", f"store_dir={tmp_path}/store",
              f"results_dir={tmp_path}/results", f"hydra.run.dir={tmp_path}/logs"]
    cli = lambda *a: subprocess.run([sys.executable, "-m", "randml_core", *a, *common], cwd=tmp_path, env=cli_env,
                                    capture_output=True, text=True, timeout=600)
    run = cli("run", "progress=false")
    assert run.returncode == 0 and "computed 6 cells (0 failed" in run.stderr, run.stderr[-3000:]
    said = "categorical ['colour'] one-hot encoded with the training part's categories"
    assert f"randml run: dataset 'paint': features minmax[0,1] fitted on the training part; {said}" in run.stderr
    assert cli("report").returncode == 0
    md = (tmp_path / "results" / "tables" / "nan_ok.md").read_text()
    assert f"- Features of paint: minmax[0,1] fitted on the training part; {said}" in md
    assert "NaN passed to the model in ['weight']" in md
    meta = json.loads((tmp_path / "results" / "tables" / "nan_ok.meta.json").read_text())
    assert said in meta["facts"]["dataset_features"]["paint"]


def test_drop_rows_and_ordinal_encoding(paint):
    card = paint / "dataset" / "paint.yaml"
    card.write_text(card.read_text().replace("target: label}", "target: label, missing: drop_rows}"))
    from randml_core.data.cards import register_cards
    register_cards([paint])
    ds = load_dataset("paint")
    assert ds.n_samples == 78 and not np.isnan(ds.X).any()
    assert nan_refusal(ds, {}, lambda: pytest.fail("no NaN: the models are not asked")) is None
    assert "categorical ['colour'] ordinal" in dataset_prep({"categorical": "ordinal"}, ds)


def test_datasets_without_nan_or_categorical_columns_keep_their_description():
    ds = load_dataset("heart")
    assert ds.categorical == () and dataset_prep({}, ds) == preprocessing_of({})
    assert dataset_prep({"preprocessing": "standard", "duplicates": "drop"}, ds) == \
        preprocessing_of({"preprocessing": "standard", "duplicates": "drop"})


def test_the_encoding_is_part_of_the_cell_key(paint):
    from randml_core.results import compose_spec
    from randml_core.runner import cell_key, make_plan
    keys = {}
    for enc in ("onehot", "ordinal"):
        spec = compose_spec("nan_ok", ["+experiment.categorical=" + enc], config_dir=paint)
        plan = make_plan(spec)
        ds, task = plan.datasets["paint"], plan.tasks[0]
        cell = task.cells[0]
        assert cell.key == cell_key(ds.data_hash, spec, task.split, cell.variant, cell.params_json,
                                    prep=dataset_prep(spec.options, ds))
        keys[enc] = cell.key
    assert keys["onehot"] != keys["ordinal"]


def test_native_categorical_hgb_matches_a_hand_fit_on_codes_and_differs_from_onehot(paint):
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.metrics import accuracy_score, log_loss

    from randml_core.results import compose_spec
    from randml_core.runner import make_plan, run_task
    from randml_core.worker import task_options as _task_options
    spec = compose_spec("native", config_dir=paint)
    assert {v.name: v.categorical for v in spec.variants} == {"hgb": None, "hgb_native": "native"}
    plan = make_plan(spec)
    ds, task = plan.datasets["paint"], plan.tasks[0]
    rows = {r["model"]: r for r in run_task(ds.X, ds.y, task, _task_options(dict(spec.options), ds), ds.task)}
    assert rows["hgb"]["status"] == rows["hgb_native"]["status"] == "ok", rows
    # independently: colour as its sorted-value code (blue 0, green 1, red 2), not scaled; size and weight min-max
    raw = _paint_frame()
    tr, te = task.split.train, task.split.test
    codes = raw["colour"].map({"blue": 0.0, "green": 1.0, "red": 2.0}).to_numpy()
    X = np.column_stack([raw["size"], codes, raw["weight"]]).astype(np.float64)
    lo, hi = np.nanmin(X[tr], 0), np.nanmax(X[tr], 0)
    Xtr, Xte = (X[tr] - lo) / (hi - lo), (X[te] - lo) / (hi - lo)
    Xtr[:, 1], Xte[:, 1] = X[tr, 1], X[te, 1]
    est = HistGradientBoostingClassifier(max_iter=20, learning_rate=0.1, categorical_features=[1],
                                         random_state=task.split.model_seed).fit(Xtr, ds.y[tr])
    pred, proba = est.predict(Xte), est.predict_proba(Xte)
    assert rows["hgb_native"]["accuracy"] == pytest.approx(accuracy_score(ds.y[te], pred), abs=1e-12)
    assert rows["hgb_native"]["log_loss"] == pytest.approx(log_loss(ds.y[te], proba, labels=[0, 1]), abs=1e-12)
    # the one-hot path is another model with another key (on this card both happen to split red / not red)
    native, onehot = (next(c for c in task.cells if c.variant.name == n) for n in ("hgb_native", "hgb"))
    assert native.key != onehot.key
    said = dataset_prep(spec.options, ds, native.variant)
    assert "categorical ['colour'] ordinal codes" in said and "declared to the model as categorical features" in said


def test_native_and_onehot_stumps_differ_where_two_codes_go_together(paint):
    """Label = shade in {a, c}: a native stump splits {a, c} from {b, d} at once, a one-hot stump one shade only."""
    from randml_core.data.cards import register_cards
    from randml_core.results import compose_spec
    from randml_core.runner import make_plan, run_task
    from randml_core.worker import task_options as _task_options
    shade = np.tile(["a", "b", "c", "d"], 30)
    pd.DataFrame({"x": np.linspace(0, 1, 120), "shade": shade, "label": np.where(np.isin(shade, ["a", "c"]), "p", "q")}
                 ).to_csv(paint / "dataset" / "shades.csv", index=False)
    (paint / "dataset" / "shades.yaml").write_text("name: shades\ntask: binary\n"
                                                   "source: {kind: csv, path: shades.csv, target: label}\n")
    register_cards([paint])
    try:
        stumps = ["+models.hgb.estimator.max_depth=1", "+models.hgb_native.estimator.max_depth=1",
                  "models.hgb.grid.learning_rate=[1.0]", "models.hgb_native.grid.learning_rate=[1.0]",
                  "models.hgb.estimator.max_iter=1", "models.hgb_native.estimator.max_iter=1",
                  "experiment.datasets=[shades]"]
        spec = compose_spec("native", stumps, config_dir=paint)
        plan = make_plan(spec)
        ds, task = plan.datasets["shades"], plan.tasks[0]
        rows = {r["model"]: r for r in run_task(ds.X, ds.y, task, _task_options(dict(spec.options), ds), ds.task)}
        assert rows["hgb_native"]["accuracy"] == 1.0  # {a, c} against {b, d} in one split
        assert rows["hgb"]["accuracy"] < 1.0  # one indicator column per split: one shade against three
    finally:
        from randml_core.data.registry import unregister
        unregister("shades")


def test_native_on_a_dataset_without_categorical_columns_keeps_the_plain_keys(paint):
    from randml_core.results import compose_spec
    from randml_core.runner import make_plan
    plan = make_plan(compose_spec("native_heart", config_dir=paint), splits=False)
    for task in plan.tasks[:3]:
        keys = {c.variant.name: c.key for c in task.cells}
        assert keys["hgb_native"] == keys["hgb"]  # the same inputs and estimator: the same cell


def test_native_needs_a_categorical_features_parameter(paint):
    from randml_core.config import ConfigError
    from randml_core.results import compose_spec
    (paint / "model" / "lr.yaml").write_text("estimator: {_target_: sklearn.linear_model.LogisticRegression}\n"
                                            "grid: {C: [1.0]}\ncategorical: native\n")
    with pytest.raises(ConfigError, match=r"models\.lr\.categorical=native needs an estimator with one "
                                          r"'categorical_features' parameter.*fix: categorical: onehot"):
        compose_spec("plain", config_dir=paint)
    (paint / "model" / "hgb_native.yaml").write_text(
        "estimator: {_target_: sklearn.ensemble.HistGradientBoostingClassifier}\n"
        "grid: {categorical_features: [null]}\ncategorical: native\n")
    with pytest.raises(ConfigError, match="remove categorical_features from the model's grid"):
        compose_spec("native", config_dir=paint)
    with pytest.raises(ConfigError, match=r"experiment\.categorical='native' is unknown"):  # a model's choice only
        compose_spec("nan_ok", ["+experiment.categorical=native"], config_dir=paint)


def test_the_cli_states_each_models_encoding_in_log_footer_and_sidecar(paint, tmp_path, cli_env):
    import json
    common = ["--config-dir", str(paint), "experiment=native", f"store_dir={tmp_path}/store",
              f"results_dir={tmp_path}/results", f"hydra.run.dir={tmp_path}/logs"]
    cli = lambda *a: subprocess.run([sys.executable, "-m", "randml_core", *a, *common], cwd=tmp_path, env=cli_env,
                                    capture_output=True, text=True, timeout=600)
    run = cli("run", "progress=false")
    assert run.returncode == 0 and "computed 6 cells (0 failed" in run.stderr, run.stderr[-3000:]
    native = "categorical ['colour'] ordinal codes (by sorted value in the file; NaN kept), not scaled"
    assert re.search(rf"features [^\n]*{re.escape(native)}[^\n]* \(models hgb_native\)", run.stderr), run.stderr
    assert re.search(r"features [^\n]*one-hot encoded[^\n]* \(models hgb\)", run.stderr)
    assert cli("report").returncode == 0
    md = (tmp_path / "results" / "tables" / "native.md").read_text()
    base = "minmax[0,1] fitted on the training part; "
    assert f"- Features of paint (models hgb_native): {base}{native}" in md
    assert f"- Features of paint (models hgb): {base}categorical ['colour'] one-hot" in md
    meta = json.loads((tmp_path / "results" / "tables" / "native.meta.json").read_text())
    assert native in meta["facts"]["dataset_features"]["paint"]["hgb_native"]
    assert "one-hot" in meta["facts"]["dataset_features"]["paint"]["hgb"]
