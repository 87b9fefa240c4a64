"""Hydra's config search path: your config dir first, then the engine's ``conf/``, then every benchmark's.

Every Hydra composition in this environment (``randml``, :func:`randml_core.results.load`, a notebook's own
``hydra.compose``) finds configs in this order:

1. the *primary* config dir: a user's ``--config-dir`` (``randml`` makes it Hydra's primary dir, so your
   ``model/logreg.yaml`` replaces a shipped one of that name), else the engine's ``conf/``;
2. the engine's ``conf/`` (``config.yaml``, ``profile/``, ``protocol/``, ``hydra/``, generic models, the
   cross-benchmark leaderboard), when it is not the primary dir;
3. the ``conf/`` folder of each installed benchmark (entry point group ``randml.benchmarks``, in name order:
   the papers' experiments, models and dataset cards live in ``experiments/<paper>/conf/``).

Hydra takes a config from the first dir that has it. :class:`BenchmarkSearchPath` is a Hydra
``SearchPathPlugin`` declared under Hydra's entry point group ``hydra.plugins`` (pyproject.toml), so Hydra
itself adds 2 and 3 (the list is :func:`randml_core.paths.shipped_config_dirs`); ``tests/test_plugins_common.py``
checks that no two shipped dirs define the same config. Written here because the search path is the contract between Hydra and our benchmark discovery.
"""
from __future__ import annotations

from pathlib import Path

from hydra.core.config_search_path import ConfigSearchPath
from hydra.plugins.search_path_plugin import SearchPathPlugin

from .paths import shipped_config_dirs

__all__ = ["BenchmarkSearchPath"]

PROVIDER = "randml"


def _local(path: str) -> Path | None:
    if path.startswith("file://"):
        path = path[len("file://"):]
    elif "://" in path:
        return None
    return Path(path).expanduser().resolve()


class BenchmarkSearchPath(SearchPathPlugin):
    """Appends the engine's ``conf/`` (unless it is the primary dir) and each benchmark's ``conf/``."""

    def manipulate_search_path(self, search_path: ConfigSearchPath) -> None:
        present = {_local(e.path) for e in search_path.get_path() if e.path}
        for d in shipped_config_dirs():
            if d not in present:
                search_path.append(provider=PROVIDER, path=f"file://{d}")
                present.add(d)
