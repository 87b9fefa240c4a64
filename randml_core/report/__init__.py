"""Reports: regenerate an experiment's tables and figures from the store only.

A report of a committed config from a store that lacks some of its cells (a quick run, a shard, a killed run)
goes to the scratch folder too, with one line naming N of M cells: a snapshot is written only from a complete set.

Every file of one report is staged in one :class:`~randml_core.artefacts.ArtefactSet` and committed
together (a crash leaves the old set or the new one), with a sidecar ``tables/<experiment>.meta.json``
holding what a rerun does not reproduce (time, code version, wall times). A report of a config other
than the experiment's own committed one writes under ``<results_dir>/scratch/<experiment>/``.
"""
from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..artefacts import ArtefactSet
from ..config import ExperimentSpec
from ..provenance import short_version

if TYPE_CHECKING:  # an unchanged report returns before any frame is built: it imports no pandas (0.3 s)
    import pandas as pd


@dataclass
class ReportContext:
    spec: ExperimentSpec
    frame: pd.DataFrame        # stored rows of this experiment's current plan only
    n_planned: int             # cells the plan has (missing = n_planned - len(frame))
    sources: dict              # dataset -> source description actually used
    substitutes: dict          # dataset -> original name, for substitutes
    unavailable: dict          # dataset -> why it could not be loaded
    results_dir: Path
    code_version: str
    store_dir: Path = Path("results/store")  # the store root (reports of one experiment may read another's store)
    artefacts: ArtefactSet | None = None     # every file the report writes is staged here (committed together)


SCRATCH = "scratch"
GENERIC = "randml_core.report.generic"  # the report of an experiment that names no report module


def scratch_dir(results_dir: str | Path, experiment: str) -> Path:
    """Where a report of a non-committed config goes (gitignored): ``<results_dir>/scratch/<experiment>``."""
    return Path(results_dir) / SCRATCH / experiment


def build_report(spec: ExperimentSpec, store_dir: str, results_dir: str, *,
                 committed: bool | None = None, partial_ok: bool = False) -> list[Path]:
    """Rebuild ``spec``'s artefacts from the store. ``committed`` says whether ``spec`` is the
    experiment's own committed config (the CLI decides it from the overrides and
    ``experiment.snapshot``); by default only the ``paper`` profile is. When it is not, everything goes
    to :func:`scratch_dir`. An experiment that names no report module gets the generic table
    (:mod:`randml_core.report.generic`). A committed report from a store that lacks some of the plan's cells goes
    to the scratch folder too, unless ``partial_ok`` (a report that pools the store onto committed artefacts and
    names each source, e.g. ELM boosting's added seeds)."""
    from ..rows import planned_keys, rows_of
    if committed is None:
        committed = spec.profile == "paper"
    out = Path(results_dir) if committed else scratch_dir(results_dir, spec.name)
    # the keys of this config's plan; a set that needs a download is "not available" (no download)
    plan, keys = planned_keys(spec, store_dir)
    names = list(spec.engine.report) or [GENERIC]
    # a report whose modules all read nothing but the context (CONTEXT_ONLY) is skipped when its inputs are unchanged;
    # the generic report is known to (importing it would import SciPy and Matplotlib, 1.4 s, for nothing)
    context_only = all(m == GENERIC or _declares_context_only(m) for m in names)
    inputs = _inputs(spec, plan, keys, out, store_dir) if context_only else None
    if inputs is not None and _up_to_date(out, spec.name, inputs):
        print(f"randml report: {spec.name}: up to date in {out}/ (the same rows, config, data and code as when it "
              "was written; nothing rewritten)", file=sys.stdout)
        return []
    frame = rows_of(spec, store_dir, keys)  # the rows of this config's plan only
    stored = frame["key"].nunique() if len(frame) else 0
    if committed and not partial_ok and 0 < stored < len(keys):
        # a partial store (a quick run, a shard, a killed run) never overwrites the committed snapshot
        committed, out = False, scratch_dir(results_dir, spec.name)
        print(f"randml report: {spec.name}: {stored} of {len(keys)} cells stored: the artefacts go to the scratch "
              f"folder {out}/, not over the committed snapshot (`randml status experiment={spec.name}` lists what "
              "is missing; a complete store writes the snapshot)", file=sys.stderr)
        inputs = _inputs(spec, plan, keys, out, store_dir) if context_only else None
        if inputs is not None and _up_to_date(out, spec.name, inputs):
            print(f"randml report: {spec.name}: up to date in {out}/ (nothing rewritten)", file=sys.stdout)
            return []
    if committed and keys and frame.empty:
        # every cell would read "not run": a wrong store_dir / $RANDML_STORE, or `make report` before the run,
        # must not turn the committed snapshot into empty tables (sets that need a download plan no keys)
        from ..store import StoreError, store_of
        raise StoreError(
            f"{store_of(spec, store_dir).dir.resolve()} has none of the {len(keys)} cells of {spec.name!r}, so "
            f"every table would read 'not run'; the artefacts in {out}/ are left as they are. Fix: run "
            f"`randml run experiment={spec.name}` (or its make target) first, or point store_dir=... or "
            "$RANDML_STORE at the store that has them")
    version = short_version()
    with ArtefactSet(out, spec.name, code_version=version) as artefacts:
        if inputs is not None:
            artefacts.record("inputs", inputs)
        ctx = ReportContext(spec, frame, len(keys),
                            {n: d.source for n, d in plan.datasets.items()},
                            {n: d.substitute_of for n, d in plan.datasets.items() if d.is_substitute},
                            plan.unavailable, out, version, Path(store_dir), artefacts)
        artefacts.record("config_hash", spec.config_hash())
        artefacts.record("profile", spec.profile)
        for module_name in names:
            importlib.import_module(module_name).build(ctx)
    paths = artefacts.committed
    print("\nwrote:", *[f"  {p}" for p in paths], sep="\n", file=sys.stdout)
    if not committed:
        print(f"randml report: not {spec.name}'s committed configuration: the artefacts went to the scratch "
              f"folder {out}/ (gitignored), not into {results_dir}/", file=sys.stdout)
    return paths


