"""The EEM claims registered 2026-11-28 (issue 42): Section 7.1 "best in some datasets", Section 7.3 "slightly
worse" / "generally outperform" / "very close", and "scales better", on hand-built folds."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from randml_core.report import claims as C
from randml_papers.eem import summary


def _t5(ratio_of_n) -> pd.DataFrame:
    rows = []
    for i, n in enumerate((100, 1000, 10_000, 100_000)):
        for fold in range(5):
            for a in summary.ACTS:
                eem = 0.01 * (1 + 0.1 * fold)
                rows += [{"dataset": f"d{i}", "model": f"EEM-{a}", "repeat": 0, "fold": fold, "n_train": n,
                          "n_hidden": 1000, "cpu_seconds": eem},
                         {"dataset": f"d{i}", "model": f"WELM-{a}", "repeat": 0, "fold": fold, "n_train": n,
                          "n_hidden": 1000, "cpu_seconds": eem * ratio_of_n(n) * (1 + 0.01 * ((i + fold) % 3))}]
    return pd.DataFrame(rows)


def test_scales_better_is_the_slope_of_the_log_time_ratio_on_log_n():
    t5 = _t5(lambda n: n ** 0.2)
    d = summary.scales_better(t5, [f"d{i}" for i in range(4)])
    # the same slope another way: per dataset the mean log ratio, numpy's least-squares fit on log n
    per = t5.pivot_table(index=["dataset", "fold", "n_train"], columns="model", values="cpu_seconds").reset_index()
    logs = np.mean([np.log(per[f"WELM-{a}"] / per[f"EEM-{a}"]) for a in summary.ACTS], axis=0)
    means = pd.DataFrame({"d": per["dataset"], "n": per["n_train"], "r": logs}).groupby("d").mean()
    slope = np.polyfit(np.log(means["n"]), means["r"], 1)[0]
    assert slope == pytest.approx(0.2, abs=0.01)
    assert d.verdict == C.HELD and f"{slope:+.3f}" in d.evidence and d.p < 0.05
    assert summary.scales_better(_t5(lambda n: n ** -0.2), [f"d{i}" for i in range(4)]).verdict == C.NOT_HELD
    assert summary.scales_better(t5, ["d0", "d1"]).verdict == C.INCONCLUSIVE  # a slope needs >= 3 sets


def _unb(diff: float, noise: float = 0.002) -> pd.DataFrame:
    rows = []
    for i in range(5):
        for fold in range(10):
            for a in summary.ACTS:
                base = 0.8 + 0.01 * i
                rows += [{"dataset": f"s{i}", "model": f"WELM-{a}", "repeat": 0, "fold": fold, "n_train": 90,
                          "n_test": 10, "gmean": base},
                         {"dataset": f"s{i}", "model": f"EEM-{a}", "repeat": 0, "fold": fold, "n_train": 90,
                          "n_test": 10, "gmean": base + diff + noise * ((fold + i) % 3 - 1)}]
    return pd.DataFrame(rows)


@pytest.mark.parametrize("diff, verdict", [(-0.02, C.HELD), (+0.02, C.NOT_HELD), (-0.2, C.NOT_HELD)])
def test_slightly_worse_is_a_band_below_zero(diff, verdict):
    pairs = [(f"EEM-{a}", f"WELM-{a}") for a in summary.OTHER_ACTS]
    d = summary.slightly_worse(_unb(diff), pairs, [f"s{i}" for i in range(5)])
    assert d.verdict == verdict, d.evidence
    assert d.evidence.startswith("10 experiments")  # 5 sets x (nsig, rbf)


def test_best_somewhere_and_everywhere():
    rows = []
    for fold in range(10):
        for d, scores in (("a", {"EEM-rbf": 0.95, "EEKM-rbf": 0.90, "WELM-rbf": 0.70, "SVM-rbf": 0.72}),
                          ("b", {"EEM-rbf": 0.60, "EEKM-rbf": 0.62, "WELM-rbf": 0.90, "SVM-rbf": 0.70})):
            rows += [{"dataset": d, "model": m, "repeat": 0, "fold": fold, "n_train": 90, "n_test": 10,
                      "gmean": v + 0.001 * fold * (m == "SVM-rbf")} for m, v in scores.items()]
    f = pd.DataFrame(rows)
    some = C.best_among(f, summary.EEM_FAMILY, ["a", "b"], "gmean", need="any", higher_is_better=True)
    assert some.verdict == C.HELD and "best shown on a" in some.evidence and "a EEM-rbf, b EEKM-rbf" in some.evidence
    every = C.best_among(f, summary.EEM_FAMILY, ["a", "b"], "gmean", need="all", higher_is_better=True)
    assert every.verdict == C.NOT_HELD and "better on b (WELM-rbf" in every.evidence
    assert some.p < 0.05 <= every.p
