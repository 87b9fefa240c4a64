"""Which way each metric points. Ranks and "which model is better" depend on it, so an unknown metric
name is refused unless the caller says the direction. The built-in metrics are in :data:`HIGHER_IS_BETTER`;
a scikit-learn scorer (``experiment.metrics``), by its name or its stored column, points the way its sign
says (:func:`randml_core.metrics.scorer_direction`)."""
from __future__ import annotations

from types import MappingProxyType

#: metric name (as stored in the result frames) -> True when a larger value is better
HIGHER_IS_BETTER = MappingProxyType({
    "gmean": True,
    "accuracy": True,
    "balanced_accuracy": True,
    "rmse": False,
    "mae": False,
    "log_loss": False,
})


def higher_is_better(metric: str, direction: bool | None = None) -> bool:
    """True when larger values of ``metric`` are better.

    ``direction`` (True / False) is required for a metric not in :data:`HIGHER_IS_BETTER`; for a
    known metric it must agree with the table (a disagreement is a bug in the caller)."""
    known = HIGHER_IS_BETTER.get(str(metric).lower())
    if known is None:
        from .metrics import scorer_direction  # scikit-learn's metrics are imported for such a name only
        known = scorer_direction(str(metric))
    if direction is not None:
        if not isinstance(direction, (bool,)) and direction not in (0, 1):
            raise ValueError(f"higher_is_better={direction!r} for metric {metric!r}: pass True or False")
        direction = bool(direction)
        if known is not None and known != direction:
            raise ValueError(f"metric {metric!r} is {'higher' if known else 'lower'}-is-better, but "
                             f"higher_is_better={direction} was passed; drop the argument or fix the metric name")
        return direction
    if known is None:
        raise ValueError(f"unknown metric {metric!r}: its direction is not known (known: "
                         f"{', '.join(sorted(HIGHER_IS_BETTER))}, or a scikit-learn scorer: sklearn.metrics.get_scorer_names()); "
                         "pass higher_is_better=True or False")
    return known
