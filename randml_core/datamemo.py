"""A memo of the datasets bundled in the scikit-learn wheel (``sklearn.datasets.load_*``), so that a command
whose cells are all stored does not import scikit-learn (about 2 s of start-up) only to read a small CSV.

An entry is keyed by the *content* it was made from: the loader's name, the installed scikit-learn version,
the bytes of every file of ``sklearn/datasets/data/`` and of ``sklearn/datasets/_base.py`` (the loaders),
the bytes of the module that converts the loader's output (:mod:`randml_core.data.sources.sklearn_bundled`)
and numpy's version. Any change gives another key, so a miss, so the real loader: an entry can never be
stale. It holds the arrays (``.npz``, read without pickle) and the texts the source returns; an unreadable
or unwritable entry only means loading again. Kept beside the model-check memo
(:func:`randml_core.checkmemo.cache_dir`).
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import numpy as np

__all__ = ["bundled_key", "get", "put"]


def _sklearn_dir() -> Path | None:
    """scikit-learn's package folder, found without importing it."""
    spec = importlib.util.find_spec("sklearn")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def bundled_key(loader: str, converter_source: str | Path) -> str | None:
    """The content key of ``sklearn.datasets.<loader>()`` as converted by the module at ``converter_source``;
    None when scikit-learn's files cannot be read (then nothing is remembered)."""
    from importlib import metadata
    root = _sklearn_dir()
    if root is None:
        return None
    try:
        h = hashlib.sha256(json.dumps([loader, metadata.version("scikit-learn"), np.__version__]).encode())
        files = [root / "datasets" / "_base.py", Path(converter_source),
                 *sorted(p for p in (root / "datasets" / "data").iterdir() if p.is_file())]
        for path in files:
            h.update(f"\x1e{path.name}\x1f".encode())
            h.update(path.read_bytes())
    except (OSError, metadata.PackageNotFoundError):
        return None
    return h.hexdigest()


def _path(key: str) -> Path:
    from .checkmemo import cache_dir
    return cache_dir() / f"sklearn-bundled-{key[:32]}.npz"


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
