#!/usr/bin/env python
"""Predicted wall time of each experiment's whole plan on 1, 2, 16, 64 and 256 workers, from the task times
stored in its store (``task_seconds``, the median per dataset), with longest-first scheduling
(``randml_core.planview.lpt_makespan``, the rule ``randml plan workers=N`` uses). The plan is the experiment's
whole plan at the paper profile (stored or not), so the figure is the cost of regenerating it from an empty store.

Scaling stops at the longest task (a task is one split of one dataset with all models and settings: the unit a
worker runs), and at the number of tasks. Experiments without stored task times here are listed as not measured.

    .venv/bin/python scripts/predict_scale.py [--only eem_table4 slm_table1] [--store NAME=DIR ...]
        [--assume NAME:DATASET=SECONDS ...]
writes results/tables/bench_scale_predicted.md

``--assume`` gives a task cost measured elsewhere (e.g. a benchmark of one fit) for a dataset whose tasks are not
stored here; the row names every assumed figure, so it is never read as a stored time.
"""
from __future__ import annotations

import argparse
import math
import platform
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
WORKERS = (1, 2, 16, 64, 256)
SKIP = {"smoke", "tiny", "leaderboard_quick", "elmboost_quick", "pri_quick"}


def _fmt(s: float) -> str:
    if not math.isfinite(s):
        return "-"
    return f"{s / 3600:.1f} h" if s >= 3600 else f"{s / 60:.1f} min" if s >= 60 else f"{s:.1f} s"


