"""No silent wrong answer where a user reads results (issue 29, items 1-2).

- ``randml run`` in a user's folder and ``load()`` in the same folder read one store (randml_core.paths);
- a store with fewer of the plan's cells than planned warns once with the counts and the command that
  fills the rest, and ``attrs['complete']`` says so; ``best()`` marks incomplete entries;
- ``randml compare rule=nested`` pairs each outer fold at its own nested pick: its mean_diff is the
  difference of the nested means; its ``significant`` column is Holm-adjusted over datasets; without inner
  folds rule=nested is refused (exit 2) with best()'s message.

References are computed independently: raw parquet parts read with pandas, the nested selection and the
corrected resampled t-test worked by hand (numpy / scipy), Holm's adjustment by hand.
"""
from __future__ import annotations

import math
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import randml_core
from randml_core.results import best, compose_spec, load

REPO = Path(randml_core.__file__).resolve().parent.parent  # the checkout under test (conftest.py's REPO)

LR = """\
estimator: {_target_: sklearn.linear_model.LogisticRegression, max_iter: 2000}
variants: {LR: {}}
grid: {C: [0.01, 0.1, 1.0, 10.0]}
"""
KNN = """\
estimator: {_target_: sklearn.neighbors.KNeighborsClassifier}
variants: {kNN: {}}
grid: {n_neighbors: [1, 3, 5, 9, 15]}
"""
OKCLS = """\
# @package _global_
defaults:
  - /model@models.mylr: mylr
  - /model@models.myknn: myknn
protocol: {n_splits: 3, inner_splits: 2}
experiment:
  name: okcls
  datasets: [heart, sonar, iris]
"""
# 3 datasets x 3 outer folds x (1 outer + 2 inner) x (4 LR + 5 kNN settings)
N_PLANNED, N_HEART = 3 * 3 * 3 * 9, 3 * 3 * 9


def _env() -> dict:
    env = {k: v for k, v in os.environ.items() if k != "RANDML_STORE"}  # the CLI's default store
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _randml(args, cwd):
    return subprocess.run([sys.executable, "-m", "randml_core", *args], cwd=cwd, env=_env(), capture_output=True,
                          text=True, timeout=600)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A user's project folder that is its own config folder (experiment/, model/), run there with the CLI's
    default store: ``randml run --config-dir . experiment=okcls``."""
    root = tmp_path_factory.mktemp("project")
    for sub, name, text in (("model", "mylr", LR), ("model", "myknn", KNN), ("experiment", "okcls", OKCLS)):
        (root / sub).mkdir(exist_ok=True)
        (root / sub / f"{name}.yaml").write_text(text)
    run = _randml(["run", "--config-dir", ".", "experiment=okcls", "n_jobs=1", "progress=false"], root)
    assert run.returncode == 0, run.stderr[-3000:]
    assert f"computed {N_PLANNED} cells (0 failed" in run.stderr
    return root


def raw_rows(store: Path, name: str) -> pd.DataFrame:
    """Every stored row, read with pandas directly (no randml code)."""
    return pd.concat([pd.read_parquet(p) for p in sorted((store / name).glob("part-*.parquet"))], ignore_index=True)


def incomplete_warnings(fn):
    """``(fn(), [message of each IncompleteResultsWarning it raised])``."""
    from randml_core.results import IncompleteResultsWarning
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        out = fn()
    return out, [str(w.message) for w in rec if issubclass(w.category, IncompleteResultsWarning)]


def test_cli_run_then_load_in_the_same_folder_reads_that_run(project, monkeypatch):
    monkeypatch.chdir(project)
    monkeypatch.delenv("RANDML_STORE", raising=False)
    raw = raw_rows(project / "results" / "store", "okcls")
    assert len(raw) == N_PLANNED
    # the default frame: exactly the run's outer rows, with the stored scores
    df = load("okcls", config_dir=".")
    outer = raw[raw["inner_fold"] == -1].set_index("key")
    assert len(df) == len(outer) == 3 * 3 * 9
    assert df.set_index("key")["gmean"].sort_index().equals(outer["gmean"].sort_index())
    assert Path(df.attrs["store"]) == project / "results" / "store" / "okcls"
    every, said = incomplete_warnings(lambda: load("okcls", config_dir=".", include_inner=True, include_failed=True))
    assert said == [] and every.attrs["complete"] is True
    assert len(every) == len(raw) and set(every["key"]) == set(raw["key"])
    assert (df.attrs["n_planned"], df.attrs["n_stored"], df.attrs["n_missing"]) == (N_PLANNED, N_PLANNED, 0)


def test_config_yaml_store_dir_is_the_paths_rule(tmp_path, monkeypatch):
    """conf/config.yaml's store_dir (what the CLI uses), resolved in the working directory, is default_store()
    and the store load() reads (results.store_root)."""
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf
    from randml_core.paths import default_store
    from randml_core.results import store_root

    def cli_store() -> Path:
        with initialize_config_dir(config_dir=str(REPO / "conf"), version_base="1.3"):
            cfg = compose(config_name="config")
        return Path.cwd() / OmegaConf.to_container(cfg, resolve=True)["store_dir"]
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RANDML_STORE", raising=False)
    assert cli_store() == default_store() == store_root() == tmp_path / "results" / "store"
    monkeypatch.setenv("RANDML_STORE", str(tmp_path / "elsewhere"))
    assert cli_store() == default_store() == store_root() == tmp_path / "elsewhere"
    monkeypatch.setenv("RANDML_STORE", "rel/store")  # relative: to the working directory, as the CLI's
    assert cli_store() == default_store() == store_root() == tmp_path / "rel" / "store"
    assert store_root(tmp_path / "given") == tmp_path / "given"  # an explicit store_dir wins


@pytest.fixture(scope="module")
def partial(project, tmp_path_factory):
    """okcls's own cells of heart only (a third of the plan), and of heart kNN only two of its five settings."""
    from randml_core.runner import run
    heart, knn = tmp_path_factory.mktemp("heart"), tmp_path_factory.mktemp("knn")
    run(compose_spec("okcls", ["dataset=heart"], config_dir=project), heart, n_jobs=1, progress=False)
    run(compose_spec("okcls", ["dataset=heart", "model=myknn", "models.myknn.grid.n_neighbors=[1,3]"],
                     config_dir=project), knn, n_jobs=1, progress=False)
    return heart, knn


