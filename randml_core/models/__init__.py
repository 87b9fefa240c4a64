"""scikit-learn estimators of the reproduced papers."""
from .eem import EEKM, EEM
from .elm import WELM
from .lssvm import LSSVM
from .svm import SVM

__all__ = ["WELM", "EEM", "EEKM", "LSSVM", "SVM"]
