"""SLM paper experiment wiring (issue 5): datasets, published numbers, families, reports."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from randml_core.data import load_dataset
from randml_core.data.checks import hash_arrays
from randml_papers.slm.generators import circle_and_ring, four_new_moons, new_moons, two_new_moons
from randml_papers.slm.datasets import (SklearnFileFetchSource, categorical_to_numeric, pima_drop_zeros,
                                       read_comma_csv_last_target)
from randml_core.data.sources import OpenMLSource

ROOT = Path(__file__).resolve().parents[3]  # experiments/<paper>/tests/ -> the repository
EQUATIONS = ROOT.parent / "shared" / "papers" / "slm_equations.md"


# ----------------------------------------------------------------------------- published numbers
def _md_table(text: str, heading: str) -> pd.DataFrame:
    """The first markdown table after ``heading`` in slm_equations.md, as strings."""
    rows, started = [], False
    for ln in text[text.index(heading):].splitlines()[1:]:
        if not ln.startswith("|"):
            if started:
                break
            continue
        started = True
        if set(ln.replace("|", "").strip()) <= {"-"}:
            continue
        rows.append([c.strip() for c in ln.strip("|").split("|")])
    return pd.DataFrame(rows[1:], columns=rows[0])


@pytest.fixture(scope="module")
def pub():
    from randml_papers.slm.common import published
    return published()


@pytest.mark.skipif(not EQUATIONS.is_file(), reason="shared/papers/slm_equations.md not present")
def test_published_csv_matches_slm_equations_md(pub):
    text = EQUATIONS.read_text()
    t1 = _md_table(text, "### Table I")
    t1 = t1[t1["Datasets"].isin(["FF-MLP", "LSVM", "SLM Baseline", "SLM Boost", "XGBoost"])]
    cols = {"circle-and-ring": "circle-and-ring", "Wine": "wine", "B.C.W.": "breast-cancer-wdbc",
            "Pima": "pima-392", "Banknote": "banknote"}
    checked = 0
    for _, row in t1.iterrows():
        for col, ds in cols.items():
            hit = pub[(pub.table == "I") & (pub.dataset == ds) & (pub.model == row["Datasets"])]
            assert float(hit.value.iloc[0]) == float(row[col]), (row["Datasets"], col)
            checked += 1
    t3 = _md_table(text, "### Table III")
    for _, row in t3.iterrows():
        for col, ds in {"Make Friedman2": "friedman2", "Boston": "boston", "Diabetes": "diabetes-regression"}.items():
            hit = pub[(pub.table == "III") & (pub.dataset == ds) & (pub.model == row["Datasets"])]
            assert float(hit.value.iloc[0]) == float(row[col])
            checked += 1
    t2 = _md_table(text, "### Table II")
    for _, row in t2.iterrows():
        ds = {"Banknode [sic]": "banknote", "B.C.W.": "breast-cancer-wdbc", "Pima": "pima-392"}.get(row["Datasets"])
        if ds is None:
            continue
        for col, model, metric in [("SLM Baseline", "SLM Baseline", "n_parameters"), ("DT depth", "DT", "depth"),
                                   ("LSVM", "LSVM", "n_parameters")]:
            hit = pub[(pub.table == "II") & (pub.dataset == ds) & (pub.model == model) & (pub.metric == metric)]
            assert float(hit.value.iloc[0]) == float(row[col].replace(",", ""))
            checked += 1
    assert checked == 5 * 5 + 8 * 3 + 3 * 3
    # every MLP number is marked as quoted
    assert pub[pub.model.str.contains("MLP")].note.str.contains("quoted").all()


def test_eq36_reproduces_the_published_svm_counts(pub):
    """Table II's SVM #params from the appendix SV counts with Eq. (36), independently of our code
    path: N_train = 60 % of the paper's rows (Pima 768!), D as the appendix implies."""
    from randml_papers.slm.families import svm_parameters
    n_train = {"circle-and-ring": 600, "2-new-moons": 600, "4-new-moons": 1200, "iris": 90, "wine": 107,
               "breast-cancer-wdbc": 341, "pima-392": 461, "ionosphere": 211, "banknote": 823}
    dim = {"circle-and-ring": 2, "2-new-moons": 2, "4-new-moons": 2, "iris": 4, "wine": 13,
           "breast-cancer-wdbc": 30, "pima-392": 8, "ionosphere": 33, "banknote": 4}
    for ds in n_train:
        for model in ("LSVM", "SVM/RBF"):
            sel = pub[(pub.table == "II") & (pub.dataset == ds) & (pub.model == model)]
            n_sv = int(float(sel[sel.metric == "n_sv"].value.iloc[0]))
            params = int(float(sel[sel.metric == "n_parameters"].value.iloc[0]))
            assert svm_parameters(n_train[ds], dim[ds], n_sv) == params == n_train[ds] + 1 + (dim[ds] + 2) * n_sv


