"""CONTRIBUTING.md's three recipes, as written, in a temporary directory outside the repository, with zero
edits to the engine: add a family (one Python file + one model config), add a dataset (one card), add a
benchmark (one folder). Each plug-in is run through the CLI and its numbers are checked against an
independent computation."""
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from randml_core.results import load

from conftest import REPO

FAMILY_PY = '''\
"""A shared-work k-nearest-neighbours family: one neighbour search per split serves every k."""
import numpy as np
from sklearn.neighbors import KNeighborsClassifier, NearestNeighbors

from randml_core.family import CellResult, Family, guard, register_family, timed


def evaluate(split, settings):
    k_max = max(s["n_neighbors"] for s in settings)
    (dist, idx), seconds = timed(lambda: NearestNeighbors(n_neighbors=k_max).fit(split.X_train)
                                 .kneighbors(split.X_test))
    labels = np.unique(split.y_train)
    codes = np.searchsorted(labels, split.y_train)[idx]          # test rows x k_max neighbour classes

    def one(s):
        votes = np.apply_along_axis(np.bincount, 1, codes[:, : s["n_neighbors"]], minlength=len(labels))
        return CellResult(dict(s), labels[votes.argmax(axis=1)], fit_seconds=seconds)
    return [guard(s, lambda s=s: one(s)) for s in settings]


register_family(Family("shared_knn", KNeighborsClassifier, "1", evaluate, tasks=("binary", "multiclass")))
'''

FAMILY_YAML = """\
family: shared_knn
plugin: shared_knn_family      # the Python file beside this config dir's folders
variants: {shared-kNN: {}}
grid: {n_neighbors: [1, 5, 9]}
"""

CARD = """\
name: bumps
task: binary
source: {kind: csv, path: bumps.csv, target: label}
licence: CC0 (generated for the recipe test)
"""

EXPERIMENT = """\
# @package _global_
defaults:
  - /model@models.shared_knn: shared_knn
  - /model@models.knn: knn
  - override /protocol: cv10
protocol: {n_splits: 4}
experiment:
  name: recipes
  datasets: [bumps, heart]
"""

KNN_YAML = """\
estimator: {_target_: sklearn.neighbors.KNeighborsClassifier}
variants: {kNN: {}}
grid: {n_neighbors: [1, 5, 9]}
"""


def _randml(args, cwd, env):
    return subprocess.run([sys.executable, "-m", "randml_core", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


def _write(root, files: dict):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def _bumps_csv(path):
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(0, 1, (60, 3)), rng.normal(1.2, 1, (40, 3))])
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(label=["common"] * 60 + ["rare"] * 40)
    frame.sample(frac=1.0, random_state=0).to_csv(path, index=False)


@pytest.fixture(scope="module")
def recipes_run(tmp_path_factory):
    """Recipes 1 and 2 in one config dir: the family's two files, the dataset's card (and its CSV)."""
    root = tmp_path_factory.mktemp("recipes")
    conf = root / "conf"
    _write(conf, {"shared_knn_family.py": FAMILY_PY, "model/shared_knn.yaml": FAMILY_YAML,
                  "model/knn.yaml": KNN_YAML, "dataset/bumps.yaml": CARD, "experiment/recipes.yaml": EXPERIMENT})
    _bumps_csv(conf / "dataset" / "bumps.csv")
    yield root, conf
    from randml_core.data.registry import unregister
    unregister("bumps")


