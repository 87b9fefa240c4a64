"""Every default location, resolved in one place: the CLI, :func:`randml_core.results.load`, the data
sources and the checks memo all ask here.

=================  ============================  =====================================================
what               environment variable          default
=================  ============================  =====================================================
result store       ``RANDML_STORE``              ``./results/store`` of the working directory
tables, figures    (``results_dir=``)            ``./results`` of the working directory
run logs           (``hydra.run.dir=``)          ``./results/logs/<date>/<time>``
engine configs     ``RANDML_CONF``               the ``conf/`` shipped beside the package (a benchmark's
                                                 configs: its package's ``conf/``; a user's: ``--config-dir``,
                                                 first in Hydra's search path, randml_core/searchpath.py)
data cache         ``RANDML_DATA_CACHE``         ``datasets/cache`` of a source checkout, else the
                                                 per-user cache dir (``platformdirs``) ``/data``
checks memo        ``RANDML_CHECKS_CACHE``       ``.cache/checks`` of a source checkout, else the
                                                 per-user cache dir ``/checks``
=================  ============================  =====================================================

A *source checkout* is the repository this package was imported from (its parent folder holds
``pyproject.toml`` and ``conf/``); an installed copy (site-packages) never writes beside itself.

The default store is ``$RANDML_STORE`` when set (and not empty), else ``results/store`` under the
*current working directory*: ``randml run experiment=X`` in a folder and ``load("X")`` in the same
folder meet, wherever the project is installed. ``conf/config.yaml`` states the same rule for the CLI
(``store_dir: ${oc.env:RANDML_STORE,results/store}``, a path relative to the working directory);
``tests/test_results_trust.py`` checks that both agree. An explicit ``store_dir=`` wins over both.
"""
from __future__ import annotations

import functools
import os
from pathlib import Path

STORE_ENV = "RANDML_STORE"
CONF_ENV = "RANDML_CONF"
DEFAULT_STORE = Path("results") / "store"  # relative to the working directory, as the CLI's store_dir


def default_store() -> Path:
    """``$RANDML_STORE`` if set and not empty, else ``./results/store`` of the current working directory
    (absolute, resolved now: a later ``chdir`` does not move a store already chosen)."""
    env = os.environ.get(STORE_ENV)
    return Path(env).absolute() if env else Path.cwd() / DEFAULT_STORE


def describe_default_store() -> str:
    """Where :func:`default_store` came from, for messages: the variable or the working-directory rule."""
    if os.environ.get(STORE_ENV):
        return f"${STORE_ENV}"
    return f"default: {DEFAULT_STORE}/ under the working directory {Path.cwd()}"


def conf_dir() -> Path:
    """The primary Hydra config dir of every command and of :func:`randml_core.results.load`: ``$RANDML_CONF``
    if set, else the project's ``conf/`` in a source checkout, else the copy an install put in
    ``<prefix>/share/randml/conf`` (pyproject.toml's data-files)."""
    env = os.environ.get(CONF_ENV)
    if env:
        return Path(env).expanduser().resolve()
    here = Path(__file__).resolve().parent.parent / "conf"
    if here.is_dir():
        return here
    import sys
    import sysconfig
    for prefix in (sysconfig.get_path("data"), sys.prefix, sys.base_prefix):
        installed = Path(prefix) / "share" / "randml" / "conf"
        if installed.is_dir():
            return installed
    return here  # not found: Hydra's error names this path


def source_checkout() -> Path | None:
    """The repository root when this package runs from a source checkout (editable install, or the repo on
    the path); None for an installed copy."""
    root = Path(__file__).resolve().parent.parent
    return root if (root / "pyproject.toml").is_file() and (root / "conf").is_dir() else None


def _user_cache() -> Path:
    from platformdirs import user_cache_dir
    return Path(user_cache_dir("randml", appauthor=False))


def data_cache() -> Path:
    """``$RANDML_DATA_CACHE``, else ``<checkout>/datasets/cache``, else the per-user cache's ``data/``."""
    env = os.environ.get("RANDML_DATA_CACHE")
    if env:
        return Path(env).expanduser()
    root = source_checkout()
    return root / "datasets" / "cache" if root is not None else _user_cache() / "data"


def checks_cache() -> Path:
    """``$RANDML_CHECKS_CACHE``, else ``<checkout>/.cache/checks``, else the per-user cache's ``checks/``."""
    env = os.environ.get("RANDML_CHECKS_CACHE")
    if env:
        return Path(env)
    root = source_checkout()
    return root / ".cache" / "checks" if root is not None else _user_cache() / "checks"


# --------------------------------------------------------------------------- config dirs (Hydra's search path)


@functools.cache
def _benchmark_conf_dirs() -> tuple[Path, ...]:
    """The ``conf/`` folder of each installed benchmark package that has one (found without importing it;
    looked up once per process)."""
    from . import plugins
    out: list[Path] = []
    for _, package in plugins.packages():
        for folder in plugins.folders(package):
            conf = (Path(folder) / "conf").resolve()
            if conf.is_dir() and conf not in out:
                out.append(conf)
    return tuple(out)


def shipped_config_dirs() -> list[Path]:
    """The engine's ``conf/`` (``$RANDML_CONF`` if set), then each benchmark's: every config not of a user."""
    out = [conf_dir()]
    out += [d for d in _benchmark_conf_dirs() if d not in out]
    return out


def user_config_dirs(dirs) -> list[Path]:
    """``dirs`` (a composition's file config dirs) without the shipped ones: the user's ``--config-dir``."""
    shipped = set(shipped_config_dirs())
    return [Path(d) for d in dirs if Path(d).resolve() not in shipped]