# ----------------------------------------------------------------------------- datasets
def test_generators_shapes_determinism_and_noise():
    X, y = circle_and_ring(seed=3)
    X2, y2 = circle_and_ring(seed=3)
    np.testing.assert_array_equal(X, X2)
    assert X.shape == (1000, 2) and np.bincount(y).tolist() == [500, 500]
    r = np.hypot(X[:, 0], X[:, 1])
    # clean disk points r <= 1, clean ring 1.5..2; exactly 100 per class in the band 0.75..1.75
    noisy0 = r[:100][y[:100] == 0]
    assert np.all((noisy0 >= 0.75) & (noisy0 <= 1.75)) and np.all(r[100:500] <= 1.0)
    assert np.all((r[600:] >= 1.5) & (r[600:] <= 2.0))
    # moons: the zero-noise chain lies exactly on the unit half circles
    Xm, ym = new_moons(4, n_per_class=50, noise=0.0, seed=0, clean_scale=0.0)
    for k in range(4):
        c = np.array([k, 0.5 * (k % 2)])
        d = np.hypot(*(Xm[ym == k] - c).T)
        np.testing.assert_allclose(d, 1.0)
        assert np.all((Xm[ym == k, 1] - c[1]) * (1 if k % 2 == 0 else -1) >= -1e-12)
    assert np.bincount(four_new_moons()[1]).tolist() == [500] * 4
    assert two_new_moons()[0].shape == (1000, 2)


def test_pima_drop_zeros_hand_example():
    feats = pd.DataFrame([[1, 100, 70, 30, 90, 30.0, 0.5, 40],
                          [0, 0, 70, 30, 90, 30.0, 0.5, 40],       # glucose 0
                          [0, 100, 70, 30, 0, 30.0, 0.5, 40],      # insulin 0
                          [0, 100, 70, 30, 90, 25.0, 0.0, 40]])    # pregnancies / pedigree 0 are fine
    f, lab = pima_drop_zeros(feats, pd.Series(["a", "b", "c", "d"]))
    assert lab.tolist() == ["a", "d"] and f.shape == (2, 8)


def test_slm_datasets_offline(monkeypatch):
    monkeypatch.setenv("RANDML_OFFLINE", "1")
    pima = load_dataset("pima-392")
    assert pima.X.shape == (392, 8) and pima.class_counts() == {0: 262, 1: 130}
    assert np.all(pima.X[:, 1:6] > 0)
    boston = load_dataset("boston")
    assert boston.X.shape == (506, 13) and boston.task == "regression"
    np.testing.assert_allclose(boston.X[0, [0, 5, 12]], [0.00632, 6.575, 4.98])
    assert boston.y[0] == 24.0 and boston.y.min() == 5.0 and boston.y.max() == 50.0
    d = load_dataset("diabetes-regression")
    assert d.X.shape == (442, 10) and d.y.min() == 25.0 and d.y.max() == 346.0
    f1 = load_dataset("friedman1")
    from sklearn.datasets import make_friedman1
    Xr, yr = make_friedman1(n_samples=1000, n_features=10, noise=0.0, random_state=0)
    np.testing.assert_array_equal(f1.y, yr)
    assert load_dataset("banknote-synthetic").substitute_of == "banknote"
    assert load_dataset("california-friedman1-substitute").substitute_of == "california-housing"


