"""The plan memo of the readers (``make_plan(memo=True)``, :func:`randml_core.rows.planned_keys`): per process, each
dataset's splits and cell keys, taken from here when the same config plans the same data again, so a repeated
``load()`` does not key every cell again (planning was 60 % of it: issue 44, load() at parquet speed).
"""
from __future__ import annotations

import hashlib
import json

import numpy as np

from .config import ExperimentSpec
from .plan import Cell, Task

#: make_plan(memo=True)'s memo, per process: (config hash, the families' key parts, dataset, its data hash, task,
#: test index, preprocessing) -> (the dataset's SplitSpecs, every cell key in plan order). Those are every input of
#: its keys (the config hash covers the protocol, options, grids and per_dataset blocks; the family parts carry the
#: family versions), so a hit gives the keys planning again would give. Planning was 60 % of a repeated
#: load() (issue 44: load() at parquet speed); the memo keeps at most MEMO_KEYS keys, oldest dropped first.
MEMO: dict = {}
MEMO_KEYS = 2_000_000


def memo_base(spec: ExperimentSpec, grids) -> tuple | None:
    """The config part of a memo key; None (no memo) when a variant searches (its cells follow the store)."""
    if any(cells is None for _, _, cells in grids):
        return None
    return spec.config_hash(), json.dumps([parts for _, parts, _ in grids])


def index_digest(index) -> str | None:
    if index is None:
        return None
    a = np.ascontiguousarray(index)
    return hashlib.sha256(str(a.dtype).encode() + a.tobytes()).hexdigest()


class MemoEntry:
    """A dataset's plan in :data:`MEMO`: its splits, its planned cells as columns (:class:`randml_core.planned.
    PlannedColumns`, a frame built only when asked for), its number of distinct keys, and its keys as an Arrow
    string array (built on first use: pyarrow imports pandas to build one, which a cached command must not).
    Hashed by identity: a plan's parts key the memo of their joined keys."""
    __slots__ = ("layout", "columns", "n_distinct", "_keys")

    def __init__(self, layout: list, columns, n_distinct: int):
        self.layout, self.columns, self.n_distinct, self._keys = layout, columns, n_distinct, None

    @property
    def keys(self):
        if self._keys is None:
            import pyarrow as pa
            self._keys = pa.array(self.columns.keys, pa.string())
        return self._keys

    def __len__(self) -> int:
        return len(self.columns)


def remember(mkey: tuple, ds_tasks: list) -> MemoEntry | None:
    """Remember a dataset's planned tasks; the entry (None when it alone is larger than the memo's bound)."""
    from .planned import PlannedColumns
    n = sum(len(t.cells) for t in ds_tasks)
    if n > MEMO_KEYS:
        return None
    columns = PlannedColumns(ds_tasks)
    entry = MemoEntry([t.split for t in ds_tasks], columns, len(set(columns.keys)))
    while MEMO and sum(len(e) for e in MEMO.values()) + len(entry) > MEMO_KEYS:
        del MEMO[next(iter(MEMO))]
    MEMO[mkey] = entry
    return entry


def tasks_from_memo(name: str, entry, grids, own) -> list:
    """The dataset's tasks from a memo entry: its splits and keys with this spec's variants and settings, in the
    order make_plan appends them."""
    layout, keys = entry.layout, entry.columns.keys
    per_split = [(vi, v, own.get((vi, name), cells)) for vi, (v, _, cells) in enumerate(grids)]
    out, k = [], 0
    for split in layout:
        task = Task(name, split)
        append = task.cells.append
        for vi, v, cells in per_split:
            for params, pj, _ in cells:
                append(Cell(keys[k], v, params, pj))
                k += 1
        out.append(task)
    if k != len(keys):  # pragma: no cover - the memo key covers every input of the cells
        raise RuntimeError(f"dataset {name!r}: the plan memo holds {len(keys)} keys, the config plans {k}")
    return out


def lookup(mkey: tuple) -> MemoEntry | None:
    """The remembered entry of a memo key, else None."""
    return MEMO.get(mkey)
