"""``randml plan``: what a run would do, before it does it (no model is fitted, nothing downloaded).

The models with the grids that will actually run (after a profile's ``quick:`` blocks), and per
dataset the tasks and cells, how many are stored, and a predicted wall time for the missing tasks
from the stored ``task_seconds`` of the same dataset's tasks (median), spread over the workers,
with the longest single task as the lower bound.
"""
from __future__ import annotations

import math

import pandas as pd

from .config import ExperimentSpec
from .data.sources import no_downloads
from .runner import make_plan
from .store import Store


def _fmt(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "unknown"
    return f"{seconds / 3600:.1f} h" if seconds >= 3600 else f"{seconds / 60:.1f} min" if seconds >= 60 else f"{seconds:.0f} s"


def describe_plan(spec: ExperimentSpec, store_dir: str, workers: int = 1) -> str:
    lines = [f"{spec.name} [{spec.profile}]: {spec.protocol.describe()}"]
    for v in spec.variants:
        grid = ", ".join(f"{k}={v.grid[k]}" for k in sorted(v.grid)) or "no grid"
        fixed = ", ".join(f"{k}={val!r}" for k, val in sorted(v.fixed.items()))
        lines.append(f"  model {v.name} ({v.family}): {len(v.settings())} setting(s): {grid}"
                     + (f"; fixed {fixed}" if fixed else ""))
    with no_downloads():
        plan = make_plan(spec)
    stored = Store(store_dir, spec.store).read(columns=["key", "status", "dataset", "task_seconds"])
    status = dict(zip(stored["key"], stored["status"]))
    secs = stored.dropna(subset=["task_seconds"]) if "task_seconds" in stored else pd.DataFrame()
    rows, total_missing, longest, work = [], 0, 0.0, 0.0
    for name in spec.datasets:
        if name in plan.unavailable:
            rows.append(f"  {name}: not available ({plan.unavailable[name]})")
            continue
        tasks = [t for t in plan.tasks if t.dataset == name]
        cells = sum(len(t.cells) for t in tasks)
        done = sum(status.get(c.key) == "ok" for t in tasks for c in t.cells)
        failed = sum(status.get(c.key) == "failed" for t in tasks for c in t.cells)
        todo = sum(any(c.key not in status for c in t.cells) for t in tasks)
        per_task = float(secs.loc[secs["dataset"] == name, "task_seconds"].median()) if len(secs) else math.nan
        est = todo * per_task
        if todo:
            work += est
            longest = max(longest, per_task)
        total_missing += todo
        rows.append(f"  {name}: {len(tasks)} task(s), {cells} cells: {done} stored, {failed} failed, "
                    f"{cells - done - failed} missing in {todo} task(s); predicted {_fmt(est)} on one worker"
                    + ("" if math.isfinite(per_task) or not todo else " (no stored task of this dataset to time)"))
    wall = max(work / max(workers, 1), longest) if total_missing else 0.0
    lines += rows
    lines.append(f"total: {sum(len(t.cells) for t in plan.tasks)} cells in {len(plan.tasks)} tasks, "
                 f"{total_missing} task(s) to run; predicted wall time on {workers} worker(s): {_fmt(wall)}"
                 f" (lower bound: the longest task, {_fmt(longest)}; from stored task times)")
    return "\n".join(lines)