def test_banknote_openml_loader_reads_prepopulated_cache(tmp_path, monkeypatch):
    """The real OpenML loader, served from a hand-made cache file (never the network)."""
    monkeypatch.setenv("RANDML_OFFLINE", "1")
    X = np.array([[3.6, 8.7, -2.8, -0.4], [-1.4, -0.9, 1.2, 0.1], [4.5, 8.2, -2.5, -1.5]])
    y = np.array(["1", "2", "1"])
    meta = {"format": "randml-openml-npz/1", "data_id": 1462, "name": "banknote-authentication", "version": 1,
            "target": "Class", "prepare": None, "downloaded_at": "2024-01-01T00:00:00+00:00",
            "sha256": hash_arrays(X, y)}
    np.savez(tmp_path / "1462.npz", X=X, y=y, meta=np.array(json.dumps(meta)))
    Xl, yl = OpenMLSource(1462, cache_dir=tmp_path).load()
    np.testing.assert_array_equal(Xl, X)
    assert yl.tolist() == ["1", "2", "1"]
    with pytest.raises(Exception, match="RANDML_OFFLINE|make data"):
        OpenMLSource(1462, cache_dir=tmp_path / "empty").load()


def test_california_fetch_loader_reads_prepopulated_cache(tmp_path, monkeypatch):
    """sklearn's fetch_california_housing through our file-cache source, offline, on a hand-made
    cache of two rows (columns: target in dollars, then 8 raw features in sklearn's stored order)."""
    import joblib
    monkeypatch.setenv("RANDML_OFFLINE", "1")
    raw = np.array([[452600.0, 8.3, 41.0, 880.0, 129.0, 322.0, 126.0, 37.88, -122.23],
                    [358500.0, 8.3, 21.0, 7099.0, 1106.0, 2401.0, 1138.0, 37.86, -122.22]])
    joblib.dump(raw, tmp_path / "cal_housing_py3.pkz", compress=3)
    src = SklearnFileFetchSource("fetch_california_housing", "cal_housing_py3.pkz", data_home=tmp_path)
    assert src.is_cached() and src.available()
    X, y = src.load()
    np.testing.assert_allclose(y, [4.526, 3.585])   # sklearn reports units of 100k dollars
    np.testing.assert_allclose(X[:, 2], raw[:, 3] / raw[:, 6])      # average rooms = rooms / households
    np.testing.assert_allclose(X[:, 0], raw[:, 1])
    empty = SklearnFileFetchSource("fetch_california_housing", "cal_housing_py3.pkz", data_home=tmp_path / "e")
    assert not empty.is_cached() and not empty.available()


def test_boston_readers(tmp_path):
    (tmp_path / "b.csv").write_text("1.0,2.0,24.5\n3.0,4.0,10.25\n")
    X, y = read_comma_csv_last_target(tmp_path / "b.csv")
    np.testing.assert_array_equal(X, [[1, 2], [3, 4]]) and np.testing.assert_array_equal(y, [24.5, 10.25])
    f = pd.DataFrame({"CHAS": pd.Categorical(["0", "1"]), "RAD": pd.Categorical(["24", "3"], categories=["3", "24"])})
    out, _ = categorical_to_numeric(f, None)
    assert out["RAD"].tolist() == [24, 3] and out["CHAS"].tolist() == [0, 1]


# ----------------------------------------------------------------------------- families
def test_staged_baselines_end_at_the_final_prediction():
    from sklearn.datasets import load_wine
    from randml_papers.slm.families import StagedRandomForestClassifier, StagedXGBClassifier
    X, y = load_wine(return_X_y=True)
    rf = StagedRandomForestClassifier(n_estimators=7, random_state=0).fit(X, y)
    st = list(rf.staged_predict_proba(X))
    assert len(st) == 7
    np.testing.assert_allclose(st[-1], rf.predict_proba(X))
    np.testing.assert_allclose(st[0], rf.estimators_[0].predict_proba(X))
    xg = StagedXGBClassifier(n_estimators=5, max_depth=2, n_jobs=1, random_state=0).fit(X, y)
    sx = list(xg.staged_predict_proba(X))
    assert len(sx) == 5
    np.testing.assert_allclose(sx[-1], xg.predict_proba(X), rtol=1e-6)
    assert list(xg.staged_predict(X))[-1].tolist() == xg.predict(X).tolist()


