"""Data checks: duplicated rows (counted, warned, dropped or grouped), overflow-safe scaling,
constant features, missing labels. References are computed independently (pandas, closed forms,
the pre-refactor scaling formulas written out here)."""
import hashlib
import json
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from randml_core.config import ConfigError, ExperimentSpec, Variant
from randml_core.data import load_dataset
from randml_core.data import checks
from randml_core.data.checks import (DataQualityWarning, DataValidationError, binarise_labels, constant_columns,
                                     duplicate_rows, validate_xy)
from randml_core.family import FAMILIES
from randml_core.preprocess import preprocess, preprocessing_of
from randml_core.protocol import Protocol
from randml_core.runner import PlanError, make_plan

# rows 2, 3 repeat row 0 (row 3 with another label), row 5 repeats row 1, row 7 repeats row 6 (-0.0 == 0.0)
X_TOY = np.array([[1, 2], [3, 4], [1, 2], [1, 2], [5, 6], [3, 4], [-0.0, 1], [0.0, 1]], dtype=float)
Y_TOY = np.array([0, 1, 0, 1, 0, 1, 0, 0])


def pandas_counts(X, y):
    """(rows repeating an earlier feature row, of which with a label unseen in earlier copies)."""
    df = pd.DataFrame(np.asarray(X))
    n_feat = int(df.duplicated().sum())
    n_pair = int(df.assign(label=np.asarray(y)).duplicated().sum())
    return n_feat, n_feat - n_pair


def pandas_groups(X):
    df = pd.DataFrame(np.asarray(X))
    return df.groupby(list(df.columns), sort=False).ngroup().to_numpy()


def quiet_load(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataQualityWarning)
        return load_dataset(name)


# --------------------------------------------------------------------------- counting duplicates


def test_duplicates_counted_on_a_hand_made_array():
    d = duplicate_rows(X_TOY, Y_TOY)
    assert d.n_repeated == 4 and d.n_conflicting == 1          # worked out by hand above
    assert d.keep.tolist() == [0, 1, 3, 4, 6]                  # first row of each (features, label) pair
    assert d.groups.tolist() == [0, 1, 0, 0, 2, 1, 3, 3]
    assert (d.n_repeated, d.n_conflicting) == pandas_counts(X_TOY, Y_TOY)
    s = duplicate_rows(sp.csr_matrix(X_TOY), Y_TOY)            # sparse rows: same answer
    assert (s.n_repeated, s.n_conflicting, s.keep.tolist(), s.groups.tolist()) == (4, 1, [0, 1, 3, 4, 6],
                                                                                     d.groups.tolist())


def test_hashing_path_and_its_collision_fallback_agree_with_pandas(monkeypatch):
    """Large data is hashed (pandas), then checked row by row; a collision falls back to the sort."""
    X = np.repeat(quiet_load("flare-F-keel").X, 3, axis=0)
    ref = pandas_groups(X)
    monkeypatch.setattr(checks, "SORT_MAX_VALUES", 0)           # take the hashing path on small data
    calls = []
    real_hash = pd.util.hash_pandas_object
    monkeypatch.setattr(pd.util, "hash_pandas_object", lambda f, index=False: calls.append(1) or real_hash(f, index=index))
    real_exact = checks._exact_dense_groups
    monkeypatch.setattr(checks, "_exact_dense_groups", lambda A: pytest.fail("no collision expected"))
    assert np.array_equal(checks.feature_groups(X), ref) and calls
    # every row hashes to 0: all rows "collide", the exact sort takes over and gives the same groups
    monkeypatch.setattr(pd.util, "hash_pandas_object", lambda f, index=False: pd.Series(np.zeros(len(f), np.uint64)))
    monkeypatch.setattr(checks, "_exact_dense_groups", real_exact)
    assert np.array_equal(checks.feature_groups(X), ref)


@pytest.mark.parametrize("name", ["flare-F-keel", "breast-cancer", "hypothyroid-idb"])
def test_duplicates_on_shipped_datasets_match_pandas_duplicated(name):
    ds = quiet_load(name)
    d = duplicate_rows(ds.X, ds.y)
    assert (d.n_repeated, d.n_conflicting) == pandas_counts(ds.X, ds.y)
    assert d.n_repeated > 0
    assert np.array_equal(pd.factorize(d.groups)[0], pd.factorize(pandas_groups(ds.X))[0])


def test_flare_f_counts_and_load_warning_once_per_load():
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        ds = load_dataset("flare-F-keel")
    dup = [w for w in rec if issubclass(w.category, DataQualityWarning) and "repeat" in str(w.message)]
    assert len(dup) == 1
    msg = str(dup[0].message)
    n_rep, n_conf = pandas_counts(ds.X, ds.y)
    assert "'flare-F-keel'" in msg and f"{n_rep} of 1066 rows" in msg and f"{n_conf} of them" in msg
    assert "experiment.duplicates=drop" in msg and "experiment.duplicates=group" in msg


