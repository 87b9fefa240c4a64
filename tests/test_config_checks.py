"""Every config value is checked before any work: the message names the key, the bad value and the fix.

The cases are the ones a user reported (LS-SVM C=-1 and EEKM gamma=-1 were stored as ok; n_hidden=2.5
was fitted as 2 under another key; the others failed only after work started, or not at all), here on the engine's
tiny experiment (kNN, SVC-rbf, LogReg-liblinear); a benchmark's models have their cases in its own tests."""
import subprocess

import pytest

from randml_core.config import ConfigError
from randml_core.models import EEM, LSSVM
from randml_core.params import ParamError, check_params

BAD = [
    ("models.svc.grid.C=[-1.0]", "models.svc.grid.C=-1.0", "range"),
    ("models.svc.grid.gamma=[-1.0]", "models.svc.grid.gamma=-1.0", "range"),
    ("models.knn.grid.n_neighbors=[2.5]", "models.knn.grid.n_neighbors=2.5", "int"),
    ("models.knn.grid.n_neighbors=[abc]", "models.knn.grid.n_neighbors='abc'", "int"),
    ("+models.svc.variants.SVC-rbf.kernel=bogus", "models.svc.variants.SVC-rbf.kernel='bogus'", "linear"),
    # the estimator node's own arguments, as a grid's values (they were stored as 24 failed cells, not refused)
    ("models.svc.estimator.kernel=bogus", "models.svc.estimator.kernel='bogus'", "linear"),
    ("+models.knn.estimator.n_neighbors=2.5", "models.knn.estimator.n_neighbors=2.5", "int"),
    ("+experiment.svm_max_iter=abc", "experiment.svm_max_iter='abc'", "integer"),  # tiny sets none: added
    ("+experiment.svm_max_iter=0", "experiment.svm_max_iter=0", "positive"),
    ("n_jobs=0", "n_jobs=0", "-1"),
    ("protocol.inner_splits=1", "protocol.inner_splits=1", ">= 2"),
    ("retry_failed=maybe", "retry_failed='maybe'", "true or false"),
    ("progress=2", "progress=2", "true or false"),
    ("+experiment.preprocessing=minmx", "experiment.preprocessing='minmx'", "did you mean 'minmax'"),
    ("+protocol.test_size=1.5", "protocol.test_size=1.5", "between 0 and 1"),
    ("experiment.datasets=[heart,heart]", "'heart' more than once", "once"),
    ("models.svc.grid.C=[1.0,1.0]", "lists a value twice", "twice"),
]


@pytest.mark.parametrize("override,names,hint", BAD, ids=[b[0] for b in BAD])
def test_bad_value_is_refused_with_key_and_hint(compose, override, names, hint):
    with pytest.raises(ConfigError) as ei:
        compose("experiment=tiny", override)
    msg = str(ei.value)
    assert names in msg and hint in msg, msg


def test_valid_values_pass_and_integral_floats_are_not_truncated(compose):
    spec = compose("experiment=tiny", "models.knn.grid.n_neighbors=[10,30]", "n_jobs=-1")
    assert {s["n_neighbors"] for v in spec.variants if v.name == "kNN" for s in v.settings()} == {10, 30}


def test_check_params_uses_declared_constraints_then_default_types():
    with pytest.raises(ParamError, match=r"grid\.C=0: .*LSSVM.*range \(0.0, inf\)"):
        check_params(LSSVM, {"C": 0}, "grid.")
    check_params(LSSVM, {"C": 1e10, "gamma": 1e-10}, "grid.")

    class Plain:  # an estimator that declares nothing: its defaults' types decide
        def __init__(self, depth=3, rate=0.1, name="x"):
            pass

    with pytest.raises(ParamError, match="truncated"):
        check_params(Plain, {"depth": 2.5}, "g.")
    with pytest.raises(ParamError, match="finite"):
        check_params(Plain, {"rate": float("nan")}, "g.")
    with pytest.raises(ParamError, match="number"):
        check_params(Plain, {"rate": True}, "g.")
    check_params(Plain, {"depth": 4, "rate": 1, "name": "y"}, "g.")


def test_estimators_refuse_the_same_values_in_fit():
    import numpy as np
    from sklearn.utils._param_validation import InvalidParameterError

    X, y = np.random.default_rng(0).random((20, 3)), np.r_[np.zeros(10), np.ones(10)]
    with pytest.raises(InvalidParameterError):
        LSSVM(C=-1.0).fit(X, y)
    with pytest.raises(InvalidParameterError):
        EEM(n_hidden=2.5).fit(X, y)


