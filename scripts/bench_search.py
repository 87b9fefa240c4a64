#!/usr/bin/env python
"""Benchmark (not a test) of issue 32: search beyond grids on EEM Table 4, nested, per model family.

For each family (welm, eem, eekm, lssvm, svm) it runs ``randml run experiment=eem_table4 model=FAMILY`` into a
fresh store per configuration: the full grid, and random search and successive halving (eta 2, over the 2
inner folds) sized to 1/4 and 1/10 of the grid's cells (:func:`randml_core.search.cells_per_scope`; searches
draw from the grid, so their cells are a subset of the grid's). Per dataset and model column it compares the
outer-fold GMean of the nested selection (grid: the nested rule; search: the search's rule inside the inner
folds) and the CPU seconds: the summed ``task_seconds`` of the run's tasks (one BLAS thread each) and the CPU
of the whole process tree (start-up and the searches' re-planning included). Writes
``results/tables/bench_search.md``. Resumable: a configuration whose run record exists is not run again.

    .venv/bin/python scripts/bench_search.py [--families svm lssvm] [--datasets heart sonar] [--report-only]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent       # where the results go
sys.path.insert(0, str(Path(__file__).absolute().parent.parent))  # the tree this copy of the script is in
OUT = REPO / "results" / "tables" / "bench_search.md"
TABLES = REPO / "results" / "tables"
WORK = REPO / "results" / "scratch" / "bench_search"
FAMILIES = ["welm", "eem", "eekm", "lssvm", "svm"]
FRACTIONS = {"1/4": 0.25, "1/10": 0.10}
INNER = 2  # eem_table4's inner folds


def grid_size(family: str) -> int:
    import yaml
    grid = yaml.safe_load((REPO / "experiments" / "eem" / "conf" / "model" / f"{family}.yaml").read_text())["grid"]
    return math.prod(len(v) for v in grid.values())


def sized(kind: str, g: int, fraction: float) -> dict:
    """The search block whose cells per outer fold are at most ``fraction`` of the grid's (g settings on
    2 inner + 1 outer fold); at least 1 setting (random) or 2 (halving)."""
    from randml_core.search import cells_per_scope
    full = g * (INNER + 1)
    space = {"p": {"choice": list(range(g))}}
    base = {"kind": kind, "space": space, "eta": 2, "min_folds": 1}
    best = 1 if kind == "random" else 2
    for n in range(best, g + 1):
        if cells_per_scope({**base, "n": n}, INNER, True) <= fraction * full:
            best = n
    block = {"kind": kind, "n": best}
    return {**block, "eta": 2} if kind == "halving" else block


def configs(families) -> list[tuple[str, str, list[str]]]:
    out = []
    for fam in families:
        out.append(("grid", fam, []))
        g = grid_size(fam)
        for kind in ("random", "halving"):
            blocks = []
            for label, frac in FRACTIONS.items():
                block = sized(kind, g, frac)
                if block in blocks:  # a grid too small for a smaller budget: the same run, not repeated
                    continue
                blocks.append(block)
                text = "{" + ",".join(f"{k}:{v}" for k, v in block.items()) + "}"
                out.append((f"{kind}-{label.replace('/', 'of')}", fam, [f"+models.{fam}.search={text}"]))
    return out


def run_one(name: str, fam: str, overrides: list[str], datasets, code: Path, n_jobs: int) -> dict:
    record = WORK / name / f"{fam}.json"
    if record.exists():
        return {"name": name, "overrides": overrides, **json.loads(record.read_text())}
    store = WORK / name / fam
    extra = [f"experiment.datasets=[{','.join(datasets)}]"] if datasets else []
    cmd = [sys.executable, "-m", "randml_core", "run", "experiment=eem_table4", f"model={fam}", *overrides, *extra,
           f"store_dir={store}", f"n_jobs={n_jobs}", "progress=true", f"hydra.run.dir={WORK}/logs"]
    print("$", " ".join(cmd), flush=True)
    env = dict(os.environ, PYTHONPATH=str(code))
    r0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.time()
    proc = subprocess.run(cmd, cwd=code, env=env)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = {"name": name, "family": fam, "overrides": overrides, "datasets": datasets, "rc": proc.returncode,
           "wall": time.time() - t0, "process_cpu": r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime}
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(json.dumps(out))
    return out


def _frame(name: str, fam: str):
    from randml_core.store import Store
    return Store(WORK / name / fam, "eem_table4").read()


def task_cpu(frame) -> float:
    """Summed task_seconds of the run's tasks (a task's rows share its time and write stamp)."""
    tasks = frame.drop_duplicates(["dataset", "repeat", "fold", "inner_fold", "timestamp"])
    return float(tasks["task_seconds"].sum())


def picks(frame, search: bool):
    from randml_core.report.comparison import search_select, selected
    return search_select(frame, "gmean", True) if search else selected(frame, "gmean", "nested")


def report(records: list[dict], command: str) -> str:
    import pandas as pd
    done = {(r["name"], r["family"]): r for r in records if r["rc"] in (0, 3)}
    lines = ["# Search beyond grids: EEM Table 4, nested (issue 32)", "",
             f"Command: `{command}`", "",
             "Each configuration ran into a fresh store (`results/scratch/bench_search/`), one family at a time, "
             "n_jobs=2 (the first searches ran with n_jobs=1 beside the SVM grid), on a machine shared with other "
             "jobs (times are indicative). Selection: the grid by nested "
             "CV (the table's rule), a search by its own rule inside the inner folds (`randml_core.report.comparison.search_select`); "
             "score: mean outer-fold GMean of the selected settings (10 outer folds x 1 repeat, 2 inner folds). "
             "Task CPU = summed `task_seconds` (each task on one BLAS thread); process CPU = the run's whole process "
             "tree (start-up and the searches' re-planning rounds included). Cells = stored cells of the run. SVM ran "
             "first on three of the nine datasets (heart, sonar, liver-disorders, n_jobs=1), then on all nine "
             "(`--families svm`, n_jobs=2, nice 5, 2026-11-27) into the same stores, so its cells and task CPU cover "
             "all nine while its process CPU counts only the second run (the six other datasets).", ""]
    rows = []
    for (name, fam), rec in sorted(done.items()):
        if name == "grid" or ("grid", fam) not in done:
            continue
        grid, found = _frame("grid", fam), _frame(name, fam)
        same = set(grid["dataset"]) == set(found["dataset"])
        grid = grid[grid["dataset"].isin(set(found["dataset"]))]  # a search run on a subset: the grid on it
        g = picks(grid, False).set_index(["dataset", "model"])["mean"]
        s = picks(found, True).set_index(["dataset", "model"])["mean"]
        diff = (s - g).dropna()
        per_ds = diff.groupby(level="dataset").min()  # the worst model column of each dataset
        gcpu, scpu = task_cpu(grid), task_cpu(found)
        rows.append({"family": fam, "search": name, "block": rec["overrides"][0].split("=", 1)[1],
                     "cells": f"{len(found)} / {len(grid)} ({len(found) / len(grid):.0%})",
                     "mean diff": f"{diff.mean():+.4f}", "largest loss": f"{diff.min():+.4f}",
                     "datasets within 0.01": f"{int((per_ds >= -0.01).sum())} of {len(per_ds)}",
                     "task CPU s": f"{scpu:.0f} / {gcpu:.0f} ({scpu / gcpu:.0%})",
                     "process CPU s": (f"{rec['process_cpu']:.0f} / {done[('grid', fam)]['process_cpu']:.0f}" if same
                                       else f"{rec['process_cpu']:.0f} / - (the grid's run covered other datasets too)")})
    if rows:
        table = pd.DataFrame(rows)
        lines += ["| " + " | ".join(table.columns) + " |", "|" + "---|" * len(table.columns)]
        lines += ["| " + " | ".join(str(v) for v in r) + " |" for r in table.itertuples(index=False)]
    lines += ["", "Diff = search minus grid GMean per (dataset, model column); a dataset is within 0.01 when its "
              "worst model column of the family is. Configurations measured: "
              + ", ".join(sorted({f"{n}/{f}" for n, f in done})) + "."]
    missing = [f"{r['name']}/{r['family']} (exit {r['rc']})" for r in records if r["rc"] not in (0, 3)]
    if missing:
        lines.append("Failed runs: " + ", ".join(missing) + ".")
    return "\n".join(lines) + "\n"


def _seconds(text: str) -> float:
    """``1.08 h`` / ``29.8 min`` / ``31.3 s`` (scripts/time_profile.py's format) in seconds."""
    value, unit = text.split()
    return float(value) * {"h": 3600, "min": 60, "s": 1}[unit]


def profile_compute(path: Path) -> dict:
    """model -> compute seconds from a profile written by scripts/time_profile.py (its model table)."""
    out = {}
    for line in path.read_text().splitlines() if path.is_file() else []:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[2].split()[-1:] and cells[2].split()[-1] in ("h", "min", "s") and cells[1].isdigit():
            out[cells[0]] = _seconds(cells[2])
    return out


def _means(csv: Path):
    import pandas as pd
    t = pd.read_csv(csv).set_index("dataset")
    return t[[c for c in t.columns if c.endswith(" mean")]].rename(columns=lambda c: c[: -len(" mean")])


def _wilcoxon_p(diff) -> float:
    """Two-sided Wilcoxon signed-rank p of per-dataset differences, zero differences dropped (NaN if none is left)."""
    from scipy.stats import wilcoxon
    nonzero = diff[diff != 0]
    return wilcoxon(nonzero).pvalue if len(nonzero) else float("nan")


def leaderboard_section() -> list[str]:
    """The leaderboard with equal budgets (``leaderboard_budget``, 6 random settings per model searched inside the
    inner folds) beside the grid leaderboard's nested table, from the committed tables and compute profiles:
    per model, the outer-fold GMean difference over the datasets both score (a Wilcoxon signed-rank test over
    datasets), the average ranks, and the compute of each; then each model run with and without
    class_weight=balanced. [] until ``leaderboard_budget.csv`` exists."""
    import numpy as np
    from scipy.stats import rankdata
    grid_csv, budget_csv = TABLES / "leaderboard_grid_nested.csv", TABLES / "leaderboard_budget.csv"
    if not (grid_csv.is_file() and budget_csv.is_file()):
        return []
    g, b = _means(grid_csv), _means(budget_csv)
    gc, bc = profile_compute(TABLES / "leaderboard_grid_profile.md"), profile_compute(TABLES / "leaderboard_budget_profile.md")
    models = [m for m in g.columns if m in b.columns]
    both = g.index.intersection(b.index)
    full = [d for d in both if g.loc[d, models].notna().all() and b.loc[d, models].notna().all()]

    def avg_rank(t):
        return dict(zip(models, np.mean([rankdata(-t.loc[d, models].to_numpy(float)) for d in full], axis=0)))
    rg, rb = avg_rank(g), avg_rank(b)
    lines = ["", "## The leaderboard with equal budgets (issue 32; like for like: issue 31)", "",
             "`make leaderboard-full` (conf/experiment/leaderboard_budget.yaml): the 13 models, 26 datasets and "
             "protocol of `leaderboard_grid` (10-fold CV, nested 2-fold selection, seed 0), every model with the same "
             "budget, 6 settings drawn at random (seeded) from a space spanning its leaderboard grid and searched "
             "inside the inner folds of each outer fold (SVM/RBF: C over its grid's range with gamma 'scale', not the "
             "grid's 0.1-10, which predicts one class on srbct; its compute column is the first run's, with the "
             "grid's gamma range). Beside it, the grid leaderboard's nested table "
             "(`leaderboard_grid_nested.csv`: grids of 1 (DT) to 24 (SLM Baseline) settings). Diff = budget minus grid "
             "outer-fold GMean per dataset; p = Wilcoxon signed-rank over the datasets both score (two-sided, "
             "zero differences dropped); ranks over the " + f"{len(full)} datasets every model scores "
             "(1 = best). Compute = fit + predict seconds of every stored cell (`scripts/time_profile.py`: "
             "`leaderboard_grid_profile.md`, `leaderboard_budget_profile.md`).", "",
             "| model | datasets | mean diff | largest loss | within 0.01 | better / worse | Wilcoxon p | "
             "avg rank grid -> budget | compute grid -> budget |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for m in models:
        d = (b[m] - g[m]).dropna()
        p = _wilcoxon_p(d)
        comp = (f"{gc[m] / 60:.1f} -> {bc[m] / 60:.1f} min" if m in gc and m in bc else "-")
        lines.append(f"| {m} | {len(d)} | {d.mean():+.4f} | {d.min():+.4f} | {int((d >= -0.01).sum())} of {len(d)} | "
                     f"{int((d > 0).sum())} / {int((d < 0).sum())} | {p:.3f} | {rg[m]:.2f} -> {rb[m]:.2f} | {comp} |")
    tg = sum(gc.get(m, 0.0) for m in models)
    tb = sum(v for v in bc.values())
    lines += ["", f"Compute in all: grid {tg / 3600:.2f} h, budget {tb / 3600:.2f} h (every model of the store's profile). "
              "The run's wall time: `leaderboard_budget_profile.md`'s first paragraph.", ""]
    bal_csv = TABLES / "leaderboard.csv"
    bal = _means(bal_csv) if bal_csv.is_file() else b.iloc[:, :0]
    pairs = [(m, f"{m}-bal") for m in b.columns if f"{m}-bal" in bal.columns]
    if pairs:
        lines += ["### Class weighting, the same budget", "",
                  "Each model that can do both, as scikit-learn's default (`leaderboard_budget.csv`) and with "
                  "class_weight=balanced (`leaderboard.csv`): balanced minus default outer-fold GMean per dataset (p: Wilcoxon signed-rank over datasets). The EEM family, LS-SVM "
                  "and the EEM paper's SVM-rbf weight the classes by construction; the SLM paper's models and XGBoost "
                  "cannot: they are ranked in `leaderboard` (the headline) / `leaderboard_unweighted` respectively.", "",
                  "| model | datasets | mean diff | better / worse | Wilcoxon p |", "|---|---:|---:|---:|---:|"]
        for m, mb in pairs:
            d = (bal[mb] - b[m]).dropna()
            p = _wilcoxon_p(d)
            lines.append(f"| {m} | {len(d)} | {d.mean():+.4f} | {int((d > 0).sum())} / {int((d < 0).sum())} | "
                         + ("< 0.0001" if p < 0.0001 else f"{p:.4f}") + " |")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--families", nargs="*", default=FAMILIES)
    ap.add_argument("--datasets", nargs="*", default=None, help="a subset of eem_table4's datasets (default: all 9)")
    ap.add_argument("--code", default=str(REPO), help="the source tree to run (default: this repository)")
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--report-only", action="store_true", help="write the table from the runs recorded so far")
    args = ap.parse_args(argv)
    records = []
    for name, fam, overrides in configs(args.families):
        record = WORK / name / f"{fam}.json"
        if args.report_only:
            if record.exists():
                records.append({"name": name, "overrides": overrides, **json.loads(record.read_text())})
            continue
        records.append(run_one(name, fam, overrides, args.datasets, Path(args.code), args.n_jobs))
    command = "python scripts/bench_search.py " + " ".join(argv if argv is not None else sys.argv[1:])
    from randml_core.artefacts import atomic_write
    atomic_write(OUT, report(records, command.strip()) + "\n".join(leaderboard_section()) + "\n")
    print(OUT.read_text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
