"""Help and discovery for the command line (:mod:`randml_core.cli`): each subcommand's ``--help``, shell
completion (``randml completion bash|zsh``), "did you mean" for a mistyped ``experiment=`` / ``dataset=`` /
``model=`` / ``profile=`` / ``protocol=`` before Hydra composes, the overrides that keep read-only commands
from writing a log directory, ``randml model list`` and ``randml status --failed``'s grouping.

Nothing here imports Hydra or a model unless a listing needs it: ``--help``, completion and the typo check
read file names only.
"""
from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

__all__ = ["GROUPS", "subcommand_help", "completion_script", "config_dirs_of", "group_options",
           "unknown_group_choice", "read_only_overrides", "model_list", "failed_groups"]

#: the config groups a user picks by name, and the command that lists each group's names
GROUPS = {"experiment": "randml --help", "dataset": "randml dataset list", "model": "randml model list",
          "profile": "randml plan --help", "protocol": "randml plan --help"}

COMMON = """overrides (every command; Hydra syntax, `+key=value` adds a key):
  experiment=NAME         the experiment: experiment/NAME.yaml of a --config-dir or a shipped conf/ (required)
  dataset=NAME            only this dataset of the experiment (`randml dataset list`)
  model=NAME              only this model config of the experiment (`randml model list`)
  profile=paper|quick     quick: each model's reduced `quick:` grid (a smoke run)
  protocol=cv10|holdout60 and protocol.KEY=VALUE: protocol.repeats=N, protocol.n_splits=N,
                          protocol.inner_splits=N (0: no nested CV), protocol.seed=N
  n_jobs=N                worker processes (default 2)
  store_dir=PATH          the result store (default: $RANDML_STORE, else results/store of the working directory)
  results_dir=PATH        tables and figures (default: results)
  --config-dir DIR        a folder with experiment/, model/, dataset/ configs of your own (repeatable)"""

_INTERRUPTED = "130 interrupted (Ctrl-C or SIGTERM; finished tasks are stored)"
_NO_SPACE = "4   no space left on the device (one line; what finished is stored)"
EXIT = {
    "run": ["0   done", "1   some cells failed (stored with their error: `randml status --failed`)",
            "2   bad config or input, nothing run", "3   some datasets not available (they need a download: make data)",
            "4   no space left on the device (finished cells are stored)",
            "130 interrupted (Ctrl-C or SIGTERM; finished tasks are stored, the same command resumes)"],
    "plan": ["0   printed", "2   bad config or input", _INTERRUPTED],
    "status": ["0   printed (failed or missing cells do not change it)", "2   bad config or input", _INTERRUPTED],
    "report": ["0   written", "1   a staged file vanished (nothing committed)",
               "2   bad config or input, or no stored cell", _NO_SPACE, _INTERRUPTED],
    "compare": ["0   written", "2   bad config or input (unknown metric or model, nothing stored, rule=nested without "
                "inner folds)", _NO_SPACE, _INTERRUPTED],
    "export": ["0   written", "2   bad config, or a planned cell missing or failed (nothing written)", _NO_SPACE,
               _INTERRUPTED],
    "verify": ["0   every drawn cell reproduced", "1   a cell did not reproduce (each mismatch printed)",
               "2   bad config or input, or nothing stored", _INTERRUPTED],
}

