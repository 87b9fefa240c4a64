"""Plan and run an experiment: expand the spec into cells, skip stored ones, run the rest.

Longer than ~500 lines on purpose: the plan, the task evaluation, the run loop with its leases and
the progress bar are one pipeline whose parts share the Task / Cell / key definitions.

A *cell* is (dataset, model variant, hyper-parameters, repeat, fold[, inner fold]). Its key is a
content hash of everything that determines its result: the data hash, the split definition, the
family and its code version, the canonical parameters and the model seed. A *task* is one split
of one dataset with all its missing cells; tasks run in parallel (joblib processes, one BLAS
thread each, which also makes results independent of ``n_jobs``) and the finished tasks are
written to the store as atomic parquet parts, the tasks of up to ``write_every`` seconds in one (:class:`_Writer`).
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from .config import ExperimentSpec, Variant, check_backend
from .correctness import COLUMN as CORRECT, encode as encode_correct
from .data import load_dataset
from .data.loading import data_error, is_unavailable
from .metrics import SCORERS_COLUMN, classification_scores, log_loss, mae, rmse, scored_columns, scorer_scores, scorers_for
from .prediction import run_summary
from .family import Split, evaluate, family_of, is_registered, release_unneeded, skipped, target_key, warm_up
from .preprocess import (PREPROCESSING, PREPROCESSINGS, _minmax, _standard, dataset_prep, duplicates_of,  # noqa: F401
                         encode, encoding_of, nan_refusal, native_settings, onehot_refusal, preprocess,
                         preprocessing_of)
from .keys import canonical_params  # noqa: F401  (re-exported: runner.canonical_params)
from .options import EngineOptions
from .plugins import load_package
from .progress import Progress
from .protocol import SplitSpec
from .provenance import code_version, package_versions
from .leases import HEARTBEAT_SECONDS, STALE_SECONDS, Leases, task_id
from .store import Store, StoreError, store_of

log = logging.getLogger(__name__)

#: columns that legitimately differ between two runs of the same cells
VOLATILE_COLUMNS = ("fit_seconds", "predict_seconds", "task_seconds", "timestamp", "code_version", "code_dirty",
                    "packages")

#: seconds between two parts a run writes (``write_every``): rows of the tasks that finish meanwhile wait in memory
WRITE_EVERY = 1.0
#: rows that are written at once, whatever the time (bounds the memory of a batch)
WRITE_ROWS = 50_000


def cell_key(data_hash: str, spec: ExperimentSpec, split: SplitSpec, variant: Variant, params_json: str,
             prep: str | None = None) -> str:
    """The reference recipe of a cell's key (``make_plan`` hashes the same JSON with its common head shared).
    ``prep``: the dataset's description (:func:`~randml_core.preprocess.dataset_prep`); default the experiment's."""
    p = spec.protocol
    family, options, version = _family_parts(spec, variant)
    payload = json.dumps({
        "data": data_hash, "prep": preprocessing_of(spec.options) if prep is None else prep,
        # inner_splits only defines inner cells: outer cells are shared by nested and plain runs
        "split": [p.kind, p.n_splits, p.test_size, p.seed, p.inner_splits if split.inner >= 0 else 0,
                  split.repeat, split.fold, split.inner],
        "family": json.loads(family), "version": json.loads(version), "params": params_json,
        "model_seed": split.model_seed, "options": json.loads(options),
    }, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:24]


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
    ``memo_parts`` (per dataset: its keys and planned cells, :data:`_PLAN_MEMO`) and builds its tasks on first use:
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


def make_plan(spec: ExperimentSpec, splits: bool = True, store_root=None, scores: dict | None = None,
              memo: bool = False) -> Plan:
    """Expand the spec into tasks and cell keys. A dataset that needs a download is listed in
    ``unavailable`` (tables say so); bad data or an impossible split raises PlanError.

    ``splits=False`` leaves the tasks' train/test indices None where the protocol gives the layout
    of its splits without drawing them (:meth:`Protocol.layout`; the keys need only the seeds):
    :meth:`Plan.draw_splits` draws them for the datasets that are computed, so a run whose cells
    are all stored draws no fold. Errors scikit-learn's splitters would raise come from that call.

    A model with a ``search:`` block (:mod:`randml_core.search`) plans the cells its search needs given the
    stored results (``scores``, else read from ``store_root``; none: its first round only), with the same
    key recipe as grid cells; the runner plans the searches again as their results come in
    (:func:`replan_searches`).

    ``memo=True`` (the readers: :func:`randml_core.rows.planned_keys`) remembers each dataset's layout and keys
    (:data:`_PLAN_MEMO`) and takes them from there when the same config plans the same data again."""
    from . import search
    datasets, tasks, unavailable, trace, parts, heads_of = {}, [], {}, [], [], {}
    def cells_of(v, dataset=None):  # every (params, canonical json, key bytes of that) of v on dataset
        out = []
        for params in v.settings(dataset):
            pj = canonical_params(params)
            out.append((params, pj, json.dumps(pj).encode()))
        return out
    grids = []  # per variant: its family's key parts and its cells (None: a search's, planned per dataset below)
    for v in spec.variants:
        grids.append((v, _family_parts(spec, v), None if search.is_search(v) else cells_of(v)))
    own = {(vi, d): cells_of(v, d) for vi, v in enumerate(spec.variants) for d in (v.per_dataset or ())}
    if scores is None and any(cells is None for _, _, cells in grids):
        scores = search.stored_scores(spec, store_root)
    p = spec.protocol
    memo_base = _memo_base(spec, grids) if memo and not splits else None
    for name in spec.datasets:
        try:
            ds = load_dataset(name)
        except Exception as exc:
            if is_unavailable(exc):  # not on this machine (needs a download, or it failed): say so, go on
                unavailable[name] = str(exc)
                continue
            raise PlanError(data_error(name, exc)) from exc  # malformed, corrupt, invalid, too large: exit 2
        datasets[name] = ds
        _check_features(spec, name, ds)
        preps = prep_error = None
        if memo_base is not None:
            try:
                preps = [json.dumps(p) for p in _dataset_prep(spec, ds)]
            except PlanError as exc:  # raised below, after the layout's errors, as without the memo
                prep_error = exc
            else:
                mkey = (*memo_base, name, ds.data_hash, ds.task, _index_digest(ds.test_index), tuple(preps))
                hit = _PLAN_MEMO.get(mkey)
                if hit is not None:
                    tasks.append(lambda name=name, hit=hit: _tasks_from_memo(name, hit, grids, own))
                    parts.append(hit)
                    continue
        layout = None
        if not splits:
            try:
                layout = p.layout(ds.y, name, regression=ds.task == "regression", test_index=ds.test_index,
                                  duplicates=duplicates_of(spec.options))
            except ValueError as exc:
                raise PlanError(str(exc)) from exc
        splits_of_ds = layout if layout is not None else _draw_splits(spec, name, ds)
        if prep_error is not None:
            raise prep_error
        if preps is None:
            preps = [json.dumps(p) for p in _dataset_prep(spec, ds)]  # per variant; after the splits' PlanError
        ds_tasks, heads = _keyed_tasks(p, name, ds.data_hash, splits_of_ds, preps, grids, own)
        _plan_searches(spec, grids, name, ds.task, ds_tasks, heads, scores, trace)
        heads_of[name] = heads
        tasks += ds_tasks
        if memo_base is not None:
            parts.append(_remember(mkey, ds_tasks))
    plan = Plan(spec, datasets, tasks, unavailable, trace,
                memo_parts=parts if memo_base is not None and all(p is not None for p in parts) else None)
    if any(cells is None for _, _, cells in grids):
        plan.search_inputs = (grids, heads_of)
    return plan


def _check_features(spec: ExperimentSpec, name: str, ds) -> None:
    """PlanError for features the experiment's preprocessing cannot take (one-hot refused, sparse densified)."""
    refusal = onehot_refusal(spec.options, ds, spec.variants) if getattr(ds, "categorical", ()) else None
    if refusal:
        raise PlanError(f"dataset {name!r}: {refusal}")
    if ds.is_sparse and spec.engine.preprocessing != "none":
        raise PlanError(f"dataset {name!r} has sparse features; preprocessing={spec.engine.preprocessing!r} "
                        "would densify them: set experiment.preprocessing=none for sparse datasets")


