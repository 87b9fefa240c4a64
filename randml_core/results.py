"""Load stored results as pandas frames (for notebooks and reports).

``load("eem_table4")`` returns the rows the report tables are built from, and only those: outer
folds (``inner_fold == -1``), status ``ok``, and cells of the experiment's *current* config (the
keys :func:`randml_core.runner.make_plan` gives for the experiment as composed from ``conf/``, the
same selection ``randml report`` makes). Averaging such a frame over folds gives the numbers of the
tables; inner folds, failed / skipped cells and cells of other configs (a quick run, another seed,
a changed grid) are there only when asked for. ``best`` applies the tables' selection rules.

The store is ``store_dir`` if given, else ``$RANDML_STORE``, else ``results/store`` under the
project root (never the current working directory, so a notebook anywhere reads the same store).
"""
from __future__ import annotations

import json
import os
import re
import warnings
from pathlib import Path

import pandas as pd

from .provenance import REPO_ROOT
from .store import Store

#: metrics where lower is better (``best`` minimises them); every other metric is maximised
LOWER_IS_BETTER = ("rmse", "mae", "log_loss")
RULES = ("best_mean", "nested")


class ResultsError(LookupError):
    """The results asked for cannot be given (unknown experiment, empty store, no such value)."""


def conf_dir() -> Path:
    """The Hydra config directory the CLI uses (``$RANDML_CONF`` or the project's ``conf/``)."""
    from .cli import CONF_DIR
    return CONF_DIR


def experiments(config_dir: str | os.PathLike | None = None) -> list[str]:
    """The experiment names defined in ``conf/experiment/*.yaml`` (and in ``config_dir``'s, a user's own)."""
    dirs = [conf_dir()] + ([Path(config_dir)] if config_dir is not None else [])
    return sorted({p.stem for d in dirs for p in (d / "experiment").glob("*.yaml")})


def store_root(store_dir: str | os.PathLike | None = None) -> Path:
    """``store_dir`` if given, else ``$RANDML_STORE``, else ``<project root>/results/store``."""
    if store_dir is not None:
        return Path(store_dir)
    env = os.environ.get("RANDML_STORE")
    return Path(env) if env else REPO_ROOT / "results" / "store"


def compose_spec(experiment: str, overrides=(), config_dir: str | os.PathLike | None = None):
    """The validated :class:`~randml_core.config.ExperimentSpec` of ``experiment`` as composed from
    ``conf/`` with Hydra ``overrides`` (e.g. ``["profile=quick", "protocol.repeats=3"]``); ``config_dir``
    adds a user's own config folder (experiment/, model/, dataset/), like ``randml --config-dir``."""
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from omegaconf import OmegaConf

    from .config import build_spec
    if isinstance(overrides, str):
        raise TypeError(f"overrides must be a list of Hydra overrides, got the string {overrides!r}; "
                        f"write overrides=[{overrides!r}]")
    _check_known(experiment, config_dir)
    extra = [f"hydra.searchpath=[file://{Path(config_dir).resolve()}]"] if config_dir is not None else []
    gh = GlobalHydra.instance()
    outer = gh.hydra if gh.is_initialized() else None  # called inside a Hydra app: compose beside it
    gh.clear()
    try:
        with warnings.catch_warnings():
            # hydra-core 1.4 (constraints.txt) deprecates version_base; "1.3" keeps the configs' behaviour
            warnings.filterwarnings("ignore", message="The version_base parameter is deprecated")
            initialize = initialize_config_dir(config_dir=str(conf_dir()), version_base="1.3")
        with initialize:
            cfg = compose(config_name="config", overrides=[*extra, f"experiment={experiment}", *overrides])
    finally:
        if outer is not None:
            GlobalHydra.instance().clear()
            GlobalHydra.instance().initialize(outer)
    return build_spec(OmegaConf.to_container(cfg, resolve=True),
                      config_dirs=[conf_dir()] + ([Path(config_dir)] if config_dir is not None else []))