def _inputs(spec: ExperimentSpec, plan, keys: set, out: Path, store_dir) -> str:
    """A fingerprint of everything a context-only report reads: the config, the rows it shows (the plan's keys
    and the SHA-256 of every part of the experiment's store: the rows it selects are a function of both, so
    nothing is read into a frame to decide), the datasets (hashes, sources, which are unavailable), where it
    writes, and the code and installed packages (:func:`randml_core.checkmemo.fingerprint`). A changed or
    compacted part changes it (a report rebuilt from the same rows writes the same files). A report module
    declares ``CONTEXT_ONLY = True`` when it reads nothing else (the generic report does); one that reads more
    (other stores, committed tables, published values) does not, and is rebuilt every time."""
    import hashlib
    import json

    from ..checkmemo import fingerprint
    from ..store import store_of
    rows = hashlib.sha256("\n".join([*sorted(keys), "", *sorted(store_of(spec, store_dir).digests().values())])
                          .encode()).hexdigest()
    payload = {"config": spec.config_hash(), "code": fingerprint(), "modules": _module_sources(spec),
               "out": str(out.resolve()),
               "rows": rows,
               "data": {n: [d.data_hash, d.source] for n, d in sorted(plan.datasets.items())},
               "unavailable": sorted(plan.unavailable), "store": str(Path(store_dir).resolve())}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


def _module_sources(spec: ExperimentSpec) -> dict:
    """SHA-256 of the source of every report and plug-in module the experiment names (a config dir's or an installed
    benchmark's: the engine fingerprint does not cover them), so an edited report module is never "up to date"."""
    import hashlib
    import importlib.util
    out = {}
    for key in ("report", "plugins"):
        for name in getattr(spec.engine, key):
            try:
                found = importlib.util.find_spec(name)
            except (ImportError, ValueError):
                found = None
            origin = getattr(found, "origin", None)
            out[name] = hashlib.sha256(Path(origin).read_bytes()).hexdigest() if origin and Path(origin).is_file() else None
    return out


def _declares_context_only(module_name: str) -> bool:
    """Does the report module set ``CONTEXT_ONLY = True`` at its top level? Read from its source with ``ast``,
    without importing it (a paper's report module imports pandas and Matplotlib: 0.5 s or more for a report
    that is up to date); a module without source is imported and asked."""
    import ast
    import importlib.util
    try:
        spec = importlib.util.find_spec(module_name)
    except (ImportError, ValueError):
        spec = None
    origin = getattr(spec, "origin", None)
    if not origin or not str(origin).endswith(".py"):
        return getattr(importlib.import_module(module_name), "CONTEXT_ONLY", False) is True
    tree = ast.parse(Path(origin).read_text(encoding="utf-8"), filename=origin)
    return any(isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and node.value.value is True
               and any(isinstance(t, ast.Name) and t.id == "CONTEXT_ONLY" for t in node.targets)
               for node in tree.body)


def _up_to_date(out: Path, name: str, inputs: str) -> bool:
    """Did a report with these ``inputs`` write this set, and is every file of it still as written?"""
    import json

    from ..artefacts import _file_sha256
    try:
        from ..store import _read_bytes  # a FIFO as the sidecar: an error naming it, never a hang
        meta = json.loads(_read_bytes(out / "tables" / f"{name}.meta.json"))
        if meta.get("facts", {}).get("inputs") != inputs or not meta.get("files"):
            return False
        return all(_file_sha256(out / rel) == sha for rel, sha in meta["files"].items())
    except (OSError, ValueError, AttributeError, TypeError):
        return False
