"""Datasets of the ELM ridge boosting paper (issue 7): MNIST, Fashion-MNIST and offline stand-ins.

Each spec is registered at import (``randml_core.data`` imports this module).
"""
from __future__ import annotations

from .registry import DatasetSpec, register  # noqa: F401

SPECS: list[DatasetSpec] = []

for _s in SPECS:
    register(_s)
