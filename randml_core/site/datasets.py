"""The datasets of a user's benchmark (``--benchmark KEY``), from the dataset cards its experiments use.

Each experiment of the benchmark is composed as ``randml run`` composes it (:func:`randml_core.results.compose_spec`:
Hydra over the user's config dir and the shipped ones, the cards registered through
:func:`randml_core.data.cards.register_cards`), and each dataset it names is described from its registered
:class:`~randml_core.data.registry.DatasetSpec` (the card's task, licence, citation, notes, expected shape):

* whether it is here without a download (:func:`randml_core.data.commands.where_from`, as ``randml data list``);
* size, classes and missing values from the data itself when it is here and not large (loaded as a run loads
  it, never downloaded), else from the card's ``expected`` block, else "not known".

Nothing here needs the network; a benchmark whose experiment does not compose gets the reason instead of a row.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path

#: a dataset with more cells (n x d, from its card's ``expected``) is described from the card without loading it
LOAD_MAX_CELLS = 5_000_000


@dataclass
class DatasetInfo:
    name: str
    task: str
    licence: str
    citation: str
    notes: str
    kind: str                     # the source kind a run would use here (or the first one)
    here: str                     # offline | cached | needs download | not installed
    card: Path | None
    substitute_of: str | None
    n: int | None = None
    d: int | None = None
    class_counts: dict = field(default_factory=dict)
    missing: int | None = None    # missing feature values in the loaded data (None: not checked)
    measured: str = ""            # how size / classes / missing values are known (loaded, or the card's expected)
    experiments: list = field(default_factory=list)

    @property
    def size(self) -> str:
        return f"{self.n} x {self.d}" if self.n is not None and self.d is not None else "not known"

    @property
    def classes(self) -> str:
        if self.task == "regression":
            return "-"
        return str(len(self.class_counts)) if self.class_counts else "not known"

    @property
    def counts(self) -> str:
        return " / ".join(str(c) for c in self.class_counts.values()) if self.class_counts else ""


def _missing(X) -> int:
    import numpy as np
    data = X.data if hasattr(X, "tocsr") else X  # a sparse matrix: only its stored values can be NaN
    data = np.asarray(data)
    return int(np.isnan(data).sum()) if data.dtype.kind == "f" else 0


def describe(name: str) -> DatasetInfo:
    """One registered dataset, from its spec and, when it is here and small, from the data."""
    from ..data import get_spec, load_dataset
    from ..data.commands import where_from
    from ..data.sources import no_downloads

    spec = get_spec(name)
    kind, here = where_from(spec)
    exp = spec.expected or {}
    info = DatasetInfo(name=spec.name, task=spec.task, licence=spec.licence, citation=spec.citation, notes=spec.notes,
                       kind=kind, here=here, card=spec.card, substitute_of=spec.substitute_of,
                       n=exp.get("n"), d=exp.get("d"), class_counts=dict(exp.get("class_counts") or {}))
    known = "the card's expected block" if info.n is not None or info.class_counts else ""
    large = info.n is not None and info.d is not None and info.n * info.d > LOAD_MAX_CELLS
    if here not in ("offline", "cached"):
        info.measured = known or "not known: the data is not here"
        return info
    if large:
        info.measured = f"{known}; missing values not checked (not loaded: {info.n} x {info.d} is large)"
        return info
    try:
        with no_downloads(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the data-quality and shape warnings of a run's load
            ds = load_dataset(name)
    except Exception as exc:  # described from the card, with the reason it could not be loaded
        info.measured = f"{known or 'not known'}; not loaded here: {type(exc).__name__}: {exc}"
        return info
    info.n, info.d = ds.n_samples, ds.n_features
    info.class_counts = ds.class_counts()
    info.missing = _missing(ds.X)
    info.measured = "the data as a run loads it"
    return info


def benchmark_datasets(experiments) -> tuple[list[DatasetInfo], list[str]]:
    """The datasets of ``experiments`` (``(name, config dir or None)``, in order), each once, in the order the
    experiments list them, with the experiments that use it; and one message per experiment that did not compose."""
    from ..results import compose_spec

    used: dict[str, list[str]] = {}
    problems = []
    for name, config_dir in experiments:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                spec = compose_spec(name, config_dir=config_dir)
        except Exception as exc:  # a broken config: the page says so, the rest of the site is still built
            problems.append(f"experiment {name}: {type(exc).__name__}: {exc}")
            continue
        for ds in spec.datasets:
            used.setdefault(ds, []).append(name)
    out = []
    for ds, exps in used.items():
        try:
            info = describe(ds)
        except Exception as exc:
            problems.append(f"dataset {ds}: {type(exc).__name__}: {exc}")
            continue
        info.experiments = exps
        out.append(info)
    return out, problems