def _keyed_tasks(p, name: str, data_hash: str, splits_of_ds, preps: list, grids: list, own: dict):
    """``(tasks, heads)``: a dataset's tasks with every grid cell keyed (:func:`cell_key`'s recipe), and per (task
    index, variant index) of a searched variant the key's hash head and tail, for :func:`_plan_searches`."""
    data = '{"data": ' + json.dumps(data_hash) + ', "family": '
    heads, tasks = {}, []
    for split in splits_of_ds:
        task = Task(name, split)
        split_def = [p.kind, p.n_splits, p.test_size, p.seed, p.inner_splits if split.inner >= 0 else 0,
                     split.repeat, split.fold, split.inner]
        seed = json.dumps(split.model_seed)
        tails = {pr: ', "prep": ' + pr + ', "split": ' + json.dumps(split_def) + ', "version": ' for pr in set(preps)}
        append = task.cells.append
        for vi, (v, (family, options, version), cells) in enumerate(grids):
            # cell_key's JSON in sort_keys order: the fields before "params" are the same for every cell
            # of this (split, variant), so their hash state is computed once and copied
            head = hashlib.sha256((data + family + ', "model_seed": ' + seed + ', "options": ' + options
                                   + ', "params": ').encode())
            end = (tails[preps[vi]] + version + "}").encode()
            if cells is None:
                heads[(len(tasks), vi)] = (head, end)
                continue
            for params, pj, pj_bytes in own.get((vi, name), cells):
                h = head.copy()
                h.update(pj_bytes)
                h.update(end)
                append(Cell(h.hexdigest()[:24], v, params, pj))
        tasks.append(task)
    return tasks, heads


#: make_plan(memo=True)'s memo, per process: (config hash, the families' key parts, dataset, its data hash, task,
#: test index, preprocessing) -> (the dataset's SplitSpecs, every cell key in plan order). Those are every input of
#: its keys (the config hash covers the protocol, options, grids and per_dataset blocks; the family parts carry the
#: family versions), so a hit gives the keys planning again would give. Planning was 60 % of a repeated
#: load() (issue 44: load() at parquet speed); the memo keeps at most _PLAN_MEMO_KEYS keys, oldest dropped first.
_PLAN_MEMO: dict = {}
_PLAN_MEMO_KEYS = 2_000_000
_KEY_ARRAYS: dict = {}  # Plan.key_array's concatenations, by the memo entries they join (the last 8)


def _memo_base(spec: ExperimentSpec, grids) -> tuple | None:
    """The config part of a memo key; None (no memo) when a variant searches (its cells follow the store)."""
    if any(cells is None for _, _, cells in grids):
        return None
    return spec.config_hash(), json.dumps([parts for _, parts, _ in grids])


def _index_digest(index) -> str | None:
    if index is None:
        return None
    a = np.ascontiguousarray(index)
    return hashlib.sha256(str(a.dtype).encode() + a.tobytes()).hexdigest()


