"""Command line: ``randml run | plan | status | report | compare | data``.

``run``, ``plan``, ``status``, ``report`` and ``compare`` take Hydra overrides (``experiment=NAME
dataset=heart model=NAME protocol.repeats=3 profile=quick n_jobs=2``; ``run -m`` sweeps; Hydra's
``--config-dir DIR`` adds a user's own experiments, models and dataset cards); ``randml CMD --help`` says
what each does (:mod:`randml_core.cli_help`). ``data`` (or ``dataset``) lists, describes and fetches
datasets; ``model list`` lists the model configs; ``completion bash|zsh`` prints a completion script.

Exit codes: 0 all done; 1 some cells failed (or a sweep job failed); 2 bad config or input, nothing
run; 3 some datasets were not available (they need a download); 4 no space left on the device (finished
cells are stored); a sweep exits with its worst job's code.
"""
from __future__ import annotations

import json
import logging
import os
import sys
import warnings
from pathlib import Path

from .paths import conf_dir, shipped_config_dirs
from .provenance import REPO_ROOT

CONF_DIR = conf_dir()  # the engine's config dir ($RANDML_CONF or the project's conf/): randml_core/paths.py
USAGE = """usage: randml run     experiment=NAME [overrides...]   run the missing cells (-m for a Hydra sweep)
       randml plan    experiment=NAME [overrides...]   grids, cells stored / skipped / failed / missing, time; runs nothing
       randml status  experiment=NAME [overrides...]   done / skipped / failed / missing cells per dataset x model
                                                        (--failed: each failed cell's error, grouped, with counts)
       randml report  experiment=NAME [overrides...]   regenerate the experiment's tables from the store
       randml compare experiment=NAME [metric=M] [models=[A,B,...]] [rule=best_mean|nested] [overrides...]
                                                        ranks, Friedman, CD diagram, pairwise tests over datasets
       randml export  experiment=NAME [frames_dir=DIR]  write results/frames/<store>.parquet from a complete store
       randml verify  experiment=NAME [sample=N] [seed=S]  recompute N random stored cells, compare: reproduced K/N
       randml data    list | show NAME | fetch [NAME...] | catalog   [--config-dir DIR]   (or: randml dataset ...)
       randml model   list [--config-dir DIR]          every model config: family or _target_, tasks, grid size
       randml test    NAME                             the plug-in checks of the installed benchmark NAME
       randml completion bash|zsh                      shell completion: eval "$(randml completion bash)"
       randml CMD --help                               what CMD does, its own keys, examples, exit codes
       randml --version

overrides: dataset=NAME model=NAME profile=paper|quick protocol.repeats=N n_jobs=N
           store_dir=PATH (default: $RANDML_STORE, else results/store of the working directory; as load())
           backend=loky|dask|ray backend_address=ADDRESS (an existing Dask / Ray cluster)
           --config-dir DIR (a folder with experiment/, model/, dataset/ of your own)
exit codes: 0 done, 1 failed cells, 2 bad config or input, 3 datasets not available (need a download),
            4 no space left on the device, 130 interrupted (Ctrl-C or SIGTERM: finished tasks are stored, rerun to resume)
experiments: {experiments}"""

EXIT_FAILED, EXIT_CONFIG, EXIT_UNAVAILABLE, EXIT_NO_SPACE = 1, 2, 3, 4
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports Ctrl-C


class CommandError(Exception):
    """A command's failure with its exit code and message (recorded per job, so a sweep goes on)."""

    def __init__(self, message: str, code: int = EXIT_CONFIG):
        super().__init__(message)
        self.code = code


def _experiments() -> list[str]:
    from .cli_help import group_options
    return group_options("experiment", shipped_config_dirs())


def _fail(msg: str, code: int = EXIT_CONFIG):
    print(f"randml: {msg}", file=sys.stderr)
    raise SystemExit(code)


def _spec_from_cfg(cfg):
    from hydra.core.hydra_config import HydraConfig
    from omegaconf import OmegaConf
    from .config import ConfigError, apply_grid_overrides, build_spec
    from .data.cards import hydra_config_dirs
    try:
        hydra = HydraConfig.get()
        container = apply_grid_overrides(OmegaConf.to_container(cfg, resolve=True), hydra.overrides.task)
        return build_spec(container, config_dirs=hydra_config_dirs(), choices=dict(hydra.runtime.choices))
    except ConfigError as exc:
        raise CommandError(f"config error: {exc}") from None


