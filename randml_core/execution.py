"""Execution: a run computes the cells of its plan not yet stored (:func:`run`), in rounds (:func:`_run_round`) whose
tasks are leased (:mod:`randml_core.leases`), sent to a backend (:mod:`randml_core.backends`), evaluated in workers
(:mod:`randml_core.worker`), stamped with their provenance and written in batched parts (:mod:`randml_core.writer`)
while a progress bar (:mod:`randml_core.progress`) follows them. Its settings are one validated
:class:`RunOptions`, built once (``randml run``'s keys, or the keyword arguments of :func:`run`).

Tasks run in parallel (joblib processes, one BLAS thread each, which also makes results independent of ``n_jobs``);
neither the backend, the shard nor the number of runs sharing a store changes a cell's key or value.
"""
from __future__ import annotations

import contextlib
import dataclasses
import logging
import signal
import sys
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone

import numpy as np

from .config import ExperimentSpec, check_backend
from .errors import ConfigError
from .leases import HEARTBEAT_SECONDS, STALE_SECONDS, Leases
from .plan import Plan, Task
from .planning import computed_again, lacking_scorers, again_columns, make_plan, parse_shard, replan_searches, \
    shard_tasks, unstored_tasks
from .prediction import run_summary
from .preprocess import dataset_prep, preprocessing_of
from .progress import Progress
from .provenance import code_version, package_versions
from .store import Store, store_of
from .worker import one_thread, run_claimed_task, task_options, warm_up_here
from .writer import WRITE_EVERY, NewKeys, PartWriter

log = logging.getLogger(__name__)

__all__ = ["run", "RunOptions", "RunSummary", "VOLATILE_COLUMNS"]

#: columns that legitimately differ between two runs of the same cells
VOLATILE_COLUMNS = ("fit_seconds", "predict_seconds", "task_seconds", "timestamp", "code_version", "code_dirty",
                    "packages")


@dataclass(frozen=True)
class RunOptions:
    """How a run executes (``randml run``'s keys of ``conf/config.yaml``), checked when built: a bad value raises
    ConfigError (PlanError for ``shard``) naming the key and the fix, before any work. None of them changes a cell's
    key or value.

    ``n_jobs`` worker processes (-1: one per core); ``workers`` the workers the plan's time estimate assumes
    (default ``n_jobs``); ``shard="i/n"`` the tasks whose plan index is i mod n; ``retry_failed`` computes failed
    cells again; ``backend`` / ``backend_address`` where tasks run; ``write_every`` seconds between store parts
    (0: a part per task); ``lease_heartbeat`` / ``lease_stale`` / ``wait_poll`` the leases' timing
    (:mod:`randml_core.leases`)."""
    n_jobs: int = 1
    progress: bool = True
    retry_failed: bool = False
    shard: str | None = None
    workers: int | None = None
    backend: str = "loky"
    backend_address: str | None = None
    write_every: float = WRITE_EVERY
    lease_heartbeat: float = HEARTBEAT_SECONDS
    lease_stale: float = STALE_SECONDS
    wait_poll: float = 2.0

    def __post_init__(self) -> None:
        parse_shard(self.shard)
        check_backend(self.backend, self.backend_address)
        if isinstance(self.n_jobs, bool) or not isinstance(self.n_jobs, int) or self.n_jobs == 0 or self.n_jobs < -1:
            raise ConfigError(f"n_jobs={self.n_jobs!r} is invalid: use a number of worker processes >= 1, or -1 for "
                              "one per core")
        value = self.write_every
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            seconds = float("nan")
        if isinstance(value, bool) or not 0 <= seconds < float("inf"):
            raise ConfigError(f"write_every={value!r} is not a number of seconds >= 0; fix: write_every=1.0 (the "
                              "default), or write_every=0 for a store part per task")

    @classmethod
    def from_config(cls, cfg) -> "RunOptions":
        """From ``randml run``'s config (its run-time keys; a missing or null one takes the default)."""
        names = [f.name for f in dataclasses.fields(cls) if f.name.split("_")[0] not in ("lease", "wait")]
        given = {n: cfg.get(n) for n in names if cfg.get(n) is not None}
        if "n_jobs" in given and not isinstance(given["n_jobs"], bool):
            with contextlib.suppress(TypeError, ValueError):
                given["n_jobs"] = int(given["n_jobs"])
        for key in ("progress", "retry_failed"):
            if key in given:
                given[key] = bool(given[key])
        return cls(**given)


@dataclass
class RunSummary:
    computed: int
    cached: int
    failed: int
    not_converged: int
    seconds: float
    unavailable: dict
    skipped: int = 0  # not run by rule (e.g. above a kernel size limit); not counted in ``failed``


