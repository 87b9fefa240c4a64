"""Model families and grid evaluation with shared work (the runner's fast path).

A *family* is one estimator class plus an evaluator that scores many hyper-parameter settings
on one train/test split, sharing what the maths allows:

- WELM / EEM: one hidden layer per (seed, activation) at the largest h; smaller h are its first
  columns (hidden.py draws prefix-stable layers), shared by WELM and EEM.
- EEKM: one squared-distance matrix per split, one kernel per gamma at the largest h; landmarks
  for smaller h are a prefix of the same random order.
- LS-SVM: one eigendecomposition per gamma for all C (lssvm.lssvm_path).
- SVM: one precomputed kernel per gamma for all C.

Every setting gives exactly the model ``Estimator(**params, random_state=seed)`` would fit
(tests/test_grid.py checks this against plain fits). ``fit_seconds`` is the setting's own solve
time plus the shared work it needed (hidden layers and kernels pro rata to the columns it uses),
an estimate of a standalone fit, so summing it over a grid over-counts the shared work; ``evaluate_naive`` refits from scratch and is the baseline of `make bench`.
"""
from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..divergence import train_criteria
from ._common import binary_targets
from .eem import EEKM, EEM, eem_labels, eem_solve, inverse_sqrt_psd, landmark_order, projected_log_ratio
from .elm import WELM, welm_solve
from .hidden import activate, draw_hidden
from .kernels import rbf_from_sq, sq_distances
from .lssvm import LSSVM, lssvm_path
from .svm import SVM, fit_svc


@dataclass
class CellResult:
    params: dict
    y_pred: np.ndarray | None
    fit_seconds: float = float("nan")
    predict_seconds: float = float("nan")
    converged: bool = True
    error: str | None = None
    extras: dict = field(default_factory=dict)
    #: class probabilities on the test part (columns in sorted label order): adds ``log_loss``
    proba: np.ndarray | None = None
    #: ``[(stage, y_pred, proba or None), ...]``: predictions after each stage (boosting level,
    #: number of trees) of the same fit, scored by the runner into the ``staged`` column
    staged: list | None = None


@dataclass
class Split:
    """One train/test split handed to a family evaluator, with caches shared across families."""
    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    seed: int
    options: dict = field(default_factory=dict)
    cache: dict = field(default_factory=dict)

    def cached(self, key, compute):
        if key not in self.cache:
            t0 = time.perf_counter()
            value = compute()
            self.cache[key] = (value, time.perf_counter() - t0)
        return self.cache[key]


@dataclass(frozen=True)
class Family:
    name: str
    estimator: type
    version: str  # bump when the family's results change; it is part of every cell key
    evaluate: Callable[["Split", list[dict]], list[CellResult]]
    #: kinds (first element of the key) of the ``Split.cache`` entries this family reads; the runner
    #: frees entries no later family of the task reads. ``None``: unknown, so nothing is freed early.
    cache_kinds: tuple[str, ...] | None = None


def _guard(params: dict, fn) -> CellResult:
    try:
        return fn()
    except Exception as exc:  # a failing setting is recorded, never fatal for the others
        msg = f"{type(exc).__name__}: {exc}"
        return CellResult(params, None, error=msg, extras={"traceback": traceback.format_exc(limit=3)})


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def evaluate_naive(family: "Family", split: Split, settings: list[dict]) -> list[CellResult]:
    """Fit ``family.estimator(**params, random_state=seed)`` from scratch for every setting
    (the baseline of the shared-work evaluators in `make bench`)."""
    return evaluate_plain(family, split, settings)


