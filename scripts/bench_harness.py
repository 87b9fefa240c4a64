#!/usr/bin/env python
"""Benchmark (not a test) of issue 44: what the harness itself costs, each figure against its peer in one run.

1. **Floor**: 10,000 DummyClassifier cells (iris, 4 strategies, 10-fold x 250 repeats: 2,500 tasks) by
   ``randml run n_jobs=2`` against ``joblib.Parallel(n_jobs=2)`` over ``cross_validate`` with accuracy, balanced
   accuracy and log loss on the same splits (randml stores GMean, balanced accuracy, accuracy and log loss).
   Interleaved rounds; cells/s of each (randml: the run's own time, start-up excluded; the wall time is shown too).
2. **Linear in tasks**: one strategy, 2,500 then 10,000 tasks (a cell each) into fresh stores: the time ratio
   (linear: 4.0) and the time per task in the first and the last quarter of the 10,000 (from the rows' timestamps).
3. **load()**: ``randml_core.results.load(<experiment>, include_inner=True)`` of the largest committed frame with
   inner folds against ``pandas.read_parquet`` of its file: the first call of the process, then medians of 7; and
   the peak memory of a process making one call of each.
4. **Sequential search**: randml's optuna search (SVC, 4 sets, 20 trials) against plain optuna's ``optimize``,
   CPU seconds of each whole process.
5. **Plan and status at 1e6 cells**: ``randml plan`` and ``randml status`` of a config of 1,000,000 cells
   (kNN, 250 k x 2 weights x 2 p, iris, 10-fold x 100 repeats) on an empty store: wall seconds and
   peak memory of each whole process.

Every figure with the load average at its start (other work on the machine slows both sides alike, not the ratio).
Writes ``results/tables/bench_harness.md``.

    .venv/bin/python scripts/bench_harness.py [--repeats 250] [--rounds 2] [--skip-linear]
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
OUT = REPO / "results" / "tables" / "bench_harness.md"
RANDML = [sys.executable, "-m", "randml_core.cli"]
STRATEGIES = ["most_frequent", "prior", "stratified", "uniform"]

MODEL = """estimator:
  _target_: sklearn.dummy.DummyClassifier
variants:
  dummy: {{}}
grid:
  strategy: [{strategies}]
"""
EXPERIMENT = """# @package _global_
defaults:
  - /model@models.dummy: dummy
  - override /protocol: cv10
protocol:
  repeats: {repeats}
experiment:
  name: floor
  datasets: [iris]