def run(spec: ExperimentSpec, store_root: str, options: RunOptions | None = None, **settings) -> RunSummary:
    """Compute the cells of ``spec`` not yet stored in ``store_root`` (:func:`_run_round`), run as ``options`` (or
    :class:`RunOptions` of the keyword ``settings``: ``run(spec, root, n_jobs=2)``). A model with a ``search:`` block
    (:mod:`randml_core.search`) plans its next rung or trial from the results of the previous one, inside the round
    (:class:`_Following`); the rounds repeat, each reading the store and planning whole, until a round has nothing to
    compute (two rounds when no other run writes the store meanwhile)."""
    from .search import is_search
    if options is None:
        options = RunOptions(**settings)
    elif settings:
        options = dataclasses.replace(options, **settings)
    adaptive = [v.name for v in spec.variants if is_search(v) and v.search.get("kind") in ("halving", "optuna")]
    if options.shard and adaptive:
        raise ConfigError(f"shard={options.shard} with an adaptive search ({', '.join(adaptive)}): each rung or trial "
                          "is planned from every scope's stored results, which a shard does not wait for; fix: run "
                          "without shard= (or with search kind random, whose settings do not depend on scores)")
    t0, rounds = time.monotonic(), []
    store = store_of(spec, store_root)  # one reader for every round: the parts it wrote are trusted, not re-verified
    # one BLAS / OpenMP thread for the whole run, not per task (the tasks limit it anyway): each in-process task's
    # restore to the default woke the libraries' idle threads, which spin for a while (the optuna bench, medians of 6
    # interleaved runs: 7.29 CPU s held here, 7.61 s per task)
    with one_thread():
        while True:
            rounds.append(_run_round(spec, store, options))
            options = dataclasses.replace(options, retry_failed=False)  # failed cells are retried once, in round 1
            if not any(is_search(v) for v in spec.variants) or not rounds[-1].computed:
                break
            log.info("%s: search round %d done (%d cells); planning the next rung or trial from the stored results",
                     spec.name, len(rounds), rounds[-1].computed)
    last = rounds[-1]
    earlier = sum(r.computed for r in rounds[:-1])
    return RunSummary(sum(r.computed for r in rounds), last.cached - earlier, sum(r.failed for r in rounds),
                      sum(r.not_converged for r in rounds), time.monotonic() - t0, last.unavailable,
                      sum(r.skipped for r in rounds))


def _run_round(spec: ExperimentSpec, store: Store, options: RunOptions, follow_searches: bool = True) -> RunSummary:
    """Compute the cells of ``spec``'s plan not yet stored in ``store``; with ``follow_searches`` (and no shard) also
    the searches' next rungs or trials, planned from the rows the round computed (:class:`_Following`).

    Several runs may fill one store at once (processes, or hosts sharing the directory): each task
    is claimed by a lease (:mod:`randml_core.leases`) before it is computed, tasks leased by another
    live run are left to it, and at the end the run waits for those until every cell of its plan is
    stored (or their leases go stale and it takes them over). ``shard="i/n"`` keeps only the tasks
    whose index in the plan is i mod n (a deterministic split for sweeps: ``shard=0/4,1/4,2/4,3/4``).
    Neither changes a cell's key or value, and nor does ``backend`` (:mod:`randml_core.backends`: loky,
    dask or ray, on a local cluster of ``n_jobs`` workers or at ``backend_address``).
    """
    t0, o = time.monotonic(), options
    store.check_writable()  # before any work: an unwritable store would lose the first task's results
    store.cleanup_temp()
    from .search import is_search, stored_scores
    scores = stored_scores(spec, str(store.root), store) if any(is_search(v) for v in spec.variants) else None
    plan = make_plan(spec, splits=False, store_root=str(store.root), scores=scores)  # folds: drawn where computed
    _announce(spec, plan)
    fresh = NewKeys(store)  # keys of parts not listed yet (written by other runs from now on): before the read
    todo, n_cached, stored, done_keys = _to_compute(spec, plan, store, o.shard, o.retry_failed)
    follow = _Following(spec, plan, done_keys, scores) if follow_searches and scores is not None and not o.shard \
        else None
    total = sum(len(t.cells) for _, t in todo)
    log.info("%s: %d cells to compute, %d already stored", spec.name, total, n_cached)
    print(run_summary(plan, stored, [t for _, t in todo], o.workers or o.n_jobs, shard_tasks(plan.tasks, o.shard),
                      o.shard), file=sys.stderr)
    bar = Progress(total, spec.name, o.progress)
    leases = Leases(store.dir / "leases", heartbeat=o.lease_heartbeat, stale_after=o.lease_stale)
    fresh.leases_dir, fresh.own = leases.dir, leases.token
    claims = _Claims(plan, dict(spec.options), leases, fresh, bar)
    counts = dict.fromkeys(("computed", "failed", "skipped", "bounded"), 0)
    if todo:
        warm_up_here([t for _, t in todo])
    with bar, _sigterm_as_interrupt(), leases, PartWriter(store, leases, fresh, o.write_every) as writer:
        bar.update(0)  # show the bar (0 %) before the first task finishes
        if todo:  # git and package metadata (~0.1 s), joblib (~0.1 s), a backend: only for a run that computes cells
            _compute(spec, todo, o, claims, writer, counts, follow)
    _finish(spec, store, leases)
    return RunSummary(counts["computed"], n_cached + claims.by_others, counts["failed"], counts["bounded"],
                      time.monotonic() - t0, plan.unavailable, counts["skipped"])


