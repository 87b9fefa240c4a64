"""Where Hydra may write when a *config* (not the command line) says so: the run dir under ``results/logs/``, the
sweep dir under ``results/multirun/`` of the working directory, and every job-logging file handler inside the job's
own output dir. An experiment file is ``@package _global_`` and could otherwise set
``hydra.job_logging.handlers.file: {filename: ANY, mode: w}`` (truncating any file) or ``hydra.run.dir: /anywhere``.
The same keys given on the command line are the user's own choice and are kept.

Hydra offers no hook that runs before it creates the output dir and configures logging and that a config cannot
remove (``hydra.callbacks`` come from the config), so :func:`guarded` wraps the two calls that do it (``run_job``
and the basic launcher's ``launch``, and the basic sweeper's ``sweep``, which creates the sweep dir) for one command.
``hydra.output_subdir`` set in a config must be a folder inside the job's output dir.

The same wrappers keep the output folders useful:

- every job of a sweep (``randml run -m ...``) gets Hydra's ``.hydra/`` snapshot (config.yaml, hydra.yaml,
  overrides.yaml) in its folder, as a plain Hydra app writes it (the primary config sets ``hydra.output_subdir: null``
  so that single runs and the read-only commands write no copy); ``hydra.output_subdir=...`` on the command line wins;
- a refused job (exit 2, e.g. a bad config value, before any work: its log is empty) leaves no folder behind: its
  empty log file and its ``.hydra/`` snapshot are removed with the folders the job created, and a sweep all of whose
  jobs were refused (or whose jobs could not be composed) leaves no sweep dir with only ``multirun.yaml`` in it.
  Only folders created by the job are removed, and only when nothing else is in them (a launcher that runs jobs in
  other processes keeps them).
"""
from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

from .config import ConfigError

OUTPUT_DIR = "${hydra.runtime.output_dir}"
#: where each sweep job's config snapshot goes (Hydra's default ``hydra.output_subdir``)
SNAPSHOT = ".hydra"
SNAPSHOT_FILES = frozenset({"config.yaml", "hydra.yaml", "overrides.yaml"})
#: a job that ends with this exit code and an empty log was refused before any work (randml_core.cli.EXIT_CONFIG)
EXIT_REFUSED = 2


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
    if not _from_command_line(config, "hydra.output_subdir"):
        sub = OmegaConf.select(config, "hydra.output_subdir")
        if sub is not None and (Path(str(sub)).is_absolute() or ".." in Path(str(sub)).parts):
            raise ConfigError(f"hydra.output_subdir={sub!r} set in a config leaves the job's own folder; fix: remove it "
                              f"from the config (a sweep's jobs write their {SNAPSHOT}/ snapshot anyway), or give "
                              "hydra.output_subdir=... on the command line")
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


def _job_dir(config, job_dir_key: str, job_subdir_key) -> Path | None:
    """The output dir Hydra's ``run_job`` will create for this job (as it computes it), or None if it cannot be told."""
    from omegaconf import OmegaConf
    try:
        out = str(OmegaConf.select(config, job_dir_key))
        if job_subdir_key is not None:
            out = os.path.join(out, str(OmegaConf.select(config, job_subdir_key)))
        return Path(os.path.abspath(out))
    except Exception:  # an interpolation only Hydra can resolve here: no clean-up for this job
        return None


def _existing(path: Path) -> Path:
    """``path`` or its nearest ancestor that exists."""
    while not path.exists() and path.parent != path:
        path = path.parent
    return path


def _job_code(task_function, n_before: int) -> int | None:
    """The exit code randml's CLI recorded for the job that just ran (its task function appends ``(job, code, msg)`` to
    its module's ``_OUTCOMES``; the module is ``__main__`` under ``python -m randml_core.cli``), or None."""
    outcomes = getattr(task_function, "__globals__", {}).get("_OUTCOMES")
    if isinstance(outcomes, list) and len(outcomes) > n_before:
        return outcomes[-1][1]
    return None


def _n_outcomes(task_function) -> int:
    outcomes = getattr(task_function, "__globals__", {}).get("_OUTCOMES")
    return len(outcomes) if isinstance(outcomes, list) else 0


def _prune(path: Path, stop: Path) -> None:
    """Remove ``path`` and its ancestors below ``stop`` while they are empty (``os.rmdir``: never a folder with
    anything in it, e.g. another run's)."""
    while path != stop and stop in path.parents:
        try:
            os.rmdir(path)
        except OSError:
            return
        path = path.parent


