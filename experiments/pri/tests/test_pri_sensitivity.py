"""PRI-SMO kernel-width sensitivity (experiments/pri/sensitivity.py) and its section in the PRI report.

References: the runner's plan for the seeds, direct PRISMO fits on regenerated mixtures (the ``sigma``
reading refitted as ``sqrt2_sigma`` at sigma / sqrt(2)), ``claims`` on hand-picked rows, hand-made verdicts.
"""
import json
import math

import numpy as np
import pandas as pd

from randml_papers.pri import sensitivity as S
from randml_papers.pri.families import cell_seeds
from randml_papers.pri.claims import kernel_width_lines
from randml_papers.pri.report import claims
from randml_papers.pri.datasets import make_pri_mixture
from randml_core.models.pri import PRISMO


def test_repeat_seed_is_the_stored_sweeps_model_seed(compose):
    from randml_core.runner import make_plan
    plan = make_plan(compose("experiment=pri_sweep"))
    seeds = {t.split.repeat: t.split.model_seed for t in plan.tasks}
    assert len(seeds) == 5 and all(S.repeat_seed(r) == s for r, s in seeds.items())


def test_run_rows_are_direct_fits_and_sigma_is_sqrt2_at_sigma_over_sqrt2():
    long = S.run(ns=(80, 160), tols=(0.01,), lams=(2.0, 5.0), repeats=2, large_repeats=1, large_n=160)
    # 2 readings x (N=80: 2 repeats, N=160: 1 repeat) x 2 lambdas
    assert len(long) == 2 * 3 * 2 and set(long["reading"]) == {"sqrt2_sigma", "sigma"}
    assert long.groupby(["reading", "n"])["repeat"].nunique().to_dict() == {
        ("sigma", 80): 2, ("sigma", 160): 1, ("sqrt2_sigma", 80): 2, ("sqrt2_sigma", 160): 1}
    for row in long.itertuples():
        data_seed, solver_seed = cell_seeds(row.seed)
        X, _ = make_pri_mixture(row.n, data_seed)
        sigma = 0.2 if row.reading == "sqrt2_sigma" else 0.2 / math.sqrt(2)  # V of width sigma = sqrt2 at sigma/sqrt2
        m = PRISMO(sigma=sigma, lam=row.lam, tol=row.tol, kernel_width="sqrt2_sigma", random_state=solver_seed).fit(X)
        assert (row.n_sv, row.n_iter, row.hit_cap) == (len(m.support_), m.n_iter_, m.hit_max_iter_)
        assert row.max_iter == math.ceil(row.n * math.log(row.n)) and row.seed == S.repeat_seed(row.repeat)
    # the two readings are different problems on the same samples
    a = long[long.reading == "sqrt2_sigma"].set_index(["n", "lam", "repeat"])["n_sv"]
    b = long[long.reading == "sigma"].set_index(["n", "lam", "repeat"])["n_sv"]
    assert (a != b.loc[a.index]).any()


def test_closest_and_verdicts_follow_the_claims():
    held = {"id": "x", "status": "held"}
    miss = {"id": "y", "status": "not held"}
    assert S.closest({"sqrt2_sigma": [held, held], "sigma": [held, miss]}) == ("sqrt2_sigma", {"sqrt2_sigma": 2, "sigma": 1})
    assert S.closest({"sqrt2_sigma": [held, miss], "sigma": [miss, held]})[0] is None
    assert "**neither**" in S.conclusion({"sqrt2_sigma": [held, miss], "sigma": [miss, held]})[0]
    # verdicts = claims() on each reading's rows: a cap hit at large N fails cap_large for that reading only
    base = dict(sigma=0.2, repeat=0, status="ok", seconds=1.0, n_sv=10, n_iter=10, max_iter=100, stop="tol")
    rows = [dict(base, reading=r, n=n, tol=t, lam=2.0, hit_cap=(r == "sigma" and n == 10_000))
            for r in ("sqrt2_sigma", "sigma") for n in (500, 10_000) for t in (0.1, 0.001)]
    v = S.verdicts(pd.DataFrame(rows))
    got = {r: {c["id"]: c["status"] for c in cs} for r, cs in v.items()}
    assert got["sqrt2_sigma"]["cap_large"] == "held" and got["sigma"]["cap_large"] == "not held"
    ref = claims(pd.DataFrame(rows[:4]), large_n=S.LARGE_N, manageable_seconds=S.BUDGET)
    assert v["sqrt2_sigma"] == ref


def test_render_from_csv_and_report_section(tmp_path):
    long = S.run(ns=(80, 160), tols=(0.1, 0.001), lams=(2.0, 20.0), repeats=1, large_repeats=1)
    (tmp_path / "tables").mkdir()
    long.to_csv(tmp_path / "tables" / "pri_sensitivity.csv", index=False)
    # no csv yet: the claims report says how to make it
    assert any("make pri-sensitivity" in line for line in kernel_width_lines(tmp_path / "missing"))
    S.main(["--render", "--results", str(tmp_path)])
    s = json.loads((tmp_path / "tables" / "pri_sensitivity.json").read_text())
    md = (tmp_path / "tables" / "pri_sensitivity.md").read_text()
    v = S.verdicts(long)
    assert s["verdicts"] == {r: {c["id"]: c["status"] for c in cs} for r, cs in v.items()} and s["fits"] == 16
    for c_a, c_b in zip(v["sqrt2_sigma"], v["sigma"]):
        assert f"| {c_a['status'].upper()} | {c_b['status'].upper()} |" in md
    # Figure 2 cell = mean #SV of each reading
    sv = long.groupby(["reading", "lam", "tol", "n"])["n_sv"].mean()
    assert f"| {sv[('sqrt2_sigma', 20.0, 0.1, 160)]:.0f} / {sv[('sigma', 20.0, 0.1, 160)]:.0f} |" in md
    sec = "\n".join(kernel_width_lines(tmp_path / "tables"))
    for i in s["verdicts"]["sigma"]:
        assert f"| {i} | {s['verdicts']['sqrt2_sigma'][i]} | {s['verdicts']['sigma'][i]} |" in sec
    assert "pri_sensitivity.csv" in sec and f"N <= {int(np.max(long['n']))}" in sec
