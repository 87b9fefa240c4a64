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


# Overrides that change where or how a report runs, never what it shows.
NEUTRAL_OVERRIDES = {"n_jobs", "progress", "store_dir", "results_dir", "retry_failed"}


def _is_committed_config(spec) -> tuple[bool, str]:
    """Is ``spec`` the experiment's own committed configuration? True when the profile is ``paper``
    and the config hash equals that of the experiment composed without the user's overrides (only
    ``experiment=`` and the neutral ones kept), so an override that restates the default (the
    Makefile's ``profile=paper``) still writes the committed snapshot. Returns (committed, why not)."""
    from hydra import compose
    from hydra.core.hydra_config import HydraConfig
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from omegaconf import OmegaConf
    from .config import build_spec
    if spec.profile != "paper":
        return False, f"profile={spec.profile}"
    task = list(HydraConfig.get().overrides.task)
    parsed = OverridesParser.create().parse_overrides(task)
    kept = [o.input_line for o in parsed if o.key_or_group == "experiment" or o.key_or_group in NEUTRAL_OVERRIDES]
    base = build_spec(OmegaConf.to_container(compose(config_name="config", overrides=kept), resolve=True))
    if base.config_hash() == spec.config_hash():
        return True, ""
    changed = [o.input_line for o in parsed if o.input_line not in kept]
    return False, "overrides " + " ".join(changed)


def _cmd_report(cfg) -> None:
    from .report import build_report
    spec = _spec_from_cfg(cfg)
    committed, why = _is_committed_config(spec)
    if not committed:
        print(f"randml report: {why} (differs from {spec.name}'s committed configuration)", file=sys.stderr)
    build_report(spec, cfg.store_dir, cfg.results_dir, committed=committed)


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
    from . import data
    sub = args[0] if args else "list"
    if sub == "list":
        for name in data.list_datasets():
            spec = data.get_spec(name)
            print(f"{name:28s} {spec.task:10s} {','.join(spec.papers):12s} "
                  f"{'substitute for ' + spec.substitute_of if spec.substitute_of else ''}")
    elif sub == "show" and len(args) > 1:
        ds = data.load_dataset(args[1])
        print(f"{ds.name}: {ds.X.shape[0]} x {ds.X.shape[1]}, task {ds.task}, hash {ds.data_hash}\n"
              f"source: {ds.source}\nnotes: {ds.notes}")
    elif sub == "fetch":
        names = args[1:] or data.list_datasets()
        for name in names:
            try:
                print(f"{name}: {data.fetch(name)}")
            except Exception as exc:  # keep going: report every dataset
                print(f"{name}: FAILED ({type(exc).__name__}: {exc})")
    elif sub == "catalog":
        from .data.catalog import catalog_frame
        print(catalog_frame().to_string())
    else:
        _fail(f"unknown data command {args!r}; use: randml data list | show NAME | fetch [NAME...] | catalog")


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
