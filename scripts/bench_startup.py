"""`make bench-startup`: wall time of run / plan / status / report, cold and cached, on a 1080-cell config-only
`_target_` experiment and on `eem_table4` (issue "Everyday use": every command, cached, under 2 s). Never
asserted in tests.

The `_target_` experiment is a user's own config folder, written into a temporary directory: LogisticRegression
(5 C), a StandardScaler + SVC pipeline (2 C x 2 gamma) and kNN (3 k) on the shipped sets heart, sonar and
breast-cancer-wdbc with 10 outer folds and 2 inner folds: (5 + 4 + 3) x 3 x (10 + 10 x 2) = 1080 cells.
`eem_table4` is the project's experiment with `--eem-overrides` (default `profile=quick`: the nine datasets and
the paper's protocol with the quick grids; `--eem-overrides ''` is the paper's grids, about 12 min of computing
on 2 idle cores), in its own temporary store.

Cold: the command with an empty checks memo (model checks, bundled-dataset memo: randml_core/checkmemo.py,
datamemo.py); for run, the run that computes every cell; for report, the first report. Cached: the same command
again on the filled store and memo, median of --repeats runs. Every child Python runs with its bytecode cache
(PYTHONDONTWRITEBYTECODE removed from its environment), as an installed package or a checkout does by default.
Writes results/tables/bench_startup.md.
"""
from __future__ import annotations

import argparse
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "results" / "tables" / "bench_startup.md"
COMMANDS = ("run", "plan", "status", "report")

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


def _time(args, cwd, env, log=None) -> float:
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "randml_core", *args], cwd=cwd, env=env, capture_output=True,
                         text=True)
    seconds = time.perf_counter() - t0
    if log is not None:
        print(f"  randml {args[0]}: {seconds:.2f} s", file=log, flush=True)
    if out.returncode != 0:
        raise SystemExit(f"randml {' '.join(args)} failed ({out.returncode}):\n{out.stderr[-2000:]}")
    return seconds


def _measure(common: list[str], root: Path, env: dict, repeats: int, n_jobs: int, log) -> list[tuple]:
    """(command, cold s, cached s) for run / plan / status / report."""
    memo = Path(env["RANDML_CHECKS_CACHE"])
    cold = {"plan": _time(["plan", *common], root, env, log)}  # empty memo: the checks are computed
    print("  computing every cell ...", file=log, flush=True)
    cold["run"] = _time(["run", *common, f"n_jobs={n_jobs}"], root, env, log)
    for cmd in ("status", "report"):  # empty memo again; the first report builds the tables
        shutil.rmtree(memo, ignore_errors=True)
        cold[cmd] = _time([cmd, *common], root, env, log)
    cached = {c: statistics.median(_time([c, *common], root, env, log) for _ in range(repeats)) for c in COMMANDS}
    return [(c, cold[c], cached[c]) for c in COMMANDS]


def _table(rows) -> list[str]:
    return ["| command | cold (s) | cached (s) | cached under 2 s |", "|---|---:|---:|---|",
            *[f"| {c} | {cold:.2f} | {warm:.2f} | {'yes' if warm < 2 else 'NO'} |" for c, cold, warm in rows]]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5, help="cached runs per command (median)")
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--eem-overrides", default="profile=quick",
                    help="overrides of the eem_table4 measurement ('' = the paper's grids)")
    ap.add_argument("--log", help="progress log file (default: stderr)")
    args = ap.parse_args()
    log = open(args.log, "a") if args.log else sys.stderr
    load0 = os.getloadavg()[0]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    with tempfile.TemporaryDirectory(prefix="randml-bench-startup-") as tmp:
        root = Path(tmp)
        (root / "conf" / "experiment").mkdir(parents=True)
        (root / "conf" / "experiment" / "startup.yaml").write_text(EXPERIMENT)
        print("1080-cell _target_ experiment", file=log, flush=True)
        target = _measure(["--config-dir", str(root / "conf"), "experiment=startup", f"store_dir={root}/store",
                           f"results_dir={root}/results", f"hydra.run.dir={root}/logs", "progress=false"],
                          root, {**env, "RANDML_CHECKS_CACHE": str(root / "checks")}, args.repeats, args.n_jobs, log)
        eem_over = shlex.split(args.eem_overrides)
        print(f"eem_table4 {' '.join(eem_over)}", file=log, flush=True)
        eem = _measure(["experiment=eem_table4", *eem_over, f"store_dir={root}/eem-store",
                        f"results_dir={root}/eem-results", f"hydra.run.dir={root}/eem-logs", "progress=false"],
                       root, {**env, "RANDML_CHECKS_CACHE": str(root / "eem-checks")}, args.repeats, args.n_jobs, log)
    load1 = os.getloadavg()[0]
    command = "python scripts/bench_startup.py " + " ".join(
        [f"--repeats {args.repeats}", f"--n-jobs {args.n_jobs}", f"--eem-overrides {shlex.quote(args.eem_overrides)}"])
    eem_what = f"`eem_table4 {args.eem_overrides}`" if args.eem_overrides else "`eem_table4` (the paper's grids)"
    lines = [
        "# Start-up: every command, cold and cached",
        "",
        f"`{command}` on {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{time.strftime('%Y-%m-%d')}; load average {load0:.1f} at the start, {load1:.1f} at the end (other "
        "processes share the cores: wall times grow with it). Wall seconds of the whole process. Cold: the command "
        "with an empty checks memo (for run: the run that computes every cell; for report: the first report); "
        f"cached: the same command on the filled store and memo, median of {args.repeats} runs. Each child Python "
        "keeps its bytecode cache (PYTHONDONTWRITEBYTECODE removed), as an installed package or a checkout does.",
        "",
        "## A 1080-cell config-only `_target_` experiment",
        "",
        "LogisticRegression (5 C), StandardScaler + SVC (2 x 2), kNN (3) on heart, sonar, breast-cancer-wdbc; "
        "10 outer x 2 inner folds.",
        "",
        *_table(target),
        "",
        f"## {eem_what}",
        "",
        "The project's experiment: nine datasets, 10-fold CV with nested 2-fold inner CV"
        + (f", with `{args.eem_overrides}`" if args.eem_overrides else "") + ". Its report is the paper's module "
        "(randml_papers.eem.table4), which declares `CONTEXT_ONLY`: an unchanged report is not rebuilt.",
        "",
        *_table(eem),
        "",
    ]
    OUT.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
