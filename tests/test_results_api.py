"""randml_core.results: load() gives the tables' rows by default, best() the tables' cells.

References are computed independently from the raw parquet parts (pyarrow, no randml code) and
from the plan's keys.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from randml_core.results import ResultsError, best, load, make_target, store_root
from randml_core.runner import make_plan, run

REPO = Path(__file__).resolve().parent.parent
SMALL = ["experiment=tiny", "dataset=heart", "model=svc", "models.svc.grid.gamma=[0.5,1.0]",
         "protocol.inner_splits=2"]  # gamma = 0.5 is made to fail (below): failed rows next to ok ones


def raw_rows(store: Path, name: str) -> pd.DataFrame:
    """Every stored row, read with pyarrow directly (no randml code)."""
    return pd.concat([pd.read_parquet(p) for p in sorted((store / name).glob("part-*.parquet"))],
                     ignore_index=True)


@pytest.fixture(scope="module")
def small_store(tmp_path_factory):
    """The SMALL config (3 outer folds x 2 inner, 4 SVC settings of which 2 fail) and the same
    config with another seed (rows of another config) in one store."""
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf
    from randml_core.config import build_spec

    def spec(*overrides):
        with initialize_config_dir(config_dir=str(REPO / "conf"), version_base="1.3"):
            cfg = compose(config_name="config", overrides=list(overrides))
        return build_spec(OmegaConf.to_container(cfg, resolve=True))

    from sklearn.svm import SVC
    real_fit = SVC.fit

    def fit(self, X, y, sample_weight=None):  # one kernel width fails (NaN widths are refused by the config checks)
        if self.gamma == 0.5:
            raise np.linalg.LinAlgError("injected: singular system")
        return real_fit(self, X, y, sample_weight=sample_weight)
    store = tmp_path_factory.mktemp("store")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(SVC, "fit", fit)
        s1 = run(spec(*SMALL), store, n_jobs=1, progress=False)
        s2 = run(spec(*SMALL, "protocol.seed=1"), store, n_jobs=1, progress=False)
    assert s1.computed == s2.computed == 3 * 3 * 4 and s1.failed == s2.failed == 3 * 3 * 2
    return store, make_plan(spec(*SMALL))


def test_load_defaults_are_outer_ok_rows_of_the_current_config(small_store):
    store, plan = small_store
    raw = raw_rows(store, "tiny")
    assert len(raw) == 72  # 2 seeds x 3 outer folds x (1 + 2 inner) x 4 settings
    keys = {c.key for _, c in plan.cells()}
    want = raw[raw["key"].isin(keys) & (raw["inner_fold"] == -1) & (raw["status"] == "ok")]
    df = load("tiny", store_dir=store, overrides=SMALL[1:])
    assert len(df) == 6 and set(df["key"]) == set(want["key"])  # 3 folds x 2 settings with gamma = 1
    assert (df["inner_fold"] == -1).all() and (df["status"] == "ok").all() and (df["p_gamma"] == 1.0).all()
    # each argument adds back exactly its rows
    assert len(load("tiny", store_dir=store, overrides=SMALL[1:], include_failed=True)) == 12
    inner = load("tiny", store_dir=store, overrides=SMALL[1:], include_inner=True)
    assert len(inner) == 18 and (inner["inner_fold"] >= 0).sum() == 12
    everything = load("tiny", store_dir=store, include_inner=True, include_failed=True, all_configs=True)
    assert set(everything["key"]) == set(raw["key"])
    # a filter on status / inner_fold replaces that default
    failed = load("tiny", store_dir=store, overrides=SMALL[1:], status="failed")
    assert len(failed) == 6 and (failed["p_gamma"] == 0.5).all()


def test_load_reads_the_clis_default_store(small_store, tmp_path, monkeypatch):
    """The CLI's rule (randml_core.paths): $RANDML_STORE, else ./results/store of the working directory."""
    store, _ = small_store
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RANDML_STORE", raising=False)
    assert store_root() == tmp_path / "results" / "store"
    monkeypatch.setenv("RANDML_STORE", str(store))
    assert store_root() == store
    assert len(load("tiny", overrides=SMALL[1:])) == 6


