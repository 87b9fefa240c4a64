"""Figure 5's convergence measure (randml_papers.slm.fig5.convergence) and the claims decided on it, by hand."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from randml_core.report import claims as C
from randml_papers.slm import fig5, summary


def _row(model: str, fold: int, acc: list[float], loss: list[float]) -> dict:
    staged = [{"stage": k + 1, "accuracy": a, "log_loss": l} for k, (a, l) in enumerate(zip(acc, loss))]
    return {"dataset": "wine", "model": model, "params_json": "{}", "repeat": 0, "fold": fold, "inner_fold": -1,
            "status": "ok", "converged": True, "accuracy": acc[-1], "n_train": 6, "n_test": 4, "staged": json.dumps(staged)}


def test_gap_and_k_within_by_hand():
    frame = pd.DataFrame([
        # RF has 4 trees, SLM Forest 2: both read over k = 1..2 (the common horizon)
        _row("RF", 0, [0.80, 0.90, 0.95, 1.00], [1, 1, 1, 1]), _row("SLM Forest", 0, [0.90, 0.90], [1, 1]),
        _row("XGBoost", 0, [1, 1, 1], [0.70, 0.50, 0.40]), _row("SLM Boost", 0, [1, 1, 1], [0.41, 0.40, 0.40])])
    conv = fig5.convergence(frame).set_index(["model", "metric"])
    # RF over k = 1, 2 in pp: |80 - 90|, |90 - 90| -> gap 5; it leaves the 1 pp band at k = 1, so k_within = 2
    assert conv.loc[("RF", "accuracy"), ["gap", "k_within", "horizon"]].tolist() == [5.0, 2, 2]
    assert conv.loc[("SLM Forest", "accuracy"), ["gap", "k_within"]].tolist() == [0.0, 1]
    # XGBoost over k = 1..3 nats: |0.7-0.4|, |0.5-0.4|, 0 -> gap 0.4/3; outside 0.01 at k = 1, 2 -> k_within 3
    assert conv.loc[("XGBoost", "log_loss"), "gap"] == pytest.approx(0.4 / 3)
    assert conv.loc[("XGBoost", "log_loss"), "k_within"] == 3
    assert conv.loc[("SLM Boost", "log_loss"), "gap"] == pytest.approx(0.01 / 3)
    assert conv.loc[("SLM Boost", "log_loss"), "k_within"] == 1  # 0.01 is within the 0.01 band
    assert set(conv.reset_index()["n_test"]) == {4}


def test_convergence_claims_are_decided_per_dataset_on_the_gap():
    rows = []
    for d in ("wine", "breast-cancer-wdbc", "pima-392"):
        for f in range(10):
            for model, gap in (("SLM Forest", 1.0 + 0.01 * f), ("RF", 3.0 + 0.02 * f)):
                rows.append({"dataset": d, "model": model, "metric": "accuracy", "repeat": 0, "fold": f,
                             "n_train": 60, "n_test": 40, "horizon": 20, "gap": gap, "k_within": 5})
    claims = {c.id: c for c in summary._convergence_claims(pd.DataFrame(rows))}
    forest = claims["fig5-forest-rf"]
    assert forest.real.verdict == C.HELD and forest.real.p < 0.05  # smaller gap on every split of 3 real sets
    assert claims["fig5-boost-xgb"].real.verdict == C.NOT_TESTED  # no log-loss rows
    flipped = pd.DataFrame(rows).assign(model=lambda t: t["model"].map({"SLM Forest": "RF", "RF": "SLM Forest"}))
    assert {c.id: c for c in summary._convergence_claims(flipped)}["fig5-forest-rf"].real.verdict == C.NOT_HELD


def test_ensembles_best_tests_the_better_ensemble_against_every_other_model():
    rows = []
    for f in range(10):
        for model, acc in (("SLM Forest", 0.90), ("SLM Boost", 0.95), ("RF", 0.70), ("DT", 0.60)):
            rows.append({"dataset": "wine", "model": model, "repeat": 0, "fold": f, "n_train": 60, "n_test": 40,
                         "accuracy": acc + 0.002 * f * (model == "RF")})
    d = summary._best_on(pd.DataFrame(rows), summary.ENSEMBLES, ["wine"], "accuracy")
    assert d.verdict == C.HELD and "wine SLM Boost" in d.evidence  # the other ensemble is no rival
    assert not any("SLM Forest" in x for x in d.details)
