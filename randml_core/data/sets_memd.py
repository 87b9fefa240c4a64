"""Datasets of the MeMd paper (issue 6): gene-expression and 20 Newsgroups datasets.

Each spec is registered at import (``randml_core.data`` imports this module).
"""
from __future__ import annotations

from .registry import DatasetSpec, register  # noqa: F401

SPECS: list[DatasetSpec] = []

for _s in SPECS:
    register(_s)