def _cmd_run(cfg) -> int:
    from .execution import RunOptions, run
    spec = _spec_from_cfg(cfg)
    options = RunOptions.from_config(cfg)  # checked before any work: a bad value names its key and the fix
    backend, address = options.backend, options.backend_address
    print(f"randml run: {spec.name} [{spec.profile}] {len(spec.datasets)} dataset(s) x "
          f"{len(spec.variants)} model(s); {spec.protocol.describe()}; n_jobs={options.n_jobs}"
          + (f"; backend={backend}" + (f" at {address}" if address else "") if backend != "loky" else ""),
          file=sys.stderr)
    s = run(spec, cfg.store_dir, options)
    print(f"randml run: computed {s.computed} cells ({s.failed} failed, {s.skipped} skipped by rule, "
          f"{s.not_converged} bounded), "
          f"{s.cached} already stored, in {s.seconds:.1f} s", file=sys.stderr)
    for name, reason in s.unavailable.items():
        print(f"randml run: skipped {name}: {reason}", file=sys.stderr)
    if s.failed:
        print(f"randml run: {s.failed} cell(s) failed: `randml status` lists them; their errors are stored "
              "(retry_failed=true recomputes them)", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_UNAVAILABLE if s.unavailable else 0


def _cmd_plan(cfg) -> int:
    from .planview import describe_plan
    print(describe_plan(_spec_from_cfg(cfg), cfg.store_dir, int(cfg.get("workers") or cfg.n_jobs), cfg.get("shard"),
                        retry_failed=bool(cfg.get("retry_failed"))))
    return 0


def _cmd_status(cfg) -> int:
    from .planning import make_plan
    from .store import store_of
    from .data.sources import no_downloads
    spec = _spec_from_cfg(cfg)
    with no_downloads():
        plan = make_plan(spec, splits=False, store_root=cfg.store_dir)  # a search's later rounds: from the store
    from .planning import again_columns, computed_again
    stored = store_of(spec, cfg.store_dir).read_columns(["key", "status", *again_columns(spec)]
                                                        + (["error"] if _STATUS else []))
    status = dict(zip(stored["key"], stored["status"]))
    for key in computed_again(stored, spec, plan):
        status.pop(key, None)  # lacks a listed scorer: to do, as `randml run` sees it (one notion of done)
    if _STATUS.get("failed"):
        return _print_failed(spec, plan, status, dict(zip(stored["key"], stored["error"])) if "error" in stored else {})
    counts: dict = {}
    names = {"ok": "done", "skipped": "skipped", None: "missing"}  # any other stored status: failed
    for task, cell in plan.cells():
        c = counts.setdefault((task.dataset, cell.variant.name), {"done": 0, "skipped": 0, "failed": 0, "missing": 0})
        c[names.get(status.get(cell.key), "failed")] += 1
    if counts:
        print(f"{spec.name}: done/skipped/failed/missing cells ({spec.protocol.describe()}; skipped = not run by "
              "a rule of the experiment, e.g. above a kernel size limit)")
        print(_pivot_text({k: "/".join(str(c[s]) for s in ("done", "skipped", "failed", "missing"))
                           for k, c in counts.items()}, "dataset", "model"))
        total = {s: sum(c[s] for c in counts.values()) for s in ("done", "skipped", "failed", "missing")}
        print(f"total: {total['done']} done, {total['skipped']} skipped by rule, {total['failed']} failed, "
              f"{total['missing']} missing")
    for name, reason in plan.unavailable.items():
        print(f"{name}: not available ({reason})")
    return 0


def _pivot_text(cells: dict, index: str, columns: str) -> str:
    """``{(row, column): text}`` as pandas prints the pivot of it (rows and columns sorted, the column and row
    names in the corner, each column as wide as its longest value + 2 or its name + 1, right-aligned, a missing
    cell NaN). Written here because ``randml status`` imports no pandas (0.3 s of start-up)."""
    rows, cols = sorted({r for r, _ in cells}), sorted({c for _, c in cells})
    first = max(len(index), len(columns), *(len(str(r)) for r in rows))
    widths = [max(len(str(c)) + 1, 2 + max(len(cells.get((r, c), "NaN")) for r in rows)) for c in cols]
    lines = [columns.ljust(first) + "".join(str(c).rjust(w) for c, w in zip(cols, widths)),
             index.ljust(first + sum(widths))]
    lines += [str(r).ljust(first) + "".join(cells.get((r, c), "NaN").rjust(w) for c, w in zip(cols, widths))
              for r in rows]
    return "\n".join(lines)


_STATUS: dict = {}  # status's own flag (--failed), taken off before Hydra


def _print_failed(spec, plan, status: dict, errors: dict) -> int:
    """``randml status --failed``: the failed cells of the plan, grouped by (dataset, model, error) with counts."""
    from .cli_help import failed_groups
    failed = [{"dataset": task.dataset, "model": cell.variant.name, "error": errors.get(cell.key)}
              for task, cell in plan.cells() if status.get(cell.key) not in (None, "ok", "skipped")]
    if not failed:
        print(f"{spec.name}: no failed cells ({spec.protocol.describe()})")
        return 0
    groups = failed_groups(failed)
    print(f"{spec.name}: {len(failed)} failed cell(s) in {len(groups)} group(s) of (dataset, model, error); "
          f"{spec.protocol.describe()}")
    for dataset, model, error, n in groups:
        text = error.strip().replace("\n", "\n      ")
        print(f"{n:5d} x {dataset} / {model}: {text}")
    print(f"`randml run experiment={spec.name} retry_failed=true` recomputes them (with this command's overrides); "
          "the rows: load(..., include_failed=True)")
    return 0


# Overrides that change where or how a report runs, never what it shows.
NEUTRAL_OVERRIDES = {"n_jobs", "progress", "store_dir", "results_dir", "retry_failed", "shard", "workers",
                     "backend", "backend_address"}


def _is_project_results(results_dir) -> bool:
    """Is ``results_dir`` the project's own results folder (the committed paper snapshot)?"""
    return Path(results_dir).resolve() == (REPO_ROOT / "results").resolve()


def _is_committed_config(spec, results_dir="results") -> tuple[bool, str]:
    """Is ``spec`` the experiment's own committed configuration? True when the profile is ``paper``
    and the config hash equals that of the experiment composed without the user's overrides (only
    ``experiment=`` and the neutral ones kept), so an override that restates the default (the
    Makefile's ``profile=paper``) still writes the committed snapshot; never for a smoke experiment
    (``experiment.snapshot: false``), nor for a user's own experiment (from a ``--config-dir``) whose report
    would land in the project's committed ``results/``. Returns (committed, why not: the line ``randml report``
    prints)."""
    from hydra import compose
    from hydra.core.hydra_config import HydraConfig
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from omegaconf import OmegaConf
    from .config import build_spec
    differs = f" (differs from {spec.name}'s committed configuration)"
    if spec.profile != "paper":
        return False, f"profile={spec.profile}{differs}"
    if not spec.engine.snapshot:
        return False, "experiment.snapshot=false: a smoke experiment, whose artefacts are never committed"
    choice = HydraConfig.get().runtime.choices.get("experiment")
    from .data.cards import hydra_config_dirs
    source = next((d for d in hydra_config_dirs() if (d / "experiment" / f"{choice}.yaml").is_file()), None)
    if source not in shipped_config_dirs() and _is_project_results(results_dir):
        return False, (f"experiment={choice} is your own (not one of the project's), and {results_dir}/ holds the "
                       "project's committed snapshot; pass results_dir=<a folder of yours> to write there")
    from .paths import user_config_dirs
    mine = user_config_dirs(hydra_config_dirs())
    if mine and _is_project_results(results_dir):  # its model / protocol / dataset files may shadow the shipped ones
        return False, (f"--config-dir {' '.join(map(str, mine))} is in the config search path (its files may shadow the "
                       "shipped models, protocols and cards), and the committed snapshot is written only from the "
                       "project's own configs")
    task = list(HydraConfig.get().overrides.task)
    parsed = OverridesParser.create().parse_overrides(task)
    kept = [o.input_line for o in parsed if o.key_or_group == "experiment" or o.key_or_group in NEUTRAL_OVERRIDES]
    if len(kept) == len(parsed):  # no override left out: the committed config is the one composed already
        return True, ""
    from .data.cards import hydra_config_dirs
    base = build_spec(OmegaConf.to_container(compose(config_name="config", overrides=kept), resolve=True),
                      config_dirs=hydra_config_dirs())  # a user's plug-in modules are checked against their dirs
    if base.config_hash() == spec.config_hash():
        return True, ""
    changed = [o.input_line for o in parsed if o.input_line not in kept]
    return False, "overrides " + " ".join(changed) + differs


def _cmd_report(cfg) -> int:
    from .report import build_report
    spec = _spec_from_cfg(cfg)
    committed, why = _is_committed_config(spec, cfg.results_dir)
    if not committed:
        print(f"randml report: {why}", file=sys.stderr)
    build_report(spec, cfg.store_dir, cfg.results_dir, committed=committed)
    return 0


_COMPARE: dict = {}  # compare's own arguments (metric=, models=, rule=), taken off before Hydra


def _cmd_compare(cfg) -> int:
    from .metrics import STORED_METRICS, find_scorer, metric_column, metric_task, scorers, task_kind, unscored
    from .report.comparison import comparison_section
    from .results import current_rows
    from .direction import higher_is_better
    spec = _spec_from_cfg(cfg)
    frame, plan, _ = current_rows(spec, cfg.store_dir)
    if frame.empty:
        raise CommandError(f"no stored cells of {spec.name!r} in {Path(cfg.store_dir).resolve()}; run `randml run "
                           f"experiment={spec.name}` first")
    regression = all(d.task == "regression" for d in plan.datasets.values())
    asked = _COMPARE.get("metric") or ("rmse" if regression else "gmean")
    metric = metric_column(asked)  # a scikit-learn scorer's name (neg_mean_absolute_error) -> its column
    try:
        higher_is_better(metric)
    except ValueError as exc:
        from .errors import did_you_mean
        raise CommandError(f"metric={asked!r}: {did_you_mean(asked, [*STORED_METRICS, *scorers()])}{exc}") from None
    if metric not in frame.columns or frame[metric].isna().all():
        have = [m for m in [*STORED_METRICS, *(c for c in frame.columns if find_scorer(c))]
                if m in frame.columns and frame[m].notna().any()]
        raise CommandError(f"metric={asked!r} is not stored for {spec.name}; its rows have: {', '.join(have)}"
                           + ("; fix: list it in experiment.metrics and `randml run` computes it for the stored cells"
                              if find_scorer(asked) is not None else ""))
    sets = [d for d, ds in plan.datasets.items() if task_kind(ds.task) == metric_task(metric)]  # the sets it scores
    lacking = unscored(frame[frame["dataset"].isin(sets)], metric)
    if lacking:
        raise CommandError(f"metric={asked!r}: {lacking} stored cell(s) of {spec.name} lack it (stored before it was "
                           "listed in experiment.metrics); fix: `randml run` with this config scores them")
    models = _COMPARE.get("models")
    unknown = sorted(set(models or []) - set(frame["model"]))
    if unknown:
        raise CommandError(f"models={unknown} are not stored for {spec.name}; stored: {', '.join(sorted(set(frame['model'])))}")
    from .artefacts import ArtefactSet
    from .report import scratch_dir
    rule = _COMPARE.get("rule", "best_mean")
    if rule == "nested" and not (frame["inner_fold"] >= 0).any():
        from .results import NESTED_NEEDS_INNER
        raise CommandError("config error: " + NESTED_NEEDS_INNER.format(
            what=f"the store of {spec.name}", fix="run the experiment with inner folds (`"
            + _compare_run_command("protocol.inner_splits=2") + "`, new cells) or compare with rule=best_mean"))
    incomplete = _compare_completeness(spec, frame, plan, Path(cfg.store_dir) / spec.store)
    # exploratory output, never part of a committed snapshot (`make stats` writes the committed <table>_stats.md)
    out = scratch_dir(cfg.results_dir, spec.name)
    stem = f"{spec.name}_compare_{metric}" + ("_nested" if rule == "nested" else "") + (
        "_" + "-".join(models) if models else "")
    with ArtefactSet(out, stem) as artefacts:
        text, _ = comparison_section(frame, metric, out / "figures" / f"{stem}_cd", f"{spec.name}: {metric}",
                                     rule, models, artefacts)
        from .report.comparison import RULE_WORDS
        text = f"{RULE_WORDS[rule]}\n\n{text}"
        if incomplete:
            text = f"**Incomplete**: {incomplete}\n\n{text}"
        if models and len(models) == 2:  # two models: also the per-dataset paired test on their folds
            from .report.comparison import paired_section
            text += paired_section(frame, metric, models[0], models[1], rule)
        artefacts.write_text(out / "tables" / f"{stem}.md", text)
    print(text)
    print("wrote:", *[f"  {p}" for p in artefacts.committed], sep="\n")
    return 0


def _compare_run_command(*more: str) -> str:
    """``randml run`` with this compare's config folders and overrides (shell-quoted): it computes the same cells;
    ``more`` overrides replace the task's of the same key."""
    import shlex
    from hydra.core.hydra_config import HydraConfig
    from .data.cards import hydra_config_dirs
    from .paths import user_config_dirs
    extra = [a for d in user_config_dirs(hydra_config_dirs()) for a in ("--config-dir", str(d))]
    keys = {m.partition("=")[0] for m in more}
    task = [o for o in HydraConfig.get().overrides.task if o.partition("=")[0].lstrip("+~") not in keys]
    return " ".join(shlex.quote(a) for a in ["randml", "run", *extra, *task, *more])


def _compare_completeness(spec, frame, plan, where: Path) -> str:
    """The incomplete-results sentence of load() for compare's cells (also on stderr), or "" when complete."""
    from .results import completeness, planned_cells
    done = completeness(planned_cells(plan), frame, plan.unavailable)
    if done.complete:
        return ""
    text = done.message(f"randml compare {spec.name}", where.resolve(), _compare_run_command(),
                        flag="ranks and tests below are over the stored cells only")
    print(f"randml: {text}", file=sys.stderr)
    return text


_OWN: dict = {}  # export's and verify's own keys (frames_dir=, sample=, seed=), taken off before Hydra


def _own_args(cmd: str, rest: list[str]) -> list[str]:
    """Take ``sample=N seed=S`` (verify) or ``frames_dir=DIR`` (export) off the Hydra overrides."""
    _OWN.clear()
    keys = {"verify": ("sample", "seed"), "export": ("frames_dir",)}.get(cmd, ())
    left = []
    for arg in rest:
        key, _, value = arg.partition("=")
        if key in keys:
            if key in ("sample", "seed") and not value.strip().isdigit():
                _fail(f"{key}={value!r} must be a non-negative integer (e.g. {key}=40)")
            _OWN[key] = value
        else:
            left.append(arg)
    return left


def _cmd_export(cfg) -> int:
    """Write the experiment's committed result frame from its complete store (:func:`randml_core.frames.export`)."""
    from .frames import export
    spec = _spec_from_cfg(cfg)
    if spec.profile != "paper" or not spec.engine.snapshot:
        raise CommandError(f"{spec.name} [{spec.profile}] is not a committed configuration: only an experiment's own "
                           "paper-profile config is exported as a frame")
    path, stats = export(spec, cfg.store_dir, _OWN.get("frames_dir"))
    print(f"randml export: {spec.name}: {stats['rows']} rows, {stats['columns']} columns ({stats['folded']} constant, "
          f"kept once in the metadata), {stats['bytes'] / 1e6:.2f} MB -> {path}")
    return 0


def _cmd_verify(cfg) -> int:
    """Recompute ``sample`` random stored cells (``seed``) and compare them with the store (:mod:`randml_core.verify`)."""
    from .verify import verify
    spec = _spec_from_cfg(cfg)
    n, seed = int(_OWN.get("sample", 20)), int(_OWN.get("seed", 0))
    ok, drawn, bad = verify(spec, cfg.store_dir, n, seed)
    print(f"randml verify: {spec.name}: reproduced {ok}/{drawn}" + (f" ({len(bad)} column mismatch(es) above)" if bad else ""))
    return 0 if ok == drawn else EXIT_FAILED


COMMANDS = {"run": _cmd_run, "plan": _cmd_plan, "status": _cmd_status, "report": _cmd_report,
            "compare": _cmd_compare, "export": _cmd_export, "verify": _cmd_verify}
_OUTCOMES: list = []  # (job overrides, exit code, message) per Hydra job


def _job_name() -> str:
    try:
        from hydra.core.hydra_config import HydraConfig
        return " ".join(HydraConfig.get().overrides.task) or "(defaults)"
    except Exception:  # pragma: no cover - outside a Hydra app
        return "(job)"


def _hydra(cmd: str, overrides: list[str]) -> int:
    """Run a command as a Hydra app. Every job (one, or each of a -m sweep) runs even if another
    fails; the exit code is the worst job's, and a sweep ends with a list of its failed jobs."""
    import hydra

    # hydra-core 1.4 (constraints.txt) deprecates version_base; "1.3" keeps the behaviour the configs use
    warnings.filterwarnings("ignore", message="The version_base parameter is deprecated")

    # a user's --config-dir is Hydra's primary config dir, so its configs take precedence over the shipped ones
    # of the same name; the engine's and the benchmarks' conf/ follow it (randml_core/searchpath.py)
    from . import cli_help
    user, overrides = cli_help.take_config_dirs(overrides)
    for d in user:
        if not d.is_dir():
            _fail(f"--config-dir '{d}' is not a directory; fix: pass the folder that holds your experiment/, "
                  "model/ and dataset/ configs")
    if len(user) > 1:  # Hydra has one primary dir: the others follow it
        overrides = [f"hydra.searchpath=[{','.join(f'file://{d}' for d in user[1:])}]", *overrides]
    primary = user[0] if user else CONF_DIR

    @hydra.main(config_path=str(primary), config_name="config", version_base="1.3")
    def entry(cfg) -> None:
        from .artefacts import ArtefactError
        from .config import ConfigError
        from .plan import PlanError
        from .store import StoreError
        started.append(cmd)
        try:
            code, msg = COMMANDS[cmd](cfg), ""
        except CommandError as exc:
            code, msg = exc.code, str(exc)
        except (ConfigError, PlanError, StoreError) as exc:
            code, msg = EXIT_CONFIG, f"error: {exc}"
        except ArtefactError as exc:  # another process removed a staged report file: nothing was committed
            code, msg = EXIT_FAILED, f"error: {exc}"
        except OSError as exc:
            code, msg = _os_error(exc)
            if code is None:  # not the disk's nor the path's: a crash, shown as one
                import traceback
                traceback.print_exc()
                code = EXIT_FAILED
        except Exception as exc:  # one job's crash must not stop a sweep's other jobs
            import traceback
            traceback.print_exc()
            code, msg = EXIT_FAILED, f"{type(exc).__name__}: {exc}"
        if msg:
            print(f"randml: {msg}", file=sys.stderr)
        _OUTCOMES.append((_job_name(), code, msg))
        if os.getpid() != parent:  # a launcher's worker process (joblib, submitit local): tell the parent
            _report_outcome(_OUTCOMES[-1])

    sys.argv = [f"randml {cmd}", *overrides]
    _OUTCOMES.clear()
    started: list[str] = []  # one entry per job whose body began
    parent = os.getpid()
    from .hydra_paths import guarded
    import tempfile
    with tempfile.TemporaryDirectory(prefix="randml-jobs-") as where:
        os.environ[_OUTCOMES_ENV] = where  # inherited by the launcher's workers, started after this
        try:
            _run_entry(entry, cmd, started, guarded)
        finally:
            os.environ.pop(_OUTCOMES_ENV, None)
            _OUTCOMES.extend(_worker_outcomes(where))
    if len(_OUTCOMES) > 1:
        bad = [o for o in _OUTCOMES if o[1]]
        print(f"randml {cmd}: {len(_OUTCOMES)} jobs, {len(bad)} not clean", file=sys.stderr)
        for job, code, msg in bad:
            print(f"  exit {code}: {job}" + (f": {msg}" if msg else ""), file=sys.stderr)
    return max((o[1] for o in _OUTCOMES), default=0)


#: where a job run in another process (a launcher's worker) writes its outcome for the sweep's exit code and summary
#: (not a RANDML_* variable: those are part of a composed config's memo key)
_OUTCOMES_ENV = "_RANDML_JOB_OUTCOMES"


def _report_outcome(outcome) -> None:
    where = os.environ.get(_OUTCOMES_ENV)
    if where and os.path.isdir(where):
        import uuid
        path = os.path.join(where, f"{os.getpid()}-{uuid.uuid4().hex}.json")
        with open(path + ".tmp", "w") as fh:
            json.dump(list(outcome), fh)
        os.replace(path + ".tmp", path)


def _worker_outcomes(where: str) -> list[tuple]:
    out = []
    for name in sorted(os.listdir(where)):
        if name.endswith(".json"):
            with open(os.path.join(where, name)) as fh:
                job, code, msg = json.load(fh)
            out.append((job, int(code), msg))
    return out


def _run_entry(entry, cmd: str, started: list, guarded) -> None:
    try:
        with _hydra_plugins_only(), guarded():
            entry()
    except SystemExit as exc:
        # Hydra prints why it cannot compose a job's config (unknown config group option, bad override
        # syntax, a key not in the config) and exits 1 before the job starts: a bad config, nothing run
        if exc.code != 1 or len(started) > len(_OUTCOMES):
            raise
        print(f"randml {cmd}: the config could not be composed (Hydra's message above); nothing was run for it. "
              f"`randml --help` lists the experiments; `+key=value` adds a key, `key=value` changes one",
              file=sys.stderr)
        _OUTCOMES.append(("(config)", EXIT_CONFIG, "the config could not be composed"))


def _os_error(exc: OSError) -> tuple[int | None, str]:
    """(exit code, one line) for a full disk (:data:`EXIT_NO_SPACE`) or a path that cannot be used (a file where
    a directory must be, no permission: :data:`EXIT_CONFIG`); (None, text) for any other OSError."""
    import errno
    where = f" ('{exc.filename}')" if getattr(exc, "filename", None) else ""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT) or "No space left on device" in str(exc):
        return EXIT_NO_SPACE, (f"no space left on the device{where}: finished cells are stored and nothing is "
                               "half-written; free space (or point store_dir= / results_dir= elsewhere) and rerun")
    if isinstance(exc, (FileExistsError, NotADirectoryError, IsADirectoryError, PermissionError)):
        return EXIT_CONFIG, (f"error: cannot use the path{where}: {exc.strerror or exc}; fix: remove or rename what "
                             "is in the way, or choose another store_dir= / results_dir=")
    return None, f"{type(exc).__name__}: {exc}"