def test_xgboost_takes_any_labels_and_is_unchanged_on_0_to_k():
    """SRBCT's labels 1..4 failed XGBoost ("Invalid classes"); the wrapper codes them. On labels that
    already are 0..K-1 it is the plain XGBClassifier, prediction for prediction."""
    from sklearn.datasets import load_wine
    from xgboost import XGBClassifier
    from randml_papers.slm.families import StagedXGBClassifier
    X, y = load_wine(return_X_y=True)
    kw = dict(n_estimators=5, max_depth=2, n_jobs=1, random_state=0)
    plain, ours = XGBClassifier(**kw).fit(X, y), StagedXGBClassifier(**kw).fit(X, y)
    np.testing.assert_array_equal(ours.predict_proba(X), plain.predict_proba(X))
    np.testing.assert_array_equal(ours.predict(X), plain.predict(X))
    shifted = StagedXGBClassifier(**kw).fit(X, np.array([10, 20, 40])[y])  # labels 10, 20, 40
    assert shifted.classes_.tolist() == [10, 20, 40]
    np.testing.assert_array_equal(shifted.predict_proba(X), plain.predict_proba(X))
    np.testing.assert_array_equal(shifted.predict(X), np.array([10, 20, 40])[plain.predict(X)])
    assert list(shifted.staged_predict(X))[-1].tolist() == shifted.predict(X).tolist()
    words = StagedXGBClassifier(**kw).fit(X, np.array(["a", "b", "c"])[y])
    assert set(words.predict(X)) <= {"a", "b", "c"} and words.classes_.tolist() == ["a", "b", "c"]
    refit = words.fit(X, y)  # a refit forgets the earlier labels
    assert refit.classes_.tolist() == [0, 1, 2]


def test_model_size_counts_by_hand():
    from sklearn.svm import SVC
    from sklearn.tree import DecisionTreeClassifier
    from randml_papers.slm.families import model_size
    # XOR-like 4 points: DT needs 3 splits, depth 2
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], float)
    y = np.array([0, 1, 1, 0])
    s = model_size(DecisionTreeClassifier(criterion="entropy", random_state=0).fit(X, y))
    assert s == {"n_hyperplanes": 3, "n_parameters": 6, "depth": 2}
    svc = SVC(kernel="linear", C=1.0).fit(X[:2], y[:2])       # two points: both are support vectors
    assert model_size(svc) == {"n_sv": 2, "n_parameters": 2 + 1 + (2 + 2) * 2}


def test_target_scaled_svr_equals_svr_on_the_standardised_target():
    from sklearn.svm import SVR
    from randml_papers.slm.families import TargetScaledSVR
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(60, 3))
    y = 1000 * (X @ [1.0, -2.0, 0.5] + 0.1 * rng.normal(size=60)) + 7
    m, s = y.mean(), y.std()
    ref = SVR(kernel="rbf", C=10.0, gamma=1.0, epsilon=0.1).fit(X, (y - m) / s).predict(X) * s + m
    ours = TargetScaledSVR(kernel="rbf", C=10.0, gamma=1.0, epsilon=0.1).fit(X, y).predict(X)
    np.testing.assert_allclose(ours, ref, rtol=1e-12)
    # the fit is close to the data whatever the target's unit (a raw SVR with epsilon=0.1 on y in
    # thousands would barely move from the median)
    assert np.sqrt(np.mean((ours - y) ** 2)) < 0.2 * s
    # libsvm's iteration bound is reported through converged_ (the runner's `converged` column)
    assert TargetScaledSVR(C=10.0, gamma=1.0, max_iter=1_000_000).fit(X, y).converged_
    assert not TargetScaledSVR(C=1000.0, gamma=1.0, epsilon=0.001, max_iter=2).fit(X, y).converged_


# ----------------------------------------------------------------------------- selection and reports
def _frame(rows):
    base = {"status": "ok", "converged": True}
    return pd.DataFrame([{**base, **r} for r in rows])


def test_nested_picks_matches_select_nested_and_minimises_rmse():
    from randml_papers.slm.common import nested_picks, summarise
    from randml_core.report.tables import select_nested
    rows = []
    for rep in range(3):
        for pj, inner_acc, outer_acc in [('{"a": 1}', [0.9, 0.8], 0.70 + rep / 100), ('{"a": 2}', [0.6, 0.7], 0.95)]:
            for i, v in enumerate(inner_acc):
                rows.append({"dataset": "d", "model": "m", "repeat": rep, "fold": 0, "inner_fold": i,
                             "params_json": pj, "accuracy": v, "rmse": v})
            rows.append({"dataset": "d", "model": "m", "repeat": rep, "fold": 0, "inner_fold": -1,
                         "params_json": pj, "accuracy": outer_acc, "rmse": outer_acc})
    frame = _frame(rows)
    picks = nested_picks(frame, "accuracy")
    assert (picks.params_json == '{"a": 1}').all() and len(picks) == 3
    ours = summarise(picks, "accuracy")
    ref = select_nested(frame, "accuracy")
    assert ours["mean"].iloc[0] == pytest.approx(ref["mean"].iloc[0]) == pytest.approx(0.71)
    assert ours["std"].iloc[0] == pytest.approx(ref["std"].iloc[0])
    low = nested_picks(frame, "rmse", higher=False)
    assert (low.params_json == '{"a": 2}').all()
    assert summarise(low, "rmse")["mean"].iloc[0] == pytest.approx(0.95)


