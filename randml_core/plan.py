"""What a plan is made of: a :class:`Cell` (one keyed setting of one model on one split), a :class:`Task` (one split
of one dataset with its cells: the unit a worker evaluates), the :class:`Plan` of an experiment and
:class:`PlanError`. :mod:`randml_core.planning` builds them; the runner, the readers and the reports consume them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .config import ExperimentSpec, Variant
from .preprocess import duplicates_of
from .protocol import SplitSpec

_KEY_ARRAYS: dict = {}  # Plan.key_array's concatenations, by the memo entries they join (the last 8)


@dataclass(slots=True)
class Cell:
    key: str
    variant: Variant
    params: dict
    params_json: str


@dataclass
class Task:
    dataset: str
    split: SplitSpec
    cells: list[Cell] = field(default_factory=list)


class Plan:
    """What ``make_plan`` expands a spec into: ``spec``, ``datasets`` (name -> Dataset), ``tasks`` (every split with
    all its cells), ``unavailable`` (dataset name -> why it could not be loaded) and ``search_trace`` (rows of the
    searches' trace, :mod:`randml_core.search`). A plan from the memo (``make_plan(memo=True)``) also has
    ``memo_parts`` (per dataset: its keys and planned cells, :data:`randml_core.planmemo.MEMO`) and builds its tasks on first use:
    a reader that needs only the keys and the planned cells never builds a cell object."""

    def __init__(self, spec: ExperimentSpec, datasets: dict, tasks: list, unavailable: dict,
                 search_trace: list | None = None, memo_parts: list | None = None):
        self.spec, self.datasets, self.unavailable = spec, datasets, unavailable
        self.search_trace = [] if search_trace is None else search_trace
        self.memo_parts = memo_parts
        self.search_inputs = None  # (grids, per dataset its searched cells' key heads): replan_searches' inputs
        self.tasks = tasks  # Task objects, and (from the memo) callables that build a dataset's Task list

    @property
    def tasks(self) -> list:
        if self._lazy:  # built once, on first use
            self._tasks, self._lazy = [x for t in self._tasks for x in (t() if callable(t) else [t])], False
        return self._tasks

    @tasks.setter
    def tasks(self, value: list) -> None:
        self._tasks, self._lazy = value, any(callable(t) for t in value)

    def __repr__(self) -> str:
        return f"Plan({self.spec.name!r}, datasets={sorted(self.datasets)}, unavailable={sorted(self.unavailable)})"

    def key_array(self):
        """Every planned key as one Arrow string array, without building a cell (a memo plan), else None."""
        if self.memo_parts is None:
            return None
        import pyarrow as pa
        parts = tuple(self.memo_parts)
        if parts not in _KEY_ARRAYS:  # the same array for the same parts: the store's mask memo knows it again
            while len(_KEY_ARRAYS) >= 8:
                del _KEY_ARRAYS[next(iter(_KEY_ARRAYS))]
            _KEY_ARRAYS[parts] = pa.concat_arrays([p.keys for p in parts]) if parts else pa.array([], pa.string())
        return _KEY_ARRAYS[parts]

    def n_keys(self) -> int:
        """The number of distinct planned keys (a key holds the data's hash, not the dataset's name: two names of
        the same data share their keys)."""
        hashes = [getattr(d, "data_hash", None) for d in self.datasets.values()]
        if self.memo_parts is not None and len(set(hashes)) == len(hashes):
            return sum(part.n_distinct for part in self.memo_parts)
        return len(self.key_set())

    def key_set(self) -> set:
        """The planned keys as a set (a memo plan: from its remembered columns, no cell object or Arrow array built)."""
        if self.memo_parts is not None:
            return {k for part in self.memo_parts for k in part.columns.keys}
        return {c.key for _, c in self.cells()}

    def planned_frame(self):
        """The planned cells (``randml_core.results.PLANNED_COLUMNS``) from the memo, without building a cell;
        None for a plan that did not come from it."""
        if self.memo_parts is None:
            return None
        if not self.memo_parts:
            return None
        import pandas as pd
        return pd.concat([part.columns.frame() for part in self.memo_parts], ignore_index=True)  # a copy: theirs

    def cells(self):
        for t in self.tasks:
            for c in t.cells:
                yield t, c

    def draw_splits(self, names) -> None:
        """Draw the train/test indices of the tasks of the datasets ``names`` where
        ``make_plan(splits=False)`` left them None; raises the PlanError ``make_plan`` would raise."""
        wanted = set(names)
        for name in [n for n in self.datasets if n in wanted]:
            tasks = [t for t in self.tasks if t.dataset == name]
            if not tasks or tasks[0].split.train is not None:
                continue
            drawn = _draw_splits(self.spec, name, self.datasets[name])
            ids = [(s.repeat, s.fold, s.inner, s.split_seed, s.model_seed) for s in drawn]
            if ids != [(t.split.repeat, t.split.fold, t.split.inner, t.split.split_seed, t.split.model_seed)
                       for t in tasks]:  # pragma: no cover - Protocol.layout and Protocol.splits disagree
                raise RuntimeError(f"dataset {name!r}: the drawn splits differ from Protocol.layout's")
            for t, s in zip(tasks, drawn):
                t.split = s


class PlanError(ValueError):
    """The experiment cannot be planned (bad data, impossible protocol); raised before any work."""


def _draw_splits(spec: ExperimentSpec, name: str, ds) -> list[SplitSpec]:
    try:
        return list(spec.protocol.splits(ds.y, name, regression=ds.task == "regression", test_index=ds.test_index,
                                         X=ds.X, duplicates=duplicates_of(spec.options)))
    except ValueError as exc:
        raise PlanError(str(exc)) from exc
