"""What a worker does with one task: its cells evaluated family by family on the task's split (:func:`run_task`),
scored (:func:`score`), timed, with the worker's plug-ins imported and kernels warmed first
(:func:`run_task_with_meta`). Runs in the worker process; returns plain rows and touches no store
(:mod:`randml_core.execution` stamps and writes them).
"""
from __future__ import annotations

import contextlib
import json
import logging
import sys
import time

import numpy as np

from .correctness import COLUMN as CORRECT, encode as encode_correct
from .family import Split, evaluate, family_of, release_unneeded, skipped, warm_up
from .metrics import classification_scores, log_loss, mae, rmse, scorer_scores
from .options import EngineOptions
from .plan import Cell, Task
from .plugins import load_package
from .preprocess import encode, encoding_of, native_settings, preprocess

log = logging.getLogger(__name__)

__all__ = ["run_task", "score", "run_task_with_meta", "task_options", "one_thread"]


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
_HELD = [0]  # how many one_thread() limits this process is inside


@contextlib.contextmanager
def one_thread():
    """``threadpool_limits(limits=1)`` through a controller made once per process (the scan of the loaded BLAS
    and OpenMP libraries cost about 4 ms a task), made again when modules were imported since (a library a
    plug-in loads is then limited too). Inside an enclosing limit with no module imported since (a task run in
    the run's own process, :func:`randml_core.execution.run`), nothing to do: the libraries are at one thread."""
    from threadpoolctl import ThreadpoolController
    if _HELD[0] and _CONTROLLER and _CONTROLLER[0][0] == len(sys.modules):
        yield
        return
    if not _CONTROLLER or _CONTROLLER[0][0] != len(sys.modules):
        _CONTROLLER[:] = [(len(sys.modules), ThreadpoolController())]
    with _CONTROLLER[0][1].limit(limits=1):
        _HELD[0] += 1
        try:
            yield
        finally:
            _HELD[0] -= 1


def run_task(X, y, task: Task, options: dict, problem: str = "binary") -> list[dict]:
    """Evaluate one task's cells (in a worker process). Returns plain result rows.

    ``problem`` is the dataset's task ("binary", "multiclass", "regression"); it picks the metrics.
    A family may return probabilities (``CellResult.proba``: log loss) and staged predictions
    (``CellResult.staged``: ``[(stage, y_pred, proba or None), ...]``, e.g. per boosting level or
    number of trees), scored here into the JSON column ``staged`` (``results.staged`` expands it).
    """
    with one_thread():
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


def task_options(options: dict, ds) -> dict:
    """The options a task of ``ds`` runs with: its categorical columns added (``_categorical``) if it has any."""
    cat = tuple(getattr(ds, "categorical", ()) or ())
    return {**options, "_categorical": cat} if cat else options


def run_claimed_task(tid, X, y, task, options, problem="binary"):
    task, rows = run_task_with_meta(X, y, task, options, problem)
    return tid, task, rows


def families_of(cells) -> list:
    """The distinct families of some cells (registered ones by name, ``_target_`` ones by their node)."""
    seen: dict = {}
    for c in cells:
        target = None if c.variant.target is None else json.dumps(c.variant.target, sort_keys=True)
        seen.setdefault((c.variant.family, target), None)
    return [family_of(f, None if t is None else json.loads(t)) for f, t in seen]


def warm_up_here(tasks) -> None:
    """Compile the families' kernels in this process before the workers start, with a line saying so: the
    first use on a machine compiles (about a minute; numba caches the result on disk), and the workers
    then load them from that cache before their timers start."""
    families = [f for f in families_of(c for t in tasks for c in t.cells) if f.warmup is not None]
    if families:
        print(f"randml run: preparing the compiled kernels of {', '.join(sorted({f.name for f in families}))} "
              "(the first use on this machine compiles them, about a minute; never inside a timed fit)",
              file=sys.stderr)
        t0 = time.perf_counter()
        warm_up(families)
        log.info("kernels ready in %.1f s", time.perf_counter() - t0)


def run_task_with_meta(X, y, task, options, problem="binary"):
    # worker processes start fresh: a user's plug-in modules (experiment.plugins) are imported here
    for module in options.get("plugins") or []:
        load_package(module)
    warm_up(families_of(task.cells))  # kernels compile (or load from numba's disk cache) before any timer
    t0 = time.perf_counter()
    rows = run_task(X, y, task, options, problem)
    seconds = time.perf_counter() - t0  # the whole task: preprocessing, shared work and every cell
    for r in rows:
        r["task_seconds"] = seconds
    return task, rows