def test_cli_refuses_before_any_work(tmp_path, randml_cmd, cli_env):
    store = tmp_path / "store"
    res = subprocess.run([*randml_cmd, "run", "experiment=tiny", "models.svc.grid.C=[-1.0]",
                          f"store_dir={store}", f"hydra.run.dir={tmp_path}/logs"],
                         env=cli_env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 2 and "models.svc.grid.C=-1.0" in res.stderr, res.stderr
    assert not store.exists()  # nothing computed, nothing stored


UNKNOWN = [
    ("+experiment.bogus=1", "experiment.bogus is not a known experiment key"),
    ("+models.svc.bogus=1", "models.svc.bogus is not a model config key"),
    ("+models.svc.quick.n_neighbors=[3]", "models.svc.quick.n_neighbors replaces no axis"),
    ("+profile.grid_overrides.C=[1.0]", "profile.grid_overrides is not a profile key"),
    ("+experiment.cell_timeout=-5", "experiment.cell_timeout=-5 is invalid"),
    ("+experiment.snapshot=maybe", "experiment.snapshot='maybe'"),
]


@pytest.mark.parametrize("override,message", UNKNOWN, ids=[u[0] for u in UNKNOWN])
def test_unknown_keys_are_errors_not_silently_ignored(compose, override, message):
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("+", r"\+")):
        compose("experiment=tiny", override)


def test_quick_profile_applies_only_the_model_configs_own_quick_blocks(compose):
    paper, quick = compose("experiment=tiny"), compose("experiment=tiny", "profile=quick")
    grids = {v.name: v.grid for v in quick.variants}
    assert grids["SVC-rbf"] == {"gamma": [0.1], "C": [1.0]}  # conf/model/svc.yaml quick block
    assert grids["kNN"] == {"n_neighbors": [5]} and grids["LogReg-liblinear"] == {"C": [1.0]}
    assert {v.name: v.grid for v in paper.variants} == {  # tiny's own grids
        "kNN": {"n_neighbors": [1, 5, 15]}, "SVC-rbf": {"gamma": [0.1, 1.0], "C": [1.0, 100.0]},
        "LogReg-liblinear": {"C": [0.1, 1.0]}}


def _target_spec(compose, node: str, grid: str):
    return compose("experiment=tiny", "dataset=heart", f"+models.t.estimator={node}", f"+models.t.grid={grid}")


def test_target_estimators_and_pipelines_are_checked_by_their_constraints(compose):
    spec = _target_spec(compose, "{_target_: sklearn.tree.DecisionTreeClassifier}", "{max_depth: [null, 3]}")
    t = next(v for v in spec.variants if v.name == "t")
    assert t.family == "sklearn.tree.DecisionTreeClassifier" and t.grid == {"max_depth": [None, 3]}
    with pytest.raises(ConfigError, match=r"models.t.grid.max_depth=-3: .*DecisionTreeClassifier"):
        _target_spec(compose, "{_target_: sklearn.tree.DecisionTreeClassifier}", "{max_depth: [-3]}")
    pipe = ("{_target_: sklearn.pipeline.make_pipeline, _args_: [{_target_: sklearn.preprocessing.StandardScaler}, "
            "{_target_: sklearn.svm.SVC}]}")
    assert _target_spec(compose, pipe, "{svc__C: [1.0]}")
    with pytest.raises(ConfigError, match=r"models.t.grid.svc__C=-1.0: .*'C' parameter of SVC"):
        _target_spec(compose, pipe, "{svc__C: [-1.0]}")
    with pytest.raises(ConfigError, match=r"svc__Cc is not a parameter of sklearn.pipeline.make_pipeline; did you mean 'svc__C'"):
        _target_spec(compose, pipe, "{svc__Cc: [1.0]}")
    with pytest.raises(ConfigError, match="_target_='sklearn.nope.Model' cannot be found"):
        _target_spec(compose, "{_target_: sklearn.nope.Model}", "{}")
    # a misspelt class or module: the nearest existing name of the last module that imports
    with pytest.raises(ConfigError, match=r"did you mean 'sklearn.tree.DecisionTreeClassifier'\?"):
        _target_spec(compose, "{_target_: sklearn.tree.DecisionTreeClasifier}", "{}")
    with pytest.raises(ConfigError, match=r"did you mean 'sklearn.ensemble.RandomForestClassifier'\?"):
        _target_spec(compose, "{_target_: sklearn.ensmble.RandomForestClassifier}", "{}")


