"""Load stored results as pandas frames (for notebooks and reports).

``load("mine")`` returns the rows the report tables are built from, and only those: outer
folds (``inner_fold == -1``), status ``ok``, and cells of the experiment's *current* config (the
keys :func:`randml_core.planning.make_plan` gives for the experiment as composed from ``conf/``, the
same selection ``randml report`` makes). Averaging such a frame over folds gives the numbers of the
tables; inner folds, failed / skipped cells and cells of other configs (a quick run, another seed,
a changed grid) are there only when asked for. ``best`` applies the tables' selection rules.

The store is ``store_dir`` if given, else the CLI's default (:func:`randml_core.paths.default_store`:
``$RANDML_STORE``, else ``results/store`` under the current working directory), so ``randml run`` and
``load()`` in the same folder read the same store.

A frame with fewer of the plan's cells than planned warns once (:class:`IncompleteResultsWarning`,
naming the counts and the ``randml run`` command that fills the rest) and carries
``attrs['complete'] = False``; :func:`best` marks each (dataset, model) entry ``complete`` or not.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import warnings
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .paths import default_store, describe_default_store
from .planned import PLANNED_COLUMNS, planned_cells  # noqa: F401  (re-exported: load(), notebooks)
from .provenance import REPO_ROOT
from .rows import current_rows  # noqa: F401  (re-exported: load() and notebooks)
from .store import Store, store_of

#: metrics where lower is better (``best`` minimises them); every other metric is maximised
LOWER_IS_BETTER = ("rmse", "mae", "log_loss")
RULES = ("best_mean", "nested")


class ResultsError(LookupError):
    """The results asked for cannot be given (unknown experiment, empty store, no such value)."""


class IncompleteResultsWarning(UserWarning):
    """The results hold fewer cells than the config plans (a partial or failed run, a dataset not available):
    their means are not the experiment's numbers. ``frame.attrs['complete']`` / ``best()['complete']`` say so too."""


#: the refusal of ``rule='nested'`` where no inner fold is stored (best() and ``randml compare`` alike)
NESTED_NEEDS_INNER = ("rule='nested' selects on inner folds, and {what} has none: {fix} "
                      "(the experiment needs protocol.inner_splits > 0)")


def conf_dir() -> Path:
    """The Hydra config directory the CLI uses (``$RANDML_CONF`` or the project's ``conf/``)."""
    from .paths import conf_dir as primary
    return primary()


def experiments(config_dir: str | os.PathLike | None = None) -> list[str]:
    """The experiment names of the engine's and every installed benchmark's ``conf/experiment/*.yaml`` (and of
    ``config_dir``'s, a user's own)."""
    from .paths import shipped_config_dirs
    dirs = ([Path(config_dir)] if config_dir is not None else []) + shipped_config_dirs()
    return sorted({p.stem for d in dirs for p in (d / "experiment").glob("*.yaml")})


def store_root(store_dir: str | os.PathLike | None = None) -> Path:
    """``store_dir`` if given, else the CLI's default store (:func:`randml_core.paths.default_store`:
    ``$RANDML_STORE``, else ``./results/store`` of the current working directory)."""
    return Path(store_dir) if store_dir is not None else default_store()


def compose_spec(experiment: str, overrides=(), config_dir: str | os.PathLike | None = None):
    """The validated :class:`~randml_core.config.ExperimentSpec` of ``experiment`` as composed from
    the shipped configs with Hydra ``overrides`` (e.g. ``["profile=quick", "protocol.repeats=3"]``); ``config_dir``
    adds a user's own config folder (experiment/, model/, dataset/), like ``randml --config-dir``: the primary
    config dir, whose configs take precedence (:mod:`randml_core.searchpath`)."""
    import copy
    if isinstance(overrides, str):
        raise TypeError(f"overrides must be a list of Hydra overrides, got the string {overrides!r}; "
                        f"write overrides=[{overrides!r}]")
    _check_known(experiment, config_dir)
    key = (experiment, tuple(map(str, overrides)), str(Path(config_dir).resolve()) if config_dir is not None else None,
           tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith("RANDML_"))))
    cached = _COMPOSED.get(key)
    if cached is not None and cached[0] == _yaml_fingerprint(cached[1]):
        from .config import register_config_dirs
        register_config_dirs(cached[3], cached[1])  # the cards again: another config may have replaced them since
        return copy.deepcopy(cached[2])
    spec, dirs, container = _compose(experiment, overrides, config_dir)
    _COMPOSED[key] = (_yaml_fingerprint(dirs), dirs, copy.deepcopy(spec), container)
    return spec


#: compose_spec's memo: (experiment, overrides, config dir, $RANDML_*) -> (YAML fingerprint, config dirs, spec, the
#: composed dict). Hydra's
#: compose took half of a load() (0.26 s of 0.54 on the largest committed frame); a notebook calls load() again and again.
_COMPOSED: dict = {}


