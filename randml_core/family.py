"""The family contract: how a model plugs into the runner.

A *family* is an estimator class plus an evaluator ``evaluate(split, settings) -> [CellResult]`` that
scores many hyper-parameter settings on one train/test :class:`Split`. Families whose grid shares work
(one hidden layer or kernel for many settings) write their own evaluator; every other model uses
:func:`evaluate_plain` (one fit per setting). A benchmark's families live in its
``families.py`` and register themselves with :func:`register_family`; the registry imports the installed
benchmarks' ``families`` members on first use of an unknown name (:mod:`randml_core.plugins`).

A model config may instead name any scikit-learn-compatible estimator with Hydra's ``_target_``
(``estimator: {_target_: sklearn.linear_model.LogisticRegression, max_iter: 2000}``, pipelines
included): :func:`target_family` makes a family for it that runs through :func:`evaluate_plain`.
"""
from __future__ import annotations

import copy
import functools
import inspect
import json
import signal
import sys
import threading
import time
import traceback
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from .options import EngineOptions

__all__ = ["CellResult", "Split", "Family", "FAMILIES", "register_family", "evaluate_plain",
           "guard", "timed", "release_unneeded", "target_family", "target_key", "family_of", "evaluate", "skipped",
           "make_estimator", "task_support", "TASKS", "warm_up"]

TASKS = ("binary", "multiclass", "regression")


@dataclass
class CellResult:
    params: dict
    y_pred: np.ndarray | None
    fit_seconds: float = float("nan")
    predict_seconds: float = float("nan")
    converged: bool = True
    error: str | None = None
    extras: dict = field(default_factory=dict)
    #: class probabilities on the test part (columns in sorted label order): adds ``log_loss``
    proba: np.ndarray | None = None
    #: ``[(stage, y_pred, proba or None), ...]``: predictions after each stage (boosting level,
    #: number of trees) of the same fit, scored by the runner into the ``staged`` column
    staged: list | None = None
    #: ``decision_function`` on the test part, only for a classifier without ``predict_proba`` and only when a
    #: scorer of ``experiment.metrics`` takes decision values (roc_auc, roc_auc_ovr, ...: :func:`metrics.uses_decision`)
    decision: np.ndarray | None = None


@dataclass
class Split:
    """One train/test split handed to a family evaluator, with caches shared across families."""
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    seed: int
    options: dict = field(default_factory=dict)
    cache: dict = field(default_factory=dict)

    def cached(self, key, compute):
        if key not in self.cache:
            t0 = time.perf_counter()
            value = compute()
            self.cache[key] = (value, time.perf_counter() - t0)
        return self.cache[key]


@dataclass(frozen=True)
class Family:
    name: str
    #: the estimator class, or a factory ``() -> estimator`` (``_target_`` models)
    estimator: Callable
    version: str  # bump when the family's results change; it is part of every cell key
    evaluate: Callable[["Split", list[dict]], list[CellResult]] | None
    #: kinds (first element of the key) of the ``Split.cache`` entries this family reads; the runner
    #: frees entries no later family of the task reads. ``None``: unknown, so nothing is freed early.
    cache_kinds: tuple[str, ...] | None = None
    #: dataset tasks it handles; None = derived from the estimator's scikit-learn tags
    tasks: tuple[str, ...] | None = None
    #: ``() -> None`` that compiles what the family's fits would compile on first use (numba kernels) on a
    #: tiny input; the runner calls it once per process before any timer starts (:func:`warm_up`)
    warmup: Callable[[], None] | None = None
    #: what the plug-in kit (:func:`randml_core.testing.check_family`) checks of an evaluator of its own:
    #: ``(dataset, preprocessing, settings)``, where its predictions must equal :func:`evaluate_plain`'s; or
    #: ``"plain"`` (it wraps evaluate_plain: no shared work) or ``"probe"`` (an analysis: no predictions)
    check: tuple | str | None = field(default=None, hash=False, compare=False)
    #: extras (``x_*`` columns, named without the prefix) that measure the run rather than the result: timings,
    #: how much shared work a task did (it depends on which cells the task holds); ``randml verify`` skips them
    volatile: tuple[str, ...] = field(default=(), hash=False, compare=False)

    def handles(self) -> tuple[str, ...]:
        return self.tasks if self.tasks is not None else _handles_of(self)


