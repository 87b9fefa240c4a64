"""Issue 19: would reusing an SVM solution along increasing C make the SVM grid cheaper? (study only)

Rule studied: per gamma, fit C in increasing order; once a fit converged (did not hit svm_max_iter)
with no alpha_i at its bound C * w_{y_i}, every larger C reuses it (the same alpha satisfies the KKT
conditions, and libsvm's stopping gap, for any larger C: which alphas are free or at 0 does not change).

On fold 0 of every Table 4 dataset with the paper grid (bench.py's splits), fits every (gamma, C) as
`evaluate_svm` does (precomputed kernel, balance weights, tol 1e-3, the experiment's svm_max_iter) and
records per fit: seconds (fit, test predictions, training criteria), converged, n_iter, n_support and
whether an alpha is at its bound. Then counts the fits the rule skips, the seconds saved, and for every
skipped fit whether the reused solution gives the same test predictions / GMean as the from-scratch
fit and whether the two libsvm solutions are bit-identical (dual_coef_, support_, intercept_).
``--eekm`` instead times evaluate_eekm's eigendecompositions and counts the cells that repeat one.

    nice -n 10 .venv/bin/python scripts/svm_cpath_study.py [--fits-out fits.csv] [--datasets a b] [--eekm]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import REPO, _fold0_tasks, compose_spec  # noqa: E402

sys.path.insert(0, str(REPO))
from randml_papers.eem.families import _criteria, _drop_kernel, _full_kernel, _sq_dists  # noqa: E402
from randml_core.family import Split  # noqa: E402
from randml_core.metrics import gmean  # noqa: E402
from randml_core.models._common import binary_targets  # noqa: E402
from randml_core.models.eem import EEKM, eem_labels, eem_solve, inverse_sqrt_psd, landmark_order, projected_log_ratio  # noqa: E402
from randml_core.models.kernels import rbf_from_sq  # noqa: E402
from randml_core.models.svm import balance_class_weight, fit_svc  # noqa: E402


def at_bound(svc, y_train, C: float) -> tuple[bool, bool]:
    """(any alpha_i >= C w_i exactly (libsvm's is_upper_bound: a clipped alpha is set to C_i),
    any alpha_i >= C w_i - 1e-12 C)."""
    w = balance_class_weight(y_train)
    ub = np.array([C * w[lab] for lab in y_train[svc.support_]])
    alpha = np.abs(svc.dual_coef_[0])
    return bool(np.any(alpha >= ub)), bool(np.any(alpha >= ub - 1e-12 * C))


def fit_grid(name, Xtr, ytr, Xte, yte, seed, settings, options) -> list[dict]:
    """Every (gamma, C) of ``settings`` fitted from scratch, C ascending per gamma; one row per fit."""
    split = Split(Xtr, ytr, Xte, seed, dict(options))
    t = binary_targets(ytr, np.unique(ytr))
    max_iter = int(options.get("svm_max_iter", 100_000))
    rows = []
    for gamma in sorted({float(p["gamma"]) for p in settings}):
        Ktr, Kte, _ = _full_kernel(split, gamma)
        for C in sorted({float(p["C"]) for p in settings if float(p["gamma"]) == gamma}):
            t0 = time.perf_counter()
            svc, converged = fit_svc(Ktr, ytr, C, gamma, max_iter, kernel="precomputed")
            t1 = time.perf_counter()
            y_pred = svc.predict(Kte)
            t2 = time.perf_counter()
            crit = _criteria(split, svc.decision_function(Ktr), t)
            t3 = time.perf_counter()
            exact, eps = at_bound(svc, ytr, C)
            rows.append(dict(dataset=name, gamma=gamma, C=C, fit_s=t1 - t0, pred_s=t2 - t1, crit_s=t3 - t2,
                             converged=converged, n_iter=int(np.max(svc.n_iter_)),
                             n_support=int(svc.n_support_.sum()), bound_exact=exact, bound_eps=eps,
                             gmean=gmean(yte, y_pred), y_pred=y_pred, dcs_kde=crit.get("dcs_kde", np.nan),
                             sol=(svc.dual_coef_.copy(), svc.support_.copy(), svc.intercept_.copy())))
        _drop_kernel(split, gamma)
    return rows


def apply_rule(rows: list[dict]) -> None:
    """Mark every fit the rule would skip with the C of the fit it reuses (``src``), per (dataset, gamma)."""
    src = None
    for k, r in enumerate(rows):
        if k == 0 or (r["dataset"], r["gamma"]) != (rows[k - 1]["dataset"], rows[k - 1]["gamma"]):
            src = None
        r["src"] = None if src is None else src["C"]
        if src is not None:
            a, b = src["sol"], r["sol"]
            r["same_pred"] = bool(np.array_equal(src["y_pred"], r["y_pred"]))
            r["gmean_diff"] = abs(src["gmean"] - r["gmean"])
            r["bit_identical"] = all(x.shape == y.shape and np.array_equal(x, y) for x, y in zip(a, b))
        elif r["converged"] and not r["bound_eps"]:
            src = r


def eekm_grid(name, Xtr, ytr, Xte, seed, settings, options) -> list[dict]:
    """evaluate_eekm's work per cell, timed in two parts: the eigendecomposition (inverse_sqrt_psd) and the
    rest (EEM solve, test scores, criteria); ``dup``: the same (gamma, min(h, n)) was already computed."""
    split = Split(Xtr, ytr, Xte, seed, dict(options))
    classes = np.unique(ytr)
    t = binary_targets(ytr, classes)
    n = len(ytr)
    order = landmark_order(n, seed)
    h_max = min(max(int(p["n_hidden"]) for p in settings), n)
    Dtr, Dte, _ = _sq_dists(split, order[:h_max])
    rows, seen = [], {}
    for gamma in sorted({float(p["gamma"]) for p in settings}):
        Ktr, Kte = rbf_from_sq(Dtr, gamma), rbf_from_sq(Dte, gamma)
        for h_grid in sorted({int(p["n_hidden"]) for p in settings if float(p["gamma"]) == gamma}):
            h = min(h_grid, n)
            t0 = time.perf_counter()
            norm, _ = inverse_sqrt_psd(Ktr[order[:h], :h], EEKM().eig_rtol)
            t1 = time.perf_counter()
            proj = norm @ (sol := eem_solve(Ktr[:, :h] @ norm, t, one_gram=True)).beta
            y_pred = eem_labels(projected_log_ratio(Kte[:, :h] @ proj, sol), sol, classes, t)
            _criteria(split, Ktr[:, :h] @ proj, t)
            t2 = time.perf_counter()
            first = seen.setdefault((gamma, h), y_pred)
            rows.append(dict(dataset=name, gamma=gamma, h=h_grid, n=n, eigh_s=t1 - t0, rest_s=t2 - t1,
                             dup=first is not y_pred, same_pred=bool(np.array_equal(first, y_pred))))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", nargs="*", default=None, help="subset of the Table 4 datasets")
    ap.add_argument("--fits-out", default=None, help="CSV of the per-fit records")
    ap.add_argument("--eekm", action="store_true", help="instead: EEKM cells that repeat an eigendecomposition")
    args = ap.parse_args()
    spec = compose_spec("experiment=eem_table4")
    if args.eekm:
        with threadpool_limits(1):
            er = pd.DataFrame([r for name, Xtr, ytr, Xte, _yte, seed, by_family in _fold0_tasks(spec)
                               if not args.datasets or name in args.datasets
                               for r in eekm_grid(name, Xtr, ytr, Xte, seed, by_family["eekm"], spec.options)])
        d = er[er.dup]
        print(f"EEKM cells: {len(er)}; eigh {er.eigh_s.sum():.1f} s, rest {er.rest_s.sum():.1f} s (kernels not "
              f"included); cells repeating a (gamma, min(h, n)) already computed: {len(d)} "
              f"({', '.join(sorted(d.dataset.unique()))}), their eigh {d.eigh_s.sum():.1f} s, whole cell "
              f"{(d.eigh_s + d.rest_s).sum():.1f} s; their predictions equal the first computation's in "
              f"{int(d.same_pred.sum())} of {len(d)}")
        return
    rows: list[dict] = []
    with threadpool_limits(1):
        for name, Xtr, ytr, Xte, yte, seed, by_family in _fold0_tasks(spec):
            if args.datasets and name not in args.datasets:
                continue
            rows += fit_grid(name, Xtr, ytr, Xte, yte, seed, by_family["svm"], spec.options)
            print(f"  {name}: {len(by_family['svm'])} fits", file=sys.stderr)
    apply_rule(rows)
    df = pd.DataFrame([{k: v for k, v in r.items() if k not in ("y_pred", "sol")} for r in rows])
    if args.fits_out:
        df.to_csv(args.fits_out, index=False)
    df["cell_s"] = df.fit_s + df.pred_s + df.crit_s
    skip = df[df.src.notna()].astype({"same_pred": bool, "bit_identical": bool, "gmean_diff": float}) \
        if df.src.notna().any() else df[df.src.notna()]
    bounded = df[~df.converged]
    print(f"fits: {len(df)}; libsvm fit seconds {df.fit_s.sum():.1f}, + test predictions {df.pred_s.sum():.1f}, "
          f"+ training criteria {df.crit_s.sum():.1f} = {df.cell_s.sum():.1f} s (kernels not included)")
    print(f"bounded (hit max_iter): {len(bounded)} fits, {bounded.fit_s.sum():.1f} s "
          f"= {bounded.fit_s.sum() / df.fit_s.sum():.1%} of the fit seconds")
    print(f"fits with an alpha at its bound: exact rule {int(df.bound_exact.sum())}, 1e-12*C rule "
          f"{int(df.bound_eps.sum())}; converged and no alpha at bound: "
          f"{int((df.converged & ~df.bound_eps).sum())}")
    print(f"rule skips {len(skip)} of {len(df)} fits ({int((~skip.converged).sum())} of them bounded from scratch): "
          f"saves {skip.fit_s.sum():.1f} s of fits ({skip.fit_s.sum() / df.fit_s.sum():.1%}), "
          f"{skip.cell_s.sum():.1f} s with their predictions and criteria "
          f"({skip.cell_s.sum() / df.cell_s.sum():.1%})")
    if len(skip):
        print(f"skipped fits: predictions differ in {int((~skip.same_pred).sum())}, GMean differs in "
              f"{int((skip.gmean_diff > 0).sum())} (max {skip.gmean_diff.max():.3e}); bit-identical solutions "
              f"{int(skip.bit_identical.sum())} of {len(skip)}")
    print(f"bounded fits with an alpha at its bound: {int(bounded.bound_eps.sum())} of {len(bounded)}")
    print("\n| dataset | fits | fit s | bounded fits | bounded s | skipped fits | saved fit s | skipped with other predictions |")
    print("|---|---|---|---|---|---|---|---|")
    for name, g in df.groupby("dataset", sort=False):
        s, b = skip[skip.dataset == name], g[~g.converged]
        print(f"| {name} | {len(g)} | {g.fit_s.sum():.1f} | {len(b)} | {b.fit_s.sum():.1f} | {len(s)} | "
              f"{s.fit_s.sum():.2f} | {int((~s.same_pred).sum()) if len(s) else 0} |")

if __name__ == "__main__":
    main()
