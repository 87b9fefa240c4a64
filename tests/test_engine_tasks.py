"""Engine support for the other papers' protocols: regression metrics, sparse features without
scaling, the dataset's fixed train/test split, staged predictions, generated datasets."""
import json

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.linear_model import LogisticRegression, Ridge

from randml_core.config import ConfigError, build_spec
from randml_core.data import DatasetSpec, GeneratedSource, load_dataset, register
from randml_core.data.registry import unregister
from randml_core.family import Family, evaluate_plain, register_family
from randml_core.results import load, staged
from randml_core.runner import PlanError, make_plan, run


def make_regression_xy(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, X @ np.array([1.0, -2.0, 0.5]) + 0.1 * rng.normal(size=n)


def make_sparse_xy(n=80, seed=0):
    X = sp.random(n, 50, density=0.1, random_state=seed, format="csr") * 5
    y = (np.asarray(X[:, :5].sum(1)).ravel() > np.median(np.asarray(X[:, :5].sum(1)))).astype(int)
    return X, y


def make_ordered_xy(n=50, seed=0):
    """Labels alternate, so the last 10 rows (the fixed test set) hold both classes."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    return rng.normal(size=(n, 2)) + y[:, None], y


class Boost(GradientBoostingClassifier):
    pass


FAMS = [
    Family("t_ridge", Ridge, "1", lambda split, s: evaluate_plain(FAMS[0], split, s)),
    Family("t_logreg", LogisticRegression, "1", lambda split, s: evaluate_plain(FAMS[1], split, s, proba=True)),
    Family("t_boost", Boost, "1", lambda split, s: evaluate_plain(FAMS[2], split, s, staged=True, proba=True)),
]


@pytest.fixture(autouse=True)
def registered():
    for f in FAMS:
        register_family(f)
    specs = [
        DatasetSpec("t-reg", "regression", (), [GeneratedSource("tests.test_engine_tasks:make_regression_xy")],
                    {"n": 60, "d": 3}, "n/a", "n/a"),
        DatasetSpec("t-sparse", "binary", (), [GeneratedSource("tests.test_engine_tasks:make_sparse_xy")],
                    {}, "n/a", "n/a"),
        DatasetSpec("t-fixed", "binary", (), [GeneratedSource("tests.test_engine_tasks:make_ordered_xy")],
                    {}, "n/a", "n/a", test_last=10),
    ]
    for s in specs:
        register(s, replace=True)
    yield
    for s in specs:
        unregister(s.name)


def spec_for(dataset, family, grid, protocol, **options):
    return build_spec({
        "experiment": {"name": f"t_{family}", "datasets": [dataset], **options},
        "models": {"m": {"family": family, "variants": {"M": {}}, "grid": grid}},
        "protocol": protocol, "profile": {"name": "paper"},
    })


def test_generated_source_loads_and_hashes_sparse_features():
    ds = load_dataset("t-sparse")
    assert ds.is_sparse and ds.source_kind == "generated"
    X, y = make_sparse_xy()
    assert (ds.X != X).nnz == 0 and ds.data_hash == load_dataset("t-sparse").data_hash
    # the same numbers dense hash differently from sparse (the layout is part of the identity)
    from randml_core.data import hash_arrays
    assert hash_arrays(X.toarray(), ds.y) != ds.data_hash


def test_regression_uses_plain_folds_and_rmse(tmp_path):
    spec = spec_for("t-reg", "t_ridge", {"alpha": [0.1, 10.0]}, {"kind": "repeated_stratified_kfold",
                                                                 "n_splits": 3, "repeats": 1})
    run(spec, str(tmp_path), n_jobs=1, progress=False)
    df = load(spec.store, store_dir=str(tmp_path), all_configs=True)
    assert len(df) == 6 and {"rmse", "mae"} <= set(df.columns) and "gmean" not in df.columns
    # an independent computation of one fold: minmax on the training part, then Ridge
    X, y = make_regression_xy()
    split = next(s for s in spec.protocol.splits(y, "t-reg", regression=True) if s.fold == 0)
    lo, hi = X[split.train].min(0), X[split.train].max(0)
    f = lambda A: (A - lo) / (hi - lo)  # noqa: E731
    pred = Ridge(alpha=0.1).fit(f(X[split.train]), y[split.train]).predict(f(X[split.test]))
    got = df[(df.fold == 0) & (df.p_alpha == 0.1)]["rmse"].item()
    assert got == pytest.approx(np.sqrt(np.mean((pred - y[split.test]) ** 2)), rel=1e-12)


def test_sparse_needs_no_scaling_and_then_matches_dense(tmp_path):
    proto = {"kind": "repeated_stratified_kfold", "n_splits": 2, "repeats": 1}
    spec = spec_for("t-sparse", "t_logreg", {"C": [1.0]}, proto)
    with pytest.raises(PlanError, match="preprocessing=none"):
        run(spec, str(tmp_path / "a"), n_jobs=1, progress=False)
    with pytest.raises(ConfigError, match="preprocessing"):
        spec_for("t-sparse", "t_logreg", {"C": [1.0]}, proto, preprocessing="minmix")
    spec = spec_for("t-sparse", "t_logreg", {"C": [1.0]}, proto, preprocessing="none")
    run(spec, str(tmp_path / "b"), n_jobs=1, progress=False)
    df = load(spec.store, store_dir=str(tmp_path / "b"), all_configs=True)
    assert (df.status == "ok").all() and df.preprocessing.iloc[0].startswith("none")
    X, y = make_sparse_xy()
    s = next(iter(spec.protocol.splits(y, "t-sparse")))
    m = LogisticRegression(C=1.0, random_state=s.model_seed).fit(X[s.train].toarray(), y[s.train])
    proba = m.predict_proba(X[s.test].toarray())
    expected = -np.mean(np.log(proba[np.arange(len(s.test)), y[s.test]]))
    assert df[df.fold == 0]["log_loss"].item() == pytest.approx(expected, rel=1e-6)


def test_fixed_protocol_uses_the_datasets_own_test_rows(tmp_path):
    spec = spec_for("t-fixed", "t_logreg", {"C": [1.0]}, {"kind": "fixed", "repeats": 2})
    plan = make_plan(spec)
    tests = [t.split.test for t in plan.tasks]
    assert len(tests) == 2 and all(np.array_equal(t, np.arange(40, 50)) for t in tests)
    assert len({t.split.model_seed for t in plan.tasks}) == 2  # repeats differ by model seed only
    bad = spec_for("t-reg", "t_ridge", {"alpha": [1.0]}, {"kind": "fixed"})
    with pytest.raises(PlanError, match="no fixed train/test split"):
        make_plan(bad)


def test_staged_predictions_are_scored_per_stage(tmp_path):
    spec = spec_for("t-fixed", "t_boost", {"n_estimators": [5]}, {"kind": "fixed", "repeats": 1})
    run(spec, str(tmp_path), n_jobs=1, progress=False)
    df = load(spec.store, store_dir=str(tmp_path), all_configs=True)
    long = staged(df)
    assert list(long["stage"]) == [1, 2, 3, 4, 5]
    # the last stage is the final model: same accuracy and log loss as the row itself
    assert long["accuracy"].iloc[-1] == df["accuracy"].item()
    assert long["log_loss"].iloc[-1] == pytest.approx(df["log_loss"].item())
    # stage 2 by hand: a 2-tree model of the same seed
    X, y = make_ordered_xy()
    s = next(iter(spec.protocol.splits(y, "t-fixed", test_index=np.arange(40, 50))))
    lo, hi = X[s.train].min(0), X[s.train].max(0)
    m = GradientBoostingClassifier(n_estimators=2, random_state=s.model_seed).fit(
        (X[s.train] - lo) / (hi - lo), y[s.train])
    acc = np.mean(m.predict((X[s.test] - lo) / (hi - lo)) == y[s.test])
    assert long["accuracy"].iloc[1] == pytest.approx(acc)
    assert json.loads(df["staged"].item())["stage"] == [1, 2, 3, 4, 5]