def _yaml_fingerprint(dirs) -> str:
    """SHA-256 over the path and bytes of every YAML file under the config dirs (about 5 ms for the 145 shipped
    ones): a file edited, added or removed there (a shadowing config included) changes it, and compose_spec
    composes again. Contents, not modification times: an edit within the file system's clock tick is seen too."""
    import hashlib
    h = hashlib.sha256()
    for d in dirs:
        for root, subdirs, files in os.walk(d):
            subdirs.sort()
            for name in sorted(files):
                if name.endswith((".yaml", ".yml")):
                    path = os.path.join(root, name)
                    try:
                        with open(path, "rb") as fh:
                            data = fh.read()
                    except OSError:
                        data = b"\0unreadable"
                    h.update(f"{path}\0{len(data)}\0".encode())
                    h.update(data)
    return h.hexdigest()


def _compose(experiment: str, overrides, config_dir):
    """(spec, the file config dirs in search order, the composed dict) of :func:`compose_spec`, by Hydra."""
    import copy

    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from omegaconf import OmegaConf, open_dict

    from .config import build_spec
    gh = GlobalHydra.instance()
    outer = gh.hydra if gh.is_initialized() else None  # called inside a Hydra app: compose beside it
    gh.clear()
    try:
        with warnings.catch_warnings():
            # hydra-core 1.4 (constraints.txt) deprecates version_base; "1.3" keeps the configs' behaviour
            warnings.filterwarnings("ignore", message="The version_base parameter is deprecated")
            primary = Path(config_dir).resolve() if config_dir is not None else conf_dir()
            initialize = initialize_config_dir(config_dir=str(primary), version_base="1.3")
        with initialize:
            cfg = compose(config_name="config", overrides=[f"experiment={experiment}", *overrides],
                          return_hydra_config=True)
            choices = dict(cfg.hydra.runtime.choices)  # model=NAME selects the model configs named NAME
            with open_dict(cfg):
                del cfg["hydra"]
            # the file config dirs in search order: the primary, the engine's conf/, the benchmarks'
            dirs = [Path(src.path).resolve() for src in GlobalHydra.instance().config_loader().get_sources()
                    if src.scheme() == "file" and src.path]
    finally:
        if outer is not None:
            GlobalHydra.instance().clear()
            GlobalHydra.instance().initialize(outer)
    container = OmegaConf.to_container(cfg, resolve=True)
    return build_spec(copy.deepcopy(container), config_dirs=dirs, choices=choices), dirs, container


@dataclass(frozen=True)
class Completeness:
    """How many of a plan's cells a store holds.

    planned: every cell of the config (each setting x repeat x outer fold, and each inner fold of nested
    CV) on the datasets available here; a dataset that needs a download has no planned cells and is
    listed in ``unavailable`` instead. stored: a planned cell with a stored row of any status. failed:
    stored with a status other than ``ok`` or ``skipped`` (skipped = not run by a rule of the experiment,
    a final outcome). Complete: nothing missing, nothing failed, no dataset unavailable."""
    n_planned: int
    n_stored: int
    n_failed: int
    unavailable: tuple = ()
    n_unscored: int = 0  # stored ok, but lacking a scorer of experiment.metrics: `randml run` computes them again

    @property
    def n_missing(self) -> int:
        return self.n_planned - self.n_stored

    @property
    def complete(self) -> bool:
        return self.n_missing == 0 and self.n_failed == 0 and self.n_unscored == 0 and not self.unavailable

    def message(self, label: str, where, command: str, scope: str = "", flag: str = "attrs['complete'] is False"
                ) -> str:
        """The warning: counts, what they count, and the commands that fill the rest ("" when complete)."""
        if self.complete:
            return ""
        text = (f"{label}: {self.n_stored} of {self.n_planned} planned cells{scope} stored in {where} "
                f"({self.n_missing} missing, {self.n_failed} failed; planned = every setting x outer and inner fold "
                "of the config on the datasets available here, stored = a row of any status, failed = stored with "
                f"an error). These results are incomplete ({flag}): their means are not the experiment's numbers.")
        if self.n_unscored:
            text += (f" {self.n_unscored} stored cell(s) lack a scorer of experiment.metrics (their column is NaN): "
                     "`randml run` with this config computes them again.")
        todo = []
        if self.n_unscored and not self.n_missing:
            todo.append(f"score them with: {command}")
        if self.n_missing:
            todo.append(f"fill the missing cells with: {command}")
        if self.n_failed:
            todo.append(f"recompute the failed ones with: {command} retry_failed=true")
        if self.unavailable:
            names = " ".join(self.unavailable)
            todo.append(f"dataset(s) {names}, not counted above, are not available here without a download (no "
                        f"cells planned, no rows here): randml data fetch {names}")
        return text + " To complete them: " + "; ".join(todo) + "."


