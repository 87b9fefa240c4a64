"""Which stored rows belong to a config: the plan's keys matched against the store. Below both readers
of results (:mod:`randml_core.report` and :mod:`randml_core.results`), so neither imports the other."""
from __future__ import annotations

import os

from .store import store_of

__all__ = ["current_rows", "planned_keys", "rows_of"]


def current_rows(spec, store_dir: str | os.PathLike, key_set: bool = True):
    """``(frame, plan, keys)``: the stored rows (every fold and status) whose key belongs to the plan
    of ``spec``, that plan, and its keys (a set; ``key_set=False``: a plan from the memo gives them as an Arrow
    string array, possibly with repeats, for callers that only count them). Plans without downloading (a set
    that needs one is listed in ``plan.unavailable``). ``randml report`` and :func:`load` both select rows
    this way."""
    plan = _plan(spec, store_dir)
    fast = plan.key_array()  # a memo plan's keys as Arrow: the store's filter takes them as they are
    keys = fast if fast is not None and not key_set else plan.key_set()
    return rows_of(spec, store_dir, keys if fast is None else fast), plan, keys


def planned_keys(spec, store_dir: str | os.PathLike):
    """``(plan, keys)`` of :func:`current_rows` without reading the rows."""
    plan = _plan(spec, store_dir)
    return plan, plan.key_set()


def _plan(spec, store_dir):
    from .data.sources import no_downloads
    from .planning import make_plan  # plan = which keys belong to this config; no model is called
    with no_downloads():
        return make_plan(spec, splits=False, store_root=store_dir, memo=True)  # keys need the seeds (searches: the store)



def rows_of(spec, store_dir: str | os.PathLike, keys):
    """The stored rows (every fold and status) of ``spec``'s store whose key is in ``keys`` (a set, or an Arrow
    string array)."""
    return store_of(spec, store_dir).read(keys=keys)


def search_trace(spec, store_root):
    """The trace of ``spec``'s searches (:func:`randml_core.search.trace_frame`) as the store ``store_root`` has
    them (nothing downloaded)."""
    from .data.sources import no_downloads
    from .planning import make_plan
    from .search import trace_frame
    with no_downloads():
        plan = make_plan(spec, splits=False, store_root=store_root)
    return trace_frame(plan.search_trace)
