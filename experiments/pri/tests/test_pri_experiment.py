"""PRI-SMO Section 6.1 sweep: the family, the configs, the runner -> store -> report path, the claims.

References used here are computed a different way from the code under test: direct PRISMO fits on
regenerated data, J(beta) from a dense V built with explicit differences, exponents from
``np.linalg.lstsq`` with dummy intercepts / ``np.polyfit``, hand-made frames with known answers.
"""
import json
import math

import numpy as np
import pandas as pd
import pytest

from randml_papers.pri.report import claims, growth_exponents, pooled_exponent, summarise, tidy
from randml_papers.pri.families import PRIMixtureSweep, evaluate_sweep
from randml_core.family import FAMILIES, Split
from randml_papers.pri.datasets import make_pri_mixture
from randml_core.models.pri import PRISMO


def _split(seed, rows=5):
    rng = np.random.default_rng(rows)
    return Split(rng.random((rows, 3)), np.arange(rows) % 2, np.zeros((0, 3)), seed)


def _solver_seed(seed):
    """The documented rule, spelled out: first child of SeedSequence(seed), 31 bits."""
    return int(np.random.SeedSequence(seed).spawn(1)[0].generate_state(1, dtype=np.uint32)[0]) & 0x7FFFFFFF


def _group_ids(lam, tol):
    """0..k-1 label of each row's (lam, tol) setting."""
    return np.unique(np.column_stack([lam, tol]), axis=0, return_inverse=True)[1].ravel()


def _J_dense(X, beta, lam, sigma):
    """Eq. (10) with V = exp(-|xi - xj|^2 / (2 (sqrt2 sigma)^2)) built from explicit differences."""
    D = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    V = np.exp(-D / (4.0 * sigma**2))
    return (lam - 1) * np.log(beta @ V @ beta) - 2 * lam * np.log(beta @ V.mean(1))


# ----------------------------------------------------------------------------- family / evaluator
def test_family_registered_with_probe_params():
    fam = FAMILIES["pri_smo_sweep"]
    assert fam.estimator is PRIMixtureSweep
    assert {"n_samples", "tol", "lam", "sigma"} <= set(PRIMixtureSweep().get_params())


def test_evaluator_equals_a_direct_fit_on_the_regenerated_mixture():
    seed = 123_457
    settings = [{"n_samples": 250, "tol": 1e-2, "lam": 2.0, "sigma": 0.2, "kernel_width": "sqrt2_sigma"},
                {"n_samples": 250, "tol": 1e-3, "lam": 1.5, "sigma": 0.2}]
    res = evaluate_sweep(_split(seed), settings)
    other_carrier = evaluate_sweep(_split(seed, rows=9), settings)  # the carrier rows are ignored
    X, _ = make_pri_mixture(250, seed)  # the data seed is the cell's model seed itself
    for params, r, r2 in zip(settings, res, other_carrier):
        assert r.error is None and r.y_pred is None and r.fit_seconds > 0
        m = PRISMO(sigma=0.2, lam=params["lam"], tol=params["tol"], random_state=_solver_seed(seed)).fit(X)
        x = r.extras
        assert x["data_seed"] == seed and x["solver_seed"] == _solver_seed(seed) != seed
        assert x["n_sv"] == len(m.support_) and x["n_iter"] == m.n_iter_
        assert x["objective"] == pytest.approx(_J_dense(X, m.weights_, params["lam"], 0.2), abs=1e-9)
        assert x["violation"] <= params["tol"] and x["stop_reason"] == "tol" and r.converged
        assert not x["hit_max_iter"] and x["max_iter"] == math.ceil(250 * math.log(250))
        assert {k: v for k, v in r2.extras.items()} == x