# --------------------------------------------------------------------------- drop and group in the splits


def test_drop_keeps_the_first_occurrence_and_splits_only_kept_rows():
    p = Protocol(n_splits=2)
    X = np.vstack([X_TOY] * 3)
    y = np.concatenate([Y_TOY] * 3)
    first = np.flatnonzero(~pd.DataFrame(X).assign(label=y).duplicated(keep="first").to_numpy())
    assert first.tolist() == [0, 1, 3, 4, 6]
    outer = [s for s in p.splits(y, "toy", X=X, duplicates="drop") if s.inner < 0]
    assert np.array_equal(np.sort(np.concatenate([s.test for s in outer])), first)
    for s in p.splits(y, "toy", X=X, duplicates="drop"):
        assert set(s.train) | set(s.test) <= set(first) and not set(s.train) & set(s.test)


def test_drop_on_flare_shrinks_n_by_the_exact_duplicates():
    ds = quiet_load("flare-F-keel")
    n_exact = int(pd.DataFrame(ds.X).assign(label=ds.y).duplicated().sum())
    splits = list(Protocol(n_splits=5, inner_splits=2).splits(ds.y, "flare-F-keel", X=ds.X, duplicates="drop"))
    outer = [s for s in splits if s.inner < 0]
    assert len(outer) == 5 and all(len(s.train) + len(s.test) == 1066 - n_exact for s in outer)
    first = np.flatnonzero(~pd.DataFrame(ds.X).assign(label=ds.y).duplicated().to_numpy())
    assert np.array_equal(np.sort(np.concatenate([s.test for s in outer])), first)
    for s in splits:  # inner folds too: only kept rows, train and test disjoint
        assert set(s.train) | set(s.test) <= set(first) and not set(s.train) & set(s.test)


@pytest.mark.parametrize("kind,regression", [("repeated_stratified_kfold", False), ("repeated_stratified_kfold", True),
                                             ("holdout", False)])
def test_grouped_folds_never_split_a_duplicate_group(kind, regression):
    ds = quiet_load("flare-F-keel")
    X, y = ds.X, ds.y
    if regression:  # a regression target on the same rows (duplicate rows, different targets)
        y = X @ np.arange(1.0, X.shape[1] + 1) + np.random.default_rng(0).normal(size=len(y))
    groups = pandas_groups(X)
    p = Protocol(kind=kind, n_splits=5, inner_splits=2, repeats=2)
    splits = list(p.splits(y, "flare-F-keel", regression=regression, X=X, duplicates="group"))
    assert len(splits) == (2 * 5 * 3 if kind != "holdout" else 2 * 3)
    for s in splits:
        assert not set(groups[s.train]) & set(groups[s.test])
    plain = list(p.splits(y, "flare-F-keel", regression=regression))
    assert any(set(groups[s.train]) & set(groups[s.test]) for s in plain)  # without grouping copies leak
    if kind != "holdout":  # the outer test folds still partition the rows
        rep0 = [s for s in splits if s.repeat == 0 and s.inner < 0]
        assert np.array_equal(np.sort(np.concatenate([s.test for s in rep0])), np.arange(len(y)))


def test_keep_gives_exactly_the_previous_folds():
    ds = quiet_load("breast-cancer")
    p = Protocol(n_splits=10, inner_splits=2)
    a = list(p.splits(ds.y, "breast-cancer"))
    b = list(p.splits(ds.y, "breast-cancer", X=ds.X, duplicates="keep"))
    assert len(a) == len(b) == 30
    assert all(np.array_equal(u.train, v.train) and np.array_equal(u.test, v.test) for u, v in zip(a, b))


def test_group_refuses_a_fixed_split_and_too_few_distinct_rows():
    ds = quiet_load("digits-8x8")
    with pytest.raises(ValueError, match="duplicates=group cannot regroup"):
        list(Protocol(kind="fixed").splits(ds.y, "digits-8x8", test_index=ds.test_index, X=ds.X,
                                           duplicates="group"))
    X = np.array([[0.0]] * 6 + [[1.0], [2.0], [3.0], [4.0]])
    y = np.array([1] * 6 + [0] * 4)  # class 1: six copies of one row = one group
    with pytest.raises(ValueError, match="class 1 has 1 distinct feature rows"):
        list(Protocol(n_splits=3).splits(y, "toy", X=X, duplicates="group"))


# --------------------------------------------------------------------------- the option in plans and keys


