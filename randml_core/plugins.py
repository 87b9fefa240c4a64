"""The plug-in contract: how a benchmark (a paper's reproduction, or your own project) plugs into randml.

A **benchmark** is one Python package (one folder). The engine knows none by name; every member is
optional and found by its file name:

==========================  ==================================================================================
``__init__.py``             may define ``BENCHMARK = Benchmark(...)``: its name, title and page facts (the site
                            gives it a page; ``tables`` names its result tables for ``make stats``)
``families.py``             registers model families at import (:func:`randml_core.family.register_family`)
``datasets.py``             registers dataset tables and generators at import (a table:
                            ``randml_core.data.registry.register_table(specs, __name__)``, which keeps the
                            benchmark's place in listings; one spec: :func:`randml_core.data.register`;
                            generators a card may name: ``register_generator``)
``conf/``                   Hydra config groups (``experiment/``, ``model/``, ``dataset/`` cards): an installed
                            benchmark's are on Hydra's search path after the engine's ``conf/``
                            (:mod:`randml_core.searchpath`); a user's folder is passed as ``--config-dir``
report modules              named by an experiment's ``report:`` key (default: the generic report)
``published.csv``           the paper's numbers, printed beside ours by its report
``<name>.mk``, ``tests/``   its make targets and its tests
==========================  ==================================================================================

**Discovery**, without a path glob or a list in the engine:

- an installed benchmark declares its package under the entry point group ``randml.benchmarks``
  (``[project.entry-points."randml.benchmarks"] mine = "mypkg"``); the five papers are declared so in
  ``pyproject.toml`` and are loaded in entry-point name order;
- a benchmark in a user's ``--config-dir`` is a package there named by the experiment's ``plugins:`` key
  (``plugins: [mybench]``); :func:`load_package` imports its ``families`` and ``datasets`` members.

A family registered while an installed benchmark's member is imported (or whose evaluator is defined in
one, :func:`owner`, for a ``families`` module a test imported directly) is that benchmark's
(:func:`randml_core.family.benchmark_family`): the check memo remembers its checks (its source is in the
memo's fingerprint, :func:`sources`); a family that a user's ``plugins:`` module, a test or a script
registers is checked every time. Written here because no library defines this contract.
"""
from __future__ import annotations

import functools
import importlib
import importlib.util
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field

__all__ = ["Benchmark", "GROUP", "benchmarks", "packages", "load_members", "load_package", "unavailable",
           "loading", "owner", "folders", "sources", "MEMBERS"]

#: the entry point group an installed benchmark is declared under
GROUP = "randml.benchmarks"
#: the members of a benchmark package that the engine imports (in this order)
MEMBERS = ("datasets", "families")


@dataclass(frozen=True)
class Benchmark:
    """What a benchmark tells the engine about itself (``BENCHMARK`` in its package's ``__init__``)."""
    key: str                      # file prefix of its artefacts in results/ (``<key>_table4.md``)
    short: str                    # name in the site's navigation
    title: str = ""
    authors: str = ""
    config_names: tuple = ()      # values of ``experiment.paper`` in its experiment configs
    catalogue: str = ""           # its name in the datasets catalogue's "papers" column
    text: str = ""                # the paper's text file (../shared/papers/<text>), if any
    #: result-table stem -> (metric, what the numbers are): the tables ``make stats`` reads
    tables: dict = field(default_factory=dict)
    order: int = 100              # place in the site's navigation (then by key)
    package: str = ""             # set by discovery
    #: check id -> reason: the plug-in checks (:mod:`randml_core.testing`) it is known to fail
    expected_failures: dict = field(default_factory=dict)
    #: experiment -> reason: experiments whose cells are too slow (minutes each) for the test suite to recompute
    #: from a committed frame; verified by hand instead (``randml verify``, docs/reproducing.md)
    slow_to_verify: dict = field(default_factory=dict)


#: module -> why it could not be imported (an optional package missing, e.g. the ``papers`` extra)
_UNAVAILABLE: dict[str, str] = {}
_LOADED: set[str] = set()
#: the benchmark package whose member is being imported right now (None: none)
_CURRENT: list[str] = []


