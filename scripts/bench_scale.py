"""Several runs on one store (docs/cluster.md): wall times and duplicated tasks.

Scenarios on one small config (default: the engine's ``experiment=tiny protocol.repeats=5``: 2 datasets,
30 tasks, 270 cells of which 30 skipped by rule), each into a fresh store:

1. one ``randml run`` (n_jobs=1): the reference frame and wall time;
2. two ``randml run`` processes at once (n_jobs=1 each) on one store: task leases split the work;
3. four submitit_local jobs, ``shard=0/4,...,3/4`` (``hydra/launcher=randml_local``);
4. four submitit_local jobs without shards, all on the whole plan: only the leases keep them apart.

For each: wall time (process start to the last exit, imports included), rows in the parquet parts
vs distinct keys (duplicated cells, and tasks: 9 cells each here), and whether the stored frame
equals the reference run's (VOLATILE_COLUMNS aside).

``--backends``: instead, one ``randml run`` with 2 workers on each of ``backend=loky``, ``dask`` and
``ray`` (local clusters started by the run), each into a fresh store; wall time, the run's own time
and whether the frame equals loky's. Each mode rewrites only its own section of the output file.

``--speedup``: instead, EEM Table 4's paper grid on a few of its sets (``--speedup-datasets``) with n_jobs=1 and
n_jobs=2 (loky), each into a fresh store: wall times, the speed-up, and whether the frames are equal (a paper's
real workload: the tiny experiment's tasks are too short to measure a speed-up, start-up would dominate).

    .venv/bin/python scripts/bench_scale.py [--repeats 5] [--backends | --speedup] [--output results/tables/bench_scale.md]
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def rows_and_keys(store: Path, experiment: str = "tiny") -> tuple[int, int]:
    keys = []
    for p in (store / experiment).glob("part-*.parquet"):
        keys += pq.read_table(p, columns=["key"]).column("key").to_pylist()
    return len(keys), len(set(keys))


def frame_equal(a: Path, b: Path, experiment: str = "tiny") -> bool:
    from randml_core.runner import VOLATILE_COLUMNS
    from randml_core.store import Store
    fa, fb = Store(a, experiment).read(), Store(b, experiment).read()
    cols = sorted(c for c in fa.columns if c not in VOLATILE_COLUMNS)
    if sorted(c for c in fb.columns if c not in VOLATILE_COLUMNS) != cols:
        return False
    return fa[cols].sort_values("key").reset_index(drop=True).equals(fb[cols].sort_values("key").reset_index(drop=True))


def launch(argvs: list[list[str]], env: dict, errs: list | None = None) -> float:
    t0 = time.perf_counter()
    procs = [subprocess.Popen(a, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for a in argvs]
    for p in procs:
        _, err = p.communicate()
        if p.returncode:
            raise SystemExit(f"{' '.join(p.args)} exited {p.returncode}:\n{err[-3000:]}")
        if errs is not None:
            errs.append(err)
    return time.perf_counter() - t0


BACKENDS_HEADING = "## One run on loky, dask or ray (2 workers)"
SPEEDUP_HEADING = "## One run on 2 workers vs 1 (EEM Table 4 cells)"
SECTIONS = (BACKENDS_HEADING, SPEEDUP_HEADING)


def write_sections(path: Path, head: str | None, backends: str | None, speedup: str | None = None) -> Path:
    """The file with its first part (the several-runs table) and/or the given sections replaced; the parts
    not given are kept as they are."""
    from randml_core.artefacts import atomic_write
    old = path.read_text() if path.exists() else ""
    cuts = sorted((old.find(h), h) for h in SECTIONS if old.find(h) >= 0)
    starts = [i for i, _ in cuts] + [len(old)]
    parts = {h: old[i:starts[k + 1]] for k, (i, h) in enumerate(cuts)}
    old_head = old[:starts[0]]
    new = {BACKENDS_HEADING: backends, SPEEDUP_HEADING: speedup}
    text = (head if head is not None else old_head).rstrip("\n") + "\n"
    for h in SECTIONS:
        tail = new[h] if new[h] is not None else parts.get(h, "")
        text += ("\n" + tail.rstrip("\n") + "\n") if tail else ""
    return atomic_write(path, text)


def bench_speedup(args, env, tmp: Path) -> str:
    """The same plan with n_jobs=1 and n_jobs=2 (loky), each into a fresh store: wall times, the speed-up and
    whether the frames are equal. The plan: EEM Table 4's paper grid on ``--speedup-datasets``."""
    cli = [sys.executable, "-m", "randml_core.cli", "run"]
    sets = args.speedup_datasets
    base = ["experiment=eem_table4", f"experiment.datasets=[{','.join(sets)}]", "progress=false"]
    walls, owns = {}, {}
    for n in (1, 2):
        errs: list = []
        walls[n] = launch([[*cli, *base, f"n_jobs={n}", f"store_dir={tmp / f'w{n}'}",
                            f"hydra.run.dir={tmp / f'w{n}'}-log"]], env, errs)
        owns[n] = float(re.search(r"computed \d+ cells .* in ([\d.]+) s", errs[0]).group(1))
        print(f"n_jobs={n}: {walls[n]:.1f} s wall, run {owns[n]:.1f} s", flush=True)
    n_rows, _ = rows_and_keys(tmp / "w1", "eem_table4")
    same = frame_equal(tmp / "w1", tmp / "w2", "eem_table4")
    load = os.getloadavg()[0]
    return "\n".join([
        SPEEDUP_HEADING, "",
        f"`scripts/bench_scale.py --speedup --speedup-datasets {' '.join(sets)}`: `randml run {' '.join(base[:2])} "
        f"n_jobs=N` ({n_rows} cells: the paper grid of Table 4 on {len(sets)} of its 9 sets), each into a fresh store.",
        "",
        "| workers | wall (s) | run (s) | speed-up (wall) | speed-up (run) |",
        "|---|---|---|---|---|",
        f"| 1 | {walls[1]:.1f} | {owns[1]:.1f} | reference | reference |",
        f"| 2 | {walls[2]:.1f} | {owns[2]:.1f} | {walls[1] / walls[2]:.2f}x | {owns[1] / owns[2]:.2f}x |",
        "",
        f"Frames equal (non-volatile columns): {'yes' if same else 'NO'}. Load average (1 min) at the end: {load:.1f} "
        f"on {os.cpu_count()} cores ({'other jobs were running: noisy' if load > 2.5 else 'about idle'}). The "
        "target of the cluster issue is >= 1.8x; what limits it: the longest task and process start-up.", ""])