def test_cap_is_ceil_n_ln_n_and_hitting_it_is_recorded():
    settings = [{"n_samples": 200, "tol": 1e-9, "lam": 20.0, "sigma": 0.2},
                {"n_samples": 200, "tol": 1e-1, "lam": 2.0, "sigma": 0.2, "max_iter": 7, "first_pass": False}]
    capped, seven = evaluate_sweep(_split(5), settings)
    assert capped.extras["max_iter"] == 1060  # ceil(200 ln 200) = ceil(1059.66)
    assert capped.extras["n_iter"] == 1060 and capped.extras["hit_max_iter"]
    assert capped.extras["stop_reason"] == "max_iter" and not capped.converged
    assert capped.extras["violation"] > 1e-9
    assert seven.extras["n_iter"] == seven.extras["max_iter"] == 7 and seven.extras["hit_max_iter"]


def test_bad_settings_are_recorded_not_fatal():
    settings = [{"n_samples": 1, "tol": 0.1, "lam": 2.0, "sigma": 0.2},
                {"n_samples": 100, "tol": 0.1, "lam": -1.0, "sigma": 0.2},
                {"n_samples": 100, "tol": 0.1, "lam": 2.0, "sigma": 0.2}]
    bad_n, bad_lam, good = evaluate_sweep(_split(0), settings)
    assert bad_n.error.startswith("ValueError") and "n_samples" in bad_n.error
    assert bad_lam.error.startswith("ValueError") and "lam" in bad_lam.error
    assert good.error is None and good.extras["n_sv"] > 0


# ----------------------------------------------------------------------------- configs
def test_sweep_config_covers_the_issue_grid(compose):
    from randml_core.runner import make_plan
    spec = compose("experiment=pri_sweep")
    (v,) = spec.variants
    g = v.grid
    assert v.family == "pri_smo_sweep" and v.fixed["kernel_width"] == "sqrt2_sigma"
    assert min(g["n_samples"]) == 500 and max(g["n_samples"]) >= 50_000
    assert {0.1, 0.01, 0.001} <= set(g["tol"])
    assert len(g["lam"]) >= 3 and min(g["lam"]) > 1 and min(g["lam"]) <= 1.5 and max(g["lam"]) >= 20
    assert g["sigma"] == [0.2]
    assert spec.protocol.kind == "full" and spec.protocol.repeats >= 3
    plan = make_plan(spec)
    cells = list(plan.cells())
    assert len(cells) == spec.protocol.repeats * len(g["n_samples"]) * len(g["tol"]) * len(g["lam"])
    assert len({t.split.model_seed for t in plan.tasks}) == spec.protocol.repeats  # a new sample per repeat
    quick = compose("experiment=pri_quick")
    assert max(quick.variants[0].grid["n_samples"]) <= 5000 and quick.store != spec.store
    assert quick.options["pri_prefix"] != spec.options["pri_prefix"]  # never overwrites the full artefacts


# ----------------------------------------------------------------------------- whole path
QUICK = ("experiment=pri_quick", "models.pri.grid.n_samples=[150,300,600]", "models.pri.grid.tol=[0.1,0.001]",
         "models.pri.grid.lam=[2.0,20.0]", "protocol.repeats=2", "experiment.pri_support_n=300",
         "experiment.pri_large_n=600", "experiment.pri_prefix=t")


