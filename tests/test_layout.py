"""The engine's shape (issue "a paper-blind engine"): randml_core names no benchmark outside its estimator
library (randml_core/models/, which any config may name by _target_), and its module-level imports form no
cycle."""
import ast
import re

from randml_core import plugins

from conftest import REPO, in_repo

ENGINE = REPO / "randml_core"


def _engine_files():
    return sorted(p for p in ENGINE.rglob("*.py") if "models" not in p.relative_to(ENGINE).parts)


def test_the_engine_names_no_benchmark():
    """No module, docstring or message of the engine names a discovered benchmark (its key or short name)."""
    # the benchmarks of this repository (another installed package's names may be ordinary words of the engine's)
    ours = [b for b in plugins.benchmarks() if in_repo(b.package)]
    names = {b.key for b in ours} | {b.short for b in ours if " " not in b.short}
    assert ours and all(b.key in names for b in ours)
    word = re.compile(r"(?<![A-Za-z])(" + "|".join(map(re.escape, sorted(names))) + r")(?![A-Za-z])", re.I)
    found = [f"{p.relative_to(REPO)}:{i}: {line.strip()}" for p in _engine_files()
             for i, line in enumerate(p.read_text().splitlines(), 1) if word.search(line)]
    assert found == []


def _module_name(path):
    parts = list(path.with_suffix("").relative_to(REPO).parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path, name, modules):
    """The engine modules that ``path`` imports, at module level or in a function (``from . import x``: the submodule)."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name in modules}
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else [])) if node.level else node.module
            subs = {f"{target}.{a.name}" for a in node.names} & modules
            out |= subs or ({target} & modules)
    return out - {name}


def test_the_engine_has_no_import_cycle():
    files = {_module_name(p): p for p in ENGINE.rglob("*.py")}
    graph = {name: _imports(p, name, set(files)) for name, p in files.items()}
    state: dict = {}

    def visit(v, path):
        state[v] = "open"
        for w in sorted(graph[v]):
            assert state.get(w) != "open", f"import cycle: {' -> '.join([*path, v, w])}"
            if w not in state:
                visit(w, [*path, v])
        state[v] = "done"
    for v in sorted(graph):
        if v not in state:
            visit(v, [])
    assert len(graph) > 50 and sum(map(len, graph.values())) > 100  # the walk saw the real graph


def test_the_wheel_lists_every_package_and_no_generic_top_level_name():
    """pyproject.toml lists the packages (the papers' folder experiments/ installs as randml_papers): every
    folder with an __init__.py is listed, and each folder of config YAML files (a paper's conf/<group>/, listed
    so that setuptools ships it without a warning), and no top-level name is a generic one (experiments, tests,
    scripts)."""
    import tomllib
    conf = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed, folders = set(conf["packages"]), conf["package-dir"]
    found = set()
    for top, folder in {"randml_core": "randml_core", **{k: v for k, v in folders.items()}}.items():
        for init in (REPO / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(REPO / folder).parts
            found.add(".".join((top, *parts)))
        for group in (REPO / folder).glob("*/conf/*"):
            if group.is_dir() and any(group.glob("*.yaml")):
                found.add(".".join((top, *group.relative_to(REPO / folder).parts)))
    assert found == listed
    assert {p.split(".")[0] for p in listed} == {"randml_core", "randml_papers"}


def test_no_engine_function_is_over_80_lines():
    """Issue "one concern per module": no function of the engine outside its estimator library (models/) is longer
    than 80 lines (decorators and docstring included)."""
    long = [f"{p.relative_to(REPO)}:{n.lineno} {n.name} ({n.end_lineno - n.lineno + 1} lines)"
            for p in _engine_files() for n in ast.walk(ast.parse(p.read_text()))
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.end_lineno - n.lineno + 1 > 80]
    assert long == []
    assert len(_engine_files()) > 50  # the walk saw the engine
