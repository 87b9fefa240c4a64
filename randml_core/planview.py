"""``randml plan``: what a run would do, before it does it (no model is fitted, nothing downloaded).

The models with the grids that will actually run (after a profile's ``quick:`` blocks), and per
dataset the tasks and cells, how many are stored, and a predicted wall time for the missing tasks
from the stored ``task_seconds`` of the same dataset's tasks (median), scheduled on the workers
longest first (LPT), with the longest single task as the lower bound. ``randml run`` prints the
one-line form (:func:`run_summary`) before it starts.
"""
from __future__ import annotations

import math

from .config import ExperimentSpec
from .data.sources import no_downloads
from .prediction import _fmt, _task_times, lpt_makespan, median_by, predict, resolve_workers  # noqa: F401  (re-exported)
from .prediction import run_summary as _summary
from .planning import make_plan, shard_tasks
from .store import store_of


def run_summary(plan, stored, todo, workers, shard=None) -> str:
    """:func:`randml_core.prediction.run_summary` with the shard's tasks taken from the plan."""
    return _summary(plan, stored, todo, workers, shard_tasks(plan.tasks, shard), shard)


def _seconds_per_cell(spec: ExperimentSpec, store_dir: str) -> dict:
    """model -> median stored fit + predict seconds of its cells, for the models with a search or a budget."""
    if not any(v.search is not None for v in spec.variants):
        return {}
    stored = store_of(spec, store_dir).read_columns(["model", "fit_seconds", "predict_seconds"])
    if not stored.get("model") or "fit_seconds" not in stored:
        return {}
    preds = stored.get("predict_seconds", [0.0] * len(stored["model"]))
    return median_by(stored["model"], [_seconds(fit) + _seconds(pred) for fit, pred in zip(stored["fit_seconds"], preds)])


def _seconds(value) -> float:
    """A stored time, 0 when missing (None or NaN)."""
    return 0.0 if value is None or value != value else float(value)


def describe_plan(spec: ExperimentSpec, store_dir: str, workers: int = 1, shard: str | None = None,
                  retry_failed: bool = False) -> str:
    from .leases import holders
    from .planning import parse_shard, shard_tasks
    shard_n = parse_shard(shard)[1]
    n = resolve_workers(workers)
    lines = [f"{spec.name} [{spec.profile}]: {spec.protocol.describe()}"]
    per_cell = _seconds_per_cell(spec, store_dir)
    for v in spec.variants:
        if v.search is not None:  # a search or a budget (randml_core.search): its cells, budget and CPU time
            from .search import plan_line
            lines.append(plan_line(spec, v, per_cell.get(v.name), len(spec.datasets)))
            continue
        grid = ", ".join(f"{k}={v.grid[k]}" for k in sorted(v.grid)) or "no grid"
        fixed = ", ".join(f"{k}={val!r}" for k, val in sorted(v.fixed.items()))
        lines.append(f"  model {v.name} ({v.family}): {len(v.settings())} setting(s): {grid}"
                     + (f"; fixed {fixed}" if fixed else ""))
        for d, axes in sorted((v.per_dataset or {}).items()):
            lines.append(f"    on {d}: {len(v.settings(d))} setting(s): "
                         + ", ".join(f"{k}={axes[k]}" for k in sorted(axes)) + " (per_dataset)")
    with no_downloads():
        plan = make_plan(spec, splits=False, store_root=store_dir)  # a search plans from the stored results
    store = store_of(spec, store_dir)
    from .planning import again_columns, computed_again
    stored = store.read_columns(["key", "status", "dataset", "task_seconds", *again_columns(spec)])
    status = dict(zip(stored["key"], stored["status"]))
    # what `randml run` computes (one notion of done): cells lacking a listed scorer, failed ones under retry_failed
    redo = computed_again(stored, spec, plan, retry_failed)
    per = _task_times(stored)
    tasks_in = shard_tasks(plan.tasks, shard)
    rows, todo = [], []
    for name in spec.datasets:
        if name in plan.unavailable:
            rows.append(f"  {name}: not available ({plan.unavailable[name]})")
            continue
        tasks = [t for t in tasks_in if t.dataset == name]
        cells = sum(len(t.cells) for t in tasks)
        states = [status.get(c.key) for t in tasks for c in t.cells]
        done, skipped, absent = states.count("ok"), states.count("skipped"), states.count(None)
        failed = cells - done - skipped - absent  # any other stored status, as `randml status` counts
        missing = [t for t in tasks if any(c.key not in status or c.key in redo for c in t.cells)]
        again = sum(c.key in redo for t in tasks for c in t.cells)
        todo += missing
        per_task = per.get(name, math.nan)
        rows.append(f"  {name}: {len(tasks)} task(s), {cells} cells: {done} stored, "
                    + (f"{skipped} skipped by rule, " if skipped else "") + f"{failed} failed, "
                    f"{absent} missing" + (f", {again} to compute again" if again else "")
                    + f" in {len(missing)} task(s); predicted "
                    f"{_fmt(len(missing) * per_task)} on one worker"
                    + (f" ({_fmt(per_task)} per task)" if math.isfinite(per_task) and missing else "")
                    + ("" if math.isfinite(per_task) or not missing else " (no stored task of this dataset to time)"))
    work, longest, wall, untimed = predict(todo, stored, n)
    lines += rows
    leased = holders(store.dir / "leases")
    if leased:
        lines.append(f"  {len(leased)} task(s) leased by running runs: "
                     + ", ".join(sorted({f"{i.host} pid {i.pid}" for _, i in leased})))
    lines.append(f"total: {sum(len(t.cells) for t in tasks_in)} cells in {len(tasks_in)} tasks"
                 + (f" (shard {shard} of {sum(len(t.cells) for t in plan.tasks)} cells in {len(plan.tasks)} tasks)"
                    if shard_n else "")
                 + f", {len(todo)} task(s) to run; predicted wall time on {n} worker(s): "
                 + (_fmt(wall) if todo else "0 s")
                 + (f" (work {_fmt(work)}; lower bound: the longest task, {_fmt(longest)}; from stored task times)"
                    if todo and not untimed else "")
                 + (f" (unknown: no stored task time for {', '.join(untimed)})" if untimed else ""))
    return "\n".join(lines)
