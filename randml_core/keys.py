"""The canonical JSON of a hyper-parameter setting: the ``params`` part of every cell key.

Its own small module so that the runner (planning) and the searches (:mod:`randml_core.search`, which plan
settings from stored scores) share one definition without importing each other.
"""
from __future__ import annotations

import json

import numpy as np

__all__ = ["canonical_params"]


def canonical_params(params: dict) -> str:
    """``params`` as sorted-key JSON with numpy scalars as Python numbers (a setting's identity in cell keys)."""
    def norm(v):
        if isinstance(v, (np.floating, float)):
            return float(v)
        if isinstance(v, (np.integer, int)) and not isinstance(v, bool):
            return int(v)
        return v
    return json.dumps({k: norm(params[k]) for k in sorted(params)}, sort_keys=True)