def current_rows(spec, store_dir: str | os.PathLike):
    """``(frame, plan, keys)``: the stored rows (every fold and status) whose key belongs to the plan
    of ``spec``, that plan, and its keys. Plans without downloading (a set that needs one is listed
    in ``plan.unavailable``). ``randml report`` and :func:`load` both select rows this way."""
    from .data.sources import no_downloads
    from .runner import make_plan  # plan = which keys belong to this config; no model is called
    with no_downloads():
        plan = make_plan(spec)
    keys = {c.key for _, c in plan.cells()}
    frame = Store(store_dir, spec.store).read()
    frame = frame[frame["key"].isin(keys)].reset_index(drop=True) if len(frame) else frame
    return frame, plan, keys


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


def load(experiment: str, *, store_dir: str | os.PathLike | None = None, overrides=(),
         include_inner: bool = False, include_failed: bool = False, all_configs: bool = False,
         config_dir: str | os.PathLike | None = None, **filters) -> pd.DataFrame:
    """Stored rows of ``experiment``, one per cell, as the report tables see them.

    Default: outer folds, status ``ok``, cells of the current config (``conf/experiment/<name>.yaml``
    with Hydra ``overrides``). ``include_inner=True`` adds the nested inner-fold rows (needed by
    ``best(..., rule="nested")``), ``include_failed=True`` the failed and skipped rows,
    ``all_configs=True`` every stored row of the experiment's store, whatever config made it
    (then ``experiment`` may also name a store directory without a config). A filter on
    ``inner_fold`` or ``status`` replaces the corresponding default.

    ``filters`` select by column equality, a list meaning "any of":
    ``load("eem_table4", dataset="heart", model=["EEM-rbf", "SVM-rbf"])``; a value that no row of
    the experiment has raises (with the values it has) instead of giving an empty frame.
    ``config_dir``: a user's own config folder (as ``randml run --config-dir DIR``).
    """
    root = store_root(store_dir)
    known = experiments(config_dir)
    if experiment in known:
        spec = compose_spec(experiment, overrides, config_dir)
        store = Store(root, spec.store)
    elif all_configs and (root / experiment).is_dir():
        spec, store = None, Store(root, experiment)
    else:
        _check_known(experiment, config_dir)
    if not store.parts():
        where = ("store_dir argument" if store_dir is not None else
                 "$RANDML_STORE" if os.environ.get("RANDML_STORE") else "default: <project root>/results/store")
        target = make_target(experiment)
        raise ResultsError(
            f"no stored results for experiment {experiment!r}: {store.dir.resolve()} has no part files "
            f"(store root {root} from the {where}). Fill it with `randml run experiment={experiment}"
            f"{' store_dir=' + str(root) if store_dir is not None else ''}`"
            + (f" (or `make {target}`)" if target else "")
            + ", or point load() at another store with store_dir=... or $RANDML_STORE.")
    if all_configs:
        frame, n_planned = store.read(), None
    else:
        frame, _, keys = _once_per_message(lambda: current_rows(spec, root))
        n_planned = len(keys)
        if frame.empty:
            n_stored = len(store.read(columns=["key"], ordered=False))
            raise ResultsError(
                f"{store.dir} holds {n_stored} rows, but none belongs to the current config of {experiment!r} "
                f"(conf/experiment/{experiment}.yaml with overrides {list(overrides)}, {n_planned} planned cells). "
                "Pass the overrides the run used (e.g. overrides=['profile=quick']), or all_configs=True "
                "for every stored row.")
    for col, value in filters.items():
        frame = _filter(frame, col, value, experiment)
    n_rows = len(frame)
    if "inner_fold" not in filters and not include_inner and "inner_fold" in frame.columns:
        frame = frame[frame["inner_fold"] == -1]
    n_not_ok = int((frame["status"] != "ok").sum()) if "status" in frame.columns else 0
    if "status" not in filters and not include_failed and "status" in frame.columns:
        frame = frame[frame["status"] == "ok"]
    frame = frame.reset_index(drop=True)  # already in Store.read's ROW_ORDER: dataset, model, params_json, repeat, fold, ...
    frame.attrs.update(experiment=experiment, store=str(store.dir), overrides=list(overrides),
                       include_inner=include_inner or "inner_fold" in filters,
                       include_failed=include_failed or "status" in filters, all_configs=all_configs,
                       n_planned=n_planned, n_rows_before_defaults=n_rows,
                       n_not_ok_dropped=n_not_ok - int((frame["status"] != "ok").sum()) if "status" in frame else 0)
    return frame