HELP = {
    "run": ("Run the experiment's missing cells (one cell: a dataset x a model setting x a fold) and store each "
            "one as it finishes; stored cells are never recomputed, so a rerun resumes.",
            """  -m                      a Hydra multirun sweep: comma lists run one job each (dataset=heart,sonar)
  retry_failed=true       also recompute the cells stored as failed
  progress=false          no progress bar
  shard=i/n               only the tasks whose plan index is i mod n (split a run over machines)
  backend=loky|dask|ray   where tasks run; backend_address=ADDRESS: an existing Dask / Ray cluster""",
            ["randml run --config-dir my-conf experiment=mine",
             "randml run experiment=tiny dataset=heart profile=quick n_jobs=2"]),
    "plan": ("Print the experiment's grids and, per dataset, its cells stored / skipped / failed / missing and the "
             "predicted wall time; runs nothing and writes nothing.",
             """  workers=N               the worker count the predicted wall time is for (default: n_jobs)
  shard=i/n               plan only that shard's tasks""",
             ["randml plan --config-dir my-conf experiment=mine",
              "randml plan experiment=tiny profile=quick protocol.repeats=3 workers=8"]),
    "status": ("Print done / skipped (by a rule of the experiment) / failed / missing cells per dataset x model, "
               "from the store; runs nothing and writes nothing.",
               """  --failed                instead, each failed cell's error, grouped by (dataset, model, error) with counts""",
               ["randml status --config-dir my-conf experiment=mine",
                "randml status experiment=tiny --failed"]),
    "report": ("Rebuild the experiment's tables and figures from the store (no cell is computed). The experiment's "
               "committed configuration writes results/tables/ and results/figures/; any other goes to "
               "results/scratch/<experiment>/.",
               """  report.metrics=[M,...]  the generic report's metrics (default gmean, rmse for regression, then the
                          scikit-learn scorers of experiment.metrics, e.g. experiment.metrics=[f1_macro])""",
               ["randml report experiment=tiny",
                "randml report --config-dir my-conf experiment=mine results_dir=my-results"]),
    "compare": ("Compare the stored models over the experiment's datasets: average ranks, Friedman test, a CD "
                "diagram and pairwise tests (with two models also the per-dataset corrected resampled t-test); "
                "writes into results/scratch/<experiment>/.",
                """  metric=M                gmean, accuracy, balanced_accuracy, log_loss, rmse or mae, or a scikit-learn
                          scorer of experiment.metrics (f1_macro, neg_mean_absolute_error, ...; its sign
                          says which way is better) (default: rmse when every dataset is regression, else gmean)
  models=[A,B,...]        only these models (table column names, e.g. models=[LogReg,kNN])
  rule=best_mean|nested   the setting each model is scored at: best mean over outer folds
                          (default; optimistic) or nested CV (needs protocol.inner_splits > 0)""",
                ["randml compare --config-dir my-conf experiment=mine metric=gmean",
                 "randml compare --config-dir my-conf experiment=mine models=[LogReg,kNN] rule=nested"]),
    "export": ("Write the experiment's result frame, results/frames/<store>.parquet (the read-only layer under the "
               "store that a fresh clone reads), from a complete store: every planned cell stored and none failed, "
               "else nothing is written. Rows of other experiments sharing the store are kept.",
               """  frames_dir=DIR          write the frame there (default: frames/ beside the store root, or $RANDML_FRAMES)""",
               ["randml export experiment=mine --config-dir my-conf", "randml export experiment=mine frames_dir=/tmp/frames"]),
    "verify": ("Recompute a random sample of the experiment's stored cells from scratch (nothing read from or written "
               "to the store for them) and compare every deterministic column with the stored row: scores exactly, "
               "times and provenance excluded. Prints each mismatch (the cell and both values), then reproduced K/N.",
               """  sample=N                how many stored cells to draw (default 20)
  seed=S                  the draw's seed (default 0)""",
               ["randml verify experiment=mine --config-dir my-conf sample=40 seed=7",
                "randml verify experiment=mine --config-dir my-conf store_dir=colleague/results/store sample=10"]),
}


def subcommand_help(cmd: str, experiments: list[str]) -> str:
    """``randml CMD --help``: what CMD does, its own keys, the common overrides, two examples, exit codes."""
    import textwrap
    what, own, examples = HELP[cmd]
    extra = {"compare": "  [metric=M] [models=[A,B]] [rule=R]", "status": "  [--failed]", "export": "  [frames_dir=DIR]",
             "verify": "  [sample=N] [seed=S]"}.get(cmd, "")
    wrap = lambda text, indent="": textwrap.fill(text, 110, subsequent_indent=indent, break_on_hyphens=False)  # noqa: E731
    return "\n".join([
        f"usage: randml {cmd} experiment=NAME [overrides...]{extra}", "", wrap(what), "",
        f"{cmd}'s own keys:", own, "", COMMON, "", "examples:", *[f"  {e}" for e in examples], "",
        "exit codes:", *[f"  {line}" for line in EXIT[cmd]], "",
        wrap(f"experiments: {', '.join(experiments)}", "  "),
        "models: `randml model list`; datasets: `randml dataset list`; completion: `randml completion bash`"])


# --------------------------------------------------------------------------- config dirs and group names

_VALUE_FLAGS = ("--config-dir", "-cd", "--config-path", "-cp", "--config-name", "-cn", "--experimental-rerun")


def take_config_dirs(args: list[str]) -> tuple[list[Path], list[str]]:
    """``(dirs, rest)``: every ``--config-dir DIR`` / ``-cd DIR`` / ``--config-dir=DIR`` of ``args`` (absolute, in
    order) and the other arguments."""
    from .data.commands import _split_config_dirs
    dirs, rest = _split_config_dirs(list(args), flags=("--config-dir", "-cd"))
    return [Path(d).expanduser().absolute() for d in dirs], rest


