"""Synthetic 2-D sets of the SLM paper (Sec. IV, after Lin et al.'s FF-MLP paper, arXiv 2009.04442).

The paper gives only: 500 samples per class, 2-D, and a share of "noisy samples in the decision
boundary" (20 % circle-and-ring and 4-new-moons, 30 % 2-new-moons). The geometry and the noise
mechanism are not recoverable from the text (slm_equations.md sec. 9), so we choose, and every
generator documents it:

- a ``noise`` fraction of each class (``round(noise * n_per_class)``) are *noisy* samples that
  land in the decision-boundary region, labels never flipped. Circle-and-ring: drawn uniformly on
  the annulus covering the gap between the classes (both classes alike there). Moons: drawn like
  the clean ones, then jittered with an isotropic Gaussian of sd ``noise_scale`` (large compared
  with the gap between the moons), the clean ones with a small ``clean_scale``.
- rows are grouped by class (class 0 first); the protocol shuffles them.

Every generator is a pure function of its arguments (``numpy.random.default_rng(seed)``), so
the data hash is fixed for a given numpy version.
"""
from __future__ import annotations

import numpy as np

from randml_core.data.sources.generated import register_generator

__all__ = ["circle_and_ring", "new_moons", "two_new_moons", "four_new_moons"]


def _jitter(points: np.ndarray, noise: float, clean_scale: float, noise_scale: float, rng) -> np.ndarray:
    """Add the small clean jitter to every row, and the large one to the first noisy rows."""
    n = points.shape[0]
    n_noisy = int(round(noise * n))
    scale = np.full(n, clean_scale)
    scale[rng.permutation(n)[:n_noisy]] = noise_scale
    return points + rng.normal(size=points.shape) * scale[:, None]


@register_generator
def circle_and_ring(n_per_class: int = 500, noise: float = 0.2, seed: int = 0,
                    inner_radius: float = 1.0, ring: tuple = (1.5, 2.0), band: float = 0.25):
    """Class 0: uniform on the disk of radius ``inner_radius``; class 1: uniform on the annulus
    ``ring[0] <= r <= ring[1]`` around it (the clean classes are separated by the gap between
    radius 1.0 and 1.5). A ``noise`` fraction of each class is instead drawn uniformly on the
    annulus ``inner_radius - band <= r <= ring[0] + band`` that covers the gap: the *decision
    boundary region*, where both classes then have the same density (labels kept), so about half of
    the noisy samples are on the wrong side of any boundary (our reading of "20 % noisy samples in
    the decision boundary"; about 10 % Bayes error, close to the paper's 88 % accuracies)."""
    if not 0 <= noise <= 1:
        raise ValueError(f"noise must be in [0, 1], got {noise}")
    rng = np.random.default_rng(seed)
    n_noisy = int(round(noise * n_per_class))
    lo, hi = inner_radius - band, ring[0] + band
    parts, labels = [], []
    for label, (r0, r1) in enumerate([(0.0, inner_radius), ring]):
        # uniform on the area: r = sqrt(U(r0^2, r1^2))
        r = np.sqrt(rng.uniform(r0 ** 2, r1 ** 2, n_per_class))
        r[:n_noisy] = np.sqrt(rng.uniform(lo ** 2, hi ** 2, n_noisy))
        t = rng.uniform(0, 2 * np.pi, n_per_class)
        parts.append(np.column_stack([r * np.cos(t), r * np.sin(t)]))
        labels.append(np.full(n_per_class, label))
    return np.vstack(parts), np.concatenate(labels)


@register_generator
def new_moons(n_moons: int = 2, n_per_class: int = 500, noise: float = 0.3, seed: int = 0,
              clean_scale: float = 0.08, noise_scale: float = 0.35):
    """A chain of ``n_moons`` interleaving half circles of radius 1 (class k = moon k).

    Moon k has its centre at ``(k, 0.5 * (k % 2))`` and is the upper half circle for even k, the
    lower one for odd k: with two moons this is scikit-learn's ``make_moons`` geometry, with four
    it continues the chain to the right, each moon interleaving with its neighbours. Angles are
    uniform on [0, pi]; ``noise`` of each class is jittered with sd ``noise_scale``, the rest with
    ``clean_scale``."""
    if n_moons < 2:
        raise ValueError(f"n_moons must be >= 2, got {n_moons}")
    if not 0 <= noise <= 1:
        raise ValueError(f"noise must be in [0, 1], got {noise}")
    rng = np.random.default_rng(seed)
    parts, labels = [], []
    for k in range(n_moons):
        t = rng.uniform(0, np.pi, n_per_class)
        sign = 1.0 if k % 2 == 0 else -1.0
        pts = np.column_stack([k + np.cos(t), 0.5 * (k % 2) + sign * np.sin(t)])
        parts.append(_jitter(pts, noise, clean_scale, noise_scale, rng))
        labels.append(np.full(n_per_class, k))
    return np.vstack(parts), np.concatenate(labels)


@register_generator
def two_new_moons(n_per_class: int = 500, noise: float = 0.3, seed: int = 0):
    """2-new-moons of the paper: two moons, 500 per class, 30 % noisy samples."""
    return new_moons(2, n_per_class, noise, seed)


@register_generator
def four_new_moons(n_per_class: int = 500, noise: float = 0.2, seed: int = 0):
    """4-new-moons of the paper: four moons (4 classes), 500 per class, 20 % noisy samples."""
    return new_moons(4, n_per_class, noise, seed)


@register_generator
def friedman3(n_samples: int = 1000, seed: int = 0):
    """scikit-learn's ``make_friedman3(n_samples, noise=0, random_state=seed)`` with the arctan taken
    by the C library (``math.atan``) instead of numpy's vectorised one.

    X and the arctan's argument are the generator's own draws and IEEE basic operations, identical on
    every machine; numpy's SIMD arctan is not (its last bits depend on the CPU's instruction set: the
    catalogue hash of ``make_friedman3`` differed between two machines with the same numpy), so the data
    hash, hence every cell key on this set, would depend on the hardware."""
    import math

    from sklearn.datasets import make_friedman3

    X, _ = make_friedman3(n_samples=n_samples, noise=0.0, random_state=seed)
    ratio = (X[:, 1] * X[:, 2] - 1 / (X[:, 1] * X[:, 3])) / X[:, 0]
    return X, np.array([math.atan(v) for v in ratio])
