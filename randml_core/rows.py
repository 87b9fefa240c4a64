"""Which stored rows belong to a config: the plan's keys matched against the store. Below both readers
of results (:mod:`randml_core.report` and :mod:`randml_core.results`), so neither imports the other."""
from __future__ import annotations

import os

from .store import key_mask, store_of

__all__ = ["current_rows", "planned_keys", "rows_of"]


def current_rows(spec, store_dir: str | os.PathLike):
    """``(frame, plan, keys)``: the stored rows (every fold and status) whose key belongs to the plan
    of ``spec``, that plan, and its keys. Plans without downloading (a set that needs one is listed
    in ``plan.unavailable``). ``randml report`` and :func:`load` both select rows this way."""
    plan, keys = planned_keys(spec, store_dir)
    return rows_of(spec, store_dir, keys), plan, keys


def planned_keys(spec, store_dir: str | os.PathLike):
    """``(plan, keys)`` of :func:`current_rows` without reading the rows."""
    from .data.sources import no_downloads
    from .runner import make_plan  # plan = which keys belong to this config; no model is called
    with no_downloads():
        plan = make_plan(spec, splits=False, store_root=store_dir, memo=True)  # keys need the seeds (searches: the store)
    return plan, {c.key for _, c in plan.cells()}


def rows_of(spec, store_dir: str | os.PathLike, keys: set):
    """The stored rows (every fold and status) of ``spec``'s store whose key is in ``keys``."""
    frame = store_of(spec, store_dir).read()
    return frame[key_mask(frame["key"], keys)].reset_index(drop=True) if len(frame) else frame


def search_trace(spec, store_root):
    """The trace of ``spec``'s searches (:func:`randml_core.search.trace_frame`) as the store ``store_root`` has
    them (nothing downloaded)."""
    from .data.sources import no_downloads
    from .runner import make_plan
    from .search import trace_frame
    with no_downloads():
        plan = make_plan(spec, splits=False, store_root=store_root)
    return trace_frame(plan.search_trace)