def config_dirs_of(args: list[str], shipped) -> list[Path]:
    """Every ``--config-dir`` of ``args`` (they take precedence), then the ``shipped`` config dirs."""
    return [*take_config_dirs(args)[0], *[Path(d) for d in shipped]]


def group_options(group: str, dirs) -> list[str]:
    """The names Hydra accepts for ``group=NAME``: every ``<dir>/<group>/**/*.yaml`` without the suffix."""
    names: set[str] = set()
    for d in dirs:
        folder = Path(d) / group
        if folder.is_dir():
            names.update(p.relative_to(folder).with_suffix("").as_posix() for p in folder.rglob("*.yaml"))
    return sorted(names)


_PLAIN = re.compile(r"[A-Za-z0-9_.\-/]+(,[A-Za-z0-9_.\-/]+)*")


def _overrides(args: list[str]):
    """``(key, value)`` of each ``key=value`` override of ``args`` (flags and their values left out)."""
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if a in _VALUE_FLAGS:
            skip = True
            continue
        if a.startswith("-") or "=" not in a:
            continue
        key, _, value = a.partition("=")
        yield key.lstrip("+"), value


def unknown_group_choice(args: list[str], shipped) -> str | None:
    """One line for the first ``experiment=`` / ``dataset=`` / ``model=`` / ``profile=`` / ``protocol=`` value
    that names no config of the ``shipped`` dirs nor of a ``--config-dir`` ("did you mean ...?"), else None.
    Values in Hydra's sweep functions (``glob(...)``), another primary config or search path: not judged here."""
    from .errors import did_you_mean
    if any(a in ("--config-path", "-cp", "--config-name", "-cn") or a.startswith(("--config-path=", "--config-name="))
           for a in args):
        return None
    pairs = list(_overrides(args))
    if any(k.startswith("hydra.searchpath") for k, _ in pairs):
        return None
    dirs = config_dirs_of(args, shipped)
    for key, value in pairs:
        if key not in GROUPS or not _PLAIN.fullmatch(value):
            continue
        known = group_options(key, dirs)
        for name in value.split(","):
            if name != "null" and name not in known:
                hint = did_you_mean(name, known).strip()
                sub = {"experiment": "experiment", "dataset": "dataset", "model": "model"}.get(key)
                found = sorted({str(p.parent.parent) for pattern in (f"*/{sub}/{name}.yaml", f"*/*/{sub}/{name}.yaml")
                                for p in Path.cwd().glob(pattern)})[:3] if sub else []
                forgot = (f" It is in {', '.join(found)}: did you forget --config-dir {found[0]}?" if found else "")
                return (f"unknown {key} {name!r}; " + (f"{hint} " if hint else "")
                        + f"(`{GROUPS[key]}` lists them)" + forgot)
    return None


# --------------------------------------------------------------------------- read-only commands

#: Hydra overrides that make a command write nothing: the working directory as its run dir (no
#: results/logs/<date>/<time>/), no .hydra/ copy, and the job's log on the console only (no cli.log)
QUIET = ["hydra.run.dir=.", "hydra.output_subdir=null", "~hydra.job_logging.handlers.file",
         "hydra.job_logging.root.handlers=[console]"]


def read_only_overrides(args: list[str]) -> list[str]:
    """:data:`QUIET`, unless ``args`` sweep (``-m``) or set the run dir or the job logging themselves."""
    if any(a in ("-m", "--multirun") for a in args):
        return []
    keys = {k for k, _ in _overrides(args)} | {a.lstrip("~+").partition("=")[0] for a in args}
    if keys & {"hydra.run.dir", "hydra/job_logging", "hydra.job_logging"} or any(
            k.startswith("hydra.job_logging") for k in keys):
        return []
    return list(QUIET)


# --------------------------------------------------------------------------- completion