def test_run_then_report_writes_the_numbers_of_the_store(compose, tmp_path):
    from randml_core.report import build_report
    from randml_core.runner import run
    from randml_core.store import Store

    spec = compose(*QUICK)
    s = run(spec, str(tmp_path / "store"), n_jobs=1, progress=False)
    assert s.computed == 24 and s.failed == 0
    assert run(spec, str(tmp_path / "store"), n_jobs=1, progress=False).computed == 0  # all stored
    frame = Store(tmp_path / "store", spec.store).read()
    assert len(frame) == 24 and set(frame["status"]) == {"ok"}
    assert frame["converged"].tolist() == (frame["x_stop_reason"] == "tol").tolist()
    assert frame.groupby("repeat")["model_seed"].nunique().eq(1).all() and frame["model_seed"].nunique() == 2

    # a stored row is reproduced from its model seed alone
    r = frame[(frame.p_n_samples == 300) & (frame.p_lam == 20.0) & (frame.p_tol == 0.001)].iloc[0]
    X, _ = make_pri_mixture(300, int(r.model_seed))
    m = PRISMO(sigma=0.2, lam=20.0, tol=0.001, random_state=_solver_seed(int(r.model_seed))).fit(X)
    assert r.x_n_sv == len(m.support_) and r.x_n_iter == m.n_iter_ and r.x_hit_max_iter == m.hit_max_iter_

    paths = build_report(spec, str(tmp_path / "store"), str(tmp_path / "res"))
    names = {p.name for p in paths}
    for stem in ("t_fig1", "t_fig2", "t_support"):
        assert {f"{stem}.png", f"{stem}.pdf"} <= names
    assert {"t_report.md", "t_report.json", "t_summary.csv", "t_claims.md", "t_claims.json"} <= names
    assert all(p.stat().st_size > 0 for p in paths)
    rep = json.loads((tmp_path / "res" / "tables" / "t_report.json").read_text())
    md = (tmp_path / "res" / "tables" / "t_report.md").read_text()

    # growth exponent: independent least squares on the stored frame (dummy intercept per setting)
    lx, ly = np.log(frame["p_n_samples"].to_numpy(float)), np.log(frame["fit_seconds"].to_numpy(float))
    groups = _group_ids(frame["p_lam"], frame["p_tol"])
    A = np.column_stack([lx, np.eye(groups.max() + 1)[groups]])
    b = np.linalg.lstsq(A, ly, rcond=None)[0][0]
    assert rep["pooled_exponent"] == pytest.approx(b, abs=1e-10)
    assert f"**b = {b:.3f}**" in md
    hi = frame[frame.p_n_samples >= 300]  # upper half of the grid 150, 300, 600
    gh = _group_ids(hi["p_lam"], hi["p_tol"])
    Ah = np.column_stack([np.log(hi["p_n_samples"].to_numpy(float)), np.eye(gh.max() + 1)[gh]])
    bh = np.linalg.lstsq(Ah, np.log(hi["fit_seconds"].to_numpy(float)), rcond=None)[0][0]
    assert rep["upper_half_n_min"] == 300 and rep["pooled_exponent_upper_half"] == pytest.approx(bh, abs=1e-10)
    for e in rep["exponents"]:
        sub = frame[(frame.p_lam == e["lam"]) & (frame.p_tol == e["tol"])]
        slope = np.polyfit(np.log(sub["p_n_samples"]), np.log(sub["fit_seconds"]), 1)[0]
        assert e["exponent"] == pytest.approx(slope, abs=1e-10) and e["runs"] == 6

    # claims that follow from the stored flags, recomputed by hand
    cl = json.loads((tmp_path / "res" / "tables" / "t_claims.json").read_text())
    got = {c["id"]: c["regenerated"] for c in cl["claims"]}
    big = frame[frame.p_n_samples >= 600]
    assert got["cap_large"]["verdict"] == ("held" if not big["x_hit_max_iter"].any() else "not held")
    assert f"{int(big['x_hit_max_iter'].sum())} of {len(big)} runs" in got["cap_large"]["evidence"]
    assert f"{int(frame['x_hit_max_iter'].sum())} of 24 runs hit the cap" in got["cap_where"]["evidence"]
    assert all(c["real"]["verdict"] == "not tested" for c in cl["claims"]) and "`t_claims.md`" in md
    cmd = (tmp_path / "res" / "tables" / "t_claims.md").read_text()
    for c in cl["claims"]:
        assert f"| {c['id']}: " in cmd and f"| {c['regenerated']['verdict']} (" in cmd
    # per-setting summary = the frame's own group statistics
    csv = pd.read_csv(tmp_path / "res" / "tables" / "t_summary.csv")
    ref = frame.groupby(["p_lam", "p_tol", "p_n_samples"]).agg(
        sv=("x_n_sv", "mean"), hits=("x_hit_max_iter", "sum"), t=("fit_seconds", "median"))
    for row in csv.itertuples():
        e = ref.loc[(row.lam, row.tol, row.n)]
        assert row.n_sv_mean == pytest.approx(e.sv) and row.cap_hits == e.hits
        assert row.seconds_median == pytest.approx(e.t) and row.repeats == 2
    # the illustration: one refit at the configured size, seeded like a sweep cell
    sup = rep["support_figure"]
    assert sup["n"] == 300 and sup["n_sv"] == len(
        PRIMixtureSweep(n_samples=300, tol=0.001, lam=2.0, random_state=0).fit().solver_.support_)