def bench_backends(args, env, tmp: Path) -> str:
    """One run per backend, 2 workers each (n_jobs=2: loky processes, or a local cluster of 2)."""
    cli = [sys.executable, "-m", "randml_core.cli", "run"]
    base = ["experiment=tiny", f"protocol.repeats={args.repeats}", "n_jobs=2", "progress=false"]
    env = dict(env, RAY_USAGE_STATS_ENABLED="0")
    rows = []
    for backend in ("loky", "dask", "ray"):
        if backend != "loky" and importlib.util.find_spec({"dask": "distributed"}.get(backend, backend)) is None:
            rows.append((backend, None, None, f"not installed (pip install -e '.[{backend}]')"))
            continue
        errs: list = []
        secs = launch([[*cli, *base, f"backend={backend}", f"store_dir={tmp / backend}",
                        f"hydra.run.dir={tmp / backend}-log"]], env, errs)
        own = re.search(r"computed (\d+) cells .* in ([\d.]+) s", errs[0])
        same = "reference" if backend == "loky" else ("yes" if frame_equal(tmp / "loky", tmp / backend) else "NO")
        rows.append((backend, secs, float(own.group(2)), same))
        print(backend, f"{secs:.1f} s", own.group(0), same, flush=True)
    n_rows, _ = rows_and_keys(tmp / "loky")
    lines = [
        BACKENDS_HEADING, "",
        f"`scripts/bench_scale.py --backends --repeats {args.repeats}`: `randml run experiment=tiny "
        f"protocol.repeats={args.repeats} n_jobs=2 backend=B` ({n_rows} cells), each backend into a fresh store; "
        "dask and ray start a local cluster of 2 workers for the run (no address) and stop it after. "
        "Wall: process start to exit; run: the run's own time (`randml run: computed ... in N s`: planning, "
        f"cluster start and stop, the tasks). Same shared {os.cpu_count()}-core machine: noisy, one pass each.",
        "",
        "| backend | wall (s) | run (s) | frame equals loky's |",
        "|---|---|---|---|",
    ]
    for backend, secs, own, same in rows:
        lines.append(f"| {backend} | {'-' if secs is None else f'{secs:.1f}'} | "
                     f"{'-' if own is None else f'{own:.1f}'} | {same} |")
    lines += ["", f"Load average (1 min) at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores. On one "
              "machine a cluster backend adds its start-up and stop (the run column) and computes nothing faster; "
              "a cluster with more cores (`backend_address`) is not measured here.", ""]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--backends", action="store_true", help="loky vs dask vs ray, 2 workers (its own section)")
    ap.add_argument("--speedup", action="store_true", help="one run on 2 workers vs 1 (its own section)")
    ap.add_argument("--speedup-datasets", nargs="+", default=["heart", "sonar", "ionosphere", "liver-disorders",
                                                                "australian"])
    ap.add_argument("--output", default=str(REPO / "results/tables/bench_scale.md"))
    args = ap.parse_args()
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""), RANDML_OFFLINE="1")
    tmp = Path(tempfile.mkdtemp(prefix="randml-bench-scale-"))
    if args.speedup:
        print("wrote", write_sections(Path(args.output), None, None, bench_speedup(args, env, tmp)))
        shutil.rmtree(tmp, ignore_errors=True)
        return 0
    if args.backends:
        print("wrote", write_sections(Path(args.output), None, bench_backends(args, env, tmp)))
        shutil.rmtree(tmp, ignore_errors=True)
        return 0
    cli = [sys.executable, "-m", "randml_core.cli", "run"]
    base = ["experiment=tiny", f"protocol.repeats={args.repeats}", "n_jobs=1", "progress=false"]

    def store_args(name, i=0):
        return [f"store_dir={tmp / name}", f"hydra.run.dir={tmp / name}-log{i}", f"hydra.sweep.dir={tmp / name}-sweep"]

    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf
    from randml_core.config import build_spec
    from randml_core.runner import make_plan
    with initialize_config_dir(config_dir=str(REPO / "conf"), version_base="1.3"):
        cfg = compose(config_name="config", overrides=base)
    plan = make_plan(build_spec(OmegaConf.to_container(cfg, resolve=True)))
    n_cells, n_tasks = sum(len(t.cells) for t in plan.tasks), len(plan.tasks)
    per_task = n_cells // n_tasks

    scenarios = [
        ("one run", "one", [[*cli, *base, *store_args("one")]]),
        ("two runs at once", "two", [[*cli, *base, *store_args("two", i)] for i in range(2)]),
        ("4 submitit_local jobs, shard=i/4", "shard4",
         [[*cli, "-m", *base, "shard=0/4,1/4,2/4,3/4", "hydra/launcher=randml_local", *store_args("shard4")]]),
        ("4 submitit_local jobs, no shard (leases only)", "lease4",
         [[*cli, "-m", *base, "shard=null,null,null,null", "hydra/launcher=randml_local",
           *store_args("lease4")]]),
    ]
    rows = []
    for label, name, argvs in scenarios:
        secs = launch(argvs, env)
        n_rows, n_keys = rows_and_keys(tmp / name)
        same = "reference" if name == "one" else ("yes" if frame_equal(tmp / "one", tmp / name) else "NO")
        rows.append((label, secs, n_rows, n_keys, n_rows - n_keys, same))
        print(label, f"{secs:.1f} s", n_rows, n_keys, same, flush=True)

    lines = [
        "# Several runs on one store: wall time and duplicated work",
        "",
        f"`scripts/bench_scale.py --repeats {args.repeats}`: `experiment=tiny protocol.repeats={args.repeats}`, "
        f"{n_cells} cells in {n_tasks} tasks ({per_task} cells each), `n_jobs=1` per run or job, each scenario "
        "into a fresh store.",
        "",
        f"**Machine: {os.cpu_count()} cores shared with other engineers' jobs** "
        f"({platform.platform()}, Python {platform.python_version()}); the wall times include each "
        "process's start-up (imports, Hydra, planning: several seconds here) and are noisy: read the "
        "duplicates and the frame check, not the speed-ups. More processes than cores cannot run faster.",
        "",
        "| scenario | wall (s) | rows in parts | distinct keys | duplicated cells (tasks) | frame equals one run |",
        "|---|---|---|---|---|---|",
    ]
    for label, secs, n_rows, n_keys, dup, same in rows:
        lines.append(f"| {label} | {secs:.1f} | {n_rows} | {n_keys} | {dup} ({dup // per_task}) | {same} |")
    lines += ["", "The speed-up of `make table4` on several machines is not measured (one 2-core machine here).", ""]
    print("wrote", write_sections(Path(args.output), "\n".join(lines), None))
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