def tiny_spec(duplicates=None, n_splits=3, dataset="breast-cancer"):
    options = {} if duplicates is None else {"duplicates": duplicates}
    return ExperimentSpec("dupcheck", "", [dataset], [Variant("WELM-sig", "welm", {"activation": "sig"},
                                                              {"n_hidden": [10, 20]})],
                          Protocol(n_splits=n_splits), options)


def old_key(data_hash, split, spec, params_json):
    """The cell key as computed before this option existed (prep string written out)."""
    p = spec.protocol
    payload = json.dumps({
        "data": data_hash, "prep": "minmax[0,1] fitted on the training part",
        "split": [p.kind, p.n_splits, p.test_size, p.seed, 0, split.repeat, split.fold, split.inner],
        "family": "welm", "version": FAMILIES["welm"].version, "params": params_json,
        "model_seed": split.model_seed, "options": {}}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:24]


def keys_of(plan):
    return [c.key for _, c in plan.cells()]


def test_duplicates_option_changes_cell_keys_only_when_not_keep():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataQualityWarning)
        plans = {d: make_plan(tiny_spec(d)) for d in (None, "keep", "drop", "group")}
    base = plans[None]
    ds = base.datasets["breast-cancer"]
    assert keys_of(base) == [old_key(ds.data_hash, t.split, base.spec, c.params_json) for t, c in base.cells()]
    assert keys_of(plans["keep"]) == keys_of(base)
    k_drop, k_group = set(keys_of(plans["drop"])), set(keys_of(plans["group"]))
    assert len(k_drop) == len(k_group) == 6 and not (k_drop & set(keys_of(base))) and not (k_drop & k_group)
    assert not k_group & set(keys_of(base))
    assert preprocessing_of({"duplicates": "drop"}).endswith("; duplicate rows dropped")
    assert preprocessing_of({"duplicates": "group"}).endswith("; duplicate rows kept in one fold")
    # drop: n_train + n_test = 683 - 234 exact duplicates (breast-cancer has no label conflicts)
    n_rows = {len(t.split.train) + len(t.split.test) for t in plans["drop"].tasks}
    assert n_rows == {683 - int(pd.DataFrame(ds.X).assign(label=ds.y).duplicated().sum())} == {449}


def test_plan_warns_about_duplicates_once_per_load_not_per_fold():
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        plan = make_plan(tiny_spec(None, n_splits=5))
    assert len(plan.tasks) == 5
    assert sum("rows repeat" in str(w.message) for w in rec if issubclass(w.category, DataQualityWarning)) == 1


def test_bad_duplicates_value_is_refused_naming_key_value_and_choices(compose):
    with pytest.raises(PlanError) as ei, warnings.catch_warnings():
        warnings.simplefilter("ignore", DataQualityWarning)
        make_plan(tiny_spec("dorp"))
    msg = str(ei.value)
    assert "experiment.duplicates='dorp'" in msg and all(c in msg for c in ("keep", "drop", "group"))
    with pytest.raises(ConfigError, match="experiment.duplicates='dorp'.*keep.*drop.*group"):
        compose("experiment=tiny", "+experiment.duplicates=dorp")
    assert compose("experiment=tiny", "+experiment.duplicates=group").options["duplicates"] == "group"


# --------------------------------------------------------------------------- overflow-safe scaling


def old_minmax(train, *others):  # the formula of every stored result, written out independently
    lo, hi = train.min(0), train.max(0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return [(a - lo) / span for a in (train, *others)]


def old_standard(train, *others):
    mu, sd = train.mean(0), train.std(0)
    sd = np.where(sd > 0, sd, 1.0)
    return [(a - mu) / sd for a in (train, *others)]


@pytest.mark.parametrize("name,old", [("minmax", old_minmax), ("standard", old_standard)])
def test_scaling_of_ordinary_data_is_bit_identical_to_the_old_formula(name, old):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 12)) * rng.lognormal(0, 4, size=12) + rng.normal(0, 100, size=12)
    X[:, 4] = 7.0  # a constant column
    X[::5, 5] = -0.0
    for tr, te in [(X[:200], X[200:]), (quiet_load("sonar").X[:150], quiet_load("sonar").X[150:])]:
        got = preprocess(name, tr, te)
        want = old(tr, te)
        assert all(g.tobytes() == w.tobytes() for g, w in zip(got, want))
    assert preprocess(name, X, X[:0])[0].tobytes() == old(X)[0].tobytes()


