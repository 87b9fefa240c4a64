"""Experiment specification: validation of the composed Hydra config into typed objects.

Every problem is reported before any work starts, naming the bad key and the valid choices.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import itertools
import json
import os
import sys
from dataclasses import dataclass, field
from typing import Any

from .errors import ConfigError, did_you_mean, target_hint  # noqa: F401  (ConfigError: re-exported)
from .options import EngineOptions
from .preprocess import duplicates_of
from .plugins import load_package
from .protocol import KINDS, Protocol


@dataclass(frozen=True)
class Variant:
    """One table column: a family with some fixed params and a grid over the others."""
    name: str
    family: str       # a registered family, or the import path of a `_target_` estimator
    fixed: dict
    grid: dict  # param -> list of values
    target: dict | None = None  # the `estimator:` node of a `_target_` model (None for a family)
    search: dict | None = None  # the checked `search:` / `budget:` blocks (randml_core.search); None: the grid
    categorical: str | None = None  # the model's own `categorical:` (onehot|ordinal|native); None: the experiment's
    #: the model's `per_dataset:` block, {dataset: {param: [values]}}: axes replaced on that dataset; None: none
    per_dataset: dict | None = None

    def grid_for(self, dataset: str | None = None) -> dict:
        """The grid on ``dataset``: the model's grid with the axes its ``per_dataset`` block gives that dataset."""
        if dataset is None or not self.per_dataset or dataset not in self.per_dataset:
            return self.grid
        return {**self.grid, **self.per_dataset[dataset]}

    def settings(self, dataset: str | None = None) -> list[dict]:
        grid = self.grid_for(dataset)
        keys = sorted(grid)
        return [{**self.fixed, **dict(zip(keys, combo))}
                for combo in itertools.product(*(grid[k] for k in keys))]


@dataclass(frozen=True)
class ExperimentSpec:
    name: str
    paper: str
    datasets: list[str]
    variants: list[Variant]
    protocol: Protocol
    options: dict = field(default_factory=dict)
    profile: str = "paper"
    columns: list = field(default_factory=list)  # table column order (variant names)
    store: str = ""   # store directory name; experiments that share cells share a store
    #: family -> version, for families whose checks came from :mod:`randml_core.checkmemo` (not imported);
    #: make_plan asks the registry for any other (and for these once they are registered)
    family_versions: dict = field(default_factory=dict, compare=False)

    def __post_init__(self):
        if not self.store:
            object.__setattr__(self, "store", self.name)

    @property
    def engine(self) -> EngineOptions:
        """The engine's options of :attr:`options`, typed (:class:`EngineOptions`)."""
        return EngineOptions.of(self.options)

    def config_hash(self) -> str:
        variants = [{k: v for k, v in var.__dict__.items()
                     if k not in ("target", "search", "categorical", "per_dataset") or v is not None}
                    for var in self.variants]
        payload = {"name": self.name, "datasets": self.datasets, "protocol": self.protocol.__dict__,
                   "variants": variants, "options": self.options}
        return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _require(node: Any, key: str, where: str, kind: type | tuple):
    if node is None or key not in node or node[key] is None:
        raise ConfigError(f"missing config key '{where}{key}'")
    value = node[key]
    if not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise ConfigError(f"config key '{where}{key}' must be a {names}, got {type(value).__name__} ({value!r})")
    return value


def _as_value_list(values, where: str) -> list:
    """A grid axis: a non-empty list of scalars (numbers, strings, booleans, null). Numeric strings
    (YAML reads ``1e3`` as a string) become floats; the estimator's constraints judge the values."""
    if not isinstance(values, list) or not values:
        raise ConfigError(f"config key '{where}' must be a non-empty list, got {values!r}")
    out = []
    for v in values:
        if v is not None and not isinstance(v, (bool, int, float, str)):
            raise ConfigError(f"config key '{where}' has a value of type {type(v).__name__}: {v!r}; "
                              "grid values are numbers, strings, booleans or null")
        if isinstance(v, str):
            try:
                v = float(v)
            except ValueError:
                pass
        out.append(v)
    if len({json.dumps(v, sort_keys=True, default=str) for v in out}) < len(out):
        raise ConfigError(f"config key '{where}' lists a value twice: {values!r}")
    return out


