"""The study solver of scripts/svm_warmstart_study.py (issue 19's warm-start measurement) solves libsvm's
problem: on a well-conditioned problem its cold and warm fits reach libsvm's dual objective and predictions."""
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import make_classification

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
study = pytest.importorskip("svm_warmstart_study")

from randml_core.models.kernels import rbf_from_sq, sq_distances  # noqa: E402
from randml_core.models.svm import balance_class_weight, fit_svc  # noqa: E402


def _dual(K, y, coef):
    """libsvm's dual objective 1/2 a'Qa - e'a from coef = alpha * y."""
    return 0.5 * coef @ K @ coef - np.abs(coef).sum()


def test_cold_and_warm_reach_libsvms_optimum():
    X, lab = make_classification(n_samples=200, n_features=6, weights=[0.7, 0.3], random_state=3)
    Xtr, Xte, ytr = X[:150], X[150:], lab[:150]
    gamma, Cs = 0.2, [0.1, 1.0, 10.0]
    Ktr = rbf_from_sq(sq_distances(Xtr, Xtr), gamma)
    Kte = rbf_from_sq(sq_distances(Xte, Xtr), gamma)
    y = np.where(ytr == 1, 1.0, -1.0)
    w = balance_class_weight(ytr)
    Cw = np.array([w[c] for c in ytr], dtype=float)
    cold = study.fit_path(np.ascontiguousarray(Ktr), y, Cw, Cs, 1e-3, 100_000, warm=False)
    warm = study.fit_path(np.ascontiguousarray(Ktr), y, Cw, Cs, 1e-3, 100_000, warm=True)
    for k, C in enumerate(Cs):
        svc, converged = fit_svc(Ktr, ytr, C, gamma, 100_000, kernel="precomputed")
        assert converged
        ref = np.zeros(len(ytr))
        sign = 1.0 if svc.classes_[1] == 1 else -1.0
        ref[svc.support_] = sign * svc.dual_coef_[0]   # alpha * y with y = +1 for label 1
        # feasibility of ours: 0 <= alpha <= C w, sum y alpha = 0
        for coef, rho, _it, conv, _s in (cold[k], warm[k]):
            alpha = coef * y
            assert conv and alpha.min() >= 0 and (alpha <= C * Cw + 1e-12).all() and abs(coef.sum()) < 1e-9
            # both stop at gap 1e-3: the objectives agree to far better than 1e-3 per variable
            assert _dual(Ktr, y, coef) == pytest.approx(_dual(Ktr, y, ref), rel=1e-3, abs=1e-3)
            pred = np.where(Kte @ coef - rho > 0, 1, 0)
            assert (pred != svc.predict(Kte)).sum() <= 1