def test_comparison_verdicts(pub):
    from randml_papers.slm.common import comparison_rows, verdict
    assert verdict(90.0, 1.0, 89.5) == "within" and verdict(90.0, 0.1, 89.5) == "above"
    assert verdict(80.0, 1.0, 89.5) == "below"
    summary = pd.DataFrame([{"dataset": "wine", "model": "DT", "mean": 93.0, "std": 2.0, "n": 10, "params_json": "{}"},
                            {"dataset": "banknote-synthetic", "model": "DT", "mean": 99.0, "std": 0.5, "n": 10,
                             "params_json": "{}"}])
    long = comparison_rows(summary, pub, "I", "accuracy_pct", ["wine", "banknote-synthetic", "banknote"],
                           ["FF-MLP", "DT"], {"banknote-synthetic": "banknote"}, {"banknote": "offline"})
    wine = long[(long.dataset == "wine") & (long.model == "DT")].iloc[0]
    assert wine.paper == 95.83 and wine.delta == pytest.approx(93.0 - 95.83) and wine.verdict == "below"
    sub = long[(long.dataset == "banknote-synthetic") & (long.model == "DT")].iloc[0]
    assert pd.isna(sub.paper) and pd.isna(sub.delta) and "substitute" in sub.note
    assert "download" in long[(long.dataset == "banknote") & (long.model == "DT")].iloc[0].note
    assert "quoted" in long[(long.dataset == "wine") & (long.model == "FF-MLP")].iloc[0].note


def test_configs_compose_and_table2_fig5_share_table1_cells():
    """The three SLM experiment configs validate, and Table II / Figure 5 plan the very same cells."""
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf
    from randml_core.config import build_spec
    specs = {}
    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base=None):
        for name in ("slm_table1", "slm_table2", "slm_fig5", "slm_table3"):
            cfg = compose(config_name="config", overrides=[f"experiment={name}"])
            specs[name] = build_spec(OmegaConf.to_container(cfg, resolve=True))
    assert specs["slm_table2"].store == specs["slm_fig5"].store == "slm_table1"
    assert [v.__dict__ for v in specs["slm_table2"].variants] == [v.__dict__ for v in specs["slm_table1"].variants]
    assert specs["slm_table2"].protocol == specs["slm_table1"].protocol
    assert specs["slm_table1"].protocol.kind == "holdout" and specs["slm_table1"].protocol.repeats >= 10
    assert specs["slm_table1"].protocol.inner_splits >= 2
    assert set(specs["slm_table1"].columns) == {"LSVM", "SVM/RBF", "DT", "SLM Baseline", "RF", "XGBoost",
                                                 "SLM Forest", "SLM Boost"}
    assert "SLR Boost" in specs["slm_table3"].columns


def test_table1_footer_states_the_configured_inner_folds_and_scaling(tmp_path, randml_cmd, cli_env):
    """A reduced slm_table1 run with 3 inner folds and standardised features: the report's footer says so
    (it said '2-fold' and 'min-max' whatever the config was)."""
    import subprocess
    args = ["experiment=slm_table1", "profile=quick", "dataset=circle-and-ring", "protocol.repeats=1",
            "protocol.inner_splits=3", "+experiment.preprocessing=standard", f"store_dir={tmp_path / 'store'}",
            f"results_dir={tmp_path / 'res'}", f"hydra.run.dir={tmp_path}/logs", "progress=false"]
    for cmd in ("run", "report"):
        res = subprocess.run([*randml_cmd, cmd, *args], env=cli_env, capture_output=True, text=True, timeout=600)
        assert res.returncode == 0, res.stderr[-2000:]
    md = (tmp_path / "res" / "scratch" / "slm_table1" / "tables" / "slm_table1.md").read_text()
    assert "Selection: per outer split, 3-fold inner CV on the training part" in md
    assert "Features: standardised (zero mean, unit variance) with training-part statistics." in md
    assert "min-max" not in md