def _check_value(value, where: str, kind: str, low=None, choices=None):
    """One scalar option: ``kind`` is "bool", "int" or "str"; ``low`` a lower bound; ``choices``."""
    ok = {"bool": isinstance(value, bool),
          "int": isinstance(value, int) and not isinstance(value, bool),
          "str": isinstance(value, str) and value != ""}[kind]
    what = {"bool": "true or false", "int": "an integer", "str": "a non-empty string"}[kind]
    if not ok:
        raise ConfigError(f"{where}={value!r} is invalid: it must be {what}")
    if low is not None and value < low:
        raise ConfigError(f"{where}={value!r} is invalid: it must be >= {low}")
    if choices is not None and value not in choices:
        raise ConfigError(f"{where}={value!r} is unknown; {did_you_mean(value, choices)}choose one of "
                          f"{', '.join(map(str, choices))}")
    return value


#: ``backend=`` choices and the module each needs (None: joblib's own), with the extra that installs it
BACKENDS = {"loky": None, "dask": "distributed", "ray": "ray"}


def _installed(module: str) -> bool:
    if module in sys.modules:
        return sys.modules[module] is not None  # None: imports of it fail (blocked)
    return importlib.util.find_spec(module) is not None


def check_backend(backend, address=None) -> None:
    """``backend`` is a known executor whose package is installed; ``address`` a string or null, and
    only for a cluster backend. Raises ConfigError naming the key and the fix."""
    _check_value(backend, "backend", "str", choices=tuple(BACKENDS))
    if address is not None:
        _check_value(address, "backend_address", "str")
        if backend == "loky":
            raise ConfigError(f"backend_address={address!r} is set but backend=loky runs on this machine: "
                              "use backend=dask or backend=ray with an address, or backend_address=null")
    module = BACKENDS[backend]
    if module is not None and not _installed(module):
        raise ConfigError(f"backend={backend} needs the {module!r} package, which is not installed: "
                          f"pip install -e '.[{backend}]' (or choose backend=loky)")


def check_runtime(cfg: dict) -> None:
    """The run-time keys of the primary config (conf/config.yaml), before any work."""
    if "backend" in cfg or cfg.get("backend_address") is not None:
        check_backend(cfg.get("backend", "loky"), cfg.get("backend_address"))
    if "n_jobs" in cfg:
        n = _check_value(cfg["n_jobs"], "n_jobs", "int")
        if n == 0 or n < -1:
            raise ConfigError(f"n_jobs={n} is invalid: use a number of worker processes >= 1, or -1 for one per core")
    for key in ("progress", "retry_failed"):
        if key in cfg:
            _check_value(cfg[key], key, "bool")
    for key in ("store_dir", "results_dir"):
        if key in cfg:
            _check_value(cfg[key], key, "str")


#: ``experiment.*`` keys the engine reads; a report module may declare more in its ``OPTIONS`` dict
ENGINE_OPTIONS = {
    "name": "the experiment's name (its store and artefact names)", "paper": "the paper it reproduces",
    "datasets": "dataset names", "columns": "table column order (variant names)",
    "store": "store directory name (experiments that share cells share a store)",
    "report": "report module(s) (default: the generic table)", "plugins": "modules outside experiments/ that "
    "register families", "preprocessing": "minmax | standard | none", "duplicates": "keep | drop | group",
    "train_criteria": "store the training-set criteria of the families that compute them", "svm_max_iter": "libsvm iteration bound",
    "cell_timeout": "seconds a plain fit may take", "title": "the table's title",
    "cpu_time": "store x_fit_cpu_seconds, the worker's CPU seconds of each plain fit (timing claims)",
    "search_seed": "the seed random / halving / optuna searches draw their settings from (default protocol.seed; "
                   "the folds stay protocol.seed's): repeat a search under several seeds",
    "search_seed_runs": "experiments repeating this one under other search seeds: their spread is reported "
                        "(randml_core.report.search_seeds)",
    "test_correct": "store each classification cell's per-row correctness on its outer test fold (column "
                    "test_correct, per stage in staged) for paired tests on the same test rows",
    "snapshot": "false for a smoke experiment: its report goes to results/scratch/<name>/, never over committed files",
    "metrics": "scikit-learn scorer names computed with each cell beside the built-in metrics (f1_macro, r2, ...)",
    "categorical": "onehot | ordinal: how a dataset card's categorical columns are encoded (fitted per fold)",
    "max_settings": "the largest grid or search a model may plan (default 100000)",
    "max_cells": "the most cells an experiment may plan (default 10000000)",
    "frame_omit": "columns `randml export` leaves out of the committed frame for this experiment's rows (staged, "
                  "test_correct or x_*: detail none of its reports reads); recorded in the frame's provenance",
}

#: plan bounds (before anything is allocated): raise them with experiment.max_settings / experiment.max_cells
MAX_SETTINGS, MAX_CELLS = EngineOptions.max_settings, EngineOptions.max_cells


