"""The dataset registry: one :class:`DatasetSpec` per dataset name, and its lookups.

A spec gets here in one of two ways:

- **Python** (datasets whose loading needs code: KEEL readers, prepare/post steps, package files):
  a benchmark's ``datasets`` member (``<benchmark>/datasets.py``, the plug-in contract of
  :mod:`randml_core.plugins`) calls :func:`register_table` at import. Each such spec has a generated
  card ``conf/dataset/<name>.yaml`` (``scripts/cards.py``) so that ``dataset=<name>`` selects it in Hydra.
- **A dataset card** ``<config dir>/dataset/<name>.yaml`` with a csv / parquet / openml / sklearn /
  keel / package / synthetic / generated source: :func:`randml_core.data.cards.register_cards`.

The engine names no benchmark: the first lookup or listing (:func:`get_spec`, :func:`list_datasets`,
:func:`python_specs`, :func:`register`, a card or generator lookup; hence ``load_dataset`` too, in any
process, a pool worker included) runs :func:`ensure_loaded` once, which imports every installed
benchmark's ``datasets`` member (:func:`randml_core.plugins.load_members`) and then registers the
cards of the primary config dir.

``list_datasets()`` returns names in a fixed order whatever the import order: the Python tables by
benchmark (entry-point name order, :func:`randml_core.plugins.packages`), within one benchmark in the
order it registers them; then everything else (cards, :func:`register`) in registration order.
Loading is :func:`randml_core.data.loading.load_dataset`.

Names that lived here before the split (``load_dataset``, ``fetch``, source helpers, citation strings)
still resolve as ``registry.<name>`` through the module ``__getattr__`` at the bottom; a benchmark's
readers and prepare steps are imported from its own ``datasets`` module.
"""

from __future__ import annotations

import difflib
import importlib
import itertools
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .checks import issparse
from .sources import Source

__all__ = [
    "Dataset",
    "DatasetSpec",
    "UnknownDatasetError",
    "DatasetMismatchWarning",
    "TASKS",
    "load_dataset",  # noqa: F822 (resolved by the module __getattr__ below)
    "list_datasets",
    "get_spec",
    "register",
    "register_table",
    "unregister",
    "origin_of",
    "python_specs",
    "fetch",  # noqa: F822 (resolved by the module __getattr__ below)
    "ensure_loaded",
]

TASKS = ("binary", "multiclass", "regression")


class UnknownDatasetError(LookupError):
    """No dataset of that name is registered (the message suggests the closest name)."""


class DatasetMismatchWarning(UserWarning):
    """Loaded data differs from the spec's ``expected`` shape or class counts."""


@dataclass(frozen=True, eq=False)
class DatasetSpec:
    """Everything known about one dataset.

    ``sources`` are tried in order by ``load_dataset(source="auto")`` (offline kinds before
    online ones). ``expected`` holds the known ``n``, ``d`` and ``class_counts`` (keys are the
    final labels, i.e. 0/1 for binary sets); a key that is absent or None is not checked.
    ``post(X, y) -> (X, y)`` runs after the label mapping, for every source.
    ``group`` names the part of the paper's table the set belongs to (e.g. ``"uci"``; ``""`` = none); a
    substitute carries the group of its original. ``card``: the dataset card file the spec was read from (None for a spec
    written in Python); it is named in the source description of every load.
    """

    name: str
    task: str
    papers: tuple[str, ...]
    sources: list[Source]
    expected: dict[str, Any]
    licence: str
    citation: str
    notes: str = ""
    substitute_of: str | None = None
    group: str = ""
    #: the dataset's own fixed train/test split (protocol kind "fixed"): its last ``test_last`` rows
    #: are the test set (e.g. MNIST's standard 60k/10k split); None = no fixed split
    test_last: int | None = None
    post: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]] | None = None
    card: Path | None = None

    @property
    def is_substitute(self) -> bool:
        return self.substitute_of is not None

    def __post_init__(self):
        if self.task not in TASKS:
            raise ValueError(f"DatasetSpec {self.name!r}: task must be one of {TASKS}, got {self.task!r}")