@functools.lru_cache(maxsize=256)
def _handles_of(family: "Family") -> tuple[str, ...]:
    """The tasks of a family without ``tasks``, from its estimator's tags: built once per process (a ``_target_``
    family builds it through Hydra, about 2 ms, which every task paid)."""
    return task_support(family.estimator())


def task_support(est) -> tuple[str, ...]:
    """Tasks an estimator handles, from its scikit-learn tags (a binary-only classifier says
    ``classifier_tags.multi_class = False``)."""
    from sklearn.base import is_classifier, is_regressor
    if is_regressor(est):
        return ("regression",)
    if is_classifier(est):
        try:
            multi = est.__sklearn_tags__().classifier_tags.multi_class
        except (AttributeError, TypeError):
            multi = True
        return ("binary", "multiclass") if multi else ("binary",)
    return TASKS


def guard(params: dict, fn) -> CellResult:
    """Run one setting; an exception becomes a failed CellResult (never fatal for the other settings)."""
    try:
        return fn()
    except Exception as exc:
        msg = f"{type(exc).__name__}: {exc}"
        return CellResult(params, None, error=msg, extras={"traceback": traceback.format_exc(limit=3)})


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


@contextmanager
def time_limit(seconds: float | None):
    """Raise TimeoutError in the block after ``seconds`` (SIGALRM; only in a process's main thread,
    where the runner's tasks run). Native code that holds the interpreter is interrupted when it returns."""
    if not seconds or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum, frame):
        raise TimeoutError(f"the fit took longer than experiment.cell_timeout={seconds} s")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, float(seconds))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def make_estimator(family: Family, params: dict, seed: int, build: Callable | None = None):
    """``family.estimator()`` (or ``build()``: :func:`builder`) with ``params`` set, and ``random_state=seed``
    wherever it has one (nested estimators of a pipeline included); estimators without a seed (kNN) get none."""
    est = (build or family.estimator)()
    names = est.get_params(deep=True)
    seeds = {k: seed for k in names if (k == "random_state" or k.endswith("__random_state")) and k not in params}
    return est.set_params(**seeds, **params)


def builder(family: Family) -> Callable:
    """``() -> estimator``: the family's estimator built once per process (a ``_target_`` one through Hydra's ``instantiate``
    and the trust checks, about 2 ms) and cloned for each call (scikit-learn's ``clone``: the same class and
    constructor arguments, nested estimators cloned too). An estimator ``clone`` refuses (its ``__init__`` changes
    its arguments) is built anew each time; a build that raises is raised by each call (the cell fails, as before)."""
    from sklearn.base import clone

    def build():
        template = _template(family)
        try:
            return clone(template)
        except Exception:  # noqa: BLE001 - not clonable as scikit-learn asks: build it as the config says
            return family.estimator()
    return build


_TEMPLATES: dict = {}  # family -> its estimator as built (once per process), cloned by builder()


def _template(family: Family):
    """The family's estimator as built, once per process (never fitted: only cloned, or read by :func:`_direct`)."""
    template = _TEMPLATES.get(family)
    if template is None:
        template = _TEMPLATES[family] = family.estimator()
    return template


def maker(family: Family) -> Callable:
    """``(params, seed) -> estimator``: :func:`make_estimator` over :func:`builder`, with a direct path for a flat
    estimator (no nested estimators, scikit-learn's own ``clone``, which it passes): its class called once with the
    template's constructor arguments (deep-copied, as ``clone`` copies them), ``params`` and ``random_state=seed``.
    That is what ``clone`` then ``set_params`` give for such an estimator, without the four ``get_params`` calls
    (each an ``inspect.signature``) they cost per cell. Any other estimator, or a parameter the template lacks,
    takes the general path (and its errors)."""
    build = builder(family)
    direct = _direct(family)
    if direct is None:
        return lambda params, seed: make_estimator(family, params, seed, build)
    klass, base = direct

    def make(params, seed):
        if not params.keys() <= base.keys():
            return make_estimator(family, params, seed, build)
        kw = {**copy.deepcopy(base), **params}
        if "random_state" in base and "random_state" not in params:
            kw["random_state"] = seed
        return klass(**kw)
    return make