def test_recipe_family_and_dataset_run_with_no_engine_edit(recipes_run, cli_env):
    """A family is one Python file + one model config, a dataset one card: the shared-work family's accuracy
    equals scikit-learn's own KNeighborsClassifier fold for fold, on the user's CSV and a shipped set."""
    root, conf = recipes_run
    common = ["--config-dir", str(conf), "experiment=recipes", f"store_dir={root}/store",
              f"results_dir={root}/results", f"hydra.run.dir={root}/logs"]
    run = _randml(["run", *common, "n_jobs=2", "progress=false"], root, cli_env)
    assert run.returncode == 0, run.stderr[-3000:]
    frame = load("recipes", store_dir=root / "store", config_dir=conf)
    assert set(frame["model"]) == {"shared-kNN", "kNN"} and set(frame["dataset"]) == {"bumps", "heart"}
    assert len(frame) == 2 * 2 * 4 * 3 and (frame["status"] == "ok").all()  # models x datasets x folds x k
    pairs = frame.pivot_table(index=["dataset", "fold", "params_json"], columns="model", values="accuracy")
    assert pairs.notna().all().all() and len(pairs) == 2 * 4 * 3
    np.testing.assert_array_equal(pairs["shared-kNN"].to_numpy(), pairs["kNN"].to_numpy())
    assert pairs["kNN"].min() > 0.5  # the two agree on real predictions, not on an empty column
    rep = _randml(["report", *common], root, cli_env)
    assert rep.returncode == 0, rep.stderr[-3000:]
    md = (root / "results" / "tables" / "recipes.md").read_text()
    assert "shared-kNN" in md and "bumps" in md


BENCH_INIT = '''\
"""A toy benchmark: one folder, discovered through the experiment's plugins: key."""
from randml_core.plugins import Benchmark

BENCHMARK = Benchmark(key="toybench", short="Toy", title="A toy benchmark")
'''

BENCH_DATASETS = '''\
"""The benchmark's generated dataset, registered at import (the plug-in contract's datasets member)."""
from sklearn.datasets import make_classification

from randml_core.data import DatasetSpec, GeneratedSource, register


def make_toy(n=150, seed=0):
    return make_classification(n_samples=n, n_features=5, n_informative=3, random_state=seed)


register(DatasetSpec(name="toy-gen", task="binary", papers=("toybench",),
                     sources=[GeneratedSource("toybench.datasets:make_toy", n=150, seed=0)],
                     expected={"n": 150, "d": 5}, licence="n/a (generated)", citation="sklearn make_classification"))
'''

BENCH_FAMILIES = '''\
"""The benchmark's family: a plain estimator, no evaluator of its own (the generic one fits each setting)."""
from sklearn.linear_model import RidgeClassifier

from randml_core.family import Family, register_family

register_family(Family("toy_ridge", RidgeClassifier, "1", None))
'''

BENCH_EXPERIMENT = """\
# @package _global_
defaults:
  - /model@models.ridge: toy_ridge
  - override /protocol: cv10
protocol: {n_splits: 3}
experiment:
  name: toybench
  plugins: [toybench]
  datasets: [toy-gen]
"""

BENCH_MODEL = """\
family: toy_ridge
variants: {Ridge: {}}
grid: {alpha: [0.1, 10.0]}
"""