def _check_bounds(variants, protocol, n_datasets: int, options: dict) -> None:
    """A grid, a search or a whole plan larger than its limit is a ConfigError naming the limit and its key, computed
    from the axis lengths (nothing is expanded): a 3 x 1000-value grid or ``search.n: 1000000000`` fail at once."""
    import math
    limits = {}
    for key, default in (("max_settings", MAX_SETTINGS), ("max_cells", MAX_CELLS)):
        value = options.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(f"experiment.{key}={value!r} is invalid: a whole number >= 1")
        limits[key] = value
    folds = (protocol.n_splits if protocol.kind == "repeated_stratified_kfold" else 1) * protocol.repeats
    folds *= 1 + protocol.inner_splits
    total = 0
    for v in variants:
        if v.search:
            from .search import grid_size
            n = v.search.get("n") or (v.search.get("budget") or {}).get("settings") or grid_size(v.search.get("space") or {})
            size = n if isinstance(n, int) else limits["max_settings"]
        else:
            size = max(math.prod(len(vals) for vals in v.grid_for(d).values()) for d in [None, *(v.per_dataset or ())])
        if size > limits["max_settings"]:
            raise ConfigError(f"model {v.name!r} plans {size:,} settings, more than the limit of "
                              f"{limits['max_settings']:,} (experiment.max_settings); fix: a smaller grid or search.n, "
                              f"or raise the limit: +experiment.max_settings={size}")
        total += size
    cells = total * folds * max(n_datasets, 1)
    if cells > limits["max_cells"]:
        raise ConfigError(f"the experiment plans {cells:,} cells ({total:,} settings x {folds} folds x {n_datasets} "
                          f"dataset(s)), more than the limit of {limits['max_cells']:,} (experiment.max_cells); fix: "
                          f"fewer settings, folds or datasets, or raise the limit: +experiment.max_cells={cells}")


def _check_modules(exp: dict, config_dirs=()) -> None:
    """``experiment.report`` and ``experiment.plugins`` name plug-in modules only (:mod:`randml_core.trust`),
    checked before any is imported."""
    from .trust import check_plugin_module
    for key in ("report", "plugins"):
        modules = exp.get(key) or []
        for module in [modules] if isinstance(modules, str) else modules if isinstance(modules, list) else [modules]:
            check_plugin_module(module, f"experiment.{key}", config_dirs)


def _importable(config_dirs) -> None:
    """A module in a ``--config-dir`` (a user's ``plugins:``) is importable: the dirs go at the end of
    ``sys.path`` (so they shadow no installed module; worker processes inherit it)."""
    for d in config_dirs:
        d = os.path.abspath(d)
        if d not in sys.path:
            sys.path.append(d)


def _model_plugins(cfg: dict, exp: dict, config_dirs=()) -> None:
    """A model config's ``plugin:`` (the module that registers its family) joins ``experiment.plugins``, so a
    family is one Python file plus one model config; checked like them before anything is imported."""
    from .trust import check_plugin_module
    found = []
    for key, m in (cfg.get("models") or {}).items():
        module = m.get("plugin") if isinstance(m, dict) else None
        if module is None:
            continue
        check_plugin_module(module, f"models.{key}.plugin", config_dirs)
        found.append(module)
    if found:
        listed = exp.get("plugins") or []
        exp["plugins"] = [*listed, *[m for m in dict.fromkeys(found) if m not in listed]]


def _check_name(name, key: str = "experiment.name") -> None:
    """``experiment.name`` (and ``experiment.store``) name a store directory and artefact files: a plain name."""
    import re
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name) or ".." in name:
        raise ConfigError(f"{key}={name!r} is invalid: a plain name (letters, digits, '_', '-', '.'; no '/', "
                          "no '..', not empty), since it names the store directory and the report files")


def _check_known_keys(exp: dict) -> None:
    """Every ``experiment.*`` key is the engine's, ``<family>_max_train``, or declared by the report module."""
    unknown = [k for k in exp if k not in ENGINE_OPTIONS and not k.endswith("_max_train")]
    if not unknown:
        return
    declared: dict = {}
    modules = exp.get("report") or []
    for module in [modules] if isinstance(modules, str) else modules:
        try:
            declared.update(getattr(importlib.import_module(module), "OPTIONS", {}))
        except ImportError as exc:
            raise ConfigError(f"experiment.report: cannot import {module!r} ({exc})") from None
    for key in unknown:
        if key not in declared:
            valid = sorted({*ENGINE_OPTIONS, *declared, "<family>_max_train"})
            raise ConfigError(f"experiment.{key} is not a known experiment key; {did_you_mean(key, valid)}valid: "
                              f"{', '.join(valid)}")


