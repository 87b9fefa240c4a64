"""randml_core.stats against worked examples: Demsar (2006) Section 3.2.4 and Table 5, hand-worked ranks,
Holm and corrected t-test numbers, scipy as an independent reference, and the refusals."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats as sps

from randml_core.stats import (HIGHER_IS_BETTER, StatsRefusal, bayes_signed_rank, bayes_signed_rank_posterior,
                               cd_diagram, compare,
                               corrected_resampled_t, corrected_ttest, friedman, higher_is_better, holm,
                               min_friedman_datasets, min_wilcoxon_pairs, nemenyi_cd, nemenyi_groups,
                               nemenyi_q, rank_matrix, wilcoxon_signed_rank)
from randml_core.stats.pairwise import signed_rank_exact_p

FAST = 2000  # posterior draws where the Bayesian numbers are not what the test checks

# Per-dataset ranks of 4 algorithms (1 = best) whose rank sums are 44, 28, 40.5, 27.5 over N = 14, i.e. the
# average ranks of Demsar (2006), Section 3.2.4: 3.143, 2.000, 2.893, 1.964. The last row has a tie.
DEMSAR_RANK_ROWS = [(4, 3, 1, 2), (4, 3, 1, 2), (4, 2, 3, 1), (4, 2, 3, 1), (4, 1, 3, 2), (4, 1, 3, 2),
                    (3, 2, 4, 1), (3, 2, 4, 1), (3, 1, 4, 2), (3, 1, 4, 2), (2, 1, 3, 4), (1, 4, 2, 3),
                    (1, 2, 4, 3), (4, 3, 1.5, 1.5)]


def demsar_scores() -> pd.DataFrame:
    """GMean-like scores (higher is better) that rank as DEMSAR_RANK_ROWS: score = 0.9 - 0.1 * rank."""
    ranks = np.array(DEMSAR_RANK_ROWS, dtype=float)
    return pd.DataFrame(0.9 - 0.1 * ranks, index=[f"d{i:02d}" for i in range(14)],
                        columns=["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"])


# --- metric direction -------------------------------------------------------------------------------

def test_direction_table_and_unknown_metric_refused():
    assert {m for m, up in HIGHER_IS_BETTER.items() if up} == {"gmean", "accuracy", "balanced_accuracy"}
    assert {m for m, up in HIGHER_IS_BETTER.items() if not up} == {"rmse", "mae", "log_loss"}
    assert higher_is_better("gmean") is True and higher_is_better("rmse") is False
    with pytest.raises(ValueError, match=r"unknown metric 'my_score'.*higher_is_better=True or False"):
        higher_is_better("my_score")
    assert higher_is_better("my_score", True) is True and higher_is_better("brier", False) is False
    # a scikit-learn scorer (issue 33): its sign says, by its name or its stored column (neg_ dropped)
    assert higher_is_better("f1") is True and higher_is_better("f1_macro") is True
    assert higher_is_better("neg_mean_absolute_error") is False and higher_is_better("mean_absolute_error") is False
    with pytest.raises(ValueError, match="lower-is-better"):
        higher_is_better("rmse", True)
    with pytest.raises(TypeError):
        HIGHER_IS_BETTER["f1"] = True  # the public table is read-only


# --- ranks ------------------------------------------------------------------------------------------

def test_ranks_with_ties_hand_worked_and_reversed_for_rmse():
    scores = pd.DataFrame({"A": [0.9, 0.7, 0.5], "B": [0.8, 0.7, 0.6], "C": [0.8, 0.7, 0.4]},
                          index=["d1", "d2", "d3"])
    # higher is better: d1 A=1, B=C=(2+3)/2=2.5; d2 all tied = (1+2+3)/3 = 2; d3 B=1, A=2, C=3
    r = rank_matrix(scores, higher_is_better=True)
    assert r.loc["d1"].tolist() == [1.0, 2.5, 2.5]
    assert r.loc["d2"].tolist() == [2.0, 2.0, 2.0]
    assert r.loc["d3"].tolist() == [2.0, 1.0, 3.0]
    res = compare(scores, "gmean", bayes_samples=FAST)
    assert res.ranks.to_dict() == pytest.approx({"A": 5 / 3, "B": 5.5 / 3, "C": 7.5 / 3})
    # as rmse (lower is better): d1 B=C=1.5, A=3; d2 all 2; d3 C=1, A=2, B=3
    res = compare(scores, "rmse", bayes_samples=FAST)
    assert res.ranks.to_dict() == pytest.approx({"A": 7 / 3, "B": 6.5 / 3, "C": 4.5 / 3})
    assert res.dataset_ranks.loc["d1"].tolist() == [3.0, 1.5, 1.5]


def test_float_noise_ties():
    scores = pd.DataFrame({"A": [0.1 + 0.2, 0.5], "B": [0.3, 0.4], "C": [0.2, 0.6]})  # 0.1+0.2 != 0.3 in floats
    assert rank_matrix(scores, True).iloc[0].tolist() == [1.5, 1.5, 3.0]


# --- Friedman, Iman-Davenport, Nemenyi: Demsar (2006) -------------------------------------------------

def test_demsar_section_324_example():
    res = compare(demsar_scores(), "gmean", bayes_samples=FAST)
    assert res.n_datasets == 14 and res.dropped == []
    assert [round(v, 3) for v in res.ranks] == [3.143, 2.000, 2.893, 1.964]
    assert round(res.friedman.statistic, 2) == 9.28 and res.friedman.df == (3,)
    assert round(res.iman_davenport.statistic, 2) == 3.69 and res.iman_davenport.df == (3, 39)
    # chi-square survival with 3 df in closed form: erfc(sqrt(x/2)) + sqrt(2x/pi) exp(-x/2)
    x = res.friedman.statistic
    assert res.friedman.p == pytest.approx(special.erfc(math.sqrt(x / 2)) + math.sqrt(2 * x / math.pi)
                                           * math.exp(-x / 2), rel=1e-10)
    # Demsar: the critical F(3, 39) at 0.05 is 2.85, so F_F = 3.69 rejects; chi2 critical 7.8 < 9.28
    assert round(sps.f.ppf(0.95, 3, 39), 2) == 2.85 and res.iman_davenport.p < 0.05 and res.friedman.p < 0.05
    assert round(res.cd.q_alpha, 3) == 2.569 and round(res.cd.value, 2) == 1.25
    assert res.cd.value == pytest.approx(2.569 * math.sqrt(4 * 5 / (6 * 14)), abs=5e-4)
    # Demsar: at 0.05, C4.5+m+cf (1.964) vs C4.5 (3.143) differ by 1.179 < CD = 1.25: not significant
    pw = res.pairwise.set_index(["model_a", "model_b"])
    assert not pw.loc[("C4.5", "C4.5+m+cf"), "nemenyi_significant"]
    assert pw.loc[("C4.5", "C4.5+m+cf"), "rank_diff"] == pytest.approx(44 / 14 - 27.5 / 14)


def test_demsar_example_at_alpha_010():
    # Demsar 3.2.4: at alpha = 0.10, CD = 2.291 * sqrt(20/84) = 1.12, and C4.5+m+cf beats C4.5 (1.18 > 1.12)
    res = compare(demsar_scores(), "gmean", alpha=0.10, bayes_samples=FAST)
    assert round(res.cd.q_alpha, 3) == 2.291 and round(res.cd.value, 2) == 1.12
    pw = res.pairwise.set_index(["model_a", "model_b"])
    assert pw.loc[("C4.5", "C4.5+m+cf"), "nemenyi_significant"]
    assert not pw.loc[("C4.5+m", "C4.5+m+cf"), "nemenyi_significant"]


def test_friedman_matches_scipy_without_ties():
    rng = np.random.default_rng(3)
    scores = pd.DataFrame(rng.uniform(size=(9, 5)), columns=list("abcde"))
    fr, idv = friedman(rank_matrix(scores, True).mean().to_numpy(), 9)
    ref = sps.friedmanchisquare(*[scores[c] for c in scores])
    assert fr.statistic == pytest.approx(ref.statistic, rel=1e-12) and fr.p == pytest.approx(ref.pvalue, rel=1e-10)
    assert idv.statistic == pytest.approx(8 * fr.statistic / (9 * 4 - fr.statistic), rel=1e-12)


def test_perfect_agreement_gives_maximal_friedman():
    scores = pd.DataFrame([[3.0, 2.0, 1.0]] * 4, columns=list("abc"))
    fr, idv = friedman(rank_matrix(scores, True).mean().to_numpy(), 4)
    assert fr.statistic == pytest.approx(4 * 2)  # N (k - 1)
    assert idv.statistic == math.inf and idv.p == 0.0


@pytest.mark.parametrize("alpha,table", [
    (0.05, [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]),
    (0.10, [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920])])
def test_nemenyi_q_matches_demsar_table_5a(alpha, table):
    # Demsar (2006) Table 5(a), k = 2..10, printed to 3 decimals (one or two entries differ in the last digit)
    assert [nemenyi_q(k, alpha) for k in range(2, 11)] == pytest.approx(table, abs=1.1e-3)


def test_nemenyi_groups():
    # sorted ranks 1.0, 1.5, 2.6, 3.0 with CD 1.2: {0,1} (2.6 - 1.0 >= 1.2), {1,2} (1.1 < 1.2), {2,3}
    assert nemenyi_groups([3.0, 1.5, 1.0, 2.6], 1.2) == [(0, 1), (1, 2), (2, 3)]
    assert nemenyi_groups([1.0, 2.0, 3.0], 5.0) == [(0, 2)]
    assert nemenyi_groups([1.0, 2.0, 3.0], 0.5) == []


# --- Holm, Wilcoxon ---------------------------------------------------------------------------------

def test_holm_hand_worked():
    # sorted p 0.01, 0.03, 0.04 (m = 3): 3*0.01 = 0.03; 2*0.03 = 0.06; 1*0.04 = 0.04 -> max(0.06, 0.04) = 0.06
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    # sorted 0.001, 0.02, 0.04, 0.5 (m = 4): 0.004, 0.06, 0.08, 0.5; the NaN is not counted in m
    assert holm([0.04, 0.001, np.nan, 0.02, 0.5]) == pytest.approx([0.08, 0.004, np.nan, 0.06, 0.5], nan_ok=True)
    assert holm([0.6, 0.7]) == pytest.approx([1.0, 1.0])  # capped at 1


def test_wilcoxon_matches_scipy_and_holm():
    rng = np.random.default_rng(7)
    base = rng.uniform(0.6, 0.9, 8)
    scores = pd.DataFrame({"A": base, "B": base + rng.normal(0.02, 0.02, 8), "C": base + rng.normal(0, 0.03, 8)})
    res = compare(scores, "accuracy", bayes_samples=FAST)
    pw = res.pairwise
    for row in pw.itertuples():
        ref = sps.wilcoxon(scores[row.model_a] - scores[row.model_b])
        assert row.p == pytest.approx(ref.pvalue, rel=1e-12) and row.wilcoxon_w == ref.statistic
    assert pw["p_holm"].to_numpy() == pytest.approx(holm(pw["p"].to_numpy()))
    assert (pw["significant"] == (pw["p_holm"] < 0.05)).all()


def test_wilcoxon_exact_smallest_p():
    # all 6 differences of one sign: exact two-sided p = 2 / 2**6
    _, p, note = wilcoxon_signed_rank(np.arange(6) + 1.0, np.zeros(6))
    assert p == pytest.approx(2 / 64) and note is None
    assert min_wilcoxon_pairs(0.05) == 6 and min_wilcoxon_pairs(0.01) == 8
    _, p, note = wilcoxon_signed_rank([1, 2, 3, 4, 5, 6.0], [0, 0, 0, 0, 0, 6.0])  # one zero difference
    assert p == pytest.approx(2 / 32) and "only 5 of 6 datasets differ" in note
    # six equal differences share rank 3.5, R+ = 21 is the maximum: p = 2 * (1/64), ties or not
    w, p, _ = wilcoxon_signed_rank(np.full(6, 0.1), np.zeros(6))
    assert (w, p) == (0.0, pytest.approx(2 / 64))


@pytest.mark.parametrize("d", [
    [0.1, 0.1, -0.2, 0.3, 0.3, 0.3, -0.1, 0.2],        # tied |d|
    [0.1, 0.0, 0.2, -0.2, 0.4, 0.0, 0.5, 0.6, -0.1],   # tied |d| and zeros
    [0.3, -0.1, 0.25, 0.7, 0.05, -0.4, 0.9, 0.15]])    # no ties: scipy's exact distribution
def test_tied_signed_rank_matches_scipy_permutation(d):
    # for n <= 13 with ties or zeros scipy enumerates all 2^n sign flips; the subset-sum count must agree
    d = np.array(d)
    ref = sps.wilcoxon(d)
    w, p, _ = wilcoxon_signed_rank(d, np.zeros_like(d))
    assert p == pytest.approx(ref.pvalue, rel=1e-12) and w == ref.statistic


def test_exact_p_by_enumeration():
    # 2^10 sign vectors enumerated directly against the subset-sum distribution, mid-ranks included
    ranks = sps.rankdata([1, 1, 2, 3, 3, 3, 4, 5, 5, 6])
    flips = np.array(np.meshgrid(*[[0, 1]] * 10)).reshape(10, -1).T
    null = flips @ ranks
    for r_plus in (6.5, 12.0, 27.5):
        expected = min(1.0, 2 * min(np.mean(null <= r_plus + 1e-9), np.mean(null >= r_plus - 1e-9)))
        assert signed_rank_exact_p(ranks, r_plus) == pytest.approx(expected, rel=1e-12)


# --- corrected resampled t-test ---------------------------------------------------------------------

def _folds(diffs_by_dataset: dict, k: int, n_train=90, n_test=30, metric="gmean") -> pd.DataFrame:
    rows = []
    for ds, d in diffs_by_dataset.items():
        for i, di in enumerate(d):
            rep, fold = divmod(i, k)
            base = 0.7 + 0.01 * fold
            rows.append(dict(dataset=ds, model="A", repeat=rep, fold=fold, n_train=n_train, n_test=n_test,
                             **{metric: base + di}))
            rows.append(dict(dataset=ds, model="B", repeat=rep, fold=fold, n_train=n_train, n_test=n_test,
                             **{metric: base}))
    return pd.DataFrame(rows)


def test_corrected_ttest_hand_worked():
    # r = 2 repeats of k = 4 folds, d = 0.01 * [1,2,3,2, 2,3,1,2]: mean 0.02, squared deviations
    # (0.01)^2 * (1+0+1+0+0+1+1+0) = 4e-4, var = 4e-4 / 7; n_test / n_train = 30 / 90 = 1/3;
    # t = 0.02 / sqrt((1/8 + 1/3) * 4e-4 / 7) = 2 / sqrt(44 / 168) = 3.9080, df = 7
    d = 0.01 * np.array([1, 2, 3, 2, 2, 3, 1, 2])
    t_hand = 2 / math.sqrt(44 / 168)
    assert t_hand == pytest.approx(3.9080, abs=1e-4)
    t, df, p = corrected_resampled_t(d, 30 / 90)
    assert t == pytest.approx(t_hand, rel=1e-12) and df == 7
    assert p == pytest.approx(2 * sps.t.sf(t_hand, 7), rel=1e-12) and p == pytest.approx(0.00584, abs=5e-5)
    out = corrected_ttest(_folds({"heart": d}, k=4), "A", "B", "gmean").iloc[0]
    assert (out.k, out.r, out.n_folds, out.df) == (4, 2, 8, 7)
    assert out.t == pytest.approx(t_hand, rel=1e-9) and out.mean_diff == pytest.approx(0.02)
    assert out.better == "A" and out.significant and out.test_train_ratio == pytest.approx(1 / 3)
    # same data as rmse: A's larger values are worse
    rm = corrected_ttest(_folds({"heart": d}, k=4, metric="rmse"), "A", "B", "rmse").iloc[0]
    assert rm.better == "B" and rm.t == pytest.approx(t_hand, rel=1e-9)


def test_corrected_ttest_limit_uncorrected():
    # r = 1, k = 10: with n_test / n_train = 0 the statistic is the plain paired t (scipy.ttest_rel);
    # the correction (n_test / n_train = 1/9 for 10-fold CV) only shrinks |t|
    rng = np.random.default_rng(11)
    a, b = rng.uniform(0.7, 0.8, 10), rng.uniform(0.68, 0.78, 10)
    t0, df0, p0 = corrected_resampled_t(a - b, 0.0)
    ref = sps.ttest_rel(a, b)
    assert t0 == pytest.approx(ref.statistic, rel=1e-12) and p0 == pytest.approx(ref.pvalue, rel=1e-10)
    t1, df1, p1 = corrected_resampled_t(a - b, 1 / 9)
    assert df1 == df0 == 9 and abs(t1) < abs(t0) and p1 > p0
    assert t1 == pytest.approx(t0 * math.sqrt((1 / 10) / (1 / 10 + 1 / 9)), rel=1e-12)


def test_corrected_ttest_refusals_and_missing_folds():
    with pytest.raises(StatsRefusal, match=r"needs >= 2 paired folds, got 1"):
        corrected_resampled_t([0.1], 0.25)
    folds = _folds({"one": [0.01], "many": [0.01, 0.03, 0.02, np.nan, 0.02]}, k=5)
    out = corrected_ttest(folds, "A", "B", "gmean").set_index("dataset")
    assert math.isnan(out.loc["one", "t"]) and "needs >= 2 paired folds, got 1" in out.loc["one", "note"]
    assert out.loc["many", "n_folds"] == 4 and "1 fold(s) dropped" in out.loc["many", "note"]
    assert out.loc["many", "mean_diff"] == pytest.approx(0.02)
    with pytest.raises(ValueError, match="model 'Z' not in the fold frame"):
        corrected_ttest(folds, "A", "Z", "gmean")
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['n_test'\]"):
        corrected_ttest(folds.drop(columns="n_test"), "A", "B", "gmean")
    dup = pd.concat([folds, folds.iloc[:1]])
    with pytest.raises(ValueError, match="more than one row"):
        corrected_ttest(dup, "A", "B", "gmean")


# --- Bayesian signed-rank -----------------------------------------------------------------------------

def test_bayesian_signed_rank():
    rng = np.random.default_rng(5)
    a = rng.uniform(0.6, 0.9, 12)
    b = a + 0.05 + rng.normal(0, 0.01, 12)  # b clearly better by 5 points, rope 1 point
    pl, pe, pr = bayes_signed_rank(a, b, 0.01, True, nsamples=20000)
    assert pr > 0.95 and pl + pe + pr == pytest.approx(1.0)
    pl, pe, pr = bayes_signed_rank(b, a, 0.01, True, nsamples=20000)  # swapped: left now
    assert pl > 0.95
    pl, pe, pr = bayes_signed_rank(a, a.copy(), 0.01, True, nsamples=20000)  # identical
    assert pe > 0.5 and pe > max(pl, pr)
    # rmse: b's larger values are worse, so a (left) is better
    pl, pe, pr = bayes_signed_rank(a, b, 0.01, False, nsamples=20000)
    assert pl > 0.95


def test_bayesian_posterior_mean_matches_dirichlet_moments():
    # E[theta_right] = sum_ij M_ij E[w_i w_j] with w ~ Dirichlet(alpha), A = sum(alpha):
    # E[w_i w_j] = alpha_i alpha_j / (A (A+1)) for i != j and alpha_i (alpha_i + 1) / (A (A+1)) on the diagonal
    a = np.array([0.70, 0.80, 0.75, 0.60, 0.90])
    b = a + np.array([0.03, -0.005, 0.012, 0.02, -0.03])
    rope = 0.004
    z = np.concatenate(([0.0], b - a))
    alpha = np.array([0.5, 1, 1, 1, 1, 1])
    big_a = alpha.sum()
    moments = np.outer(alpha, alpha) / (big_a * (big_a + 1))
    moments[np.diag_indices(6)] = alpha * (alpha + 1) / (big_a * (big_a + 1))
    sums = z[:, None] + z[None, :]
    theta = bayes_signed_rank_posterior(a, b, rope, True, nsamples=40000)
    for col, mask in ((0, sums < -2 * rope), (2, sums > 2 * rope)):
        expected = float((moments * mask).sum())
        assert theta[:, col].mean() == pytest.approx(expected, abs=5 * theta[:, col].std() / 200)
    assert theta.sum(axis=1) == pytest.approx(np.ones(40000))


def test_bayesian_constant_difference_closed_form():
    # every z_i = c (n = 2 datasets), prior weight w0 ~ Beta(0.5, n) on z_0 = 0:
    # c > 2 rope: theta_rope = w0^2, theta_right = 1 - w0^2  -> P(right) = P(w0 < 1/sqrt 2)
    # rope < c < 2 rope: theta_right = (1 - w0)^2           -> P(right) = P(w0 < 1 - 1/sqrt 2)
    a = np.array([0.5, 0.6])
    for c, cut in ((0.05, 1 / math.sqrt(2)), (0.015, 1 - 1 / math.sqrt(2))):
        _, pe, pr = bayes_signed_rank(a, a + c, 0.01, True, nsamples=50000)
        assert pr == pytest.approx(sps.beta.cdf(cut, 0.5, 2), abs=0.01) and pe == pytest.approx(1 - pr)


def test_bayesian_fixed_seed_repeats():
    rng = np.random.default_rng(9)
    a, b = rng.uniform(0.6, 0.9, 10), rng.uniform(0.6, 0.9, 10)
    first = bayes_signed_rank(a, b, 0.02, True, nsamples=20000, seed=3)
    assert bayes_signed_rank(a, b, 0.02, True, nsamples=20000, seed=3) == first
    assert 0.0 < max(first) < 1.0


# --- refusals and missing cells ---------------------------------------------------------------------

def test_two_models_refuse_friedman_and_cd(tmp_path):
    scores = demsar_scores()[["C4.5", "C4.5+m"]]
    res = compare(scores, "gmean", bayes_samples=FAST)
    assert not res.friedman.applicable and math.isnan(res.friedman.statistic)
    assert "need >= 3 models, got 2" in res.friedman.reason and "Wilcoxon" in res.friedman.reason
    assert not res.cd.applicable and "Friedman" in res.refusals and "Nemenyi CD" in res.refusals
    assert len(res.pairwise) == 1 and not math.isnan(res.pairwise["p"].iloc[0])  # Wilcoxon still runs
    with pytest.raises(StatsRefusal, match="no CD diagram.*>= 3 models"):
        cd_diagram(res, tmp_path / "cd")
    assert list(tmp_path.iterdir()) == []
    assert "need >= 3 models, got 2" in res.to_markdown()


def test_four_datasets_wilcoxon_not_applicable():
    scores = demsar_scores().iloc[:4]
    res = compare(scores, "gmean", bayes_samples=FAST)
    pw = res.pairwise
    assert pw["p"].isna().all() and pw["p_holm"].isna().all() and pw["significant"].isna().all()
    assert all("needs >= 6 paired datasets" in n and "got 4" in n for n in pw["note"])
    assert pw[["p_left", "p_rope", "p_right"]].notna().all().all()  # the Bayesian test still applies
    assert res.friedman.applicable
    assert "Wilcoxon not applicable" in res.to_markdown()


def test_one_dataset_refuses_friedman_with_count():
    res = compare(demsar_scores().iloc[:1], "gmean", bayes_samples=FAST)
    assert "need >= 2 datasets, got 1" in res.friedman.reason
    assert f"at least {min_friedman_datasets(4, 0.05)} datasets" in res.friedman.reason
    # k = 4: N (k-1) = 6 at N = 2 gives chi2.sf(6, 3) = 0.11; N = 3 gives chi2.sf(9, 3) = 0.029
    assert min_friedman_datasets(4, 0.05) == 3 and min_friedman_datasets(3, 0.05) == 3
    assert min_friedman_datasets(10, 0.05) == 2  # chi2.sf(18, 9) = 0.035


def test_missing_cells_dropped_and_reported():
    scores = demsar_scores()
    scores.iloc[2, 1] = np.nan
    scores.iloc[5, 3] = np.nan
    res = compare(scores, "gmean", bayes_samples=FAST)
    assert res.n_datasets == 12 and res.dropped == ["d02", "d05"]
    expected = demsar_scores().drop(index=["d02", "d05"]).rank(axis=1, ascending=False).mean()
    assert res.ranks.to_numpy() == pytest.approx(expected.to_numpy())
    assert (res.pairwise["n"] == 12).all()
    assert "Dropped 2 dataset(s) where a model has no score: d02, d05" in res.to_markdown()
    allnan = scores.copy()
    allnan.iloc[:, 0] = np.nan
    with pytest.raises(StatsRefusal, match="no dataset has a score for every model"):
        compare(allnan, "gmean")


def test_nemenyi_refusal_direct():
    with pytest.raises(StatsRefusal, match="need >= 3 models, got 2"):
        nemenyi_cd(2, 10)
    with pytest.raises(StatsRefusal, match="need >= 2 datasets, got 1"):
        friedman([1.0, 2.0, 3.0], 1)


# --- report and diagram -----------------------------------------------------------------------------

def test_markdown_section():
    md = compare(demsar_scores(), "gmean", bayes_samples=FAST).to_markdown()
    assert "4 models on 14 datasets" in md and "| C4.5 | 3.143 |" in md
    # exact values from the rank sums 44, 28, 40.5, 27.5 (Demsar prints 9.28 / 3.69 / 1.25 from rounded ranks)
    chi2 = 12 * 14 / 20 * (sum((s / 14) ** 2 for s in (44, 28, 40.5, 27.5)) - 25)
    ff = 13 * chi2 / (14 * 3 - chi2)
    assert f"chi2_F = {chi2:.3f} (df 3)" in md and f"F_F = {ff:.3f} (df 3, 39)" in md
    assert f"CD = {2.569 * math.sqrt(20 / 84):.3f}" in md
    assert md.count("\n| C4.5 |") == 1 + 3  # ranks row + 3 pairwise rows with C4.5 as model a


def test_cd_diagram_files(tmp_path):
    res = compare(demsar_scores(), "gmean", bayes_samples=FAST)
    paths = cd_diagram(res, tmp_path / "figs" / "cd_gmean")
    assert [p.name for p in paths] == ["cd_gmean.png", "cd_gmean.pdf"]
    assert paths[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and paths[0].stat().st_size > 1000
    assert paths[1].read_bytes()[:5] == b"%PDF-" and paths[1].stat().st_size > 1000
    assert sorted(p.name for p in (tmp_path / "figs").iterdir()) == ["cd_gmean.pdf", "cd_gmean.png"]
    first = paths[1].read_bytes()
    cd_diagram(res, tmp_path / "figs" / "cd_gmean")  # rewrite in place: same bytes, still no temp files
    assert paths[1].read_bytes() == first
    assert len(list((tmp_path / "figs").iterdir())) == 2


def test_every_stored_metric_has_a_direction():
    """The metric columns rows carry (config checks, reports, compare list them) and the direction table of the
    statistics name the same metrics: a new metric must be added to both."""
    from randml_core.metrics import STORED_METRICS
    from randml_core.stats.direction import HIGHER_IS_BETTER
    assert set(STORED_METRICS) == set(HIGHER_IS_BETTER) and len(STORED_METRICS) == len(set(STORED_METRICS))


def test_no_cd_diagram_where_no_rank_difference_can_reach_the_cd(tmp_path):
    """3 models on 2 datasets: CD = q_0.05(3) sqrt(3 * 4 / (6 * 2)) = 2.343 > k - 1 = 2, the largest possible
    difference of average ranks: no diagram (it could only join all three), with the reason; 4 datasets draw one."""
    two = compare(demsar_scores().iloc[:2, :3], "gmean", bayes_samples=FAST)
    assert two.cd.value == pytest.approx(2.343 * math.sqrt(12 / 12), abs=1e-3) and two.cd.value > 2
    with pytest.raises(StatsRefusal, match=r"no CD diagram: with 2 datasets the Nemenyi CD \(2\.34\d\) exceeds k - 1 = 2"):
        cd_diagram(two, tmp_path / "cd")
    assert list(tmp_path.iterdir()) == []
    four = compare(demsar_scores().iloc[:4, :3], "gmean", bayes_samples=FAST)  # CD = 2.343 / sqrt(2) = 1.657 < 2
    assert [p.name for p in cd_diagram(four, tmp_path / "cd")] == ["cd.png", "cd.pdf"]