def _hydra_plugins_only():
    """Hydra instantiates its launcher, sweeper and ``hydra.callbacks`` from the composed config; without a
    whitelist from code it calls whatever they name (``+hydra.callbacks.x._target_=builtins.open`` wrote a
    file). Only Hydra's own plug-ins and installed ``hydra_plugins`` may be named there (docs/guarantees.md "Trust");
    estimators are checked apart (:mod:`randml_core.trust`)."""
    try:
        from hydra.utils import execution_whitelist
    except ImportError:  # hydra-core < 1.4 has no execution policy
        import contextlib
        return contextlib.nullcontext()
    return execution_whitelist(["hydra._internal.core_plugins.*", "hydra_plugins.*"])


def _data(args: list[str]) -> None:
    """``randml data list | show NAME | fetch [NAME...] | catalog [--config-dir DIR]`` (data/commands.py)."""
    from .data.commands import main as data_main
    raise SystemExit(data_main(args))


READ_ONLY = ("plan", "status", "verify")  # commands that write nothing: no Hydra run dir, no cli.log


def _status_args(rest: list[str]) -> list[str]:
    """Take status's own ``--failed`` off the Hydra overrides."""
    _STATUS.clear()
    if "--failed" in rest:
        _STATUS["failed"] = True
    return [a for a in rest if a != "--failed"]