def _check_options(options: dict) -> None:
    """Engine options of ``experiment.*`` with a known meaning; their types and ranges."""
    for key, value in options.items():
        where = f"experiment.{key}"
        if key == "svm_max_iter":
            if _check_value(value, where, "int") == 0 or value < -1:
                raise ConfigError(f"{where}={value} is invalid: a positive number of libsvm iterations, or -1 for no bound")
        elif key == "search_seed" and value is not None:
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError(f"{where}={value!r} is invalid: a seed is an integer >= 0 (or null: protocol.seed)")
        elif key.endswith("_max_train"):
            _check_value(value, where, "int", low=1)
        elif key in ("train_criteria", "snapshot", "cpu_time", "test_correct"):
            _check_value(value, where, "bool")
        elif key == "preprocessing" and value is not None:
            _check_value(value, where, "str", choices=("minmax", "standard", "none"))
        elif key == "categorical" and value is not None:
            _check_value(value, where, "str", choices=("onehot", "ordinal"))
        elif key in ("title", "store"):
            _check_value(value, where, "str")
        elif key == "cell_timeout" and value is not None:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ConfigError(f"{where}={value!r} is invalid: a number of seconds > 0 (or null for no bound)")
        elif key == "metrics":  # scikit-learn scorers: randml_core.metrics (names, columns, direction)
            from .metrics import check_scorers
            check_scorers(value, where)
        elif key == "search_seed_runs" and value is not None:
            if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
                raise ConfigError(f"{where}={value!r} is invalid: a list of experiment names (or null)")
        elif key == "frame_omit" and value is not None:
            from .options import OMITTABLE_HINT, omittable
            if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
                raise ConfigError(f"{where}={value!r} is invalid: a list of column names (or null)")
            bad = [v for v in value if not omittable(v)]
            if bad:
                raise ConfigError(f"{where}: {', '.join(map(repr, bad))} cannot be left out of a frame; {OMITTABLE_HINT}")
        elif key in ("report", "plugins"):
            items = [value] if isinstance(value, str) else value
            if not isinstance(items, list) or not all(isinstance(v, str) and v for v in items):
                raise ConfigError(f"{where}={value!r} is invalid: a module name or a list of module names")


def _check_param(estimator: type, params: dict, where: str) -> None:
    from .params import ParamError, check_params
    try:
        check_params(estimator, params, where)
    except ParamError as exc:
        raise ConfigError(str(exc)) from None


MODEL_KEYS = {"family": "a registered family (a benchmark's families.py, or the module named by plugin:)",
              "plugin": "the module (in your --config-dir) that registers this config's family: imported first",
              "estimator": "any scikit-learn-compatible estimator: {_target_: import.path, fixed args...}",
              "variants": "table columns: {NAME: {fixed params}} (default: one column named after the config)",
              "grid": "{param: [values]} searched for every variant",
              "quick": "{param: [values]} replacing grid axes under profile=quick",
              "per_dataset": "{DATASET: {param: [values]}} replacing grid axes on that dataset (e.g. the setting "
                             "another experiment selected there)",
              "search": "{kind: grid|random|halving|optuna, n, space: {param: {loguniform|uniform|int|choice: ...}}}"
                        " (randml_core/search.py)",
              "budget": "{settings: N} or {cpu_seconds: S}: the model's search budget per scope",
              "categorical": "onehot | ordinal | native: this model's encoding of a card's categorical columns "
                             "(default: experiment.categorical; native: codes to its categorical_features)"}


def _model_identity(m: dict, where: str) -> str:
    """A model config's family name, or its estimator's import path."""
    if not isinstance(m, dict):
        raise ConfigError(f"'{where[:-1]}' must be a model config (keys: {', '.join(MODEL_KEYS)}), got {m!r}")
    if "estimator" in m:
        node = m["estimator"]
        if not isinstance(node, dict) or not isinstance(node.get("_target_"), str):
            raise ConfigError(f"{where}estimator must name a class with _target_ (e.g. "
                              "sklearn.linear_model.LogisticRegression), got {node!r}")
        return node["_target_"]
    return _require(m, "family", where, str)