def test_target_hint_is_silent_when_the_path_exists_or_nothing_is_close():
    from randml_core.config import target_hint
    assert target_hint("sklearn.tree.DecisionTreeClassifier") == ""  # exists: the failure is elsewhere
    assert target_hint("sklearn.tree.Zzzzzzzzzzzz") == ""
    assert target_hint("nosuchpackage_xyz.Model") == ""
    assert target_hint("sklearn.svm.SVCC") == "did you mean 'sklearn.svm.SVC'? "


@pytest.mark.parametrize("override, hydra_says", [
    # an unknown group option: randml's one line before Hydra composes (issue 33), exit 2 as Hydra's errors
    ("experiment=no_such_experiment", "randml: unknown experiment 'no_such_experiment'; (`randml --help` lists them)"),
    ("dataset=hart", "randml: unknown dataset 'hart'; did you mean 'heart'? (`randml dataset list` lists them)"),
    ("grid.C=[1]", "Key 'grid' is not in struct"),                                         # key not in the config
    ("dataset=[", "no viable alternative"),                                                 # override syntax
])
def test_cli_config_hydra_cannot_compose_exits_2(tmp_path, randml_cmd, cli_env, override, hydra_says):
    """README's exit codes: 2 = a bad config, nothing run; Hydra's own composition errors included
    (Hydra exits 1 for them), with Hydra's message and ours."""
    store = tmp_path / "store"
    args = ["experiment=tiny", override] if not override.startswith("experiment=") else [override]
    res = subprocess.run([*randml_cmd, "run", *args, f"store_dir={store}", f"hydra.run.dir={tmp_path}/logs"],
                         env=cli_env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 2, res.stderr
    assert hydra_says in res.stderr
    assert ("the config could not be composed" in res.stderr) != hydra_says.startswith("randml: unknown")
    assert not store.exists()


def test_cli_prints_no_hydra_deprecation_warning(tmp_path, randml_cmd, cli_env):
    res = subprocess.run([*randml_cmd, "plan", "experiment=tiny", f"store_dir={tmp_path / 'store'}",
                          f"hydra.run.dir={tmp_path}/logs"], env=cli_env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "version_base" not in res.stderr and "MigrationWarning" not in res.stderr


def test_cli_shows_data_warnings_as_one_line(tmp_path, randml_cmd, cli_env):
    """randml's own warnings (here: duplicated rows in ionosphere) are one line naming the category, without
    the Python source location and line that warnings.showwarning adds."""
    res = subprocess.run([*randml_cmd, "plan", "experiment=tiny", "dataset=ionosphere",
                          f"store_dir={tmp_path / 'store'}", f"hydra.run.dir={tmp_path}/logs"],
                         env=cli_env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    lines = [l for l in res.stderr.splitlines() if "DataQualityWarning" in l]
    assert len(lines) == 1 and lines[0].startswith("randml: DataQualityWarning: dataset 'ionosphere': 1 of 351 rows")
    assert "loading.py" not in res.stderr and "validate_xy(" not in res.stderr


def test_engine_options_are_typed_with_their_defaults_and_cover_every_engine_key(compose):
    """ExperimentSpec.engine: every engine option of ENGINE_OPTIONS is a typed field (the spec's own keys and the
    families' svm_max_iter excepted), defaults as documented, and a composed experiment's values come through."""
    import dataclasses

    from randml_core.config import ENGINE_OPTIONS, EngineOptions
    fields = {f.name for f in dataclasses.fields(EngineOptions)}
    spec_keys = {"name", "paper", "datasets", "columns", "store", "svm_max_iter"}
    assert fields - {"report_metrics"} == set(ENGINE_OPTIONS) - spec_keys
    d = EngineOptions.of({})
    assert (d.preprocessing, d.duplicates, d.categorical, d.snapshot, d.metrics, d.report, d.search_seed) == (
        "minmax", "keep", "onehot", True, (), (), None)
    assert EngineOptions.of({"snapshot": False, "report": "a.b", "metrics": ["f1_macro"]}).report == ("a.b",)
    assert not EngineOptions.of({"snapshot": False}).snapshot
    spec = compose("experiment=leaderboard_quick", "+experiment.metrics=[f1_macro]", "+experiment.search_seed=3")
    assert spec.engine.metrics == ("f1_macro",) and spec.engine.search_seed == 3 and not spec.engine.snapshot
