"""The dataset registry: one :class:`DatasetSpec` per dataset name, and its lookups.

A spec gets here in one of two ways:

- **Python** (datasets whose loading needs code: KEEL readers, prepare/post steps, package files):
  each paper's table module (``sets_eem.py``, ``sets_eem_unbalanced.py``, ``sets_common.py``,
  ``sets_elmboost.py``, ``sets_memd.py``, ``sets_slm.py``) calls :func:`register_table`. Each of them
  has a generated card ``conf/dataset/<name>.yaml`` (``scripts/cards.py``) so that ``dataset=<name>``
  selects it in Hydra.
- **A dataset card** ``<config dir>/dataset/<name>.yaml`` with a csv / parquet / openml / sklearn /
  keel / package / synthetic / generated source: :func:`randml_core.data.cards.register_cards`.

``list_datasets()`` returns names in registration order: the Python tables in the order
``randml_core/data/__init__.py`` imports them (EEM's Table 3 order first), then cards.
Loading is :func:`randml_core.data.loading.load_dataset`.

Names that lived here before the split (readers, prepare steps, citation strings, ``load_dataset``)
still resolve as ``registry.<name>`` through the module ``__getattr__`` at the bottom.
"""

from __future__ import annotations

import difflib
import importlib
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
    "stratified_subsample_indices",  # noqa: F822 (resolved by the module __getattr__ below)
    "SPLICE_SUBSAMPLE_SEED",  # noqa: F822 (resolved by the module __getattr__ below)
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
    ``group`` names the part of the paper's table the set belongs to (EEM: ``"uci"``,
    ``"highly-unbalanced"``, ``"extremely-unbalanced"``; ``""`` = none); a substitute carries the
    group of its original. ``card``: the dataset card file the spec was read from (None for a spec
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
#: name -> the module whose table registered it (Python specs shipped with randml)
_ORIGIN: dict[str, str] = {}


def register(spec: DatasetSpec, *, replace: bool = False) -> DatasetSpec:
    """Add a spec to the registry (``replace=True`` to overwrite an existing name)."""
    if spec.name in _REGISTRY and not replace:
        raise ValueError(f"dataset {spec.name!r} is already registered (pass replace=True to overwrite)")
    _REGISTRY[spec.name] = spec
    _ORIGIN.pop(spec.name, None)
    return spec


def register_table(specs: list[DatasetSpec], origin: str) -> None:
    """Register a paper's table of Python specs, remembering the module (``origin``) that holds them:
    these are the shipped datasets that get a generated card (:func:`python_specs`)."""
    for spec in specs:
        register(spec)
        _ORIGIN[spec.name] = origin


def unregister(name: str) -> None:
    """Remove a spec (used by tests that register temporary datasets)."""
    _REGISTRY.pop(name, None)
    _ORIGIN.pop(name, None)


def origin_of(name: str) -> str:
    """Where ``name`` is defined: the Python module of its table, its card file, or ``"register()"``."""
    spec = get_spec(name)
    if spec.card is not None:
        return str(spec.card)
    return _ORIGIN.get(name, "register()")


def python_specs() -> list[DatasetSpec]:
    """The shipped Python specs (registered by a table module), in registration order."""
    return [s for n, s in _REGISTRY.items() if n in _ORIGIN and s.card is None]


def list_datasets(paper: str | None = None, group: str | None = None,
                  substitutes: bool | None = None) -> list[str]:
    """Registered names in registration order, optionally filtered.

    ``paper="eem"`` keeps those tagged with that paper; ``group="uci"`` those of one group of its
    table (an unknown group raises ``ValueError`` listing the known ones); ``substitutes=False``
    only the originals, ``True`` only the substitutes, ``None`` both.
    ``list_datasets("eem")`` = the 9 UCI sets, the 9 highly and the 5 extremely unbalanced sets
    (Table 3 order), then the substitutes.
    """
    if group is not None:
        known = sorted({s.group for s in _REGISTRY.values() if s.group})
        if group not in known:
            raise ValueError(f"unknown dataset group {group!r}; known groups: {', '.join(known)}")
    return [
        n for n, s in _REGISTRY.items()
        if (paper is None or paper in s.papers)
        and (group is None or s.group == group)
        and (substitutes is None or s.is_substitute == substitutes)
    ]


def get_spec(name: str) -> DatasetSpec:
    """The spec of ``name``; unknown names raise :class:`UnknownDatasetError` with a suggestion."""
    try:
        return _REGISTRY[name]
    except KeyError:
        pass
    known = list(_REGISTRY)
    lowered = {k.lower(): k for k in known}
    close = difflib.get_close_matches(str(name).lower(), list(lowered), n=1, cutoff=0.6)
    hint = f"; did you mean {lowered[close[0]]!r}?" if close else ""
    raise UnknownDatasetError(
        f"unknown dataset {name!r}{hint} Known: {', '.join(known)}; data of your own needs a card "
        f"<config dir>/dataset/{name}.yaml, found with --config-dir (randml data list)"
    )


# --------------------------------------------------------------------------- names that lived here before

#: name -> module (relative to randml_core.data) that holds it now
_MOVED = {
    "load_dataset": "loading", "fetch": "loading",
    "stratified_subsample_indices": "sets_eem", "SPLICE_SUBSAMPLE_SEED": "sets_eem",
    "SPLICE_SUBSAMPLE_N": "sets_eem", "splice_prepare": "sets_eem", "splice_subsample": "sets_eem",
    "dropna_rows": "sets_eem", "drop_constant_columns": "sets_eem", "EEM": "sets_eem", "EEM_NOTE": "sets_eem",
    "read_thyroid": "sets_eem_unbalanced", "read_abalone_rings7": "sets_eem_unbalanced",
    "read_agnostic_challenge": "sets_eem_unbalanced", "covtype_cottonwood_vs_lodgepole": "sets_eem_unbalanced",
    "COVTYPE_CLASSES": "sets_eem_unbalanced",
    "one_vs_rest": "sources", "onehot_nominal": "sources",
    "KEEL_LICENCE": "citations", "KEEL_CIT": "citations", "UCI_CIT": "citations", "LIBSVM_CIT": "citations",
    "SKLEARN_LICENCE": "citations", "ZENODO_LICENCE": "citations", "IDB_LICENCE": "citations",
    "DING_CIT": "citations", "IMBLEARN_CIT": "citations", "AGNOSTIC_CIT": "citations",
}


def __getattr__(name: str):
    """``registry.read_thyroid`` and the other names that moved out in the split (PEP 562)."""
    if name in _MOVED:
        return getattr(importlib.import_module(f"{__package__}.{_MOVED[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
