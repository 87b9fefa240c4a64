"""Checks of hyper-parameter values before any work: the estimator's own declared constraints.

scikit-learn estimators declare their parameters' valid types and ranges in
``_parameter_constraints`` (checked by ``validate_parameter_constraints``, as their own ``fit`` does);
we use the same declaration, so a config value is refused with the message the estimator would
give, but before any fit. Where an estimator declares nothing for a parameter, the value is checked
against the type of its default: an integer parameter refuses 2.5 (it would be truncated silently),
a numeric one refuses NaN, inf, booleans and strings. The extra rule is written here because
scikit-learn has no check for undeclared parameters.
"""
from __future__ import annotations

import inspect
import math
import numbers

from sklearn.utils._param_validation import InvalidParameterError, validate_parameter_constraints

__all__ = ["check_params", "ParamError"]


class ParamError(ValueError):
    """A hyper-parameter value its estimator would refuse (or silently change)."""


def _defaults(estimator) -> dict:
    cls = estimator if isinstance(estimator, type) else type(estimator)
    try:
        sig = inspect.signature(cls.__init__)
    except (TypeError, ValueError):  # pragma: no cover - builtins
        return {}
    return {k: p.default for k, p in sig.parameters.items() if p.default is not inspect.Parameter.empty}


def _by_default_type(name: str, value, default) -> str | None:
    """Why ``value`` does not fit a parameter whose default is ``default`` (None if it fits)."""
    if isinstance(default, bool) or default is None or value is None:
        return None
    if isinstance(default, numbers.Integral):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            return f"must be an integer like its default {default!r}, got {value!r}"
        if isinstance(value, numbers.Integral):
            return None
        if not math.isfinite(value) or value != int(value):
            return f"must be an integer like its default {default!r}, got {value!r} (it would be truncated)"
        return None
    if isinstance(default, numbers.Real):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            return f"must be a number like its default {default!r}, got {value!r}"
        if not math.isfinite(value):
            return f"must be finite, got {value!r}"
    return None


def check_params(estimator, params: dict, where: str) -> None:
    """Raise :class:`ParamError` naming ``where`` + the key if any value is invalid for ``estimator``.

    ``estimator``: a class or an instance; ``where``: the config path of ``params`` (``models.svm.grid.``).
    Declared constraints (scikit-learn's ``_parameter_constraints``) come first; undeclared
    parameters are checked against the type of their default.
    """
    cls = estimator if isinstance(estimator, type) else type(estimator)
    constraints = getattr(cls, "_parameter_constraints", None) or {}
    for key, value in params.items():
        if "__" in key and not isinstance(estimator, type):  # a pipeline step's parameter: step__param
            step, _, rest = key.partition("__")
            sub = estimator.get_params(deep=True).get(step)
            if sub is not None and hasattr(sub, "get_params"):
                check_params(sub, {rest: value}, f"{where}{step}__")
            continue
        if key in constraints:
            try:
                validate_parameter_constraints({key: constraints[key]}, {key: value}, caller_name=cls.__name__)
            except InvalidParameterError as exc:
                raise ParamError(f"{where}{key}={value!r}: {exc}") from None
            continue
        defaults = _defaults(cls)
        if key in defaults:
            why = _by_default_type(key, value, defaults[key])
            if why:
                raise ParamError(f"{where}{key}={value!r}: the {key!r} parameter of {cls.__name__} {why}")
