"""The claim rules (randml_core.report.claims) and the margin tests under them (randml_core.stats.margins),
checked against scipy's one-sample t-test, the corrected resampled t-test and hand-built fold frames."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from randml_core.report import claims as C
from randml_core.stats import corrected_resampled_t, holm
from randml_core.stats.margins import log_ratio_test, margin_test


def test_margin_test_matches_scipy_one_sided_t_for_independent_replicates():
    d = np.array([0.8, -0.2, 1.1, 0.4, 0.9, 0.3, -0.1, 0.6])
    iv = margin_test(d, -0.5, 0.5)
    assert iv.p_above == pytest.approx(stats.ttest_1samp(d + 0.5, 0.0, alternative="greater").pvalue, rel=1e-12)
    assert iv.p_below == pytest.approx(stats.ttest_1samp(d - 0.5, 0.0, alternative="less").pvalue, rel=1e-12)
    # the (1 - 2 alpha) interval is scipy's 90 % confidence interval of the mean
    ci = stats.ttest_1samp(d, 0.0).confidence_interval(0.90)
    assert (iv.low, iv.high) == (pytest.approx(ci.low, rel=1e-12), pytest.approx(ci.high, rel=1e-12))


def test_margin_test_with_the_corrected_variance_halves_the_corrected_two_sided_p():
    rng = np.random.default_rng(3)
    d = rng.normal(0.4, 1.0, size=30)
    ratio = 1 / 9
    t, df, p_two = corrected_resampled_t(d, ratio)
    iv = margin_test(d, 0.0, 0.0, test_train_ratio=ratio)
    assert t > 0
    assert iv.p_above == pytest.approx(p_two / 2, rel=1e-10)
    assert iv.p_below == pytest.approx(1 - p_two / 2, rel=1e-10)
    # the correction widens the interval by sqrt(1 + n * ratio) against the plain one
    plain = margin_test(d, 0.0, 0.0)
    assert (iv.high - iv.low) / (plain.high - plain.low) == pytest.approx(math.sqrt(1 + 30 * ratio), rel=1e-12)


def test_log_ratio_test_is_a_one_sample_t_on_log_times():
    slow = np.array([2.1, 2.0, 2.3, 1.9, 2.2])
    fast = np.array([1.0, 0.9, 1.0, 1.0, 1.05])
    iv = log_ratio_test(slow, fast, factor=1.5)
    ref = stats.ttest_1samp(np.log(slow / fast), math.log(1.5), alternative="greater").pvalue
    assert iv.p_above == pytest.approx(ref, rel=1e-12)
    assert iv.mean == pytest.approx(math.exp(np.log(slow / fast).mean()), rel=1e-12)
    with pytest.raises(ValueError, match="> 0 seconds"):
        log_ratio_test([1.0, 0.0], [1.0, 1.0])


def _folds(shifts: dict[str, float], noise: float = 0.3, k: int = 10, seed: int = 0) -> pd.DataFrame:
    """Two models A, B on datasets with A - B = shift + noise per fold (accuracy units)."""
    rng = np.random.default_rng(seed)
    rows = []
    for d, shift in shifts.items():
        base = rng.normal(80, 2, size=k)
        diff = shift + rng.normal(0, noise, size=k)
        for f in range(k):
            for m, v in (("A", base[f] + diff[f]), ("B", base[f])):
                rows.append({"dataset": d, "model": m, "repeat": 0, "fold": f, "n_train": 90, "n_test": 10, "accuracy": v})
    return pd.DataFrame(rows)


def test_comparable_states_a_minus_b_in_the_metrics_own_units_for_lower_is_better():
    # fit seconds, lower is better: A takes 0.25 s more on every fold. The detail line printed
    # "A - B = -0.250" (the test's a-better sign) although A - B = +0.250 (EEM Table 5 on abalone7)
    f = _folds({"x": 0.25}, noise=0.0).rename(columns={"accuracy": "fit_seconds"})
    d = C.comparable(f, "A", "B", "fit_seconds", ["x"], margin=0.2, higher_is_better=False)
    assert d.verdict == C.NOT_HELD
    assert d.details[0].startswith("x: A - B = +0.250 (sign: - is A better; 90% interval [+0.250, +0.250]")
    one = C.comparable(f, "A", "B", "fit_seconds", ["x"], margin=0.2, higher_is_better=False, one_sided=True)
    assert "vs margin +0.2: significantly outside" in one.details[0]  # A is worse by more than the margin
    acc = C.comparable(_folds({"x": 0.25}, noise=0.0), "A", "B", "accuracy", ["x"], margin=1.0)
    assert acc.details[0].startswith("x: A - B = +0.250 (sign: + is A better")


def test_beats_held_not_held_inconclusive_by_hand_built_folds():
    held = C.beats(_folds({"x": 3.0, "y": 0.0, "z": 2.0}), "A", "B", "accuracy", ["x", "y", "z"])
    assert held.verdict == C.HELD and "better on 2, worse on 0" in held.evidence
    worse = C.beats(_folds({"x": 3.0, "y": -3.0}), "A", "B", "accuracy", ["x", "y"])
    assert worse.verdict == C.NOT_HELD and worse.evidence.endswith("(worse: y)")
    flat = C.beats(_folds({"x": 0.0, "y": 0.0}), "A", "B", "accuracy", ["x", "y"])
    assert flat.verdict == C.INCONCLUSIVE
    need_all = C.beats(_folds({"x": 3.0, "y": 0.0}), "A", "B", "accuracy", ["x", "y"], need="all")
    assert need_all.verdict == C.INCONCLUSIVE
    assert C.beats(_folds({"x": 1.0}), "A", "B", "accuracy", []).verdict == C.NOT_TESTED


def test_beats_on_a_lower_is_better_metric_flips_the_direction():
    f = _folds({"x": 3.0, "y": 2.5}).rename(columns={"accuracy": "rmse"})
    assert C.beats(f, "A", "B", "rmse", ["x", "y"]).verdict == C.NOT_HELD   # A has the larger error
    assert C.beats(f, "B", "A", "rmse", ["x", "y"]).verdict == C.HELD


def test_paired_tests_adjust_p_by_holm_over_the_datasets_tested():
    f = _folds({"x": 0.3, "y": 0.2, "z": 0.1}, noise=0.4, seed=5)
    t = C.paired_tests(f, "A", "B", "accuracy", ["x", "y", "z"])
    np.testing.assert_allclose(t["p_holm"], holm(t["p"]))
    only_x = C.paired_tests(f, "A", "B", "accuracy", ["x"])
    assert only_x["p_holm"].iloc[0] == only_x["p"].iloc[0]          # one test: no adjustment


def test_comparable_equivalence_and_non_inferiority():
    same = _folds({"x": 0.0, "y": 0.1}, noise=0.2)
    assert C.comparable(same, "A", "B", "accuracy", ["x", "y"], margin=1.0).verdict == C.HELD
    far = _folds({"x": 0.0, "y": -4.0}, noise=0.2)
    d = C.comparable(far, "A", "B", "accuracy", ["x", "y"], margin=1.0)
    assert d.verdict == C.NOT_HELD and "outside on y" in d.evidence
    # A much better: not equivalent (outside +margin) but non-inferior
    up = _folds({"x": 4.0}, noise=0.2)
    assert C.comparable(up, "A", "B", "accuracy", ["x"], margin=1.0).verdict == C.NOT_HELD
    assert C.comparable(up, "A", "B", "accuracy", ["x"], margin=1.0, one_sided=True).verdict == C.HELD
    noisy = _folds({"x": 0.0}, noise=5.0, seed=1)
    assert C.comparable(noisy, "A", "B", "accuracy", ["x"], margin=1.0).verdict == C.INCONCLUSIVE
    with pytest.raises(ValueError, match="margin"):
        C.comparable(same, "A", "B", "accuracy", ["x"], margin=0)


def test_faster_and_exceeds():
    slow, fast = [0.040, 0.042, 0.041, 0.043], [0.021, 0.020, 0.022, 0.021]
    assert C.faster(slow, fast, 1.5).verdict == C.HELD
    assert C.faster(slow, fast, 3.0).verdict == C.NOT_HELD
    assert C.faster([0.023, 0.022, 0.024], [0.021, 0.023, 0.022], 2.0).verdict == C.NOT_HELD
    assert C.faster([1.0], [0.5], 1.0).verdict == C.NOT_TESTED
    assert C.exceeds([99.0, 99.1, 98.9], 98.0).verdict == C.HELD
    assert C.exceeds([99.0, 99.1, 98.9], 100.0).verdict == C.NOT_HELD
    assert C.exceeds([98.0, 100.0], 99.0).verdict == C.INCONCLUSIVE
    assert C.exceeds([0.9], 0.5).verdict == C.NOT_TESTED
    assert C.exceeds([1.0, 1.2, 1.1], 2.0, higher=False).verdict == C.HELD


def test_tables_counts_and_changes_since_a_snapshot():
    claims = [C.Claim("c1", "A beats B", "Table 1", "rule", C.Decision(C.HELD, "e1"),
                      substitutes=C.Decision(C.NOT_HELD, "s")),
              C.Claim("c2", "B | C", "Table 2", "rule", C.Decision(C.INCONCLUSIVE, "e2"))]
    table = C.markdown_table(claims)
    # ten columns: claim, words, rule (date), margin, real / regenerated / substitutes / paper, power, sensitivity
    assert len(table) == 4 and "B \\| C" in table[3] and table[2].count("|") == 11
    assert "regenerated data" in table[0] and "rule (2026-11-27)" in table[2]
    assert C.counts(claims) == {"held": 1, "not held": 0, "inconclusive": 1, "undecidable here": 0, "not tested": 0}
    prev = {"counts": {"held": 0, "not held": 2}, "claims": [
        {"id": "c1", "real": {"verdict": "not held", "evidence": "old"}},
        {"id": "c0", "real": {"verdict": "held", "evidence": ""}}]}
    lines = C.changes(claims, prev)
    assert any(ln.startswith("- c1: not held -> held") for ln in lines)
    assert "- c2: new claim, inconclusive" in lines and "- c0: dropped (was held)" in lines
    assert C.changes(claims, None)[2].startswith("No earlier claims file")
    with pytest.raises(ValueError, match="verdict"):
        C.Decision("maybe", "")


def test_beats_majority_reads_generally():
    f = _folds({"w": 3.0, "x": 3.0, "y": 2.5, "z": -3.0})
    assert C.beats(f, "A", "B", "accuracy", ["w", "x", "y", "z"], need="majority").verdict == C.HELD
    assert C.beats(f, "A", "B", "accuracy", ["w", "x", "y", "z"], need="any").verdict == C.NOT_HELD
    g = _folds({"w": 3.0, "x": 0.0, "y": -3.0, "z": -2.5})
    assert C.beats(g, "A", "B", "accuracy", ["w", "x", "y", "z"], need="majority").verdict == C.NOT_HELD
    with pytest.raises(ValueError, match="majority"):
        C.beats(f, "A", "B", "accuracy", ["w"], need="most")


def test_beats_on_means_counts_every_difference():
    t = pd.DataFrame({"A": [90.0, 80.0, 70.0], "B": [89.0, 80.0, 71.0]}, index=["x", "y", "z"])
    d = C.beats_on_means(t, "A", "B", True, ["x", "y", "z"])
    assert d.verdict == C.NOT_HELD and "better on 1, worse on 1, tie on 1" in d.evidence
    assert C.beats_on_means(t, "A", "B", True, ["x", "y"]).verdict == C.HELD
    assert C.beats_on_means(t, "A", "B", True, ["x", "y"], need="all").verdict == C.INCONCLUSIVE
    assert C.beats_on_means(t, "B", "A", False, ["x", "y", "z"], need="majority").verdict == C.INCONCLUSIVE


def _table(diffs: dict[str, float], noise: float = 0.001, k: int = 10) -> pd.DataFrame:
    """A, B on datasets whose mean difference A - B is ``diffs[d]`` (fold noise tiny)."""
    return _folds(diffs, noise=noise, k=k)


def test_beats_over_datasets_is_the_wilcoxon_test_on_the_dataset_means():
    f = _table({f"d{i}": 0.2 * (i + 1) for i in range(6)})  # A better on all six by 0.2..1.2 points
    d = C.beats_over_datasets(f, "A", "B", "accuracy", [f"d{i}" for i in range(6)], unit="pp", rope=0.1)
    assert d.verdict == C.HELD and "R+ = 21, R- = 0, two-sided p = 0.0312" in d.evidence
    assert "sign test 6:0 p = 0.0312" in d.evidence and "P(A better) = 0.999" in d.evidence  # prior weight at 0
    # the MDE: the t-test's at 6 * 3 / pi pairs with the sd of the six differences
    t = C.dataset_diffs(f, "A", "B", "accuracy", [f"d{i}" for i in range(6)])
    from randml_core.stats.power import mde_t
    mde = mde_t(6 * 3 / math.pi, float(t["better"].std(ddof=1)))
    assert d.power.startswith(f"MDE {mde:.3g} pp")
    # B better everywhere: not held; five datasets: no test over datasets reaches p < 0.05
    assert C.beats_over_datasets(f, "B", "A", "accuracy", list(t["dataset"]), unit="pp", rope=0.1).verdict == C.NOT_HELD
    five = C.beats_over_datasets(f, "A", "B", "accuracy", [f"d{i}" for i in range(5)], unit="pp", rope=0.1)
    assert five.verdict == C.INCONCLUSIVE and five.power.startswith("underpowered: no test over 5 dataset(s)")
    # the paper's own effect below the MDE: flagged underpowered
    weak = C.beats_over_datasets(f, "A", "B", "accuracy", list(t["dataset"]), unit="pp", rope=0.1, paper_effect=0.01)
    assert weak.power.startswith("underpowered: the paper's own mean difference +0.01 pp is below the MDE")


def test_dataset_diffs_scale_and_direction():
    f = _table({"x": 2.0, "y": -1.0}).rename(columns={"accuracy": "rmse"})
    t = C.dataset_diffs(f, "A", "B", "rmse", ["x", "y"], higher_is_better=False, scale={"x": 4.0, "y": 2.0})
    got = dict(zip(t["dataset"], zip(t["diff"].round(2), t["better"].round(2))))
    assert got == {"x": (0.5, -0.5), "y": (-0.5, 0.5)}  # lower RMSE is better: A - B > 0 means B better
    assert list(C.dataset_diffs(f, "A", "B", "rmse", ["x", "y"], scale={"x": 1.0})["dataset"]) == ["x"]


def test_equivalent_over_datasets_is_scipys_tost_on_the_dataset_means_with_sensitivity():
    diffs = {"a": 0.3, "b": -0.2, "c": 0.1, "d": 0.0, "e": 0.25, "f": -0.15}
    f = _table(diffs, noise=0.0)
    d = C.equivalent_over_datasets(f, "A", "B", "accuracy", list(diffs), 0.25, unit="pp")
    x = C.dataset_diffs(f, "A", "B", "accuracy", list(diffs))["better"].to_numpy()
    p = max(stats.ttest_1samp(x + 0.25, 0, alternative="greater").pvalue,
            stats.ttest_1samp(x - 0.25, 0, alternative="less").pvalue)
    assert 0.0001 < p < 0.05 and d.verdict == C.HELD and f"TOST p = {p:.4f}" in d.evidence
    # 90 % interval of the mean 0.05: [-0.119, +0.219], inside ±0.25 and ±0.5, not inside ±0.125
    assert d.sensitivity == "at ±0.125 pp: inconclusive; at ±0.5 pp: held"
    assert C.equivalent_over_datasets(f, "A", "B", "accuracy", list(diffs), 0.1, unit="pp").verdict == C.INCONCLUSIVE
    far = _table({k: v + 3.0 for k, v in diffs.items()}, noise=0.0)
    assert C.equivalent_over_datasets(far, "A", "B", "accuracy", list(diffs), 1.0, unit="pp").verdict == C.NOT_HELD
    one = C.equivalent_over_datasets(f, "A", "B", "accuracy", ["a"], 1.0, unit="pp")
    assert one.verdict == C.INCONCLUSIVE and one.power.startswith("underpowered")


def test_data_kind_real_regenerated_substitute():
    assert C.data_kind("iris") == "real"
    assert C.data_kind("friedman1") == "regenerated" and C.data_kind("2-new-moons") == "regenerated"
    assert C.data_kind("banknote-synthetic") == "substitute"
    assert C.data_kind("not-a-registered-name") == "real"
    assert C.data_kind("iris", stand_in_for="wine") == "substitute"
    assert C.by_kind(["iris", "friedman1", "iris", "banknote-synthetic"]) == {
        "real": ["iris"], "regenerated": ["friedman1"], "substitute": ["banknote-synthetic"]}


def test_counts_line_says_which_claims_rest_on_no_real_data():
    claims = [C.Claim("c1", "w", "t", "r", C.not_tested("no original"), substitutes=C.Decision(C.HELD, "s")),
              C.Claim("c2", "w", "t", "r", C.Decision(C.HELD, "e"), regenerated=C.Decision(C.NOT_HELD, "g"))]
    assert C.no_real_data(claims) == ["c1"]
    assert C.counts_line(claims).endswith("(real data only; 1 claim(s) rest on no real data: c1)")
    rec = C.records(claims)["claims"][1]
    assert rec["regenerated"]["verdict"] == C.NOT_HELD and rec["date"] == C.RULES_DATE