COMPLETION = r"""# bash completion for randml: eval "$(randml completion bash)" (in ~/.bashrc to keep it)
_randml_names() {  # config names of group $1: <dir>/$1/*.yaml of the shipped config dirs and each --config-dir
    local group=$1 dir f i
    local dirs=(__DIRS__)
    [[ -z ${RANDML_CONF:-} ]] || dirs+=("$RANDML_CONF")
    for ((i = 1; i < ${#COMP_WORDS[@]}; i++)); do
        case "${COMP_WORDS[i]}" in
            --config-dir|-cd)
                if [[ ${COMP_WORDS[i+1]} == "=" ]]; then dirs+=("${COMP_WORDS[i+2]}"); else dirs+=("${COMP_WORDS[i+1]}"); fi ;;
            --config-dir=*) dirs+=("${COMP_WORDS[i]#--config-dir=}") ;;
        esac
    done
    for dir in "${dirs[@]}"; do
        dir=${dir/#\~/$HOME}
        for f in "$dir/$group"/*.yaml; do
            [[ -e $f ]] || continue
            f=${f##*/}
            printf '%s\n' "${f%.yaml}"
        done
    done
}

_randml_values() {  # values of key $1 of subcommand $2
    case "$1" in
        experiment|dataset|model|profile|protocol) _randml_names "$1" ;;
        metric) [[ $2 == compare ]] && printf '%s\n' gmean accuracy balanced_accuracy log_loss rmse mae ;;
        rule) [[ $2 == compare ]] && printf '%s\n' best_mean nested ;;
        backend) printf '%s\n' loky dask ray ;;
        retry_failed|progress) printf '%s\n' true false ;;
    esac
}

_randml() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev="" cmd=${COMP_WORDS[1]} key="" value="" prefix="" keys
    (( COMP_CWORD > 0 )) && prev=${COMP_WORDS[COMP_CWORD-1]}
    COMPREPLY=()
    if (( COMP_CWORD == 1 )); then
        COMPREPLY=($(compgen -W "run plan status report compare data dataset model completion --help --version" -- "$cur"))
        return 0
    fi
    case "$cmd" in
        data|dataset)
            if (( COMP_CWORD == 2 )); then
                COMPREPLY=($(compgen -W "list show fetch catalog --config-dir --help" -- "$cur"))
            elif [[ $prev == --config-dir ]]; then
                COMPREPLY=($(compgen -d -- "$cur"))
            elif [[ ${COMP_WORDS[2]} == @(show|fetch|catalog) ]]; then
                COMPREPLY=($(compgen -W "$(_randml_names dataset)" -- "$cur"))
            fi
            return 0 ;;
        model) (( COMP_CWORD == 2 )) && COMPREPLY=($(compgen -W "list" -- "$cur")); return 0 ;;
        completion) (( COMP_CWORD == 2 )) && COMPREPLY=($(compgen -W "bash zsh" -- "$cur")); return 0 ;;
        run|plan|status|report|compare) ;;
        *) return 0 ;;
    esac
    if [[ $prev == @(--config-dir|-cd) ]]; then
        COMPREPLY=($(compgen -d -- "$cur"))
        return 0
    fi
    # key=value is one word, or three ("key" "=" "value") where COMP_WORDBREAKS holds '=' (bash's default)
    if [[ $cur == "=" ]]; then
        key=$prev
    elif [[ $cur == *=* ]]; then
        key=${cur%%=*} value=${cur#*=} prefix="${cur%%=*}="
    elif [[ $prev == "=" ]] && (( COMP_CWORD >= 3 )); then
        key=${COMP_WORDS[COMP_CWORD-2]} value=$cur
    fi
    key=${key#+}
    if [[ -n $key ]]; then
        case "$key" in
            store_dir|results_dir) COMPREPLY=($(compgen -d -- "$value")) ;;
            *) COMPREPLY=($(compgen -W "$(_randml_values "$key" "$cmd")" -- "$value")) ;;
        esac
        if [[ -n $prefix ]]; then
            local i
            for i in "${!COMPREPLY[@]}"; do COMPREPLY[i]="$prefix${COMPREPLY[i]}"; done
        fi
        return 0
    fi
    keys="experiment= dataset= model= profile= protocol= protocol.repeats= protocol.n_splits= protocol.inner_splits= n_jobs= store_dir= results_dir= --config-dir --help"
    case "$cmd" in
        run) keys+=" -m retry_failed= progress= shard= backend= backend_address=" ;;
        plan) keys+=" workers= shard=" ;;
        status) keys+=" --failed" ;;
        report) keys+=" report.metrics=" ;;
        compare) keys+=" metric= models= rule=" ;;
    esac
    COMPREPLY=($(compgen -W "$keys" -- "$cur"))
    if [[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} == *= ]]; then
        compopt -o nospace 2>/dev/null
    fi
    return 0
}
complete -F _randml randml
"""


