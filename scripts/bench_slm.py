"""Fit-time benchmark of the SLM models against their scikit-learn / XGBoost counterparts.

On a synthetic binary set (``make_classification``, 10 features, 6 informative, seed 0), for each
size n: fit time of SLM tree vs DecisionTree (entropy, full depth), SLM Forest (20 trees, the
paper's count) vs RandomForest (100 trees, the paper's count), SLM Boost vs XGBoost (100 rounds
each, depth 3, learning rate 0.3), all single-threaded, best of ``--repeats`` fits. The ratio is
SLM time / baseline time. Test accuracy on a 30 % holdout is shown as a sanity check.

    python scripts/bench_slm.py [--sizes 1000 10000 100000] [--repeats 1] [--out results/tables/bench_slm.md]
"""
from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


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
    best, model = np.inf, None
    for _ in range(repeats):
        model = make()
        t0 = time.perf_counter()
        model.fit(X, y)
        best = min(best, time.perf_counter() - t0)
    return best, model


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--out", default=str(ROOT / "results" / "tables" / "bench_slm.md"))
    args = ap.parse_args(argv)
    from sklearn.datasets import make_classification

    rows = []
    with threadpool_limits(limits=1):
        for n in args.sizes:
            X, y = make_classification(n_samples=int(n / 0.7) + 1, n_features=10, n_informative=6,
                                       n_redundant=2, random_state=0)
            Xtr, ytr, Xte, yte = X[:n], y[:n], X[n:], y[n:]
            for name, make_slm, base_name, make_base in pairs():
                t_slm, m_slm = timed_fit(make_slm, Xtr, ytr, args.repeats)
                t_base, m_base = timed_fit(make_base, Xtr, ytr, args.repeats)
                acc_slm = float(np.mean(m_slm.predict(Xte) == yte))
                acc_base = float(np.mean(m_base.predict(Xte) == yte))
                rows.append((n, name, t_slm, base_name, t_base, t_slm / t_base, acc_slm, acc_base))
                print(f"n={n:>7} SLM {name:<6} {t_slm:8.3f}s  {base_name:<18} {t_base:8.3f}s  "
                      f"ratio {t_slm / t_base:8.1f}x  acc {acc_slm:.3f} / {acc_base:.3f}", flush=True)
    lines = ["# SLM fit-time benchmark", "",
             "| n (train) | SLM model | SLM fit s | baseline | baseline fit s | ratio SLM/baseline | test acc SLM | test acc baseline |",
             "|---|---|---|---|---|---|---|---|"]
    for n, name, ts, bn, tb, r, a1, a2 in rows:
        lines.append(f"| {n} | {name} | {ts:.3f} | {bn} | {tb:.3f} | {r:.1f}x | {a1:.3f} | {a2:.3f} |")
    lines += ["", f"- Synthetic make_classification (10 features), single thread, best of {args.repeats} fit(s); "
              "SLM Forest / Boost with 300 projections per node (as the experiment configs), SLM tree with 1000.",
              f"- Machine: {platform.machine()}, Python {platform.python_version()}; "
              "the machine is shared, so absolute times are indicative only.", ""]
    from randml_core.artefacts import atomic_write
    out = atomic_write(args.out, "\n".join(lines))
    print("wrote", out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