def model_config_names(models: dict, choices=None) -> dict[str, str]:
    """``{models.<key>: the name of its model config}``: the config that ``/model@models.<key>: NAME`` of the
    experiment's defaults chose (Hydra's ``choices``), else the key itself (a model written inline in the
    experiment, or a composition without Hydra's choices: the key is the config's name in the shipped configs)."""
    choices = choices or {}
    return {key: str(choices.get(f"model@models.{key}") or key) for key in models}


def _selected_models(cfg: dict, models: dict, choices=None) -> list[str]:
    """The keys of ``models`` that ``model=NAME`` selects: every model config of the experiment named NAME (by its
    name, not its estimator: two configs of one class are two models). Without Hydra's ``choices`` NAME is unknown
    (only the config's content is in ``cfg``): the configs of the same family or estimator class are selected, as
    before. A NAME that is no model config of the experiment is a ConfigError listing its model configs."""
    if not cfg.get("model"):
        return list(models)
    name = (choices or {}).get("model")
    if name is None:
        only = _model_identity(cfg["model"], "model.")
        keys = [k for k, m in models.items() if isinstance(m, dict) and _model_identity(m, f"models.{k}.") == only]
        if not keys:
            raise ConfigError(f"model={only!r} selects none of this experiment's models "
                              f"({', '.join(sorted(_model_identity(m, f'models.{k}.') for k, m in models.items()))})")
        return keys
    names = model_config_names(models, choices)
    keys = [k for k in models if names[k] == name]
    if not keys:
        known = sorted(set(names.values()))
        raise ConfigError(f"model={name!r} is not a model config of this experiment; {did_you_mean(name, known)}"
                          f"its model configs: {', '.join(known)} (fix: model=<one of them>, or no model= for all)")
    return keys


def _target_estimator(target: dict, key: str):
    """The estimator a model config's ``estimator:`` node builds (its ``_target_`` checked first, then built), with
    the node's own constructor arguments checked as a grid's values are."""
    from .family import target_family
    from .trust import check_target_node
    where = f"models.{key}."
    check_target_node(target, f"{where}estimator")  # configs are data: nothing is called before this
    try:
        estimator = target_family(target).estimator()
    except ConfigError as exc:  # it built something that is not an estimator
        raise ConfigError(f"models.{key}.{exc}") from None
    except Exception as exc:
        raise ConfigError(f"{where}estimator: cannot instantiate {target['_target_']!r} "
                          f"({type(exc).__name__}: {exc}); {target_hint(target['_target_'])}"
                          "fix: _target_ is the import path of a class or function") from None
    own = estimator.get_params(deep=False)
    _check_param(estimator, {k: v for k, v in target.items() if k in own and not isinstance(v, (dict, list))},
                 f"{where}estimator.")
    return estimator


def _model_variants(key: str, m: dict, profile: str, only: str | None) -> list[Variant]:
    """The variants of one model config ``models.<key>``, every value checked."""
    from .family import FAMILIES
    where = f"models.{key}."
    ident = _model_identity(m, where)
    unknown = sorted(set(m) - set(MODEL_KEYS))
    if unknown:
        raise ConfigError(f"{where}{unknown[0]} is not a model config key; {did_you_mean(unknown[0], MODEL_KEYS)}"
                          "valid: " + "; ".join(f"{k} ({v})" for k, v in MODEL_KEYS.items()))
    if "family" in m and "estimator" in m:
        raise ConfigError(f"{where}: give either family or estimator, not both")
    target = None
    if "estimator" in m:
        target = dict(m["estimator"])
        estimator = _target_estimator(target, key)
        label = target["_target_"]
    else:
        if ident not in FAMILIES:
            names = FAMILIES.all()
            missing = "".join(f"; not available here: {why}" for why in FAMILIES.unavailable.values())
            raise ConfigError(f"{where}family={ident!r} is unknown; {did_you_mean(ident, names)}"
                              f"known families: {', '.join(names)}{missing}")
        estimator = FAMILIES[ident].estimator()
        label = type(estimator).__name__
    if only is not None and ident != only:
        return []
    valid = {k for k in estimator.get_params(deep=True)
             if k != "random_state" and not k.endswith("__random_state")}
    grid = dict(m.get("grid") or {})
    quick = dict(m.get("quick") or {})
    for p in quick:
        if p not in grid:
            raise ConfigError(f"{where}quick.{p} replaces no axis of {where}grid (axes: {', '.join(grid) or 'none'})")
    for p, values in list(grid.items()):
        if p not in valid:
            raise ConfigError(f"{where}grid.{p} is not a parameter of {label}; "
                              f"{did_you_mean(p, valid)}valid: {', '.join(sorted(valid))}")
        grid[p] = _as_value_list(quick[p] if profile == "quick" and p in quick else values, f"{where}grid.{p}")
        for v in grid[p]:
            _check_param(estimator, {p: v}, f"{where}grid.")
    if m.get("per_dataset") is not None and m.get("search") is not None:
        raise ConfigError(f"{where}per_dataset replaces grid axes; this model has a search: block "
                          "(fix: drop one of the two)")
    per_dataset = _per_dataset(m.get("per_dataset"), grid, where)
    from .search import check_search
    search = check_search(m, where, grid, valid, _as_value_list,
                          lambda p, v: _check_param(estimator, {p: v}, f"{where}search.space."))
    if search is not None and search["kind"] == "grid":  # choice axes of search.space join the grid
        grid = {p: d["choice"] for p, d in search["space"].items()}
    for axes in (per_dataset or {}).values():
        for p, values in axes.items():
            for v in values:
                _check_param(estimator, {p: v}, f"{where}per_dataset.")
    from .preprocess import check_model_encoding
    try:
        categorical = check_model_encoding(m, estimator, where)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    variants = []
    for vname, fixed in (m["variants"] if m.get("variants") is not None else {key: {}}).items():
        if fixed is None:  # `VARIANT: null` in an experiment drops that variant of the family
            continue
        fixed = dict(fixed)
        for p in fixed:
            if p not in valid:
                raise ConfigError(f"{where}variants.{vname}.{p} is not a parameter of {label}; "
                                  f"{did_you_mean(p, valid)}valid: {', '.join(sorted(valid))}")
        _check_param(estimator, fixed, f"{where}variants.{vname}.")
        variants.append(Variant(vname, ident, fixed, grid, target, search, categorical, per_dataset))
    return variants