def _discovery(cmd: str, rest: list[str]) -> None:
    """``randml model list [--config-dir DIR]`` and ``randml completion bash|zsh``."""
    from . import cli_help
    if cmd == "completion":
        shell = rest[0] if rest else "bash"
        if shell in ("-h", "--help") or shell not in ("bash", "zsh"):
            print('usage: randml completion bash|zsh   (then: eval "$(randml completion bash)"; '
                  "it completes subcommands and experiment=, dataset=, model=, profile= values)",
                  file=sys.stdout if shell in ("-h", "--help") else sys.stderr)
            raise SystemExit(0 if shell in ("-h", "--help") else EXIT_CONFIG)
        print(cli_help.completion_script(shell, shipped_config_dirs()), end="")
        return
    from .data.commands import _split_config_dirs
    dirs, left = _split_config_dirs(rest)
    if left[:1] in (["-h"], ["--help"]) or left not in ([], ["list"]):
        print("usage: randml model list [--config-dir DIR]   every model config (each shipped conf/model/*.yaml and DIR/model/*.yaml): "
              "name, family or _target_, the tasks it handles (binary, multiclass, regression), variants and grid "
              "settings", file=sys.stdout if left[:1] in (["-h"], ["--help"]) else sys.stderr)
        raise SystemExit(0 if left[:1] in (["-h"], ["--help"]) else EXIT_CONFIG)
    missing = [d for d in dirs if not Path(d).expanduser().is_dir()]
    if missing:
        _fail(f"config dir '{missing[0]}' does not exist or is not a directory")
    shipped = shipped_config_dirs()
    raise SystemExit(cli_help.model_list([*[Path(d).expanduser().resolve() for d in dirs], *shipped], shipped))


