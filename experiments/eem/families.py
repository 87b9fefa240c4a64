"""EEM paper families (Sections 2-3, 7): WELM, EEM, EEKM, LS-SVM and SVM with shared work, and the
Table 1 D_CS probe. Registered on import (the family registry imports this module on first use).

Shared work, exact by construction:

- WELM / EEM: one hidden layer per (seed, activation) at the largest h; smaller h are its first
  columns (hidden.py draws prefix-stable layers), shared by WELM and EEM.
- EEKM: one squared-distance matrix per split, one kernel per gamma at the largest h; landmarks
  for smaller h are a prefix of the same random order.
- LS-SVM: one eigendecomposition per gamma for all C (lssvm.lssvm_path).
- SVM: one precomputed kernel per gamma for all C.
- EEM / EEKM: the Ledoit-Wolf covariances with one Gram product fewer (eem.ledoit_wolf_one_gram,
  bit-for-bit scikit-learn's).

Every setting gives the model ``Estimator(**params, random_state=seed)`` would fit, up to rounding
(its tests test_families_speed_eem.py and test_eem_runner.py check the predictions against plain fits):
the precomputed SVM kernel and the LS-SVM eigendecomposition round differently from a plain fit, which
changes a few cells of the paper grid (`scripts/bench.py --only grid` counts them). ``fit_seconds``
is the setting's own solve time plus the shared work it needed (hidden layers and kernels pro rata
to the columns it uses), an estimate of a standalone fit, so summing it over a grid over-counts the
shared work.
"""
from __future__ import annotations

import itertools
from typing import Callable

import numpy as np

from randml_core.models.divergence import train_criteria
from randml_core.family import CellResult, Family, Split, guard, register_family, timed
from randml_core.models._common import binary_targets
from randml_core.models.eem import EEKM, EEM, eem_labels, eem_solve, inverse_sqrt_psd, landmark_order, projected_log_ratio
from randml_core.models.elm import WELM, welm_solve
from randml_core.models.hidden import activate, draw_hidden
from randml_core.models.kernels import rbf_from_sq, sq_distances
from randml_core.models.lssvm import LSSVM, lssvm_path
from randml_core.models.svm import SVM, fit_svc

from .analysis import DCSCorrelationProbe, evaluate_probe


def _criteria(split: Split, z_train: np.ndarray, t: np.ndarray) -> dict:
    """Section 7.4 entropic selection criteria on the training projections (Table 6), when asked."""
    if not split.options.get("train_criteria"):
        return {}
    return train_criteria(z_train, t, seed=split.seed)


def _indices_by(settings: list[dict], param: str) -> dict[float, list[int]]:
    """Positions of the settings grouped by one float parameter (first-seen order)."""
    groups: dict[float, list[int]] = {}
    for i, p in enumerate(settings):
        groups.setdefault(float(p[param]), []).append(i)
    return groups


def _binary(split: Split):
    classes = np.unique(split.y_train)
    if len(classes) != 2:
        raise ValueError(f"the training fold has {len(classes)} class(es) {classes.tolist()}; "
                         "these models need exactly two (use fewer folds or a larger dataset)")
    return classes, binary_targets(split.y_train, classes)


def _hidden_features(split: Split, activation: str, h_max: int):
    def compute():
        W, b = draw_hidden(split.X_train.shape[1], h_max, split.seed)
        return activate(split.X_train, W, b, activation), activate(split.X_test, W, b, activation)
    (Htr, Hte), secs = split.cached(("hidden", activation, h_max), compute)
    return Htr, Hte, secs


