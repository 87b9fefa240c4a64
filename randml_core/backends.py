"""Where a run's tasks execute (``backend=`` / ``backend_address=``, checked by ``config.check_backend``).

- ``loky`` (default): joblib's worker processes on this machine, each with the watchdog that ends it
  with the run (:mod:`randml_core._watchdog`); ``n_jobs=1`` computes in the run's own process.
- ``dask``: joblib's ``dask`` backend on ``distributed.Client(backend_address)``, or on a local
  cluster of ``n_jobs`` single-threaded worker processes (127.0.0.1, no dashboard) when no address.
- ``ray``: Ray tasks on ``ray.init(address=backend_address)`` (``auto``: the running local cluster),
  or on a local Ray of ``n_jobs`` CPUs (127.0.0.1, no dashboard, usage stats off unless set).
  Ray's joblib backend (``ray.util.joblib``) is a ``multiprocessing.Pool``, for which joblib refuses
  ``return_as="generator_unordered"``: results would come back only when every task is done, so
  nothing would be stored before the end. Ray's task API is used instead: at most two tasks per
  cluster CPU in flight, each result handed back as it finishes.

With an address, the cluster's size sets the parallelism and ``n_jobs`` is not used. In every case a
task is the same function on the same arguments (one BLAS thread, its own seeds), so the stored rows
do not depend on the backend; only the run's own process reads leases and writes the store.
"""
from __future__ import annotations

import contextlib
import logging
import os
from typing import Callable, Iterable, Iterator

from joblib import Parallel, delayed, parallel_config

from ._watchdog import die_with_parent
from .config import check_backend

log = logging.getLogger(__name__)

#: ``run_jobs(jobs)``: runs ``joblib.delayed`` jobs, yields their outputs as they finish (any order)
Runner = Callable[[Iterable[tuple]], Iterator]


@contextlib.contextmanager
def executor(backend: str = "loky", address: str | None = None, n_jobs: int = 1) -> Iterator[Runner]:
    """Start (or connect to) the backend for one run; yield its ``run_jobs``; stop what was started.

    ``jobs`` is consumed lazily: a job is taken only when a worker is about to be free, so the run
    leases a task just before it is handed out."""
    check_backend(backend, address)
    n = (os.cpu_count() or 1) if n_jobs == -1 else n_jobs
    if backend == "loky":
        if n_jobs == 1:
            yield lambda jobs: (f(*a, **kw) for f, a, kw in jobs)
            return
        # every loky worker starts a watchdog at start-up: orphaned workers exit (SIGKILLed parent)
        with parallel_config(backend="loky", initializer=die_with_parent, initargs=(os.getpid(),)):
            yield lambda jobs: Parallel(n_jobs=n_jobs, return_as="generator_unordered")(jobs)
    elif backend == "dask":
        with _dask_client(address, n) as client, parallel_config(backend="dask", client=client):
            yield lambda jobs: Parallel(n_jobs=-1, return_as="generator_unordered")(
                delayed(_as_under_loky)(f, *a, **kw) for f, a, kw in jobs)
    else:
        with _ray_session(address, n) as ray:
            yield lambda jobs: _ray_unordered(ray, jobs)


@contextlib.contextmanager
def _dask_client(address: str | None, n: int):
    from distributed import Client, LocalCluster
    if address:
        log.info("dask: connecting to %s (n_jobs is not used: the cluster's workers run the tasks)", address)
        with Client(address, set_as_default=False) as client:
            yield client
        return
    # worker processes watch a pipe to this process and exit when it is gone (distributed.process);
    # no dashboard, and the scheduler's health page on a free port rather than 8787 (a shared machine)
    quiet = logging.getLogger("distributed")
    level = quiet.level
    quiet.setLevel(max(logging.WARNING, level))  # the CLI logs INFO: not a dozen start-up lines of dask's
    try:
        with LocalCluster(n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
                          dashboard_address=None, worker_dashboard_address=None,
                          scheduler_kwargs={"dashboard": False, "dashboard_address": "127.0.0.1:0"}) as cluster, \
                Client(cluster, set_as_default=False) as client:
            yield client
    finally:
        quiet.setLevel(level)


def _as_under_loky(func, *args, **kwargs):
    """Run one job as in a loky worker: a nested ``Parallel`` inside it runs in threads of this worker
    (joblib's dask batches would send it back to the cluster from a busy worker; Ray would start loky)."""
    from joblib._parallel_backends import ThreadingBackend
    with parallel_config(backend=ThreadingBackend(nesting_level=1)):
        return func(*args, **kwargs)


@contextlib.contextmanager
def _ray_session(address: str | None, n: int):
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    import ray
    if ray.is_initialized():  # the caller's session: use it, leave it running
        yield ray
        return
    if address:
        log.info("ray: connecting to %s (n_jobs is not used: the cluster's CPUs run the tasks)", address)
        ray.init(address=address, log_to_driver=False)
    else:
        ray.init(num_cpus=n, include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.1")
    try:
        yield ray
    finally:
        ray.shutdown()


def _ray_unordered(ray, jobs: Iterable[tuple]) -> Iterator:
    """Run ``joblib.delayed`` jobs as Ray tasks (one CPU each; arrays put in the object store once),
    at most two per cluster CPU in flight; yield each output as it finishes."""
    import numpy as np
    task = ray.remote(num_cpus=1)(_as_under_loky)
    stored: dict = {}  # id(array) -> (array, its ObjectRef): each dataset's X and y are sent once

    def ref(arg):
        if not isinstance(arg, np.ndarray):
            return arg
        if id(arg) not in stored:
            stored[id(arg)] = (arg, ray.put(arg))
        return stored[id(arg)][1]

    capacity = 2 * max(1, int(ray.cluster_resources().get("CPU", 1)))
    jobs = iter(jobs)
    running: list = []
    try:
        while True:
            for func, args, kwargs in jobs if len(running) < capacity else ():
                running.append(task.remote(func, *map(ref, args), **{k: ref(v) for k, v in kwargs.items()}))
                if len(running) >= capacity:
                    break
            if not running:
                return
            done, running = ray.wait(running, num_returns=1)
            yield ray.get(done[0])
    finally:
        for r in running:  # stopped early (an error, Ctrl-C): cancel what is still queued or running
            ray.cancel(r, force=True)