def best(frame: pd.DataFrame, rule: str = "best_mean", metric: str = "gmean") -> pd.DataFrame:
    """The cells of the report tables: per (dataset, model) the selected setting with the mean, std
    and number of its outer folds, by the same functions the tables use.

    ``rule="best_mean"``: the setting with the best mean outer-fold ``metric`` (the EEM paper's rule,
    optimistic; :func:`randml_core.report.tables.select_best`). ``rule="nested"``: per outer fold the
    setting with the best mean over that fold's inner folds, scored on the outer fold
    (:func:`~randml_core.report.tables.select_nested`; needs ``load(..., include_inner=True)``).
    RMSE, MAE and log loss are minimised, every other metric maximised.
    """
    from .report.tables import select_best, select_nested
    if rule not in RULES:
        raise ValueError(f"rule={rule!r} is unknown; choose one of {', '.join(RULES)}")
    if metric not in frame.columns:
        numeric = [c for c in frame.columns if pd.api.types.is_float_dtype(frame[c])]
        raise KeyError(f"metric={metric!r} is not a column of this frame; numeric columns: {', '.join(numeric)}")
    dropped = frame.attrs.get("n_not_ok_dropped", 0)
    if dropped:
        raise ValueError(f"this frame left out {dropped} failed or skipped cells, which the tables' rule counts "
                         "(a setting with a failed fold is not eligible): load it with include_failed=True")
    if rule == "nested" and not ("inner_fold" in frame.columns and (frame["inner_fold"] >= 0).any()):
        raise ValueError("rule='nested' selects on inner folds, and this frame has none: load it with "
                         "include_inner=True (the experiment needs protocol.inner_splits > 0)")
    frame = _scored_by(frame, metric)
    lower = metric in LOWER_IS_BETTER
    scored = frame.assign(**{metric: -frame[metric]}) if lower else frame
    out = (select_best if rule == "best_mean" else select_nested)(scored, metric)
    if lower:
        out["mean"] = -out["mean"]
    return out.assign(rule=rule, metric=metric)


def _scored_by(frame: pd.DataFrame, metric: str) -> pd.DataFrame:
    """The rows of the datasets ``metric`` scores (GMean: classification sets; RMSE: regression sets), as the
    generic report's tables have them; a set no longer registered is kept. None left: an error naming the fix."""
    from .data import UnknownDatasetError, get_spec
    from .metrics import metric_task, task_kind

    def fits(name) -> bool:
        try:
            return metric_task(metric) == task_kind(get_spec(name).task)
        except UnknownDatasetError:
            return True
    keep = [d for d in frame["dataset"].unique() if fits(d)]
    if len(frame) and not keep:
        other = "rmse" if metric_task(metric) == "classification" else "gmean"
        raise ValueError(f"metric={metric!r} scores {metric_task(metric)} sets and this frame has none; "
                         f"pass metric={other!r} (or another metric of its sets)")
    return frame[frame["dataset"].isin(keep)]


def staged(frame: pd.DataFrame, id_columns=("dataset", "model", "params_json", "repeat", "fold", "inner_fold")
           ) -> pd.DataFrame:
    """Expand the JSON ``staged`` column (per-stage scores of one fit) into a long frame:
    one row per (cell, stage) with the id columns, ``stage`` and every staged metric."""
    if "staged" not in frame.columns:
        raise KeyError("these results have no 'staged' column: their family stores no staged predictions")
    ids = [c for c in id_columns if c in frame.columns]
    parts = []
    for _, row in frame[frame["staged"].notna()].iterrows():
        part = pd.DataFrame(json.loads(row["staged"]))
        for c in ids:
            part[c] = row[c]
        parts.append(part)
    if not parts:
        return pd.DataFrame(columns=[*ids, "stage"])
    out = pd.concat(parts, ignore_index=True)
    return out[[*ids, *[c for c in out.columns if c not in ids]]]


def make_target(experiment: str) -> str | None:
    """The make target whose recipe runs ``experiment`` (from the Makefile and mk/*.mk), if any."""
    pattern = re.compile(r"experiment[,=]" + re.escape(experiment) + r"(?![\w-])")
    for path in [REPO_ROOT / "Makefile", *sorted((REPO_ROOT / "mk").glob("*.mk"))]:
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
                           f"known experiments (conf/experiment/*.yaml): {', '.join(known)}")


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