def test_a_partial_store_warns_once_with_the_counts_and_the_command(project, partial):
    heart, _ = partial
    df, said = incomplete_warnings(lambda: load("okcls", store_dir=heart, config_dir=project))
    assert len(said) == 1, said
    assert f"{N_HEART} of {N_PLANNED} planned cells" in said[0]
    assert f"({N_PLANNED - N_HEART} missing, 0 failed" in said[0]
    assert f"randml run --config-dir {project} experiment=okcls store_dir={heart}" in said[0]
    assert df.attrs["complete"] is False and df.attrs["n_stored"] == N_HEART and df.attrs["n_planned"] == N_PLANNED
    assert set(df["dataset"]) == {"heart"}
    # once: the same state loaded again says nothing more, and still carries complete=False
    again, said = incomplete_warnings(lambda: load("okcls", store_dir=heart, config_dir=project))
    assert said == [] and again.attrs["complete"] is False
    # within a dataset filter that the store holds in full: complete, no warning
    only, said = incomplete_warnings(lambda: load("okcls", store_dir=heart, config_dir=project, dataset="heart"))
    assert said == [] and only.attrs["complete"] is True and only.attrs["n_planned"] == N_HEART
    # a dataset that needs a download (none here: tests run offline) is not planned, and named as such
    more, said = incomplete_warnings(lambda: load("okcls", store_dir=heart, config_dir=project,
                                                  overrides=["experiment.datasets=[heart,webpages]"]))
    assert more.attrs["complete"] is False and more.attrs["unavailable"] == ["webpages"]
    assert more.attrs["n_planned"] == more.attrs["n_stored"] == N_HEART and len(said) == 1
    assert "dataset(s) webpages, not counted above, are not available here without a download" in said[0]
    assert "randml data fetch webpages" in said[0]


def test_staged_carries_the_frames_completeness():
    from randml_core.results import staged
    frame = pd.DataFrame({"dataset": ["d"], "model": ["m"], "params_json": ["{}"], "repeat": [0], "fold": [0],
                          "inner_fold": [-1], "staged": ['{"stage": [1, 2], "accuracy": [0.5, 0.75]}']})
    frame.attrs.update(experiment="staged-probe", complete=False, n_stored=1, n_planned=3)
    long, said = incomplete_warnings(lambda: staged(frame))
    assert long["accuracy"].tolist() == [0.5, 0.75] and long.attrs["complete"] is False
    assert len(said) == 1 and "1 of 3 planned cells stored" in said[0]


