"""One common test module over every discovered plug-in (randml_core/plugins.py), no hand-kept list:

- every installed benchmark: declared under its own key, its members import, its statistics tables exist;
- every family a benchmark registers: its own evaluator gives the same predictions as the generic path
  (:func:`randml_core.family.evaluate_plain`: one plain fit per setting, same split, same seed) on the
  settings it declares (``Family.check``), or it declares that it has no shared work (``"plain"``) or
  predicts nothing (``"probe"``); a family without an evaluator of its own is the generic path;
- every shipped experiment config composes, validates and names only known models and datasets.
"""
from pathlib import Path

import numpy as np
import pytest

from randml_core import plugins
from randml_core.paths import shipped_config_dirs
from randml_core.data import load_dataset
from randml_core.family import FAMILIES, Split, benchmark_family, evaluate_plain
from randml_core.preprocess import preprocess

from conftest import REPO

FAMILY_NAMES = FAMILIES.all()
BENCHMARK_FAMILIES = [n for n in FAMILY_NAMES if benchmark_family(n) is not None]


def test_the_five_papers_are_discovered_as_benchmarks():
    """The engine names no paper: the papers are found through their entry points, like any benchmark."""
    assert [name for name, _ in plugins.packages()][:5] == ["eem", "elmboost", "memd", "pri", "slm"]
    assert [b.key for b in plugins.benchmarks()] == ["eem", "pri", "slm", "memd", "elmboost"]
    assert not plugins.unavailable()  # the dev install has every paper's packages
    assert len(BENCHMARK_FAMILIES) >= 20


@pytest.mark.parametrize("bench", plugins.benchmarks(), ids=lambda b: b.key)
def test_every_benchmark_describes_itself_under_its_own_name(bench):
    name = dict((pkg, n) for n, pkg in plugins.packages())[bench.package]
    assert bench.key == name and bench.short and bench.title
    for stem, (metric, what) in bench.tables.items():
        assert stem.startswith(bench.key + "_") and metric in ("gmean", "accuracy", "rmse") and what
        assert (REPO / "results" / "tables" / f"{stem}.csv").is_file(), stem


@pytest.mark.parametrize("name", BENCHMARK_FAMILIES)
def test_every_family_declares_how_it_is_checked(name):
    """A family with an evaluator of its own says what the common check runs (``Family.check``)."""
    fam = FAMILIES[name]
    if fam.evaluate is None:
        assert fam.check is None  # the generic path itself
    elif isinstance(fam.check, str):
        assert fam.check in ("plain", "probe")
    else:
        dataset, prep, settings = fam.check
        assert isinstance(dataset, str) and prep in ("minmax", "standard", "none") and len(settings) >= 2, (
            f"family {name!r} has its own evaluator but no check: give Family(check=(dataset, preprocessing, "
            "settings)), or check='plain' / 'probe'")


CHECKED = [n for n in BENCHMARK_FAMILIES if isinstance(FAMILIES[n].check, tuple)]


@pytest.mark.parametrize("name", CHECKED)
def test_shared_work_equals_the_generic_path(name):
    fam = FAMILIES[name]
    dataset, prep, settings = fam.check
    ds = load_dataset(dataset)
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(ds.y))[:400]
    tr, te = idx[: 2 * len(idx) // 3], idx[2 * len(idx) // 3:]
    Xtr, Xte = preprocess(prep, ds.X[tr], ds.X[te])
    opts = {"preprocessing": prep}
    fast = fam.evaluate(Split(Xtr, ds.y[tr], Xte, 11, opts), settings)
    plain = evaluate_plain(fam, Split(Xtr, ds.y[tr], Xte, 11, opts), settings)
    for s, f, p in zip(settings, fast, plain):
        assert f.error is None and p.error is None, (s, f.error, p.error)
        np.testing.assert_array_equal(f.y_pred, p.y_pred, err_msg=f"{name} {s}")


def test_the_shared_work_families_are_the_expected_ones():
    """The check above covers the accelerated families (a regression guard against a check dropped)."""
    assert set(CHECKED) == {"welm", "eem", "eekm", "lssvm", "svm", "elm_ridge_boost"}


EXPERIMENTS = sorted({p.stem for d in shipped_config_dirs() for p in (d / "experiment").glob("*.yaml")})


def test_every_benchmark_brings_its_configs_and_no_two_shipped_dirs_define_the_same_config():
    """Hydra takes a config from the first dir of its search path that has it (randml_core/searchpath.py): a
    name defined twice among the shipped dirs would hide one of them without a word. Every benchmark with
    experiments is on the search path Hydra itself builds (the entry point ``hydra.plugins``)."""
    from hydra import compose, initialize_config_dir
    dirs = shipped_config_dirs()
    seen: dict[str, Path] = {}
    for d in dirs:
        for f in sorted(d.rglob("*.yaml")):
            rel = f.relative_to(d).as_posix()
            assert rel not in seen, f"{rel} is in both {seen[rel]} and {d}"
            seen[rel] = d
    owners = {d for rel, d in seen.items() if rel.startswith("experiment/")}
    assert len(owners) >= 6 and dirs[0] in owners  # the engine's leaderboard and the five papers' experiments
    with initialize_config_dir(config_dir=str(dirs[0]), version_base="1.3"):
        cfg = compose("config", overrides=["experiment=smoke"], return_hydra_config=True)
    found = [Path(s.path) for s in cfg.hydra.runtime.config_sources if s.schema == "file"]
    assert found == dirs and cfg.experiment.name == "smoke"


@pytest.mark.parametrize("experiment", EXPERIMENTS)
def test_every_experiment_config_composes_and_plans(experiment):
    """Composed and validated (every dataset and model known), and planned on its smallest dataset without
    drawing folds (offline: an unavailable dataset is named, not fetched)."""
    import dataclasses
    from randml_core.data import get_spec
    from randml_core.data.sources import no_downloads
    from randml_core.results import compose_spec
    from randml_core.runner import make_plan
    spec = compose_spec(experiment)
    assert spec.datasets and spec.variants
    smallest = min(spec.datasets, key=lambda d: get_spec(d).expected.get("n") or float("inf"))
    first = dataclasses.replace(spec, datasets=[smallest])
    with no_downloads():
        plan = make_plan(first, splits=False)
    assert set(plan.datasets) | set(plan.unavailable) == set(first.datasets)


def test_looking_up_a_family_imports_the_benchmarks_only_until_it_is_found(cli_env):
    """The registry imports the benchmarks' ``families`` in name order until the name is registered: EEM's
    ``welm`` imports no later benchmark's families (nor the SLM paper's XGBoost); a later name imports them."""
    import json
    import subprocess
    import sys
    code = ("import json, sys\nfrom randml_core.family import FAMILIES\nfound = 'welm' in FAMILIES\n"
            "loaded = sorted(m for m in sys.modules if m.startswith('randml_papers.') and m.endswith('.families'))\n"
            "xgb = 'xgboost' in sys.modules\nlater = 'slm_dt' in FAMILIES\n"
            "print(json.dumps([found, loaded, xgb, later, 'randml_papers.slm.families' in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", code], env=cli_env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    found, loaded, xgb, later, slm = json.loads(out.stdout.strip().splitlines()[-1])
    assert found and loaded == ["randml_papers.eem.families"] and not xgb
    assert later and slm