def test_errors_name_the_problem_and_the_fix(small_store, tmp_path):
    store, _ = small_store
    with pytest.raises(ResultsError, match=r"unknown experiment 'tinyy'; did you mean 'tiny'\? known experiments.*"
                                           r"leaderboard_budget.*tiny"):
        load("tinyy", store_dir=store)
    empty = tmp_path / "nothing"
    with pytest.raises(ResultsError, match=re.escape(str((empty / "leaderboard_budget").resolve())) +
                       r".*randml run experiment=leaderboard_budget.*make leaderboard-full"):
        load("leaderboard_budget", store_dir=empty)
    with pytest.raises(ResultsError, match=re.escape(str((empty / "tiny").resolve())) +
                       r".*Fill it with `randml run experiment=tiny store_dir=[^`]*`, or point") as no_target:
        load("tiny", store_dir=empty)
    assert "make" not in str(no_target.value)  # no make target runs tiny: none is offered
    # rows exist, but only of other configs (SVC rows only: none of kNN)
    with pytest.raises(ResultsError, match=r"none belongs to the current config of 'tiny'.*all_configs=True"):
        load("tiny", store_dir=store, overrides=["dataset=heart", "model=knn"])
    with pytest.raises(ResultsError, match=r"model='SVC-rbff' occurs in no stored row.*did you mean 'SVC-rbf'"):
        load("tiny", store_dir=store, overrides=SMALL[1:], model="SVC-rbff")
    with pytest.raises(KeyError, match=r"no column 'modle'.*did you mean 'model'"):
        load("tiny", store_dir=store, overrides=SMALL[1:], modle="SVC-rbf")
    with pytest.raises(TypeError, match=r"overrides=\['profile=quick'\]"):
        load("tiny", store_dir=store, overrides="profile=quick")
    # the recipe line names the experiment: leaderboard is leaderboard-full's, not the target running leaderboard_quick
    assert make_target("leaderboard") == "leaderboard-full" and make_target("leaderboard_quick") == "leaderboard"
    assert make_target("leaderboard_seed1") == "leaderboard-seeds" and make_target("tiny") is None


def test_load_inside_a_hydra_app_leaves_the_app_config_alone(small_store):
    from hydra import initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    store, _ = small_store
    with initialize_config_dir(config_dir=str(REPO / "conf"), version_base="1.3"):
        app = GlobalHydra.instance().hydra
        assert len(load("tiny", store_dir=store, overrides=SMALL[1:])) == 6
        assert GlobalHydra.instance().hydra is app
    assert not GlobalHydra.instance().is_initialized()


def test_best_refuses_frames_that_would_select_differently(small_store):
    store, _ = small_store
    df = load("tiny", store_dir=store, overrides=SMALL[1:])
    with pytest.raises(ValueError, match="left out 6 failed cells.*include_failed=True"):
        best(df)
    full = load("tiny", store_dir=store, overrides=SMALL[1:], include_failed=True)
    with pytest.raises(ValueError, match="include_inner=True"):
        best(full, rule="nested")
    cells = best(full)
    # the failed gamma = 0.5 settings are not eligible; of the two gamma = 1 settings the best mean wins
    ok = full[full["status"] == "ok"].groupby("params_json")["gmean"].mean()
    assert cells["mean"].item() == pytest.approx(ok.max()) and cells["params_json"].item() == ok.idxmax()
    assert cells["n_folds"].item() == 3 and cells["n_failed"].item() == 0


def test_best_minimises_error_metrics_by_hand():
    """Two settings x two folds: rmse means 1.5 and 2.5 (pick the first), gmean means 0.6 and 0.8."""
    rows = [("a", 0, 1.0, 0.5), ("a", 1, 2.0, 0.7), ("b", 0, 2.0, 0.9), ("b", 1, 3.0, 0.7)]
    frame = pd.DataFrame([{"dataset": "d", "model": "m", "params_json": p, "repeat": 0, "fold": f,
                           "inner_fold": -1, "status": "ok", "converged": True, "rmse": r, "gmean": g}
                          for p, f, r, g in rows])
    low = best(frame, metric="rmse")
    assert low["params_json"].item() == "a" and low["mean"].item() == 1.5
    assert low["std"].item() == pytest.approx(np.std([1.0, 2.0], ddof=1))
    high = best(frame)
    assert high["params_json"].item() == "b" and high["mean"].item() == pytest.approx(0.8)
    with pytest.raises(ValueError, match="rule='median' is unknown"):
        best(frame, rule="median")


