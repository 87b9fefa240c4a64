"""A memo of the model-config checks that need the model classes (``config._model_variants``).

Checking a model config imports its family's module, the model classes and scikit-learn: about 2 s
of start-up that a run whose cells are all stored needs for nothing else. A config that passed the
checks is remembered with the variants it gave and its family's version, under a fingerprint of all
the checks read: the source of ``randml_core/`` and of every installed benchmark package, the installed distributions
(the ``*.dist-info`` names in site-packages carry their versions) and Python's version. Any change
gives another fingerprint, so a miss, so the full checks. Failures are never remembered: a bad config
gets the same error every time. Only families registered by installed benchmarks' modules
(their ``families.py``, :mod:`randml_core.plugins`) are remembered, and the memo is not used for a family already
registered in the process (a test's own or replaced family is always checked).

The memo is ``$RANDML_CHECKS_CACHE`` (default ``<repo>/.cache/checks``), one small JSON file per
fingerprint; an unreadable or unwritable file only means checking again.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
import time
from pathlib import Path

from .artefacts import atomic_file

#: a memo file not written for this long is removed when another is written
KEEP_SECONDS = 14 * 86400


def cache_dir() -> Path:
    """``$RANDML_CHECKS_CACHE`` if set, else ``<repo>/.cache/checks`` in a source checkout, else the per-user
    cache (:func:`randml_core.paths.checks_cache`); read at call time."""
    from .paths import checks_cache
    return checks_cache()


@functools.lru_cache(maxsize=1)
def fingerprint() -> str:
    """SHA-256 of the engine's and the installed benchmarks' sources, the installed distributions and Python's
    version."""
    from .plugins import sources
    h = hashlib.sha256(sys.version.encode())
    for root in (Path(__file__).resolve().parent, *map(Path, sources())):
        for path in sorted(root.rglob("*.py")):
            h.update(f"\x1e{path.relative_to(root.parent)}\x1f".encode())
            h.update(path.read_bytes())
    for entry in sys.path:
        if entry.endswith("-packages") and os.path.isdir(entry):
            h.update(f"\x1e{entry}\x1f".encode())
            h.update("\n".join(sorted(n for n in os.listdir(entry) if n.endswith((".dist-info", ".egg-info"))))
                     .encode())
    return h.hexdigest()


def entry_key(*parts) -> str | None:
    """The memo key of the checks' inputs (JSON-able); None if they are not JSON-able."""
    try:
        return hashlib.sha256(json.dumps(parts, sort_keys=True, allow_nan=False).encode()).hexdigest()
    except (TypeError, ValueError):
        return None


def _path() -> Path:
    return cache_dir() / f"checks-{fingerprint()[:24]}.json"


def get(key: str) -> dict | None:
    """The remembered result of ``key`` under the current fingerprint, or None."""
    try:
        return json.loads(_path().read_text()).get(key)
    except (OSError, ValueError, AttributeError):
        return None


def put(key: str, value: dict) -> None:
    """Remember ``value`` (JSON-able) for ``key``; any failure is ignored (the memo is only a shortcut)."""
    path = _path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            memo = json.loads(path.read_text())
            memo = memo if isinstance(memo, dict) else {}
        except (OSError, ValueError):
            memo = {}
        memo[key] = value
        with atomic_file(path) as fh:  # no sort_keys: a value comes back with its dicts in their order (grid axes)
            fh.write(json.dumps(memo).encode())
        now = time.time()
        for old in path.parent.glob("checks-*.json"):
            if old != path and now - old.stat().st_mtime > KEEP_SECONDS:
                old.unlink(missing_ok=True)
    except (OSError, TypeError, ValueError):
        pass
