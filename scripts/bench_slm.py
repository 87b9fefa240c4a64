"""Fit-time benchmark of the SLM models against their scikit-learn / XGBoost counterparts.

On a synthetic binary set (``make_classification``, 10 features, 6 informative, seed 0), for each
size n: fit time of SLM tree vs DecisionTree (entropy, full depth), SLM Forest (20 trees, the
paper's count) vs RandomForest (100 trees, the paper's count), SLM Boost vs XGBoost (100 rounds
each, depth 3, learning rate 0.3, tree_method="hist"), all single-threaded. Each pair is timed side
by side in the same run (SLM fit, then baseline fit); the time is the median of ``--repeats`` fits
for n <= ``--repeat-max-n`` and a single fit above. Wall-clock and CPU (process) time are both
reported: the machine may be shared, and CPU time is less sensitive to other users' load. The ratio
is SLM time / baseline time. Test accuracy on a 30 % holdout is shown as a sanity check.

The numba kernels of the split search are compiled before timing (a tiny warm-up fit), and the cost
of that compilation for a fresh process is measured separately in subprocesses: once with an empty
numba cache (first use on a machine) and once with the cache filled.

    python scripts/bench_slm.py [--sizes 1000 10000 100000] [--repeats 3] [--profile [--profile-n N]]
                                [--out results/tables/bench_slm.md]

``--profile`` adds the top functions (cProfile, CPU time) of one fit of each SLM model at
``--profile-n`` samples (default: the largest size). Text below the line ``<!-- notes -->`` in the output file is kept across runs.
"""
from __future__ import annotations

import argparse
import cProfile
import os
import platform
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

NOTES_MARK = "<!-- notes -->"


def pairs():
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.tree import DecisionTreeClassifier
    from xgboost import XGBClassifier

    from randml_core.models.slm import SLMBoostClassifier, SLMClassifier, SLMForestClassifier

    return [
        ("tree", lambda: SLMClassifier(random_state=0),
         "DecisionTree", lambda: DecisionTreeClassifier(criterion="entropy", random_state=0)),
        ("forest", lambda: SLMForestClassifier(n_estimators=20, n_projections=300, random_state=0),
         "RandomForest(100)", lambda: RandomForestClassifier(n_estimators=100, n_jobs=1, random_state=0)),
        ("boost", lambda: SLMBoostClassifier(n_estimators=100, max_depth=3, learning_rate=0.3,
                                             n_projections=300, random_state=0),
         "XGBoost(100)", lambda: XGBClassifier(n_estimators=100, max_depth=3, learning_rate=0.3, n_jobs=1,
                                                tree_method="hist", random_state=0)),
    ]


def timed_fit(make, X, y, repeats):
    """(median wall s, median CPU s, last fitted model) over ``repeats`` fits."""
    walls, cpus, model = [], [], None
    for _ in range(repeats):
        model = make()
        t0, c0 = time.perf_counter(), time.process_time()
        model.fit(X, y)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return statistics.median(walls), statistics.median(cpus), model


def data(n):
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=int(n / 0.7) + 1, n_features=10, n_informative=6,
                               n_redundant=2, random_state=0)
    return X[:n], y[:n], X[n:], y[n:]


_JIT_PROBE = """
import sys, time
sys.path.insert(0, {root!r})
t0 = time.perf_counter()
import numpy as np
from randml_core.models.slm import SLMBoostClassifier, SLMClassifier, SLMForestClassifier
t1 = time.perf_counter()
rng = np.random.RandomState(0)
X, y = rng.randn(300, 10), rng.randint(0, 2, 300)
makes = [lambda: SLMClassifier(n_projections=100, random_state=0),
         lambda: SLMForestClassifier(n_estimators=2, n_projections=100, random_state=0),
         lambda: SLMBoostClassifier(n_estimators=3, n_projections=100, random_state=0)]
def run():
    t = time.perf_counter()
    for m in makes:
        m().fit(X, y)
    return time.perf_counter() - t
first, second = run(), run()
print(t1 - t0, first - second)
"""


def jit_cost():
    """(import s, first-call overhead s) of a fresh process, with an empty then a filled cache."""
    out = []
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for _ in ("cold", "warm"):
            res = subprocess.run([sys.executable, "-c", _JIT_PROBE.format(root=str(ROOT))], env=env,
                                 capture_output=True, text=True, check=True)
            imp, jit = map(float, res.stdout.split())
            out.append((imp, jit))
    return out


