#!/usr/bin/env python
"""Where a cached rerun's start-up goes: the phases of ``randml run`` timed one after another in one
process (imports, Hydra composition, config checks, plan, store read), CPU and wall time.

    .venv/bin/python scripts/startup_profile.py STORE_DIR experiment=eem_table4 [overrides...]

The phases are those of ``randml_core.cli`` -> ``runner.run`` (Hydra's own job set-up, logging and the
run's printing are not in them; ``bench.py --only cached`` times the whole command). Run it twice after
a code change: the first run fills the model-check memo (randml_core/checkmemo.py).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(argv: list[str]) -> None:
    store_dir, overrides = argv[0], argv[1:]
    rows, t = [], [time.process_time(), time.perf_counter()]

    def lap(what: str) -> None:
        cpu, wall = time.process_time(), time.perf_counter()
        rows.append((what, cpu - t[0], wall - t[1]))
        t[:] = [cpu, wall]

    import numpy  # noqa: F401
    lap("import numpy")
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf
    lap("import hydra, omegaconf")
    import pandas  # noqa: F401
    import pyarrow.parquet  # noqa: F401
    lap("import pandas, pyarrow")
    import randml_core.cli  # noqa: F401
    from randml_core.config import build_spec
    from randml_core.runner import make_plan
    from randml_core.store import Store
    lap("import randml_core (cli, runner, store)")
    with initialize_config_dir(config_dir=str(ROOT / "conf"), version_base="1.3"):
        cfg = compose(config_name="config", overrides=overrides)
    lap("Hydra compose")
    spec = build_spec(OmegaConf.to_container(cfg, resolve=True))
    lap("config checks (build_spec)")
    plan = make_plan(spec, splits=False)
    lap(f"make_plan: load {len(plan.datasets)} datasets, {sum(len(t.cells) for t in plan.tasks)} keys")
    stored = Store(store_dir, spec.store).read(columns=["key", "status", "dataset", "task_seconds"], ordered=False)
    lap(f"store read ({len(stored)} rows)")
    done = set(stored["key"])
    missing = sum(c.key not in done for _, c in plan.cells())
    lap(f"compare ({missing} missing)")
    print("| phase | CPU s | wall s |\n|---|---|---|")
    for what, cpu, wall in rows:
        print(f"| {what} | {cpu:.3f} | {wall:.3f} |")
    print(f"| total | {sum(r[1] for r in rows):.3f} | {sum(r[2] for r in rows):.3f} |")
    heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("sklearn", "matplotlib") or m.startswith(
        ("scipy.stats", "randml_core.models", "randml_papers")))
    print(f"\nimported: {len(heavy)} modules of sklearn / matplotlib / scipy.stats / models / experiments"
          + (f" (first: {heavy[:3]})" if heavy else ""))


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    import warnings
    warnings.simplefilter("ignore")
    main(sys.argv[1:])
