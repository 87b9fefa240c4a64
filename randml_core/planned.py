"""The cells a plan expects stored, as a frame (:func:`planned_cells`): below both the planner
(:mod:`randml_core.runner`, whose plan memo keeps each dataset's columns) and the readers (:mod:`randml_core.results`).
pandas is imported only when a frame is built (a cached ``randml plan / status / report`` plans without it)."""
from __future__ import annotations

__all__ = ["PLANNED_COLUMNS", "PlannedColumns", "planned_cells"]

PLANNED_COLUMNS = ["key", "dataset", "model", "params_json", "repeat", "fold", "inner_fold"]


class PlannedColumns:
    """A plan's cells as plain columns (no pandas): per cell its key, model and params_json; per task its dataset,
    repeat, fold, inner fold and number of cells. :meth:`frame` builds the pandas frame (once)."""

    def __init__(self, tasks):
        cells = [c for t in tasks for c in t.cells]  # columns built whole: a row tuple per cell took ~0.5 s at 94k
        self.keys = [c.key for c in cells]
        self.models = [c.variant.name for c in cells]
        self.params = [c.params_json for c in cells]
        self.splits = [(t.dataset, t.split.repeat, t.split.fold, t.split.inner, len(t.cells)) for t in tasks]
        self._frame = None

    def __len__(self) -> int:
        return len(self.keys)

    def frame(self):
        """The cells as a DataFrame of :data:`PLANNED_COLUMNS`, built on the first call and kept (callers that may
        change it get a copy: :meth:`randml_core.plan.Plan.planned_frame` concatenates)."""
        import numpy as np
        import pandas as pd
        if self._frame is None:
            sizes = np.array([s[4] for s in self.splits], dtype=np.int64)
            per_task = lambda i, dtype: np.repeat(np.array([s[i] for s in self.splits], dtype=dtype), sizes)  # noqa: E731
            self._frame = pd.DataFrame({"key": self.keys, "dataset": per_task(0, object), "model": self.models,
                                        "params_json": self.params, "repeat": per_task(1, np.int64),
                                        "fold": per_task(2, np.int64), "inner_fold": per_task(3, np.int64)},
                                       columns=PLANNED_COLUMNS)
        return self._frame


def planned_cells(plan):
    """One row per cell of ``plan`` (its key, dataset, model, params_json, repeat, fold, inner_fold):
    what a complete store holds for the config (a plan from the memo: its remembered columns, no cell built)."""
    remembered = plan.planned_frame()
    return remembered if remembered is not None else PlannedColumns(plan.tasks).frame()
