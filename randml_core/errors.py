"""The config error and its hints: the lowest floor, so every module that judges a config (the spec,
the trust model, the dataset cards) can raise it without importing the others."""
from __future__ import annotations

import difflib
import importlib

__all__ = ["ConfigError", "did_you_mean", "target_hint", "longest_module"]


class ConfigError(ValueError):
    """A malformed experiment config; the message names the key and the fix."""


def did_you_mean(name: str, choices) -> str:
    close = difflib.get_close_matches(str(name), list(choices), n=1)
    return f"did you mean {close[0]!r}? " if close else ""


def target_hint(path: str) -> str:
    """'did you mean ...? ' for a ``_target_`` whose last importable module lacks the next name.

    ``sklearn.ensemble.HistGradientBoostingClasifier`` -> ``...HistGradientBoostingClassifier``;
    ``sklearn.ensmble.X`` -> ``sklearn.ensemble.X``. Empty when every part exists (the failure is then
    not the path's) or when nothing close is found.
    """
    import pkgutil
    parts = path.split(".")
    found = longest_module(parts, Exception)
    if found is None:
        return ""
    module, i = found
    if hasattr(module, parts[i]):
        return ""
    names = [n for n in dir(module) if not n.startswith("_")]
    names += [m.name for m in pkgutil.iter_modules(getattr(module, "__path__", []))]
    close = difflib.get_close_matches(parts[i], names, n=1)
    return f"did you mean {'.'.join(parts[:i] + close + parts[i + 1:])!r}? " if close else ""


def longest_module(parts: list[str], errors=ImportError):
    """``(module, i)``: the longest prefix ``parts[:i]`` (``i < len(parts)``) that imports, or None."""
    for i in range(len(parts) - 1, 0, -1):
        try:
            return importlib.import_module(".".join(parts[:i])), i
        except errors:
            continue
    return None
