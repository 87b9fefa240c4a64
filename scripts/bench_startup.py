"""`make bench-startup`: wall time of every command on a config-only `_target_` experiment of about 1000 cells
(issue "Everyday use": every command, cached, under 2 s). Never asserted in tests.

The experiment is a user's own config folder, written into a temporary directory: LogisticRegression (5 C),
a StandardScaler + SVC pipeline (2 C x 2 gamma) and kNN (3 k) on the shipped sets heart, sonar and
breast-cancer-wdbc with 10 outer folds and 2 inner folds: (5 + 4 + 3) x 3 x (10 + 10 x 2) = 1080 cells.
Each command is timed cold (a fresh checks memo, first use) and then cached (the memo and the store
filled; the median of --repeats runs). Writes results/tables/bench_startup.md.
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "results" / "tables" / "bench_startup.md"

EXPERIMENT = """# @package _global_
defaults:
  - override /protocol: cv10
protocol: {n_splits: 10, inner_splits: 2}
models:
  logreg:
    estimator: {_target_: sklearn.linear_model.LogisticRegression, max_iter: 2000}
    variants: {LogReg: {}}
    grid: {C: [0.01, 0.1, 1.0, 10.0, 100.0]}
  svc:
    estimator:
      _target_: sklearn.pipeline.make_pipeline
      _args_: [{_target_: sklearn.preprocessing.StandardScaler}, {_target_: sklearn.svm.SVC}]
    variants: {SVC: {}}
    grid: {svc__C: [1.0, 10.0], svc__gamma: [0.01, 0.1]}
  knn:
    estimator: {_target_: sklearn.neighbors.KNeighborsClassifier}
    variants: {kNN: {}}
    grid: {n_neighbors: [3, 7, 15]}
experiment:
  name: startup
  datasets: [heart, sonar, breast-cancer-wdbc]
"""


def _time(args, cwd, env) -> float:
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "randml_core", *args], cwd=cwd, env=env, capture_output=True,
                         text=True)
    seconds = time.perf_counter() - t0
    if out.returncode != 0:
        raise SystemExit(f"randml {' '.join(args)} failed ({out.returncode}):\n{out.stderr[-2000:]}")
    return seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5, help="cached runs per command (median)")
    ap.add_argument("--n-jobs", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="randml-bench-startup-") as tmp:
        root = Path(tmp)
        (root / "conf" / "experiment").mkdir(parents=True)
        (root / "conf" / "experiment" / "startup.yaml").write_text(EXPERIMENT)
        env = dict(os.environ, RANDML_CHECKS_CACHE=str(root / "checks"), PYTHONPATH=str(REPO))
        common = ["--config-dir", str(root / "conf"), "experiment=startup", f"store_dir={root}/store",
                  f"results_dir={root}/results", f"hydra.run.dir={root}/logs", "progress=false"]
        rows = []
        cold_plan = _time(["plan", *common], root, env)  # first use: the model checks are computed
        t_run = _time(["run", *common, f"n_jobs={args.n_jobs}"], root, env)  # computes every cell
        cold_report = _time(["report", *common], root, env)  # builds the tables and figures
        cached = {c: statistics.median(_time([c, *common], root, env) for _ in range(args.repeats))
                  for c in ("run", "plan", "status", "report")}
        rows = [("plan", cold_plan, cached["plan"]), ("run", t_run, cached["run"]),
                ("status", None, cached["status"]), ("report", cold_report, cached["report"])]
    lines = [
        "# Start-up: every command on a 1080-cell config-only `_target_` experiment",
        "",
        f"`python scripts/bench_startup.py --repeats {args.repeats}` on {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, {time.strftime('%Y-%m-%d')}. Cold: the first command after an empty "
        "checks memo (plan), the run that computes every cell, the report that builds the tables; cached: the "
        f"same command on the filled store and memo, median of {args.repeats} runs (wall seconds, whole process).",
        "",
        "| command | cold (s) | cached (s) |",
        "|---|---:|---:|",
        *[f"| {c} | {'' if cold is None else f'{cold:.2f}'} | {warm:.2f} |" for c, cold, warm in rows],
        "",
    ]
    OUT.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