def test_parallel_run_knows_the_plugin_family(compose, tmp_path):
    from randml_core.runner import run
    spec = compose("experiment=pri_quick", "models.pri.grid.n_samples=[100]", "models.pri.grid.tol=[0.1]",
                   "models.pri.grid.lam=[2.0]")
    assert run(spec, str(tmp_path), n_jobs=2, progress=False).computed == 2


# ----------------------------------------------------------------------------- claims on hand-made frames
def _frame(time_fn, sv_fn, hit_fn, ns=(500, 2000, 10_000), tols=(0.1, 0.01, 0.001), lams=(2.0, 20.0), reps=2,
           iter_fn=lambda lam, tol, n, r: 100):
    rows = []
    for lam in lams:
        for tol in tols:
            for n in ns:
                for r in range(reps):
                    hit = hit_fn(lam, tol, n, r)
                    rows.append({"n": n, "tol": tol, "lam": lam, "sigma": 0.2, "repeat": r, "status": "ok",
                                 "seconds": time_fn(lam, tol, n, r), "n_sv": sv_fn(lam, tol, n, r),
                                 "n_iter": iter_fn(lam, tol, n, r) if not hit else math.ceil(n * math.log(n)),
                                 "max_iter": math.ceil(n * math.log(n)), "hit_cap": hit,
                                 "stop": "max_iter" if hit else "tol"})
    return pd.DataFrame(rows)


def _by_id(rows, **kw):
    return {c["id"]: c for c in claims(rows, **kw)}


def test_claims_all_held_on_a_frame_built_to_match_the_paper():
    rows = _frame(time_fn=lambda lam, tol, n, r: 1e-7 * n**2 * (1 + r * 0.02) * (-math.log10(tol)),
                  sv_fn=lambda lam, tol, n, r: n * lam / 40 * (1 + math.log10(tol) / 10),
                  hit_fn=lambda lam, tol, n, r: lam == 20.0 and tol == 0.001 and n == 500,
                  iter_fn=lambda lam, tol, n, r: 100 * -math.log10(tol))
    got = _by_id(rows, large_n=10_000, manageable_seconds=600)
    assert {k: c["status"] for k, c in got.items()} == {
        "time_tol": "held", "sv_tol": "held", "cap_large": "held", "cap_where": "inconclusive", "large_n": "held"}
    # 6 (lambda, N) groups, iterations 300 vs 100 in each but the one at the cap (lambda 20, N 500: 3108 vs 100):
    # every log ratio > 0, Wilcoxon R+ = 21, exact two-sided p = 2 / 2^6
    assert "higher in 6, lower in 0; Wilcoxon R+ = 21, R- = 0, p = 0.031" in got["time_tol"]["evidence"]
    assert "wall time (median) ratio tightest / loosest 3.00-3.00, higher in 6 of 6" in got["time_tol"]["evidence"]
    assert "ratio tightest / loosest 0.78-0.78" in got["sv_tol"]["evidence"]           # 0.7 / 0.9
    assert "0 of 12 runs with N >= 10000 stopped at the cap" in got["cap_large"]["evidence"]
    # 2 hits, both at N = 500: 2/12 vs 0/12, Fisher one-sided p = C(12,2) / C(24,2) = 66/276: not significant
    assert "N: 2/12 at the demanding end vs 0/12 (Fisher one-sided p = 0.24)" in got["cap_where"]["evidence"]
    assert "are 10.1-30.3 s" in got["large_n"]["evidence"]  # 1e-7 * 1e8 * 1.01 * {1, 3}
    # exponent: exactly 2 in every group (time = c N^2)
    assert pooled_exponent(rows) == pytest.approx(2.0, abs=1e-12)
    ge = growth_exponents(rows)
    np.testing.assert_allclose(ge["exponent"], 2.0, atol=1e-12)
    # R^2 in closed form: the repeat factor 1.02 is a +-log(1.02)/2 residual around the line
    lx = np.log([500, 2000, 10_000])
    ssx, ssr = 2 * ((lx - lx.mean()) ** 2).sum(), 6 * (math.log(1.02) / 2) ** 2
    np.testing.assert_allclose(ge["r2"], 4 * ssx / (4 * ssx + ssr), atol=1e-12)