def completeness(planned: pd.DataFrame, stored: pd.DataFrame, unavailable=(), unscored=frozenset()) -> Completeness:
    """:class:`Completeness` of the ``planned`` cells (:func:`planned_cells`) given the ``stored`` rows
    (columns key and status; rows of other keys are ignored); ``unscored``: keys of stored cells that lack a scorer
    of ``experiment.metrics`` (:func:`randml_core.planning.lacking_scorers`: the same rule ``randml run`` uses)."""
    # Arrow's hash lookups (pandas' duplicated / map on Arrow-backed strings took ~1 s at 94k keys, a dict 0.35 s
    # at 376k): each planned key's last stored row, found as the first in the reversed rows
    import pyarrow as pa
    import pyarrow.compute as pc
    keys = pc.unique(pa.array(planned["key"], type=pa.string(), from_pandas=True))
    n_failed = n_stored = 0
    if len(stored) and len(keys):
        where = pc.index_in(keys, value_set=pa.array(stored["key"], type=pa.string(), from_pandas=True)[::-1])
        found = where.drop_null()
        statuses = pa.array(stored["status"], type=pa.string(), from_pandas=True)[::-1].take(found)
        n_stored = len(found)
        n_failed = n_stored - int(pc.sum(pc.is_in(statuses, value_set=pa.array(["ok", "skipped"]))).as_py() or 0)
    n_unscored = int(pc.sum(pc.is_in(keys, value_set=pa.array(sorted(unscored), pa.string()))).as_py() or 0) \
        if unscored else 0
    return Completeness(len(keys), n_stored, n_failed, tuple(unavailable), n_unscored)


def fill_command(experiment: str, overrides=(), config_dir=None, store_dir=None) -> str:
    """The ``randml run`` command that computes the missing cells of what ``load`` was asked for
    (the same overrides and config folder; ``store_dir=`` only when one was passed explicitly)."""
    parts = ["randml", "run"] + (["--config-dir", str(config_dir)] if config_dir is not None else [])
    parts += [f"experiment={experiment}", *overrides] + ([f"store_dir={store_dir}"] if store_dir is not None else [])
    return " ".join(shlex.quote(str(x)) for x in parts)


def planned_shape(planned: pd.DataFrame) -> tuple[dict, dict]:
    """What :func:`best` expects, JSON-able for ``frame.attrs``: ``{dataset: outer folds}`` (repeats x folds)
    and ``{dataset: {model: [planned outer cells, planned inner cells]}}``."""
    outer = planned["inner_fold"] < 0
    splits = planned.loc[outer, ["dataset", "repeat", "fold"]].drop_duplicates()  # one drop, not one per dataset
    folds = {str(d): int(n) for d, n in splits.groupby("dataset").size().items()}
    counts = (planned[["dataset", "model"]].assign(outer=outer.to_numpy())
              .groupby(["dataset", "model", "outer"], sort=False).size())
    cells: dict = {}
    for (d, m, is_outer), n in counts.items():
        cells.setdefault(str(d), {}).setdefault(str(m), [0, 0])[0 if is_outer else 1] = int(n)
    return folds, cells


_SHAPES: dict = {}  # a memo plan's parts -> planned_shape of its planned cells (the last 8)


def _planned_shape_of(plan, planned: pd.DataFrame, filters: dict) -> tuple[dict, dict]:
    """:func:`planned_shape` of the planned cells ``filters`` keep; unfiltered, remembered per plan-memo parts (the
    same parts: the same cells, so the same shape), a repeated ``load()`` then groups no planned cell again."""
    if filters or plan is None or plan.memo_parts is None:
        return planned_shape(_within(planned, filters))
    key = tuple(plan.memo_parts)  # memo entries hash by identity, and the key holds them: an id is not reused
    if key not in _SHAPES:
        while len(_SHAPES) >= 8:
            del _SHAPES[next(iter(_SHAPES))]
        _SHAPES[key] = planned_shape(planned)
    folds, cells = _SHAPES[key]
    return dict(folds), {d: {m: list(n) for m, n in by.items()} for d, by in cells.items()}  # the caller's to change


_SHOWN_WARNINGS: set[tuple[type, str]] = set()  # (category, message) of the warnings load() has shown


