"""The run holds one BLAS / OpenMP thread from its start to its end (execution.run), so in-process tasks never restore
the libraries' default between them (each restore woke their idle threads, which spin); the default is back after
the run."""
import numpy as np  # noqa: F401  (loads the BLAS library whose threads are counted)
from threadpoolctl import threadpool_info, threadpool_limits

import randml_core.execution as execution
import randml_core.worker as worker


def _blas_threads() -> set[int]:
    return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}


def test_a_run_holds_one_thread_between_its_tasks_and_restores_the_default(compose, tmp_path, monkeypatch):
    spec = compose("experiment=tiny", "dataset=heart", "model=knn", "models.knn.grid.n_neighbors=[1,5]")
    seen = []
    real_round, real_task = execution._run_round, worker.run_task

    def round_(*args, **kwargs):
        seen.append(("round", _blas_threads()))
        return real_round(*args, **kwargs)

    def task(*args, **kwargs):
        rows = real_task(*args, **kwargs)
        seen.append(("after a task", _blas_threads()))  # the task's own limit has exited: the run's is still held
        return rows
    monkeypatch.setattr(execution, "_run_round", round_)
    monkeypatch.setattr(worker, "run_task", task)
    with threadpool_limits(limits=2, user_api="blas"):  # a default above one, whatever the machine's
        assert _blas_threads() == {2}
        summary = execution.run(spec, str(tmp_path / "store"), n_jobs=1, progress=False)
        assert _blas_threads() == {2}  # restored after the run
    assert summary.computed == 6 and len([s for s in seen if s[0] == "after a task"]) == 3
    assert all(threads == {1} for _, threads in seen), seen


def test_a_task_inside_the_runs_limit_sets_no_limit_of_its_own_until_a_module_is_imported(monkeypatch):
    """Inside the run's one_thread() a task's one_thread() is free (no scan, no set and restore), unless a module was
    imported since the enclosing limit was set (a library a plug-in loads is then limited too)."""
    import sys
    import types

    from randml_core import worker
    limits = []
    with worker.one_thread():
        controller = worker._CONTROLLER[0][1]
        real = controller.limit
        monkeypatch.setattr(controller, "limit", lambda **kw: limits.append(kw) or real(**kw))
        with worker.one_thread():
            assert _blas_threads() == {1}
        assert limits == []
        monkeypatch.setitem(sys.modules, "randml_test_fresh_module", types.ModuleType("randml_test_fresh_module"))
        with worker.one_thread():  # a module imported since: scanned and limited again (a new controller)
            assert _blas_threads() == {1}
        assert worker._CONTROLLER[0][1] is not controller
    assert worker._HELD == [0]