def profile_lines(n, top=6):
    X, y, _, _ = data(n)
    lines = [f"After (this code), n = {n}, cProfile with CPU time, one fit each, top {top} by own time:", ""]
    for name, make_slm, _, _ in pairs():
        pr = cProfile.Profile(time.process_time)
        pr.enable()
        make_slm().fit(X, y)
        pr.disable()
        st = pstats.Stats(pr)
        rows = sorted(((v[2], f) for f, v in st.stats.items()), reverse=True)[:top]
        parts = [f"{fn.split('/')[-1].replace('.py', '')}.{fname} {100 * tt / st.total_tt:.0f} %"
                 for tt, (fn, _, fname) in rows]
        lines.append(f"- SLM {name} ({st.total_tt:.2f} s CPU): " + ", ".join(parts))
    lines.append("")
    lines.append("(`_best_splits_blocked` own time is the BLAS product X @ W.T of the candidate block.)")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    ap.add_argument("--repeats", type=int, default=3, help="fits per timing (median) for n <= --repeat-max-n")
    ap.add_argument("--repeat-max-n", type=int, default=10000)
    ap.add_argument("--profile", action="store_true", help="add a cProfile summary of one fit per SLM model")
    ap.add_argument("--profile-n", type=int, default=None, help="training size of the profile (default: largest)")
    ap.add_argument("--out", default=str(ROOT / "results" / "tables" / "bench_slm.md"))
    args = ap.parse_args(argv)

    jit = jit_cost()
    print(f"fresh process: import {jit[0][0]:.2f}s, JIT with empty cache {jit[0][1]:.2f}s, "
          f"with filled cache {jit[1][1]:.2f}s", flush=True)
    rows = []
    with threadpool_limits(limits=1):
        Xw, yw, _, _ = data(300)
        for _, make_slm, _, _ in pairs():  # compile / load the kernels before timing
            warm = make_slm()
            if "n_estimators" in warm.get_params():
                warm.set_params(n_estimators=2)
            warm.fit(Xw, yw)
        for n in args.sizes:
            Xtr, ytr, Xte, yte = data(n)
            reps = args.repeats if n <= args.repeat_max_n else 1
            for name, make_slm, base_name, make_base in pairs():
                w_slm, c_slm, m_slm = timed_fit(make_slm, Xtr, ytr, reps)
                w_base, c_base, m_base = timed_fit(make_base, Xtr, ytr, reps)
                acc_slm = float(np.mean(m_slm.predict(Xte) == yte))
                acc_base = float(np.mean(m_base.predict(Xte) == yte))
                rows.append((n, name, reps, w_slm, c_slm, base_name, w_base, c_base, acc_slm, acc_base))
                print(f"n={n:>7} SLM {name:<6} {w_slm:8.3f}s ({c_slm:7.3f} cpu)  {base_name:<18} "
                      f"{w_base:7.3f}s ({c_base:6.3f} cpu)  ratio {w_slm / w_base:6.1f}x wall, "
                      f"{c_slm / c_base:6.1f}x cpu  acc {acc_slm:.3f} / {acc_base:.3f}", flush=True)
        prof = profile_lines(args.profile_n or max(args.sizes)) if args.profile else []
    lines = ["# SLM fit-time benchmark", "",
             f"Command: `python scripts/bench_slm.py --sizes {' '.join(map(str, args.sizes))} "
             f"--repeats {args.repeats}{' --profile' if args.profile else ''}"
             f"{f' --profile-n {args.profile_n}' if args.profile and args.profile_n else ''}`", "",
             "| n (train) | SLM model | fits | SLM fit s (wall / CPU) | baseline | baseline fit s (wall / CPU) "
             "| ratio wall | ratio CPU | test acc SLM | test acc baseline |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for n, name, reps, ws, cs, bn, wb, cb, a1, a2 in rows:
        lines.append(f"| {n} | {name} | {reps} | {ws:.3f} / {cs:.3f} | {bn} | {wb:.3f} / {cb:.3f} | "
                     f"{ws / wb:.1f}x | {cs / cb:.1f}x | {a1:.3f} | {a2:.3f} |")
    lines += ["",
              "- Synthetic make_classification (10 features), single thread (threadpoolctl, n_jobs=1); "
              "times are the median of the fits shown. SLM Forest / Boost with 300 projections per node "
              "(as the experiment configs), SLM tree with 1000.",
              f"- Fresh-process cost of the numba kernels (tree + forest + boost on 300 samples, first fits "
              f"minus the same fits again): {jit[0][1]:.1f} s with an empty numba cache (first use on a "
              f"machine; the cache is then written next to the module), {jit[1][1]:.1f} s with the cache "
              f"filled; importing numpy + the SLM models: {jit[1][0]:.1f} s.",
              f"- Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
              f"load average at the end {os.getloadavg()[0]:.1f}. The machine is shared with other users, "
              "so absolute times are indicative only; the ratios are measured side by side.", ""]
    if prof:
        lines += ["## Profile", ""] + prof + [""]
    out = Path(args.out)
    notes = ""
    if out.exists() and NOTES_MARK in out.read_text():
        notes = out.read_text().split(NOTES_MARK, 1)[1]
    from randml_core.artefacts import atomic_write
    out = atomic_write(out, "\n".join(lines) + "\n" + NOTES_MARK + notes)
    print("wrote", out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