def test_cli_and_load_share_randml_store(tmp_path, randml_cmd, cli_env):
    """$RANDML_STORE is the store of the CLI too (default store_dir), so `randml run` from any directory and
    load() meet; an explicit store_dir= still wins."""
    import subprocess
    store, elsewhere = tmp_path / "env-store", tmp_path / "cwd"
    elsewhere.mkdir()
    env = {**cli_env, "RANDML_STORE": str(store)}
    small = ["experiment=tiny", "dataset=heart", "model=knn", "models.knn.grid.n_neighbors=[1,5]"]
    res = subprocess.run([*randml_cmd, "run", *small, "progress=false", f"hydra.run.dir={tmp_path}/logs"],
                         cwd=elsewhere, env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    assert (store / "tiny").is_dir() and not (elsewhere / "results" / "store").exists()
    frame = load("tiny", store_dir=store, overrides=small[1:])
    assert len(frame) == 6 and set(frame["model"]) == {"kNN"}  # 3 folds x 2 settings
    other = tmp_path / "explicit"
    res = subprocess.run([*randml_cmd, "run", *small, "progress=false", f"store_dir={other}",
                          f"hydra.run.dir={tmp_path}/logs"], cwd=elsewhere, env=env, capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0 and (other / "tiny").is_dir(), res.stderr[-2000:]


def test_load_shows_each_warning_once_per_process(small_store, monkeypatch):
    """A notebook calling load() repeatedly sees each warning once (a dataset's quality warning or any
    other), and a new one when it appears."""
    import warnings

    import randml_core.results as results
    from randml_core.data.checks import DataQualityWarning
    store, _ = small_store
    original = results.current_rows
    said = {"msg": "dataset 'heart': a test warning"}

    def noisy(spec, root, **kw):
        warnings.warn(said["msg"], DataQualityWarning)
        warnings.warn("something else", UserWarning)
        return original(spec, root, **kw)
    monkeypatch.setattr(results, "current_rows", noisy)
    monkeypatch.setattr(results, "_SHOWN_WARNINGS", set())

    def warned():
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            assert len(load("tiny", store_dir=store, overrides=SMALL[1:])) == 6
        return [(w.category, str(w.message)) for w in rec]
    first = warned()
    assert (DataQualityWarning, said["msg"]) in first and (UserWarning, "something else") in first
    assert warned() == []  # neither is repeated
    said["msg"] = "dataset 'heart': another"
    assert warned() == [(DataQualityWarning, "dataset 'heart': another")]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_completeness_counts_equal_a_plain_python_count(seed):
    """completeness() (Arrow lookups) against the rule in plain Python: per planned key its last stored row decides;
    stored = any status, failed = neither ok nor skipped, unscored = stored keys lacking a scorer; rows of other
    keys, duplicate planned keys and a None status included."""
    from randml_core.results import completeness
    rng = np.random.default_rng(seed)
    pool = [f"k{i:05d}" for i in range(3000)]
    planned = pd.DataFrame({"key": rng.choice(pool[:2000], 2500)})  # duplicates among the planned keys
    stored = pd.DataFrame({"key": rng.choice(pool, 4000),  # other keys and keys stored twice
                           "status": rng.choice(np.array(["ok", "skipped", "failed", None], dtype=object), 4000)})
    unscored = set(rng.choice(pool, 300))
    last = dict(zip(stored["key"], stored["status"]))
    keys = dict.fromkeys(planned["key"])
    got = [last[k] for k in keys if k in last]
    c = completeness(planned, stored, ("x",), unscored)
    assert (c.n_planned, c.n_stored, c.n_failed, c.n_unscored) == (
        len(keys), len(got), sum(s not in ("ok", "skipped") for s in got), sum(k in unscored for k in keys))
    assert c.unavailable == ("x",) and not c.complete
    empty = completeness(planned, stored.iloc[:0])
    assert (empty.n_stored, empty.n_failed, empty.n_missing) == (0, 0, len(keys))


def test_planned_shape_hand_worked():
    """planned_shape: outer folds per dataset (distinct repeat x fold) and, per (dataset, model), [outer, inner]
    planned cells, counted by hand on a small plan; a dataset with inner cells only has no outer folds."""
    from randml_core.results import planned_shape
    rows = [("a", "m", 0, 0, -1), ("a", "m", 0, 0, 0), ("a", "m", 0, 0, 1), ("a", "m", 0, 1, -1), ("a", "n", 0, 1, -1),
            ("a", "n", 1, 0, -1), ("b", "m", 0, 0, 0), ("b", "m", 0, 0, 1)]
    planned = pd.DataFrame(rows, columns=["dataset", "model", "repeat", "fold", "inner_fold"])
    folds, cells = planned_shape(planned)
    assert folds == {"a": 3}  # (0, 0), (0, 1), (1, 0)
    assert cells == {"a": {"m": [2, 2], "n": [2, 0]}, "b": {"m": [0, 2]}}


def test_load_defaults_name_the_entries_skipped_in_every_cell():
    """load()'s default rows (outer folds, status ok) and the (dataset, model) entries whose every stored cell was
    skipped by rule, which best() reports as 'not run' (hand-worked)."""
    import pandas as pd

    from randml_core.results import _default_rows
    frame = pd.DataFrame({"dataset": ["a", "a", "a", "a", "b", "b", "b"],
                          "model": ["M", "M", "N", "N", "M", "M", "N"],
                          "inner_fold": [-1, -1, -1, 0, -1, -1, -1],
                          "status": ["skipped", "skipped", "ok", "skipped", "skipped", "failed", "skipped"]})
    out = _default_rows(frame, {}, include_inner=False, include_failed=False)
    assert out[["dataset", "model"]].values.tolist() == [["a", "N"]]
    # a/M and b/N: every outer cell skipped; a/N has an ok cell (its inner skipped one is not an outer cell);
    # b/M has a failed one
    assert out.attrs["skipped_entries"] == [["a", "M"], ["b", "N"]]
    assert out.attrs["n_rows_before_defaults"] == 7 and out.attrs["n_failed_dropped"] == 1