def _per_dataset(node, grid: dict, where: str) -> dict | None:
    """A model's ``per_dataset:`` block checked: {dataset: {axis of grid: [values]}}; the datasets are checked
    against the experiment's in :func:`_check_per_dataset`."""
    if node is None:
        return None
    if not isinstance(node, dict) or not node:
        raise ConfigError(f"{where}per_dataset must map dataset names to {{param: [values]}}, got {node!r}")
    out = {}
    for ds, axes in node.items():
        if not isinstance(axes, dict) or not axes:
            raise ConfigError(f"{where}per_dataset.{ds} must map grid axes to value lists, got {axes!r}")
        out[str(ds)] = {}
        for p, values in axes.items():
            if p not in grid:
                raise ConfigError(f"{where}per_dataset.{ds}.{p} replaces no axis of {where}grid "
                                  f"(axes: {', '.join(grid) or 'none'}); fix: add {p} to {where}grid")
            out[str(ds)][p] = _as_value_list(values, f"{where}per_dataset.{ds}.{p}")
    return out


def _check_per_dataset(variants, datasets) -> None:
    """Every dataset a ``per_dataset:`` block names is one of the experiment's (a misspelt one would be ignored)."""
    for v in variants:
        for ds in v.per_dataset or {}:
            if ds not in datasets:
                raise ConfigError(f"model {v.name!r}: per_dataset.{ds} names no dataset of this experiment; "
                                  f"{did_you_mean(ds, datasets)}its datasets: {', '.join(datasets)}")


def _checked_variants(key: str, m: dict, profile: str, only: str | None, memo: bool) -> tuple[list[Variant], dict]:
    """:func:`_model_variants`, remembered by :mod:`randml_core.checkmemo` for a paper's family not
    imported yet (``memo``: no ``experiment.plugins``) and for a ``_target_`` model whose packages are all
    installed distributions (their versions are in the memo's fingerprint; nothing of them is imported on a
    hit). Returns (variants, {family name or target key: version} of a memo hit)."""
    from . import checkmemo
    from .family import benchmark_family, is_registered, target_family, target_key
    ident = _model_identity(m, f"models.{key}.")
    target = dict(m["estimator"]) if "estimator" in m else None
    mkey = checkmemo.entry_key("model_variants", key, m, profile, only) if memo or target is not None else None
    if mkey and (target is not None or not is_registered(ident)):
        hit = checkmemo.get(mkey)
        if hit is not None:
            variants = [Variant(v["name"], v["family"], v["fixed"], v["grid"], target, v.get("search"),
                                v.get("categorical"), v.get("per_dataset"))
                        for v in hit["variants"]]
            return variants, {target_key(target) if target is not None else ident: hit["version"]}
    variants = _model_variants(key, m, profile, only)
    if target is not None:  # remembered only when every package it names is an installed distribution
        version = target_family(target).version
        remember = mkey is not None and "==unknown" not in version
    else:
        family = benchmark_family(ident) if mkey else None
        version, remember = (family.version if family is not None else None), family is not None
    if remember:
        checkmemo.put(mkey, {"variants": [{"name": v.name, "family": v.family, "fixed": v.fixed, "grid": v.grid,
                                           **({"search": v.search} if v.search is not None else {}),
                                           **({"categorical": v.categorical} if v.categorical is not None else {}),
                                           **({"per_dataset": v.per_dataset} if v.per_dataset is not None else {})}
                                          for v in variants], "version": version})
    return variants, {}