def test_best_marks_entries_over_fewer_folds_or_a_partial_grid(project, partial):
    _, knn = partial
    frame = load("okcls", store_dir=knn, config_dir=project, include_inner=True, include_failed=True)
    cells, said = incomplete_warnings(lambda: best(frame))
    assert len(said) == 1
    row = cells.set_index(["dataset", "model"]).loc[("heart", "kNN")]
    assert row["n_expected"] == 3 and row["n_folds"] == 3 and not row["complete"]  # 2 of 5 settings: a partial grid
    assert "heart / kNN: 6 of 15 planned outer-fold cells stored" in said[0]
    assert "no entry for" in said[0] and "heart / LR" in said[0]
    # the full store: every entry complete, no warning
    full = load("okcls", store_dir=project / "results" / "store", config_dir=project, include_inner=True,
                include_failed=True)
    nested, said = incomplete_warnings(lambda: best(full, rule="nested"))
    assert said == [] and nested["complete"].all() and (nested["n_expected"] == 3).all() and len(nested) == 6
    # a nested pick where one outer fold lacks its inner folds: that entry is incomplete, the others not
    holed = full[~((full["dataset"] == "sonar") & (full["model"] == "LR") & (full["fold"] == 0)
                   & (full["inner_fold"] >= 0))]
    marked, said = incomplete_warnings(lambda: best(holed, rule="nested"))
    flags = marked.set_index(["dataset", "model"])
    assert not flags.loc[("sonar", "LR"), "complete"] and flags.loc[("sonar", "LR"), "n_folds"] == 2
    assert flags["complete"].sum() == 5 and "sonar / LR: 2 of 3 outer folds at the pick" in said[0]


def _nested_by_hand(raw: pd.DataFrame, model: str, dataset: str) -> pd.DataFrame:
    """Per outer fold, the setting with the best mean inner-fold gmean (ties: first in sorted order), and
    that setting's outer-fold row."""
    rows = raw[(raw["model"] == model) & (raw["dataset"] == dataset)]
    inner = rows[rows["inner_fold"] >= 0].groupby(["fold", "params_json"])["gmean"].mean()
    picked = []
    for fold in sorted(rows["fold"].unique()):
        s = inner.loc[fold]
        pick = sorted(s.index[s == s.max()])[0]
        picked.append(rows[(rows["fold"] == fold) & (rows["inner_fold"] == -1) & (rows["params_json"] == pick)])
    return pd.concat(picked).set_index("fold")


def _table(text: str, header: str) -> pd.DataFrame:
    """The markdown table whose header line starts with ``header`` in ``text``."""
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(header))
    cols = [c.strip() for c in lines[at].strip("|").split("|")]
    body = []
    for line in lines[at + 2:]:
        if not line.startswith("|"):
            break
        body.append([c.strip() for c in line.strip("|").split("|")])
    return pd.DataFrame(body, columns=cols)


def _holm(p: np.ndarray) -> np.ndarray:
    """Holm (1979) by hand: sorted ascending, p_(i) * (m - i + 1), running max, capped at 1."""
    order = np.argsort(p)
    adj = np.empty_like(p)
    running = 0.0
    for i, j in enumerate(order):
        running = max(running, min(1.0, (len(p) - i) * p[j]))
        adj[j] = running
    return adj


