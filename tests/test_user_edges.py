"""Edges a new user meets (issue 45): best(load(...)) with models skipped by rule, and the --config-dir messages."""
import subprocess
import warnings

import pandas as pd


def test_best_of_load_works_when_models_are_skipped_by_rule(tmp_path):
    """best(load(...)) raised ValueError as soon as a model was skipped by rule (binary-only models on wine), and with
    include_failed=True the skipped cells counted as n_failed. Now the skipped entries say skipped, not failed.
    The engine's tiny experiment: LogReg-liblinear is binary-only by its scikit-learn tags (2 settings), kNN (3) and
    SVC-rbf (4) handle wine's 3 classes."""
    from randml_core.results import IncompleteResultsWarning, best, load
    from randml_core.runner import run
    from randml_core.results import compose_spec
    over = ["experiment.datasets=[wine,heart]"]
    s = run(compose_spec("tiny", over), str(tmp_path), n_jobs=1, progress=False)
    assert s.skipped == 2 * 3 and s.failed == 0  # the 2 liblinear settings x 3 folds of wine, skipped by rule
    for include_failed in (False, True):
        with warnings.catch_warnings():
            warnings.simplefilter("error", IncompleteResultsWarning)
            out = best(load("tiny", store_dir=tmp_path, overrides=over, include_failed=include_failed))
        wine, heart = out[out.dataset == "wine"].set_index("model"), out[out.dataset == "heart"]
        assert sorted(wine.index) == ["LogReg-liblinear", "SVC-rbf", "kNN"] and len(heart) == 3
        lib = wine.loc["LogReg-liblinear"]
        assert lib.skipped and lib.n_failed == 0 and pd.isna(lib["mean"])
        others = wine.drop(index="LogReg-liblinear")
        assert not others.skipped.any() and (others.n_failed == 0).all() and others["mean"].between(0.5, 1).all()
        assert not heart.skipped.any() and heart["mean"].between(0.5, 1).all()
        assert out.complete.all()


def test_a_missing_config_dir_is_named_and_a_forgotten_one_is_hinted(tmp_path, randml_cmd, cli_env):
    missing = tmp_path / "nope"
    done = subprocess.run([*randml_cmd, "run", "--config-dir", str(missing), "experiment=mine"], capture_output=True,
                          text=True, env=cli_env, cwd=tmp_path)
    assert done.returncode == 2 and f"--config-dir '{missing}' is not a directory" in done.stderr
    (tmp_path / "byo" / "experiment").mkdir(parents=True)
    (tmp_path / "byo" / "experiment" / "mine.yaml").write_text("# @package _global_\n")
    done = subprocess.run([*randml_cmd, "run", "experiment=mine"], capture_output=True, text=True, env=cli_env,
                          cwd=tmp_path)
    assert done.returncode == 2 and "unknown experiment 'mine'" in done.stderr
    assert f"did you forget --config-dir {tmp_path / 'byo'}?" in done.stderr


def test_a_penguins_shaped_csv_runs_with_drop_rows_and_no_hand_editing(tmp_path, randml_cmd, cli_env):
    """The Palmer penguins case: NaN features, text columns, the label missing in 11 rows. `missing: drop_rows` now
    drops the rows without a label too (it named a hand edit of the file); the run then computes every cell."""
    import numpy as np
    import pandas as pd
    rng = np.random.default_rng(0)
    n = 120
    species = rng.choice(["Adelie", "Gentoo", "Chinstrap"], n).astype(object)
    frame = pd.DataFrame({"species": species, "island": rng.choice(["Biscoe", "Dream", "Torgersen"], n),
                          "bill_length_mm": rng.normal(44, 5, n), "flipper_length_mm": rng.normal(200, 14, n),
                          "sex": rng.choice(["male", "female"], n).astype(object)})
    frame.loc[rng.choice(n, 11, replace=False), "species"] = np.nan   # no label
    frame.loc[rng.choice(n, 5, replace=False), "bill_length_mm"] = np.nan
    frame.loc[rng.choice(n, 4, replace=False), "sex"] = np.nan
    conf = tmp_path / "conf"
    (conf / "dataset").mkdir(parents=True)
    (conf / "experiment").mkdir()
    frame.to_csv(conf / "dataset" / "penguins.csv", index=False)
    (conf / "dataset" / "penguins.yaml").write_text(
        "name: penguins\ntask: multiclass\nsource: {kind: csv, path: penguins.csv, target: species, missing: drop_rows}\n")
    (conf / "experiment" / "peng.yaml").write_text(
        "# @package _global_\ndefaults:\n  - /model@models.logreg: logreg\n  - override /protocol: cv10\n"
        "protocol:\n  n_splits: 3\nexperiment:\n  name: peng\n  datasets: [penguins]\n")
    done = subprocess.run([*randml_cmd, "run", "--config-dir", str(conf), "experiment=peng",
                           f"store_dir={tmp_path / 'store'}", "progress=false"], capture_output=True, text=True,
                          env=cli_env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-1500:]
    assert "failed" in done.stderr and "(0 failed" in done.stderr
    from randml_core.data.cards import card_spec
    spec = card_spec(conf / "dataset" / "penguins.yaml")
    res = spec.sources[0].load_detailed("penguins")
    kept = frame.dropna(subset=["species", "bill_length_mm", "sex"])
    assert len(res.y) == len(kept) and len(kept) < n - 11


def test_a_benchmark_declared_in_the_one_documented_group_is_a_trusted_plugin(tmp_path, monkeypatch):
    """CONTRIBUTING names `randml.benchmarks`; trust read only `randml.plugins`, so such a benchmark's report module
    was refused ("not a randml plug-in module"). One group now serves discovery and trust."""
    from randml_core import trust
    dist = tmp_path / "mybench-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: mybench\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[randml.benchmarks]\nmine = mybench\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    trust._entry_point_modules.cache_clear()
    try:
        assert trust.is_plugin_module("mybench.report")
        assert not trust.is_plugin_module("otherpkg.report")
    finally:
        trust._entry_point_modules.cache_clear()


def test_model_list_imports_a_model_configs_plugin(tmp_path, randml_cmd, cli_env):
    """`randml model list --config-dir DIR` exited 2 ("family 'shared_ridge' is unknown") for CONTRIBUTING's family
    recipe: it never imported the model config's `plugin:` module."""
    conf = tmp_path / "conf"
    (conf / "model").mkdir(parents=True)
    (conf / "ridge_family.py").write_text(
        "from sklearn.linear_model import RidgeClassifier\nfrom randml_core import Family, register_family\n"
        "register_family(Family('my_ridge', RidgeClassifier, '1', None))\n")
    (conf / "model" / "myridge.yaml").write_text("family: my_ridge\nplugin: ridge_family\ngrid: {alpha: [0.1, 1.0]}\n")
    done = subprocess.run([*randml_cmd, "model", "list", "--config-dir", str(conf)], capture_output=True, text=True,
                          env=cli_env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-800:]
    row = [line for line in done.stdout.splitlines() if line.startswith("myridge")]
    assert row and row[0].split()[1:5] == ["my_ridge", "binary,multiclass", "1", "2"], done.stdout  # 1 variant, 2 settings