def test_claims_power_and_sensitivity_by_hand():
    from scipy import stats
    from randml_papers.pri.claims import clopper_pearson_upper, decide
    from randml_papers.pri.report import summarise
    rows = _frame(time_fn=lambda lam, tol, n, r: 1.0, sv_fn=lambda lam, tol, n, r: n / 2,
                  hit_fn=lambda lam, tol, n, r: n == 2000 and tol == 0.001, iter_fn=lambda lam, tol, n, r: 100)
    c = {x.id: x.regenerated for x in decide(summarise(rows))}
    # no run at N >= 10000 at the cap: 0 of 12, upper bound 1 - 0.05^(1/12) = 22.09 %; at N >= 5000 the same
    # runs, at N >= 20000 none
    assert clopper_pearson_upper(0, 12) == pytest.approx(1 - 0.05 ** (1 / 12))
    assert "above 22.09% (95 % upper bound) is ruled out" in c["cap_large"].power
    assert c["cap_large"].sensitivity == "at N >= 5000: held; at N >= 20000: not tested"
    assert c["large_n"].sensitivity == "at 300 s: held; at 1200 s: held"
    # no difference between tolerances: every log ratio 0 -> no evidence either way
    assert c["time_tol"].verdict == "inconclusive" and c["sv_tol"].verdict == "inconclusive"
    # cap_where's power: the smallest hit rate at the demanding end that the one-sided Fisher test detects against
    # 0 of 12 at the other end with power 0.8 (here: 4 hits of 12 are needed, P(X >= 4 | 12, q) = 0.8)
    q = float(c["cap_where"].power.split("N ")[1].split("%")[0]) / 100
    assert stats.fisher_exact([[4, 8], [0, 12]], alternative="greater")[1] < 0.05
    assert stats.fisher_exact([[3, 9], [0, 12]], alternative="greater")[1] >= 0.05
    assert stats.binom.sf(3, 12, q) == pytest.approx(0.8, abs=2e-3)


def test_claims_not_held_when_the_data_disagree():
    # fewer iterations at the tighter tolerance in every group; more SV at the tighter tolerance in every group
    rows = _frame(time_fn=lambda lam, tol, n, r: n * (-math.log10(tol) if lam == 2.0 else 1 / -math.log10(tol)),
                  sv_fn=lambda lam, tol, n, r: n / 2 * (1 - math.log10(tol) / 10),
                  hit_fn=lambda lam, tol, n, r: n == 10_000 and r == 0,
                  iter_fn=lambda lam, tol, n, r: 100 / -math.log10(tol))
    got = _by_id(rows, large_n=10_000, manageable_seconds=5_000)
    # the groups at N = 10000 have a cap hit in repeat 0 at every tolerance: their mean iterations are (cap + 33) / 2
    # vs (cap + 100) / 2, still lower: 6 of 6
    assert got["time_tol"]["status"] == "not held" and "higher in 0, lower in 6" in got["time_tol"]["evidence"]
    assert got["sv_tol"]["status"] == "not held" and "higher in 6, lower in 0" in got["sv_tol"]["evidence"]
    assert got["cap_large"]["status"] == "not held" and "6 of 12 runs" in got["cap_large"]["evidence"]
    # hits at the largest N only: 0/12 vs 6/12, Fisher p(less) = C(12,6) / C(24,6) = 924 / 134596, Holm x 3
    assert got["cap_where"]["status"] == "not held"
    assert got["large_n"]["status"] == "not held"    # 30 000 s > 5 000 s budget
    # within budget, but a failed run at large N
    failed = pd.concat([rows, pd.DataFrame([{**rows.iloc[-1].to_dict(), "status": "failed", "seconds": np.nan}])])
    got = _by_id(failed, large_n=10_000, manageable_seconds=1e6)
    assert got["large_n"]["status"] == "not held" and got["large_n"]["evidence"].startswith("1 of 13 runs")