def _evaluate_hidden(solver: str) -> Callable:
    def evaluate(split: Split, settings: list[dict]) -> list[CellResult]:
        classes, t = _binary(split)
        h_max = max(int(p["n_hidden"]) for p in settings)
        out = []
        for params in settings:
            def one(params=params):
                h = int(params["n_hidden"])
                Htr, Hte, shared = _hidden_features(split, params["activation"], h_max)
                share = shared * h / h_max
                if solver == "welm":
                    beta, fit_s = timed(lambda: welm_solve(Htr[:, :h], t))
                    (score, pred_s) = timed(lambda: Hte[:, :h] @ beta)
                    y_pred = classes[(score >= 0).astype(int)]
                else:
                    sol, fit_s = timed(lambda: eem_solve(Htr[:, :h], t, one_gram=True))
                    beta = sol.beta
                    score, pred_s = timed(lambda: projected_log_ratio(Hte[:, :h] @ beta, sol))
                    y_pred = eem_labels(score, sol, classes, t)
                return CellResult(params, y_pred, fit_s + share, pred_s,
                                  extras=_criteria(split, Htr[:, :h] @ beta, t))
            out.append(guard(params, one))
        return out
    return evaluate


def _sq_dists(split: Split, landmark_rows: np.ndarray | None = None):
    """Squared distances train-train and test-train (optionally only to some train rows)."""
    key = ("sq", None if landmark_rows is None else len(landmark_rows))
    def compute():
        A = split.X_train if landmark_rows is None else split.X_train[landmark_rows]
        return sq_distances(split.X_train, A), sq_distances(split.X_test, A)
    (Dtr, Dte), secs = split.cached(key, compute)
    return Dtr, Dte, secs


def evaluate_eekm(split: Split, settings: list[dict]) -> list[CellResult]:
    classes, t = _binary(split)
    n = split.X_train.shape[0]
    order = landmark_order(n, split.seed)
    h_max = min(max(int(p["n_hidden"]) for p in settings), n)
    Dtr, Dte, d_secs = _sq_dists(split, order[:h_max])
    out: list[CellResult | None] = [None] * len(settings)
    by_gamma = _indices_by(settings, "gamma")
    for gamma, idx in by_gamma.items():
        (Ktr, Kte), k_secs = timed(lambda: (rbf_from_sq(Dtr, gamma), rbf_from_sq(Dte, gamma)))
        for i in idx:
            def one(params=settings[i]):
                h = min(int(params["n_hidden"]), n)

                def fit():
                    Khh = Ktr[order[:h], :h]  # rows of the landmarks, columns of the landmarks
                    norm, _ = inverse_sqrt_psd(Khh, float(params.get("eig_rtol", EEKM().eig_rtol)))
                    sol = eem_solve(Ktr[:, :h] @ norm, t, one_gram=True)
                    return norm @ sol.beta, sol
                (proj, sol), fit_s = timed(fit)
                score, pred_s = timed(lambda: projected_log_ratio(Kte[:, :h] @ proj, sol))
                return CellResult(params, eem_labels(score, sol, classes, t),
                                  fit_s + (d_secs + k_secs) * h / h_max, pred_s,
                                  extras=_criteria(split, Ktr[:, :h] @ proj, t))
            out[i] = guard(settings[i], one)
        Ktr = Kte = None  # one gamma's kernel at a time (each closure above ran in its own iteration)
    return out


def _too_large(split: Split, family: str, settings: list[dict]) -> list[CellResult] | None:
    """Kernel families hold N x N matrices: above ``<family>_max_train`` rows they are skipped."""
    limit = split.options.get(f"{family}_max_train")
    n = split.X_train.shape[0]
    if limit is None or n <= int(limit):
        return None
    msg = (f"skipped: {n} training rows > experiment.{family}_max_train={limit} (an {n} x {n} kernel); "
           f"raise the limit to run it")
    return [CellResult(p, None, error=msg) for p in settings]


def _drop_kernel(split: Split, gamma: float) -> None:
    """Free a gamma's kernel matrices once a family is done with them (memory on large sets)."""
    split.cache.pop(("k", gamma), None)


def _full_kernel(split: Split, gamma: float):
    Dtr, Dte, d_secs = _sq_dists(split)
    (Ktr, Kte), k_secs = split.cached(("k", gamma), lambda: (rbf_from_sq(Dtr, gamma), rbf_from_sq(Dte, gamma)))
    return Ktr, Kte, d_secs + k_secs


