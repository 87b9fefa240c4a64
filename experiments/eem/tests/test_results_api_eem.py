"""The README's notebook example over EEM Table 4's rows (moved from tests/test_results_api.py, whose engine tests run
on the engine's tiny experiment): executed as written, it gives the outer-fold means, best() and the nested rule's
numbers computed here from the raw parquet parts; and load() on an empty store names the make target of Table 4."""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from conftest import REPO
from randml_core.results import ResultsError, load, make_target
from randml_core.runner import run
from tests.test_results_api import raw_rows


@pytest.fixture(scope="module")
def table4_heart(tmp_path_factory):
    """eem_table4's own cells for heart: the whole EEM grid and two SVM settings (a subset of the
    current config: a cell's key does not depend on the rest of the grid)."""
    store = tmp_path_factory.mktemp("t4")
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf
    from randml_core.config import build_spec
    for overrides in (["model=eem"], ["model=svm", "models.svm.grid.gamma=[0.1]", "models.svm.grid.C=[1.0,10.0]"]):
        with initialize_config_dir(config_dir=str(REPO / "conf"), version_base="1.3"):
            cfg = compose(config_name="config", overrides=["experiment=eem_table4", "dataset=heart", *overrides])
        run(build_spec(OmegaConf.to_container(cfg, resolve=True)), store, n_jobs=1, progress=False)
    return store


def readme_notebook_block() -> str:
    text = (REPO / "README.md").read_text()
    block = re.search(r"In a notebook:\n\n```python\n(.*?)```", text, re.S)
    assert block, "README.md lost its 'In a notebook:' python block"
    return block.group(1)


def test_readme_notebook_example_gives_outer_fold_numbers(table4_heart, tmp_path, monkeypatch):
    monkeypatch.setenv("RANDML_STORE", str(table4_heart))
    monkeypatch.chdir(tmp_path)
    ns: dict = {}
    exec(readme_notebook_block(), ns)  # noqa: S102 - the README's example, as a user runs it
    raw = raw_rows(table4_heart, "eem_table4")
    sel = raw[(raw["dataset"] == "heart") & raw["model"].isin(["EEM-rbf", "SVM-rbf"])]
    outer = sel[sel["inner_fold"] == -1].groupby(["model", "params_json"])["gmean"].agg(["mean", "size"])
    means = ns["means"]
    assert len(means) == 5 + 2 and (outer["size"] == 10).all()
    pd.testing.assert_series_equal(means.sort_index(), outer["mean"].sort_index(), check_names=False)
    # the old example's mean over every row mixed the inner folds in, and differs
    mixed = sel.groupby(["model", "params_json"])["gmean"].mean()
    assert (mixed - outer["mean"]).abs().max() > 1e-3
    # best(): per model the setting with the largest outer mean
    cells = ns["cells"].set_index("model")
    for model, group in outer["mean"].groupby(level="model"):
        assert cells.loc[model, "mean"] == pytest.approx(group.max())
        assert cells.loc[model, "params_json"] == group.idxmax()[1]
    # nested: per outer fold the setting with the best inner mean, scored on that outer fold
    inner = sel[sel["inner_fold"] >= 0].groupby(["model", "fold", "params_json"])["gmean"].mean()
    nested = ns["nested"].set_index("model")
    for model in ("EEM-rbf", "SVM-rbf"):
        scores = []
        for fold in range(10):
            by_setting = inner.loc[(model, fold)]
            pick = sorted(by_setting.index[by_setting == by_setting.max()])[0]
            row = sel[(sel["model"] == model) & (sel["fold"] == fold) & (sel["inner_fold"] == -1)
                      & (sel["params_json"] == pick)]
            scores.append(row["gmean"].item())
        assert nested.loc[model, "mean"] == pytest.approx(np.mean(scores))
        assert nested.loc[model, "n_folds"] == 10


def test_an_empty_store_offers_make_table4(tmp_path):
    """load() on an empty store names the make target that runs eem_table4, found in the benchmark's own make
    fragment (experiments/eem/eem.mk)."""
    empty = tmp_path / "nothing"
    with pytest.raises(ResultsError, match=re.escape(str((empty / "eem_table4").resolve())) +
                       r".*randml run experiment=eem_table4.*make table4"):
        load("eem_table4", store_dir=empty)
    assert make_target("eem_table4") == "table4"