def _once_per_message(fn):
    """Call ``fn``; each warning it raises (duplicated rows, constant features, a dataset that differs from
    its card, ...) is shown the first time only, so a notebook that calls load() again and again does not
    repeat them. Python's own once-per-location rule cannot do it: load() resets the filters on every call."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    for w in caught:
        if (w.category, str(w.message)) in _SHOWN_WARNINGS:
            continue
        _SHOWN_WARNINGS.add((w.category, str(w.message)))
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return out


def _warn_once(message: str, category: type, stacklevel: int = 3) -> None:
    """``warnings.warn`` the first time this (category, message) comes up in the process only."""
    if (category, message) in _SHOWN_WARNINGS:
        return
    _SHOWN_WARNINGS.add((category, message))
    warnings.warn(message, category, stacklevel=stacklevel)


def _default_rows(frame: pd.DataFrame, filters: dict, include_inner: bool, include_failed: bool) -> pd.DataFrame:
    """load()'s defaults: outer folds and ``ok`` rows unless asked otherwise (or filtered on); ``attrs`` say what was
    dropped (n_rows_before_defaults, n_not_ok_dropped, n_failed_dropped, skipped_entries)."""
    n_rows = len(frame)
    if "inner_fold" not in filters and not include_inner and "inner_fold" in frame.columns:
        frame = frame[frame["inner_fold"] == -1]
    n_not_ok = int((frame["status"] != "ok").sum()) if "status" in frame.columns else 0
    n_failed_rows = int((~frame["status"].isin(["ok", "skipped"])).sum()) if "status" in frame.columns else 0
    skipped_entries = []
    if "status" not in filters and not include_failed and "status" in frame.columns:
        skipped = frame["status"].eq("skipped")
        if skipped.any():  # (dataset, model) entries whose every cell is skipped by rule; no Python per group
            every = skipped.groupby([frame["dataset"], frame["model"]]).all()
            skipped_entries = sorted(map(list, every[every].index))
        ok = frame["status"] == "ok"
        if not ok.all():
            frame = frame[ok]
    frame = frame.reset_index(drop=True)  # already in Store.read's ROW_ORDER: dataset, model, params_json, repeat, fold, ...
    frame.attrs.update(n_rows_before_defaults=n_rows,
                       n_not_ok_dropped=n_not_ok - int((frame["status"] != "ok").sum()) if "status" in frame else 0,
                       n_failed_dropped=n_failed_rows - int((~frame["status"].isin(["ok", "skipped"])).sum())
                       if "status" in frame else 0, skipped_entries=skipped_entries)
    return frame


def load(experiment: str, *, store_dir: str | os.PathLike | None = None, overrides=(),
         include_inner: bool = False, include_failed: bool = False, all_configs: bool = False,
         config_dir: str | os.PathLike | None = None, **filters) -> pd.DataFrame:
    """Stored rows of ``experiment``, one per cell, as the report tables see them.

    Default: outer folds, status ``ok``, cells of the current config (``experiment/<name>.yaml`` of a config dir
    with Hydra ``overrides``). ``include_inner=True`` adds the nested inner-fold rows (needed by
    ``best(..., rule="nested")``), ``include_failed=True`` the failed and skipped rows,
    ``all_configs=True`` every stored row of the experiment's store, whatever config made it
    (then ``experiment`` may also name a store directory without a config). A filter on
    ``inner_fold`` or ``status`` replaces the corresponding default.

    ``filters`` select by column equality, a list meaning "any of":
    ``load("mine", dataset="heart", model=["LogReg", "kNN"])``; a value that no row of
    the experiment has raises (with the values it has) instead of giving an empty frame.
    ``config_dir``: a user's own config folder (as ``randml run --config-dir DIR``).

    The store: ``store_dir``, else the CLI's default (:func:`randml_core.paths.default_store`: ``$RANDML_STORE``,
    else ``./results/store`` of the working directory). Fewer stored cells than the config plans (within
    the filters on dataset, model, params_json, repeat, fold, inner_fold) warn once with
    :class:`IncompleteResultsWarning` (counts, and the ``randml run`` command that fills the rest);
    ``attrs['complete']`` is False then (None with ``all_configs=True``: rows of any config), and
    ``attrs`` also carry n_planned, n_stored, n_missing, n_failed, unavailable, fill_command and the
    plan's shape (planned_folds, planned_cells) that :func:`best` checks entries against.
    """
    root = store_root(store_dir)
    known = experiments(config_dir)
    if experiment in known:
        spec = compose_spec(experiment, overrides, config_dir)
        store = store_of(spec, root)
    elif all_configs and (root / experiment).is_dir():
        spec, store = None, Store(root, experiment)
    else:
        _check_known(experiment, config_dir)
    command = fill_command(experiment, overrides, config_dir, store_dir)
    if not store.has_rows():
        where = "store_dir argument" if store_dir is not None else describe_default_store()
        target = make_target(experiment)
        raise ResultsError(
            f"no stored results for experiment {experiment!r}: {store.dir.resolve()} has no part files "
            f"(store root {root} from the {where}). Fill it with `{command}`"
            + (f" (or `make {target}`)" if target else "")
            + ", or point load() at another store with store_dir=... or $RANDML_STORE.")
    planned = plan = None
    if all_configs:
        frame, n_planned = store.read(), None
    else:
        frame, plan, keys = _once_per_message(lambda: current_rows(spec, root, key_set=False))
        n_planned = len(keys) if isinstance(keys, set) else plan.n_keys()
        if frame.empty:
            n_stored = len(store.read(columns=["key"], ordered=False))
            raise ResultsError(
                f"{store.dir} holds {n_stored} rows, but none belongs to the current config of {experiment!r} "
                f"(experiment/{experiment}.yaml with overrides {list(overrides)}, {n_planned} planned cells). "
                "Pass the overrides the run used (e.g. overrides=['profile=quick']), or all_configs=True "
                "for every stored row.")
        planned = planned_cells(plan)
    stored = frame  # every stored row of the config: what is done, whatever the filters keep
    for col, value in filters.items():
        frame = _filter(frame, col, value, experiment)
    done = _load_completeness(stored, planned, plan, filters, n_planned) if planned is not None else None
    frame = _default_rows(frame, filters, include_inner, include_failed)
    frame.attrs.update(experiment=experiment, store=str(store.dir), overrides=list(overrides),
                       include_inner=include_inner or "inner_fold" in filters,
                       include_failed=include_failed or "status" in filters, all_configs=all_configs,
                       n_planned=n_planned, fill_command=command, complete=None if done is None else done.complete)
    if done is not None:  # best()'s entries: the planned (dataset, model) the dataset / model filters keep
        folds, cells = _planned_shape_of(plan, planned, {c: v for c, v in filters.items() if c in ("dataset", "model")})
        frame.attrs.update(n_planned=done.n_planned, n_stored=done.n_stored, n_missing=done.n_missing,
                           n_failed=done.n_failed, unavailable=list(done.unavailable),
                           planned_folds=folds, planned_cells=cells)
        scope = (" (within " + ", ".join(f"{c}={v!r}" for c, v in filters.items() if c in PLANNED_COLUMNS) + ")"
                 if any(c in PLANNED_COLUMNS for c in filters) else "")
        if not done.complete:
            _warn_once(done.message(f"load({experiment!r})", store.dir, command, scope), IncompleteResultsWarning)
    return frame


def _listed(value) -> list:
    return list(value) if isinstance(value, (list, tuple, set)) else [value]


def _within(planned: pd.DataFrame, filters: dict) -> pd.DataFrame:
    """The planned cells that ``filters`` (those on planned columns) select."""
    for col, value in filters.items():
        if col in PLANNED_COLUMNS:
            planned = planned[planned[col].isin(_listed(value))]
    return planned


def _load_completeness(frame: pd.DataFrame, planned: pd.DataFrame, plan, filters: dict,
                       n_planned: int | None = None) -> Completeness:
    """Completeness of the planned cells that ``filters`` select (those on planned columns) given the stored
    rows ``frame`` (every stored row of the config, any fold and status: one per key); ``n_planned``: the number of
    distinct planned keys, when known."""
    from .planning import lacking_scorers
    wanted = _listed(filters["dataset"]) if "dataset" in filters else None
    unavailable = [d for d in plan.unavailable if wanted is None or d in wanted]
    unscored = lacking_scorers(frame, plan.spec, plan) if "dataset" in frame.columns else set()
    if n_planned is not None and not any(c in PLANNED_COLUMNS for c in filters):
        # every planned cell counts and ``frame`` holds one row per stored planned key (Store.read(keys=...)
        # deduplicates): the counts without a hash join
        status = frame["status"] if len(frame) else pd.Series([], dtype=object)
        n_failed = int((~status.isin(["ok", "skipped"])).sum())
        return Completeness(n_planned, len(frame), n_failed, tuple(unavailable), len(unscored))
    return completeness(_within(planned, filters), frame, unavailable, unscored)


def default_metric(frame: pd.DataFrame) -> str:
    """``rmse`` when every dataset of ``frame`` is a regression set, else ``gmean`` (as ``randml compare``). A
    dataset's task is its registered one; an unregistered dataset's is read from its rows (RMSE values and no
    GMean value: regression)."""
    from .data import UnknownDatasetError, get_spec

    def regression(name, rows) -> bool:
        try:
            return get_spec(name).task == "regression"
        except UnknownDatasetError:
            has = lambda c: c in rows.columns and rows[c].notna().any()  # noqa: E731
            return has("rmse") and not has("gmean")
    groups = frame.groupby("dataset", sort=False) if "dataset" in frame.columns and len(frame) else []
    tasks = [regression(name, rows) for name, rows in groups]
    return "rmse" if tasks and all(tasks) else "gmean"


def best(frame: pd.DataFrame, rule: str = "best_mean", metric: str | None = None) -> pd.DataFrame:
    """The cells of the report tables: per (dataset, model) the selected setting with the mean, std
    and number of its outer folds, by the same functions the tables use.

    ``rule="best_mean"``: the setting with the best mean outer-fold ``metric`` (the rule several
    papers report, optimistic; :func:`randml_core.report.tables.select_best`). ``rule="nested"``: per outer fold the
    setting with the best mean over that fold's inner folds, scored on the outer fold
    (:func:`~randml_core.report.tables.select_nested`; needs ``load(..., include_inner=True)``).
    RMSE, MAE and log loss are minimised, every other metric maximised, except a scikit-learn scorer of
    ``experiment.metrics`` (by its name or stored column: ``f1_macro``, ``neg_mean_absolute_error`` or
    ``mean_absolute_error``), which goes the way its sign says (:mod:`randml_core.metrics`). ``metric=None`` (the
    default): RMSE when every dataset of the frame is a regression set, else GMean (:func:`default_metric`, as
    ``randml compare``).

    Two more columns say whether an entry is the table's number: ``n_expected``, the outer folds the
    protocol plans (repeats x folds) and ``complete``. An entry is complete when every cell its rule reads
    is in the frame (best_mean: every setting's outer folds; nested: every inner fold of every setting, and
    the outer fold at each pick) and its mean is over ``n_expected`` folds without a failed one; an entry
    skipped by rule is complete once all its cells are stored. The plan comes from ``load()``'s attrs
    (else from the frame itself: the folds and settings any row of the dataset has). A (dataset, model) of
    the plan with no row at all (its dataset and model being in the frame) gets an entry with no mean.
    Incomplete entries are kept, and one :class:`IncompleteResultsWarning` lists them.
    """
    from .report.tables import SUMMARY_COLUMNS, select_best, select_nested
    if rule not in RULES:
        raise ValueError(f"rule={rule!r} is unknown; choose one of {', '.join(RULES)}")
    from .metrics import find_scorer, metric_column, scorer_direction, unscored
    asked = default_metric(frame) if metric is None else metric
    metric = asked if asked in frame.columns else metric_column(asked)  # a scorer's name -> its column
    if metric not in frame.columns:
        numeric = [c for c in frame.columns if pd.api.types.is_float_dtype(frame[c])]
        fix = (f"; {asked!r} is a scikit-learn scorer: list it in experiment.metrics and `randml run` computes it "
               "for the stored cells" if find_scorer(asked) is not None else "")
        raise KeyError(f"metric={asked!r} is not a column of this frame; numeric columns: {', '.join(numeric)}{fix}")
    dropped = frame.attrs.get("n_failed_dropped", frame.attrs.get("n_not_ok_dropped", 0))
    if dropped:  # cells skipped by rule are a final outcome (their entries say skipped); failed ones change the pick
        raise ValueError(f"this frame left out {dropped} failed cells, which the tables' rule counts (a setting with "
                         "a failed fold is not eligible): load it with include_failed=True")
    if rule == "nested" and not ("inner_fold" in frame.columns and (frame["inner_fold"] >= 0).any()):
        raise ValueError(NESTED_NEEDS_INNER.format(what="this frame", fix="load it with include_inner=True"))
    frame = _scored_by(frame, metric)
    lacking = unscored(frame, metric)
    if lacking:  # stored before the scorer was listed: a mean over the other folds is not the table's number
        raise ValueError(f"{lacking} ok row(s) of this frame were stored before {metric!r} was listed in "
                         f"experiment.metrics and lack it; fix: {frame.attrs.get('fill_command') or 'randml run'} "
                         f"with it listed (the run computes those cells again), then load() again")
    lower = metric in LOWER_IS_BETTER or scorer_direction(metric) is False
    scored = frame.assign(**{metric: -frame[metric]}) if lower else frame
    out = (select_best if rule == "best_mean" else select_nested)(scored, metric)
    if lower:
        out["mean"] = -out["mean"]
    out = out[SUMMARY_COLUMNS].copy()
    out.loc[out["skipped"].astype(bool), "n_failed"] = 0  # skipped by rule is not failed
    out, why = _mark_complete(frame, out, rule, metric)
    if why:
        warnings.warn(_incomplete_entries(why, rule, out, frame.attrs), IncompleteResultsWarning, stacklevel=2)
    return out.assign(rule=rule, metric=metric)


def _expected(frame: pd.DataFrame) -> tuple[dict, dict]:
    """``({dataset: outer folds}, {dataset: {model: [outer cells, inner cells]}})`` the plan has: from ``load()``'s
    attrs, else from the frame (per dataset the (repeat, fold) pairs and inner folds of any row, per (dataset,
    model) its settings times those)."""
    folds, cells = frame.attrs.get("planned_folds"), frame.attrs.get("planned_cells")
    if folds is not None and cells is not None:
        return folds, cells
    has_inner = "inner_fold" in frame.columns
    folds, cells = {}, {}
    split = [c for c in ("repeat", "fold") if c in frame.columns]
    for d, g in frame.groupby("dataset", sort=False):
        outer = g[g["inner_fold"] < 0] if has_inner else g
        n_folds = (len(g[split].drop_duplicates()) if split else
                   int(outer.groupby(["model", "params_json"]).size().max()) if len(outer) else 0)
        n_inner = int(g.loc[g["inner_fold"] >= 0, "inner_fold"].nunique()) if has_inner else 0
        folds[d] = n_folds
        for m, n_settings in g.groupby("model", sort=False)["params_json"].nunique().items():
            cells.setdefault(d, {})[m] = [n_settings * n_folds, n_settings * n_folds * n_inner]
    return folds, cells


def _mark_complete(frame: pd.DataFrame, out: pd.DataFrame, rule: str, metric: str
                   ) -> tuple[pd.DataFrame, list[str]]:
    """``out`` (one row per (dataset, model)) with ``n_expected`` and ``complete`` (see :func:`best`), plus an
    entry without a mean for each planned (dataset, model) of the frame's datasets and models with no row;
    and one "dataset / model: why" per incomplete entry."""
    folds, cells = _expected(frame)
    cells = {d: by_model for d, by_model in cells.items() if _fits(metric, d)}  # the sets this metric scores
    inner = frame["inner_fold"] >= 0 if "inner_fold" in frame.columns else pd.Series(False, index=frame.index)
    stored = {"outer": frame[~inner].groupby(["dataset", "model"]).size(),
              "inner": frame[inner].groupby(["dataset", "model"]).size()}
    datasets, models = set(frame["dataset"]), set(frame["model"])
    have = set(zip(out["dataset"], out["model"]))
    skipped = {tuple(e) for e in frame.attrs.get("skipped_entries") or ()}  # every cell skipped by rule (load())
    absent = [(d, m) for d in cells for m in cells[d] if (d, m) not in have
              and ((d in datasets and m in models) or (d, m) in skipped)]
    elsewhere = [f"{d} / {m}" for d in cells for m in cells[d]
                 if (d not in datasets or m not in models) and (d, m) not in skipped]
    if absent:
        empty = pd.DataFrame([{"dataset": d, "model": m, "mean": float("nan"), "std": float("nan"), "n_folds": 0,
                               "n_failed": 0, "n_bounded": 0, "params_json": None, "skipped": (d, m) in skipped}
                              for d, m in absent])
        out = pd.concat([out, empty[out.columns]], ignore_index=True)
    n_expected, complete, why = [], [], []
    for r in out.itertuples(index=False):
        want = folds.get(r.dataset)
        planned = dict(zip(("outer", "inner"), cells.get(r.dataset, {}).get(r.model, [None, None])))
        reads = ["inner"] if rule == "nested" else ["outer"]  # nested reads the outer folds at its picks only
        short = [] if (r.dataset, r.model) in skipped else [
            f"{stored[k].get((r.dataset, r.model), 0)} of {planned[k]} planned {k}-fold cells stored"
            for k in reads if planned[k] is None or stored[k].get((r.dataset, r.model), 0) < planned[k]]
        if not r.skipped and (want is None or r.n_folds != want or r.n_failed):
            short.insert(0, f"{r.n_folds} of {want if want is not None else '?'} outer folds at the pick"
                         + (f", {r.n_failed} failed" if r.n_failed else ""))
        n_expected.append(want if want is not None else 0)
        complete.append(not short)
        if short:
            why.append(f"{r.dataset} / {r.model}: " + ", ".join(short))
    if elsewhere:  # no entry: their dataset or model has no row in this frame (not run, or filtered out)
        why.append(f"no entry for {len(elsewhere)} planned (dataset, model) with no row in this frame: "
                   + ", ".join(elsewhere[:6]) + (" ..." if len(elsewhere) > 6 else ""))
    unavailable = [d for d in frame.attrs.get("unavailable") or () if _fits(metric, d)]
    if unavailable:
        why.append("no entry for the dataset(s) not available here without a download: " + ", ".join(unavailable))
    return out.assign(n_expected=pd.array(n_expected, dtype="int64"), complete=complete), why


def _incomplete_entries(why: list[str], rule: str, out: pd.DataFrame, attrs: dict) -> str:
    """The warning of :func:`best`: which entries are incomplete or absent and why, and the command that fills them."""
    more = f"; ... {len(why) - 8} more" if len(why) > 8 else ""
    fill = attrs.get("fill_command")
    n_bad = int((~out["complete"]).sum())
    head = (f"{n_bad} of {len(out)} (dataset, model) entries are incomplete (column complete=False: a fold or a "
            "setting the rule reads is missing or failed, so the mean is not the table's number)" if n_bad else
            f"all {len(out)} entries are complete, but the plan has more")
    return (f"best(rule={rule!r}): {head}: {'; '.join(why[:8])}{more}."
            + (f" Fill the store with: {fill}" + (" (retry_failed=true recomputes failed cells)." if
                                                   out["n_failed"].any() else ".") if fill else "")
            + " Keep only the complete entries with out[out.complete].")


def _fits(metric: str, name: str) -> bool:
    """Does ``metric`` score dataset ``name`` (GMean: a classification set, RMSE: a regression set)? An
    unregistered name: yes."""
    from .data import UnknownDatasetError, get_spec
    from .metrics import metric_task, task_kind
    try:
        return metric_task(metric) == task_kind(get_spec(name).task)
    except UnknownDatasetError:
        return True


def _scored_by(frame: pd.DataFrame, metric: str) -> pd.DataFrame:
    """The rows of the datasets ``metric`` scores (GMean: classification sets; RMSE: regression sets), as the
    generic report's tables have them; a set no longer registered is kept. None left: an error naming the fix."""
    from .metrics import metric_task
    keep = [d for d in frame["dataset"].unique() if _fits(metric, d)]
    if len(frame) and not keep:
        other = "rmse" if metric_task(metric) == "classification" else "gmean"
        raise ValueError(f"metric={metric!r} scores {metric_task(metric)} sets and this frame has none; "
                         f"pass metric={other!r} (or another metric of its sets)")
    return frame[frame["dataset"].isin(keep)]