def evaluate_plain(family: "Family", split: Split, settings: list[dict], staged: bool = False,
                   proba: bool = False, extras: Callable | None = None) -> list[CellResult]:
    """The generic evaluator for families without shared work: one plain fit per setting.

    ``proba=True`` also stores ``predict_proba`` (log loss); ``staged=True`` scores the
    estimator's ``staged_predict`` / ``staged_predict_proba`` (stages numbered from 1);
    ``extras(fitted_estimator) -> dict`` adds numbers stored as ``x_<name>`` columns (model size)."""
    results = []
    for params in settings:
        def one(params=params):
            est = family.estimator(**params, random_state=split.seed)
            _, fit_s = _timed(lambda: est.fit(split.X_train, split.y_train))
            y_pred, pred_s = _timed(lambda: est.predict(split.X_test))
            p = est.predict_proba(split.X_test) if proba else None
            stages = None
            if staged:
                preds = list(est.staged_predict(split.X_test))
                probs = list(est.staged_predict_proba(split.X_test)) if proba else [None] * len(preds)
                stages = [(i + 1, yp, pp) for i, (yp, pp) in enumerate(zip(preds, probs))]
            return CellResult(params, y_pred, fit_s, pred_s, bool(getattr(est, "converged_", True)),
                              proba=p, staged=stages, extras=extras(est) if extras else {})
        results.append(_guard(params, one))
    return results


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
                    beta, fit_s = _timed(lambda: welm_solve(Htr[:, :h], t))
                    (score, pred_s) = _timed(lambda: Hte[:, :h] @ beta)
                    y_pred = classes[(score >= 0).astype(int)]
                else:
                    sol, fit_s = _timed(lambda: eem_solve(Htr[:, :h], t))
                    beta = sol.beta
                    score, pred_s = _timed(lambda: projected_log_ratio(Hte[:, :h] @ beta, sol))
                    y_pred = eem_labels(score, sol, classes, t)
                return CellResult(params, y_pred, fit_s + share, pred_s,
                                  extras=_criteria(split, Htr[:, :h] @ beta, t))
            out.append(_guard(params, one))
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
        (Ktr, Kte), k_secs = _timed(lambda: (rbf_from_sq(Dtr, gamma), rbf_from_sq(Dte, gamma)))
        for i in idx:
            def one(params=settings[i]):
                h = min(int(params["n_hidden"]), n)

                def fit():
                    Khh = Ktr[order[:h], :h]  # rows of the landmarks, columns of the landmarks
                    norm, _ = inverse_sqrt_psd(Khh, float(params.get("eig_rtol", EEKM().eig_rtol)))
                    sol = eem_solve(Ktr[:, :h] @ norm, t)
                    return norm @ sol.beta, sol
                (proj, sol), fit_s = _timed(fit)
                score, pred_s = _timed(lambda: projected_log_ratio(Kte[:, :h] @ proj, sol))
                return CellResult(params, eem_labels(score, sol, classes, t),
                                  fit_s + (d_secs + k_secs) * h / h_max, pred_s,
                                  extras=_criteria(split, Ktr[:, :h] @ proj, t))
            out[i] = _guard(settings[i], one)
        del Ktr, Kte  # one gamma's kernel at a time
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
            path, path_s = _timed(lambda: lssvm_path(Ktr, t, [float(settings[i]["C"]) for i in idx]))
        except Exception as exc:  # the whole gamma group fails together
            for i in idx:
                out[i] = CellResult(settings[i], None, error=f"{type(exc).__name__}: {exc}")
            continue
        share = k_secs + path_s  # standalone estimate: kernel + one factorisation
        for i, (alpha, b) in zip(idx, path):
            def one(params=settings[i], alpha=alpha, b=b):
                score, pred_s = _timed(lambda: Kte @ alpha + b)
                if not np.all(np.isfinite(score)):
                    raise FloatingPointError("non-finite LS-SVM decision values (ill-conditioned system)")
                return CellResult(params, classes[(score >= 0).astype(int)], share, pred_s)
            out[i] = _guard(settings[i], one)
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
                (svc, converged), fit_s = _timed(lambda: fit_svc(Ktr, split.y_train, float(params["C"]), gamma,
                                                                 mi, kernel="precomputed"))
                y_pred, pred_s = _timed(lambda: svc.predict(Kte))
                extras = {"n_support": int(svc.n_support_.sum()), "n_iter": int(np.max(svc.n_iter_))}
                if split.options.get("train_criteria"):
                    extras.update(_criteria(split, svc.decision_function(Ktr), t))
                return CellResult(params, y_pred, fit_s + k_secs, pred_s, converged, extras=extras)
            out[i] = _guard(settings[i], one)
        _drop_kernel(split, gamma)
    return out


FAMILIES: dict[str, Family] = {
    "welm": Family("welm", WELM, "2", _evaluate_hidden("welm"), ("hidden",)),
    "eem": Family("eem", EEM, "2", _evaluate_hidden("eem"), ("hidden",)),
    "eekm": Family("eekm", EEKM, "2", evaluate_eekm, ("sq",)),
    "lssvm": Family("lssvm", LSSVM, "1", evaluate_lssvm, ("sq", "k")),
    "svm": Family("svm", SVM, "2", evaluate_svm, ("sq", "k")),
}


def release_unneeded(split: Split, later: list[Family]) -> list:
    """Drop the cache entries that none of the ``later`` families reads; returns the dropped keys.

    A task evaluates its families one after another on one ``Split``; without this, the hidden
    layers of WELM/EEM (N x h_max per activation) would still be held while EEKM builds its
    kernels, and the task's peak memory would be the sum of the phases instead of their maximum.
    """
    if any(f.cache_kinds is None for f in later):
        return []
    keep = {k for f in later for k in f.cache_kinds}
    dropped = [key for key in split.cache if not (isinstance(key, tuple) and key and key[0] in keep)]
    for key in dropped:
        del split.cache[key]
    return dropped


def register_family(family: Family) -> None:
    """Add a family (other papers' models); its estimator's params define the valid grid keys."""
    FAMILIES[family.name] = family
