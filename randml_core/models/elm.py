"""Weighted Extreme Learning Machine (EEM paper, Section 2.1; Zong et al. 2013)."""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data
from sklearn.utils._param_validation import Integral, Interval, StrOptions

from ._common import balance_weights, binary_targets, check_binary, int_seed
from .hidden import ACTIVATIONS, activate, draw_hidden


def welm_solve(H: np.ndarray, t: np.ndarray) -> np.ndarray:
    """beta = (s . H)^dagger (s . t), s_i = sqrt(w_i) with the balance weights of Section 7.

    The Moore-Penrose solution is computed by LAPACK's SVD-based least squares (gelsd), which
    returns the minimum-norm least-squares solution, i.e. exactly ``pinv(s.H) @ (s.t)``.
    """
    s = np.sqrt(balance_weights(t))
    beta, *_ = np.linalg.lstsq(H * s[:, None], t * s, rcond=None)
    return beta


class WELM(ClassifierMixin, BaseEstimator):
    """Weighted ELM: random hidden layer, class-balanced Moore-Penrose output weights.

    Parameters
    ----------
    n_hidden : int, number of hidden units h.
    activation : {"sig", "nsig", "rbf"}, generalized activation of Section 7.
    random_state : int, RandomState, Generator or None. Hidden weights and biases are U[0, 1].

    Fitted attributes: ``hidden_weights_`` (d x h), ``hidden_bias_`` (h,), ``beta_`` (h,),
    ``classes_`` (``classes_[1]`` is the +1 class), ``seed_`` (the integer seed used).
    Binary classification only (the paper's setting); ``decision_function`` is H beta.
    """

    _parameter_constraints = {
        "n_hidden": [Interval(Integral, 1, None, closed="left")],
        "activation": [StrOptions(set(ACTIVATIONS))],
        "random_state": ["random_state", np.random.Generator],
    }

    def __init__(self, n_hidden=100, activation="sig", random_state=None):
        self.n_hidden = n_hidden
        self.activation = activation
        self.random_state = random_state

    def fit(self, X, y):
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_binary(y, type(self).__name__)
        self.classes_ = np.unique(y)
        self.seed_ = int_seed(self.random_state)
        self.hidden_weights_, self.hidden_bias_ = draw_hidden(X.shape[1], int(self.n_hidden), self.seed_)
        H = activate(X, self.hidden_weights_, self.hidden_bias_, self.activation)
        self.beta_ = welm_solve(H, binary_targets(y, self.classes_))
        return self

    def decision_function(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return activate(X, self.hidden_weights_, self.hidden_bias_, self.activation) @ self.beta_

    def predict(self, X):
        check_is_fitted(self)
        return self.classes_[(self.decision_function(X) >= 0).astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
