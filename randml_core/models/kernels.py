"""Gaussian kernel used by EEKM, LS-SVM and SVM: K(x, z) = exp(-gamma ||x - z||^2)."""
from __future__ import annotations

import numpy as np


def sq_distances(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    d = (A**2).sum(1)[:, None] - 2.0 * (A @ B.T) + (B**2).sum(1)[None, :]
    np.maximum(d, 0.0, out=d)
    return d


def rbf_from_sq(sq: np.ndarray, gamma: float) -> np.ndarray:
    return np.exp(-gamma * sq)


def rbf_kernel(A: np.ndarray, B: np.ndarray, gamma: float) -> np.ndarray:
    return rbf_from_sq(sq_distances(A, B), gamma)