class _MemoEntry:
    """A dataset's plan in :data:`_PLAN_MEMO`: its splits, its planned cells as columns (:class:`randml_core.planned.
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


def _remember(mkey: tuple, ds_tasks: list) -> _MemoEntry | None:
    """Remember a dataset's planned tasks; the entry (None when it alone is larger than the memo's bound)."""
    from .planned import PlannedColumns
    n = sum(len(t.cells) for t in ds_tasks)
    if n > _PLAN_MEMO_KEYS:
        return None
    columns = PlannedColumns(ds_tasks)
    entry = _MemoEntry([t.split for t in ds_tasks], columns, len(set(columns.keys)))
    while _PLAN_MEMO and sum(len(e) for e in _PLAN_MEMO.values()) + len(entry) > _PLAN_MEMO_KEYS:
        del _PLAN_MEMO[next(iter(_PLAN_MEMO))]
    _PLAN_MEMO[mkey] = entry
    return entry


def _tasks_from_memo(name: str, entry, grids, own) -> list:
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


def _plan_searches(spec, grids, dataset: str, task: str, ds_tasks: list, heads: dict, scores, trace: list) -> None:
    """Append to ``ds_tasks`` the cells the searches of ``dataset`` need (:func:`randml_core.search.expand`)."""
    from .search import expand
    for vi, (v, _, cells) in enumerate(grids):
        if cells is not None:
            continue
        memo: dict = {}

        def key_of(ti, params, pj, vi=vi, memo=memo):
            if (ti, pj) not in memo:
                head, end = heads[(ti, vi)]
                h = head.copy()
                h.update(json.dumps(pj).encode())
                h.update(end)
                memo[(ti, pj)] = h.hexdigest()[:24]
            return memo[(ti, pj)]
        for ti, params, pj in expand(spec, v, dataset, task, [t.split for t in ds_tasks], key_of, scores or {}, trace):
            ds_tasks[ti].cells.append(Cell(key_of(ti, params, pj), v, params, pj))


def replan_searches(plan: Plan, scores: dict) -> Plan:
    """``plan`` with its searches planned again from ``scores``: make_plan's search step alone, on the plan's
    datasets, splits, grid cells and key heads (no dataset loaded, no grid cell keyed again), so the plan
    ``make_plan`` would give with those scores."""
    grids, heads_of = plan.search_inputs
    searched = {id(v) for v, _, cells in grids if cells is None}
    by_dataset: dict = {}
    for t in plan.tasks:
        by_dataset.setdefault(t.dataset, []).append(Task(t.dataset, t.split,
                                                         [c for c in t.cells if id(c.variant) not in searched]))
    tasks, trace = [], []
    for name, ds in plan.datasets.items():
        ds_tasks = by_dataset.get(name, [])
        _plan_searches(plan.spec, grids, name, ds.task, ds_tasks, heads_of[name], scores, trace)
        tasks += ds_tasks
    new = Plan(plan.spec, plan.datasets, tasks, plan.unavailable, trace)
    new.search_inputs = plan.search_inputs
    return new


def _dataset_prep(spec: ExperimentSpec, ds) -> list[str]:
    """The dataset's preprocessing description per variant (the experiment's for a dataset without categorical
    columns or NaN; a model's own ``categorical:`` may differ); a dataset with NaN that a model cannot take
    raises PlanError before any work."""
    try:
        if getattr(ds, "categorical", ()):  # a model's own `categorical:` matters only here
            prep = [dataset_prep(spec.options, ds, v) for v in spec.variants]
        else:
            prep = [dataset_prep(spec.options, ds)] * len(spec.variants)
        why = nan_refusal(ds, spec.options, lambda: [(v.name, family_of(v.family, v.target), v) for v in spec.variants])
    except ValueError as exc:
        raise PlanError(str(exc)) from exc
    if why:
        raise PlanError(why)
    return prep


#: run options that change a cell's outcome but are not a family's own (``<family>_*``) option: in the key's
#: options when set (a cell failed under ``cell_timeout=0.01`` is not the cell of a run without that limit)
OUTCOME_OPTIONS = ("cell_timeout",)


def _family_parts(spec: ExperimentSpec, variant: Variant) -> tuple[str, str, str]:
    """JSON of the key's family, options and version fields. A family's options are the experiment
    options named ``<family>_*``; a ``_target_`` model's are its whole estimator node (import path
    and fixed arguments); its version names the installed package versions."""
    limits = {k: spec.options[k] for k in OUTCOME_OPTIONS if spec.options.get(k) is not None}
    if variant.target is not None:
        tkey = target_key(variant.target)
        version = spec.family_versions.get(tkey)  # from the checks memo: no import of the estimator
        if version is None:
            version = family_of(variant.family, variant.target).version
        if limits:  # only when set: every key without such an option is unchanged
            tkey = json.dumps({"estimator": json.loads(tkey), **limits}, sort_keys=True)
        return json.dumps(variant.family), tkey, json.dumps(version)
    family = variant.family
    options = {k: spec.options[k] for k in sorted(spec.options) if k.startswith(family + "_")}
    options.update(limits)
    version = None if is_registered(family) else spec.family_versions.get(family)  # from the checks memo
    return (json.dumps(family), json.dumps(options, sort_keys=True),
            json.dumps(family_of(family).version if version is None else version))


def score(problem: str, y_true, y_pred, labels, proba=None) -> dict[str, float]:
    """The per-fold metrics of one prediction: classification (GMean, balanced accuracy,
    accuracy, and log loss when probabilities are given) or regression (RMSE, MAE)."""
    if problem == "regression":
        return {"rmse": rmse(y_true, y_pred), "mae": mae(y_true, y_pred)}
    out = classification_scores(y_true, y_pred, labels)
    if proba is not None:
        out["log_loss"] = log_loss(y_true, proba, labels)
    return out


def _nan_scores(problem: str) -> dict[str, float]:
    keys = ("rmse", "mae") if problem == "regression" else ("gmean", "balanced_accuracy", "accuracy")
    return dict.fromkeys(keys, np.nan)


def _status(error: str | None) -> str:
    if error is None:
        return "ok"
    return "skipped" if error.startswith("skipped:") else "failed"


_CONTROLLER: list = []  # (modules imported when it was made, threadpoolctl.ThreadpoolController)


def _one_thread():
    """``threadpool_limits(limits=1)`` through a controller made once per process (the scan of the loaded BLAS
    and OpenMP libraries cost about 4 ms a task), made again when modules were imported since (a library a
    plug-in loads is then limited too)."""
    from threadpoolctl import ThreadpoolController
    if not _CONTROLLER or _CONTROLLER[0][0] != len(sys.modules):
        _CONTROLLER[:] = [(len(sys.modules), ThreadpoolController())]
    return _CONTROLLER[0][1].limit(limits=1)


def run_task(X, y, task: Task, options: dict, problem: str = "binary") -> list[dict]:
    """Evaluate one task's cells (in a worker process). Returns plain result rows.

    ``problem`` is the dataset's task ("binary", "multiclass", "regression"); it picks the metrics.
    A family may return probabilities (``CellResult.proba``: log loss) and staged predictions
    (``CellResult.staged``: ``[(stage, y_pred, proba or None), ...]``, e.g. per boosting level or
    number of trees), scored here into the JSON column ``staged`` (``results.staged`` expands it).
    """
    with _one_thread():
        tr, te = task.split.train, task.split.test
        cat = options.get("_categorical", ())  # a card's categorical columns
        eng = EngineOptions.of(options)
        # training-set criteria (a family's train_criteria option) are only needed on outer folds
        opts = {**options, "train_criteria": eng.train_criteria and task.split.inner < 0}
        splits: dict = {}

        def split_for(enc: str) -> Split:  # the features as a model of this encoding sees them
            if enc not in splits:
                Xtr, Xte = encode(X[tr], X[te], cat, enc)
                Xtr, Xte = preprocess(eng.preprocessing, Xtr, Xte,
                                      keep=cat if enc == "native" else ())
                splits[enc] = Split(Xtr, y[tr], Xte, task.split.model_seed, opts)
            return splits[enc]
        labels = np.unique(y)
        by_family: dict[tuple, list[Cell]] = {}
        for c in task.cells:
            target = None if c.variant.target is None else json.dumps(c.variant.target, sort_keys=True)
            by_family.setdefault((c.variant.family, target, encoding_of(options, c.variant)), []).append(c)
        families = {k: family_of(k[0], None if k[1] is None else json.loads(k[1])) for k in by_family}
        rows = []
        order = list(by_family)
        for pos, group in enumerate(order):
            cells, fam = by_family[group], families[group]
            family = fam.name
            split = split_for(group[2])
            extra = native_settings(fam, cat) if group[2] == "native" else {}  # its categorical_features
            settings = [{**c.params, **extra} for c in cells] if extra else [c.params for c in cells]
            tasks = fam.handles()
            if problem not in tasks:  # e.g. a binary-only model on a multiclass dataset: not run, by rule
                results = skipped(settings, f"{family} handles {'/'.join(tasks)} tasks; this dataset is {problem}")
            else:
                results = evaluate(fam, split, settings)
            release_unneeded(split, [families[g] for g in order[pos + 1:]])
            for c, r in zip(cells, results):
                row = {"key": c.key, "model": c.variant.name, "family": family, "params_json": c.params_json,
                       "status": _status(r.error), "error": r.error,
                       "converged": bool(r.converged), "fit_seconds": r.fit_seconds,
                       "predict_seconds": r.predict_seconds}
                row.update({f"p_{k}": v for k, v in c.params.items()})
                scores = score(problem, y[te], r.y_pred, labels, r.proba) if r.error is None and len(te) else None
                bad = sorted(k for k, v in (scores or {}).items() if not np.isfinite(v))
                if bad:  # inf / NaN predictions, or a metric beyond the float range: never stored as ok
                    row.update(status="failed", error=f"ValueError: {', '.join(bad)} is not finite (the predictions "
                               "hold inf or NaN, or the errors exceed the float range)")
                    scores = None
                if scores is not None:
                    row.update(scores)
                    if eng.metrics:  # experiment.metrics: scikit-learn scorers (NaN and why, if not scorable)
                        row.update(scorer_scores(list(eng.metrics), problem, y[te], r.y_pred, labels, r.proba,
                                                 r.decision))
                    correct = eng.test_correct and problem != "regression" and task.split.inner < 0
                    if correct:  # experiment.test_correct: per-row correctness for paired tests (correctness.py)
                        row[CORRECT] = encode_correct(y[te], r.y_pred)
                    if r.staged:
                        row["staged"] = _staged_json(problem, y[te], labels, r.staged, correct)
                else:
                    row.update(_nan_scores(problem))
                row.update({f"x_{k}": v for k, v in r.extras.items() if k != "traceback"})
                rows.append(row)
        return rows


def _staged_json(problem, y_true, labels, staged, correct: bool = False) -> str:
    """``{"stage": [...], "<metric>": [...]}`` over the stages of one cell, as a JSON string (with ``correct``, also
    ``"test_correct"``: each stage's packed per-row correctness)."""
    out: dict[str, list] = {"stage": []}
    for stage, y_pred, proba in staged:
        out["stage"].append(stage.item() if hasattr(stage, "item") else stage)
        for k, v in score(problem, y_true, y_pred, labels, proba).items():
            out.setdefault(k, []).append(v)
        if correct:
            out.setdefault(CORRECT, []).append(encode_correct(y_true, y_pred))
    return json.dumps(out)


@dataclass
class RunSummary:
    computed: int
    cached: int
    failed: int
    not_converged: int
    seconds: float
    unavailable: dict
    skipped: int = 0  # not run by rule (e.g. above a kernel size limit); not counted in ``failed``


def run(spec: ExperimentSpec, store_root: str, n_jobs: int = 1, progress: bool = True,
        retry_failed: bool = False, shard: str | None = None, workers: int | None = None,
        lease_heartbeat: float = HEARTBEAT_SECONDS, lease_stale: float = STALE_SECONDS,
        wait_poll: float = 2.0, backend: str = "loky", backend_address: str | None = None,
        write_every: float = WRITE_EVERY) -> RunSummary:
    """Compute the cells of ``spec`` not yet stored in ``store_root`` (:func:`_run_round`). A model with a
    ``search:`` block (:mod:`randml_core.search`) plans its next rung or trial from the results of the previous
    one, inside the round (:class:`_Following`); the rounds repeat, each reading the store and planning whole,
    until a round has nothing to compute (two rounds when no other run writes the store meanwhile)."""
    from .search import is_search
    adaptive = [v.name for v in spec.variants if is_search(v) and v.search.get("kind") in ("halving", "optuna")]
    if shard and adaptive:
        from .errors import ConfigError
        raise ConfigError(f"shard={shard} with an adaptive search ({', '.join(adaptive)}): each rung or trial is planned "
                          "from every scope's stored results, which a shard does not wait for; fix: run without shard= "
                          "(or with search kind random, whose settings do not depend on scores)")
    kwargs = dict(n_jobs=n_jobs, progress=progress, retry_failed=retry_failed, shard=shard, workers=workers,
                  lease_heartbeat=lease_heartbeat, lease_stale=lease_stale, wait_poll=wait_poll, backend=backend,
                  backend_address=backend_address, write_every=write_every)
    t0, rounds = time.monotonic(), []
    store = store_of(spec, store_root)  # one reader for every round: the parts it wrote are trusted, not re-verified
    # one BLAS / OpenMP thread for the whole run, not per task (the tasks limit it anyway): each in-process task's
    # restore to the default woke the libraries' idle threads, which spin for a while (the optuna bench, medians of 6
    # interleaved runs: 7.29 CPU s held here, 7.61 s per task)
    with _one_thread():
        while True:
            rounds.append(_run_round(spec, store_root, store=store, **kwargs))
            kwargs["retry_failed"] = False  # failed cells are retried once, in the first round
            if not any(is_search(v) for v in spec.variants) or not rounds[-1].computed:
                break
            log.info("%s: search round %d done (%d cells); planning the next rung or trial from the stored results",
                     spec.name, len(rounds), rounds[-1].computed)
    last = rounds[-1]
    earlier = sum(r.computed for r in rounds[:-1])
    return RunSummary(sum(r.computed for r in rounds), last.cached - earlier, sum(r.failed for r in rounds),
                      sum(r.not_converged for r in rounds), time.monotonic() - t0, last.unavailable,
                      sum(r.skipped for r in rounds))


def _run_round(spec: ExperimentSpec, store_root: str, n_jobs: int = 1, progress: bool = True,
               retry_failed: bool = False, shard: str | None = None, workers: int | None = None,
               lease_heartbeat: float = HEARTBEAT_SECONDS, lease_stale: float = STALE_SECONDS,
               wait_poll: float = 2.0, backend: str = "loky", backend_address: str | None = None,
               write_every: float = WRITE_EVERY, store: Store | None = None,
               follow_searches: bool = True) -> RunSummary:
    """Compute the cells of ``spec``'s plan not yet stored in ``store_root``; with ``follow_searches`` (and no
    shard) also the searches' next rungs or trials, planned from the rows the round computed (:class:`_Following`).

    Several runs may fill one store at once (processes, or hosts sharing the directory): each task
    is claimed by a lease (:mod:`randml_core.leases`) before it is computed, tasks leased by another
    live run are left to it, and at the end the run waits for those until every cell of its plan is
    stored (or their leases go stale and it takes them over). ``shard="i/n"`` keeps only the tasks
    whose index in the plan is i mod n (a deterministic split for sweeps: ``shard=0/4,1/4,2/4,3/4``).
    Neither changes a cell's key or value, and nor does ``backend`` (:mod:`randml_core.backends`: loky,
    dask or ray, on a local cluster of ``n_jobs`` workers or at ``backend_address``).
    """
    t0 = time.monotonic()
    parse_shard(shard)  # a bad value fails before any work
    check_backend(backend, backend_address)
    store = store if store is not None else store_of(spec, store_root)
    store.check_writable()  # before any work: an unwritable store would lose the first task's results
    store.cleanup_temp()
    from .search import is_search, stored_scores
    scores = stored_scores(spec, store_root, store) if any(is_search(v) for v in spec.variants) else None
    plan = make_plan(spec, splits=False, store_root=store_root, scores=scores)  # folds: drawn below, where computed
    _announce(spec, plan)
    fresh = _NewKeys(store)  # keys of parts not listed yet (written by other runs from now on): before the read
    todo, n_cached, stored, done_keys = _to_compute(spec, plan, store, shard, retry_failed)
    follow = _Following(spec, plan, done_keys, scores) if follow_searches and scores is not None and not shard else None
    total = sum(len(t.cells) for _, t in todo)
    log.info("%s: %d cells to compute, %d already stored", spec.name, total, n_cached)
    print(run_summary(plan, stored, [t for _, t in todo], workers or n_jobs, shard_tasks(plan.tasks, shard), shard),
          file=sys.stderr)
    bar = Progress(total, spec.name, progress)
    provenance: dict = {}
    if todo:  # git and package metadata (~0.1 s), joblib (~0.1 s): only for a run that computes cells
        from joblib import delayed

        from .backends import executor
        _warm_up_here([t for _, t in todo])
        provenance = _provenance(spec)
    variants = {v.name: v for v in spec.variants}  # a row's model -> its variant (its own encoding)
    counts = dict.fromkeys(("computed", "failed", "skipped", "bounded"), 0)
    leases = Leases(store.dir / "leases", heartbeat=lease_heartbeat, stale_after=lease_stale)
    fresh.leases_dir, fresh.own = leases.dir, leases.token
    claims = _Claims(plan, dict(spec.options), leases, fresh, bar)
    pending = todo
    waiting_said = False
    # a cluster backend is started (or connected to) only when there is work
    start = executor(backend, backend_address, n_jobs) if todo else contextlib.nullcontext()
    writer = _Writer(store, leases, fresh, write_every)
    with bar, _sigterm_as_interrupt(), leases, writer, start as run_jobs:
        bar.update(0)  # show the bar (0 %) before the first task finishes
        while pending:
            deferred: list[tuple[str, Task]] = []
            claims.claimed_any = False
            for tid, task, rows in run_jobs(claims.jobs(pending, deferred, delayed)):
                _stamp(rows, task, plan.datasets[task.dataset], provenance, spec, variants)
                writer.add(tid, rows)
                _count(counts, rows, follow)
                bar.update(len(rows))
            if deferred:  # their stored check reads the store: this run's rows first (another run's may be ours)
                writer.flush()  # (a followed search's next step needs no flush: the writer batches its rows)
            pending = [(tid, rest) for tid, task in deferred if (rest := claims.unstored(task)) is not None]
            if not pending and follow is not None and (pending := follow.next()):  # the searches' next cells
                claims.plan = follow.plan
                bar.total += sum(len(task.cells) for _, task in pending)
            if pending and not claims.claimed_any:
                if not waiting_said:
                    log.info("%s: waiting for %d task(s) leased by other runs (taken over if their lease goes "
                             "stale: no heartbeat for %.0f s, or owner dead on this host)", spec.name,
                             len(pending), lease_stale)
                    waiting_said = True
                time.sleep(wait_poll)
    _finish(spec, store, leases)
    return RunSummary(counts["computed"], n_cached + claims.by_others, counts["failed"], counts["bounded"],
                      time.monotonic() - t0, plan.unavailable, counts["skipped"])


def _count(counts: dict, rows: list[dict], follow: "_Following | None") -> None:
    counts["computed"] += len(rows)
    counts["failed"] += sum(r["status"] == "failed" for r in rows)
    counts["skipped"] += sum(r["status"] == "skipped" for r in rows)
    counts["bounded"] += sum(not r["converged"] for r in rows)
    if follow is not None:
        follow.rows += rows


class _Following:
    """A round's searches followed inside the round: once its tasks are done, the next rung or trial of every search
    is planned from the rows the round computed (their scores added to those read at its start, the searches
    planned again on the same datasets and splits: :func:`replan_searches`) and computed in the same round, with the
    same workers, writer and leases: no store read, full plan or compaction per trial (issue 44: a round per trial
    cost optuna about 0.1 s each). The cells and keys are those a round per trial plans; ``run`` ends with a round
    that reads the store and plans whole, which finds anything another run stored meanwhile."""

    def __init__(self, spec: ExperimentSpec, plan: Plan, done_keys: set, scores: dict):
        self.spec, self.plan, self.done, self.scores = spec, plan, set(done_keys), scores
        self.rows: list[dict] = []
        self.steps = 0

    def next(self) -> list:
        """``[(task id, task of its cells to compute)]``: the cells the searches need now, not computed yet."""
        from .search import add_scores
        if not self.rows:
            return []
        self.scores = add_scores(self.spec, self.rows, self.scores)
        self.done.update(r["key"] for r in self.rows)
        self.rows = []
        self.plan = replan_searches(self.plan, self.scores)
        todo, _ = _unstored(self.plan, self.plan.tasks, self.done)
        self.steps += 1
        if todo:
            log.info("%s: search step %d: %d cell(s) planned from the results so far", self.spec.name, self.steps,
                     sum(len(task.cells) for _, task in todo))
        return todo


class _Claims:
    """Hands the pending tasks to the backend as it asks for them: each is leased just before it goes to a worker
    and checked against the store after the lease is taken (:mod:`randml_core.leases`); a task leased by another run
    waits in ``deferred``, one that another run stored meanwhile is dropped (``by_others`` counts its cells)."""

    def __init__(self, plan: Plan, options: dict, leases: Leases, fresh: "_NewKeys", bar: Progress):
        self.plan, self.options, self.leases, self.fresh, self.bar = plan, options, leases, fresh, bar
        self.by_others = 0
        self.claimed_any = False

    def unstored(self, task: Task) -> Task | None:
        """The task's cells not stored by another run meanwhile (None: all are)."""
        new = self.fresh.refresh()
        rest = [c for c in task.cells if c.key not in new]
        if len(rest) < len(task.cells):
            self.by_others += len(task.cells) - len(rest)
            self.bar.update(len(task.cells) - len(rest))
        return Task(task.dataset, task.split, rest) if rest else None

    def jobs(self, pending: list, deferred: list, delayed):
        """The joblib jobs of ``pending`` (consumed as joblib dispatches, possibly in its callback thread)."""
        self.claimed_any = False
        for tid, task in pending:
            if not self.leases.acquire(tid):
                deferred.append((tid, task))
                continue
            rest = self.unstored(task)
            if rest is None:
                self.leases.release(tid)
                continue
            self.claimed_any = True
            ds = self.plan.datasets[rest.dataset]
            yield delayed(_run_claimed_task)(tid, ds.X, ds.y, rest, _task_options(self.options, ds), ds.task)


def _announce(spec: ExperimentSpec, plan: Plan) -> None:
    """Say how a card's categorical columns / NaN reach the models, and which datasets are not available."""
    for name, ds in plan.datasets.items():
        for prep, models in _preps_of(spec, ds).items():
            if prep != preprocessing_of(spec.options):
                print(f"randml run: dataset {name!r}: features {prep}" + models, file=sys.stderr)
    if plan.unavailable:  # each reason is printed once, after the run (randml run: skipped NAME: why)
        log.warning("%s: %d dataset(s) not available, skipped: %s", spec.name, len(plan.unavailable),
                    ", ".join(plan.unavailable))


def _to_compute(spec: ExperimentSpec, plan: Plan, store: Store, shard, retry_failed: bool):
    """``(todo, n_cached, stored, done keys)``: ``[(task id, task of its cells to compute)]`` of the shard (their
    folds drawn), how many of its cells are stored and done, the stored columns read (None: an empty store) and
    the stored keys not computed again."""
    stored = store.read_columns(["key", "status", "dataset", "task_seconds", *again_columns(spec)]) \
        if store.has_rows() else None
    done_keys = set()
    if stored is not None and stored.get("key"):
        lacking = _lacking_scorers(stored, spec, plan)
        if lacking:
            log.info("%s: %d stored cell(s) lack a scorer of experiment.metrics: computed again", spec.name, len(lacking))
        done_keys = set(stored["key"]) - computed_again(stored, spec, plan, retry_failed, lacking)
    todo, n_cached = _unstored(plan, shard_tasks(plan.tasks, shard), done_keys)
    return todo, n_cached, stored, done_keys


def _unstored(plan: Plan, tasks: list[Task], done_keys: set) -> tuple[list, int]:
    """``(todo, n_cached)``: ``[(task id, task of its cells not in done_keys)]`` of ``tasks`` (their folds drawn; the
    id from all the task's cells, as every run names it) and how many of their cells are done."""
    n_cached = 0
    incomplete: list[tuple[Task, list[Cell]]] = []
    for task in tasks:
        missing = [c for c in task.cells if c.key not in done_keys]
        n_cached += len(task.cells) - len(missing)
        if missing:
            incomplete.append((task, missing))
    plan.draw_splits({task.dataset for task, _ in incomplete})
    todo = [(task_id(c.key for c in task.cells), Task(task.dataset, task.split, missing))
            for task, missing in incomplete]
    return todo, n_cached


def _finish(spec: ExperimentSpec, store: Store, leases: Leases) -> None:
    """After the tasks: stale leases of finished tasks removed, many parts compacted into one."""
    if leases.taken_over:
        log.info("%s: took over %d stale lease(s)", spec.name, leases.taken_over)
    if (store.dir / "leases").exists() and (removed := leases.remove_stale()):
        log.info("%s: removed %d stale lease(s) of finished tasks", spec.name, removed)
    if len(store.parts()) > 64:
        store.compact()


def _provenance(spec: ExperimentSpec) -> dict:
    """The columns every row of this run carries: which code, packages, config and protocol made it."""
    sha, dirty = code_version()
    return {"experiment": spec.name, "code_version": sha, "code_dirty": dirty, "packages": package_versions(),
            "config_hash": spec.config_hash(), "protocol": spec.protocol.describe(),
            "preprocessing": preprocessing_of(spec.options)}


def _stamp(rows: list[dict], task: Task, ds, provenance: dict, spec: ExperimentSpec, variants: dict) -> None:
    """Add to a finished task's rows what the parent knows: provenance, dataset, split and the UTC time."""
    stamp = datetime.now(timezone.utc).isoformat()
    for r in rows:
        r.update(provenance)
        if ds.categorical or not ds.is_sparse and np.isnan(ds.X).any():  # a card's encoding / NaN
            r["preprocessing"] = dataset_prep(spec.options, ds, variants.get(r["model"]))
        r.update({"dataset": task.dataset, "data_hash": ds.data_hash, "data_source": ds.source,
                  "repeat": task.split.repeat, "fold": task.split.fold, "inner_fold": task.split.inner,
                  "split_seed": task.split.split_seed, "model_seed": task.split.model_seed,
                  "n_train": len(task.split.train), "n_test": len(task.split.test), "timestamp": stamp})


class _Writer:
    """Rows of finished tasks, written as one part per batch (issue 44: a part per task cost ~30 ms of the parent's
    time in pandas round trips, checksums and fsync, the floor of a run of cheap cells).

    A task's rows are written at once when no part was written for ``every`` seconds, else they wait, and a thread
    writes what waits ``every`` seconds after the last part; the task's lease is released after its rows are written
    (:mod:`randml_core.leases`). A run that ends, fails or is interrupted (Ctrl-C, SIGTERM) writes what waits; a
    ``kill -9`` loses at most the tasks of the last ``every`` seconds, which the next run computes (nothing else).
    ``every=0``: one part per task."""

    def __init__(self, store: Store, leases: Leases, fresh: "_NewKeys", every: float = WRITE_EVERY):
        self.store, self.leases, self.fresh, self.every = store, leases, fresh, every
        self.rows: list[dict] = []
        self.tids: list[str] = []
        self.last = -math.inf
        self.error: BaseException | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def add(self, tid: str, rows: list[dict]) -> None:
        self._raise()
        with self._lock:
            self.rows.extend(rows)
            self.tids.append(tid)
            if time.monotonic() - self.last >= self.every or len(self.rows) >= WRITE_ROWS:
                self._write()

    def flush(self) -> None:
        self._raise()
        with self._lock:
            self._write()

    def _raise(self) -> None:
        if self.error is not None:
            error, self.error = self.error, None
            raise error

    def _write(self) -> None:
        if self.tids:
            part = self.store.write(self.rows)
            if part is not None:
                self.fresh.seen.add(part.name)
            for tid in self.tids:
                self.leases.release(tid)  # after the part is written: see randml_core.leases
            self.rows, self.tids = [], []
        self.last = time.monotonic()

    def _loop(self) -> None:
        while not self._stop.wait(self.every / 2):
            with self._lock:
                if not self.tids or time.monotonic() - self.last < self.every:
                    continue
                try:
                    self._write()
                except BaseException as exc:  # noqa: BLE001 - raised in the run's thread, at its next add
                    self.error = exc
                    return

    def __enter__(self) -> "_Writer":
        if self.every > 0:
            self._thread = threading.Thread(target=self._loop, name="randml-writer", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            if self.error is None:
                self._write()  # also on an interrupt or a failed task: the finished tasks' rows are kept
        if exc[0] is None:
            self._raise()


def parse_shard(shard) -> tuple[int, int]:
    """``"i/n"`` -> (i, n); None -> (0, 0) (no sharding). Raises PlanError naming the bad value."""
    if shard is None or shard == "":
        return 0, 0
    i, sep, n = str(shard).partition("/")
    if sep and i.strip().isdigit() and n.strip().isdigit() and 0 <= int(i) < int(n):
        return int(i), int(n)
    raise PlanError(f"shard={shard!r} is invalid: use shard=i/n with 0 <= i < n (e.g. shard=0/4), "
                    "or shard=null for every task")


def shard_tasks(tasks: list[Task], shard) -> list[Task]:
    """The tasks of shard ``"i/n"``: those whose index in the plan is i mod n (the plan's order is
    fixed by the config, so every run and host agrees); all tasks when ``shard`` is None."""
    i, n = parse_shard(shard)
    return [t for index, t in enumerate(tasks) if not n or index % n == i]


class _NewKeys:
    """Cell keys in parts that appeared since the run started (written by other runs); each new
    part is read once (its key column, verified).

    A listing costs O(parts); once per dispatched task it made a run quadratic in its tasks (56 ms a listing at
    10,000 parts). So the store is listed on the first refresh (a run that wrote between this run's read and its
    first lease), then on every refresh while another run is alive (an owner lock of another run in ``leases/``:
    each run holds one from its first lease on, so a task another run finished is never computed again here), and
    otherwise at most once per :data:`LIST_EVERY` seconds."""

    LIST_EVERY = 1.0

    def __init__(self, store: Store, leases_dir: Path | None = None, own_token: str | None = None):
        self.store = Store(store.root, store.experiment)
        self.seen = {p.name for p in store.parts()}
        self.keys: set[str] = set()
        self._listed: float | None = None
        self.listings = 0
        self.leases_dir, self.own = leases_dir, own_token

    def _others_alive(self) -> bool:
        """Another run's owner lock is in ``leases/`` (or there is no way to tell)."""
        if self.leases_dir is None:
            return True
        from .leases import OWNER_PREFIX
        try:
            names = os.listdir(self.leases_dir)
        except FileNotFoundError:
            return False
        except OSError:
            return True
        mine = f"{OWNER_PREFIX}{self.own}.lock"
        return any(n.startswith(OWNER_PREFIX) and n != mine for n in names)

    def refresh(self) -> set[str]:
        now = time.monotonic()
        if self._listed is not None and now - self._listed < self.LIST_EVERY and not self._others_alive():
            return self.keys
        self._listed = now
        self.listings += 1
        for p in self.store.parts():
            if p.name in self.seen:
                continue
            try:
                frame = self.store.read_part(p, ["key"])
            except FileNotFoundError:
                continue  # compacted away meanwhile: its rows are in the merged part, read next time
            except StoreError:
                continue  # could not be read now (permissions, open files, memory): not corrupt, try again later
            except Exception as exc:  # a bad part: its cells count as missing (the next full read quarantines it)
                log.warning("store: %s is unreadable (%s); its cells count as missing", p, exc)
                self.seen.add(p.name)
                continue
            self.seen.add(p.name)
            self.keys.update(frame["key"])
        return self.keys


def computed_again(stored, spec: ExperimentSpec, plan: Plan, retry_failed: bool = False,
                   lacking: set[str] | None = None) -> set[str]:
    """Keys of stored cells that ``randml run`` computes again (the one notion of "done" that run, plan and status
    share): those lacking a scorer of ``experiment.metrics`` (``lacking``, if computed already) and, with
    ``retry_failed``, every one whose status is not ``ok``. ``stored``: a frame or :meth:`Store.read_columns`'s dict
    (key, status, and dataset and scorers when the experiment lists metrics)."""
    again = set(_lacking_scorers(stored, spec, plan) if lacking is None else lacking)
    again |= _lacking_correct(stored, spec, plan)
    if retry_failed:
        again |= {k for k, st in zip(stored["key"], stored["status"]) if st != "ok"}
    return again


def again_columns(spec: ExperimentSpec) -> list[str]:
    """The stored columns :func:`computed_again` reads beside ``key`` and ``status`` (every caller reads these)."""
    out = ["dataset", SCORERS_COLUMN] if spec.engine.metrics else []
    return list(dict.fromkeys(out + (["dataset", "inner_fold", CORRECT] if spec.engine.test_correct else [])))


def _lacking_correct(stored, spec: ExperimentSpec, plan: Plan) -> set[str]:
    """Under ``experiment.test_correct``: keys of stored ``ok`` outer-fold rows without per-row correctness (stored
    before the option was set): computed again (the option is not part of the key). Regression rows never have it."""
    if not spec.engine.test_correct or not len(stored["key"]):
        return set()
    n = len(stored["key"])
    regression = {d for d, ds in plan.datasets.items() if ds.task == "regression"}
    inner, have, names = (stored.get(c, [None] * n) for c in ("inner_fold", CORRECT, "dataset"))
    return {k for k, st, d, i, c in zip(stored["key"], stored["status"], names, inner, have)
            if st == "ok" and (i is None or i < 0) and not isinstance(c, str) and d not in regression}


def _lacking_scorers(stored, spec: ExperimentSpec, plan: Plan) -> set[str]:
    """(``stored``: a frame or :meth:`Store.read_columns`'s ``{column: values}``.) Keys of stored ``ok`` rows whose ``scorers`` column lacks a scorer of ``experiment.metrics`` that scores
    their dataset: computed again (the metric list is not part of the key; :mod:`randml_core.metrics`)."""
    names = list(spec.engine.metrics)
    if not names or not len(stored["key"]):
        return set()
    want = {d: {s.column for s in scorers_for(names, ds.task)} for d, ds in plan.datasets.items()}
    texts = stored[SCORERS_COLUMN] if SCORERS_COLUMN in stored else [None] * len(stored["key"])
    have = {t: scored_columns(t) for t in set(t for t in texts if isinstance(t, str))}
    return {k for k, st, d, t in zip(stored["key"], stored["status"], stored["dataset"], texts)
            if st == "ok" and want.get(d) and not want[d] <= have.get(t if isinstance(t, str) else None, set())}


def _preps_of(spec: ExperimentSpec, ds) -> dict:
    """{features description of ``ds``: " (models A, B)" or "" when every model sees the same}."""
    found: dict = {}
    for v in spec.variants if getattr(ds, "categorical", ()) else [None]:
        found.setdefault(dataset_prep(spec.options, ds, v), []).append(getattr(v, "name", ""))
    return {p: "" if len(found) == 1 else f" (models {', '.join(names)})" for p, names in found.items()}


def _task_options(options: dict, ds) -> dict:
    """The options a task of ``ds`` runs with: its categorical columns added (``_categorical``) if it has any."""
    cat = tuple(getattr(ds, "categorical", ()) or ())
    return {**options, "_categorical": cat} if cat else options


def _run_claimed_task(tid, X, y, task, options, problem="binary"):
    task, rows = _run_task_with_meta(X, y, task, options, problem)
    return tid, task, rows


@contextlib.contextmanager
def _sigterm_as_interrupt():
    """SIGTERM raises KeyboardInterrupt while tasks run, so joblib stops its workers as on Ctrl-C
    (Python's default SIGTERM action ends the process at once and leaves them running)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")
    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _families_of(cells) -> list:
    """The distinct families of some cells (registered ones by name, ``_target_`` ones by their node)."""
    seen: dict = {}
    for c in cells:
        target = None if c.variant.target is None else json.dumps(c.variant.target, sort_keys=True)
        seen.setdefault((c.variant.family, target), None)
    return [family_of(f, None if t is None else json.loads(t)) for f, t in seen]


def _warm_up_here(tasks) -> None:
    """Compile the families' kernels in this process before the workers start, with a line saying so: the
    first use on a machine compiles (about a minute; numba caches the result on disk), and the workers
    then load them from that cache before their timers start."""
    families = [f for f in _families_of(c for t in tasks for c in t.cells) if f.warmup is not None]
    if families:
        print(f"randml run: preparing the compiled kernels of {', '.join(sorted({f.name for f in families}))} "
              "(the first use on this machine compiles them, about a minute; never inside a timed fit)",
              file=sys.stderr)
        t0 = time.perf_counter()
        warm_up(families)
        log.info("kernels ready in %.1f s", time.perf_counter() - t0)


def _run_task_with_meta(X, y, task, options, problem="binary"):
    # worker processes start fresh: a user's plug-in modules (experiment.plugins) are imported here
    for module in options.get("plugins") or []:
        load_package(module)
    warm_up(_families_of(task.cells))  # kernels compile (or load from numba's disk cache) before any timer
    t0 = time.perf_counter()
    rows = run_task(X, y, task, options, problem)
    seconds = time.perf_counter() - t0  # the whole task: preprocessing, shared work and every cell
    for r in rows:
        r["task_seconds"] = seconds
    return task, rows
