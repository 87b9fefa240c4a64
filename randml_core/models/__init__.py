"""scikit-learn estimators of the reproduced papers."""
from .eem import EEKM, EEM
from .elm import WELM
from .elmboost import ELMBoostClassifier, ELMBoostNormalizer, RidgeELMClassifier
from .lssvm import LSSVM
from .memd import MeMdClassifier
from .pri import PRISMO
from .slm import (SLMBoostClassifier, SLMBoostRegressor, SLMClassifier, SLMForestClassifier,
                  SLMForestRegressor, SLMRegressor)
from .svm import SVM

__all__ = ["WELM", "EEM", "EEKM", "LSSVM", "SVM", "ELMBoostClassifier", "RidgeELMClassifier",
           "ELMBoostNormalizer", "MeMdClassifier", "PRISMO", "SLMClassifier", "SLMRegressor",
           "SLMForestClassifier", "SLMForestRegressor", "SLMBoostClassifier", "SLMBoostRegressor"]