"""


def _load() -> str:
    return "%.2f" % os.getloadavg()[0]


def _config(where: Path, strategies: list[str], repeats: int) -> Path:
    (where / "model").mkdir(parents=True, exist_ok=True)
    (where / "experiment").mkdir(exist_ok=True)
    (where / "model" / "dummy.yaml").write_text(MODEL.format(strategies=", ".join(strategies)))
    (where / "experiment" / "floor.yaml").write_text(EXPERIMENT.format(repeats=repeats))
    return where


def randml_run(conf: Path, store: Path) -> tuple[float, float, int]:
    """(the run's own seconds, wall seconds, cells computed) of ``randml run`` into a fresh ``store``."""
    t0 = time.perf_counter()
    out = subprocess.run([*RANDML, "run", "--config-dir", str(conf), "experiment=floor", "n_jobs=2", "progress=false",
                          f"store_dir={store}", f"hydra.run.dir={store}/logs"], capture_output=True, text=True,
                         env={**os.environ, "RANDML_OFFLINE": "1"})
    wall = time.perf_counter() - t0
    m = re.search(r"computed (\d+) cells .* in ([\d.]+) s", out.stderr)
    if out.returncode != 0 or m is None:
        raise SystemExit(f"randml run failed:\n{out.stderr[-2000:]}")
    return float(m.group(2)), wall, int(m.group(1))


def joblib_loop(repeats: int) -> tuple[float, int]:
    """(seconds, cells) of a joblib loop of cross_validate over the same cells (10 folds per (strategy, repeat))."""
    code = f"""
import time
from joblib import Parallel, delayed
from sklearn.datasets import load_iris
from sklearn.dummy import DummyClassifier
from sklearn.model_selection import RepeatedStratifiedKFold, cross_validate
X, y = load_iris(return_X_y=True)
def one(strategy, r):
    cv = RepeatedStratifiedKFold(n_splits=10, n_repeats=1, random_state=r)
    return cross_validate(DummyClassifier(strategy=strategy, random_state=r), X, y, cv=cv,
                          scoring=["accuracy", "balanced_accuracy", "neg_log_loss"])
t0 = time.perf_counter()
Parallel(n_jobs=2)(delayed(one)(s, r) for s in {STRATEGIES!r} for r in range({repeats}))
print(time.perf_counter() - t0)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1]), len(STRATEGIES) * repeats * 10


def floor(repeats: int, rounds: int, work: Path) -> list[str]:
    conf = _config(work / "floor_conf", STRATEGIES, repeats)
    ours, theirs, walls, loads = [], [], [], []
    for i in range(rounds):
        loads.append(_load())
        secs, wall, cells = randml_run(conf, work / f"floor_store_{i}")
        ours.append(cells / secs)
        walls.append(cells / wall)
        jsecs, jcells = joblib_loop(repeats)
        theirs.append(jcells / jsecs)
    r, j, w = statistics.median(ours), statistics.median(theirs), statistics.median(walls)
    return ["## 1. Floor: trivial cells against a joblib loop of cross_validate",
            "",
            f"{len(STRATEGIES) * repeats * 10:,} DummyClassifier cells ({repeats * 10:,} tasks), iris, n_jobs=2; medians "
            f"of {rounds} interleaved round(s); load average at each round's start: {', '.join(loads)}.",
            "",
            "| | cells/s | ratio to the joblib loop |", "|---|---:|---:|",
            f"| joblib.Parallel over cross_validate (accuracy, balanced accuracy, log loss) | {j:,.0f} | 1.00 |",
            f"| randml run, the run's own time | {r:,.0f} | {r / j:.2f} |",
            f"| randml run, wall time (start-up, planning and compaction included) | {w:,.0f} | {w / j:.2f} |",
            "", "Goal (issue 44): randml at >= 0.7x the joblib loop's cells/s.", ""]


def linear(work: Path) -> list[str]:
    import pandas as pd
    rows, times = [], {}
    for repeats in (250, 1000):
        conf = _config(work / f"lin_conf_{repeats}", ["prior"], repeats)
        load_avg = _load()
        secs, wall, cells = randml_run(conf, work / f"lin_store_{repeats}")
        times[repeats] = secs
        rows.append(f"| {repeats * 10:,} | {secs:.1f} | {wall:.1f} | {load_avg} |")
    store = work / "lin_store_1000" / "floor"
    frame = pd.concat([pd.read_parquet(p, columns=["timestamp"]) for p in sorted(store.glob("part-*.parquet"))])
    stamps = pd.to_datetime(frame["timestamp"], format="ISO8601").sort_values().to_numpy()
    q = len(stamps) // 4
    per_task = lambda a: (a[-1] - a[0]) / max(len(a) - 1, 1) / pd.Timedelta(milliseconds=1)  # noqa: E731
    first, last = per_task(stamps[:q]), per_task(stamps[-q:])
    ratio = times[1000] / times[250]
    return ["## 2. A run linear in its tasks", "",
            "One DummyClassifier setting (a cell per task), iris, n_jobs=2, each into a fresh store.", "",
            "| tasks | run's own seconds | wall seconds | load average |", "|---:|---:|---:|---:|", *rows, "",
            f"10,000 tasks take **{ratio:.2f}x** the time of 2,500 (linear: 4.0; goal: at most 4.5). Time per task "
            f"(from the rows' timestamps) in the first quarter of the 10,000: {first:.2f} ms, in the last quarter: "
            f"{last:.2f} ms.", ""]


OPTUNA_SETS = ["heart", "sonar", "ionosphere", "breast-cancer"]
OPTUNA_MODEL = """estimator:
  _target_: sklearn.svm.SVC
variants:
  SVC: {}
grid: {}
search:
  kind: optuna
  n: 20
  space:
    C: {loguniform: [0.01, 100.0]}
    gamma: {loguniform: [0.001, 10.0]}
"""
OPTUNA_EXPERIMENT = f"""# @package _global_
defaults:
  - /model@models.svc: svc
  - override /protocol: cv10
experiment:
  name: opt
  datasets: [{", ".join(OPTUNA_SETS)}]
"""
PLAIN_OPTUNA = f"""
import resource, time, optuna, numpy as np
from sklearn.svm import SVC
from sklearn.model_selection import StratifiedKFold
from sklearn.preprocessing import MinMaxScaler
from randml_core.data import load_dataset
optuna.logging.set_verbosity(optuna.logging.WARNING)
t0 = time.process_time()
for name in {OPTUNA_SETS!r}:
    ds = load_dataset(name)
    X, y = ds.X, ds.y
    folds = list(StratifiedKFold(10, shuffle=True, random_state=0).split(X, y))
    def objective(trial):
        C = trial.suggest_float("C", 0.01, 100.0, log=True)
        g = trial.suggest_float("gamma", 1e-3, 10.0, log=True)
        scores = []
        for tr, te in folds:
            sc = MinMaxScaler().fit(X[tr])
            m = SVC(C=C, gamma=g).fit(sc.transform(X[tr]), y[tr])
            scores.append((m.predict(sc.transform(X[te])) == y[te]).mean())
        return float(np.mean(scores))
    optuna.create_study(direction="maximize", sampler=optuna.samplers.TPESampler(seed=0)).optimize(objective, n_trials=20)
print(time.process_time() - t0)
"""


def _child_cpu() -> float:
    import resource
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def optuna_speed(work: Path, rounds: int = 5) -> list[str]:
    conf = work / "opt_conf"
    (conf / "model").mkdir(parents=True, exist_ok=True)
    (conf / "experiment").mkdir(exist_ok=True)
    (conf / "model" / "svc.yaml").write_text(OPTUNA_MODEL)
    (conf / "experiment" / "opt.yaml").write_text(OPTUNA_EXPERIMENT)
    env = {**os.environ, "RANDML_OFFLINE": "1"}
    ours, theirs, loads = [], [], []
    for r in range(rounds):  # interleaved: a machine's slow minute falls on both
        loads.append(_load())
        c0 = _child_cpu()
        out = subprocess.run([*RANDML, "run", "--config-dir", str(conf), "experiment=opt", "n_jobs=1", "progress=false",
                              f"store_dir={work}/opt_store{r}", f"hydra.run.dir={work}/opt_logs{r}"], capture_output=True,
                             text=True, env=env)
        cpu = _child_cpu() - c0
        m = re.search(r"computed (\d+) cells .* in ([\d.]+) s", out.stderr)
        if out.returncode != 0 or m is None:
            raise SystemExit(f"randml run (optuna) failed:\n{out.stderr[-2000:]}")
        ours.append((cpu, float(m.group(2)), int(m.group(1))))
        c0 = _child_cpu()
        plain = subprocess.run([sys.executable, "-c", PLAIN_OPTUNA], capture_output=True, text=True, check=True, env=env)
        theirs.append((_child_cpu() - c0, float(plain.stdout.strip().splitlines()[-1])))
    med = lambda xs: statistics.median(xs)  # noqa: E731
    ours_cpu, theirs_cpu = med([o[0] for o in ours]), med([t[0] for t in theirs])
    per_round = sorted(t[0] / o[0] for o, t in zip(ours, theirs))
    return ["## 4. Sequential search: randml's optuna against plain optuna", "",
            f"SVC, C and gamma log-uniform, TPE, 20 trials on each of {', '.join(OPTUNA_SETS)} (10 folds each, "
            f"{ours[0][2]} cells), one process each (n_jobs=1); medians of {rounds} interleaved rounds, each into a "
            f"fresh store; load average at each round's start: {', '.join(loads)}.", "",
            "| | CPU seconds, whole process | the search's own seconds (plain: CPU of its loop; randml: the run's wall "
            "time) |", "|---|---:|---:|",
            f"| plain optuna (study.optimize over 10-fold scores) | {theirs_cpu:.1f} | {med([t[1] for t in theirs]):.1f} |",
            f"| randml run (each trial a keyed, resumable cell; the trials followed inside one round) | {ours_cpu:.1f} | "
            f"{med([o[1] for o in ours]):.1f} |", "",
            f"randml at **{theirs_cpu / ours_cpu:.2f}x** plain optuna's CPU (ratio of the medians; per round "
            f"{per_round[0]:.2f}x to {per_round[-1]:.2f}x; whole processes, imports included; goal (issue 44): >= 0.75x). "
            "Each trial's cells are planned from the rows the round computed (no store read, full plan or compaction "
            "per trial); the run ends with one round that reads the store and plans whole.", ""]


MILLION_MODEL = """estimator:
  _target_: sklearn.neighbors.KNeighborsClassifier
variants:
  dummy: {}
grid:
  n_neighbors: [%s]
  weights: [uniform, distance]
  p: [1, 2]
""" % ", ".join(map(str, range(1, 251)))


def million(work: Path) -> list[str]:
    """``randml plan`` / ``randml status`` of 1e6 planned cells on an empty store: wall seconds and peak memory of each
    whole process."""
    conf = _config(work / "million_conf", STRATEGIES, 100)
    (conf / "model" / "dummy.yaml").write_text(MILLION_MODEL)
    rows = []
    for command in ("plan", "status"):
        load_avg = _load()
        log, hwm = work / f"million_{command}.txt", work / f"million_{command}.hwm"
        # the CLI in a process that writes its own VmHWM (peak resident memory of its address space) when it exits
        wrapper = ("import atexit, runpy, sys\n"
                   f"atexit.register(lambda: open({str(hwm)!r}, 'w').write([l.split()[1] for l in "
                   "open('/proc/self/status') if l.startswith('VmHWM')][0]))\n"
                   f"sys.argv = ['randml', {command!r}, '--config-dir', {str(conf)!r}, 'experiment=floor', "
                   f"'store_dir={work}/million_store', 'hydra.run.dir={work}/million_logs']\n"
                   "runpy.run_module('randml_core.cli', run_name='__main__')\n")
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", wrapper], capture_output=True, text=True,
                             env={**os.environ, "RANDML_OFFLINE": "1"})
        wall = time.perf_counter() - t0
        text = out.stdout + out.stderr
        log.write_text(text)
        if out.returncode != 0 or not re.search(r"1,?000,?000", text) or not hwm.exists():
            raise SystemExit(f"randml {command} at 1e6 cells failed or did not plan 1,000,000 cells:\n{text[-2000:]}")
        peak = int(hwm.read_text()) / 1024
        rows.append(f"| `randml {command}` | {wall:.1f} | {peak:,.0f} | {load_avg} |")
    return ["## 5. Plan and status at 1e6 cells", "",
            "A config of 1,000,000 cells (kNN: 250 k x 2 weights x 2 p, iris, 10-fold x 100 repeats: "
            "1,000 tasks) on an empty store; each command a whole process (start-up included).", "",
            "| command | wall seconds | peak MB | load average |", "|---|---:|---:|---:|", *rows, ""]


def _peak_mb(code: str) -> float:
    """Peak resident memory (MB) of a Python process running ``code``: its ``VmHWM`` read at its end (the high-water
    mark of its own address space; ``ru_maxrss`` of a forked child starts from the parent's)."""
    probe = code + "\nprint([l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0])"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         env={**os.environ, "RANDML_OFFLINE": "1"})
    if out.returncode != 0:
        raise SystemExit(f"the memory probe failed: {code}\n{out.stderr[-1500:]}")
    return int(out.stdout.strip().splitlines()[-1]) / 1024


def load_speed() -> list[str]:
    import warnings

    import pandas as pd
    import pyarrow.parquet as pq
    from randml_core.results import load
    frames = sorted((REPO / "results" / "frames").glob("*.parquet"), key=lambda p: p.stat().st_size, reverse=True)
    target = next(p for p in frames if pq.read_table(p, columns=["inner_fold"]).column("inner_fold").to_numpy().max() >= 0)
    from randml_core.frames import provenance
    held = provenance(target)["experiments"]  # the experiment of the frame with the most cells (not its file name:
    name = max(held, key=lambda e: held[e]["cells"])  # leaderboard.parquet holds leaderboard_grid)
    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    load(name, include_inner=True)  # the first call: imports, the frame's checksum (once per process), compose
    first = time.perf_counter() - t0
    ours, theirs = [], []
    load_avg = _load()
    for _ in range(7):
        t0 = time.perf_counter()
        pd.read_parquet(target)
        theirs.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        frame = load(name, include_inner=True)
        ours.append(time.perf_counter() - t0)
    r, p = statistics.median(ours), statistics.median(theirs)
    imports = ("import warnings; warnings.simplefilter('ignore'); import pandas, pyarrow.parquet; "
               "from randml_core.results import load; ")
    peaks = {what: _peak_mb(imports + code) for what, code in
             (("imports", "pass"), ("read_parquet", f"pandas.read_parquet({str(target)!r})"),
              ("load", f"load({name!r}, include_inner=True)"))}
    return ["## 3. load() against pandas.read_parquet", "",
            f"`load({name!r}, include_inner=True)` ({len(frame):,} rows) of the committed frame "
            f"`results/frames/{target.name}` ({target.stat().st_size / 1e6:.1f} MB), the largest with inner folds, "
            f"medians of 7 interleaved calls after a first one; load average {load_avg}.", "",
            "| | seconds | ratio |", "|---|---:|---:|",
            f"| pandas.read_parquet of the file | {p:.3f} | 1.0 |",
            f"| load(), a repeated call (the composed config and its plan's keys from their memos) | {r:.3f} | "
            f"{r / p:.1f} |",
            f"| load(), the first call of the process (imports, the frame's checksum, Hydra's compose) | {first:.3f} | "
            f"{first / p:.1f} |", "",
            "Peak memory of a process that makes one call after the same imports (its own maximum resident set):", "",
            "| process | peak MB | ratio |", "|---|---:|---:|",
            f"| the imports alone | {peaks['imports']:,.0f} | |",
            f"| pandas.read_parquet of the file | {peaks['read_parquet']:,.0f} | 1.00 |",
            f"| load(), its first call (the frame verified column by column) | {peaks['load']:,.0f} | "
            f"{peaks['load'] / peaks['read_parquet']:.2f} |", "",
            "Goal (issue 44): at most 1.5x its memory.", "",
            "Goal (issue 44): at most 3x. Every call keeps only the current config's cells (the guarantee): the "
            "composed config is memoised per process while no YAML file of its config dirs changes, and each "
            "dataset's planned keys while the config hash, the families' versions and the data hash hold (a "
            "searched model's keys follow the store, so an experiment with a search is planned again on each call).", ""]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=250)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--skip-linear", action="store_true")
    ap.add_argument("--output", type=Path, default=OUT)
    args = ap.parse_args()
    from randml_core.provenance import code_version
    sha, dirty = code_version()
    lines = ["# Harness benchmark (issue 44)", "",
             f"`make bench-harness` at code {sha[:10]}{' (dirty)' if dirty else ''}, {time.strftime('%Y-%m-%d %H:%M')}, "
             f"{os.cpu_count()} cores. Ratios matter here, not the seconds.", ""]
    with tempfile.TemporaryDirectory(prefix="bench_harness_") as tmp:
        work = Path(tmp)
        lines += floor(args.repeats, args.rounds, work)
        print("\n".join(lines), flush=True)
        if not args.skip_linear:
            lines += linear(work)
        lines += load_speed()
        lines += optuna_speed(work)
        lines += million(work)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text("\n".join(lines) + "\n")
    print("\n".join(lines[-12:]))
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