def remove_refused_job_dir(out: Path, stop: Path, output_subdir) -> bool:
    """Remove the folder ``out`` of a refused job, and the folders above it up to ``stop`` (the nearest one that
    existed before the job) that are then empty, when ``out`` holds nothing but empty ``*.log`` files and the job's
    config snapshot (``output_subdir`` with Hydra's three files). True if it was removed."""
    if out == stop or stop not in out.parents or not out.is_dir():
        return False
    snap = Path(str(output_subdir)).parts if output_subdir is not None else ()
    files, snapshot = [], None
    for entry in out.iterdir():
        if entry.is_symlink():
            return False
        if entry.is_file() and entry.suffix == ".log" and entry.stat().st_size == 0:
            files.append(entry)
        elif len(snap) == 1 and entry.name == snap[0] and entry.is_dir() and all(
                f.is_file() and not f.is_symlink() and f.name in SNAPSHOT_FILES for f in entry.iterdir()):
            snapshot = entry
        else:
            return False
    for f in files:
        f.unlink()
    if snapshot is not None:
        for f in snapshot.iterdir():
            f.unlink()
        os.rmdir(snapshot)
    _prune(out, stop)
    return True


def _remove_unused_sweep_dir(sweep_dir: Path, stop: Path) -> None:
    """A sweep dir holding only ``multirun.yaml`` (every job refused, or none could be composed) goes, with the
    folders above it up to ``stop`` that are then empty."""
    if sweep_dir == stop or stop not in sweep_dir.parents or not sweep_dir.is_dir():
        return
    if [p.name for p in sweep_dir.iterdir()] == ["multirun.yaml"] and (sweep_dir / "multirun.yaml").is_file():
        (sweep_dir / "multirun.yaml").unlink()
        _prune(sweep_dir, stop)


@contextlib.contextmanager
def guarded():
    """Hydra's ``run_job`` and ``BasicLauncher.launch`` checked by :func:`check` first, for one command; a sweep's
    jobs write their ``.hydra/`` snapshot, and a refused job leaves no folder (see the module docstring)."""
    import hydra._internal.hydra as hydra_mod
    from hydra._internal.core_plugins import basic_launcher, basic_sweeper
    from omegaconf import open_dict, read_write

    original_run, original_launch = hydra_mod.run_job, basic_launcher.BasicLauncher.launch
    original_launcher_run = basic_launcher.run_job
    original_sweep = basic_sweeper.BasicSweeper.sweep

    def refused(config, key):
        try:
            check(config, key)
        except ConfigError as exc:  # before Hydra writes anything: one line, exit 2 (no traceback)
            print(f"randml: config error: {exc}", file=sys.stderr)
            raise SystemExit(2) from None

    def tidy(original):
        def run_job(*args, config, job_dir_key, job_subdir_key=None, **kwargs):
            if job_dir_key == "hydra.run.dir":
                refused(config, job_dir_key)
            out = _job_dir(config, job_dir_key, job_subdir_key)
            stop = None if out is None else _existing(out)
            task = kwargs.get("task_function")
            n_before = _n_outcomes(task)
            ret = original(*args, config=config, job_dir_key=job_dir_key, job_subdir_key=job_subdir_key, **kwargs)
            if out is not None and _job_code(task, n_before) == EXIT_REFUSED:
                remove_refused_job_dir(out, stop, config.hydra.output_subdir)
            return ret
        return run_job

    def launch(self, job_overrides, initial_job_idx):
        refused(self.config, "hydra.sweep.dir")
        return original_launch(self, job_overrides, initial_job_idx)

    def sweep(self, arguments):  # the basic sweeper creates the sweep dir (and writes multirun.yaml) first
        config = self.config
        refused(config, "hydra.sweep.dir")
        if not _from_command_line(config, "hydra.output_subdir"):
            # each job's config is composed again from the hydra overrides (config_loader.load_sweep_config), in this
            # process or a launcher's: the snapshot setting travels with them
            with read_write(config.hydra), open_dict(config.hydra):
                config.hydra.overrides.hydra.append(f"hydra.output_subdir={SNAPSHOT}")
                config.hydra.output_subdir = SNAPSHOT
        sweep_dir = _job_dir(config, "hydra.sweep.dir", None)
        stop = None if sweep_dir is None else _existing(sweep_dir)
        try:
            return original_sweep(self, arguments)
        finally:
            if sweep_dir is not None:
                _remove_unused_sweep_dir(sweep_dir, stop)

    hydra_mod.run_job, basic_launcher.BasicLauncher.launch = tidy(original_run), launch
    basic_launcher.run_job = tidy(original_launcher_run)
    basic_sweeper.BasicSweeper.sweep = sweep
    try:
        yield
    finally:
        hydra_mod.run_job, basic_launcher.BasicLauncher.launch = original_run, original_launch
        basic_launcher.run_job = original_launcher_run
        basic_sweeper.BasicSweeper.sweep = original_sweep
