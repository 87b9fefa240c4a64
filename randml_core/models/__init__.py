"""scikit-learn estimators of the reproduced papers.

The names below are imported on first use (PEP 562), so ``import randml_core.models.eem`` does not import
the SLM estimators' numba kernels: numba and xgboost are in the ``papers`` extra
(``pip install 'randml[papers]'``), needed only by the SLM paper's models.
"""
from __future__ import annotations

import importlib

_WHERE = {"EEM": "eem", "EEKM": "eem", "WELM": "elm", "ELMBoostClassifier": "elmboost",
          "ELMBoostNormalizer": "elmboost", "RidgeELMClassifier": "elmboost", "LSSVM": "lssvm",
          "MeMdClassifier": "memd", "PRISMO": "pri", "SVM": "svm",
          **dict.fromkeys(("SLMBoostClassifier", "SLMBoostRegressor", "SLMClassifier", "SLMForestClassifier",
                           "SLMForestRegressor", "SLMRegressor"), "slm")}

__all__ = ["WELM", "EEM", "EEKM", "LSSVM", "SVM", "ELMBoostClassifier", "RidgeELMClassifier",
           "ELMBoostNormalizer", "MeMdClassifier", "PRISMO", "SLMClassifier", "SLMRegressor",
           "SLMForestClassifier", "SLMForestRegressor", "SLMBoostClassifier", "SLMBoostRegressor"]


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
