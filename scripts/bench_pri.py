"""`make bench-pri`: PRI-SMO against the classic PRI fixed-point iteration (time, peak memory).

The paper's 2-D mixture (``make_pri_mixture``), sigma = 0.2, lambda = 2. PRI-SMO runs with
tol = 1e-3 and its default N ln N step cap; the fixed point (Principe's Jacobi update, what a user
would otherwise run) iterates until no point moves more than 1e-3 or 100 iterations. N = 2k, 5k,
10k for both (ratio = fixed-point time / SMO time), N = 50k for PRI-SMO alone. Each point runs in a
fresh process with one BLAS thread; peak = tracemalloc's peak during the fit (numpy buffers are
traced), so an N x N matrix would show as 8 N^2 bytes. Writes results/tables/bench_pri.md.
"""
from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PAIRED = [2_000, 5_000, 10_000]
SMO_ONLY = [50_000]


def child(solver: str, n: int) -> dict:
    import tracemalloc

    from threadpoolctl import threadpool_limits

    from randml_papers.pri.datasets import make_pri_mixture
    from randml_core.models.pri import PRISMO, pri_fixed_point
    X = make_pri_mixture(n, random_state=0)
    X = X[0] if isinstance(X, tuple) else X
    with threadpool_limits(1):
        tracemalloc.start()
        t0 = time.perf_counter()
        if solver == "smo":
            est = PRISMO(sigma=0.2, lam=2.0, tol=1e-3, random_state=0).fit(X)
            info = {"iterations": int(est.n_iter_), "support": int(len(est.support_))}
        else:
            res = pri_fixed_point(X, sigma=0.2, lam=2.0, n_iter=100, tol=1e-3)
            info = {"iterations": int(res.n_iter), "support": n}
        seconds = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return {"solver": solver, "n": n, "seconds": seconds, "peak_mb": peak / 2**20, **info}


def run_point(solver: str, n: int) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", solver, str(n)], cwd=REPO,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--out", default=str(REPO / "results/tables/bench_pri.md"))
    a = ap.parse_args()
    if a.child:
        sys.path.insert(0, str(REPO))
        print(json.dumps(child(a.child[0], int(a.child[1]))))
        return
    rows = {}
    for n in PAIRED + SMO_ONLY:
        for solver in ("smo", "fixed_point") if n in PAIRED else ("smo",):
            r = rows[solver, n] = run_point(solver, n)
            print(f"  {solver} N={n}: {r['seconds']:.2f} s, {r['iterations']} it, peak {r['peak_mb']:.1f} MB",
                  file=sys.stderr)
    lines = ["# PRI-SMO versus the PRI fixed-point iteration (`make bench-pri`)", "",
             f"Machine: {platform.processor() or platform.machine()}, one BLAS thread, {time.strftime('%Y-%m-%d')}. "
             "Mixture of Section 6.1, sigma 0.2, lambda 2; SMO tol 1e-3 (cap N ln N steps); fixed point until "
             "max move <= 1e-3 or 100 iterations.", "",
             "| N | SMO s | SMO steps | SMO #SV | SMO peak MB | fixed-point s | FP iterations | FP peak MB | "
             "FP / SMO time | N x N float64 MB |", "|---|---|---|---|---|---|---|---|---|---|"]
    for n in PAIRED + SMO_ONLY:
        s = rows["smo", n]
        f = rows.get(("fixed_point", n))
        fp = (f"{f['seconds']:.2f} | {f['iterations']} | {f['peak_mb']:.1f} | {f['seconds'] / s['seconds']:.1f}x"
              if f else "not run | | | ")
        lines.append(f"| {n} | {s['seconds']:.2f} | {s['iterations']} | {s['support']} | {s['peak_mb']:.1f} | "
                     f"{fp} | {8 * n * n / 2**20:.0f} |")
    lines += ["", "The SMO peak includes its kernel-row LRU cache (cache_mb = 64 by default): at small N the cache "
              "can hold every row, so the peak approaches the N x N size; from N = 10k on it is bounded by the "
              "cache, far below N x N (last column). The fixed point works in row blocks (memory O(block N))."]
    sys.path.insert(0, str(REPO))
    from randml_core.artefacts import atomic_write
    atomic_write(a.out, "\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