def test_claims_saturation_no_hits_and_untested():
    rows = _frame(time_fn=lambda lam, tol, n, r: n * (1 + (tol < 0.1)),
                  sv_fn=lambda lam, tol, n, r: n if lam == 20.0 else n / 2 * (1 + tol),  # lambda 20: all points
                  hit_fn=lambda lam, tol, n, r: False, ns=(500, 2000))
    got = _by_id(rows, large_n=10_000)
    # 4 groups, 2 of them saturated: too few groups for a test over them
    assert got["sv_tol"]["status"] == "not tested" and "2 saturated group(s) left out" in got["sv_tol"]["evidence"]
    assert got["time_tol"]["status"] == "not tested" and "needs >= 6" in got["time_tol"]["evidence"]
    assert got["cap_where"]["status"] == "not held" and "never attained in 24 runs" in got["cap_where"]["evidence"]
    assert got["cap_large"]["status"] == "not tested" and got["large_n"]["status"] == "not tested"
    one_tol = _by_id(rows[rows["tol"] == 0.1], large_n=10_000)
    assert one_tol["time_tol"]["status"] == "not tested" and one_tol["sv_tol"]["status"] == "not tested"


def test_exponents_match_lstsq_on_noisy_data_and_summary_counts():
    rng = np.random.default_rng(0)
    rows = _frame(time_fn=lambda lam, tol, n, r: 1e-6 * n ** (1.5 + lam / 40) * math.exp(rng.normal(0, 0.2)),
                  sv_fn=lambda lam, tol, n, r: n / 3, hit_fn=lambda lam, tol, n, r: r == 1 and tol == 0.001,
                  reps=3)
    lx, ly = np.log(rows["n"].to_numpy(float)), np.log(rows["seconds"].to_numpy(float))
    g = _group_ids(rows["lam"], rows["tol"])
    coef = np.linalg.lstsq(np.column_stack([lx, np.eye(g.max() + 1)[g]]), ly, rcond=None)[0]
    assert pooled_exponent(rows) == pytest.approx(coef[0], abs=1e-12)
    ge = growth_exponents(rows).set_index(["lam", "tol"])
    for (lam, tol), sub in rows.groupby(["lam", "tol"]):
        slope, icpt = np.polyfit(np.log(sub["n"]), np.log(sub["seconds"]), 1)
        assert ge.loc[(lam, tol), "exponent"] == pytest.approx(slope, abs=1e-10)
        assert ge.loc[(lam, tol), "log_intercept"] == pytest.approx(icpt, abs=1e-8)
    s = summarise(rows)
    assert len(s) == 18 and s["repeats"].eq(3).all()
    assert s.loc[s["tol"] == 0.001, "cap_hits"].eq(1).all() and s.loc[s["tol"] != 0.001, "cap_hits"].eq(0).all()


def test_tidy_maps_store_columns_and_keeps_failed_rows():
    store_like = pd.DataFrame({
        "p_n_samples": [500, 500], "p_tol": [0.1, 0.1], "p_lam": [2.0, 5.0], "p_sigma": [0.2, 0.2],
        "repeat": [0, 0], "status": ["ok", "failed"], "fit_seconds": [0.5, np.nan], "x_n_sv": [10.0, np.nan],
        "x_n_iter": [20.0, np.nan], "x_max_iter": [3108.0, np.nan], "x_hit_max_iter": [True, None],
        "x_stop_reason": ["max_iter", None]})
    t = tidy(store_like)
    assert t["hit_cap"].tolist() == [True, False] and t["status"].tolist() == ["ok", "failed"]
    assert t.loc[0, "n_sv"] == 10 and np.isnan(t.loc[1, "seconds"])
    s = summarise(t)
    assert len(s) == 1 and s.loc[0, "lam"] == 2.0 and s.loc[0, "cap_hits"] == 1
    assert tidy(pd.DataFrame()).empty
