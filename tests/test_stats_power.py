"""Power and the tests over datasets (randml_core.stats.power), checked against published values, scipy and
closed forms, and by simulation where the closed form is an approximation."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from randml_core.stats.power import (WILCOXON_ARE, mde_sign, mde_t, mde_wilcoxon, sign_test, signed_rank, t_power,
                                     tost_min_margin)


def test_mde_t_matches_the_published_one_sample_sample_size():
    # Cohen's d = 0.5, alpha 0.05 two-sided, power 0.8 needs n = 33.367 (R pwr.t.test(type="one.sample"))
    assert mde_t(33.36713, 1.0) == pytest.approx(0.5, abs=1e-5)
    # large n: the normal approximation (z_0.975 + z_0.8) sd / sqrt(n)
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
    assert mde_t(10_000, 2.0) == pytest.approx(z * 2.0 / 100, rel=1e-3)


def test_mde_t_has_the_asked_power_on_scipys_noncentral_t():
    n, sd, ratio = 10, 0.03, 1 / 9
    mde = mde_t(n, sd, test_train_ratio=ratio)
    ncp = mde / (sd * math.sqrt(1 / n + ratio))
    q = stats.t.ppf(0.975, n - 1)
    power = stats.nct.sf(q, n - 1, ncp) + stats.nct.cdf(-q, n - 1, ncp)
    assert power == pytest.approx(0.8, abs=1e-7)
    # the corrected variance widens the MDE by sqrt(1 + n * ratio) against the plain paired test
    assert mde / mde_t(n, sd) == pytest.approx(math.sqrt(1 + n * ratio), rel=1e-9)
    # one-sided: the critical value at 1 - alpha
    one = mde_t(n, 1.0, two_sided=False)
    assert stats.nct.sf(stats.t.ppf(0.95, n - 1), n - 1, one * math.sqrt(n)) == pytest.approx(0.8, abs=1e-7)
    assert mde_t(1, 1.0) == math.inf and mde_t(5, 0.0) == 0.0
    assert t_power(0.0, 9) == pytest.approx(0.05, abs=1e-12)  # no effect: the test's size


def test_mde_wilcoxon_is_the_t_tests_at_the_efficient_sample_size_and_inf_below_six():
    assert mde_wilcoxon(5, 1.0) == math.inf  # 2 / 2^5 = 0.0625: no p < 0.05 with five pairs
    assert mde_wilcoxon(9, 0.02) == pytest.approx(mde_t(9 * 3 / math.pi, 0.02), rel=1e-12)
    assert WILCOXON_ARE == pytest.approx(0.9549, abs=1e-4)
    assert mde_wilcoxon(9, 1.0) > mde_t(9, 1.0)  # less efficient than the t-test for normal differences


def test_mde_sign_by_hand_on_nine_datasets():
    # n = 9: two-sided exact p at k = 8 is 2 * 10 / 512 = 0.039 (< 0.05), at k = 7 it is 2 * 46 / 512 = 0.18
    assert stats.binomtest(8, 9).pvalue == pytest.approx(20 / 512) and stats.binomtest(7, 9).pvalue > 0.05
    q = mde_sign(9)
    assert stats.binom.sf(7, 9, q) + stats.binom.cdf(1, 9, q) == pytest.approx(0.8, abs=1e-9)
    assert 0.85 < q < 0.95
    assert mde_sign(5) == math.inf


def test_sign_test_and_signed_rank_against_scipy():
    assert sign_test([1.0, 2.0, 3.0, -1.0, 0.0]) == (3, 1, pytest.approx(stats.binomtest(3, 4).pvalue))
    assert sign_test([0.0, 0.0]) == (0, 0, 1.0)
    d = np.array([0.12, 0.31, -0.05, 0.44, 0.27, 0.18, -0.02, 0.39])
    rp, rm, p, note = signed_rank(d)
    assert rp + rm == 8 * 9 / 2 and rm == 1 + 2  # the two negatives have the two smallest |d|
    assert p == pytest.approx(stats.wilcoxon(d).pvalue, rel=1e-12) and note is None
    # six positive differences: the exact two-sided p is 2 / 2^6
    assert signed_rank(np.arange(1, 7) / 10)[2] == pytest.approx(2 / 64)


def test_tost_min_margin_closed_form_and_simulated_power():
    z = stats.norm.ppf(0.95) + stats.norm.ppf(0.9)
    assert tost_min_margin(100_000, 1.0) == pytest.approx(z / math.sqrt(100_000), rel=1e-3)
    # simulated: at a true difference 0 the TOST at this margin shows equivalence in about 80 % of samples
    rng = np.random.default_rng(0)
    n = 20
    m = tost_min_margin(n, 1.0)
    x = rng.normal(0.0, 1.0, (20_000, n))
    mu, se = x.mean(1), x.std(1, ddof=1) / math.sqrt(n)
    q = stats.t.ppf(0.95, n - 1)
    assert ((mu - q * se > -m) & (mu + q * se < m)).mean() == pytest.approx(0.8, abs=0.015)
    with pytest.raises(ValueError, match="alpha"):
        tost_min_margin(10, 1.0, power=1.0)