def test_recipe_benchmark_is_one_folder_with_its_own_site_page(tmp_path, cli_env):
    """A benchmark is one folder (a package with its datasets and families, and its configs): it runs,
    reports into its own results folder and gets a site page, with no engine edit; the stored scores equal
    RidgeClassifier fitted by hand on the same folds of the generated data."""
    bench = tmp_path / "toybench-project"
    _write(bench, {"toybench/__init__.py": BENCH_INIT, "toybench/datasets.py": BENCH_DATASETS,
                   "toybench/families.py": BENCH_FAMILIES, "experiment/toybench.yaml": BENCH_EXPERIMENT,
                   "model/toy_ridge.yaml": BENCH_MODEL})
    common = ["--config-dir", str(bench), "experiment=toybench", f"store_dir={tmp_path}/store",
              f"results_dir={tmp_path}/results", f"hydra.run.dir={tmp_path}/logs"]
    run = _randml(["run", *common, "n_jobs=1", "progress=false"], tmp_path, cli_env)
    assert run.returncode == 0, run.stderr[-3000:]
    rep = _randml(["report", *common], tmp_path, cli_env)
    assert rep.returncode == 0, rep.stderr[-3000:]
    assert (tmp_path / "results" / "tables" / "toybench.md").exists()
    assert not list((REPO / "results" / "tables").glob("toybench*"))  # never in the committed snapshot

    frame = load("toybench", store_dir=tmp_path / "store", config_dir=bench)
    assert len(frame) == 3 * 2 and (frame["status"] == "ok").all()
    from sklearn.datasets import make_classification
    from sklearn.linear_model import RidgeClassifier
    from sklearn.model_selection import StratifiedKFold
    from sklearn.preprocessing import MinMaxScaler
    X, y = make_classification(n_samples=150, n_features=5, n_informative=3, random_state=0)
    from randml_core.protocol import derive_seed  # the documented fold seed: (protocol seed, dataset, repeat)
    folds = StratifiedKFold(3, shuffle=True, random_state=derive_seed(0, "split", "toy-gen", 0)).split(X, y)
    for fold, (tr, te) in enumerate(folds):
        scaler = MinMaxScaler().fit(X[tr])
        for alpha in (0.1, 10.0):
            pred = RidgeClassifier(alpha=alpha).fit(scaler.transform(X[tr]), y[tr]).predict(scaler.transform(X[te]))
            row = frame[(frame["fold"] == fold) & frame["params_json"].str.contains(f'"alpha": {alpha}')]
            assert len(row) == 1
            assert row["accuracy"].iloc[0] == pytest.approx(float(np.mean(pred == y[te])), abs=1e-12)

    site = subprocess.run([sys.executable, "-m", "randml_core.site", "build", "--results", str(tmp_path / "results"),
                           "--benchmark", "toybench", "--config-dir", str(bench)], cwd=tmp_path, env=cli_env,
                          capture_output=True, text=True, timeout=300)
    assert site.returncode == 0, site.stderr[-3000:]
    page = (tmp_path / "results" / "site" / "toybench.html").read_text()
    for section in ("tables", "figures", "statistics", "provenance"):
        assert f'id="{section}"' in page
    assert "toybench.md" in page and "toybench_stats.md" in page  # its table and its statistics section
    assert "randml run --config-dir" in page and "experiment=toybench" in page


def test_the_documented_experiment_and_model_configs_compose_and_plan_as_described(tmp_path, monkeypatch):
    """CONTRIBUTING's two configs in full (``# experiment/toybench.yaml``, ``# model/toy_ridge.yaml``), as written,
    beside the recipe's package, card and report module: they compose and plan 3 outer folds x 2 inner folds of
    3 alphas on heart and bumps, with the report module named."""
    import re

    from randml_core.data.registry import unregister
    from randml_core.planning import make_plan
    from randml_core.results import compose_spec
    text = (REPO / "CONTRIBUTING.md").read_text()
    blocks = {m.group(1): m.group(0) for m in re.finditer(r"# ((?:experiment|model)/\w+\.yaml)\n.*?(?=```)", text,
                                                          re.S)}
    assert sorted(blocks) == ["experiment/toybench.yaml", "model/toy_ridge.yaml"]
    report = re.search(r"A worked example, `toybench/report.py`:\n\n```python\n(.*?)```", text, re.S).group(1)
    bench = tmp_path / "project"
    _write(bench, {"toybench/__init__.py": BENCH_INIT, "toybench/datasets.py": BENCH_DATASETS,
                   "toybench/families.py": BENCH_FAMILIES, "toybench/report.py": report,
                   "dataset/bumps.yaml": CARD, **{path: body.split("\n", 1)[1] for path, body in blocks.items()}})
    _bumps_csv(bench / "dataset" / "bumps.csv")
    unregister("bumps")  # the recipe test's card of that name (registered when its config dir was read)
    forget = lambda: [sys.modules.pop(m) for m in list(sys.modules) if m.split(".")[0] == "toybench"]  # noqa: E731
    forget()  # the benchmark recipe's own toybench (another folder, no report.py) if this process imported it
    monkeypatch.setattr(sys, "path", [p for p in sys.path if not p.endswith("toybench-project")])  # and its folder
    try:
        spec = compose_spec("toybench", config_dir=bench)
        plan = make_plan(spec, splits=False)
    finally:
        unregister("bumps")
        unregister("toy-gen")
        forget()
    assert spec.engine.report == ("toybench.report",) and [v.name for v in spec.variants] == ["ToyRidge"]
    assert (spec.protocol.n_splits, spec.protocol.inner_splits) == (3, 2) and sorted(plan.datasets) == ["bumps", "heart"]
    assert len(plan.tasks) == 2 * 3 * (1 + 2) and {len(t.cells) for t in plan.tasks} == {3}