def _direct(family: Family):
    """(class, constructor arguments) of the family's template when :func:`maker`'s direct path applies, else None."""
    if family in _DIRECT:
        return _DIRECT[family]
    from sklearn.base import BaseEstimator, clone
    out = None
    try:
        template = _template(family)
        klass = type(template)
        base = template.get_params(deep=False)
        own_clone = getattr(klass, "__sklearn_clone__", None) is not getattr(BaseEstimator, "__sklearn_clone__", None)
        flat = (template.get_params(deep=True).keys() == base.keys()  # a pipeline's steps add step__param keys
                and not any(hasattr(v, "get_params") for v in base.values()))
        if isinstance(template, BaseEstimator) and flat and not own_clone and "_metadata_request" not in vars(template):
            clone(template)  # raises for an estimator whose __init__ changes its arguments: general path
            out = (klass, base)
    except Exception:  # noqa: BLE001 - the general path builds (and fails) as before
        out = None
    _DIRECT[family] = out
    return out


_DIRECT: dict = {}  # family -> (class, constructor arguments) or None, decided once per process


def _decision_values(est, X):
    """``est.decision_function(X)``, or None if it raises: a scorer's input never fails the cell (its scorer says
    NaN and why)."""
    try:
        return est.decision_function(X)
    except Exception:
        return None


def evaluate_plain(family: Family, split: Split, settings: list[dict], staged: bool = False,
                   proba: bool = False, extras: Callable | None = None, cpu_time: bool = False,
                   decision: bool = False) -> list[CellResult]:
    """The generic evaluator for families without shared work: one plain fit per setting.

    ``proba=True`` also stores ``predict_proba`` (log loss); ``decision=True`` (with ``proba=False``) stores
    ``decision_function`` (``CellResult.decision``: ROC AUC of a model without probabilities, untimed like the
    probabilities); ``staged=True`` scores the
    estimator's ``staged_predict`` / ``staged_predict_proba`` (stages numbered from 1);
    ``extras(fitted_estimator) -> dict`` adds numbers stored as ``x_<name>`` columns (model size);
    ``cpu_time=True`` (or ``experiment.cpu_time: true``) adds ``x_fit_cpu_seconds``, the CPU seconds of the
    worker process during the fit, for timing claims: unlike the wall ``fit_seconds`` it does not grow when other
    processes share the cores.
    ``experiment.cell_timeout`` (seconds) bounds each fit; a fit past it is stored as failed."""
    results = []
    eng = EngineOptions.of(split.options)
    limit = eng.cell_timeout
    cpu_time = cpu_time or eng.cpu_time
    make = maker(family)
    for params in settings:
        def one(params=params):
            est = make(params, split.seed)
            cpu0 = time.process_time()
            with time_limit(limit):
                _, fit_s = timed(lambda: est.fit(split.X_train, split.y_train))
            fit_cpu = time.process_time() - cpu0
            y_pred, pred_s = timed(lambda: est.predict(split.X_test))
            p = est.predict_proba(split.X_test) if proba else None
            d = _decision_values(est, split.X_test) if decision and not proba else None
            stages = None
            if staged:
                preds = list(est.staged_predict(split.X_test))
                probs = list(est.staged_predict_proba(split.X_test)) if proba else [None] * len(preds)
                stages = [(i + 1, yp, pp) for i, (yp, pp) in enumerate(zip(preds, probs))]
            more = {"fit_cpu_seconds": fit_cpu} if cpu_time else {}
            return CellResult(params, y_pred, fit_s, pred_s, bool(getattr(est, "converged_", True)),
                              proba=p, staged=stages, extras={**(extras(est) if extras else {}), **more},
                              decision=d)
        results.append(guard(params, one))
    return results


# --------------------------------------------------------------------------- the registry
class _Registry(dict):
    """Family name -> Family. A name not yet registered imports the ``families`` members of the installed
    benchmarks (:func:`randml_core.plugins.load_members`, in their entry-point name order)."""

    @property
    def unavailable(self) -> dict:
        """module -> why it could not be imported (an optional package missing, e.g. the ``papers`` extra)."""
        from . import plugins
        return plugins.unavailable()

    def _search(self, name: str | None = None) -> None:
        """Import the benchmarks' ``families`` members: until ``name`` is registered, or all of them."""
        from . import plugins
        plugins.load_members("families", None if name is None else (lambda: dict.__contains__(self, name)))

    def __missing__(self, name):
        self._search(name)
        if dict.__contains__(self, name):
            return dict.__getitem__(self, name)
        raise KeyError(name)

    def __contains__(self, name) -> bool:
        if not dict.__contains__(self, name):
            self._search(name)
        return dict.__contains__(self, name)

    def all(self) -> list[str]:
        self._search()
        return sorted(self)


