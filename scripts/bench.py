"""`make bench`: speed of the EEM Table 4 engine (reported in the README, never asserted in tests).

Sections (all by default; pick with --only):
  grid     shared-work grid evaluation vs a naive per-configuration refit (GridSearchCV-style:
           Estimator(**params).fit().predict() for every cell) on fold 0 of every dataset, the
           full paper grid, one process; checks the scores are identical.
  table4   the whole paper grid, 9 datasets x 10 folds x 1 repeat, n_jobs=2, into a fresh store.
  cached   `randml run experiment=eem_table4` again on that complete store (0 fits expected).
Writes results/tables/bench_eem.md.
"""
from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from randml_core.metrics import gmean  # noqa: E402
from randml_core.family import FAMILIES, Split, evaluate_naive  # noqa: E402
from randml_core.runner import _minmax, make_plan  # noqa: E402


def compose_spec(*overrides):
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf
    from randml_core.config import build_spec
    with initialize_config_dir(config_dir=str(REPO / "conf"), version_base="1.3"):
        cfg = compose(config_name="config", overrides=list(overrides))
    return build_spec(OmegaConf.to_container(cfg, resolve=True))


def bench_grid(lines: list[str]) -> None:
    spec = compose_spec("experiment=eem_table4")
    plan = make_plan(spec)
    shared_t: dict[str, float] = {}
    naive_t: dict[str, float] = {}
    n_cells = n_diff = 0
    max_diff = 0.0
    for task in plan.tasks:
        if task.split.fold != 0 or task.split.repeat != 0 or task.split.inner != -1:
            continue
        ds = plan.datasets[task.dataset]
        Xtr, Xte = _minmax(ds.X[task.split.train], ds.X[task.split.test])
        ytr, yte = ds.y[task.split.train], ds.y[task.split.test]
        by_family: dict[str, list[dict]] = {}
        for c in task.cells:
            by_family.setdefault(c.variant.family, []).append(c.params)
        for family, settings in by_family.items():
            fam = FAMILIES[family]
            with threadpool_limits(1):
                t0 = time.perf_counter()
                fast = fam.evaluate(Split(Xtr, ytr, Xte, task.split.model_seed, dict(spec.options)), settings)
                t1 = time.perf_counter()
                slow = evaluate_naive(fam, Split(Xtr, ytr, Xte, task.split.model_seed, dict(spec.options)),
                                      [{**p, **({"max_iter": spec.options["svm_max_iter"]} if family == "svm" else {})}
                                       for p in settings])
                t2 = time.perf_counter()
            shared_t[family] = shared_t.get(family, 0.0) + t1 - t0
            naive_t[family] = naive_t.get(family, 0.0) + t2 - t1
            for a, b in zip(fast, slow):
                n_cells += 1
                if a.error or b.error:
                    n_diff += (a.error is None) != (b.error is None)
                    continue
                d = abs(gmean(yte, a.y_pred) - gmean(yte, b.y_pred))
                max_diff = max(max_diff, d)
                n_diff += d > 0
        print(f"  grid bench: {task.dataset} done", file=sys.stderr)
    lines += ["## Shared-work grid vs naive refit (fold 0 of each dataset, paper grid, 1 BLAS thread)", "",
              "| family | shared s | naive s | speed-up |", "|---|---|---|---|"]
    for f in shared_t:
        lines.append(f"| {f} | {shared_t[f]:.1f} | {naive_t[f]:.1f} | {naive_t[f] / shared_t[f]:.1f}x |")
    ts, tn = sum(shared_t.values()), sum(naive_t.values())
    lines += [f"| **all** | {ts:.1f} | {tn:.1f} | **{tn / ts:.1f}x** |", "",
              f"{n_cells} cells compared; {n_diff} with a different GMean (max |diff| {max_diff:.2e}); "
              "SVM differences, if any, come from libsvm computing the RBF kernel itself in the naive run "
              "versus our precomputed kernel.", ""]


def _cli(args, env=None):
    t0 = time.perf_counter()
    out = subprocess.run([str(REPO / ".venv" / "bin" / "randml"), *args], cwd=REPO, capture_output=True, text=True,
                         env=env)
    if out.returncode:
        raise SystemExit(out.stderr)
    return time.perf_counter() - t0, out.stderr


def bench_table4(lines: list[str], store: str) -> None:
    secs, err = _cli(["run", "experiment=eem_table4", f"store_dir={store}", "n_jobs=2", "progress=false",
                      f"hydra.run.dir={store}/logs"])
    summary = [l for l in err.splitlines() if l.startswith("randml run: computed")]
    lines += ["## `make table4` default (paper grid, 10-fold x 1 repeat + nested 2-fold inner CV), n_jobs=2, fresh store", "",
              f"wall time {secs / 60:.1f} min; {summary[-1] if summary else ''}", ""]


def bench_cached(lines: list[str], store: str) -> None:
    times = []
    for _ in range(3):
        secs, err = _cli(["run", "experiment=eem_table4", f"store_dir={store}", "n_jobs=2",
                          f"hydra.run.dir={store}/logs"])
        times.append(secs)
    summary = [l for l in err.splitlines() if l.startswith("randml run: computed")]
    lines += ["## Cached rerun (`randml run experiment=eem_table4` on a complete store)", "",
              f"wall time (whole command, 3 runs): {', '.join(f'{t:.2f} s' for t in times)}; "
              f"{summary[-1] if summary else ''}", ""]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", nargs="*", choices=["grid", "table4", "cached"], default=["grid", "table4", "cached"])
    ap.add_argument("--store", default=None, help="store for table4/cached (default: a fresh temp dir)")
    args = ap.parse_args()
    lines = ["# randml benchmarks: EEM Table 4 engine", "",
             f"Machine: {os.cpu_count()} cores, {platform.processor() or platform.machine()}, Python "
             f"{platform.python_version()}; generated {time.strftime('%Y-%m-%d %H:%M')}.", ""]
    store = args.store or tempfile.mkdtemp(prefix="randml-bench-")
    if "grid" in args.only:
        bench_grid(lines)
    if "table4" in args.only:
        bench_table4(lines, store)
    if "cached" in args.only:
        bench_cached(lines, store)
    from randml_core.artefacts import atomic_write
    atomic_write(REPO / "results" / "tables" / "bench_eem.md", "\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
