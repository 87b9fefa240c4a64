"""The trust model: what a config or a dataset card may make randml do (docs/guarantees.md "Trust").

Configs (experiments, models, profiles, overrides) and dataset cards are *data*. Reading them never
runs code that they choose:

- a ``_target_`` is instantiated only if every ``_target_`` of its node resolves to an **estimator
  class** (a class with ``fit`` and ``get_params``), a scikit-learn kernel class, or one of the
  :data:`FACTORIES` named here, and comes from outside the standard library (so no ``shutil.rmtree``,
  ``os.system``; no function either: no ``pandas.read_pickle``, ``joblib.load``). This is checked
  before anything is called; the list Hydra's ``instantiate`` is given (its execution whitelist) is the
  list this module validated, never the config's own. What the call returns must be an estimator.
- a Python module that a config names (``experiment.plugins``, ``experiment.report``, a card's
  ``generated`` source) must be a **plug-in module**: randml's own packages, a module inside one of the
  config dirs in use (``--config-dir``), or a module an installed distribution declares under the entry
  point group ``randml.plugins``. Its location is found without running it; only then is it imported.
- a ``generated`` card names a generator that Python code registered with
  :func:`randml_core.data.sources.generated.register_generator`.
- a card's data file lies inside the card's config dir (``path: ../data/x.csv`` from
  ``conf/dataset/`` is fine; ``/etc/passwd`` and ``../../x`` are not), or under a folder the user lists in
  ``$RANDML_DATA_ROOTS`` (``os.pathsep``-separated): the environment is the user's, a config is not.

Running a plug-in's Python is the one way to run code of one's own. Written here because no library
draws this line for a benchmark's configs (Hydra's own whitelist is per call and asks the caller for it).
"""
from __future__ import annotations

import functools
import importlib
import importlib.machinery
import os
import sys
from pathlib import Path

from .errors import ConfigError, longest_module

__all__ = ["FACTORIES", "SHIPPED_PACKAGES", "check_target_node", "check_estimator", "check_plugin_module",
           "check_data_path", "data_roots", "validated_targets"]

#: callables that are not estimator classes but build one (or a part of one) from estimators
FACTORIES = frozenset({
    "sklearn.pipeline.make_pipeline", "sklearn.pipeline.make_union",
    "sklearn.compose.make_column_transformer", "sklearn.compose.make_column_selector",
})
#: randml's own top-level packages: their modules are plug-in modules
SHIPPED_PACKAGES = ("randml_core", "randml_papers")
#: keys of a ``_target_`` node that Hydra reads; ``_partial_`` would hand a callable on instead of an object
_REFUSED_KEYS = ("_partial_",)


#: the one entry point group of installed benchmarks (randml_core.plugins.GROUP); the packages it declares are
#: trusted plug-ins. ``randml.plugins`` is still read for a package that declared itself there before.
PLUGIN_GROUPS = ("randml.benchmarks", "randml.plugins")


@functools.lru_cache(maxsize=1)
def _entry_point_modules() -> tuple[str, ...]:
    from importlib import metadata
    return tuple(sorted({ep.value.split(":")[0].strip() for group in PLUGIN_GROUPS
                         for ep in metadata.entry_points(group=group)}))


def _location(top: str) -> Path | None:
    """Where the top-level module ``top`` would be imported from, found without importing anything."""
    spec = importlib.machinery.PathFinder.find_spec(top)
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return Path(list(spec.submodule_search_locations)[0])
    return Path(spec.origin) if spec.origin else None


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True


def is_plugin_module(module: str, config_dirs=()) -> bool:
    """Is ``module`` randml's own, in a package declared under the ``randml.benchmarks`` entry point group, or in
    one of ``config_dirs``? Decided without importing it."""
    top = module.split(".")[0]
    if top in SHIPPED_PACKAGES:
        return True
    if any(module == m or module.startswith(m + ".") for m in _entry_point_modules()):
        return True
    where = _location(top)
    if where is None:
        return False
    where = Path(os.path.abspath(where))
    return any(_inside(where, Path(os.path.abspath(d))) for d in config_dirs or ())


def check_plugin_module(module: str, where: str, config_dirs=()) -> None:
    """Raise ConfigError (naming ``where``) unless ``module`` may be imported on a config's word."""
    if not isinstance(module, str) or not module or not all(p.isidentifier() for p in module.split(".")):
        raise ConfigError(f"{where}={module!r} is not a module name (e.g. mypkg.report)")
    if not is_plugin_module(module, config_dirs):
        raise ConfigError(
            f"{where}={module!r} is not a randml plug-in module, so a config may not import it; fix: put the module "
            "in your --config-dir (on the Python path), or declare your package in the entry point group "
            "'randml.benchmarks' (docs/guarantees.md, \"Trust\", CONTRIBUTING)")


def _target_allowed_module(path: str) -> bool:
    """Not the standard library (which has no estimator, but ``os``, ``shutil``, ``subprocess``, ``pickle``)."""
    top = path.split(".")[0]
    return top not in sys.stdlib_module_names and top != "__main__"


def _resolve(path: str):
    """The object named by a dotted path (the longest importable module prefix, then attributes)."""
    parts = path.split(".")
    found = longest_module(parts)
    if found is not None:
        obj, i = found
        for name in parts[i:]:
            obj = getattr(obj, name)
        return obj
    raise ImportError(f"no module of {path!r} can be imported")


