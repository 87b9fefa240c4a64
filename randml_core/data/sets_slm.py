"""Datasets of the SLM paper (issue 5): Tables I-III datasets.

Each spec is registered at import (``randml_core.data`` imports this module).
"""
from __future__ import annotations

from .registry import DatasetSpec, register  # noqa: F401

SPECS: list[DatasetSpec] = []

for _s in SPECS:
    register(_s)