def predict(name: str, store_dir: str, repeats: int | None = None, assume: dict | None = None) -> dict:
    """The prediction of one experiment; ``assume``: dataset -> seconds per task where none is stored."""
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    from randml_core.config import build_spec
    from randml_core.data.sources import no_downloads
    from randml_core.planview import lpt_makespan
    from randml_core.runner import make_plan
    from randml_core.store import Store

    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base="1.3"):
        over = [f"experiment={name}", "profile=paper"] + ([f"protocol.repeats={repeats}"] if repeats else [])
        cfg = compose(config_name="config", overrides=over)
    spec = build_spec(OmegaConf.to_container(cfg, resolve=True))
    with no_downloads():
        plan = make_plan(spec)
    stored = Store(store_dir, spec.store).read(columns=["key", "dataset", "repeat", "fold", "inner_fold", "task_seconds"])
    stored = stored.dropna(subset=["task_seconds"])
    own = stored.groupby(["dataset", "repeat", "fold", "inner_fold"])["task_seconds"].first().to_dict()
    kind = stored.assign(inner=stored["inner_fold"] >= 0).groupby(["dataset", "inner"])["task_seconds"].median().to_dict()
    tasks = plan.tasks

    assume = assume or {}
    used = set()

    def cost(t) -> float:  # the task's own stored time, else the median of its dataset's tasks of its kind
        s = t.split
        c = float(own.get((t.dataset, s.repeat, s.fold, s.inner), kind.get((t.dataset, s.inner >= 0), math.nan)))
        if not math.isfinite(c) and t.dataset in assume:
            used.add(t.dataset)
            c = float(assume[t.dataset])
        return c

    costs = [(t.dataset, cost(t)) for t in tasks]
    untimed = sorted({d for d, c in costs if not math.isfinite(c)})
    durations = [c for d, c in costs if d not in untimed]
    return {"name": name + (f" (repeats={repeats})" if repeats else ""), "tasks": len(tasks),
            "cells": sum(len(t.cells) for t in tasks), "timed_tasks": len(durations), "untimed": untimed,
            "assumed": {d: assume[d] for d in sorted(used)},
            "unavailable": sorted(plan.unavailable), "work": sum(durations),
            "longest": max(durations, default=math.nan),
            "walls": {w: lpt_makespan(durations, w) if durations else math.nan for w in WORKERS}}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", nargs="*", default=None, help="experiment names (default: every experiment)")
    ap.add_argument("--store", nargs="*", default=[], metavar="NAME=DIR",
                    help="store_dir for an experiment (default: results/store)")
    ap.add_argument("--repeats", nargs="*", default=[], metavar="NAME=R",
                    help="also predict an experiment with protocol.repeats=R (e.g. eem_table4=10)")
    ap.add_argument("--out", default=str(ROOT / "results" / "tables" / "bench_scale_predicted.md"))
    ap.add_argument("--assume", nargs="*", default=[], metavar="NAME:DATASET=SECONDS",
                    help="seconds per task of DATASET in experiment NAME where its store has none (measured elsewhere; "
                         "named in the row)")
    ap.add_argument("--note", default="", help="a sentence on how the stored task times were measured (load, machine)")
    args = ap.parse_args(argv)
    stores = dict(s.split("=", 1) for s in args.store)
    assumed: dict = {}
    for a in args.assume:
        where, _, secs = a.partition("=")
        exp, _, ds = where.partition(":")
        if not (exp and ds and secs):
            ap.error(f"--assume {a!r}: use NAME:DATASET=SECONDS, e.g. elmboost:mnist=2100")
        assumed.setdefault(exp, {})[ds] = float(secs)
    from randml_core.paths import shipped_config_dirs
    names = args.only or sorted({p.stem for d in shipped_config_dirs() for p in (d / "experiment").glob("*.yaml")
                                 if p.stem not in SKIP})
    warnings.simplefilter("ignore")
    rows = []
    jobs = [(n, None) for n in names] + [(k, int(v)) for k, v in (r.split("=", 1) for r in args.repeats)]
    for name, repeats in jobs:
        r = predict(name, stores.get(name, str(ROOT / "results" / "store")), repeats, assumed.get(name))
        rows.append(r)
        print(f"{r['name']}: {r['timed_tasks']}/{r['tasks']} tasks timed, work {_fmt(r['work'])}", flush=True)
    shown = list(argv if argv is not None else sys.argv[1:])
    if "--note" in shown[:-1]:  # the note is printed in full below the table
        shown[shown.index("--note") + 1] = "'...'"
    cmd = "scripts/predict_scale.py " + " ".join(shown)
    out = ["# Predicted wall time of each experiment on N workers", "",
           f"`{cmd.strip()}` on {platform.platform(terse=True)}, Python {platform.python_version()}.", "",
           "Each task (one split of one dataset, every model and setting: what one worker runs) costs its own "
           "stored `task_seconds` where it is stored, else the median of its dataset's stored tasks of the same kind "
           "(outer split or inner fold), measured with one BLAS thread per worker; the whole plan at the "
           "paper profile is scheduled longest-first on N identical workers (Graham's LPT rule, as `randml plan "
           "workers=N`). A run cannot beat its longest task nor use more workers than it has tasks, so the "
           "speed-up stops there (the 'stops scaling' column: the smallest N of the list whose wall time is within "
           "5 % of the longest task). Start-up, data loading on each node and the shared filesystem are not "
           "counted. Experiments whose stores are not on this machine are listed as not measured.", "",
           "| experiment | tasks (cells) | timed tasks | work (1 worker) | " + " | ".join(f"{w} workers" for w in WORKERS[1:])
           + " | longest task | stops scaling at |", "|---" * (6 + len(WORKERS) - 1) + "|"]
    for r in rows:
        if not r["timed_tasks"]:  # no stored nor assumed cost for any task
            out.append(f"| {r['name']} | {r['tasks']} ({r['cells']}) | 0 | not measured (no stored task times here) |"
                       + " |" * (len(WORKERS) + 1))
            continue
        stop = next((w for w in WORKERS if r["walls"][w] <= 1.05 * r["longest"]), None)
        note = ("" if not r["untimed"] else f" (untimed: {', '.join(r['untimed'])})") + (
            "" if not r["assumed"] else " (assumed per task, not stored: "
            + ", ".join(f"{d} {_fmt(v)}" for d, v in r["assumed"].items()) + ")")
        out.append(f"| {r['name']}{note} | {r['tasks']} ({r['cells']}) | {r['timed_tasks']} | {_fmt(r['work'])} | "
                   + " | ".join(_fmt(r["walls"][w]) for w in WORKERS[1:])
                   + f" | {_fmt(r['longest'])} | {stop or f'> {WORKERS[-1]}'} |")
    if args.note:
        out += ["", f"Measurement: {args.note}"]
    from randml_core.artefacts import atomic_write
    atomic_write(Path(args.out), "\n".join(out) + "\n")
    print(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
