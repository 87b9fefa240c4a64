"""Issue 19: would an SMO solver that warm-starts along increasing C reach the grid's 3x? (study only)

libsvm (scikit-learn's SVC) starts every fit at alpha = 0, so the shared path cannot share SVM work
across C. This study answers what a solver that can would buy, before anyone decides to replace libsvm
(which would change the stored SVM cells). It is a measurement, not a model: nothing here is used by
the runner, and no estimator in the project calls it.

``smo`` below is a plain SMO for the weighted C-SVC dual as libsvm solves it (Fan, Chen & Lin 2005:
second-order working-set selection, the same two-variable update and clipping, stopping gap tol on
m(alpha) - M(alpha), an iteration bound), without shrinking, on the full precomputed kernel. Written
here because no maintained Python SVM solver takes an initial alpha (scikit-learn's SVC and libsvm do
not; ThunderSVM needs a GPU). On fold 0 of every Table 4 dataset with the paper grid (bench.py's
splits), per gamma it fits every C from alpha = 0 ("cold") and from the previous C's solution
("warm"; feasible because the bounds C * w_i only grow), and compares both with the libsvm fit that
``evaluate_svm`` stores: seconds, iterations, fits at the bound, test predictions.

    nice -n 10 .venv/bin/python scripts/svm_warmstart_study.py [--datasets heart sonar] [--out fits.csv]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numba
import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import REPO, _fold0_tasks, compose_spec  # noqa: E402

sys.path.insert(0, str(REPO))
from randml_papers.eem.families import _full_kernel  # noqa: E402
from randml_core.family import Split  # noqa: E402
from randml_core.metrics import gmean  # noqa: E402
from randml_core.models.svm import balance_class_weight, fit_svc  # noqa: E402

TAU = 1e-12  # libsvm's floor for a non-positive curvature


@numba.njit(cache=True)
def smo(K, y, Cw, alpha, G, tol, max_iter):
    """Solve min 1/2 a'Qa - e'a, 0 <= a_i <= Cw_i, y'a = 0 (Q_ij = y_i y_j K_ij) in place from a feasible
    ``alpha`` with gradient ``G`` = Q alpha - 1. Returns (iterations, converged, rho)."""
    n = len(y)
    it = 0
    converged = False
    while it < max_iter:
        # working set: i maximises -y G over I_up; j by the second-order rule over I_low (libsvm WSS3)
        gmax, gmax2, i = -np.inf, -np.inf, -1
        for t in range(n):
            if (y[t] > 0 and alpha[t] < Cw[t]) or (y[t] < 0 and alpha[t] > 0):
                if -y[t] * G[t] >= gmax:
                    gmax, i = -y[t] * G[t], t
        j, obj_min = -1, np.inf
        for t in range(n):
            if (y[t] > 0 and alpha[t] > 0) or (y[t] < 0 and alpha[t] < Cw[t]):
                v = y[t] * G[t]
                if v >= gmax2:
                    gmax2 = v
                if i >= 0:
                    diff = gmax + v
                    if diff > 0:
                        quad = K[i, i] + K[t, t] - 2.0 * K[i, t]
                        obj = -(diff * diff) / (quad if quad > 0 else TAU)
                        if obj <= obj_min:
                            j, obj_min = t, obj
        if gmax + gmax2 < tol or j < 0:
            converged = True
            break
        it += 1
        ai, aj = alpha[i], alpha[j]
        Ci, Cj = Cw[i], Cw[j]
        quad = K[i, i] + K[j, j] - 2.0 * K[i, j]
        quad = quad if quad > 0 else TAU
        if y[i] != y[j]:
            delta = (-G[i] - G[j]) / quad
            diff = ai - aj
            ni, nj = ai + delta, aj + delta
            if diff > 0:
                if nj < 0:
                    nj, ni = 0.0, diff
            else:
                if ni < 0:
                    ni, nj = 0.0, -diff
            if diff > Ci - Cj:
                if ni > Ci:
                    ni, nj = Ci, Ci - diff
            else:
                if nj > Cj:
                    nj, ni = Cj, Cj + diff
        else:
            delta = (G[i] - G[j]) / quad
            s = ai + aj
            ni, nj = ai - delta, aj + delta
            if s > Ci:
                if ni > Ci:
                    ni, nj = Ci, s - Ci
            else:
                if nj < 0:
                    nj, ni = 0.0, s
            if s > Cj:
                if nj > Cj:
                    nj, ni = Cj, s - Cj
            else:
                if ni < 0:
                    ni, nj = 0.0, s
        di, dj = ni - ai, nj - aj
        alpha[i], alpha[j] = ni, nj
        for t in range(n):
            G[t] += y[t] * (y[i] * K[i, t] * di + y[j] * K[j, t] * dj)
    # rho as libsvm: mean of y G over free alphas, else the middle of the feasible interval
    ub, lb, s, nfree = np.inf, -np.inf, 0.0, 0
    for t in range(n):
        yg = y[t] * G[t]
        if alpha[t] >= Cw[t]:
            if y[t] < 0:
                ub = min(ub, yg)
            else:
                lb = max(lb, yg)
        elif alpha[t] <= 0:
            if y[t] > 0:
                ub = min(ub, yg)
            else:
                lb = max(lb, yg)
        else:
            nfree += 1
            s += yg
    rho = s / nfree if nfree > 0 else (ub + lb) / 2
    return it, converged, rho


def fit_path(K, y, Cw_unit, Cs, tol, max_iter, warm):
    """Fit every C of ``Cs`` (ascending); returns per C (alpha * y, rho, iterations, converged, seconds)."""
    n = len(y)
    alpha = np.zeros(n)
    out = []
    for C in Cs:
        t0 = time.perf_counter()
        if not warm:
            alpha = np.zeros(n)
        G = y * (K @ (alpha * y)) - 1.0
        it, conv, rho = smo(K, y, Cw_unit * C, alpha, G, tol, max_iter)
        out.append((alpha * y, rho, it, conv, time.perf_counter() - t0))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", nargs="*", default=None)
    ap.add_argument("--out", default=None, help="write one row per fit to this csv")
    args = ap.parse_args()
    spec = compose_spec("experiment=eem_table4")
    max_iter = int(spec.options.get("svm_max_iter", 100_000))
    svm = next(v for v in spec.variants if v.family == "svm")
    gammas, Cs = sorted(svm.grid["gamma"]), sorted(svm.grid["C"])
    smo(np.eye(2), np.array([1.0, -1.0]), np.ones(2), np.zeros(2), -np.ones(2), 1e-3, 10)  # compile first
    rows = []
    for name, Xtr, ytr, Xte, yte, seed, _ in _fold0_tasks(spec):
        if args.datasets and name not in args.datasets:
            continue
        split = Split(Xtr, ytr, Xte, seed, dict(spec.options))
        classes = np.unique(ytr)
        y = np.where(ytr == classes[1], 1.0, -1.0)
        weights = balance_class_weight(ytr)
        Cw_unit = np.array([weights[c] for c in ytr], dtype=float)
        for gamma in gammas:
            Ktr, Kte, _ = _full_kernel(split, gamma)
            with threadpool_limits(1):
                paths = {w: fit_path(np.ascontiguousarray(Ktr), y, Cw_unit, Cs, 1e-3, max_iter, w)
                         for w in (False, True)}
                for k, C in enumerate(Cs):
                    t0 = time.perf_counter()
                    svc, conv = fit_svc(Ktr, ytr, C, gamma, max_iter, kernel="precomputed")
                    lib_s = time.perf_counter() - t0
                    lib_pred = svc.predict(Kte)
                    row = {"dataset": name, "gamma": gamma, "C": C, "libsvm_s": lib_s, "libsvm_converged": conv,
                           "libsvm_iter": int(np.max(svc.n_iter_)), "libsvm_gmean": gmean(yte, lib_pred)}
                    for w, tag in ((False, "cold"), (True, "warm")):
                        coef, rho, it, c2, secs = paths[w][k]
                        pred = np.where(Kte @ coef - rho > 0, classes[1], classes[0])
                        row.update({f"{tag}_s": secs, f"{tag}_iter": it, f"{tag}_converged": c2,
                                    f"{tag}_gmean": gmean(yte, pred),
                                    f"{tag}_pred_diff": int((pred != lib_pred).sum())})
                    rows.append(row)
        print(f"  {name} done", file=sys.stderr)
    f = pd.DataFrame(rows)
    if args.out:
        f.to_csv(args.out, index=False)
    both = f["libsvm_converged"] & f["cold_converged"] & f["warm_converged"]
    print(f"fits: {len(f)}; seconds: libsvm {f.libsvm_s.sum():.1f}, ours cold {f.cold_s.sum():.1f}, "
          f"ours warm {f.warm_s.sum():.1f}")
    print(f"iterations: libsvm {f.libsvm_iter.sum()}, cold {f.cold_iter.sum()}, warm {f.warm_iter.sum()}")
    print(f"at the bound: libsvm {(~f.libsvm_converged).sum()}, cold {(~f.cold_converged).sum()}, "
          f"warm {(~f.warm_converged).sum()}")
    for tag in ("cold", "warm"):
        d = (f[f"{tag}_gmean"] - f["libsvm_gmean"]).abs()
        print(f"{tag} vs libsvm, fits converged in all three ({both.sum()}): cells with another GMean "
              f"{int((d[both] > 0).sum())}, max |diff| {d[both].max():.2e}, test predictions differing "
              f"{int(f.loc[both, f'{tag}_pred_diff'].sum())}; all fits: another GMean {int((d > 0).sum())}, "
              f"max |diff| {d.max():.2e}")
    per = f.groupby("dataset")[["libsvm_s", "cold_s", "warm_s"]].sum().round(2)
    per["bounded libsvm/cold/warm"] = f.groupby("dataset").apply(
        lambda g: f"{(~g.libsvm_converged).sum()}/{(~g.cold_converged).sum()}/{(~g.warm_converged).sum()}")
    print(per.to_string())


if __name__ == "__main__":
    main()
