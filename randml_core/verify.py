"""``randml verify``: recompute a random sample of an experiment's stored cells from scratch and compare.

Every cell is recomputed in this process (no store is read for it, none written), through the same task code a
run uses, and each deterministic column is compared with the stored row (scores exactly; wall and CPU times,
timestamps and provenance are excluded: :data:`NOT_REPRODUCIBLE`, and the extras a family declares volatile; a
column ``experiment.frame_omit`` leaves out of a frame is compared only where the stored row holds it). Works on
any store and its frame.
"""
from __future__ import annotations

import random
import sys

from .store import StoreError, _missing, store_of

#: columns a recomputation does not reproduce (measured times, when and with what it ran)
NOT_REPRODUCIBLE = frozenset({"fit_seconds", "predict_seconds", "task_seconds", "x_fit_cpu_seconds", "timestamp",
                              "code_version", "code_dirty", "packages", "config_hash", "experiment", "protocol",
                              "preprocessing", "error"})


def _same(a, b) -> bool:
    """Equal, or missing (None / NaN) on both sides."""
    if _missing(a) or _missing(b):
        return _missing(a) and _missing(b)
    return a == b


def _plain(v):
    return v.item() if hasattr(v, "item") else v


def _volatile(spec) -> set[str]:
    """The ``x_*`` columns the experiment's families declare volatile (:attr:`randml_core.family.Family.volatile`)."""
    from .family import family_of
    out = set()
    for v in spec.variants:
        try:
            out |= {"x_" + name for name in family_of(v.family, v.target).volatile}
        except (KeyError, LookupError, ImportError):  # an unknown family: planning reports it
            continue
    return out


def verify(spec, store_dir, sample: int, seed: int, stream=None) -> tuple[int, int, list]:
    """``(reproduced, drawn, mismatches)``: ``sample`` cells drawn with ``seed`` from the stored ``ok`` / ``skipped``
    cells of ``spec``'s plan, recomputed and compared; each mismatch is ``(cell description, column, stored,
    recomputed)``; mismatches are printed to ``stream`` (default: the ``sys.stdout`` of the call)."""
    stream = sys.stdout if stream is None else stream
    from .data.sources import no_downloads
    from .plan import Task
    from .planning import make_plan
    from .worker import run_task_with_meta, task_options
    with no_downloads():
        plan = make_plan(spec, splits=False, store_root=store_dir)
    store = store_of(spec, store_dir)
    if not store.has_rows():
        raise StoreError(f"{store.dir} has no stored cells of {spec.name} (and no frame): nothing to verify")
    stored = store.read(ordered=False)
    by_key = {k: i for i, k in enumerate(stored["key"])}
    cells = [(task, cell) for task, cell in plan.cells() if cell.key in by_key
             and stored["status"].iat[by_key[cell.key]] in ("ok", "skipped")]
    if not cells:
        raise StoreError(f"none of the {sum(1 for _ in plan.cells())} planned cells of {spec.name} is stored in "
                         f"{store.dir}: nothing to verify")
    drawn = random.Random(seed).sample(range(len(cells)), min(sample, len(cells)))
    groups: dict = {}
    for i in sorted(drawn):
        task, cell = cells[i]
        groups.setdefault(id(task), (task, []))[1].append(cell)
    plan.draw_splits({task.dataset for task, _ in groups.values()})  # in place: the tasks' splits are drawn now
    reproduced, mismatches = 0, []
    omitted = set(spec.engine.frame_omit)  # left out of a committed frame: not compared where the row lacks them
    volatile = _volatile(spec)
    for task, chosen in groups.values():
        split = task.split
        ds = plan.datasets[task.dataset]
        _, rows = run_task_with_meta(ds.X, ds.y, Task(task.dataset, split, chosen), task_options(dict(spec.options), ds),
                                      ds.task)
        for row in rows:
            old = stored.iloc[by_key[row["key"]]]
            where = (f"dataset={task.dataset} model={row.get('model')} setting={row.get('params_json')} "
                     f"repeat={split.repeat} fold={split.fold} inner_fold={split.inner}")
            bad = [(col, _plain(old[col]), _plain(v)) for col, v in row.items()
                   if col in old.index and col not in NOT_REPRODUCIBLE and col not in volatile
                   and not _same(_plain(old[col]), _plain(v))
                   and not (col in omitted and _missing(old[col]))]
            if bad:
                mismatches += [(where, *b) for b in bad]
                for col, a, b in bad:
                    print(f"MISMATCH {where}: {col} stored {a!r}, recomputed {b!r}", file=stream)
            else:
                reproduced += 1
    return reproduced, len(drawn), mismatches