def completion_script(shell: str, shipped) -> str:
    """The completion script for ``bash`` or ``zsh`` (zsh runs the bash one through ``bashcompinit``); ``shipped``:
    the engine's and the benchmarks' config dirs, whose names it offers beside a ``--config-dir``'s."""
    script = COMPLETION.replace("__DIRS__", " ".join(shlex.quote(str(d)) for d in shipped))
    if shell == "bash":
        return script
    if shell == "zsh":
        return ("# zsh completion for randml: eval \"$(randml completion zsh)\" (in ~/.zshrc to keep it)\n"
                "autoload -U +X compinit && compinit\nautoload -U +X bashcompinit && bashcompinit\n" + script)
    raise ValueError(f"no completion for shell {shell!r}; choose bash or zsh")


# --------------------------------------------------------------------------- randml model list


def _model_row(path: Path) -> dict:
    """One model config: its name, family or ``_target_``, the tasks it handles and its grid size."""
    import math

    from omegaconf import OmegaConf

    from .config import _model_variants
    from .errors import ConfigError
    from .family import family_of
    name = path.stem
    m = OmegaConf.to_container(OmegaConf.load(path), resolve=True)
    if not isinstance(m, dict):
        raise ConfigError(f"model config '{path}' is not a mapping")
    if m.get("plugin"):  # the module that registers this config's family (a config dir's, checked first), as run does
        from .config import _importable
        from .plugins import load_package
        from .trust import check_plugin_module
        _importable([path.parent.parent])  # found there (at the end of sys.path), then checked to lie there
        check_plugin_module(m["plugin"], f"{name}.plugin", [path.parent.parent])
        try:
            load_package(m["plugin"])
        except ImportError as exc:
            raise ConfigError(f"{name}.plugin: cannot import {m['plugin']!r} ({exc})") from None
    variants = _model_variants(name, m, "paper", None)  # every value checked, the _target_ trusted first
    what = m["estimator"]["_target_"] if "estimator" in m else m["family"]
    tasks = family_of(variants[0].family, variants[0].target).handles() if variants else ()
    settings = math.prod(len(v) for v in (variants[0].grid.values() if variants else ()))
    return {"name": name, "family": what, "tasks": ",".join(tasks), "variants": len(variants),
            "settings": settings, "dir": path.parent.parent}


def model_list(dirs, shipped=()) -> int:
    """``randml model list``: every model config of the config ``dirs`` (in search order: a user's first), one row
    each by name; a row not from a ``shipped`` dir names its folder. Exit 2 if one is invalid."""
    import warnings

    from .errors import ConfigError
    rows, bad, seen = [], [], set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # third-party import noise (numba, xgboost) is not part of the list
        for d in dirs:
            for path in sorted((Path(d) / "model").glob("*.yaml")):
                if path.stem in seen:
                    continue
                seen.add(path.stem)
                try:
                    rows.append(_model_row(path))
                except (ConfigError, ValueError, KeyError, TypeError) as exc:
                    bad.append(f"{path}: {exc}")
    print(f"{'name':18s} {'family or _target_':44s} {'tasks':29s} {'variants':>8s} {'settings':>8s}")
    shipped = {Path(d).resolve() for d in shipped}
    for r in sorted(rows, key=lambda r: r["name"]):
        mine = "" if Path(r["dir"]).resolve() in shipped else f"  ({r['dir']})"
        print(f"{r['name']:18s} {r['family']:44s} {r['tasks']:29s} {r['variants']:8d} {r['settings']:8d}{mine}")
    regression = [r["name"] for r in rows if "regression" in r["tasks"].split(",")]
    print(f"\n{len(rows)} model configs; regression: {', '.join(regression) or 'none'} "
          "(the others are classifiers; tasks: what a cell of that task runs, else it is stored as skipped by rule; "
          "settings: grid settings per variant under profile=paper)")
    for line in bad:
        print(f"randml model list: invalid model config {line}", file=sys.stderr)
    return 2 if bad else 0


# --------------------------------------------------------------------------- randml status --failed


def failed_groups(rows) -> list[tuple[str, str, str, int]]:
    """``(dataset, model, error, count)`` of failed cells ``rows`` (dicts with those keys), most frequent first,
    then by dataset, model and error text."""
    counts: dict = {}
    for r in rows:
        key = (r["dataset"], r["model"], str(r["error"] or "(no error text stored)"))
        counts[key] = counts.get(key, 0) + 1
    return sorted(((d, m, e, n) for (d, m, e), n in counts.items()), key=lambda t: (-t[3], t[0], t[1], t[2]))