def _compare_args(rest: list[str]) -> list[str]:
    """Take compare's own ``metric=``, ``models=[...]`` and ``rule=`` off the Hydra overrides."""
    _COMPARE.clear()
    left = []
    for arg in rest:
        key, _, value = arg.partition("=")
        if key in ("metric", "rule"):
            _COMPARE[key] = value
        elif key == "models" and value.startswith("["):
            _COMPARE["models"] = [m.strip() for m in value.strip("[]").split(",") if m.strip()]
        else:
            left.append(arg)
    if _COMPARE.get("rule", "best_mean") not in ("best_mean", "nested"):
        _fail(f"rule={_COMPARE['rule']!r} is unknown; choose best_mean or nested")
    return left


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """randml's own warnings (data quality, cards, dataset mismatches) as one line without the source
    location (they are about the user's data or config, not about code); others as Python shows them."""
    text = (f"randml: {category.__name__}: {message}\n" if category.__module__.startswith("randml_core")
            else warnings.formatwarning(message, category, filename, lineno, line))
    try:
        (file or sys.stderr).write(text)
    except OSError:  # stderr gone (closed pipe): nothing to show it on, as Python's own showwarning
        pass


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else list(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    warnings.showwarning = _show_warning
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE.format(experiments=", ".join(_experiments())))
        return
    if argv[0] in ("--version", "-V", "version"):
        from importlib import metadata

        from .provenance import short_version
        print(f"randml {metadata.version('randml')} (code {short_version()})")
        return
    cmd, rest = argv[0], argv[1:]
    if cmd == "test":  # the plug-in checks of one installed benchmark (randml_core/testing.py)
        from .testing import main as test_main
        raise SystemExit(test_main(rest))
    if cmd in ("data", "dataset"):
        _data(rest)
    elif cmd in ("model", "completion"):
        _discovery(cmd, rest)
    elif cmd in COMMANDS:
        from . import cli_help
        if any(a in ("-h", "--help") for a in rest):  # this command's help, before (and without) Hydra
            experiments = cli_help.group_options("experiment", cli_help.config_dirs_of(rest, shipped_config_dirs()))
            print(cli_help.subcommand_help(cmd, experiments))
            return
        if cmd == "compare":
            rest = _compare_args(rest)
        rest = _status_args(rest) if cmd == "status" else rest
        rest = _own_args(cmd, rest) if cmd in ("export", "verify") else rest
        for d in cli_help.take_config_dirs(rest)[0]:  # before "unknown experiment": the folder itself is the error
            if not d.is_dir():
                _fail(f"--config-dir '{d}' is not a directory; fix: pass the folder that holds your experiment/, "
                      "model/ and dataset/ configs")
        typo = cli_help.unknown_group_choice(rest, shipped_config_dirs())
        if typo:
            _fail(typo)
        if cmd in READ_ONLY:
            rest = cli_help.read_only_overrides(rest) + rest
        import signal

        def _term(signum, frame):  # SIGTERM as Ctrl-C in every command (report, status, ...), not only run
            raise KeyboardInterrupt(f"signal {signum}")
        signal.signal(signal.SIGTERM, _term)
        try:
            code = _hydra(cmd, rest)
        except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM
            why = f" ({exc})" if str(exc) else ""
            after = ("Every finished task is stored; run the same command again to resume (it computes only what "
                     "is missing)." if cmd == "run" else
                     "A report's files are committed together, so the old set or the new one is on disk; run the "
                     "same command again." if cmd == "report" else "Nothing was changed; run the same command again.")
            print(f"randml {cmd}: interrupted{why}. {after}", file=sys.stderr)
            raise SystemExit(EXIT_INTERRUPTED) from None
        if code:
            raise SystemExit(code)
    else:
        _fail(f"unknown command {cmd!r}\n" + USAGE.format(experiments=", ".join(_experiments())))


if __name__ == "__main__":
    main()
