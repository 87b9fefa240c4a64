"""Where results go by default: the one rule the CLI and :func:`randml_core.results.load` share.

The default store is ``$RANDML_STORE`` when set (and not empty), else ``results/store`` under the
*current working directory*: ``randml run experiment=X`` in a folder and ``load("X")`` in the same
folder meet, wherever the project is installed. ``conf/config.yaml`` states the same rule for the CLI
(``store_dir: ${oc.env:RANDML_STORE,results/store}``, a path relative to the working directory);
``tests/test_results_trust.py`` checks that both agree. An explicit ``store_dir=`` wins over both.
"""
from __future__ import annotations

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
    if set, else the project's ``conf/`` (resolved)."""
    env = os.environ.get(CONF_ENV)
    return Path(env).expanduser().resolve() if env else (Path(__file__).resolve().parent.parent / "conf")
