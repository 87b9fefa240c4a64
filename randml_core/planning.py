"""Planning: an experiment spec expanded into keyed tasks (:func:`make_plan`), its searches planned again as their
results come in (:func:`replan_searches`), the shard a run keeps (:func:`shard_tasks`) and the one notion of
"done" that run, plan and status share (:func:`computed_again`, :func:`unstored_tasks`). No model is fitted here
and nothing is written: the keys follow :mod:`randml_core.keys`, the types :mod:`randml_core.plan`.
"""
from __future__ import annotations

import json

from . import planmemo
from .config import ExperimentSpec
from .correctness import COLUMN as CORRECT
from .data import load_dataset
from .data.loading import data_error, is_unavailable
from .family import family_of
from .keys import canonical_params, family_parts, finish_key, key_hashers
from .leases import task_id
from .metrics import SCORERS_COLUMN, scored_columns, scorers_for
from .plan import Cell, Plan, PlanError, Task, _draw_splits
from .preprocess import dataset_prep, duplicates_of, nan_refusal, onehot_refusal

__all__ = ["make_plan", "replan_searches", "parse_shard", "shard_tasks", "unstored_tasks", "computed_again",
           "again_columns", "lacking_scorers"]


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
    (:mod:`randml_core.planmemo`) and takes them from there when the same config plans the same data again."""
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
        grids.append((v, family_parts(spec, v), None if search.is_search(v) else cells_of(v)))
    own = {(vi, d): cells_of(v, d) for vi, v in enumerate(spec.variants) for d in (v.per_dataset or ())}
    if scores is None and any(cells is None for _, _, cells in grids):
        scores = search.stored_scores(spec, store_root)
    p = spec.protocol
    memo_base = planmemo.memo_base(spec, grids) if memo and not splits else None
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
                mkey = (*memo_base, name, ds.data_hash, ds.task, planmemo.index_digest(ds.test_index), tuple(preps))
                hit = planmemo.lookup(mkey)
                if hit is not None:
                    tasks.append(lambda name=name, hit=hit: planmemo.tasks_from_memo(name, hit, grids, own))
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
            parts.append(planmemo.remember(mkey, ds_tasks))
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
    """``(tasks, heads)``: a dataset's tasks with every grid cell keyed (:func:`randml_core.keys.key_hashers`), and per
    (task index, variant index) of a searched variant its key hashers, for :func:`_plan_searches`."""
    parts = [family for _, family, _ in grids]
    heads, tasks = {}, []
    for split in splits_of_ds:
        task = Task(name, split)
        append = task.cells.append
        for vi, ((v, _, cells), (head, end)) in enumerate(zip(grids, key_hashers(p, data_hash, split, preps, parts))):
            if cells is None:
                heads[(len(tasks), vi)] = (head, end)
                continue
            for params, pj, pj_bytes in own.get((vi, name), cells):
                append(Cell(finish_key(head, end, pj_bytes), v, params, pj))
        tasks.append(task)
    return tasks, heads


def _plan_searches(spec, grids, dataset: str, task: str, ds_tasks: list, heads: dict, scores, trace: list) -> None:
    """Append to ``ds_tasks`` the cells the searches of ``dataset`` need (:func:`randml_core.search.expand`)."""
    from .search import expand
    for vi, (v, _, cells) in enumerate(grids):
        if cells is not None:
            continue
        memo: dict = {}

        def key_of(ti, params, pj, vi=vi, memo=memo):
            if (ti, pj) not in memo:
                memo[(ti, pj)] = finish_key(*heads[(ti, vi)], json.dumps(pj).encode())
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


def unstored_tasks(plan: Plan, tasks: list[Task], done_keys: set) -> tuple[list, int]:
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


def computed_again(stored, spec: ExperimentSpec, plan: Plan, retry_failed: bool = False,
                   lacking: set[str] | None = None) -> set[str]:
    """Keys of stored cells that ``randml run`` computes again (the one notion of "done" that run, plan and status
    share): those lacking a scorer of ``experiment.metrics`` (``lacking``, if computed already) and, with
    ``retry_failed``, every one whose status is not ``ok``. ``stored``: a frame or :meth:`Store.read_columns`'s dict
    (key, status, and dataset and scorers when the experiment lists metrics)."""
    again = set(lacking_scorers(stored, spec, plan) if lacking is None else lacking)
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


def lacking_scorers(stored, spec: ExperimentSpec, plan: Plan) -> set[str]:
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
