"""Helpers shared by the EEM-family estimators: seeds, balance weights, binary labels."""
from __future__ import annotations

import numpy as np
from sklearn.utils.multiclass import type_of_target

__all__ = ["int_seed", "balance_weights", "binary_targets"]


def int_seed(random_state) -> int:
    """Turn ``random_state`` (None, int, RandomState, Generator) into one integer seed.

    Integer seeds are what make hidden layers shareable: every draw in these models comes
    from ``numpy.random.SeedSequence(int_seed)`` so a smaller layer is a prefix of a larger one.
    """
    if random_state is None:
        return int(np.random.randint(0, 2**31 - 1))
    if isinstance(random_state, (int, np.integer)):
        return int(random_state)
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**31 - 1))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**31 - 1))
    raise ValueError(f"random_state must be None, an int or a numpy random generator; got {random_state!r}")


def balance_weights(t: np.ndarray) -> np.ndarray:
    """Per-sample balance weights of Section 7: w_i = max_t N_t / N_{t_i} (so sum_i w_i t_i = 0)."""
    t = np.asarray(t)
    labels, inverse, counts = np.unique(t, return_inverse=True, return_counts=True)
    return (counts.max() / counts)[inverse].astype(float)


def binary_targets(y, classes: np.ndarray) -> np.ndarray:
    """Map labels to t in {-1, +1}; ``classes[1]`` is the positive class."""
    return np.where(np.asarray(y) == classes[1], 1.0, -1.0)


def check_binary(y, estimator_name: str) -> None:
    """Raise a clear error unless y holds exactly two classes (messages follow sklearn's checks)."""
    kind = type_of_target(y, input_name="y", raise_unknown=True)
    if kind == "continuous":
        raise ValueError(f"Unknown label type: continuous. {estimator_name} is a classifier; "
                         "y must hold class labels, not continuous values.")
    n_classes = len(np.unique(y))
    if n_classes < 2:
        raise ValueError(
            f"{estimator_name} needs two classes in y but got only one class ({np.unique(y)!r}); "
            "a training fold with a single class cannot be fitted (use fewer folds or more data)."
        )
    if kind != "binary":
        raise ValueError(
            f"Only binary classification is supported. The type of the target is {kind}: "
            f"{estimator_name} is a binary classifier (the EEM paper's setting) and y has {n_classes} "
            "classes; binarise the labels (e.g. one class vs rest) first."
        )