FAMILIES: _Registry = _Registry()


#: name -> the family object a benchmark's module registered under it (see benchmark_family)
_BENCHMARK_FAMILIES: dict = {}
#: name -> the source file of the module that registered it: another module may not take the name
_ORIGINS: dict = {}


def _origin(frame) -> str:
    """The file of the module whose code called :func:`register_family` (a module imported twice under two
    names, e.g. through a package alias and its folder, is one file)."""
    name = frame.f_globals.get("__file__") or frame.f_globals.get("__name__", "?")
    try:
        return str(Path(name).resolve())
    except (OSError, ValueError):
        return str(name)


def register_family(family: Family) -> None:
    """Add a family (a benchmark's ``families.py`` calls this at import). A family registered while a
    benchmark's member is being imported (:func:`randml_core.plugins.loading`), or whose evaluator is defined
    in an installed benchmark's package, is that benchmark's."""
    from . import plugins
    origin = _origin(sys._getframe(1))
    if plugins.loading() is None and not dict.__contains__(FAMILIES, family.name):
        FAMILIES._search(family.name)  # an installed benchmark's family of this name is registered first
    old = dict.get(FAMILIES, family.name)
    if old is not None and old is not family and _ORIGINS.get(family.name, origin) != origin:
        raise ValueError(
            f"family {family.name!r} is registered already by {_ORIGINS[family.name]}; {origin} cannot register "
            "another family under that name (its cells would be stored under the other's keys); fix: give your "
            "family a name of its own")
    _ORIGINS[family.name] = origin
    dict.__setitem__(FAMILIES, family.name, family)
    if plugins.loading() is not None or plugins.owner(getattr(family.evaluate, "__module__", None)):
        _BENCHMARK_FAMILIES[family.name] = family
    else:
        _BENCHMARK_FAMILIES.pop(family.name, None)


def is_registered(name: str) -> bool:
    """Is ``name`` registered in this process already (without searching the papers' modules)?"""
    return dict.__contains__(FAMILIES, name)


def benchmark_family(name: str) -> Family | None:
    """The registered family ``name`` if a benchmark's module registered it and it was not replaced since
    (a test's own family or a substitute is not), else None; :mod:`randml_core.checkmemo` remembers only those."""
    family = dict.get(FAMILIES, name)
    return family if family is not None and _BENCHMARK_FAMILIES.get(name) is family else None



def release_unneeded(split: Split, later: list[Family]) -> list:
    """Drop the cache entries that none of the ``later`` families reads; returns the dropped keys.

    A task evaluates its families one after another on one ``Split``; without this, one family's
    shared work (e.g. hidden layers of N x h_max per activation) would still be held while the next
    builds its kernels, and the task's peak memory would be the sum of the phases instead of their maximum.
    """
    if any(f.cache_kinds is None for f in later):
        return []
    keep = {k for f in later for k in f.cache_kinds}
    dropped = [key for key in split.cache if not (isinstance(key, tuple) and key and key[0] in keep)]
    for key in dropped:
        del split.cache[key]
    return dropped


# --------------------------------------------------------------------------- `_target_` models
def _targets(node) -> list[str]:
    """Every ``_target_`` in a (nested) Hydra node."""
    out = []
    if isinstance(node, dict):
        if isinstance(node.get("_target_"), str):
            out.append(node["_target_"])
        for v in node.values():
            out += _targets(v)
    elif isinstance(node, list):
        for v in node:
            out += _targets(v)
    return out


@functools.lru_cache(maxsize=1)
def _packages_distributions() -> dict:
    """Top-level module -> distributions, scanned once per process (each scan reads every installed
    distribution's file list: about 0.4 s here)."""
    from importlib import metadata
    return metadata.packages_distributions()