def evaluate_lssvm(split: Split, settings: list[dict]) -> list[CellResult]:
    classes, t = _binary(split)
    skipped = _too_large(split, "lssvm", settings)
    if skipped:
        return skipped
    by_gamma = _indices_by(settings, "gamma")
    out: list[CellResult | None] = [None] * len(settings)  # results in the order of ``settings``
    for gamma, idx in by_gamma.items():
        try:
            Ktr, Kte, k_secs = _full_kernel(split, gamma)
            path, path_s = timed(lambda: lssvm_path(Ktr, t, [float(settings[i]["C"]) for i in idx]))
        except Exception as exc:  # the whole gamma group fails together
            for i in idx:
                out[i] = CellResult(settings[i], None, error=f"{type(exc).__name__}: {exc}")
            continue
        share = k_secs + path_s  # standalone estimate: kernel + one factorisation
        for i, (alpha, b) in zip(idx, path):
            def one(params=settings[i], alpha=alpha, b=b):
                score, pred_s = timed(lambda: Kte @ alpha + b)
                if not np.all(np.isfinite(score)):
                    raise FloatingPointError("non-finite LS-SVM decision values (ill-conditioned system)")
                return CellResult(params, classes[(score >= 0).astype(int)], share, pred_s)
            out[i] = guard(settings[i], one)
        _drop_kernel(split, gamma)
    return out


def evaluate_svm(split: Split, settings: list[dict]) -> list[CellResult]:
    classes, t = _binary(split)
    skipped = _too_large(split, "svm", settings)
    if skipped:
        return skipped
    max_iter = int(split.options.get("svm_max_iter", 100_000))
    out: list[CellResult | None] = [None] * len(settings)
    by_gamma = _indices_by(settings, "gamma")
    for gamma, idx in by_gamma.items():
        for i in idx:
            def one(params=settings[i]):
                Ktr, Kte, k_secs = _full_kernel(split, gamma)
                mi = int(params.get("max_iter", max_iter))
                (svc, converged), fit_s = timed(lambda: fit_svc(Ktr, split.y_train, float(params["C"]), gamma,
                                                                 mi, kernel="precomputed"))
                y_pred, pred_s = timed(lambda: svc.predict(Kte))
                extras = {"n_support": int(svc.n_support_.sum()), "n_iter": int(np.max(svc.n_iter_))}
                if split.options.get("train_criteria"):
                    extras.update(_criteria(split, svc.decision_function(Ktr), t))
                return CellResult(params, y_pred, fit_s + k_secs, pred_s, converged, extras=extras)
            out[i] = guard(settings[i], one)
        _drop_kernel(split, gamma)
    return out


BINARY = ("binary",)


def _check(**axes):
    """The common plug-in test's check (``Family.check``): these settings on heart, min-max scaled."""
    names = list(axes)
    return ("heart", "minmax", [dict(zip(names, values)) for values in itertools.product(*axes.values())])


for _f in (Family("welm", WELM, "2", _evaluate_hidden("welm"), ("hidden",), BINARY,
                  check=_check(activation=("sig", "rbf"), n_hidden=(10, 40))),
           Family("eem", EEM, "2", _evaluate_hidden("eem"), ("hidden",), BINARY,
                  check=_check(activation=("sig", "nsig"), n_hidden=(10, 40))),
           Family("eekm", EEKM, "2", evaluate_eekm, ("sq",), BINARY, check=_check(n_hidden=(10, 40), gamma=(0.1, 1.0))),
           Family("lssvm", LSSVM, "1", evaluate_lssvm, ("sq", "k"), BINARY, check=_check(gamma=(0.1, 1.0), C=(1.0, 100.0))),
           Family("svm", SVM, "2", evaluate_svm, ("sq", "k"), BINARY, check=_check(gamma=(0.1, 1.0), C=(1.0, 100.0))),
           Family("eem_dcs_probe", DCSCorrelationProbe, "3", evaluate_probe, None, BINARY, check="probe")):
    register_family(_f)
