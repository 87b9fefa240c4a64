"""EEM Table 5's SVM-related timings (issue 42): the experiment's per_dataset settings are the ones Table 4
selected (read from the committed folds file), and t5-faster-svm / -lssvm pool the CPU seconds of the sets that
have them and name the others with the reason."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from randml_core.report import claims as C
from randml_papers.eem import summary, table5_svm

HERE = Path(__file__).resolve().parents[1]
TABLES = HERE.parents[1] / "results" / "tables"


def test_the_config_times_each_model_at_the_setting_table4_selected():
    conf = yaml.safe_load((HERE / "conf" / "experiment" / "eem_table5_svm.yaml").read_text())
    folds = pd.read_csv(TABLES / "eem_table4_unbalanced_folds.csv")
    sets73 = sorted(set(folds.loc[folds["stand_in_for"].isin(summary.EXTREMELY), "dataset"]))
    chosen = table5_svm.selected_settings(folds, sets73)
    assert {key: m["per_dataset"] for key, m in conf["models"].items()} == chosen
    # the datasets are exactly the Section 7.3 sets where all three models have a selected setting
    assert sorted(conf["experiment"]["datasets"]) == sorted(chosen["svm"]) == sorted(chosen["lssvm"])
    skipped = set(sets73) - set(chosen["svm"])
    assert skipped and not set(folds.loc[folds["dataset"].isin(skipped) & (folds["model"] == "SVM-rbf"), "dataset"])


def test_selected_settings_leaves_out_a_set_with_two_settings_or_none():
    rows = [{"dataset": "a", "model": m, "params_json": p} for m, p in
            (("SVM-rbf", '{"C": 1.0, "gamma": 0.5}'), ("LS-SVM-rbf", '{"C": 2.0, "gamma": 0.5}'),
             ("EEM-rbf", '{"activation": "rbf", "n_hidden": 50}'))]
    rows += [{"dataset": "b", "model": "SVM-rbf", "params_json": '{"C": 1.0, "gamma": 0.5}'},
             {"dataset": "b", "model": "SVM-rbf", "params_json": '{"C": 9.0, "gamma": 0.5}'}]
    got = table5_svm.selected_settings(pd.DataFrame(rows), ["a", "b"])
    assert got == {"svm": {"a": {"C": [1.0], "gamma": [0.5]}}, "lssvm": {"a": {"C": [2.0], "gamma": [0.5]}},
                   "eem": {"a": {"n_hidden": [50]}}}


def _svm5(ratio: float) -> pd.DataFrame:
    rows = []
    for d in ("s1", "s2"):
        for fold in range(10):
            eem = 0.1 * (1 + 0.05 * fold)
            for m, t in (("EEM-rbf", eem), ("SVM-rbf", eem * ratio * (1 + 0.02 * (fold % 3 - 1)))):
                rows.append({"dataset": d, "model": m, "repeat": 0, "fold": fold, "cpu_seconds": t,
                             "stand_in_for": f"orig-{d}", "stand_in": True})
    return pd.DataFrame(rows)


def test_svm_faster_pools_the_timed_sets_and_names_the_skipped_one():
    unb = pd.DataFrame({"dataset": ["s1", "s2", "s3", "s3"], "model": ["SVM-rbf", "SVM-rbf", "EEM-rbf", "EEM-rbf"],
                        "stand_in_for": ["forest-cover", "isolet", "webpages", "webpages"], "stand_in": True})
    svm5 = _svm5(20.0)
    d = summary.svm_faster(svm5, unb, "SVM-rbf", ["s1", "s2"])
    logs = np.log(svm5[svm5.model == "SVM-rbf"]["cpu_seconds"].to_numpy() / svm5[svm5.model == "EEM-rbf"][
        "cpu_seconds"].to_numpy())
    assert d.verdict == C.HELD and f"{math.exp(logs.mean()):.2f}x" in d.evidence
    assert "20 paired timings of SVM-rbf / EEM-rbf on s1, s2:" in d.evidence
    assert d.details[-1] == "s3: no SVM-rbf timing, skipped by rule in Table 4 (above 6,000 training rows): no setting selected"
    assert summary.svm_faster(_svm5(3.0), unb, "SVM-rbf", ["s1", "s2"]).verdict == C.NOT_HELD  # 3x, below 10x
    assert summary.svm_faster(_svm5(10.0), unb, "SVM-rbf", ["s1", "s2"]).verdict == C.INCONCLUSIVE


def test_no_timing_file_says_which_experiment_to_run(tmp_path):
    got = {c.id: c for c in summary.decide(tmp_path)}
    assert "eem_table5_svm" in got["t5-faster-svm"].real.evidence
