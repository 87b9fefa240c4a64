"""PRI-SMO paper Section 6.1: computation time and support size versus N, tolerance and lambda.

One cell = one (n_samples, tol, lam, sigma) setting and one repeat: draw N points of the paper's
2-D mixture of three Gaussians (``make_pri_mixture``, Section 6.1) and solve Eq. (10) with
``PRISMO`` (two-variable steps Eq. 23-26, corrected KKT stop of Section 5.2, at most
``ceil(N ln N)`` steps). The cell records the fit time, the number of support vectors (non-zero
weights, Figure 2), the iterations and whether the N log N cap stopped the solver.

Choices the paper leaves open:

- Seeds. The mixture is ``make_pri_mixture(n_samples, seed)`` with the cell's model seed (the
  runner gives each repeat its own); the solver's random partners of the first pass use a separate
  stream, ``SeedSequence(seed).spawn(1)[0]``, so the data draws and the partner draws are never the
  same Mersenne-Twister stream. All (tol, lam) settings of one (N, repeat) see the same sample, so
  their comparisons are paired.
- Kernel width: ``kernel_width="sqrt2_sigma"`` (the estimator's default; set in
  ``conf/model/pri_smo.yaml``). Section 6.1 names the Parzen kernel kappa_sigma of Eq. (9) with
  sigma = 0.2, whose information potential (Eq. 6) is a Gaussian of width sqrt(2) sigma; the
  errata note the text can also be read as V = kappa itself (``kernel_width="sigma"``, one config
  override away).
- Time: ``fit_seconds`` is the whole ``PRISMO.fit`` (validation, the O(N^2) pass for
  ``q = V alpha`` and the SMO steps), not the data generation, measured in the runner's worker
  with one BLAS thread. The paper does not say what its times include.

Importing this module registers the family ``pri_smo_sweep`` for the runner.
"""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator

from randml_core.models._common import int_seed
from randml_core.family import CellResult, Family, Split, guard, register_family
from randml_core.models.pri import PRISMO

from .datasets import make_pri_mixture

__all__ = ["PRIMixtureSweep", "evaluate_sweep", "cell_seeds", "FAMILY"]


def cell_seeds(random_state) -> tuple[int, int]:
    """``(data_seed, solver_seed)``: the mixture uses the cell seed itself, the solver the first
    child of ``SeedSequence(seed)`` (an independent stream)."""
    seed = int_seed(random_state)
    child = np.random.SeedSequence(seed).spawn(1)[0]
    return seed, int(child.generate_state(1, dtype=np.uint32)[0] & 0x7FFFFFFF)


class PRIMixtureSweep(BaseEstimator):
    """One cell of the Section 6.1 sweep: draw the mixture and fit ``PRISMO`` on it.

    This is an analysis probe, not a learner: ``fit`` ignores its ``X``/``y`` (the runner hands
    it the rows of a carrier dataset) and draws its own data from ``random_state``. For that
    reason it is not run through scikit-learn's estimator checks (they assume the model learns
    from X); ``PRISMO`` itself is (tests/test_pri.py).

    Parameters
    ----------
    n_samples : int, default=1000
        Sample size N of the mixture.
    tol : float, default=1e-3
        KKT tolerance epsilon of the stop rule (Section 5.2, corrected signs).
    lam : float, default=2.0
        Trade-off lambda of Eq. (5); the sweep uses lam > 1 (Prop. 3.1).
    sigma : float, default=0.2
        Parzen kernel width (Section 6.1).
    kernel_width : {"sqrt2_sigma", "sigma"}, default="sqrt2_sigma"
        Width of the Gaussian in V, passed to ``PRISMO`` (see the module docstring).
    max_iter : int or None, default=None
        Step cap; None = ``ceil(N ln N)`` (Section 6.1's N log N, natural log).
    cache_mb : float, default=64.0
        Kernel-row cache of the solver (affects time only).
    first_pass : bool, default=True
        The paper's first heuristic (Section 5.2), passed to ``PRISMO``.
    random_state : int, RandomState instance or None, default=None
        Cell seed; see ``cell_seeds``.

    Attributes
    ----------
    solver_ : PRISMO
        The fitted solver (weights, support, trace).
    data_seed_, solver_seed_ : int
        The seeds actually used.
    fit_seconds_ : float
        Wall time of ``solver_.fit`` only.
    """

    def __init__(self, n_samples=1000, tol=1e-3, lam=2.0, sigma=0.2, kernel_width="sqrt2_sigma",
                 max_iter=None, cache_mb=64.0, first_pass=True, random_state=None):
        self.n_samples = n_samples
        self.tol = tol
        self.lam = lam
        self.sigma = sigma
        self.kernel_width = kernel_width
        self.max_iter = max_iter
        self.cache_mb = cache_mb
        self.first_pass = first_pass
        self.random_state = random_state

    def fit(self, X=None, y=None):
        """Draw ``make_pri_mixture(n_samples, data_seed)`` and solve Eq. (10) on it (X, y ignored)."""
        n = self.n_samples
        if isinstance(n, bool) or not isinstance(n, (int, np.integer, float)) or n != int(n) or n < 2:
            raise ValueError(f"n_samples must be an integer >= 2, got {self.n_samples!r}.")
        self.data_seed_, self.solver_seed_ = cell_seeds(self.random_state)
        data, _ = make_pri_mixture(int(n), self.data_seed_)
        self.solver_ = PRISMO(sigma=self.sigma, lam=self.lam, tol=self.tol, max_iter=self.max_iter,
                              cache_mb=self.cache_mb, kernel_width=self.kernel_width,
                              first_pass=self.first_pass, random_state=self.solver_seed_)
        self.solver_.fit(data)
        self.fit_seconds_ = float(self.solver_.fit_seconds_)
        return self

    def extras(self) -> dict:
        """The scalars stored with the cell (columns ``x_<name>`` in the store)."""
        s = self.solver_
        return {
            "n_sv": int(len(s.support_)),                 # Figure 2
            "n_iter": int(s.n_iter_),                      # pair steps taken (both stages)
            "n_first_pass_iter": int(s.n_first_pass_iter_),
            "max_iter": int(s.max_iter_),                  # the cap, ceil(N ln N) by default
            "hit_max_iter": bool(s.hit_max_iter_),
            "stop_reason": str(s.stop_reason_),            # "tol", "max_iter" or "stalled"
            "objective": float(s.objective_[-1]),          # J(beta) of Eq. (10) at the end
            "violation": float(s.violation_[-1]),          # largest KKT breach at the end
            "data_seed": int(self.data_seed_),
            "solver_seed": int(self.solver_seed_),
        }


def evaluate_sweep(split: Split, settings: list[dict]) -> list[CellResult]:
    """Runner evaluator: one ``PRIMixtureSweep`` per setting with ``random_state=split.seed``.

    ``split.X_train`` (the carrier dataset) is not used. ``converged`` is the solver's KKT test
    (stop reason "tol"): False when the N log N cap stopped it, and also on a stall (recorded in
    ``stop_reason``).
    """
    out = []
    for params in settings:
        def one(params=params):
            probe = PRIMixtureSweep(**params, random_state=split.seed).fit()
            return CellResult(params, None, probe.fit_seconds_, 0.0,
                              converged=bool(probe.solver_.converged_), extras=probe.extras())
        out.append(guard(params, one))
    return out


FAMILY = Family("pri_smo_sweep", PRIMixtureSweep, "1", evaluate_sweep, check="probe")
register_family(FAMILY)
