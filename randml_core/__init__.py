"""randml: a reproducible benchmark harness for randomized and information-theoretic learners.

The public API (what a notebook, a plug-in family, a dataset generator or a benchmark's report imports; every other
module is the engine's own and may change). Names are imported on first use, so ``import randml_core`` stays cheap
(a cached ``randml status`` imports no pandas):

- results: :func:`load`, :func:`best`, :func:`compare` (ranks and tests over datasets), :class:`IncompleteResultsWarning`
- running from Python: :func:`compose_spec` (an experiment as ``randml run`` composes it), :func:`run` with its
  :class:`RunOptions` (``run(compose_spec("tiny"), "results/store", n_jobs=2)``: what ``randml run`` does)
- families: :class:`Family`, :class:`CellResult`, :class:`Split`, :func:`register_family`, :func:`evaluate_plain`
- data: :func:`register_generator`
- benchmarks and reports: :class:`Benchmark`, :class:`ReportContext`
- the store and its frames: :class:`Store`, :func:`export` (a frame from a complete store)
"""
from __future__ import annotations

import importlib

#: public name -> the module that defines it
_WHERE = {
    "load": "results", "best": "results", "IncompleteResultsWarning": "results", "ResultsError": "results",
    "compare": "stats.compare", "compose_spec": "results", "run": "execution", "RunOptions": "execution",
    "Family": "family", "CellResult": "family", "Split": "family", "register_family": "family",
    "evaluate_plain": "family",
    "register_generator": "data.sources.generated",
    "Benchmark": "plugins", "ReportContext": "report",
    "Store": "store", "export": "frames",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str):
    if name in _WHERE:
        value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'randml_core' has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *__all__})
