"""Command line: ``randml run | status | report | data``.

``run``, ``status`` and ``report`` take Hydra overrides (``experiment=eem_table4 dataset=heart
model=eem protocol.repeats=3 profile=quick n_jobs=2``; ``run -m`` sweeps). ``data`` lists,
describes and fetches datasets.
"""
from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from .provenance import REPO_ROOT

CONF_DIR = Path(os.environ.get("RANDML_CONF", REPO_ROOT / "conf")).resolve()
USAGE = """usage: randml run    experiment=NAME [overrides...]   run the missing cells (-m for a Hydra sweep)
       randml status experiment=NAME [overrides...]   done / missing / failed cells per dataset x model
       randml report experiment=NAME [overrides...]   regenerate the experiment's tables from the store
       randml data list | show NAME | fetch [NAME...] | catalog

overrides: dataset=NAME model=FAMILY profile=paper|quick protocol.repeats=N n_jobs=N store_dir=PATH
experiments: {experiments}"""


def _experiments() -> list[str]:
    return sorted(p.stem for p in (CONF_DIR / "experiment").glob("*.yaml"))


def _fail(msg: str, code: int = 2):
    print(f"randml: {msg}", file=sys.stderr)
    raise SystemExit(code)


def _spec_from_cfg(cfg):
    from omegaconf import OmegaConf
    from .config import ConfigError, build_spec
    try:
        return build_spec(OmegaConf.to_container(cfg, resolve=True))
    except ConfigError as exc:
        _fail(f"config error: {exc}")


def _cmd_run(cfg) -> None:
    from .runner import run
    spec = _spec_from_cfg(cfg)
    print(f"randml run: {spec.name} [{spec.profile}] {len(spec.datasets)} dataset(s) x "
          f"{len(spec.variants)} model(s); {spec.protocol.describe()}; n_jobs={cfg.n_jobs}", file=sys.stderr)
    s = run(spec, cfg.store_dir, n_jobs=int(cfg.n_jobs), progress=bool(cfg.progress),
            retry_failed=bool(cfg.retry_failed))
    print(f"randml run: computed {s.computed} cells ({s.failed} failed, {s.skipped} skipped by rule, "
          f"{s.not_converged} bounded), "
          f"{s.cached} already stored, in {s.seconds:.1f} s", file=sys.stderr)
    for name, reason in s.unavailable.items():
        print(f"randml run: skipped {name}: {reason}", file=sys.stderr)


def _cmd_status(cfg) -> None:
    from .runner import make_plan
    from .store import Store
    import pandas as pd
    from .data.sources import no_downloads
    spec = _spec_from_cfg(cfg)
    with no_downloads():
        plan = make_plan(spec)
    stored = Store(cfg.store_dir, spec.store).read(columns=["key", "status"])
    status = dict(zip(stored["key"], stored["status"]))
    counts: dict = {}
    for task, cell in plan.cells():
        c = counts.setdefault((task.dataset, cell.variant.name), {"done": 0, "failed": 0, "missing": 0})
        st = status.get(cell.key)
        c["missing" if st is None else ("done" if st == "ok" else "failed")] += 1
    frame = pd.DataFrame([{"dataset": d, "model": m, **c} for (d, m), c in counts.items()])
    with pd.option_context("display.max_rows", 500, "display.width", 160):
        if len(frame):
            wide = frame.assign(cell=lambda f: f["done"].astype(str) + "/" + f["failed"].astype(str) + "/"
                                + f["missing"].astype(str)).pivot(index="dataset", columns="model", values="cell")
            print(f"{spec.name}: done/failed/missing cells ({spec.protocol.describe()})")
            print(wide.to_string())
            print(f"total: {frame['done'].sum()} done, {frame['failed'].sum()} failed, "
                  f"{frame['missing'].sum()} missing")
    for name, reason in plan.unavailable.items():
        print(f"{name}: not available ({reason})")


def _cmd_report(cfg) -> None:
    from .report import build_report
    spec = _spec_from_cfg(cfg)
    build_report(spec, cfg.store_dir, cfg.results_dir)


COMMANDS = {"run": _cmd_run, "status": _cmd_status, "report": _cmd_report}


def _hydra(cmd: str, overrides: list[str]) -> None:
    import hydra

    @hydra.main(config_path=str(CONF_DIR), config_name="config", version_base="1.3")
    def entry(cfg) -> None:
        from .runner import PlanError
        try:
            COMMANDS[cmd](cfg)
        except PlanError as exc:
            _fail(f"error: {exc}")

    sys.argv = [f"randml {cmd}", *overrides]
    entry()


def _data(args: list[str]) -> None:
    """``randml data list | show NAME | fetch [NAME...] | catalog [--config-dir DIR]`` (data/commands.py)."""
    from .data.commands import main as data_main
    raise SystemExit(data_main(args))


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else list(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE.format(experiments=", ".join(_experiments())))
        return
    cmd, rest = argv[0], argv[1:]
    if cmd == "data":
        _data(rest)
    elif cmd in COMMANDS:
        _hydra(cmd, rest)
    else:
        _fail(f"unknown command {cmd!r}\n" + USAGE.format(experiments=", ".join(_experiments())))


if __name__ == "__main__":
    main()