def staged(frame: pd.DataFrame, id_columns=("dataset", "model", "params_json", "repeat", "fold", "inner_fold")
           ) -> pd.DataFrame:
    """Expand the JSON ``staged`` column (per-stage scores of one fit) into a long frame:
    one row per (cell, stage) with the id columns, ``stage`` and every staged metric. The frame's ``attrs``
    (``complete`` and the counts from :func:`load`) are carried over, and an incomplete frame warns once."""
    out = _staged(frame, id_columns)
    out.attrs.update(frame.attrs)
    if frame.attrs.get("complete") is False:
        _warn_once(f"staged(): expanded from an incomplete frame of {frame.attrs.get('experiment')!r} "
                   f"({frame.attrs.get('n_stored')} of {frame.attrs.get('n_planned')} planned cells stored; "
                   "attrs['complete'] is False, load() said which are missing)", IncompleteResultsWarning)
    return out


def _staged(frame: pd.DataFrame, id_columns) -> pd.DataFrame:
    if "staged" not in frame.columns:
        raise KeyError("these results have no 'staged' column: their family stores no staged predictions")
    ids = [c for c in id_columns if c in frame.columns]
    parts = []
    if len(frame) and frame["staged"].isna().all():
        raise KeyError("no row of these results holds a 'staged' value: their family stores none, or a committed frame "
                       "left the column out (experiment.frame_omit; `randml run` the experiment to store them)")
    for _, row in frame[frame["staged"].notna()].iterrows():
        part = pd.DataFrame(json.loads(row["staged"]))
        for c in ids:
            part[c] = row[c]
        parts.append(part)
    if not parts:
        return pd.DataFrame(columns=[*ids, "stage"])
    out = pd.concat(parts, ignore_index=True)
    return out[[*ids, *[c for c in out.columns if c not in ids]]]


