"""Predicted wall time of a run from the stored task times: the line ``randml run`` prints before it
starts, and the numbers ``randml plan`` shows (:mod:`randml_core.planview`). Reads no store and imports
no runner: both call it."""
from __future__ import annotations

import heapq
import math
import os
import statistics


def _fmt(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "unknown"
    return f"{seconds / 3600:.1f} h" if seconds >= 3600 else f"{seconds / 60:.1f} min" if seconds >= 60 else f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"


def resolve_workers(workers) -> int:
    """``workers`` as a count: -1 (joblib's "every core") is ``os.cpu_count()``."""
    w = int(workers or 1)
    return os.cpu_count() or 1 if w < 0 else max(w, 1)


def lpt_makespan(durations: list[float], workers: int) -> float:
    """Wall time of ``durations`` on ``workers`` identical workers, each task given to the first
    free worker, longest first (Graham's LPT rule, within 4/3 of the optimum: Graham 1969). It is
    at least ``max(sum / workers, longest task)``, the two lower bounds of any schedule."""
    if not durations:
        return 0.0
    free = [0.0] * max(min(workers, len(durations)), 1)
    for d in sorted(durations, reverse=True):
        heapq.heapreplace(free, free[0] + d)
    return max(free)


def _task_times(stored) -> dict:
    """dataset -> median stored ``task_seconds`` (one value per stored task: its rows share it). ``stored``: a
    frame or ``{column: values}`` (:meth:`randml_core.store.Store.read_columns`); a missing time is left out."""
    if stored is None or "task_seconds" not in stored or "dataset" not in stored:
        return {}
    return median_by(stored["dataset"], stored["task_seconds"])


def median_by(keys, values) -> dict:
    """``{key: median of its values}``, a missing value (None or NaN) or key (None) left out."""
    by: dict = {}
    for key, value in zip(keys, values):
        if value is not None and value == value and key is not None:
            by.setdefault(key, []).append(float(value))
    return {k: statistics.median(v) for k, v in by.items()}


def predict(tasks, stored, workers: int) -> tuple[float, float, float, list[str]]:
    """(work on one worker, longest task, wall time on ``workers``, datasets without stored times)
    for the tasks still to run; each task's time is the median stored task time of its dataset."""
    per = _task_times(stored)
    untimed = sorted({t.dataset for t in tasks if t.dataset not in per or not math.isfinite(per[t.dataset])})
    if untimed:
        return math.nan, math.nan, math.nan, untimed
    durations = [float(per[t.dataset]) for t in tasks]
    return sum(durations), max(durations, default=0.0), lpt_makespan(durations, workers), []


def run_summary(plan, stored, todo, workers, mine, shard=None) -> str:
    """The one line ``randml run`` prints before it starts: cells, tasks, stored, to compute, and
    the predicted wall time on its workers (``mine``: the plan's tasks in this run's shard)."""
    n = resolve_workers(workers)
    cells = sum(len(t.cells) for t in plan.tasks)
    in_scope = sum(len(t.cells) for t in mine)
    missing = sum(len(t.cells) for t in todo)
    work, longest, wall, untimed = predict(todo, stored, n)
    if not todo:
        state = "all stored, nothing to compute"
    else:
        pred = (f"predicted wall time on {n} worker(s) {_fmt(wall)} (longest task {_fmt(longest)})" if not untimed
                else f"no time prediction (no stored task time for {', '.join(untimed)})")
        state = ("all to compute" if missing == in_scope
                 else f"{in_scope - missing} stored, {missing} to compute in {len(todo)} task(s)") + f"; {pred}"
    return (f"randml run: {plan.spec.name}: {cells} cells in {len(plan.tasks)} tasks"
            + (f", shard {shard}: {in_scope} cells in {len(mine)} tasks" if shard else "")
            + f"; {state}")
