"""The cells a plan expects stored, as a frame (:func:`planned_cells`): below both the planner
(:mod:`randml_core.runner`, whose plan memo keeps one per dataset) and the readers (:mod:`randml_core.results`)."""
from __future__ import annotations

import pandas as pd

__all__ = ["PLANNED_COLUMNS", "planned_cells"]

PLANNED_COLUMNS = ["key", "dataset", "model", "params_json", "repeat", "fold", "inner_fold"]


def planned_cells(plan) -> pd.DataFrame:
    """One row per cell of ``plan`` (its key, dataset, model, params_json, repeat, fold, inner_fold):
    what a complete store holds for the config (a plan from the memo: its remembered frame, no cell built)."""
    import numpy as np
    remembered = plan.planned_frame()
    if remembered is not None:
        return remembered
    tasks = plan.tasks
    sizes = np.fromiter((len(t.cells) for t in tasks), dtype=np.int64, count=len(tasks))
    per_task = lambda values, dtype: np.repeat(np.fromiter(values, dtype=dtype, count=len(tasks)), sizes)  # noqa: E731
    cells = [c for t in tasks for c in t.cells]  # columns built whole: a row tuple per cell took ~0.5 s at 94k cells
    return pd.DataFrame({"key": [c.key for c in cells], "dataset": per_task((t.dataset for t in tasks), object),
                         "model": [c.variant.name for c in cells], "params_json": [c.params_json for c in cells],
                         "repeat": per_task((t.split.repeat for t in tasks), np.int64),
                         "fold": per_task((t.split.fold for t in tasks), np.int64),
                         "inner_fold": per_task((t.split.inner for t in tasks), np.int64)}, columns=PLANNED_COLUMNS)
