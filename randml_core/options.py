"""The engine's own ``experiment.*`` options, typed with their defaults (:class:`EngineOptions`).

Kept apart from :mod:`randml_core.config` (which checks them) so that a worker process and a family's evaluator
read them without importing the config machinery: ``EngineOptions.of(options)`` of the options dict a task carries.
"""
from __future__ import annotations

from dataclasses import dataclass


def _names(value) -> tuple[str, ...]:
    """A module name or a list of names (or null) as a tuple."""
    return (value,) if isinstance(value, str) else tuple(value or ())


#: what ``experiment.frame_omit`` may name: per-stage and per-row detail and extra diagnostics, never a key, an
#: id, a setting or a score (a frame without those could not be read, verified or reported)
OMITTABLE_HINT = "only 'staged', 'test_correct' and diagnostics 'x_*' may be (keys, ids, settings and scores stay)"


def omittable(column: str) -> bool:
    """True for a column ``experiment.frame_omit`` may name (:data:`OMITTABLE_HINT`)."""
    return column in ("staged", "test_correct") or (column.startswith("x_") and len(column) > 2)


@dataclass(frozen=True)
class EngineOptions:
    """The engine's own ``experiment.*`` options, typed and defaulted (:data:`randml_core.config.ENGINE_OPTIONS` says what each does),
    read from the checked options once (:attr:`ExperimentSpec.engine`). What a family or a report module reads for
    itself (``svm_max_iter``, ``<family>_max_train``, a report's ``OPTIONS``) stays in ``ExperimentSpec.options``, the
    dict the cell keys and the tasks receive."""
    preprocessing: str = "minmax"
    duplicates: str = "keep"
    categorical: str = "onehot"
    train_criteria: bool = False
    cpu_time: bool = False
    test_correct: bool = False
    snapshot: bool = True
    cell_timeout: float | None = None
    metrics: tuple[str, ...] = ()  # scikit-learn scorers computed with each cell
    report_metrics: tuple[str, ...] = ()  # the report's metrics (report.metrics)
    report: tuple[str, ...] = ()  # report modules; empty: the generic report
    plugins: tuple[str, ...] = ()
    search_seed: int | None = None  # None: protocol.seed
    search_seed_runs: tuple[str, ...] = ()
    title: str = ""
    max_settings: int = 100_000
    max_cells: int = 10_000_000
    frame_omit: tuple[str, ...] = ()  # columns the committed frame leaves out (randml_core.frames.export)

    @classmethod
    def of(cls, options: dict) -> "EngineOptions":
        o = options
        return cls(preprocessing=o.get("preprocessing") or cls.preprocessing,
                   duplicates=o.get("duplicates") or cls.duplicates, categorical=o.get("categorical") or cls.categorical, train_criteria=bool(o.get("train_criteria")),
                   cpu_time=bool(o.get("cpu_time")), test_correct=bool(o.get("test_correct")),
                   snapshot=o.get("snapshot") is not False, cell_timeout=o.get("cell_timeout"),
                   metrics=tuple(o.get("metrics") or ()), report_metrics=tuple(o.get("report_metrics") or ()),
                   report=_names(o.get("report")), plugins=_names(o.get("plugins")),
                   search_seed=o.get("search_seed"), search_seed_runs=tuple(o.get("search_seed_runs") or ()),
                   title=str(o.get("title") or ""), max_settings=o.get("max_settings", cls.max_settings),
                   max_cells=o.get("max_cells", cls.max_cells), frame_omit=tuple(o.get("frame_omit") or ()))