@functools.cache
def packages() -> tuple[tuple[str, str], ...]:
    """``(name, package)`` of every installed benchmark, in name order (one scan of the installed
    distributions per process)."""
    from importlib import metadata
    found: dict[str, str] = {}
    # every distribution's entry points, not metadata.entry_points(): that keeps only the first copy of a
    # name, and a source checkout's stale ``*.egg-info`` (on sys.path as the working directory) would hide
    # the installed one; an installed copy's ``*.dist-info`` wins over an ``*.egg-info``
    dists = sorted(metadata.distributions(), key=lambda d: str(getattr(d, "_path", "")).endswith(".egg-info"))
    for dist in dists:
        for ep in dist.entry_points:
            if ep.group == GROUP:
                found.setdefault(ep.name, ep.value.split(":")[0].strip())
    return tuple(sorted(found.items()))


def owner(module: str | None) -> str | None:
    """The installed benchmark package that holds ``module`` (a dotted name), else None."""
    if not module:
        return None
    for _, package in packages():
        if module == package or module.startswith(package + "."):
            return package
    return None


def loading() -> str | None:
    """The benchmark package whose ``families`` / ``datasets`` module is being imported now, else None."""
    return _CURRENT[-1] if _CURRENT else None


@contextmanager
def _importing(package: str):
    _CURRENT.append(package)
    try:
        yield
    finally:
        _CURRENT.pop()


def _import_member(package: str, member: str | None, installed: bool, strict: bool = False) -> None:
    """Import ``package.member`` (``member`` None: the package itself) once; a module that is absent is
    skipped. One whose imports fail is recorded in :func:`unavailable` (an installed benchmark: the others go
    on), or, ``strict`` (a user's ``plugins:`` package), raises the ImportError for the user to see.
    ``installed``: registrations during the import are that benchmark's (:func:`loading`)."""
    module = f"{package}.{member}" if member else package
    if module in _LOADED or (module in _UNAVAILABLE and not strict):
        return
    try:
        if importlib.util.find_spec(module) is None:
            _LOADED.add(module)
            return
    except ImportError as exc:  # the package itself cannot be imported
        if strict:
            raise
        _UNAVAILABLE[module] = f"{package} cannot be imported ({exc})"
        return
    _LOADED.add(module)
    try:
        with _importing(package) if installed else nullcontext():
            importlib.import_module(module)
    except ImportError as exc:  # its families are not available here; the other benchmarks' are
        _LOADED.discard(module)
        if strict:
            raise
        _UNAVAILABLE[module] = (f"{module} cannot be imported ({exc}); a paper's packages are in the papers "
                                "extra: pip install 'randml[papers]'")


def load_package(module: str) -> None:
    """Import a user's plug-in ``module`` (an experiment's ``plugins:`` entry): the module, then, if it is a
    package, its :data:`MEMBERS`. Raises ImportError if the module or one of its members cannot be imported."""
    importlib.import_module(module)
    spec = importlib.util.find_spec(module)
    if spec is not None and spec.submodule_search_locations:
        for member in MEMBERS:
            _import_member(module, member, installed=False, strict=True)


def load_members(member: str, until=None) -> None:
    """Import ``member`` (``"families"`` or ``"datasets"``) of every installed benchmark, once each, in name
    order; ``until``: a ``() -> bool`` asked after each import, True stops there (a family name found: a cached
    command that needs one benchmark's families imports no other's, nor their scikit-learn / XGBoost)."""
    for _, package in packages():
        if until is not None and until():
            return
        _import_member(package, member, installed=True)


def folders(package: str) -> list[str]:
    """The folders of ``package`` (a package's ``submodule_search_locations``), found without importing it;
    [] when it is not a package or cannot be found."""
    try:
        spec = importlib.util.find_spec(package)
    except ImportError:
        return []
    return list(spec.submodule_search_locations or []) if spec is not None else []


def sources() -> list:
    """The directories of the installed benchmarks' packages (their source is part of the check memo's
    fingerprint), found without importing them."""
    return sorted({folder for _, package in packages() for folder in folders(package)})


def unavailable() -> dict[str, str]:
    """module -> why it could not be imported."""
    return dict(_UNAVAILABLE)


@functools.cache
def benchmarks() -> tuple[Benchmark, ...]:
    """The installed benchmarks that describe themselves (``BENCHMARK`` in their package), by ``order``."""
    out = []
    for name, package in packages():
        try:
            module = importlib.import_module(package)
        except ImportError as exc:
            _UNAVAILABLE[package] = f"{package} cannot be imported ({exc})"
            continue
        bench = getattr(module, "BENCHMARK", None)
        if isinstance(bench, Benchmark):
            out.append(Benchmark(**{**bench.__dict__, "package": package}))
    return tuple(sorted(out, key=lambda b: (b.order, b.key)))