def test_minmax_with_extreme_values_is_finite_and_in_unit_interval():
    train = np.array([[-1e308, 1.0], [0.0, 2.0], [1e308, 3.0], [5e307, 4.0]])
    test = np.array([[1.7e308, 2.5], [-1.7e308, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow RuntimeWarning escapes either
        tr, te = preprocess("minmax", train, test)
    assert np.isfinite(tr).all() and np.isfinite(te).all()
    assert tr.min() >= 0 and tr.max() <= 1
    np.testing.assert_allclose(tr[:, 0], [0, 0.5, 1, 0.75], rtol=1e-15)   # (x - lo) / (hi - lo) by hand
    np.testing.assert_allclose(te[:, 0], [1.35, -0.35], rtol=1e-15)
    assert tr[:, 1].tobytes() == old_minmax(train[:, 1:])[0].ravel().tobytes()  # ordinary column untouched


def test_standard_with_extreme_values_matches_the_scale_invariant_reference():
    train = np.array([[-1e308, 1.0], [1e308, 2.0], [-1e308, 3.0], [1e308, 5.0], [3e307, 8.0]])
    test = np.array([[1.5e308, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tr, te = preprocess("standard", train, test)
    assert np.isfinite(tr).all() and np.isfinite(te).all()
    ref_tr, ref_te = old_standard(train[:, :1] * 1e-300, test[:, :1] * 1e-300)  # scale invariant
    np.testing.assert_allclose(tr[:, :1], ref_tr, rtol=1e-12)
    np.testing.assert_allclose(te[:, :1], ref_te, rtol=1e-12)
    assert tr[:, 1].tobytes() == old_standard(train[:, 1:])[0].ravel().tobytes()
    # closed form of the first column with the fifth row removed: +-1 exactly
    tr4, _ = preprocess("standard", train[:4], test)
    np.testing.assert_allclose(tr4[:, 0], [-1, 1, -1, 1], rtol=1e-15)


# --------------------------------------------------------------------------- constant features, labels


def test_constant_features_warned_with_dataset_and_columns():
    X = np.column_stack([np.arange(6.0), np.full(6, 2.0), np.arange(6.0) ** 2, np.zeros(6)])
    with pytest.warns(DataQualityWarning, match=r"'toy': 2 constant feature\(s\).*columns \[1, 3\]"):
        validate_xy(X, np.array([0, 1] * 3), "toy", task="binary")
    ds = quiet_load("digits-8x8")
    ref = np.flatnonzero(pd.DataFrame(ds.X).nunique().to_numpy() == 1)
    assert constant_columns(ds.X).tolist() == ref.tolist() and ref.size == 3
    with pytest.warns(DataQualityWarning, match="'digits-8x8': 3 constant feature.*" + str(ref.tolist())):
        load_dataset("digits-8x8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        validate_xy(X, np.array([0, 1] * 3), "toy", task="binary", warn=False)


@pytest.mark.parametrize("y", [np.array([0.0, 1.0, np.nan, 1.0, 0.0, np.nan]),
                               np.array(["a", "b", None, "b", "a", None], dtype=object),
                               np.array(["a", "b", "?", "b", "a", " "])])
def test_missing_labels_named_with_count_rows_and_the_right_fix(y):
    X = np.arange(12.0).reshape(6, 2)
    for call in (lambda: binarise_labels(y, "toy"), lambda: validate_xy(X, y, "toy", task="multiclass")):
        with pytest.raises(DataValidationError) as ei:
            call()
        msg = str(ei.value)
        assert "'toy'" in msg and "2 missing labels" in msg and "rows [2, 5]" in msg and "drop those rows" in msg
        assert "register" not in msg and "multiclass" not in msg


def test_a_missing_label_through_load_dataset():
    from randml_core.data import DatasetSpec, register
    from randml_core.data.registry import unregister
    from randml_core.data.sources import LoadResult, Source

    class Arrays(Source):
        kind = "synthetic"

        def describe(self):
            return "test arrays"

        def available(self):
            return True

        def load_detailed(self, name="<dataset>"):
            return LoadResult(np.arange(10.0).reshape(5, 2), np.array([1.0, 0.0, np.nan, 1.0, 0.0]), self.kind,
                              self.describe())
    register(DatasetSpec(name="t-nanlabel", task="binary", papers=(), sources=[Arrays()], expected={},
                         licence="n/a", citation="n/a"), replace=True)
    try:
        with pytest.raises(DataValidationError, match=r"'t-nanlabel': y has 1 missing labels .* rows \[2\]"):
            load_dataset("t-nanlabel")
    finally:
        unregister("t-nanlabel")


def test_more_than_two_real_labels_get_the_binarise_or_multiclass_advice():
    with pytest.raises(DataValidationError, match="3 labels.*binarise.*task='multiclass'"):
        binarise_labels(np.array(["a", "b", "c", "a"]), "toy")
