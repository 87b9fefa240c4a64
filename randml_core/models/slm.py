"""Subspace Learning Machine (SLM / SLR) models, arXiv 2205.05296.

The code lives in :mod:`.slm_tree` (one tree, the split search) and :mod:`.slm_ensemble`
(Forest and Boost); this module is the public entry point.
"""

from .slm_ensemble import (
    SLMBoostClassifier,
    SLMBoostRegressor,
    SLMForestClassifier,
    SLMForestRegressor,
)
from .slm_tree import SLMClassifier, SLMRegressor, discriminant_feature_test, route_codes

__all__ = [
    "SLMClassifier",
    "SLMRegressor",
    "SLMForestClassifier",
    "SLMForestRegressor",
    "SLMBoostClassifier",
    "SLMBoostRegressor",
    "discriminant_feature_test",
    "route_codes",
]
