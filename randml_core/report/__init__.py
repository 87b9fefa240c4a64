"""Reports: regenerate an experiment's tables and figures from the store only."""
from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..config import ExperimentSpec
from ..provenance import short_version


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


def build_report(spec: ExperimentSpec, store_dir: str, results_dir: str) -> list[Path]:
    from ..results import current_rows
    # rows of this config's plan only; a set that needs a download is "not available" (no download)
    frame, plan, keys = current_rows(spec, store_dir)
    ctx = ReportContext(spec, frame, len(keys),
                        {n: d.source for n, d in plan.datasets.items()},
                        {n: d.substitute_of for n, d in plan.datasets.items() if d.is_substitute},
                        plan.unavailable, Path(results_dir), short_version(), Path(store_dir))
    modules = spec.options.get("report") or "randml_core.report.generic"  # no module named: the generic table
    paths = []
    for module_name in [modules] if isinstance(modules, str) else modules:
        paths += importlib.import_module(module_name).build(ctx)
    print("\nwrote:", *[f"  {p}" for p in paths], sep="\n", file=sys.stdout)
    return paths