def apply_grid_overrides(cfg: dict, overrides) -> dict:
    """Under ``profile=quick`` a model's ``quick:`` axes replace its ``grid:`` axes; a command-line override of
    such a grid axis (``'models.lssvm.grid.C=[1.0,5.0]'``) would then be dropped without a word. Apply it to the
    quick axis too, so what the user typed is what runs. ``overrides``: Hydra's override strings."""
    if str((cfg.get("profile") or {}).get("name", "paper")) != "quick":
        return cfg
    import re
    for line in overrides or ():
        m = re.match(r"^\+{0,2}models\.([^.=]+)\.grid\.([^.=]+)=", str(line))
        model = (cfg.get("models") or {}).get(m.group(1)) if m else None
        if isinstance(model, dict) and m.group(2) in (model.get("quick") or {}):
            model["quick"][m.group(2)] = (model.get("grid") or {}).get(m.group(2))
    return cfg


def register_config_dirs(cfg: dict, config_dirs) -> None:
    """What a config's folders add to this process: a user's ``--config-dir`` importable (its plug-in modules) and
    the dataset cards ``cfg`` needs registered (ConfigError if a card clashes with one registered from elsewhere)."""
    if not config_dirs:
        return
    from .paths import user_config_dirs
    _importable(user_config_dirs(config_dirs))  # a user's --config-dir; the shipped dirs hold no module
    from .data.cards import CardError, datasets_of, register_cards
    try:
        register_cards(config_dirs, needed=datasets_of(cfg))  # a bad card of another experiment: a warning
    except CardError as exc:
        raise ConfigError(str(exc)) from None


def _datasets_of(cfg: dict, exp: dict) -> list[str]:
    """``experiment.datasets`` checked (names, known, each once), or the one ``dataset=NAME`` selects."""
    from .data import UnknownDatasetError, get_spec, list_datasets
    datasets = list(_require(exp, "datasets", "experiment.", list))
    twice = sorted({d for d in datasets if datasets.count(d) > 1}, key=str)
    if twice:
        raise ConfigError(f"experiment.datasets lists {', '.join(map(repr, twice))} more than once; "
                          "list each dataset once (its cells would be computed twice)")
    known = set(list_datasets())
    for ds in datasets:
        if not isinstance(ds, str):
            raise ConfigError(f"experiment.datasets must list dataset names, got {ds!r}")
        try:
            get_spec(ds)
        except UnknownDatasetError as exc:
            raise ConfigError(f"experiment.datasets: {exc}") from None
    if cfg.get("dataset"):
        only = _require(cfg["dataset"], "name", "dataset.", str)
        if only not in known:
            raise ConfigError(f"dataset.name={only!r} is unknown; {did_you_mean(only, known)}"
                              f"known: {', '.join(sorted(known))}")
        datasets = [only]
    return datasets


def _protocol_of(p: dict) -> Protocol:
    """The ``protocol:`` block checked: a known kind, integer counts and seed, a test fraction in (0, 1)."""
    kind = p.get("kind", "repeated_stratified_kfold")
    if kind not in KINDS:
        raise ConfigError(f"protocol.kind={kind!r} is unknown; {did_you_mean(kind, KINDS)}choose one of {KINDS}")
    ints = {}
    for k in ("n_splits", "repeats", "seed", "inner_splits"):
        v = p.get(k, Protocol.__dataclass_fields__[k].default)
        if isinstance(v, bool) or not isinstance(v, int):
            raise ConfigError(f"protocol.{k} must be an integer, got {v!r}")
        ints[k] = v
    if ints["inner_splits"] == 1 or ints["inner_splits"] < 0:
        raise ConfigError(f"protocol.inner_splits={ints['inner_splits']} is invalid: 0 (no nested CV) or >= 2 inner folds")
    if ints["seed"] < 0:
        raise ConfigError(f"protocol.seed={ints['seed']} is invalid: a seed is an integer >= 0")
    test_size = p.get("test_size", 0.4)
    if isinstance(test_size, bool) or not isinstance(test_size, (int, float)) or not 0 < test_size < 1:
        raise ConfigError(f"protocol.test_size={test_size!r} is invalid: the test fraction, strictly between 0 and 1")
    try:
        return Protocol(kind=kind, test_size=float(p.get("test_size", 0.4)), **ints)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def _columns_of(exp: dict, models: dict, variants: list) -> list[str]:
    """The table's column order: ``experiment.columns`` (each a variant some model config defines) among the
    selected variants, else the variants' order."""
    names = [v.name for v in variants]
    columns = list(exp.get("columns") or names)
    all_names = {n for k, m in models.items() for n, v in (m.get("variants") or {k: {}}).items() if v is not None}
    for c in columns:
        if c not in all_names:
            raise ConfigError(f"experiment.columns lists {c!r}, which no model variant defines; "
                              f"{did_you_mean(c, names)}variants: {', '.join(names)}")
    return [c for c in columns if c in names]


