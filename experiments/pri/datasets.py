"""The PRI-SMO paper's synthetic data (Sanchez Giraldo, ``../shared/papers/pri_smo.txt``, Section 6.1):
:func:`make_pri_mixture` (the benchmark's ``datasets`` member). It registers no dataset: each sweep cell
draws the mixture from its own seed (``families.py``). Moved here from the engine (earlier from
``randml_core/models/pri.py``); the code and hence the data are unchanged.
"""

from __future__ import annotations

import numpy as np

__all__ = ["make_pri_mixture"]


def make_pri_mixture(n=1000, random_state=None):
    """The paper's synthetic set (Section 6.1): 2-D mixture of three spherical Gaussians.

    Centres (0, 0), (3, 3), (-6, 4); standard deviations 0.8, 1.2, 1; weights 0.2, 0.3,
    0.5.  Component labels are drawn i.i.d. from the weights (a true mixture sample, so the
    counts are multinomial).  Returns ``(X, y)`` with X of shape (n, 2), y the component.
    """
    from sklearn.utils import check_random_state  # here: loading the datasets members imports no scikit-learn

    rng = check_random_state(random_state)
    n = int(n)
    centres = np.array([[0.0, 0.0], [3.0, 3.0], [-6.0, 4.0]])
    stds = np.array([0.8, 1.2, 1.0])
    y = rng.choice(3, size=n, p=[0.2, 0.3, 0.5])
    X = centres[y] + stds[y, None] * rng.standard_normal((n, 2))
    return X, y