@dataclass(frozen=True, eq=False, repr=False)
class Dataset:
    """A loaded, validated dataset. ``X`` and ``y`` are read-only (copy before modifying)."""

    name: str
    task: str
    X: np.ndarray
    y: np.ndarray
    data_hash: str
    source: str
    source_kind: str
    is_substitute: bool
    substitute_of: str | None
    notes: str
    label_names: dict[int, str] | None = None
    spec: DatasetSpec | None = field(default=None, compare=False)
    #: the feature columns' names (a card's file; empty: unnamed) and the 0-based categorical columns,
    #: encoded per fold by the run (``experiment.categorical``; :func:`randml_core.preprocess.encode`)
    feature_names: tuple[str, ...] = ()
    categorical: tuple[int, ...] = ()

    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    @property
    def test_index(self) -> np.ndarray | None:
        """Rows of the dataset's own test set (``DatasetSpec.test_last``), or None."""
        k = None if self.spec is None else self.spec.test_last
        return None if k is None else np.arange(self.n_samples - k, self.n_samples)

    @property
    def is_sparse(self) -> bool:
        return issparse(self.X)

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    def class_counts(self) -> dict:
        """``{label: count}`` in label order (empty for regression)."""
        if self.task == "regression":
            return {}
        labels, counts = np.unique(self.y, return_counts=True)
        return {_py(lab): int(c) for lab, c in zip(labels, counts)}

    def __repr__(self) -> str:
        return (
            f"Dataset(name={self.name!r}, task={self.task!r}, shape={self.X.shape}, "
            f"hash={self.data_hash[:16]}, source_kind={self.source_kind!r})"
        )


def _py(v):
    return v.item() if isinstance(v, np.generic) else v


# --------------------------------------------------------------------------- the registry

_REGISTRY: dict[str, DatasetSpec] = {}
#: name -> the module whose table registered it (Python specs of a benchmark)
_ORIGIN: dict[str, str] = {}
#: name -> its place in the listings: (benchmark rank, registration number); kept when a spec is replaced
_PLACE: dict[str, tuple[int, int]] = {}
_NUMBER = itertools.count()
#: the rank of everything that is not a benchmark's Python table (cards, register())
_LAST = sys.maxsize
_LOADED = False  # True once ensure_loaded() has started


#: what :func:`ensure_loaded` runs after the benchmarks' ``datasets`` members: ``cards.py`` adds the registration
#: of the primary config dir's cards (so that this module does not import it: cards imports this one)
AFTER_LOAD: list = []


def ensure_loaded() -> None:
    """Import every installed benchmark's ``datasets`` member, then register the cards of the primary
    config dir; once per process (the first lookup calls it; calling it again does nothing)."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    from .. import plugins  # here, not at the top: a benchmark's datasets module imports this module

    plugins.load_members("datasets")
    for step in AFTER_LOAD:
        step()


def _rank(origin: str | None) -> int:
    """The place of the benchmark package that holds module ``origin`` among the installed ones."""
    if origin is None:
        return _LAST
    from .. import plugins

    packages = [package for _, package in plugins.packages()]
    owner = plugins.owner(origin)
    # a benchmark that is not installed (a user's ``plugins:`` package): after those that are
    return packages.index(owner) if owner is not None else len(packages)


def _add(spec: DatasetSpec, replace: bool, origin: str | None) -> DatasetSpec:
    if spec.name in _REGISTRY and not replace:
        raise ValueError(f"dataset {spec.name!r} is already registered (pass replace=True to overwrite)")
    _REGISTRY[spec.name] = spec
    if origin is None:
        _ORIGIN.pop(spec.name, None)
    else:
        _ORIGIN[spec.name] = origin
    _PLACE.setdefault(spec.name, (_rank(origin), next(_NUMBER)))
    return spec


def _names() -> list[str]:
    """Every registered name, in listing order."""
    return sorted(_REGISTRY, key=_PLACE.__getitem__)


def register(spec: DatasetSpec, *, replace: bool = False) -> DatasetSpec:
    """Add a spec to the registry (``replace=True`` to overwrite an existing name)."""
    ensure_loaded()
    return _add(spec, replace, None)


def register_table(specs: list[DatasetSpec], origin: str) -> None:
    """Register a benchmark's table of Python specs, remembering the module (``origin``) that holds them:
    these are the shipped datasets that get a generated card (:func:`python_specs`). Called by a
    benchmark's ``datasets`` module at import; it triggers no loading of the others."""
    for spec in specs:
        _add(spec, False, origin)


