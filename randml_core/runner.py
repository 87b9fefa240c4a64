"""Plan and run an experiment: the names of the run path, gathered from the modules that hold them.

A *cell* is (dataset, model variant, hyper-parameters, repeat, fold[, inner fold]) with a content-hash key
(:mod:`randml_core.keys`); a *task* is one split of one dataset with its missing cells (:mod:`randml_core.plan`).
One concern per module, data flowing one way:

- :mod:`randml_core.keys`: what a cell's key hashes (:func:`cell_key`), and its fast form for the planner;
- :mod:`randml_core.plan` / :mod:`randml_core.planning` / :mod:`randml_core.planmemo`: the plan's types, the spec
  expanded into keyed tasks (:func:`make_plan`, searches, shards, what counts as done), the readers' plan memo;
- :mod:`randml_core.worker`: one task evaluated in a worker process (:func:`run_task`, :func:`score`);
- :mod:`randml_core.execution`: the run (:func:`run`, :class:`RunOptions`) with its leases, backend and rounds;
- :mod:`randml_core.writer`: the run's rows written in batched store parts, other runs' parts seen;
- :mod:`randml_core.progress`: the progress bar.

``from randml_core.runner import run, make_plan, ...`` keeps working; new code imports from the module itself.
"""
from __future__ import annotations

from .execution import VOLATILE_COLUMNS, RunOptions, RunSummary, run
from .keys import OUTCOME_OPTIONS, canonical_params, cell_key
from .leases import task_id
from .plan import Cell, Plan, PlanError, Task
from .planning import (again_columns, computed_again, lacking_scorers, make_plan, parse_shard, replan_searches,
                       shard_tasks)
from .preprocess import _minmax  # noqa: F401  (kept importable from here: scripts/bench.py and older notebooks)
from .progress import Progress
from .worker import run_task, score
from .writer import WRITE_EVERY

__all__ = ["run", "RunOptions", "RunSummary", "VOLATILE_COLUMNS", "WRITE_EVERY", "make_plan", "replan_searches",
           "Plan", "Cell", "Task", "PlanError", "cell_key", "canonical_params", "OUTCOME_OPTIONS", "parse_shard",
           "shard_tasks", "computed_again", "again_columns", "lacking_scorers", "run_task", "score", "task_id",
           "Progress"]