def trace(experiment: str, *, store_dir: str | os.PathLike | None = None, overrides=(),
          config_dir: str | os.PathLike | None = None, **filters) -> pd.DataFrame:
    """The trace of the experiment's searches (models with a ``search:`` block, :mod:`randml_core.search`): one
    row per (dataset, model, repeat, fold, trial) with the setting (``params_json``), its ``score`` over
    ``n_folds`` folds, the ``rung`` (halving), the ``cells`` it added, ``cells_so_far``, ``best_so_far`` and the
    scope's stored ``cpu_seconds``; repeat = fold = -1 for a search over the outer folds. Empty when no model
    searches. ``filters`` select by column equality (a list: any of), as :func:`load`."""
    from .rows import search_trace as trace_of
    spec = compose_spec(experiment, overrides, config_dir)
    frame = trace_of(spec, store_root(store_dir))
    for col, value in filters.items():
        if col not in frame.columns:
            raise KeyError(f"no column {col!r} in the search trace; columns: {', '.join(frame.columns)}")
        frame = frame[frame[col].isin(_listed(value))]
    frame = frame.reset_index(drop=True)
    frame.attrs.update(experiment=experiment, overrides=list(overrides))
    return frame


def make_target(experiment: str) -> str | None:
    """The make target whose recipe runs ``experiment`` (from the Makefile, mk/*.mk and each installed benchmark's
    make fragment, ``<package folder>/*.mk``), if any."""
    from . import plugins
    pattern = re.compile(r"experiment[,=]" + re.escape(experiment) + r"(?![\w-])")
    own = [p for folder in plugins.sources() for p in sorted(Path(folder).glob("*.mk"))]
    for path in [*own, REPO_ROOT / "Makefile", *sorted((REPO_ROOT / "mk").glob("*.mk"))]:
        target = None
        for line in path.read_text().splitlines() if path.exists() else []:
            head = re.match(r"^([A-Za-z0-9_.-]+):", line)
            if head:
                target = head.group(1)
            elif line.startswith("\t") and target and pattern.search(line):
                return target
    return None


def _check_known(experiment: str, config_dir=None) -> None:
    from .config import did_you_mean
    known = experiments(config_dir)
    if experiment not in known:
        raise ResultsError(f"unknown experiment {experiment!r}; {did_you_mean(experiment, known)}"
                           f"known experiments (experiment/*.yaml of each config dir): {', '.join(known)}")


def _filter(frame: pd.DataFrame, col: str, value, experiment: str) -> pd.DataFrame:
    from .config import did_you_mean
    if col not in frame.columns:
        raise KeyError(f"no column {col!r} in the stored results of {experiment!r}; "
                       f"{did_you_mean(col, frame.columns)}columns: {', '.join(frame.columns)}")
    values = list(value) if isinstance(value, (list, tuple, set)) else [value]
    present = set(frame[col].dropna().unique().tolist())
    missing = [v for v in values if v not in present]
    if missing:
        shown = sorted(map(str, present))
        raise ResultsError(f"{col}={missing[0]!r} occurs in no stored row of {experiment!r} (this config); "
                           f"{did_you_mean(missing[0], shown)}{col} values: "
                           f"{', '.join(shown[:40])}{' ...' if len(shown) > 40 else ''}")
    return frame[frame[col].isin(values)]
