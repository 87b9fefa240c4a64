"""A model's ``per_dataset:`` block replaces grid axes on the datasets it names (a config-only experiment timing
each dataset's selected setting needs it): the planned cells are those settings, their keys are the keys the same
setting has in a plain grid, the results equal scikit-learn's own CV at that setting, and a misspelt dataset, an
axis the grid lacks, a bad value or a search beside it are refused before any work."""
import json

import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import MinMaxScaler

from randml_core.config import ConfigError, build_spec
from randml_core.runner import make_plan, run
from randml_core.store import store_of


def _cfg(compose, per_dataset=None, grid=None):
    cfg = compose("experiment=leaderboard_quick", raw=True)
    cfg["models"] = {"logreg": {"estimator": {"_target_": "sklearn.linear_model.LogisticRegression",
                                              "max_iter": 5000},
                                "variants": {"LogReg": {}}, "grid": grid or {"C": [0.01, 1.0, 100.0]}}}
    if per_dataset is not None:
        cfg["models"]["logreg"]["per_dataset"] = per_dataset
    cfg["experiment"].update({"name": "per_ds", "store": "per_ds", "datasets": ["iris", "wine"], "report": []})
    cfg["experiment"].pop("columns", None)
    cfg["protocol"].update({"n_splits": 3, "repeats": 1, "inner_splits": 0})
    return cfg


def _settings(plan):
    out = {}
    for task, cell in plan.cells():
        out.setdefault(task.dataset, set()).add(json.dumps(cell.params, sort_keys=True))
    return out


def test_per_dataset_replaces_the_axis_on_that_dataset_only_with_the_grid_keys(compose):
    spec = build_spec(_cfg(compose, {"wine": {"C": [0.1]}}))
    got = _settings(make_plan(spec))
    assert got["iris"] == {json.dumps({"C": c}) for c in (0.01, 1.0, 100.0)}
    assert got["wine"] == {json.dumps({"C": 0.1})}
    # the wine cell's key is the key C=0.1 has in a plain grid: a per_dataset run shares cells with a grid run
    plain = make_plan(build_spec(_cfg(compose, grid={"C": [0.1]})))
    keyed = {(t.dataset, t.split.fold, json.dumps(c.params)): c.key for t, c in make_plan(spec).cells()}
    for t, c in plain.cells():
        if t.dataset == "wine":
            assert keyed[(t.dataset, t.split.fold, json.dumps(c.params))] == c.key
    # the config hash sees the block (two experiments that differ only there are two configs)
    assert spec.config_hash() != build_spec(_cfg(compose)).config_hash()


def test_per_dataset_cells_equal_sklearn_at_that_setting(compose, tmp_path):
    spec = build_spec(_cfg(compose, {"wine": {"C": [0.1]}}))
    plan = make_plan(spec)
    run(spec, tmp_path, n_jobs=1, progress=False)
    frame = store_of(spec, tmp_path).read()
    rows = frame[frame["dataset"] == "wine"].sort_values("fold")
    assert set(rows["params_json"]) == {'{"C": 0.1}'} and len(rows) == 3
    ds = plan.datasets["wine"]
    for t, c in plan.cells():
        if t.dataset != "wine":
            continue
        tr, te = t.split.train, t.split.test
        scaler = MinMaxScaler().fit(ds.X[tr])
        model = LogisticRegression(C=0.1, max_iter=5000, random_state=t.split.model_seed)
        acc = (model.fit(scaler.transform(ds.X[tr]), ds.y[tr]).predict(scaler.transform(ds.X[te])) == ds.y[te]).mean()
        stored = rows.loc[rows["fold"] == t.split.fold, "accuracy"].iloc[0]
        assert stored == pytest.approx(acc, abs=1e-12)


@pytest.mark.parametrize("block,needle", [
    ({"wnie": {"C": [0.1]}}, "per_dataset.wnie names no dataset of this experiment; did you mean 'wine'"),
    ({"wine": {"tol": [0.1]}}, "per_dataset.wine.tol replaces no axis of models.logreg.grid"),
    ({"wine": {"C": [-1.0]}}, "models.logreg.per_dataset.C=-1.0"),
    ({"wine": {"C": []}}, "per_dataset.wine.C"),
    ({"wine": {}}, "per_dataset.wine must map grid axes"),
    ([1, 2], "per_dataset must map dataset names"),
])
def test_bad_per_dataset_is_refused_naming_the_key(compose, block, needle):
    with pytest.raises(ConfigError) as ei:
        build_spec(_cfg(compose, block))
    assert needle in str(ei.value), str(ei.value)


def test_per_dataset_beside_a_search_is_refused(compose):
    cfg = _cfg(compose, {"wine": {"C": [0.1]}})
    cfg["models"]["logreg"]["search"] = {"kind": "random", "n": 2,
                                         "space": {"C": {"loguniform": [0.01, 100.0]}}}
    with pytest.raises(ConfigError, match="per_dataset replaces grid axes; this model has a search"):
        build_spec(cfg)