def build_spec(cfg: dict, config_dirs=None, choices=None) -> ExperimentSpec:
    """Validate a plain-dict config (``OmegaConf.to_container(cfg, resolve=True)``). ``config_dirs``: the
    config folders whose dataset cards define datasets (a user's ``--config-dir``, the engine's and the benchmarks'
    conf/: :mod:`randml_core.searchpath`). ``choices``: Hydra's config group choices of the composition
    (``HydraConfig.get().runtime.choices``, or ``hydra.runtime.choices`` of ``compose(return_hydra_config=True)``):
    ``model=NAME`` keeps the model configs named NAME (:func:`_selected_models`)."""
    register_config_dirs(cfg, config_dirs)
    check_runtime(cfg)
    exp = cfg.get("experiment")
    if not exp:
        raise ConfigError("no experiment selected: pass experiment=<name> (`randml --help` lists them)")
    name = _require(exp, "name", "experiment.", str)
    _check_name(name)
    if exp.get("store") is not None:
        _check_name(exp["store"], "experiment.store")
    _check_modules(exp, config_dirs)
    _check_known_keys(exp)
    _model_plugins(cfg, exp, config_dirs)
    for module in exp.get("plugins") or []:  # a user's benchmark: its module, or its package's members
        try:
            load_package(module)
        except ImportError as exc:
            raise ConfigError(f"experiment.plugins: cannot import {module!r} ({exc})") from None
    datasets = _datasets_of(cfg, exp)

    models = cfg.get("models") or {}
    if not isinstance(models, dict) or not models:
        raise ConfigError("the experiment lists no models: its defaults need entries like '/model@models.NAME: NAME' (a model config in model/)")
    selected = _selected_models(cfg, models, choices)
    profile = cfg.get("profile") or {}
    if set(profile) - {"name"}:
        raise ConfigError(f"profile.{sorted(set(profile) - {'name'})[0]} is not a profile key (a profile has only a "
                          "name; grid axes for profile=quick go in each model config's `quick:` block)")
    profile_name = str(profile.get("name", "paper"))
    variants, versions = [], {}
    for key, m in models.items():
        if key not in selected:
            _model_identity(m, f"models.{key}.")  # a model config, even when model= leaves it out
            continue
        found, known = _checked_variants(key, m, profile_name, None, memo=not exp.get("plugins"))
        variants += found
        versions.update(known)
    if not variants:
        asked = cfg.get("model") and ((choices or {}).get("model") or _model_identity(cfg["model"], "model."))
        which = f"the model configs that model={asked} selects" if asked else "every model config of the experiment"
        raise ConfigError(f"{which} drop all their variants (`VARIANT: null`); fix: keep a variant, or select "
                          "another model config")

    protocol = _protocol_of(cfg.get("protocol") or {})
    options = {k: v for k, v in exp.items() if k not in ("name", "paper", "datasets", "columns", "store")}
    _check_options(options)
    metrics = (cfg.get("report") or {}).get("metrics")
    if metrics is not None:
        from .metrics import check_report_metrics  # built-in metrics and the scorers of experiment.metrics
        options["report_metrics"] = check_report_metrics(metrics, options.get("metrics"))
    columns = _columns_of(exp, models, variants)
    try:
        duplicates_of(options)  # experiment.duplicates: keep (default) | drop | group
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    _check_per_dataset(variants, datasets)
    _check_bounds(variants, protocol, len(datasets), options)
    return ExperimentSpec(name, str(exp.get("paper", "")), datasets, variants, protocol, options,
                          profile_name, columns, str(exp.get("store") or name), versions)
