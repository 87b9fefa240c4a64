"""Where Hydra may write when a *config* (not the command line) says so: the run dir under ``results/logs/``, the
sweep dir under ``results/multirun/`` of the working directory, and every job-logging file handler inside the job's
own output dir. An experiment file is ``@package _global_`` and could otherwise set
``hydra.job_logging.handlers.file: {filename: ANY, mode: w}`` (truncating any file) or ``hydra.run.dir: /anywhere``.
The same keys given on the command line are the user's own choice and are kept.

Hydra offers no hook that runs before it creates the output dir and configures logging and that a config cannot
remove (``hydra.callbacks`` come from the config), so :func:`guarded` wraps the two calls that do it (``run_job``
and the basic launcher's ``launch``, and the basic sweeper's ``sweep``, which creates the sweep dir) for one command.
"""
from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

from .config import ConfigError

OUTPUT_DIR = "${hydra.runtime.output_dir}"


def _from_command_line(config, key: str) -> bool:
    lines = [*config.hydra.overrides.hydra, *config.hydra.overrides.task]
    return any(line.lstrip("+~").partition("=")[0].startswith(key) for line in lines)


def _inside(path: str, root: Path) -> bool:
    real, base = os.path.realpath(path), os.path.realpath(root)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


def check(config, dir_key: str) -> None:
    """ConfigError (naming the key and the fix) when the run / sweep dir or a log file handler that a config set
    lies outside where randml writes its logs."""
    from omegaconf import OmegaConf
    root = {"hydra.run.dir": Path.cwd() / "results" / "logs", "hydra.sweep.dir": Path.cwd() / "results" / "multirun"}
    if not _from_command_line(config, dir_key):
        where = str(OmegaConf.select(config, dir_key))
        if not _inside(where, root[dir_key]):
            raise ConfigError(f"{dir_key}={where!r} set in a config lies outside {root[dir_key]}: a config may not "
                              f"choose where Hydra writes; fix: remove it from the config (give {dir_key}=... on the "
                              "command line to choose the folder yourself)")
    if _from_command_line(config, "hydra.job_logging"):
        return
    handlers = OmegaConf.to_container(config.hydra.job_logging, resolve=False).get("handlers") or {}
    for name, handler in handlers.items():
        filename = (handler or {}).get("filename") if isinstance(handler, dict) else None
        if filename is None:
            continue
        rest = str(filename)[len(OUTPUT_DIR):] if str(filename).startswith(OUTPUT_DIR + "/") else None
        if rest is None or ".." in Path(rest).parts or "$" in rest.replace("${hydra.job.name}", ""):
            raise ConfigError(f"hydra.job_logging.handlers.{name}.filename={filename!r} set in a config: a log file "
                              f"must lie in the job's own folder ({OUTPUT_DIR}/<name>.log); fix: remove the handler "
                              "from the config (or give hydra.job_logging on the command line)")


@contextlib.contextmanager
def guarded():
    """Hydra's ``run_job`` and ``BasicLauncher.launch`` checked by :func:`check` first, for one command."""
    import hydra._internal.hydra as hydra_mod
    from hydra._internal.core_plugins import basic_launcher, basic_sweeper

    original_run, original_launch = hydra_mod.run_job, basic_launcher.BasicLauncher.launch
    original_sweep = basic_sweeper.BasicSweeper.sweep

    def refused(config, key):
        try:
            check(config, key)
        except ConfigError as exc:  # before Hydra writes anything: one line, exit 2 (no traceback)
            print(f"randml: config error: {exc}", file=sys.stderr)
            raise SystemExit(2) from None

    def run_job(*args, config, job_dir_key, **kwargs):
        if job_dir_key == "hydra.run.dir":
            refused(config, job_dir_key)
        return original_run(*args, config=config, job_dir_key=job_dir_key, **kwargs)

    def launch(self, job_overrides, initial_job_idx):
        refused(self.config, "hydra.sweep.dir")
        return original_launch(self, job_overrides, initial_job_idx)

    def sweep(self, arguments):  # the basic sweeper creates the sweep dir (and writes multirun.yaml) first
        refused(self.config, "hydra.sweep.dir")
        return original_sweep(self, arguments)

    hydra_mod.run_job, basic_launcher.BasicLauncher.launch = run_job, launch
    basic_sweeper.BasicSweeper.sweep = sweep
    try:
        yield
    finally:
        hydra_mod.run_job, basic_launcher.BasicLauncher.launch = original_run, original_launch
        basic_sweeper.BasicSweeper.sweep = original_sweep
