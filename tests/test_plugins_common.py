"""One common test module over every discovered plug-in (randml_core/plugins.py), no hand-kept list:

- every installed benchmark: declared under its own key, its members import, its statistics tables exist;
- no two shipped config dirs define the same config; looking up a family imports only what it needs.

Each benchmark's families, datasets and experiment configs are checked by the plug-in kit
(randml_core.testing), run over every installed benchmark by tests/test_plugin_kit.py.
"""
from pathlib import Path

import pytest

from randml_core import plugins
from randml_core.paths import shipped_config_dirs

from conftest import REPO, in_repo



def test_the_installed_benchmarks_are_discovered():
    """The engine names no benchmark: every one is found through its entry point, and the dev install has every
    package its benchmarks need (each benchmark's own tests say which of its families carry shared work)."""
    assert plugins.packages() and not plugins.unavailable()
    assert [b.key for b in plugins.benchmarks()] and {b.key for b in plugins.benchmarks()} <= {n for n, _ in plugins.packages()}


#: the benchmarks whose package lives in this repository (another installed benchmark's tables are its own)
IN_REPO = [b for b in plugins.benchmarks() if in_repo(b.package)]


@pytest.mark.parametrize("bench", IN_REPO, ids=lambda b: b.key)
def test_every_benchmark_of_this_repo_has_its_declared_tables_committed(bench):
    """The kit checks what a benchmark says of itself; the tables a benchmark of this repository declares for the
    statistics are committed in results/tables."""
    for stem in bench.tables:
        assert (REPO / "results" / "tables" / f"{stem}.csv").is_file(), stem


# Every family's declared check, its shared work against the plain path, every card and every experiment config of
# every installed benchmark: the plug-in kit, tests/test_plugin_kit.py (randml_core.testing).


EXPERIMENTS = sorted({p.stem for d in shipped_config_dirs() for p in (d / "experiment").glob("*.yaml")})


def test_every_benchmark_brings_its_configs_and_no_two_shipped_dirs_define_the_same_config():
    """Hydra takes a config from the first dir of its search path that has it (randml_core/searchpath.py): a
    name defined twice among the shipped dirs would hide one of them without a word. Every benchmark with
    experiments is on the search path Hydra itself builds (the entry point ``hydra.plugins``)."""
    from hydra import compose, initialize_config_dir
    dirs = shipped_config_dirs()
    seen: dict[str, Path] = {}
    for d in dirs:
        for f in sorted(d.rglob("*.yaml")):
            rel = f.relative_to(d).as_posix()
            assert rel not in seen, f"{rel} is in both {seen[rel]} and {d}"
            seen[rel] = d
    owners = {d for rel, d in seen.items() if rel.startswith("experiment/")}
    # the engine's own (tiny, leaderboard) and every installed benchmark's that has experiments, each once
    with_experiments = {(Path(f) / "conf").resolve() for _, package in plugins.packages()
                        for f in plugins.folders(package) if any((Path(f) / "conf" / "experiment").glob("*.yaml"))}
    assert owners == {dirs[0], *with_experiments} and dirs[0] not in with_experiments
    # a benchmark's experiment (the first in name order of those not in the engine's conf/, whichever it is) composes
    # from the engine's primary dir, through the search path Hydra builds
    import yaml
    rel = next(rel for rel, d in sorted(seen.items()) if rel.startswith("experiment/") and d != dirs[0])
    name = yaml.safe_load((seen[rel] / rel).read_text())["experiment"]["name"]
    with initialize_config_dir(config_dir=str(dirs[0]), version_base="1.3"):
        cfg = compose("config", overrides=[f"experiment={Path(rel).stem}"], return_hydra_config=True)
    found = [Path(s.path) for s in cfg.hydra.runtime.config_sources if s.schema == "file"]
    assert found == dirs and cfg.experiment.name == name


_LOOKUP = """import json, sys
from randml_core.family import FAMILIES
out = []
for name in {names!r}:
    found = name in FAMILIES
    out.append([found, sorted(p for p in {packages!r} if p + ".families" in sys.modules),
                sorted(m for m in {watch!r} if m in sys.modules)])
print(json.dumps(out))
"""


def families_lookup(names, watch, env) -> list:
    """Look up the families ``names`` one after the other in a fresh process; for each, ``[found, the installed
    benchmark packages whose families module is imported by then, the modules of watch imported by then]``."""
    import json
    import subprocess
    import sys
    code = _LOOKUP.format(names=list(names), watch=list(watch), packages=[p for _, p in plugins.packages()])
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_looking_up_a_family_imports_the_benchmarks_only_until_it_is_found(cli_env):
    """The registry imports the benchmarks' ``families`` in name order until the name is registered: a family of
    the first benchmark that has any imports no later benchmark's families (nor what they import); a family of the
    last one imports every benchmark's up to it."""
    import importlib.util

    from randml_core import testing
    order = [package for _, package in plugins.packages()]
    with_families = {package: testing.families(name) for name, package in plugins.packages() if testing.families(name)}
    first, last = next(iter(with_families)), list(with_families)[-1]
    has_module = [p for p in order if importlib.util.find_spec(p + ".families") is not None]

    def up_to(package):
        return sorted(p for p in has_module if order.index(p) <= order.index(package))
    (found, loaded, _), (later, loaded_later, _) = families_lookup(
        [with_families[first][0], with_families[last][0]], [], cli_env)
    assert found and loaded == up_to(first)
    assert later and loaded_later == up_to(last)
    assert len(with_families) < 2 or loaded != loaded_later  # with two benchmarks, the first lookup stopped early