@functools.lru_cache(maxsize=None)
def _distribution_version(import_path: str) -> str:
    from importlib import metadata
    top = import_path.split(".")[0]
    dists = _packages_distributions().get(top) or [top]
    for dist in dists:
        try:
            return f"{dist}=={metadata.version(dist)}"
        except metadata.PackageNotFoundError:
            continue
    return f"{top}==unknown"


def _execution_whitelist(instantiate, node: dict) -> dict:
    """Hydra >= 1.4 asks each ``instantiate`` call which targets it may import and call (without a list it
    warns, and Hydra 1.5 will refuse): the targets :func:`randml_core.trust.check_target_node` validated
    (estimator classes and named factories; a config's word alone is never the list). Empty for older
    Hydra, which has no such argument."""
    from .trust import validated_targets
    allowed = validated_targets(node)  # raises ConfigError before anything is imported or called
    if "_execution_whitelist_" not in inspect.signature(instantiate).parameters:
        return {}
    return {"_execution_whitelist_": allowed}


def target_family(node: dict) -> Family:
    """A family for any scikit-learn-compatible estimator named by Hydra's ``_target_``.

    Its name is the import path (``sklearn.linear_model.LogisticRegression``); its version lists the
    installed version of every package a ``_target_`` of the node comes from, so a package upgrade makes
    new cells. The node's fixed arguments enter the cell key through :func:`target_key`. Every
    ``_target_`` is checked first (:mod:`randml_core.trust`), and what the node builds must be an estimator."""
    from hydra.utils import instantiate
    from .trust import check_estimator
    frozen = json.dumps(node, sort_keys=True)
    allowed = _execution_whitelist(instantiate, node)

    def factory():
        est = instantiate(json.loads(frozen), _convert_="all", **allowed)
        check_estimator(est, f"estimator._target_={node['_target_']!r}")
        return est
    version = ";".join(sorted({_distribution_version(t) for t in _targets(node)}))
    return Family(node["_target_"], factory, version, None)


def target_key(node: dict) -> str:
    """The canonical JSON of a ``_target_`` node (part of its cells' keys)."""
    return json.dumps({"estimator": node}, sort_keys=True)


@functools.lru_cache(maxsize=256)
def _target_family_cached(frozen: str) -> Family:
    return target_family(json.loads(frozen))


def family_of(name: str, target: dict | None = None) -> Family:
    """The family of a config's variant: a registered one by name, or the ``_target_`` family of its node."""
    return FAMILIES[name] if target is None else _target_family_cached(json.dumps(target, sort_keys=True))


def evaluate(family: Family, split: Split, settings: list[dict]) -> list[CellResult]:
    """A family's own evaluator, else the plain one (with probabilities where the estimator has them; without
    them, its decision values when a scorer of ``experiment.metrics`` takes them)."""
    if family.evaluate is not None:
        return family.evaluate(split, settings)
    classifier, proba, has_decision = _outputs_of(family)
    decision = False
    metrics = list(EngineOptions.of(split.options).metrics)
    if classifier and not proba and has_decision and metrics:
        from .metrics import uses_decision
        decision = uses_decision(metrics)
    return evaluate_plain(family, split, settings, proba=proba, decision=decision)


@functools.lru_cache(maxsize=256)
def _outputs_of(family: Family) -> tuple[bool, bool, bool]:
    """(classifier, has ``predict_proba``, has ``decision_function``) of the family's estimator, built once per
    process."""
    from sklearn.base import is_classifier
    est = family.estimator()
    classifier = is_classifier(est)
    return classifier, classifier and hasattr(est, "predict_proba"), hasattr(est, "decision_function")


_WARM: set = set()  # the warm-up functions this process has run


def warm_up(families) -> list[str]:
    """Run each family's :attr:`Family.warmup` once per process (compilation of kernels on first use), so no
    stored ``fit_seconds`` / ``task_seconds`` includes it. Returns the names of the families warmed now."""
    done = []
    for fam in families:
        if fam.warmup is not None and fam.warmup not in _WARM:
            fam.warmup()
            _WARM.add(fam.warmup)
            done.append(fam.name)
    return done


def skipped(settings: list[dict], reason: str) -> list[CellResult]:
    """Cells not run by rule (stored with status ``skipped`` and the reason)."""
    return [CellResult(p, None, error=f"skipped: {reason}") for p in settings]
