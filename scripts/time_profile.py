#!/usr/bin/env python
"""Where an experiment's compute went, from its stored rows: seconds of fit + predict per model and per
dataset (outer and nested inner cells), their share of the total, and the task seconds per dataset (a task is
one split with all models: the unit a worker runs, with its preprocessing; the time actually spent). A cell of a
shared-work family (EEM, EEKM, LS-SVM, SVM grids) stores a standalone estimate as its fit time (its own solve
plus its share of the shared hidden layer or kernel, or the whole kernel and one factorisation for LS-SVM), so
the compute column says what each model would cost alone and can exceed the task time.

    .venv/bin/python scripts/time_profile.py EXPERIMENT [--store-dir DIR] [--top N] [--out FILE] [--note TEXT]

prints markdown (or writes it to FILE, atomically, with TEXT as a first paragraph: e.g. the command and wall
time of the run). The figures are the stored ``fit_seconds`` / ``predict_seconds`` / ``task_seconds``
columns, so they describe the machine and load of the run that stored them.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def profile_tables(frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(by model, by dataset): cells, compute seconds (fit + predict), share of the total and, per
    dataset, the summed task seconds (each task counted once)."""
    f = frame.assign(seconds=frame["fit_seconds"].fillna(0) + frame["predict_seconds"].fillna(0))
    total = f["seconds"].sum()

    def summarise(by: str) -> pd.DataFrame:
        g = f.groupby(by, sort=False).agg(cells=("seconds", "size"), seconds=("seconds", "sum"))
        g["share"] = g["seconds"] / total if total > 0 else 0.0
        return g.sort_values("seconds", ascending=False)

    by_model, by_dataset = summarise("model"), summarise("dataset")
    tasks = f.groupby(["dataset", "repeat", "fold", "inner_fold"])["task_seconds"].first()
    by_dataset["task_seconds"] = tasks.groupby(level="dataset").sum().reindex(by_dataset.index)
    return by_model, by_dataset


def _fmt(s: float) -> str:
    return f"{s / 3600:.2f} h" if s >= 3600 else f"{s / 60:.1f} min" if s >= 60 else f"{s:.1f} s"


def markdown(name: str, by_model: pd.DataFrame, by_dataset: pd.DataFrame, top: int = 10) -> str:
    lines = [f"Compute of `{name}` from its stored rows (fit + predict seconds of every outer and inner cell):", "",
             "| model | cells | compute | share |", "|---|---:|---:|---:|"]
    lines += [f"| {r.Index} | {r.cells} | {_fmt(r.seconds)} | {r.share:.1%} |" for r in by_model.itertuples()]
    lines += ["", "| dataset | cells | compute | share | task time |", "|---|---:|---:|---:|---:|"]
    for r in by_dataset.head(top).itertuples():
        lines.append(f"| {r.Index} | {r.cells} | {_fmt(r.seconds)} | {r.share:.1%} | {_fmt(r.task_seconds)} |")
    rest = by_dataset.iloc[top:]
    if len(rest):
        lines.append(f"| {len(rest)} other datasets | {rest.cells.sum()} | {_fmt(rest.seconds.sum())} | "
                     f"{rest.share.sum():.1%} | {_fmt(rest.task_seconds.sum())} |")
    lines += ["", f"Total: {by_model.cells.sum()} cells, {_fmt(by_model.seconds.sum())} of compute, "
              f"{_fmt(by_dataset.task_seconds.sum())} of task time."]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("experiment")
    ap.add_argument("--store-dir", default=None)
    ap.add_argument("--top", type=int, default=10, help="datasets listed one by one (the rest summed)")
    ap.add_argument("--out", default=None, help="write the markdown to this file instead of printing it")
    ap.add_argument("--note", default="", help="a paragraph written above the tables (with --out)")
    a = ap.parse_args(argv)
    from randml_core.results import load

    frame = load(a.experiment, store_dir=a.store_dir, include_inner=True)
    text = markdown(a.experiment, *profile_tables(frame), top=a.top)
    if a.out is None:
        print(text)
        return 0
    from randml_core.artefacts import atomic_write

    head = f"# Where `{a.experiment}`'s compute went\n\n" + (a.note.strip() + "\n\n" if a.note.strip() else "")
    atomic_write(Path(a.out), head + text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
