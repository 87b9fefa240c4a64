"""Per-row correctness on a test fold, stored so two models (or two stages of one fit) can be compared on the
same test rows: ``experiment.test_correct: true`` (issue 42).

A classification cell of an outer fold then stores ``test_correct``: ``"<n>:<base64>"``, the boolean vector
``y_pred == y_true`` over the fold's test rows in their order, packed 8 per byte (:func:`numpy.packbits`, big-endian
bit order, zero padded); a staged cell stores one such string per stage under ``"test_correct"`` in its ``staged``
JSON. 10,000 test rows take 1,668 characters. Regression cells and inner folds store nothing.

Written here because no library stores a packed correctness vector in a parquet row; the paired test itself is a
closed form (:func:`paired_difference`; :func:`scipy.stats.binomtest` gives McNemar's exact version for one pair).
"""
from __future__ import annotations

import base64
import math

import numpy as np

COLUMN = "test_correct"


def encode(y_true, y_pred) -> str:
    """``"<n>:<base64 of packbits(y_pred == y_true)>"``."""
    hit = np.asarray(y_pred) == np.asarray(y_true)
    return f"{hit.size}:{base64.b64encode(np.packbits(hit)).decode('ascii')}"


def decode(text: str) -> np.ndarray:
    """The boolean vector :func:`encode` stored (a malformed string raises ValueError naming it)."""
    try:
        n_text, data = str(text).split(":", 1)
        n = int(n_text)
        bits = np.unpackbits(np.frombuffer(base64.b64decode(data, validate=True), dtype=np.uint8))
    except (ValueError, TypeError) as exc:
        raise ValueError(f"not a stored correctness vector ('<n>:<base64>'): {str(text)[:40]!r}") from exc
    if n < 0 or bits.size < n or bits.size - n >= 8:
        raise ValueError(f"stored correctness vector says {n} rows but holds {bits.size} bits")
    return bits[:n].astype(bool)


def paired_difference(a, b) -> tuple[float, float, int]:
    """``(mean(a - b), standard error, n)`` over the rows of two equally long correctness arrays (or the means over
    seeds of several: any per-row numbers), rows as the sampling unit: the SE of a difference of two accuracies on
    the same test rows, ``sd(a - b, ddof=1) / sqrt(n)`` (the paired z-test; for single 0/1 vectors its square is
    McNemar's statistic up to the ``n / (n - 1)`` of ``ddof``)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1 or a.size < 2:
        raise ValueError(f"paired rows need two equally long vectors of >= 2 rows, got shapes {a.shape} and {b.shape}")
    d = a - b
    return float(d.mean()), float(d.std(ddof=1) / math.sqrt(d.size)), int(d.size)