def _compute(spec: ExperimentSpec, pending: list, o: RunOptions, claims: "_Claims", writer: PartWriter, counts: dict,
             follow: "_Following | None") -> None:
    """Run the pending tasks (and the followed searches' next steps) on the backend, each finished task's rows stamped,
    written and counted; wait for tasks leased by other runs (taken over once their lease is stale)."""
    from joblib import delayed

    from .backends import executor
    provenance, variants = _provenance(spec), {v.name: v for v in spec.variants}  # a row's model -> its encoding
    waiting_said = False
    with executor(o.backend, o.backend_address, o.n_jobs) as run_jobs:
        while pending:
            deferred: list[tuple[str, Task]] = []
            claims.claimed_any = False
            for tid, task, rows in run_jobs(claims.jobs(pending, deferred, delayed)):
                _stamp(rows, task, claims.plan.datasets[task.dataset], provenance, spec, variants)
                writer.add(tid, rows)
                _count(counts, rows, follow)
                claims.bar.update(len(rows))
            if deferred:  # their stored check reads the store: this run's rows first (another run's may be ours)
                writer.flush()  # (a followed search's next step needs no flush: the writer batches its rows)
            pending = [(tid, rest) for tid, task in deferred if (rest := claims.unstored(task)) is not None]
            if not pending and follow is not None and (pending := follow.next()):  # the searches' next cells
                claims.plan = follow.plan
                claims.bar.total += sum(len(task.cells) for _, task in pending)
            if pending and not claims.claimed_any:
                if not waiting_said:
                    log.info("%s: waiting for %d task(s) leased by other runs (taken over if their lease goes "
                             "stale: no heartbeat for %.0f s, or owner dead on this host)", spec.name,
                             len(pending), o.lease_stale)
                    waiting_said = True
                time.sleep(o.wait_poll)


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
        todo, _ = unstored_tasks(self.plan, self.plan.tasks, self.done)
        self.steps += 1
        if todo:
            log.info("%s: search step %d: %d cell(s) planned from the results so far", self.spec.name, self.steps,
                     sum(len(task.cells) for _, task in todo))
        return todo


class _Claims:
    """Hands the pending tasks to the backend as it asks for them: each is leased just before it goes to a worker
    and checked against the store after the lease is taken (:mod:`randml_core.leases`); a task leased by another run
    waits in ``deferred``, one that another run stored meanwhile is dropped (``by_others`` counts its cells)."""

    def __init__(self, plan: Plan, options: dict, leases: Leases, fresh: NewKeys, bar: Progress):
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
            yield delayed(run_claimed_task)(tid, ds.X, ds.y, rest, task_options(self.options, ds), ds.task)


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
        lacking = lacking_scorers(stored, spec, plan)
        if lacking:
            log.info("%s: %d stored cell(s) lack a scorer of experiment.metrics: computed again", spec.name, len(lacking))
        done_keys = set(stored["key"]) - computed_again(stored, spec, plan, retry_failed, lacking)
    todo, n_cached = unstored_tasks(plan, shard_tasks(plan.tasks, shard), done_keys)
    return todo, n_cached, stored, done_keys


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


def _preps_of(spec: ExperimentSpec, ds) -> dict:
    """{features description of ``ds``: " (models A, B)" or "" when every model sees the same}."""
    found: dict = {}
    for v in spec.variants if getattr(ds, "categorical", ()) else [None]:
        found.setdefault(dataset_prep(spec.options, ds, v), []).append(getattr(v, "name", ""))
    return {p: "" if len(found) == 1 else f" (models {', '.join(names)})" for p, names in found.items()}
