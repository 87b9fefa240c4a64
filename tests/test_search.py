"""Search beyond grids (issue 32, randml_core/search.py): random, halving and optuna searches as ordinary cells."""
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from randml_core.config import ConfigError, _model_variants
from randml_core.protocol import derive_seed
from randml_core.results import compose_spec, load, trace
from randml_core.execution import RunOptions, _run_round
from randml_core.runner import VOLATILE_COLUMNS, make_plan, run
from randml_core.report.comparison import search_select as select
from randml_core.keys import canonical_params as canon
from randml_core.search import draw, halving_levels
from randml_core.store import Store

REPO = Path(__file__).resolve().parent.parent
LR = {"_target_": "sklearn.linear_model.LogisticRegression"}
BASE = ["dataset=heart", "model=svc", "protocol.inner_splits=2"]  # tiny: 3 outer x 2 inner folds
SEARCHES = {"random": "+models.svc.search={kind:random,n:3}",
            "halving": "+models.svc.search={kind:halving,eta:2}",
            "optuna": "+models.svc.search={kind:optuna,n:3}"}


def _spec(kind, *more):
    return compose_spec("tiny", [*BASE, *([SEARCHES[kind]] if kind else []), *more])


def _stored(spec, root) -> pd.DataFrame:
    frame = Store(root, spec.store).read()  # rows in the store's fixed order; columns sorted (parts differ in order)
    frame = frame.drop(columns=[c for c in VOLATILE_COLUMNS if c in frame.columns])
    return frame[sorted(frame.columns)]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Each kind run on the shipped heart set (tiny's SVC-rbf grid gamma [0.1, 1] x C [1, 100], nested 3 x 2 folds)
    into two stores."""
    pytest.importorskip("optuna")
    out = {}
    for kind in SEARCHES:
        for copy in ("a", "b"):
            root = tmp_path_factory.mktemp(f"{kind}_{copy}")
            summary = run(_spec(kind), str(root), n_jobs=1, progress=False)
            out[kind, copy] = (root, summary)
    return out


def _check(m, match):
    with pytest.raises(ConfigError, match=match):
        _model_variants("lr", {"estimator": dict(LR), **m}, "paper", None)


def test_bad_search_blocks_are_config_errors_naming_the_key_and_the_fix():
    _check({"search": {"kind": "bayes"}}, r"models\.lr\.search\.kind='bayes' is unknown.*random")
    _check({"search": {"kind": "random", "n": 3, "space": {"C": {"normal": [0, 1]}}}},
           r"search\.space\.C\.normal is not a distribution.*loguniform")
    _check({"search": {"kind": "random", "n": 3, "space": {"C": {"loguniform": [0.0, 1.0]}}}},
           r"search\.space\.C\.loguniform=.*0 < low < high")
    _check({"search": {"kind": "random", "n": 0, "space": {"C": {"uniform": [0.1, 1.0]}}}}, r"search\.n=0 is invalid")
    _check({"grid": {"C": [0.1, 1.0]}, "search": {"kind": "random", "n": 2, "space": {"C": {"uniform": [0.1, 1.0]}}}},
           r"grid\.C and models\.lr\.search\.space\.C both set C: keep one")
    _check({"search": {"kind": "random", "space": {"C": {"uniform": [0.1, 1.0]}}}}, r"search\.n is missing")
    _check({"search": {"kind": "random", "n": 2, "space": {"Cx": {"uniform": [0.1, 1.0]}}}},
           r"search\.space\.Cx is not a parameter.*did you mean 'C'")
    _check({"grid": {"C": [0.1, 1.0, 10.0]}, "budget": {"settings": 2}}, r"grid has 3 settings, more than budget")
    _check({"search": {"kind": "random", "n": 2, "space": {"C": {"uniform": [0.1, 1.0]}}}, "budget": {"cpu_seconds": 9}},
           r"budget\.cpu_seconds needs a sequential search")
    _check({"search": {"kind": "halving", "eta": 1}, "grid": {"C": [0.1, 1.0]}}, r"search\.eta=1 is invalid")
    _check({"search": {"kind": "random", "n": 5, "space": {"C": {"uniform": [0.1, 1.0]}}}, "budget": {"settings": 4}},
           r"search\.n=5 exceeds models\.lr\.budget\.settings=4")
    _check({"search": {"kind": "halving", "etaa": 5}}, r"search\.etaa is not a search key.*did you mean 'eta'")
    _check({"search": {"kind": "random", "n": 2, "space": {"C": {"uniform": [-2.0, 1.0]}}}},
           r"C")  # the estimator's own constraint (C > 0) judges the range's ends


def test_random_draws_equal_numpy_from_the_documented_seed_rule():
    space = {"C": {"loguniform": [0.01, 100.0]}, "l1_ratio": {"uniform": [0.0, 1.0]}, "max_iter": {"int": [50, 60]},
             "solver": {"choice": ["saga", "lbfgs"]}}
    got = draw({"kind": "random", "n": 5, "space": space}, "LR", seed=7)
    rng = np.random.default_rng(derive_seed(7, "search", "LR"))
    want = []
    for _ in range(5):  # parameters in sorted name order
        c = float(np.exp(rng.uniform(np.log(0.01), np.log(100.0))))
        l1 = float(rng.uniform(0.0, 1.0))
        it = int(rng.integers(50, 61))
        solver = ["saga", "lbfgs"][int(rng.integers(2))]
        want.append({"C": c, "l1_ratio": l1, "max_iter": it, "solver": solver})
    assert got == want
    # a grid (every axis a choice): distinct indices into the product in sorted-key order, without replacement
    grid = {"a": {"choice": [1, 2, 3]}, "b": {"choice": ["x", "y"]}}
    got = draw({"kind": "random", "n": 4, "space": grid}, "M", seed=0)
    idx = np.random.default_rng(derive_seed(0, "search", "M")).choice(6, size=4, replace=False)
    product = [{"a": a, "b": b} for a in [1, 2, 3] for b in ["x", "y"]]
    assert got == [product[i] for i in idx]
    assert draw({"kind": "random", "n": 99, "space": grid}, "M", seed=0).__len__() == 6  # n capped at the grid


def test_halving_levels_follow_scikit_learns_resource_schedule():
    assert halving_levels(2, 2, 1) == [1, 2]
    assert halving_levels(10, 3, 1) == [1, 3, 9, 10]
    assert halving_levels(10, 2, 3) == [3, 6, 10]


def test_search_cells_have_the_grid_keys_and_are_a_subset_of_the_full_grid():
    grid = make_plan(_spec(None), splits=False)
    keys = {c.key for _, c in grid.cells()}
    for kind in ("random", "halving"):
        plan = make_plan(_spec(kind), splits=False)  # no store: the first round
        found = {c.key: c.params_json for _, c in plan.cells()}
        assert found and set(found) <= keys
    # a random search over the whole grid draws every setting: on the inner folds its cells ARE the grid's
    plan = make_plan(_spec("random", "models.svc.search.n=4"), splits=False)
    inner = {c.key for t, c in grid.cells() if t.split.inner >= 0}
    assert {c.key for _, c in plan.cells()} == inner


def test_three_kinds_run_from_config_resume_and_give_bit_identical_frames(runs):
    for kind in SEARCHES:
        (root_a, first), (root_b, _) = runs[kind, "a"], runs[kind, "b"]
        spec = _spec(kind)
        planned = {c.key for _, c in make_plan(spec, splits=False, store_root=str(root_a)).cells()}
        stored = _stored(spec, root_a)
        assert first.computed == len(planned) == len(stored) and set(stored["key"]) == planned
        assert (stored["status"] == "ok").all()
        again = run(spec, str(root_a), n_jobs=1, progress=False)
        assert (again.computed, again.cached) == (0, len(planned))
        pd.testing.assert_frame_equal(stored, _stored(spec, root_b))
        # nested: one outer cell per outer fold, at the search's pick over that fold's inner folds
        outer = stored[stored["inner_fold"] < 0]
        assert len(outer) == 3 and sorted(outer["fold"]) == [0, 1, 2]


def test_halving_survivors_are_the_hand_computed_top_half_of_the_stored_rung_scores(runs):
    rows = _stored(_spec("halving"), runs["halving", "a"][0])
    inner = rows[rows["inner_fold"] >= 0]
    for fold, g in inner.groupby("fold"):
        rung0 = g[g["inner_fold"] == 0].sort_values("params_json")
        assert len(rung0) == 4  # tiny's 2 x 2 SVC grid, every setting on the first inner fold
        ranked = sorted(zip(rung0["gmean"], rung0["params_json"]), key=lambda t: (-t[0], t[1]))
        survivors = {pj for _, pj in ranked[:2]}  # ceil(4 / eta=2)
        assert set(g.loc[g["inner_fold"] == 1, "params_json"]) == survivors
        means = g[g["params_json"].isin(survivors)].groupby("params_json")["gmean"].mean()
        pick = sorted(means.items(), key=lambda t: (-t[1], t[0]))[0][0]
        assert rows[(rows["inner_fold"] < 0) & (rows["fold"] == fold)]["params_json"].tolist() == [pick]


def test_selection_and_trace_of_a_halving_run(runs):
    root = runs["halving", "a"][0]
    frame = load("tiny", store_dir=root, overrides=[*BASE, SEARCHES["halving"]], include_inner=True)
    assert frame.attrs["complete"] is True
    pick = select(frame, "gmean", nested=True)
    outer = frame[frame["inner_fold"] < 0]
    assert pick["mean"].item() == pytest.approx(outer["gmean"].mean())
    tr = trace("tiny", store_dir=root, overrides=[*BASE, SEARCHES["halving"]])
    assert set(tr["rung"]) == {0, 1} and len(tr) == 3 * (4 + 2)
    assert tr.groupby("fold")["cells_so_far"].max().tolist() == [6, 6, 6]  # 4 on fold 0, 2 more on fold 1
    first = tr[tr["fold"] == 0]
    assert first["best_so_far"].tolist() == list(np.maximum.accumulate(first["score"].to_numpy()))


def test_a_run_interrupted_between_rungs_resumes_computing_only_the_rest(tmp_path, runs):
    spec = _spec("halving")
    one = _run_round(spec, Store(tmp_path, spec.store), RunOptions(progress=False), follow_searches=False)  # rung 0, "killed"
    assert one.computed == 3 * 4  # 4 settings on the first inner fold of each outer fold
    rest = run(spec, str(tmp_path), n_jobs=1, progress=False)
    assert (rest.computed, rest.cached) == (3 * (2 + 1), 12)  # rung 1 (2 settings) and the outer cell
    pd.testing.assert_frame_equal(_stored(spec, tmp_path), _stored(spec, runs["halving", "a"][0]))


def test_optuna_trials_replay_to_the_same_settings(runs):
    over = [*BASE, SEARCHES["optuna"]]
    a = trace("tiny", store_dir=runs["optuna", "a"][0], overrides=over)
    b = trace("tiny", store_dir=runs["optuna", "b"][0], overrides=over)
    assert len(a) == 3 * 3 and a["params_json"].tolist() == b["params_json"].tolist()


def test_optuna_studies_kept_between_rounds_equal_the_replayed_ones(runs, tmp_path, monkeypatch):
    """A round tells the scope's kept study its new trial and asks the next (search._STUDIES) instead of replaying
    every earlier trial into a fresh study: the same trials and stored rows as with a replay every round."""
    pytest.importorskip("optuna")
    from randml_core import search
    monkeypatch.setattr(search, "_tell", lambda *a: search._STUDIES.clear())  # no study kept: a replay per round
    search._STUDIES.clear()
    run(_spec("optuna", "models.svc.search.n=5"), str(tmp_path / "replayed"), n_jobs=1, progress=False)
    monkeypatch.undo()
    search._STUDIES.clear()
    import optuna
    asks, real_ask = [], optuna.study.Study.ask
    monkeypatch.setattr(optuna.study.Study, "ask", lambda self, *a, **k: asks.append(1) or real_ask(self, *a, **k))
    run(_spec("optuna", "models.svc.search.n=5"), str(tmp_path / "kept"), n_jobs=1, progress=False)
    assert search._STUDIES  # the kept path was taken
    spec = _spec("optuna", "models.svc.search.n=5")
    trials = search.n_settings(next(v.search for v in spec.variants if v.search))  # 4: a 2 x 2 space
    assert trials == 4 and len(asks) == trials * len(search._STUDIES)  # each trial asked once, not once per round
    pd.testing.assert_frame_equal(_stored(spec, tmp_path / "replayed"), _stored(spec, tmp_path / "kept"))
    assert _stored(spec, tmp_path / "kept")["params_json"].nunique() > 3  # more trials than the first round's


USER_EXPERIMENT = """\
# @package _global_
defaults:
  - override /protocol: cv10
protocol: {n_splits: 3, inner_splits: 2}
models:
  lr_random:
    estimator: {_target_: sklearn.linear_model.LogisticRegression, max_iter: 500}
    variants: {LR-random: {}}
    search: {kind: random, n: 3, space: {C: {loguniform: [0.001, 100.0]}}}
  lr_halving:
    estimator: {_target_: sklearn.linear_model.LogisticRegression, max_iter: 501}
    variants: {LR-halving: {}}
    grid: {C: [0.001, 0.1, 10.0, 1000.0]}
    search: {kind: halving, eta: 2}
  lr_optuna:
    estimator: {_target_: sklearn.linear_model.LogisticRegression, max_iter: 502}
    variants: {LR-optuna: {}}
    search: {kind: optuna, n: 3, space: {C: {loguniform: [0.001, 100.0]}}}
    budget: {settings: 3}
experiment:
  name: mysearch
  datasets: [heart]
"""


def test_a_users_config_only_experiment_runs_every_kind_from_the_cli(tmp_path):
    pytest.importorskip("optuna")
    conf = tmp_path / "conf"
    (conf / "experiment").mkdir(parents=True)
    (conf / "experiment" / "mysearch.yaml").write_text(USER_EXPERIMENT)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    common = ["--config-dir", str(conf), "experiment=mysearch", f"store_dir={tmp_path / 'store'}",
              f"results_dir={tmp_path / 'results'}", "n_jobs=1", "progress=false"]

    def randml(cmd):
        return subprocess.run([sys.executable, "-m", "randml_core", cmd, *common, f"hydra.run.dir={tmp_path}/logs"],
                              cwd=tmp_path, env=env, capture_output=True, text=True)
    done = randml("run")
    assert done.returncode == 0, done.stderr[-2000:]
    # per outer fold (3): random 3 x 2 inner + 1 outer, halving 4 + 2 + 1, optuna 3 x 2 + 1
    assert "computed 63 cells" in done.stderr
    assert "computed 0 cells" in randml("run").stderr
    plan = randml("plan").stdout
    assert "LR-optuna (sklearn.linear_model.LogisticRegression): optuna search, n=3" in plan
    assert "budget settings=3" in plan and "predicted" in plan
    report = randml("report")
    assert report.returncode == 0, report.stderr[-2000:]
    # every model is searched inside the inner folds: one table (the other rule would show the same picks)
    assert not list((tmp_path / "results").rglob("mysearch_nested.md"))
    table = next((tmp_path / "results").rglob("mysearch.md")).read_text()
    assert "Search: LR-halving: halving search, n=4 of 4 grid settings" in table
    assert "Selection: each model's search inside the 2 inner folds of each outer fold (nested CV)" in table
    assert "missing" not in table
    assert next((tmp_path / "results").rglob("mysearch_search.png")).stat().st_size > 0  # best so far vs budget
    frame = load("mysearch", store_dir=tmp_path / "store", config_dir=conf, include_inner=True)
    assert len(frame) == 63 and frame.attrs["complete"] is True
    tr = trace("mysearch", store_dir=tmp_path / "store", config_dir=conf)
    assert set(tr["model"]) == {"LR-random", "LR-halving", "LR-optuna"}
    assert not math.isnan(tr["best_so_far"].max())


def test_shard_is_refused_with_an_adaptive_search_before_any_work(tmp_path):
    """A shard would plan the next rung from the scores it has, not from all of them: refused, nothing stored."""
    from randml_core.config import ConfigError
    from randml_core.runner import run
    for kind in ("halving", "optuna"):
        with pytest.raises(ConfigError, match="shard=0/2 with an adaptive search"):
            run(_spec(kind), str(tmp_path / "store"), shard="0/2", progress=False)
    assert not (tmp_path / "store").exists()


def test_plan_line_compares_a_search_with_the_grid_of_its_own_space():
    """leaderboard_budget: WELM's grid is null and its space a 6-value choice. 10 outer folds, 2 inner, 26 sets:
    the search computes at most (6 x 2 + 1) x 10 x 26 = 3380 cells; the full grid of its space would be
    6 x 10 x (1 + 2) x 26 = 4680 (the line once compared it with the 1-setting null grid: 780)."""
    from randml_core.search import plan_line
    spec = compose_spec("leaderboard_budget", [])
    welm = next(v for v in spec.variants if v.name == "WELM-rbf")
    line = plan_line(spec, welm, None, len(spec.datasets))
    assert "at most 3380 cells (72% of the full grid's 4680)" in line, line


def test_a_search_seed_draws_other_settings_on_the_same_folds(tmp_path):
    from randml_core.search import search_seed
    default, zero = _spec("random"), _spec("random", "+experiment.search_seed=0")
    keys = lambda spec, **kw: {c.key for _, c in make_plan(spec, splits=False, **kw).cells()}  # noqa: E731
    assert search_seed(default) == default.protocol.seed == 0 and keys(default) == keys(zero)  # keys unchanged
    variant = default.variants[0]
    seed = next(s for s in range(1, 50) if draw(variant.search, variant.name, s) != draw(variant.search, variant.name, 0))
    other = _spec("random", f"+experiment.search_seed={seed}")
    plan0, plan1 = make_plan(default, splits=False), make_plan(other, splits=False)
    # the same folds: every task of either plan has the same split (repeat, fold, inner fold, seeds)
    splits = lambda plan: {(t.dataset, t.split) for t in plan.tasks}  # noqa: E731
    assert splits(plan1) == splits(plan0) and len(splits(plan0)) == 3 * (1 + 2)
    drawn = {canon(p) for p in draw(variant.search, variant.name, seed)}
    inner1 = {c.params_json for t, c in plan1.cells() if t.split.inner >= 0}
    assert inner1 == drawn != {c.params_json for t, c in plan0.cells() if t.split.inner >= 0}
    # both seeds in one store: the second run computes only the cells the first did not; each load is its own plan
    first = run(default, str(tmp_path), n_jobs=1, progress=False)
    second = run(other, str(tmp_path), n_jobs=1, progress=False)
    k0, k1 = keys(default, store_root=str(tmp_path)), keys(other, store_root=str(tmp_path))
    assert (first.computed, second.computed, second.cached) == (len(k0), len(k1 - k0), len(k1 & k0)) and k1 & k0
    got = load("tiny", store_dir=tmp_path, overrides=[*BASE, SEARCHES["random"], f"+experiment.search_seed={seed}"],
               include_inner=True)
    assert set(got["key"]) == k1
    with pytest.raises(ConfigError, match=r"experiment.search_seed=-1 is invalid"):
        _spec("random", "+experiment.search_seed=-1")


def test_search_seed_spread_by_hand():
    from randml_core.report.search_seeds import spread
    a = pd.DataFrame({"A": [0.9, 0.8, 0.7], "B": [0.8, 0.9, 0.6]}, index=["d1", "d2", "d3"])
    b = pd.DataFrame({"A": [0.9, 0.7, 0.5], "B": [0.85, 0.9, 0.6]}, index=["d1", "d2", "d3"])
    table, taus = spread({0: a, 1: b}, higher=True)
    t = table.set_index("model")
    # seed 0: A ranks 1, 2, 1 -> 4/3; seed 1: A ranks 1, 2, 2 -> 5/3
    assert t.loc["A", "mean_seed0"] == pytest.approx(0.8) and t.loc["A", "mean_seed1"] == pytest.approx(0.7)
    assert t.loc["A", "rank_seed0"] == pytest.approx(4 / 3) and t.loc["A", "rank_seed1"] == pytest.approx(5 / 3)
    assert t.loc["A", "mean_spread"] == pytest.approx(0.1) and t.loc["B", "mean_spread"] == pytest.approx(0.05 / 3)
    assert t.loc["A", "largest_dataset_diff"] == pytest.approx(0.2) and t.loc["B", "largest_dataset_diff"] == pytest.approx(0.05)
    assert taus == ["seed 0 vs seed 1: Kendall's tau of the average ranks -1.000"]  # A ahead under seed 0, B under 1


def test_search_seed_report_compares_the_picks_of_two_seed_runs(tmp_path, monkeypatch):
    from randml_core.report import build_report
    from randml_core.report import search_seeds
    seed = 3
    base = [*BASE, SEARCHES["random"], "+experiment.report=[randml_core.report.search_seeds]"]
    spec0 = compose_spec("tiny", [*base, "+experiment.search_seed_runs=[other_seed]"])
    spec1 = compose_spec("tiny", [*base, f"+experiment.search_seed={seed}"])
    run(spec0, str(tmp_path / "s"), n_jobs=1, progress=False)
    monkeypatch.setattr(search_seeds, "seed_run", lambda name, ctx: (spec1, None, "not run (test)"))
    build_report(spec0, str(tmp_path / "s"), str(tmp_path / "r"))
    md = next((tmp_path / "r").rglob("tiny_search_seeds.md")).read_text()
    assert "`other_seed` (search seed 3): not run (test)" in md and "Fewer than two complete seed runs" in md
    run(spec1, str(tmp_path / "s"), n_jobs=1, progress=False)
    other = load("tiny", store_dir=tmp_path / "s", overrides=[*base, f"+experiment.search_seed={seed}"],
                 include_inner=True)
    monkeypatch.setattr(search_seeds, "seed_run", lambda name, ctx: (spec1, other, ""))
    build_report(spec0, str(tmp_path / "s"), str(tmp_path / "r"))
    got = pd.read_csv(next((tmp_path / "r").rglob("tiny_search_seeds.csv")))
    # independently: the pick = the outer mean at the setting with the best inner mean, per seed's own frame
    for s, frame in ((0, load("tiny", store_dir=tmp_path / "s", overrides=base, include_inner=True)), (seed, other)):
        inner = frame[frame.inner_fold >= 0].groupby(["fold", "params_json"])["gmean"].mean().reset_index()
        best = inner.sort_values(["gmean", "params_json"], ascending=[False, True]).groupby("fold").head(1)
        outer = frame[frame.inner_fold < 0].merge(best[["fold", "params_json"]], on=["fold", "params_json"])
        assert len(outer) == 3 and got[f"mean_seed{s}"].iloc[0] == pytest.approx(outer["gmean"].mean(), rel=1e-12)


@pytest.mark.parametrize("kind", ["halving", "optuna"])
def test_a_run_follows_its_searches_inside_a_round_with_the_cells_of_a_round_per_step(kind, tmp_path, monkeypatch, runs):
    """An adaptive search's next rung or trial is planned from the rows the round computed and computed in the same
    round (execution._Following): two rounds (the second reads the store, plans whole and finds nothing), the stored
    rows those of a round per step (the fixture's runs, and a run with the in-round step switched off)."""
    from randml_core import execution, search
    calls = []
    real = execution._run_round
    monkeypatch.setattr(execution, "_run_round", lambda *a, **k: calls.append(1) or real(*a, **k))
    search._STUDIES.clear()
    spec = _spec(kind)
    summary = run(spec, str(tmp_path / "followed"), n_jobs=1, progress=False)
    assert len(calls) == 2 and summary.computed == runs[kind, "a"][1].computed
    pd.testing.assert_frame_equal(_stored(spec, tmp_path / "followed"), _stored(spec, runs[kind, "a"][0]))
    calls.clear()
    search._STUDIES.clear()
    monkeypatch.setattr(execution._Following, "next", lambda self: [])  # a round per rung or trial, as before
    run(spec, str(tmp_path / "rounds"), n_jobs=1, progress=False)
    assert len(calls) > 2
    pd.testing.assert_frame_equal(_stored(spec, tmp_path / "rounds"), _stored(spec, tmp_path / "followed"))


def test_the_scores_a_round_keeps_equal_what_the_store_reads_back_and_the_plan_equals_make_plans(tmp_path, monkeypatch):
    """search.add_scores (the rows just computed) gives the values search.stored_scores reads from the parts; and
    planning.replan_searches (the searches alone, planned again) gives make_plan's cells, keys and order."""
    from randml_core import execution, planning, search
    kept = []
    real = execution._Following.next
    monkeypatch.setattr(execution._Following, "next", lambda self: kept.append(self) or real(self))
    spec = _spec("optuna", "models.svc.search.n=4")
    run(spec, str(tmp_path), n_jobs=1, progress=False)
    follow = kept[-1]
    stored = search.stored_scores(spec, str(tmp_path))
    assert set(stored) == set(follow.scores) and all(len(stored[m]) > 12 for m in stored)
    for m in stored:
        assert stored[m].keys() == follow.scores[m].keys()
        for k, (st, value, cpu) in stored[m].items():
            assert follow.scores[m][k][:2] == (st, value) and follow.scores[m][k][2] == pytest.approx(cpu, abs=1e-12)
    every = compose_spec("tiny", [*(o for o in BASE if o != "model=svc"), SEARCHES["optuna"],
                                  "models.svc.search.n=4"])  # the searched SVC beside tiny's grid models
    assert {v.name: bool(v.search) for v in every.variants} == {"kNN": False, "SVC-rbf": True, "LogReg-liblinear": False}
    for scores in ({m: dict(list(v.items())[:7]) for m, v in stored.items()}, stored):  # mid-search, and at its end
        whole = make_plan(every, splits=False, scores=scores)
        again = planning.replan_searches(make_plan(every, splits=False, scores={}), scores)
        assert [(t.dataset, t.split.repeat, t.split.fold, t.split.inner, [(c.key, c.params_json) for c in t.cells])
                for t in again.tasks] == \
               [(t.dataset, t.split.repeat, t.split.fold, t.split.inner, [(c.key, c.params_json) for c in t.cells])
                for t in whole.tasks]
        assert again.search_trace == whole.search_trace


def test_the_seed_report_names_the_columns_no_seed_changes_and_the_committed_spreads_agree():
    """The headline leaderboard's columns whose search draws its whole choice space under every seed (EEM-rbf and
    WELM-rbf: 6 n_hidden values, RF-bal: 6 depths, n = 6) are named as unchanged by construction; in the committed
    seed comparison they are exactly the columns whose every dataset's pick is equal under every seed."""
    from randml_core.report.search_seeds import _same_under_every_seed
    spec = compose_spec("leaderboard", [])
    line, = _same_under_every_seed(spec, list(spec.columns))
    assert "EEM-rbf, RF-bal, WELM-rbf;" in line
    got = pd.read_csv(REPO / "results" / "tables" / "leaderboard_search_seeds.csv")
    assert sorted(got.loc[got["largest_dataset_diff"] == 0, "model"]) == ["EEM-rbf", "RF-bal", "WELM-rbf"]


def test_a_run_stopped_between_followed_trials_resumes_with_the_same_trials(tmp_path, monkeypatch, runs):
    """Ctrl-C while a round follows its search (here after its first step): the finished trials' rows are stored
    (the writer flushes on the way out), and the next run plans from them and ends with the uninterrupted run's rows."""
    from randml_core import execution, search
    real, steps = execution._Following.next, []

    def stop_at_the_second_step(self):
        if len(steps) == 1:
            steps.append(len(self.done) + len(self.rows))  # every cell computed so far (the store was empty)
            raise KeyboardInterrupt
        steps.append(1)
        return real(self)
    monkeypatch.setattr(execution._Following, "next", stop_at_the_second_step)
    search._STUDIES.clear()
    spec = _spec("optuna")
    with pytest.raises(KeyboardInterrupt):
        run(spec, str(tmp_path), n_jobs=1, progress=False)
    stored = len(Store(tmp_path, spec.store).read())
    assert stored == steps[-1] and 0 < stored < runs["optuna", "a"][1].computed  # all computed, none of the rest
    monkeypatch.undo()
    search._STUDIES.clear()
    rest = run(spec, str(tmp_path), n_jobs=1, progress=False)
    assert (rest.cached, rest.computed) == (stored, runs["optuna", "a"][1].computed - stored)
    pd.testing.assert_frame_equal(_stored(spec, tmp_path), _stored(spec, runs["optuna", "a"][0]))