def unregister(name: str) -> None:
    """Remove a spec (used by tests that register temporary datasets)."""
    ensure_loaded()
    _REGISTRY.pop(name, None)
    _ORIGIN.pop(name, None)
    _PLACE.pop(name, None)


def origin_of(name: str) -> str:
    """Where ``name`` is defined: the Python module of its table, its card file, or ``"register()"``."""
    spec = get_spec(name)
    if spec.card is not None:
        return str(spec.card)
    return _ORIGIN.get(name, "register()")


def python_specs() -> list[DatasetSpec]:
    """The shipped Python specs (registered by a benchmark's table), in listing order."""
    ensure_loaded()
    return [_REGISTRY[n] for n in _names() if n in _ORIGIN and _REGISTRY[n].card is None]


def list_datasets(paper: str | None = None, group: str | None = None,
                  substitutes: bool | None = None) -> list[str]:
    """Registered names in listing order (module docstring), optionally filtered.

    ``paper="<tag>"`` keeps those tagged with that paper (a spec's ``papers``); ``group="uci"`` those of
    one group of a table (an unknown group raises ``ValueError`` listing the known ones);
    ``substitutes=False`` only the originals, ``True`` only the substitutes, ``None`` both.
    """
    ensure_loaded()
    if group is not None:
        known = sorted({s.group for s in _REGISTRY.values() if s.group})
        if group not in known:
            raise ValueError(f"unknown dataset group {group!r}; known groups: {', '.join(known)}")
    specs = ((n, _REGISTRY[n]) for n in _names())
    return [
        n for n, s in specs
        if (paper is None or paper in s.papers)
        and (group is None or s.group == group)
        and (substitutes is None or s.is_substitute == substitutes)
    ]


def get_spec(name: str) -> DatasetSpec:
    """The spec of ``name``; unknown names raise :class:`UnknownDatasetError` with a suggestion."""
    ensure_loaded()
    try:
        return _REGISTRY[name]
    except KeyError:
        pass
    known = _names()
    lowered = {k.lower(): k for k in known}
    close = difflib.get_close_matches(str(name).lower(), list(lowered), n=1, cutoff=0.6)
    hint = f"; did you mean {lowered[close[0]]!r}?" if close else ""
    raise UnknownDatasetError(
        f"unknown dataset {name!r}{hint} Known: {', '.join(known)}; data of your own needs a card "
        f"<config dir>/dataset/{name}.yaml, found with --config-dir (randml data list)"
    )


# --------------------------------------------------------------------------- names that lived here before

#: name -> module (relative to randml_core.data) that holds it now. A benchmark's own readers and prepare
#: steps, once reachable here too, are imported from its ``datasets`` module (the engine names no benchmark).
_MOVED = {
    "load_dataset": "loading", "fetch": "loading",
    "one_vs_rest": "sources", "onehot_nominal": "sources",
    "KEEL_LICENCE": "citations", "KEEL_CIT": "citations", "UCI_CIT": "citations", "LIBSVM_CIT": "citations",
    "SKLEARN_LICENCE": "citations", "ZENODO_LICENCE": "citations", "IDB_LICENCE": "citations",
    "DING_CIT": "citations", "IMBLEARN_CIT": "citations", "AGNOSTIC_CIT": "citations",
}


def __getattr__(name: str):
    """``registry.load_dataset`` and the other names that moved out in the split (PEP 562)."""
    if name in _MOVED:
        return getattr(importlib.import_module(f"{__package__}.{_MOVED[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