def _is_factory(obj) -> bool:
    """Is ``obj`` one of :data:`FACTORIES` (by identity, so an alias elsewhere of another function is not)?"""
    for name in FACTORIES:
        try:
            if _resolve(name) is obj:
                return True
        except (ImportError, AttributeError):
            continue
    return False


def _is_estimator_class(obj) -> bool:
    return isinstance(obj, type) and callable(getattr(obj, "fit", None)) and callable(getattr(obj, "get_params", None))


def _is_kernel_class(obj) -> bool:
    if not isinstance(obj, type):
        return False
    from sklearn.gaussian_process.kernels import Kernel
    return issubclass(obj, Kernel)


def _nodes(node, where: str):
    """Every ``(dict node with _target_, its key path)`` in a nested config value."""
    if isinstance(node, dict):
        if "_target_" in node:
            yield node, where
        for k, v in node.items():
            yield from _nodes(v, f"{where}.{k}")
    elif isinstance(node, (list, tuple)):
        for i, v in enumerate(node):
            yield from _nodes(v, f"{where}[{i}]")


def check_target_node(node: dict, where: str) -> list[str]:
    """Check every ``_target_`` of ``node`` before anything is called; returns the validated targets and the
    canonical names of what they resolve to (the execution whitelist handed to Hydra). Raises ConfigError naming the key and the rule it breaks."""
    targets = []
    for sub, key in _nodes(node, where):
        target = sub["_target_"]
        if not isinstance(target, str) or not target:
            raise ConfigError(f"{key}._target_={target!r} must be an import path (e.g. sklearn.svm.SVC)")
        for refused in _REFUSED_KEYS:
            if sub.get(refused):
                raise ConfigError(f"{key}.{refused} is not allowed: a model config builds estimators, not callables; "
                                  f"fix: remove {refused}")
        if sub.get("memory") is not None:  # Pipeline / make_pipeline(memory=DIR): joblib loads pickles from DIR
            raise ConfigError(f"{key}.memory={sub['memory']!r} is refused: an estimator cache makes joblib load "
                              "pickled objects from that folder (code would run from whatever is in it); fix: remove "
                              "memory (randml shares work between cells itself: a family with shared work)")
        if not _target_allowed_module(target):
            raise ConfigError(
                f"{key}._target_={target!r} is refused: the standard library has no estimator, and a config never "
                "calls its functions (configs are data; docs/guarantees.md, \"Trust\"); fix: name an estimator class")
        try:
            obj = _resolve(target)
        except (ImportError, AttributeError) as exc:
            from .errors import target_hint
            raise ConfigError(f"{key}._target_={target!r} cannot be found ({exc}); {target_hint(target)}"
                              "fix: _target_ is the import path of an estimator class") from None
        if not (_is_estimator_class(obj) or _is_kernel_class(obj) or _is_factory(obj)):
            kind = "a class" if isinstance(obj, type) else f"a {type(obj).__name__}"
            raise ConfigError(
                f"{key}._target_={target!r} is refused: it is {kind} but not an estimator class (a class with fit "
                f"and get_params) nor one of the factories {', '.join(sorted(FACTORIES))}; configs are data and "
                "never run code (docs/guarantees.md, \"Trust\")")
        targets.append(target)
        canonical = f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', '')}"
        if canonical != target:  # Hydra also checks the resolved object's own name (sklearn.compose._column_...)
            targets.append(canonical)
    return sorted(set(targets))


def check_estimator(obj, where: str) -> None:
    """What a ``_target_`` node built must be an estimator (fit, get_params, set_params)."""
    missing = [m for m in ("fit", "get_params", "set_params") if not callable(getattr(obj, m, None))]
    if missing:
        raise ConfigError(f"{where} built a {type(obj).__name__}, not a scikit-learn estimator (it has no "
                          f"{', '.join(missing)}); fix: name an estimator class or a pipeline of estimators")


@functools.lru_cache(maxsize=512)
def _validated(frozen: str) -> tuple[str, ...]:
    import json
    return tuple(check_target_node(json.loads(frozen), "estimator"))


def validated_targets(node: dict) -> list[str]:
    """:func:`check_target_node` remembered per node (the worker builds the same node once per cell)."""
    import json
    return list(_validated(json.dumps(node, sort_keys=True)))


def data_roots() -> list[Path]:
    """The folders ``$RANDML_DATA_ROOTS`` lists, where a card may read data outside its config dir."""
    raw = os.environ.get("RANDML_DATA_ROOTS", "")
    return [Path(os.path.abspath(os.path.expanduser(p))) for p in raw.split(os.pathsep) if p.strip()]


def check_data_path(card: Path, value: str) -> Path | None:
    """The data file a card names, as a path inside the card's config dir (``card``'s grandparent) or a
    ``$RANDML_DATA_ROOTS`` folder; None if it lies elsewhere. Decided on the written path, so a symbolic
    link is followed first: the real file must lie there too (a link in the config dir to ``/etc/passwd`` is refused),
    and no ``..`` or absolute path leaves it."""
    raw = Path(os.path.expanduser(value))
    p = Path(os.path.realpath(raw if raw.is_absolute() else card.parent / raw))
    config_dir = Path(os.path.realpath(card.parent.parent))
    if _inside(p, config_dir) or any(_inside(p, Path(os.path.realpath(root))) for root in data_roots()):
        return p
    return None