def test_compare_nested_pairs_each_fold_at_its_own_pick(project, monkeypatch):
    res = _randml(["compare", "--config-dir", ".", "experiment=okcls", "models=[LR,kNN]", "rule=nested"], project)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "Settings: rule=nested, each outer fold at its own pick" in res.stdout
    printed = _table(res.stdout, "| dataset | mean_diff").set_index("dataset")
    raw = raw_rows(project / "results" / "store", "okcls")
    monkeypatch.chdir(project)
    nested = best(load("okcls", config_dir=".", include_inner=True, include_failed=True), rule="nested")
    means = nested.set_index(["dataset", "model"])["mean"]
    varied = 0
    p_hand = []
    for dataset in ("heart", "iris", "sonar"):
        a, b = _nested_by_hand(raw, "LR", dataset), _nested_by_hand(raw, "kNN", dataset)
        varied += a["params_json"].nunique() > 1 or b["params_json"].nunique() > 1
        assert means[(dataset, "LR")] - means[(dataset, "kNN")] == pytest.approx(
            a["gmean"].mean() - b["gmean"].mean(), abs=1e-12)
        # compare's mean_diff is the difference of the nested means (printed to 4 decimals)
        assert float(printed.loc[dataset, "mean_diff"]) == pytest.approx(
            means[(dataset, "LR")] - means[(dataset, "kNN")], abs=5.1e-5)
        # the corrected resampled t-test on those per-fold differences, by hand
        d = (a["gmean"] - b["gmean"]).to_numpy()
        ratio = a["n_test"].mean() / a["n_train"].mean()
        t = d.mean() / math.sqrt((1 / len(d) + ratio) * d.var(ddof=1))
        p_hand.append(2 * stats.t.sf(abs(t), len(d) - 1))
    assert varied, "the picks never vary across folds: this store cannot tell per-fold picks from one setting"
    adj = _holm(np.array(p_hand))
    for dataset, p, q in zip(("heart", "iris", "sonar"), p_hand, adj):
        assert float(printed.loc[dataset, "p"]) == pytest.approx(p, abs=5.1e-5)
        assert float(printed.loc[dataset, "p_holm"]) == pytest.approx(q, abs=5.1e-5)
        assert printed.loc[dataset, "significant"] == ("yes" if q < 0.05 else "no")
    assert "significant: p_holm < alpha = 0.05 (Holm-adjusted over the 3 datasets)" in res.stdout


def test_compare_nested_without_inner_folds_is_refused_with_bests_message(project, monkeypatch):
    res = _randml(["compare", "--config-dir", ".", "experiment=okcls", "protocol.inner_splits=0",
                   "models=[LR,kNN]", "rule=nested"], project)
    assert res.returncode == 2, res.stdout[-2000:] + res.stderr[-2000:]
    assert "0 dataset(s) x 0 model(s)" not in res.stdout
    monkeypatch.chdir(project)
    plain = load("okcls", config_dir=".", overrides=["protocol.inner_splits=0"], include_failed=True)
    with pytest.raises(ValueError) as refused:
        best(plain, rule="nested")
    said = str(refused.value)
    head, tail = said.split(", and this frame has none")[0], said[said.index("(the experiment needs"):]
    assert head == "rule='nested' selects on inner folds" and tail == "(the experiment needs protocol.inner_splits > 0)"
    assert re.search(re.escape(head) + r", and the store of okcls has none: .*" + re.escape(tail), res.stderr)


def _synthetic(diffs: dict) -> pd.DataFrame:
    """Two models, one setting each, 10 outer folds (n_train 90, n_test 10) per dataset; B = A - diff."""
    rows = []
    for dataset, d in diffs.items():
        for fold, di in enumerate(d):
            a = 0.8 + 0.01 * math.sin(fold)
            for model, score in (("A", a), ("B", a - di)):
                rows.append({"dataset": dataset, "model": model, "params_json": "{}", "repeat": 0, "fold": fold,
                             "inner_fold": -1, "status": "ok", "converged": True, "gmean": score,
                             "n_train": 90, "n_test": 10})
    return pd.DataFrame(rows)


def test_paired_section_significant_is_holm_adjusted_and_best_mean_says_optimistic():
    from randml_core.report.comparison import paired_section
    shape = np.array([-1.0, 1.0, -0.5, 0.5, -1.5, 1.5, 0.0, -0.25, 0.25, 0.0])
    diffs = {"d1": 0.05 + 0.01 * shape, "d2": 0.02 + 0.02 * shape, "d3": 0.005 + 0.02 * shape}
    text = paired_section(_synthetic(diffs), "gmean", "A", "B")
    table = _table(text, "| dataset | mean_diff").set_index("dataset")
    p = []
    for d in diffs.values():
        t = d.mean() / math.sqrt((1 / 10 + 10 / 90) * d.var(ddof=1))
        p.append(2 * stats.t.sf(abs(t), 9))
    adj = _holm(np.array(p))
    assert p[1] < 0.05 <= adj[1]  # d2: significant alone, not after Holm over the 3 datasets
    assert [table.loc[k, "significant"] for k in diffs] == ["yes", "no", "no"]
    assert [table.loc[k, "better"] for k in diffs] == ["A", "A", "A"]  # the sign alone, beside it
    for k, q in zip(diffs, adj):
        assert float(table.loc[k, "p_holm"]) == pytest.approx(q, abs=5.1e-5)
    assert "rule=best_mean" in text and "optimistic" in text
