"""Random hidden layers of ELM-type models (EEM paper, Section 7).

Weights and biases are drawn from U[0, 1] as the paper states. The draw is arranged so that
a layer of ``h`` units is exactly the first ``h`` units of any larger layer with the same
seed: weights come row by row from one stream and biases from a second one. The grid runner
relies on this to compute one hidden layer per fold and slice it for every ``h``.
"""
from __future__ import annotations

import numpy as np
from scipy.special import expit

ACTIVATIONS = ("sig", "nsig", "rbf")


def draw_hidden(n_features: int, n_hidden: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Return weights W (d x h) and biases b (h,), both U[0, 1], prefix-stable in ``n_hidden``."""
    w_stream, b_stream = np.random.SeedSequence(seed).spawn(2)
    W = np.random.default_rng(w_stream).uniform(0.0, 1.0, size=(n_hidden, n_features)).T
    b = np.random.default_rng(b_stream).uniform(0.0, 1.0, size=n_hidden)
    return np.ascontiguousarray(W), b


def activate(X: np.ndarray, W: np.ndarray, b: np.ndarray, activation: str) -> np.ndarray:
    """Hidden activations G(x, w_j, b_j) for every row of X (Section 7).

    sig:  1 / (1 + exp(-<w, x> + b))
    nsig: 1 / (1 + exp(-<w, x> / d + b))
    rbf:  exp(-b ||w - x||^2)
    """
    if activation == "sig":
        return expit(X @ W - b)
    if activation == "nsig":
        return expit(X @ W / X.shape[1] - b)
    if activation == "rbf":
        sq = (X**2).sum(1)[:, None] - 2.0 * (X @ W) + (W**2).sum(0)[None, :]
        np.maximum(sq, 0.0, out=sq)
        return np.exp(-b * sq)
    raise ValueError(f"unknown activation {activation!r}; choose one of {ACTIVATIONS}")
