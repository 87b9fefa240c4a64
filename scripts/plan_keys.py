#!/usr/bin/env python
"""Print one digest per experiment: the sorted cell keys of its plan (offline data only, no model is fit).

Used to show that a refactor leaves every cell key unchanged: run it before and after and diff the output.
    .venv/bin/python scripts/plan_keys.py [--profile paper] > keys.txt
"""
from __future__ import annotations

import argparse
import hashlib
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--profile", default="paper")
    ap.add_argument("--only", nargs="*", default=None, help="experiment names (default: all)")
    args = ap.parse_args(argv)
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    from randml_core.config import build_spec
    from randml_core.data.sources import no_downloads
    from randml_core.runner import make_plan

    from randml_core.paths import shipped_config_dirs
    conf = ROOT / "conf"
    names = args.only or sorted({p.stem for d in shipped_config_dirs() for p in (d / "experiment").glob("*.yaml")})
    warnings.simplefilter("ignore")
    for name in names:
        with initialize_config_dir(config_dir=str(conf), version_base="1.3"):
            cfg = compose(config_name="config", overrides=[f"experiment={name}", f"profile={args.profile}"])
        spec = build_spec(OmegaConf.to_container(cfg, resolve=True))
        with no_downloads():
            plan = make_plan(spec)
        keys = sorted(c.key for _, c in plan.cells())
        digest = hashlib.sha256("\n".join(keys).encode()).hexdigest()[:16]
        print(f"{name:28s} {len(keys):8d} cells  {digest}  unavailable: {','.join(sorted(plan.unavailable)) or '-'}",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
